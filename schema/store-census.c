/* Writing a census: its row, its class totals, its largest regions, its
 * files, and the region events found against the census before it.  The
 * census is written whole, then store-delta.c keeps only its changes from
 * its key census when they are few.  File
 * paths are stored once, in paths, and referred to by id.
 *
 * Paths are looked up in the database every time rather than cached: a
 * census has a few dozen of them, a lookup in the unique index costs a few
 * microseconds, and no cache can then hold the id of a path whose insert a
 * rollback undid. */
#include <errno.h>

#include "classes.h"
#include "store-internal.h"

/* The id of path in paths, adding it when it is new.  Returns 0 with *ret
 * or a negative errno. */
static int path_id(struct store *s, const char *path, int64_t *ret)
{
	sqlite3_stmt *st;
	int r;

	r = store_stmt(s, STMT_PATH_FIND, "SELECT id FROM paths WHERE path = ?1", &st);
	if (r < 0)
		return r;
	r = store_bound(s, st, store_bind_text(st, 1, path), "path");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "path", ret);
	if (r != 0) /* found, or failed */
		return r < 0 ? r : 0;

	r = store_stmt(s, STMT_PATH_ADD, "INSERT INTO paths (path) VALUES (?1)", &st);
	if (r < 0)
		return r;
	r = store_bound_run(s, st, store_bind_text(st, 1, path), "path");
	if (r < 0)
		return r;
	*ret = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* Binds path's id at i, or NULL for no path. */
static int bind_path(struct store *s, sqlite3_stmt *st, int i, const char *path)
{
	int64_t id;
	int r;

	if (!path)
		return sqlite3_bind_null(st, i);
	r = path_id(s, path, &id);
	if (r < 0)
		return r;
	return sqlite3_bind_int64(st, i, id);
}

/* A memory counter of a class, region or file: NULL in a light census,
 * which did not read them (its sizes and counts are known). */
static int bind_counter(sqlite3_stmt *st, int i, uint64_t v, const struct census *c)
{
	return c->light ? sqlite3_bind_null(st, i) : store_bind_u64(st, i, v);
}

/* Counter k of t at parameter i: NULL where the census does not know it
 * (unknown), or where a light census did not read it (light_known
 * false). */
static int bind_census_counter(sqlite3_stmt *st, int i, const struct census *c, const struct census_totals *t, int k,
			       bool light_known, uint32_t unknown)
{
	if ((c->light && !light_known) || (unknown & (1u << k)))
		return sqlite3_bind_null(st, i);
	return store_bind_u64(st, i, census_counter_value(t, k));
}

static int put_classes(struct store *s, int64_t census_id, const struct census *c)
{
	static const char sql[] = "INSERT INTO census_class_rows (census_id, class" CENSUS_SQL_CLASS_NAMES ", how)"
				  " VALUES (?1, ?2" CENSUS_SQL_CLASS_PARAMS ", ?)";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_CLASS_PUT, sql, &st);
	if (r < 0)
		return r;
	for (int k = 0; k < _CLASS_MAX; k++) {
		const struct census_totals *t = &c->classes[k];
		int i = 3;
		/* A class with no region has no row: zero everywhere is implied. */
		if (t->count == 0)
			continue;
		rc = sqlite3_bind_int64(st, 1, census_id);
		rc |= store_bind_text(st, 2, class_key((enum class_id)k));
		for (int j = 0; j < _CENSUS_N_COUNTERS; j++)
			if (census_counters[j].per_class)
				rc |= bind_census_counter(st, i++, c, t, j, census_counters[j].light_class,
							  c->unknown_classes[k]);
		rc |= store_bind_text(st, i, c->how[k]);
		r = store_bound_run(s, st, rc, "census classes");
		if (r < 0)
			return r;
	}
	return 0;
}

static int put_regions(struct store *s, int64_t census_id, const struct census *c)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_REGION_PUT,
		       "INSERT INTO census_region_rows (census_id, rank, start, \"end\", perms, class, rule, private,"
		       "                                resident, path_id, evidence, confirmed, part)"
		       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
		       &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_largest; i++) {
		const struct census_region *x = &c->largest[i];

		rc = bind_path(s, st, 10, x->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, census_id);
		rc |= sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		/* addresses as signed 64-bit integers (two's complement) */
		rc |= sqlite3_bind_int64(st, 3, (sqlite3_int64)x->start);
		rc |= sqlite3_bind_int64(st, 4, (sqlite3_int64)x->end);
		rc |= store_bind_text(st, 5, x->perms);
		rc |= store_bind_text(st, 6, class_key(x->cls));
		rc |= store_bind_text(st, 7, x->rule);
		rc |= bind_counter(st, 8, x->private, c);
		rc |= bind_counter(st, 9, x->resident, c);
		rc |= store_bind_text(st, 11, x->evidence);
		rc |= sqlite3_bind_int(st, 12, x->confirmed);
		rc |= sqlite3_bind_int(st, 13, x->part);
		r = store_bound_run(s, st, rc, "census regions");
		if (r < 0)
			return r;
	}
	return 0;
}

static int put_files(struct store *s, int64_t census_id, const struct census *c)
{
	/* Two entries of one path (a census read from JSON may hold them)
	 * add up rather than fail the census. */
	static const char sql[] =
		"INSERT INTO census_file_rows (census_id, path_id, kind, private, resident, size, regions)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT (census_id, path_id) DO UPDATE SET"
		"  private = private + excluded.private, resident = resident + excluded.resident,"
		"  size = size + excluded.size, regions = regions + excluded.regions";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_FILE_PUT, sql, &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_files; i++) {
		const struct census_file *f = &c->files[i];
		const char *kind = file_kind_name(f->kind);

		if (!f->path || !kind)
			return store_failf(s, -EINVAL, "census files: file %zu has no path or an unknown kind", i);
		rc = bind_path(s, st, 2, f->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, census_id);
		rc |= store_bind_text(st, 3, kind);
		rc |= bind_counter(st, 4, f->private, c);
		rc |= bind_counter(st, 5, f->resident, c);
		rc |= store_bind_u64(st, 6, f->size);
		rc |= store_bind_u64(st, 7, f->regions);
		r = store_bound_run(s, st, rc, "census files");
		if (r < 0)
			return r;
	}
	return 0;
}

const enum status_counter store_status_columns[STORE_N_STATUS_COLUMNS] = {
	STATUS_VM_SWAP, STATUS_RSS_ANON, STATUS_RSS_FILE, STATUS_RSS_SHMEM, STATUS_VM_LCK, STATUS_HUGETLB_PAGES,
};

/* store_status_columns bound from parameter first on; a counter the kernel
 * did not give (RssAnon before Linux 4.5, HugetlbPages before 4.4) stays
 * NULL, as it is unknown. */
static int bind_status_counters(sqlite3_stmt *st, int first, const struct census *c)
{
	int rc = 0;

	for (int i = 0; i < STORE_N_STATUS_COLUMNS; i++)
		if (c->have_status && status_has(&c->status, store_status_columns[i]))
			rc |= store_bind_u64(st, first + i, c->status.counter[store_status_columns[i]]);
	return rc;
}

/* The cost as the caller measured it, else as the census did. */
static int64_t cost(int64_t given, const struct census *c, int64_t measured)
{
	return given >= 0 || !c ? given : measured;
}

/* The parameters of a census's row: its columns, then its totals
 * (CENSUS_COUNTERS, from P_TOTALS on). */
enum census_param {
	P_PROCESS_ID = 1,
	P_TIME,
	P_TRIGGER,
	P_STATUS,
	P_LIGHT,
	P_MESSAGE,
	P_COUNTER_PRIVATE,
	P_COUNTER_RESIDENT,
	P_PEAK_RESIDENT,
	P_WALL_US,
	P_CPU_US,
	P_BYTES_READ,
	P_GPU_STATE,
	P_GPU_DRIVER_VERSION,
	P_NVIDIA_MAPPED,
	P_GPU_MESSAGE,
	P_EVIDENCE_TAKEN,
	P_EVIDENCE_WHY_NOT,
	P_EVIDENCE_REGIONS,
	P_EVIDENCE_CONFIRMED,
	P_EVIDENCE_SPLIT,
	P_EVIDENCE_READS,
	P_EVIDENCE_BYTES,
	P_EVIDENCE_BATCHES,
	P_PAGES_LOOKED_UP,
	P_THREADS,
	P_STACK_POINTERS,
	P_STATUS_COUNTERS, /* store_status_columns, from here on */
	P_TOTALS = P_STATUS_COUNTERS + STORE_N_STATUS_COLUMNS,
};

int store_put_census(struct store *s, int64_t process_id, const struct store_census *m, const struct census *c,
		     int64_t *ret_id)
{
	static const char sql[] =
		"INSERT INTO censuses (process_id, time, trigger, status, light, message, counter_private, counter_resident,"
		"  peak_resident, wall_us, cpu_us, bytes_read, gpu_state, gpu_driver_version, nvidia_mapped, gpu_message,"
		"  evidence_taken, evidence_why_not, evidence_regions, evidence_confirmed, evidence_split, evidence_reads,"
		"  evidence_bytes, evidence_batches, pages_looked_up, threads, stack_pointers, counter_swap,"
		"  counter_rss_anon, counter_rss_file, counter_rss_shmem, counter_locked, counter_hugetlb"
		CENSUS_SQL_TOTAL_NAMES ")"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,"
		"  ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33" CENSUS_SQL_TOTAL_PARAMS ")";
	const char *trigger = store_trigger_name(m->trigger), *status = store_census_status_name(m->status);
	bool ok = m->status == CENSUS_OK;
	sqlite3_stmt *st;
	int64_t id;
	uint64_t v;
	int r, rc;

	_Static_assert(P_TOTALS == 34, "the parameters of the census's own columns are ?1 to ?33");
	r = store_writable(s);
	if (r < 0)
		return r;
	if (!trigger || !status)
		return store_failf(s, -EINVAL, "census: unknown trigger %d or status %d", (int)m->trigger,
				   (int)m->status);
	if (ok && m->repeats_time > 0) {
		r = store_put_repeat(s, process_id, m, &id);
		if (r >= 0)
			r = store_oom_link_census(s, process_id, id, m->time);
		if (r >= 0 && ret_id)
			*ret_id = id;
		return r;
	}
	if (ok && !c)
		return store_failf(s, -EINVAL, "census: status ok without a census");

	r = store_stmt(s, STMT_CENSUS_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, P_PROCESS_ID, process_id);
	rc |= sqlite3_bind_int64(st, P_TIME, m->time);
	rc |= store_bind_text(st, P_TRIGGER, trigger);
	rc |= store_bind_text(st, P_STATUS, status);
	rc |= sqlite3_bind_int(st, P_LIGHT, m->light);
	rc |= store_bind_text(st, P_MESSAGE, m->message);
	/* A census that did not succeed may have stopped half-way: its totals
	 * are not the process's, so none are kept. */
	if (ok) {
		for (int k = 0; k < _CENSUS_N_COUNTERS; k++)
			rc |= bind_census_counter(st, P_TOTALS + k, c, &c->totals, k, census_counters[k].light_total,
						  c->unknown_totals);
		if (c->have_status && status_private(&c->status, &v))
			rc |= store_bind_u64(st, P_COUNTER_PRIVATE, v);
		if (c->have_status && status_has(&c->status, STATUS_VM_RSS))
			rc |= store_bind_u64(st, P_COUNTER_RESIDENT, c->status.counter[STATUS_VM_RSS]);
		if (c->have_status && status_has(&c->status, STATUS_VM_HWM))
			rc |= store_bind_u64(st, P_PEAK_RESIDENT, c->status.counter[STATUS_VM_HWM]);
		rc |= bind_status_counters(st, P_STATUS_COUNTERS, c);
		/* the GPU section, when one was taken (NULL: not looked at) */
		if (c->gpu.taken) {
			rc |= store_bind_text(st, P_GPU_STATE, gpu_state_name(c->gpu.state));
			rc |= store_bind_opt(st, P_GPU_DRIVER_VERSION, c->gpu.driver_version > 0 ? c->gpu.driver_version : -1);
			rc |= sqlite3_bind_int(st, P_NVIDIA_MAPPED, c->gpu.nvidia_mapped);
			rc |= store_bind_text(st, P_GPU_MESSAGE, c->gpu.message[0] ? c->gpu.message : NULL);
		}
		rc |= sqlite3_bind_int(st, P_EVIDENCE_TAKEN, c->evidence.taken);
		rc |= store_bind_text(st, P_EVIDENCE_WHY_NOT, c->evidence.why_not[0] ? c->evidence.why_not : NULL);
		rc |= store_bind_opt(st, P_EVIDENCE_REGIONS, c->evidence.regions);
		rc |= store_bind_opt(st, P_EVIDENCE_CONFIRMED, c->evidence.confirmed);
		rc |= store_bind_opt(st, P_EVIDENCE_SPLIT, c->evidence.split);
		rc |= store_bind_opt(st, P_EVIDENCE_READS, c->evidence.reads);
		rc |= store_bind_opt(st, P_EVIDENCE_BYTES, c->evidence.bytes);
		rc |= store_bind_opt(st, P_EVIDENCE_BATCHES, c->evidence.calls);
		rc |= store_bind_opt(st, P_PAGES_LOOKED_UP, c->evidence.pages);
		rc |= store_bind_opt(st, P_THREADS, c->threads_seen);
		rc |= store_bind_opt(st, P_STACK_POINTERS, c->stack_pointers);
	}
	rc |= store_bind_opt(st, P_WALL_US, cost(m->wall_us, c, c ? c->wall_us : -1));
	rc |= store_bind_opt(st, P_CPU_US, cost(m->cpu_us, c, c ? c->cpu_us : -1));
	rc |= store_bind_opt(st, P_BYTES_READ, cost(m->bytes_read, c, c ? c->bytes_read : -1));
	r = store_bound_run(s, st, rc, "census");
	if (r < 0)
		return r;
	id = sqlite3_last_insert_rowid(s->db);

	if (ok) {
		r = put_classes(s, id, c);
		if (r >= 0)
			r = put_regions(s, id, c);
		if (r >= 0)
			r = put_files(s, id, c);
		if (r >= 0 && c->gpu.taken)
			r = store_put_census_gpu(s, id, m->time, c);
		if (r >= 0)
			r = store_delta_census(s, process_id, id);
		/* the census a process's OOM kill was stored without */
		if (r >= 0)
			r = store_oom_link_census(s, process_id, id, m->time);
		if (r < 0)
			return r;
	}
	if (ret_id)
		*ret_id = id;
	return 0;
}

int store_put_region_events(struct store *s, int64_t process_id, int64_t census_id, int64_t time,
			    const struct region_event *events, size_t n)
{
	static const char sql[] =
		"INSERT INTO region_events (process_id, census_id, time, kind, start, inode, path_id, class, size,"
		"  size_before, private, private_before, resident, resident_before)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_EVENT_PUT, sql, &st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		const struct region_event *e = &events[i];
		const char *kind = region_event_kind_name(e->kind);

		if (!kind)
			return store_failf(s, -EINVAL, "region events: unknown kind %d", (int)e->kind);
		rc = bind_path(s, st, 7, e->path);
		if (rc < 0) {
			store_stmt_done(st);
			return rc;
		}
		rc |= sqlite3_bind_int64(st, 1, process_id);
		rc |= sqlite3_bind_int64(st, 2, census_id);
		rc |= sqlite3_bind_int64(st, 3, time);
		rc |= store_bind_text(st, 4, kind);
		rc |= sqlite3_bind_int64(st, 5, (sqlite3_int64)e->start);
		rc |= sqlite3_bind_int64(st, 6, (sqlite3_int64)e->inode);
		rc |= store_bind_text(st, 8, class_key((enum class_id)e->cls));
		rc |= store_bind_u64(st, 9, e->size);
		rc |= store_bind_u64(st, 10, e->size_before);
		rc |= store_bind_u64(st, 11, e->private);
		rc |= store_bind_u64(st, 12, e->private_before);
		rc |= store_bind_u64(st, 13, e->resident);
		rc |= store_bind_u64(st, 14, e->resident_before);
		r = store_bound_run(s, st, rc, "region events");
		if (r < 0)
			return r;
	}
	return 0;
}
