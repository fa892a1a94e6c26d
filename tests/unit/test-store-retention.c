/* Retention: rollups of known rows into minutes and hours (values checked
 * one by one, across batches that end inside a bucket), the GPU memory
 * rows rolled up with them, expiry of every kind of row and of what
 * belongs to it, and MaxDatabaseSize.  Real SQLite
 * files, read back through a plain SQLite connection. */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "census.h"
#include "fixtures-census.h"
#include "region-events.h"
#include "scan.h"
#include "store.h"

#define MINUTE 60000LL
#define HOUR 3600000LL
#define DAY (24 * HOUR)
#define H0 (472223LL * HOUR) /* an hour boundary, November 2023 */

static struct store *open_store(const char *path, uint64_t max_size)
{
	struct store_options o = { .path = path, .max_size = max_size };
	struct store *s = NULL;
	struct error err;
	if (store_open(&o, &s, &err) < 0)
		fail_msg("store_open: %s", err.message);
	return s;
}

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	return db;
}

/* The first column of the first row (sqlite3 printf formats). */
static int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

static int64_t put_proc(struct store *s, int pid, int64_t seen, int64_t exited_at)
{
	struct store_process p = { .boot_id = "boot", .pid = pid, .start_time = pid, .started_at = -1, .uid = -1,
				   .comm = "p", .seen = seen, .exited_at = exited_at };
	int64_t id;
	if (store_put_process(s, &p, &id) < 0)
		fail_msg("put_process: %s", store_error(s));
	return id;
}

/* Steps until there is no more work; returns how many it took. */
static int run_retention(struct store *s, const struct store_retention *rt)
{
	bool more = true;
	int steps = 0;
	while (more) {
		if (steps++ > 100000)
			fail_msg("retention does not converge");
		if (store_retention_step(s, rt, &more) < 0)
			fail_msg("retention step %d: %s", steps, store_error(s));
	}
	return steps;
}

/* ------------------------------------------------------------ rollups */

/* Raw row k (k = 1..360, every 10 s of the hour after H0) of a process
 * whose values are offset by o: mins fall, maxes and lasts rise with k. */
static struct store_sample raw_row(int k, uint64_t o)
{
	return (struct store_sample){
		.time = H0 + 10000LL * k,
		.private_min = o + 1000 - (uint64_t)k, .private_max = o + 2000 + (uint64_t)k,
		.private_last = o + 1500 + (uint64_t)k, .resident_min = o + 3000 - (uint64_t)k,
		.resident_max = o + 4000 + (uint64_t)k, .resident_last = o + 3500 + (uint64_t)k,
		.swap_last = o + (uint64_t)k, .samples = 10,
	};
}

/* Asserts the row of resolution res ending at time holds the rows k_first
 * to k_last of raw_row(., o). */
static void assert_rolled(sqlite3 *db, int64_t id, int64_t res, int64_t time, int k_first, int k_last, uint64_t o)
{
	const char *where = "FROM samples WHERE process_id = %lld AND resolution = %lld AND time = %lld";
	char sql[256];
#define COL(col)                                                   \
	(snprintf(sql, sizeof(sql), "SELECT " col " %s", where), \
	 q_int(db, sql, (long long)id, (long long)res, (long long)time))
	assert_int_equal(COL("count(*)"), 1);
	assert_int_equal(COL("private_min"), o + 1000 - (uint64_t)k_last);
	assert_int_equal(COL("private_max"), o + 2000 + (uint64_t)k_last);
	assert_int_equal(COL("private_last"), o + 1500 + (uint64_t)k_last);
	assert_int_equal(COL("resident_min"), o + 3000 - (uint64_t)k_last);
	assert_int_equal(COL("resident_max"), o + 4000 + (uint64_t)k_last);
	assert_int_equal(COL("resident_last"), o + 3500 + (uint64_t)k_last);
	assert_int_equal(COL("swap_last"), o + (uint64_t)k_last);
	assert_int_equal(COL("samples"), 10 * (k_last - k_first + 1));
#undef COL
}

/* A GPU's row at time; returns its id. */
static int64_t put_gpu(struct store *s, int64_t time)
{
	struct gpu_device d = { .index = 0, .uuid = "GPU-0", .name = "NVIDIA Test", .total = 80 * GiB, .used = GiB,
				.free = 79 * GiB, .present = true, .parent = -1 };
	int64_t id;
	if (store_put_gpu_device(s, time, &d, &id) < 0)
		fail_msg("put_gpu_device: %s", store_error(s));
	return id;
}

/* Asserts that the GPU memory row of resolution res ending at time holds
 * k_last * 100 (the largest of its rows, and the last), as the samples row
 * of the same time does its values. */
static void assert_vram_rolled(sqlite3 *db, int64_t id, int64_t res, int64_t time, int k_last)
{
	const char *where = " FROM gpu_samples WHERE process_id = %lld AND resolution = %lld AND time = %lld";
	const char *columns[] = { "count(*)", "used_max", "used_last" };
	for (size_t i = 0; i < ELEMENTSOF(columns); i++) {
		char sql[256];
		snprintf(sql, sizeof(sql), "SELECT %s%s", columns[i], where);
		assert_int_equal(q_int(db, sql, (long long)id, (long long)res, (long long)time), i ? 100 * k_last : 1);
	}
}

static void test_rollup(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0);
	const uint64_t offset[2] = { 0, 100000 };
	int64_t id[2];
	sqlite3 *db;

	/* two processes, rows at the same moments (ties at every batch end);
	 * the first on a GPU, with a GPU memory row beside each of its rows */
	assert_int_equal(store_begin(s), 0);
	int64_t gpu = put_gpu(s, H0);
	for (int p = 0; p < 2; p++) {
		id[p] = put_proc(s, 10 + p, H0, -1);
		for (int k = 1; k <= 360; k++) {
			struct store_sample x = raw_row(k, offset[p]);
			assert_int_equal(store_put_sample(s, id[p], &x), 0);
			if (p == 0)
				assert_int_equal(store_put_gpu_sample(s, id[p], gpu, x.time, 100 * (uint64_t)k), 0);
		}
	}
	assert_int_equal(store_commit(s), 0);

	/* Half an hour of raw rows into minutes, in batches of 7 rows, which
	 * end inside minutes (6 rows a minute a process): those merge. */
	struct store_retention rt = { .now = H0 + HOUR + 1, .raw_for = 30 * MINUTE, .minutes_for = DAY, .batch = 7 };
	assert_true(run_retention(s, &rt) > 20);
	db = raw_open(t->db);
	for (int p = 0; p < 2; p++) {
		for (int m = 1; m <= 30; m++)
			assert_rolled(db, id[p], MINUTE, H0 + m * MINUTE, 6 * m - 5, 6 * m, offset[p]);
		assert_int_equal(q_int(db, "SELECT count(*) FROM samples WHERE process_id = %lld AND resolution = %lld",
				       (long long)id[p], MINUTE),
				 30);
		/* the newer half is still raw, and no sample was lost or counted twice */
		assert_int_equal(q_int(db, "SELECT count(*) FROM samples WHERE process_id = %lld AND resolution = 0",
				       (long long)id[p]),
				 180);
		assert_int_equal(q_int(db, "SELECT min(time) FROM samples WHERE process_id = %lld AND resolution = 0",
				       (long long)id[p]),
				 H0 + 181 * 10000LL);
		assert_int_equal(q_int(db, "SELECT sum(samples) FROM samples WHERE process_id = %lld", (long long)id[p]),
				 3600);
	}
	/* the GPU memory rows went along: at the same times as the samples */
	for (int m = 1; m <= 30; m++)
		assert_vram_rolled(db, id[0], MINUTE, H0 + m * MINUTE, 6 * m);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples g WHERE NOT EXISTS (SELECT 1 FROM samples s"
				   " WHERE s.process_id = g.process_id AND s.resolution = g.resolution AND s.time = g.time)"),
			 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples WHERE resolution = 0"), 180);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples WHERE process_id = %lld", (long long)id[1]), 0);
	int64_t checksum = q_int(db, "SELECT sum(time + private_min + private_max + private_last + samples) FROM samples");
	sqlite3_close(db);

	/* a step with nothing to do changes nothing */
	bool more = true;
	assert_int_equal(store_retention_step(s, &rt, &more), 0);
	assert_false(more);
	db = raw_open(t->db);
	assert_int_equal(q_int(db, "SELECT sum(time + private_min + private_max + private_last + samples) FROM samples"),
			 checksum);
	sqlite3_close(db);

	/* An hour later: every raw row into minutes; the first half hour of
	 * minutes (rows strictly older than the cutoff) into the hour row. */
	rt = (struct store_retention){ .now = H0 + 2 * HOUR + 1, .raw_for = 30 * MINUTE, .minutes_for = 90 * MINUTE,
				       .batch = 7 };
	run_retention(s, &rt);
	db = raw_open(t->db);
	for (int p = 0; p < 2; p++) {
		assert_rolled(db, id[p], HOUR, H0 + HOUR, 1, 180, offset[p]);
		for (int m = 31; m <= 60; m++)
			assert_rolled(db, id[p], MINUTE, H0 + m * MINUTE, 6 * m - 5, 6 * m, offset[p]);
	}
	assert_vram_rolled(db, id[0], HOUR, H0 + HOUR, 180);
	for (int m = 31; m <= 60; m++)
		assert_vram_rolled(db, id[0], MINUTE, H0 + m * MINUTE, 6 * m);
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples WHERE resolution = 0"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples WHERE resolution = 0"), 0);
	sqlite3_close(db);

	/* Later still: the rest of the minutes merge into the hour row. */
	rt.now = H0 + 3 * HOUR;
	rt.minutes_for = HOUR;
	run_retention(s, &rt);
	db = raw_open(t->db);
	for (int p = 0; p < 2; p++) {
		assert_rolled(db, id[p], HOUR, H0 + HOUR, 1, 360, offset[p]);
		assert_int_equal(q_int(db, "SELECT count(*) FROM samples WHERE process_id = %lld", (long long)id[p]), 1);
	}
	assert_vram_rolled(db, id[0], HOUR, H0 + HOUR, 360);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples"), 1);
	/* as a dashboard sees it: seconds, the hour's last value */
	assert_int_equal(q_int(db, "SELECT time FROM memory_timeline WHERE process_id = %lld", (long long)id[0]),
			 (H0 + HOUR) / 1000);
	assert_int_equal(q_int(db, "SELECT resolution FROM memory_timeline LIMIT 1"), HOUR);
	assert_int_equal(q_int(db, "SELECT private FROM memory_timeline WHERE process_id = %lld", (long long)id[0]),
			 1500 + 360);
	assert_int_equal(q_int(db, "SELECT private_max FROM memory_timeline WHERE process_id = %lld", (long long)id[1]),
			 100000 + 2000 + 360);
	sqlite3_close(db);
	store_close(s);
}

/* "Older than" is strict: a row at the cutoff itself stays as it is. */
static void test_cutoff(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0);
	int64_t id = put_proc(s, 1, H0, -1);
	const int64_t cutoff = H0 + 30 * MINUTE;

	for (int64_t time = cutoff - 1; time <= cutoff; time++) {
		struct store_sample x = { .time = time, .private_min = 1, .private_max = 2, .private_last = 3, .samples = 1 };
		assert_int_equal(store_put_sample(s, id, &x), 0);
	}
	/* and rows at and just before now - keep */
	const int64_t now = cutoff + 10 * MINUTE;
	for (int64_t time = now - DAY - 1; time <= now - DAY; time++) {
		struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_DENIED,
					  .wall_us = -1, .cpu_us = -1, .bytes_read = -1 };
		struct store_system sys = { .time = time };
		assert_int_equal(store_put_census(s, id, &m, NULL, NULL), 0);
		assert_int_equal(store_put_mark(s, id, time, "m", -1), 0);
		assert_int_equal(store_put_system(s, &sys), 0);
	}
	struct store_retention rt = { .now = now, .raw_for = 10 * MINUTE, .keep = DAY, .batch = 1 };
	run_retention(s, &rt);
	store_close(s);

	sqlite3 *db = raw_open(t->db);
	assert_int_equal(q_int(db, "SELECT time FROM censuses"), now - DAY);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 1);
	assert_int_equal(q_int(db, "SELECT time FROM marks"), now - DAY);
	assert_int_equal(q_int(db, "SELECT count(*) FROM marks"), 1);
	assert_int_equal(q_int(db, "SELECT time FROM system"), now - DAY);
	assert_int_equal(q_int(db, "SELECT count(*) FROM system"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 2);
	assert_int_equal(q_int(db, "SELECT time FROM samples WHERE resolution = 0"), cutoff);
	assert_int_equal(q_int(db, "SELECT time FROM samples WHERE resolution = %lld", MINUTE), cutoff);
	assert_int_equal(q_int(db, "SELECT samples FROM samples WHERE resolution = %lld", MINUTE), 1);
	sqlite3_close(db);
}

/* ------------------------------------------------------------ expiry */

/* A census with its children, region events and a mark, plus raw rows, a
 * system row, a GPU's row and the process's GPU memory rows, all at time. */
static int64_t put_history(struct store *s, int64_t id, const struct census *c, int64_t time, const char *event_path)
{
	struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .wall_us = -1,
				  .cpu_us = -1, .bytes_read = -1 };
	struct region_event ev = { .kind = REGION_APPEARED, .start = 0x7f0000000000, .path = event_path,
				   .cls = CLASS_MAPPED_FILES, .size = MiB };
	struct store_system sys = { .time = time, .mem_total = 64 * GiB, .mem_available = 32 * GiB };
	int64_t census_id;

	assert_int_equal(store_put_census(s, id, &m, c, &census_id), 0);
	assert_int_equal(store_put_region_events(s, id, census_id, time, &ev, 1), 0);
	assert_int_equal(store_put_mark(s, id, time, "phase", -1), 0);
	assert_int_equal(store_put_system(s, &sys), 0);
	int64_t gpu = put_gpu(s, time);
	for (int i = 0; i < 20; i++) {
		struct store_sample x = { .time = time + i * 10000, .private_last = (uint64_t)i, .samples = 1 };
		assert_int_equal(store_put_sample(s, id, &x), 0);
		assert_int_equal(store_put_gpu_sample(s, id, gpu, x.time, GiB), 0);
	}
	return census_id;
}

static void test_expire(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0);
	struct census *c = java_census();
	const int64_t old = H0, recent = H0 + 10 * DAY;
	int64_t gone, gone_silently, kept, kept_census;

	assert_int_equal(store_begin(s), 0);
	gone = put_proc(s, 1, old + MINUTE, old + MINUTE); /* exited long ago */
	gone_silently = put_proc(s, 2, old, -1);          /* never seen to exit, nothing stored */
	kept = put_proc(s, 3, old, -1);                   /* alive since then */
	put_history(s, gone, c, old, "/old/only-then.bin");
	put_history(s, kept, c, old, "/old/only-then.bin");
	put_proc(s, 3, recent, -1);
	kept_census = put_history(s, kept, c, recent, "/data/model.bin");
	assert_int_equal(store_commit(s), 0);

	sqlite3 *db = raw_open(t->db);
	int64_t classes = q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)kept_census);
	int64_t regions = q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = %lld", (long long)kept_census);
	int64_t files = q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld", (long long)kept_census);
	assert_true(classes > 0 && regions > 0 && files > 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths WHERE path = '/old/only-then.bin'"), 1);
	sqlite3_close(db);

	/* a week of retention, 5 rows a statement */
	struct store_retention rt = { .now = recent + HOUR, .keep = 7 * DAY, .batch = 5 };
	run_retention(s, &rt);
	assert_int_equal(store_check(s, 0), 0);
	store_close(s);

	db = raw_open(t->db);
	/* what is older than a week is gone, with everything that belonged to it */
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 1);
	assert_int_equal(q_int(db, "SELECT id FROM censuses"), kept_census);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes"), classes);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_regions"), regions);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_files"), files);
	assert_int_equal(q_int(db, "SELECT count(*) FROM region_events"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), 20);
	assert_int_equal(q_int(db, "SELECT min(time) FROM samples"), recent);
	assert_int_equal(q_int(db, "SELECT count(*) FROM marks"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM system"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples"), 20);
	assert_int_equal(q_int(db, "SELECT min(time) FROM gpu_samples"), recent);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_devices"), 1);
	assert_int_equal(q_int(db, "SELECT time FROM gpu_devices"), recent);
	/* the device itself stays: the rows of every age refer to it */
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpus"), 1);
	/* processes: the one still there stays; the others went */
	assert_int_equal(q_int(db, "SELECT count(*) FROM processes"), 1);
	assert_int_equal(q_int(db, "SELECT id FROM processes"), kept);
	(void)gone_silently;
	/* paths: those still referred to stay, the others went */
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths WHERE path = '/old/only-then.bin'"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths WHERE path = '/data/model.bin'"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths p WHERE NOT EXISTS"
				   " (SELECT 1 FROM census_files f WHERE f.path_id = p.id) AND NOT EXISTS"
				   " (SELECT 1 FROM census_regions r WHERE r.path_id = p.id) AND NOT EXISTS"
				   " (SELECT 1 FROM region_events e WHERE e.path_id = p.id)"),
			 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
	census_free(c);
}

/* ------------------------------------------------------------ size */

static void test_max_size(void **state)
{
	struct test_db *t = *state;
	const uint64_t max_size = 512 * KiB;
	struct store *s = open_store(t->db, 0);
	struct census *c = java_census();
	int64_t id = put_proc(s, 1, H0, -1), last_census = 0, newest = 0;
	uint64_t size = 0;
	int n = 0;

	/* about 2 MiB of history, a census and its rows every 5 minutes */
	while (size < 4 * max_size) {
		int64_t time = H0 + n * 5 * MINUTE;
		char path[64];
		snprintf(path, sizeof(path), "/data/part-%d.bin", n);
		assert_int_equal(store_begin(s), 0);
		last_census = put_history(s, id, c, time, path);
		assert_int_equal(store_commit(s), 0);
		assert_int_equal(store_size(s, &size), 0);
		newest = time;
		n++;
	}
	struct store_retention rt = { .now = newest + MINUTE, .max_size = max_size, .batch = 50 };
	run_retention(s, &rt);
	assert_int_equal(store_size(s, &size), 0);
	assert_true(size <= max_size);
	assert_int_equal(store_check(s, 0), 0);
	store_close(s);

	/* The file itself is back under the limit (free pages returned), and
	 * what is left is the most recent stretch of time, in every table. */
	struct stat st;
	assert_int_equal(stat(t->db, &st), 0);
	assert_true((uint64_t)st.st_size <= max_size);
	sqlite3 *db = raw_open(t->db);
	assert_int_equal(q_int(db, "SELECT max(id) FROM censuses"), last_census);
	int64_t oldest_census = q_int(db, "SELECT min(time) FROM censuses");
	assert_true(oldest_census > H0);
	assert_true(q_int(db, "SELECT count(*) FROM censuses") < n);
	/* no table was trimmed much further back than another */
	assert_true(q_int(db, "SELECT min(time) FROM samples") >= oldest_census - 5 * MINUTE);
	assert_true(q_int(db, "SELECT min(time) FROM system") >= oldest_census - 5 * MINUTE);
	assert_true(q_int(db, "SELECT min(time) FROM samples") <= oldest_census + 5 * MINUTE);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id NOT IN (SELECT id FROM censuses)"),
			 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths WHERE path = '/data/part-0.bin'"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	assert_int_equal(q_int(db, "SELECT freelist_count FROM pragma_freelist_count"), 0);
	sqlite3_close(db);
	census_free(c);
}

static void test_nothing_to_do(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0);
	struct store_retention rt = { .now = H0, .keep = DAY, .raw_for = HOUR, .minutes_for = DAY,
				      .max_size = 100 * MiB };
	bool more = true;

	/* once round the (empty) paths after opening, then nothing */
	assert_int_equal(store_retention_step(s, &rt, &more), 0);
	assert_int_equal(store_retention_step(s, &rt, &more), 0);
	assert_false(more);
	store_close(s);

	struct store_options o = { .path = t->db, .read_only = true };
	struct error err;
	assert_int_equal(store_open(&o, &s, &err), 0);
	assert_int_equal(store_retention_step(s, &rt, &more), -EROFS);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rollup, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_cutoff, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_expire, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_max_size, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_do, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
