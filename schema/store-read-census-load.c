/* A stored census read back into a struct census: its row, its classes,
 * its largest regions, its files and its GPU section, each a query keyed
 * by the census id (the primary key, or an index leading with it).  What
 * the store does not keep stays as census_new left it; read_census_json
 * says which of those are unknown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "classify.h"
#include "store-read-internal.h"
#include "strpool.h"
#include "text.h"

static uint64_t column_u64(sqlite3_stmt *st, int i)
{
	int64_t v = sqlite3_column_int64(st, i);
	return v > 0 ? (uint64_t)v : 0;
}

static int64_t column_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* Column i interned in the census's pool; NULL for NULL.  census_to_json
 * refuses a string that is not UTF-8 (a file name is any bytes): such a
 * one is made readable first.  Sets *oom. */
static const char *column_intern(struct census *c, sqlite3_stmt *st, int i, bool *oom)
{
	const char *s = (const char *)sqlite3_column_text(st, i), *copy;
	size_t len = (size_t)sqlite3_column_bytes(st, i);
	_cleanup_free_ char *clean = NULL;

	if (!s)
		return NULL;
	if (!read_utf8_valid(s, len)) {
		/* the same U+FFFD for a bad byte as a live census shows */
		s = clean = text_clean(s, len, true, &len);
		if (!clean) {
			*oom = true;
			return NULL;
		}
	}
	copy = strpool_intern(c->strings, s, len);
	if (!copy)
		*oom = true;
	return copy;
}

/* The censuses row: time, counters, cost, totals, read into the struct
 * census; only the trigger and the status are given as they stand. */
enum census_row {
	ROW_TIME,
	ROW_TRIGGER,
	ROW_STATUS,
	ROW_LIGHT,
	ROW_COUNTER_PRIVATE,
	ROW_COUNTER_RESIDENT,
	ROW_PEAK_RESIDENT,
	ROW_WALL_US,
	ROW_CPU_US,
	ROW_BYTES_READ,
	ROW_GPU_STATE,
	ROW_GPU_DRIVER_VERSION,
	ROW_NVIDIA_MAPPED,
	ROW_GPU_MESSAGE,
	ROW_EVIDENCE_TAKEN,
	ROW_EVIDENCE_WHY_NOT,
	ROW_EVIDENCE_REGIONS,
	ROW_EVIDENCE_CONFIRMED,
	ROW_EVIDENCE_SPLIT,
	ROW_EVIDENCE_READS,
	ROW_EVIDENCE_BYTES,
	ROW_EVIDENCE_BATCHES,
	ROW_PAGES_LOOKED_UP,
	ROW_THREADS,
	ROW_STACK_POINTERS,
	ROW_REPEATS,
	ROW_STATUS_COLUMNS,                                     /* store_status_columns, from here on */
	ROW_TOTALS = ROW_STATUS_COLUMNS + STORE_N_STATUS_COLUMNS, /* CENSUS_COUNTERS, from here on */
	_ROW_MAX = ROW_TOTALS + _CENSUS_N_COUNTERS
};
#define TOTAL_COLUMN_(name, class_key, total_key, ...) [ROW_TOTALS + CENSUS_COUNTER_##name] = { #total_key, READ_KEY },
static const struct read_column census_row_columns[] = {
	[ROW_TIME] = { "time", READ_KEY },
	[ROW_TRIGGER] = { "trigger", READ_STR },
	[ROW_STATUS] = { "status", READ_STR },
	[ROW_LIGHT] = { "light", READ_KEY },
	[ROW_COUNTER_PRIVATE] = { "counter_private", READ_KEY },
	[ROW_COUNTER_RESIDENT] = { "counter_resident", READ_KEY },
	[ROW_PEAK_RESIDENT] = { "peak_resident", READ_KEY },
	[ROW_WALL_US] = { "wall_us", READ_KEY },
	[ROW_CPU_US] = { "cpu_us", READ_KEY },
	[ROW_BYTES_READ] = { "bytes_read", READ_KEY },
	[ROW_GPU_STATE] = { "gpu_state", READ_KEY },
	[ROW_GPU_DRIVER_VERSION] = { "gpu_driver_version", READ_KEY },
	[ROW_NVIDIA_MAPPED] = { "nvidia_mapped", READ_KEY },
	[ROW_GPU_MESSAGE] = { "gpu_message", READ_KEY },
	[ROW_EVIDENCE_TAKEN] = { "evidence_taken", READ_KEY },
	[ROW_EVIDENCE_WHY_NOT] = { "evidence_why_not", READ_KEY },
	[ROW_EVIDENCE_REGIONS] = { "evidence_regions", READ_KEY },
	[ROW_EVIDENCE_CONFIRMED] = { "evidence_confirmed", READ_KEY },
	[ROW_EVIDENCE_SPLIT] = { "evidence_split", READ_KEY },
	[ROW_EVIDENCE_READS] = { "evidence_reads", READ_KEY },
	[ROW_EVIDENCE_BYTES] = { "evidence_bytes", READ_KEY },
	[ROW_EVIDENCE_BATCHES] = { "evidence_batches", READ_KEY },
	[ROW_PAGES_LOOKED_UP] = { "pages_looked_up", READ_KEY },
	[ROW_THREADS] = { "threads", READ_KEY },
	[ROW_STACK_POINTERS] = { "stack_pointers", READ_KEY },
	[ROW_REPEATS] = { "repeats", READ_INT },
	[ROW_STATUS_COLUMNS + 0] = { "counter_swap", READ_KEY },
	[ROW_STATUS_COLUMNS + 1] = { "counter_rss_anon", READ_KEY },
	[ROW_STATUS_COLUMNS + 2] = { "counter_rss_file", READ_KEY },
	[ROW_STATUS_COLUMNS + 3] = { "counter_rss_shmem", READ_KEY },
	[ROW_STATUS_COLUMNS + 4] = { "counter_locked", READ_KEY },
	[ROW_STATUS_COLUMNS + 5] = { "counter_hugetlb", READ_KEY },
	CENSUS_COUNTERS(TOTAL_COLUMN_)
};
_Static_assert(ELEMENTSOF(census_row_columns) == _ROW_MAX, "a column for every field");
static const struct read_query census_row_query = READ_QUERY(
	RS_CENSUS_ROW,
	"SELECT time, trigger, status, light, counter_private, counter_resident, peak_resident, wall_us, cpu_us,"
	"       bytes_read, gpu_state, gpu_driver_version, nvidia_mapped, gpu_message, evidence_taken, evidence_why_not,"
	"       evidence_regions, evidence_confirmed, evidence_split, evidence_reads, evidence_bytes, evidence_batches,"
	"       pages_looked_up, threads, stack_pointers, repeats, counter_swap, counter_rss_anon, counter_rss_file,"
	"       counter_rss_shmem, counter_locked, counter_hugetlb" CENSUS_SQL_TOTAL_NAMES
	" FROM censuses WHERE id = ?1",
	census_row_columns);

/* Counter k of t from column i, or, for NULL, 0 where a light census did
 * not read it (light_known false: the census has 0 there) and unknown
 * otherwise (stored before the store kept it): its bit set in *unknown. */
static void load_counter(sqlite3_stmt *st, int i, const struct census *c, struct census_totals *t, int k,
			 bool light_known, uint32_t *unknown)
{
	if (sqlite3_column_type(st, i) != SQLITE_NULL)
		*census_counter(t, k) = column_u64(st, i);
	else if (!c->light || light_known)
		*unknown |= 1u << k;
}

/* The census row into c.  Returns 0 with *ret_meta ({"trigger",
 * "status", "repeats"}) and in *ret_content the census whose classes,
 * regions, files and GPU memory are this one's (the census it repeats, or
 * itself), -ENOENT, or a negative errno. */
static int load_row(struct store_reader *r, int64_t census_id, struct census *c, int64_t *ret_counter_private,
		    json_t **ret_meta, int64_t *ret_content)
{
	sqlite3_stmt *st = NULL;
	int e;

	e = read_query_prepare(r, &census_row_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "reading a census");
	if (e < 0)
		return e;
	e = read_step(r, st, "reading a census");
	if (e == 0)
		e = read_failf(r, -ENOENT, "no census %lld in the store", (long long)census_id);
	if (e > 0) {
		c->taken_at_ms = sqlite3_column_int64(st, ROW_TIME);
		*ret_content = sqlite3_column_type(st, ROW_REPEATS) == SQLITE_NULL ? census_id
											 : sqlite3_column_int64(st, ROW_REPEATS);
		c->light = sqlite3_column_int(st, ROW_LIGHT) != 0;
		for (int k = 0; k < _CENSUS_N_COUNTERS; k++)
			load_counter(st, ROW_TOTALS + k, c, &c->totals, k, census_counters[k].light_total,
				     &c->unknown_totals);
		*ret_counter_private = column_opt(st, ROW_COUNTER_PRIVATE);
		if (sqlite3_column_type(st, ROW_COUNTER_RESIDENT) != SQLITE_NULL) {
			c->status.counter[STATUS_VM_RSS] = column_u64(st, ROW_COUNTER_RESIDENT);
			c->status.present |= 1u << STATUS_VM_RSS;
			c->have_status = true;
		}
		if (sqlite3_column_type(st, ROW_PEAK_RESIDENT) != SQLITE_NULL) {
			c->status.counter[STATUS_VM_HWM] = column_u64(st, ROW_PEAK_RESIDENT);
			c->status.present |= 1u << STATUS_VM_HWM;
			c->have_status = true;
		}
		/* NULL before schema 7, or not given by the kernel: unknown */
		for (int i = 0; i < STORE_N_STATUS_COLUMNS; i++) {
			enum status_counter k = store_status_columns[i];
			if (sqlite3_column_type(st, ROW_STATUS_COLUMNS + i) == SQLITE_NULL)
				continue;
			c->status.counter[k] = column_u64(st, ROW_STATUS_COLUMNS + i);
			c->status.present |= 1u << k;
			c->have_status = true;
		}
		c->wall_us = column_opt(st, ROW_WALL_US);
		c->cpu_us = column_opt(st, ROW_CPU_US);
		c->bytes_read = column_opt(st, ROW_BYTES_READ);
		/* evidence: NULL before schema 5 */
		c->evidence.taken = sqlite3_column_int(st, ROW_EVIDENCE_TAKEN) != 0;
		const char *why_not = (const char *)sqlite3_column_text(st, ROW_EVIDENCE_WHY_NOT);
		snprintf(c->evidence.why_not, sizeof(c->evidence.why_not), "%s", why_not ? why_not : "");
		c->evidence.regions = column_opt(st, ROW_EVIDENCE_REGIONS);
		c->evidence.confirmed = column_opt(st, ROW_EVIDENCE_CONFIRMED);
		c->evidence.split = column_opt(st, ROW_EVIDENCE_SPLIT);
		c->evidence.reads = column_opt(st, ROW_EVIDENCE_READS);
		c->evidence.bytes = column_opt(st, ROW_EVIDENCE_BYTES);
		/* NULL before schema 11 */
		c->evidence.calls = column_opt(st, ROW_EVIDENCE_BATCHES);
		c->evidence.pages = column_opt(st, ROW_PAGES_LOOKED_UP);
		c->threads_seen = column_opt(st, ROW_THREADS);
		c->stack_pointers = column_opt(st, ROW_STACK_POINTERS);
		/* the GPU section: its state, when one was taken */
		int gpu = gpu_state_from_name((const char *)sqlite3_column_text(st, ROW_GPU_STATE));
		if (gpu >= 0) {
			c->gpu.taken = true;
			c->gpu.state = (enum gpu_state)gpu;
			c->gpu.driver_version = (int)column_opt(st, ROW_GPU_DRIVER_VERSION);
			if (c->gpu.driver_version < 0)
				c->gpu.driver_version = 0;
			c->gpu.nvidia_mapped = sqlite3_column_int(st, ROW_NVIDIA_MAPPED) != 0;
			const char *message = (const char *)sqlite3_column_text(st, ROW_GPU_MESSAGE);
			snprintf(c->gpu.message, sizeof(c->gpu.message), "%s", message ? message : "");
		}
		*ret_meta = read_row_json(st, &census_row_query);
		e = *ret_meta ? 0 : -ENOMEM;
	}
	read_done(st);
	return e < 0 ? e : 0;
}

/* A class row: its class, then its counters (CENSUS_COUNTERS's per_class
 * ones, in their order). */
#define CC_CLASS 0
#define CLASS_COLUMN_(name, class_key, total_key, per_class, ...) CENSUS_IF_##per_class({ #class_key, READ_KEY }, )
static const struct read_column class_columns[] = {
	{ "class", READ_KEY },
	CENSUS_COUNTERS(CLASS_COLUMN_)
	{ "how", READ_KEY },
};
#define CC_HOW (ELEMENTSOF(class_columns) - 1)
static const struct read_query class_query =
	READ_QUERY(RS_CENSUS_CLASSES, "SELECT class" CENSUS_SQL_CLASS_NAMES ", how FROM census_classes WHERE census_id = ?1",
		   class_columns);

static int load_classes(struct store_reader *r, int64_t census_id, struct census *c)
{
	sqlite3_stmt *st = NULL;
	int e;

	/* what the class rows do not carry is not known of any class; a heap
	 * walk's figures only of the classes it has rows for */
	for (int k = 0; k < _CLASS_MAX; k++) {
		c->unknown_classes[k] |= CENSUS_HEAP_COUNTERS;
		for (int j = 0; j < _CENSUS_N_COUNTERS; j++)
			if (!census_counters[j].per_class)
				c->unknown_classes[k] |= 1u << j;
	}
	e = read_query_prepare(r, &class_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "reading census classes");
	while (e >= 0 && (e = read_step(r, st, "reading census classes")) > 0) {
		int k = class_from_key((const char *)sqlite3_column_text(st, CC_CLASS)), i = CC_CLASS + 1;
		/* a class a newer ramwatch wrote: this one has no name for it */
		if (k < 0)
			continue;
		bool oom = false;
		c->classes[k] = (struct census_totals){ 0 };
		c->unknown_classes[k] &= ~(uint32_t)CENSUS_HEAP_COUNTERS;
		for (int j = 0; j < _CENSUS_N_COUNTERS; j++)
			if (census_counters[j].per_class)
				load_counter(st, i++, c, &c->classes[k], j, census_counters[j].light_class,
					     &c->unknown_classes[k]);
		c->how[k] = column_intern(c, st, (int)CC_HOW, &oom);
		if (oom)
			e = -ENOMEM;
	}
	read_done(st);
	return e < 0 ? e : 0;
}

/* Grows an array of n elements of size to hold one more.  Returns 0 or -ENOMEM. */
static int grow(void **a, size_t n, size_t *allocated, size_t size)
{
	if (n < *allocated)
		return 0;
	size_t more = *allocated ? 2 * *allocated : 32;
	void *b = realloc(*a, more * size);
	if (!b)
		return -ENOMEM;
	*a = b;
	*allocated = more;
	return 0;
}

enum region_column {
	RC_START,
	RC_END,
	RC_PERMS,
	RC_CLASS,
	RC_RULE,
	RC_PRIVATE,
	RC_RESIDENT,
	RC_PATH,
	RC_EVIDENCE,
	RC_CONFIRMED,
	RC_PART,
	_RC_MAX
};
static const struct read_column region_columns[] = {
	[RC_START] = { "start", READ_KEY },
	[RC_END] = { "end", READ_KEY },
	[RC_PERMS] = { "perms", READ_KEY },
	[RC_CLASS] = { "class", READ_KEY },
	[RC_RULE] = { "rule", READ_KEY },
	[RC_PRIVATE] = { "private", READ_KEY },
	[RC_RESIDENT] = { "resident", READ_KEY },
	[RC_PATH] = { "path", READ_KEY },
	[RC_EVIDENCE] = { "evidence", READ_KEY },
	[RC_CONFIRMED] = { "confirmed", READ_KEY },
	[RC_PART] = { "part", READ_KEY },
};
_Static_assert(ELEMENTSOF(region_columns) == _RC_MAX, "a column for every field");
static const struct read_query region_query =
	READ_QUERY(RS_CENSUS_REGIONS,
		   "SELECT x.start, x.\"end\", x.perms, x.class, x.rule, x.private, x.resident, p.path,"
		   "       x.evidence, x.confirmed, x.part"
		   " FROM census_regions x LEFT JOIN paths p ON p.id = x.path_id"
		   " WHERE x.census_id = ?1 ORDER BY x.rank",
		   region_columns);

static int load_regions(struct store_reader *r, int64_t census_id, struct census *c)
{
	sqlite3_stmt *st = NULL;
	size_t allocated = 0;
	int e;

	e = read_query_prepare(r, &region_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "reading census regions");
	while (e >= 0 && (e = read_step(r, st, "reading census regions")) > 0) {
		struct census_region x = { 0 };
		const char *perms = (const char *)sqlite3_column_text(st, RC_PERMS);
		int k = class_from_key((const char *)sqlite3_column_text(st, RC_CLASS)), rule;
		bool oom = false;

		/* addresses are stored as signed 64-bit: back to unsigned */
		x.start = (uint64_t)sqlite3_column_int64(st, RC_START);
		x.end = (uint64_t)sqlite3_column_int64(st, RC_END);
		x.size = x.end > x.start ? x.end - x.start : 0;
		x.cls = k >= 0 ? (enum class_id)k : CLASS_OTHER;
		x.rule = column_intern(c, st, RC_RULE, &oom);
		rule = x.rule ? classify_rule_from_key(x.rule) : -1;
		x.why = rule >= 0 ? classify_rule((size_t)rule)->why : NULL;
		x.private = column_u64(st, RC_PRIVATE);
		x.resident = column_u64(st, RC_RESIDENT);
		x.path = column_intern(c, st, RC_PATH, &oom);
		x.evidence = column_intern(c, st, RC_EVIDENCE, &oom);
		x.confirmed = sqlite3_column_int(st, RC_CONFIRMED) != 0;
		x.part = sqlite3_column_int(st, RC_PART) != 0;
		snprintf(x.perms, sizeof(x.perms), "%s", perms ? perms : "????");
		if (oom || grow((void **)&c->largest, c->n_largest, &allocated, sizeof(x)) < 0) {
			e = -ENOMEM;
			break;
		}
		c->largest[c->n_largest++] = x;
	}
	read_done(st);
	return e < 0 ? e : 0;
}

enum file_column { FC_PATH, FC_KIND, FC_PRIVATE, FC_RESIDENT, FC_SIZE, FC_REGIONS, _FC_MAX };
static const struct read_column file_columns[] = {
	[FC_PATH] = { "path", READ_KEY },
	[FC_KIND] = { "kind", READ_KEY },
	[FC_PRIVATE] = { "private", READ_KEY },
	[FC_RESIDENT] = { "resident", READ_KEY },
	[FC_SIZE] = { "size", READ_KEY },
	[FC_REGIONS] = { "regions", READ_KEY },
};
_Static_assert(ELEMENTSOF(file_columns) == _FC_MAX, "a column for every field");
/* the census's own order: largest (resident + private) first */
static const struct read_query file_query =
	READ_QUERY(RS_CENSUS_FILES,
		   "SELECT p.path, f.kind, f.private, f.resident, f.size, f.regions"
		   " FROM census_files f JOIN paths p ON p.id = f.path_id WHERE f.census_id = ?1"
		   " ORDER BY coalesce(f.resident, 0) + coalesce(f.private, 0) DESC, p.path",
		   file_columns);

static int load_files(struct store_reader *r, int64_t census_id, struct census *c)
{
	sqlite3_stmt *st = NULL;
	size_t allocated = 0;
	int e;

	e = read_query_prepare(r, &file_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "reading census files");
	while (e >= 0 && (e = read_step(r, st, "reading census files")) > 0) {
		int kind = file_kind_from_name((const char *)sqlite3_column_text(st, FC_KIND));
		bool oom = false;
		struct census_file f = {
			.path = column_intern(c, st, FC_PATH, &oom),
			.kind = kind >= 0 ? (enum file_kind)kind : FILE_DATA,
			.private = column_u64(st, FC_PRIVATE),
			.resident = column_u64(st, FC_RESIDENT),
			.size = column_u64(st, FC_SIZE),
			.regions = column_u64(st, FC_REGIONS),
		};
		if (oom || grow((void **)&c->files, c->n_files, &allocated, sizeof(f)) < 0) {
			e = -ENOMEM;
			break;
		}
		c->files[c->n_files++] = f;
	}
	read_done(st);
	return e < 0 ? e : 0;
}

enum gpu_column { GC_INDEX, GC_UUID, GC_NAME, GC_USED, GC_TOTAL, GC_GRAPHICS, _GC_MAX };
static const struct read_column gpu_columns[] = {
	[GC_INDEX] = { "device_index", READ_KEY },
	[GC_UUID] = { "uuid", READ_KEY },
	[GC_NAME] = { "name", READ_KEY },
	[GC_USED] = { "used", READ_KEY },
	[GC_TOTAL] = { "total", READ_KEY },
	[GC_GRAPHICS] = { "graphics", READ_KEY },
};
_Static_assert(ELEMENTSOF(gpu_columns) == _GC_MAX, "a column for every field");
static const struct read_query gpu_query =
	READ_QUERY(RS_CENSUS_GPU,
		   "SELECT g.device_index, g.uuid, g.name, x.used, g.total, x.graphics"
		   " FROM census_gpu x JOIN gpus g ON g.id = x.gpu_id WHERE x.census_id = ?1"
		   " ORDER BY g.device_index, g.uuid",
		   gpu_columns);

/* The devices of the census's GPU section (when it has one), by device. */
static int load_gpu(struct store_reader *r, int64_t census_id, struct census *c)
{
	sqlite3_stmt *st = NULL;
	size_t allocated = 0;
	int e;

	if (!c->gpu.taken)
		return 0;
	e = read_query_prepare(r, &gpu_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "reading the census's GPU memory");
	while (e >= 0 && (e = read_step(r, st, "reading the census's GPU memory")) > 0) {
		const char *uuid = (const char *)sqlite3_column_text(st, GC_UUID);
		const char *name = (const char *)sqlite3_column_text(st, GC_NAME);
		struct census_gpu_use u = {
			.index = (unsigned)sqlite3_column_int64(st, GC_INDEX),
			.used = sqlite3_column_type(st, GC_USED) == SQLITE_NULL ? GPU_BYTES_UNKNOWN : column_u64(st, GC_USED),
			.total = column_u64(st, GC_TOTAL),
			.graphics = sqlite3_column_int(st, GC_GRAPHICS) != 0,
		};
		snprintf(u.uuid, sizeof(u.uuid), "%s", uuid ? uuid : "");
		snprintf(u.name, sizeof(u.name), "%s", name ? name : "");
		if (grow((void **)&c->gpu.uses, c->gpu.n_uses, &allocated, sizeof(u)) < 0) {
			e = -ENOMEM;
			break;
		}
		c->gpu.uses[c->gpu.n_uses++] = u;
	}
	read_done(st);
	return e < 0 ? e : 0;
}

int read_census_load(struct store_reader *r, int64_t census_id, struct census *c, int64_t *ret_counter_private,
		     json_t **ret_meta)
{
	json_t *meta = NULL;
	int64_t content = census_id;
	int e;

	/* a repeat's own row has its time, trigger and cost; what it found is
	 * the content of the census it repeats */
	e = load_row(r, census_id, c, ret_counter_private, &meta, &content);
	if (e >= 0)
		e = load_classes(r, content, c);
	if (e >= 0)
		e = load_regions(r, content, c);
	if (e >= 0)
		e = load_files(r, content, c);
	if (e >= 0)
		e = load_gpu(r, content, c);
	if (e < 0) {
		json_decref(meta);
		return e;
	}
	*ret_meta = meta;
	return 0;
}
