/* Censuses stored as changes (censuses.base, migration 009): a property
 * test over random sequences of censuses of a few processes, written both
 * to a store of deltas and to one that keeps every census whole
 * (store_options.whole_censuses, as before schema 9), where every census
 * read back through the C read side and every row of the SQL views is the
 * same in both, byte for byte, while classes, regions and files appear,
 * change and go, repeats name censuses and retention deletes the oldest;
 * the deletion of a key with deltas; and a database of schema 8 that reads
 * the same after the migration.  Real SQLite files.
 *
 * The seed is RAMWATCH_TEST_SEED when set, else the time; a failure
 * names it. */
#include "testlib.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "census.h"
#include "classes.h"
#include "fixtures-census.h"
#include "limits.h"
#include "store-migrations.h"
#include "store-read.h"
#include "store.h"

#define MINUTE 60000LL
#define H0 (472223LL * 3600000LL)
#define PROCESSES 3
#define STEPS 240

static unsigned seed;

static struct store *open_store(const char *path, bool whole)
{
	struct store_options o = { .path = path, .whole_censuses = whole };
	struct store *s = NULL;
	struct error err;
	if (store_open(&o, &s, &err) < 0)
		fail_msg("store_open: %s", err.message);
	return s;
}

static sqlite3 *raw_open(const char *path, int flags)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &e) != SQLITE_OK)
		fail_msg("%s: %s", sql, e);
}

static int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Every row of what (a table or view), ordered by all its columns, as
 * text with each value's type; sqlite3_free it. */
/* The columns of table or view what, as "a, b, c"; sqlite3_free it. */
static char *columns_of(sqlite3 *db, const char *what)
{
	sqlite3_str *out = sqlite3_str_new(db);
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &st, NULL) != SQLITE_OK)
		fail_msg("columns of %s: %s", what, sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, what, -1, SQLITE_STATIC);
	for (int i = 0; sqlite3_step(st) == SQLITE_ROW; i++)
		sqlite3_str_appendf(out, "%s\"%w\"", i ? ", " : "", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return sqlite3_str_finish(out);
}

/* The rows of what, their columns (NULL: all) in order. */
static char *dump_columns(sqlite3 *db, const char *what, const char *columns)
{
	sqlite3_str *sql = sqlite3_str_new(db), *out = sqlite3_str_new(db);
	sqlite3_stmt *st = NULL;
	char *text;
	int n;

	text = sqlite3_mprintf("SELECT %s FROM %s", columns ? columns : "*", what);
	if (sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", text, sqlite3_errmsg(db));
	n = sqlite3_column_count(st);
	sqlite3_finalize(st);
	sqlite3_str_appendf(sql, "%s ORDER BY 1", text);
	for (int i = 2; i <= n; i++)
		sqlite3_str_appendf(sql, ", %d", i);
	sqlite3_free(text);
	text = sqlite3_str_finish(sql);
	if (sqlite3_prepare_v2(db, text, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", text, sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < n; i++)
			sqlite3_str_appendf(out, "%d:%s|", sqlite3_column_type(st, i),
					    sqlite3_column_type(st, i) == SQLITE_NULL ? "" :
											(const char *)sqlite3_column_text(st, i));
		sqlite3_str_appendchar(out, 1, '\n');
	}
	sqlite3_finalize(st);
	sqlite3_free(text);
	/* no rows: SQLite gives NULL for an empty string */
	text = sqlite3_str_finish(out);
	return text ? text : sqlite3_mprintf("%s", "");
}

static char *dump(sqlite3 *db, const char *what)
{
	return dump_columns(db, what, NULL);
}

/* What every reader of censuses reads in SQL. */
static const char *const views[] = {
	"census_classes", "census_regions",  "census_files", "census_gpu", "class_timeline", "file_timeline",
	"grafana_process_classes", "grafana_process_in_use", "census_log",
};

static void assert_same_views(const char *a, const char *b, int step)
{
	sqlite3 *x = raw_open(a, SQLITE_OPEN_READONLY), *y = raw_open(b, SQLITE_OPEN_READONLY);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char *p = dump(x, views[i]), *q = dump(y, views[i]);
		if (strcmp(p, q) != 0) {
			/* from the start of the first row that differs */
			size_t at = 0, line = 0;
			while (p[at] && p[at] == q[at])
				if (p[at++] == '\n')
					line = at;
			fail_msg("seed %u, step %d: %s differs:\n%.600s\n--- kept whole:\n%.600s", seed, step, views[i],
				 p + line, q + line);
		}
		sqlite3_free(p);
		sqlite3_free(q);
	}
	sqlite3_close(x);
	sqlite3_close(y);
}

/* The census JSON of process pid at time at. */
static char *census_text(struct store_reader *r, int pid, int64_t at)
{
	struct store_select sel = { .pid = pid, .only_uid = -1 };
	struct error err;
	json_t *o = NULL;
	if (store_read_census(r, &sel, at, &o, &err) < 0)
		return strdup(err.message);
	char *text = json_dumps(o, JSON_SORT_KEYS);
	json_decref(o);
	return text;
}

/* Every census left in a read back through the C side equals the one in
 * b, and the history of each process too. */
static void assert_same_reads(const char *a, const char *b, int step)
{
	struct store_reader *x = NULL, *y = NULL;
	struct error err;
	if (store_reader_open(a, &x, &err) < 0 || store_reader_open(b, &y, &err) < 0)
		fail_msg("reader: %s", err.message);
	sqlite3 *db = raw_open(a, SQLITE_OPEN_READONLY);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT p.pid, c.time FROM censuses c JOIN processes p ON p.id = c.process_id"
				   " WHERE c.status = 'ok' ORDER BY c.id", -1, &st, NULL) != SQLITE_OK)
		fail_msg("censuses: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int pid = sqlite3_column_int(st, 0);
		int64_t at = sqlite3_column_int64(st, 1);
		char *p = census_text(x, pid, at), *q = census_text(y, pid, at);
		if (!p || !q || strcmp(p, q) != 0)
			fail_msg("seed %u, step %d: census of %d at %lld differs:\n%.2000s\n---\n%.2000s", seed, step, pid,
				 (long long)at, p, q);
		free(p);
		free(q);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	for (int pid = 100; pid < 100 + PROCESSES; pid++) {
		struct store_history_query h = { .sel = { .pid = pid, .only_uid = -1 }, .since = 0, .until = INT64_MAX };
		json_t *p = NULL, *q = NULL;
		int e = store_read_history(x, &h, &p, &err), f = store_read_history(y, &h, &q, &err);
		char *s = e >= 0 ? json_dumps(p, JSON_SORT_KEYS) : NULL, *t = f >= 0 ? json_dumps(q, JSON_SORT_KEYS) : NULL;
		if (e != f || (s && t && strcmp(s, t) != 0))
			fail_msg("seed %u, step %d: history of %d differs", seed, step, pid);
		free(s);
		free(t);
		json_decref(p);
		json_decref(q);
	}
	store_reader_close(x);
	store_reader_close(y);
}

/* ------------------------------------------------------------ the writes */

struct proc {
	int pid;
	struct census *c;
	struct census_region gone_regions[8];
	size_t n_gone_regions;
	struct census_file gone_files[8];
	size_t n_gone_files;
	int64_t last_full; /* time of its last census of its own, 0: none */
};

/* The Java fixture's census, every counter known: the columns the scanner
 * leaves unknown (NULL) in its classes would compare equal whatever the
 * statements do with them. */
static struct census *known_census(void)
{
	struct census *c = java_census();
	c->unknown_totals = 0;
	memset(c->unknown_classes, 0, sizeof(c->unknown_classes));
	return c;
}

static uint64_t pick(uint64_t n)
{
	return n ? (uint64_t)rand() % n : 0;
}

/* A few classes, regions and files change, appear or go, as between two
 * censuses of a process that lives; now and then most of it changes. */
static void change(struct proc *p)
{
	struct census *c = p->c;
	int many = pick(12) == 0 ? 40 : 1 + (int)pick(3);

	for (int i = 0; i < many; i++) {
		struct census_totals *k = &c->classes[pick(_CLASS_MAX)];
		int j = (int)pick(_CENSUS_N_COUNTERS);
		if (k->count > 0 && pick(8) == 0) {
			*k = (struct census_totals){ 0 }; /* no region of that class now */
		} else if (k->count > 0 && pick(3) == 0 && census_counters[j].per_class && j != CENSUS_COUNTER_count) {
			/* one counter alone, whichever: each column of a class row
			 * tells it from the key's (the rekeying trigger too) */
			*census_counter(k, j) += 4096 * (1 + pick(16));
		} else {
			k->count = k->count ? k->count : 1;
			k->size += 4096 * pick(4);
			k->private = pick(1u << 30);
			k->resident = k->private + pick(1u << 20);
		}
	}
	for (int i = 0; i < many && c->n_largest > 0; i++) {
		size_t at = pick(c->n_largest);
		switch (pick(4)) {
		case 0: /* a region goes */
			if (p->n_gone_regions < 8) {
				p->gone_regions[p->n_gone_regions++] = c->largest[at];
				memmove(&c->largest[at], &c->largest[at + 1], (c->n_largest - at - 1) * sizeof(c->largest[0]));
				c->n_largest--;
			}
			break;
		case 1: /* one that went comes back, at the end */
			if (p->n_gone_regions > 0)
				c->largest[c->n_largest++] = p->gone_regions[--p->n_gone_regions];
			break;
		default:
			c->largest[at].private = pick(1u << 28);
			c->largest[at].resident = c->largest[at].private + 4096 * pick(16);
			c->largest[at].confirmed = !c->largest[at].confirmed;
		}
	}
	for (int i = 0; i < many && c->n_files > 0; i++) {
		size_t at = pick(c->n_files);
		switch (pick(4)) {
		case 0:
			if (p->n_gone_files < 8) {
				p->gone_files[p->n_gone_files++] = c->files[at];
				memmove(&c->files[at], &c->files[at + 1], (c->n_files - at - 1) * sizeof(c->files[0]));
				c->n_files--;
			}
			break;
		case 1:
			if (p->n_gone_files > 0)
				c->files[c->n_files++] = p->gone_files[--p->n_gone_files];
			break;
		default:
			c->files[at].resident = 4096 * pick(1u << 16);
		}
	}
	/* GPU memory now and then, on one of two devices */
	if (pick(6) == 0) {
		c->gpu.taken = !c->gpu.taken;
		c->gpu.state = GPU_OK;
		c->gpu.n_uses = c->gpu.taken ? 1 + pick(2) : 0;
		for (size_t i = 0; i < c->gpu.n_uses; i++) {
			c->gpu.uses[i] = (struct census_gpu_use){ .index = (unsigned)i, .used = 4096 * pick(1u << 20),
								  .total = 80ull << 30 };
			snprintf(c->gpu.uses[i].uuid, sizeof(c->gpu.uses[i].uuid), "GPU-%zu", i);
			snprintf(c->gpu.uses[i].name, sizeof(c->gpu.uses[i].name), "NVIDIA Test %zu", i);
		}
	}
}

static void put_proc(struct store *s, int pid, int64_t seen)
{
	struct store_process m = { .boot_id = "boot", .pid = pid, .start_time = 7, .started_at = -1, .uid = 1000,
				   .comm = "java", .seen = seen, .exited_at = -1 };
	int64_t id;
	if (store_put_process(s, &m, &id) < 0)
		fail_msg("seed %u: put_process: %s", seed, store_error(s));
}

/* The same census (or repeat) into both stores. */
static void put_both(struct store *s[2], int pid, int64_t time, const struct census *c, int64_t repeats_time)
{
	struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .wall_us = 10,
				  .cpu_us = 10, .bytes_read = 10, .repeats_time = repeats_time };
	for (int i = 0; i < 2; i++) {
		int64_t process_id, id;
		struct store_process q = { .boot_id = "boot", .pid = pid, .start_time = 7, .started_at = -1,
					   .uid = 1000, .comm = "java", .seen = time, .exited_at = -1 };
		if (store_begin(s[i]) < 0 || store_put_process(s[i], &q, &process_id) < 0 ||
		    store_put_census(s[i], process_id, &m, repeats_time ? NULL : c, &id) < 0 || store_commit(s[i]) < 0)
			fail_msg("seed %u: census: %s", seed, store_error(s[i]));
	}
}

static void test_random_censuses(void **state)
{
	struct test_db *t = *state;
	char whole_path[400];
	snprintf(whole_path, sizeof(whole_path), "%s/whole.db", t->dir);
	struct store *s[2] = { open_store(t->db, false), open_store(whole_path, true) };
	struct proc procs[PROCESSES];

	const char *env = getenv("RAMWATCH_TEST_SEED");
	seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL);
	print_message("seed %u (RAMWATCH_TEST_SEED)\n", seed);
	srand(seed);

	for (int i = 0; i < PROCESSES; i++) {
		procs[i] = (struct proc){ .pid = 100 + i, .c = known_census() };
		/* room for the GPU devices change() gives it */
		procs[i].c->gpu.uses = calloc(2, sizeof(struct census_gpu_use));
		if (!procs[i].c->gpu.uses)
			fail_msg("out of memory");
	}
	for (int step = 1; step <= STEPS; step++) {
		int64_t now = H0 + step * MINUTE;
		struct proc *p = &procs[pick(PROCESSES)];
		uint64_t what = pick(10);

		if (what < 6 || !p->last_full) {
			if (p->last_full)
				change(p);
			put_both(s, p->pid, now, p->c, 0);
			p->last_full = now;
		} else if (what < 8) {
			put_both(s, p->pid, now, NULL, p->last_full);
		} else if (what == 8) {
			/* retention: the oldest few censuses go */
			struct store_retention r = { .now = now, .keep = (int64_t)(40 + pick(60)) * MINUTE, .batch = 1 + (unsigned)pick(8) };
			for (int i = 0; i < 2; i++) {
				bool more = false;
				if (store_retention_step(s[i], &r, &more) < 0)
					fail_msg("seed %u: retention: %s", seed, store_error(s[i]));
			}
			/* a process whose censuses all went starts again */
			for (int i = 0; i < PROCESSES; i++)
				if (procs[i].last_full && procs[i].last_full < now - r.keep)
					procs[i].last_full = 0;
		} else {
			for (int i = 0; i < 2; i++) {
				if (store_begin(s[i]) < 0)
					fail_msg("begin");
				put_proc(s[i], p->pid, now);
				if (store_commit(s[i]) < 0)
					fail_msg("commit");
			}
		}
		if (step % 20 == 0 || step == STEPS) {
			assert_same_views(t->db, whole_path, step);
			assert_same_reads(t->db, whole_path, step);
		}
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(store_check(s[i], 0), 0);
	store_close(s[0]);
	store_close(s[1]);

	/* the deltas were taken, and hold fewer rows than the whole censuses */
	sqlite3 *a = raw_open(t->db, SQLITE_OPEN_READONLY), *b = raw_open(whole_path, SQLITE_OPEN_READONLY);
	int64_t deltas = q_int(a, "SELECT count(*) FROM censuses WHERE base IS NOT NULL");
	if (deltas <= 0)
		fail_msg("seed %u: no census was stored as a delta", seed);
	assert_int_equal(q_int(b, "SELECT count(*) FROM censuses WHERE base IS NOT NULL"), 0);
	assert_true(q_int(a, "SELECT count(*) FROM census_region_rows") < q_int(b, "SELECT count(*) FROM census_region_rows"));
	assert_int_equal(q_int(a, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* depth 1: a delta's key is no delta, and has at most RW_CENSUS_DELTAS_MAX */
	assert_int_equal(q_int(a, "SELECT count(*) FROM censuses c JOIN censuses k ON k.id = c.base"
				  " WHERE k.base IS NOT NULL OR k.repeats IS NOT NULL"),
			 0);
	assert_true(q_int(a, "SELECT max(n) FROM (SELECT count(*) AS n FROM censuses WHERE base IS NOT NULL"
			     " GROUP BY base)") <= RW_CENSUS_DELTAS_MAX);
	sqlite3_close(a);
	sqlite3_close(b);
	for (int i = 0; i < PROCESSES; i++) {
		free(procs[i].c->gpu.uses);
		procs[i].c->gpu.uses = NULL;
		procs[i].c->gpu.n_uses = 0;
		census_free(procs[i].c);
	}
}

/* The classes but malloc as they were in heir, each with one counter
 * of its row (CENSUS_COUNTERS but count) changed alone: the t-th share
 * of them, so that three calls change each counter in some class. */
static void one_counter_alone(struct census *c, const struct census_totals heir[_CLASS_MAX], int t)
{
	int counters[_CENSUS_N_COUNTERS], n = 0, m = 0, q = 0;

	for (int j = 0; j < _CENSUS_N_COUNTERS; j++)
		if (census_counters[j].per_class && j != CENSUS_COUNTER_count)
			counters[n++] = j;
	for (int k = 0; k < _CLASS_MAX; k++)
		m += k != CLASS_MALLOC && heir[k].count > 0;
	if (3 * m < n)
		fail_msg("the census has too few classes to change each counter alone");
	for (int k = 0; k < _CLASS_MAX; k++) {
		if (k == CLASS_MALLOC || heir[k].count == 0)
			continue;
		c->classes[k] = heir[k];
		*census_counter(&c->classes[k], counters[(q++ + t * m) % n]) += 4096;
	}
}

/* A key with deltas and a repeat of one of them goes: the oldest delta
 * becomes the key, the others deltas against it, and every census left
 * reads as it did, each class row that differs from the new key's in one
 * counter alone kept (a column the rekeying trigger does not name fails
 * here). */
static void test_key_deleted(void **state)
{
	struct test_db *t = *state;
	char whole_path[400];
	snprintf(whole_path, sizeof(whole_path), "%s/whole.db", t->dir);
	struct store *s[2] = { open_store(t->db, false), open_store(whole_path, true) };
	struct proc p = { .pid = 100, .c = known_census() };
	struct census_totals heir[_CLASS_MAX];

	seed = 1;
	srand(seed);
	put_both(s, p.pid, H0, p.c, 0);
	for (int i = 1; i <= 5; i++) {
		p.c->classes[CLASS_MALLOC].private += 4096 * (uint64_t)i;
		if (i == 3 && p.c->n_files > 1)
			p.c->n_files--; /* a file goes */
		p.c->largest[i].resident += 4096;
		if (i == 1)
			memcpy(heir, p.c->classes, sizeof(heir));
		if (i >= 3)
			one_counter_alone(p.c, heir, i - 3);
		put_both(s, p.pid, H0 + i * MINUTE, p.c, 0);
	}
	put_both(s, p.pid, H0 + 6 * MINUTE, NULL, H0 + 2 * MINUTE);
	for (int i = 0; i < 2; i++)
		store_close(s[i]);

	sqlite3 *db = raw_open(t->db, SQLITE_OPEN_READWRITE);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE base = 1"), 5);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_file_rows WHERE gone = 1"), 3);
	raw_exec(db, "PRAGMA foreign_keys = ON");
	raw_exec(db, "DELETE FROM censuses WHERE id = 1");
	assert_int_equal(q_int(db, "SELECT base FROM censuses WHERE id = 2"), -1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE base = 2"), 4);
	/* only what differs from the new key is kept */
	assert_true(q_int(db, "SELECT count(*) FROM census_class_rows WHERE census_id = 3") <= 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* then the new key, which a repeat names */
	raw_exec(db, "DELETE FROM censuses WHERE id = 2");
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 5);
	sqlite3_close(db);

	db = raw_open(whole_path, SQLITE_OPEN_READWRITE);
	raw_exec(db, "PRAGMA foreign_keys = ON");
	raw_exec(db, "DELETE FROM censuses WHERE id IN (1, 2)");
	sqlite3_close(db);
	assert_same_views(t->db, whole_path, 0);
	assert_same_reads(t->db, whole_path, 0);
	census_free(p.c);
}

/* Past RW_CENSUS_DELTAS_MAX deltas a census is a new key, and so is one
 * whose changes pass RW_CENSUS_DELTA_PERCENT of its rows. */
static void test_new_keys(void **state)
{
	struct test_db *t = *state;
	char whole_path[400];
	snprintf(whole_path, sizeof(whole_path), "%s/whole.db", t->dir);
	struct store *s[2] = { open_store(t->db, false), open_store(whole_path, true) };
	struct census *c = java_census();
	const int n = RW_CENSUS_DELTAS_MAX + 3;

	seed = 2;
	for (int i = 0; i < n; i++) {
		c->classes[CLASS_MALLOC].private += 4096;
		put_both(s, 100, H0 + i * MINUTE, c, 0);
	}
	/* then every region and file moves */
	for (size_t i = 0; i < c->n_largest; i++)
		c->largest[i].resident += 4096;
	for (size_t i = 0; i < c->n_files; i++)
		c->files[i].resident += 4096;
	put_both(s, 100, H0 + n * MINUTE, c, 0);
	/* and a little again: a delta against that new key */
	c->classes[CLASS_MALLOC].private += 4096;
	put_both(s, 100, H0 + (n + 1) * MINUTE, c, 0);
	for (int i = 0; i < 2; i++)
		store_close(s[i]);

	sqlite3 *db = raw_open(t->db, SQLITE_OPEN_READONLY);
	char sql[200];
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE base = 1"), RW_CENSUS_DELTAS_MAX);
	snprintf(sql, sizeof(sql), "SELECT base FROM censuses WHERE id = %u", RW_CENSUS_DELTAS_MAX + 2);
	assert_int_equal(q_int(db, sql), -1); /* the next: a key */
	snprintf(sql, sizeof(sql), "SELECT base FROM censuses WHERE id = %u", RW_CENSUS_DELTAS_MAX + 3);
	assert_int_equal(q_int(db, sql), RW_CENSUS_DELTAS_MAX + 2);
	snprintf(sql, sizeof(sql), "SELECT base FROM censuses WHERE id = %d", n + 1);
	assert_int_equal(q_int(db, sql), -1); /* most of it changed */
	snprintf(sql, sizeof(sql), "SELECT base FROM censuses WHERE id = %d", n + 2);
	assert_int_equal(q_int(db, sql), n + 1);
	/* a delta of one changed class: that row alone */
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM census_class_rows WHERE census_id = %d)"
		 " + (SELECT count(*) FROM census_region_rows WHERE census_id = %d)"
		 " + (SELECT count(*) FROM census_file_rows WHERE census_id = %d)", n + 2, n + 2, n + 2);
	assert_int_equal(q_int(db, sql), 1);
	sqlite3_close(db);
	assert_same_views(t->db, whole_path, n + 2);
	assert_same_reads(t->db, whole_path, n + 2);

	/* salvage copies the last census, a delta, whole as a key */
	char copy[400];
	snprintf(copy, sizeof(copy), "%s/salvaged.db", t->dir);
	struct store *f = open_store(copy, false);
	struct store_salvage kept;
	assert_int_equal(store_salvage(f, t->db, &kept), 0);
	assert_int_equal(kept.censuses, 1);
	store_close(f);
	db = raw_open(copy, SQLITE_OPEN_READONLY);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE base IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
	struct store_reader *x = NULL, *y = NULL;
	struct error err;
	assert_int_equal(store_reader_open(t->db, &x, &err), 0);
	assert_int_equal(store_reader_open(copy, &y, &err), 0);
	char *p = census_text(x, 100, INT64_MAX), *q = census_text(y, 100, INT64_MAX);
	assert_string_equal(p, q);
	free(p);
	free(q);
	store_reader_close(x);
	store_reader_close(y);
	census_free(c);
}

/* A database of schema 8 reads the same after the migration, its old
 * censuses keys, and a new census of its process is a delta against one. */
static void test_migrate_from_v8(void **state)
{
	struct test_db *t = *state;
	sqlite3 *db = raw_open(t->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	char *before[sizeof(views) / sizeof(views[0])], *columns[sizeof(views) / sizeof(views[0])];

	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "BEGIN");
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(store_migrations[i].version, (int)i + 1);
		raw_exec(db, store_migrations[i].sql);
	}
	raw_exec(db, "PRAGMA user_version = 8");
	raw_exec(db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
		     " VALUES ('b', 42, 7, 'old', 1000, 2000)");
	raw_exec(db, "INSERT INTO paths (path) VALUES ('/usr/lib/libc.so.6'), ('/data/x')");
	raw_exec(db, "INSERT INTO gpus (uuid, name, device_index, total, first_seen, last_seen)"
		     " VALUES ('GPU-1', 'NVIDIA L4', 0, 24, 1000, 2000)");
	for (int c = 1; c <= 2; c++) {
		char sql[1024];
		snprintf(sql, sizeof(sql),
			 "INSERT INTO censuses (process_id, time, trigger, status, private, resident)"
			 " VALUES (1, %d, 'interval', 'ok', %d, %d);"
			 "INSERT INTO census_classes VALUES (%d, 'malloc', %d, 99, 99, 0, 4096, 1, NULL),"
			 " (%d, 'stack', 10, 10, 10, 0, 8192, 1, 10);"
			 "INSERT INTO census_regions VALUES (%d, 0, 4096, 8192, 'rw-p', 'malloc', 'brk_heap', %d, 99,"
			 " NULL, NULL, 0, 0), (%d, 1, 65536, 73728, 'r-xp', 'image', NULL, 0, 8192, 1, NULL, 1, 0);"
			 "INSERT INTO census_files VALUES (%d, %d, 'image', 0, 8192, 8192, 1);"
			 "INSERT INTO census_gpu VALUES (%d, 1, %d, 0);",
			 1000 * c, 99 * c, 99, c, 99 * c, c, c, 99 * c, c, c, c, c, 1000 * c);
		raw_exec(db, sql);
	}
	raw_exec(db, "INSERT INTO censuses (process_id, time, trigger, status, private, resident, repeats)"
		     " VALUES (1, 3000, 'interval', 'ok', 198, 99, 2)");
	raw_exec(db, "COMMIT");
	/* a later schema may add columns: the ones of schema 8 read the same
	 * (and views: those schema 8 had) */
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char *exists = sqlite3_mprintf("SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = %Q",
					       views[i]);
		int64_t n = q_int(db, exists);
		sqlite3_free(exists);
		if (n == 0) {
			columns[i] = before[i] = NULL;
			continue;
		}
		columns[i] = columns_of(db, views[i]);
		before[i] = dump_columns(db, views[i], columns[i]);
	}
	sqlite3_close(db);

	struct store *s = open_store(t->db, false);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);

	db = raw_open(t->db, SQLITE_OPEN_READONLY);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (!before[i])
			continue;
		char *after = dump_columns(db, views[i], columns[i]);
		assert_string_equal(after, before[i]);
		sqlite3_free(after);
		sqlite3_free(before[i]);
		sqlite3_free(columns[i]);
	}
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE base IS NOT NULL"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_class_rows"), 4);
	sqlite3_close(db);

	/* the C side reads the old census as it was written */
	struct store_reader *r = NULL;
	struct error err;
	struct store_select sel = { .pid = 42, .only_uid = -1 };
	json_t *o = NULL;
	assert_int_equal(store_reader_open(t->db, &r, &err), 0);
	assert_int_equal(store_read_census(r, &sel, 1000, &o, &err), 0);
	char *text = json_dumps(o, JSON_SORT_KEYS);
	assert_non_null(strstr(text, "\"brk_heap\""));
	assert_non_null(strstr(text, "/usr/lib/libc.so.6"));
	free(text);
	json_decref(o);
	store_reader_close(r);

	/* the deletion of an old key hands over to its repeat as before */
	db = raw_open(t->db, SQLITE_OPEN_READWRITE);
	raw_exec(db, "PRAGMA foreign_keys = ON");
	raw_exec(db, "DELETE FROM censuses WHERE id = 2");
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = 3"), 2);
	assert_int_equal(q_int(db, "SELECT used FROM census_gpu WHERE census_id = 3"), 2000);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_censuses, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_key_deleted, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_new_keys, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_v8, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
