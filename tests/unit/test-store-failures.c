/* The store, continued (test-store.c): readers beside the daemon and after
 * it, a locked database, a full one, and a census that was light. */
#include "test-store-lib.h"

/* ------------------------------------------------------------ readers */

static void test_read_only(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	struct store_options o = { .path = t->db, .read_only = true };
	struct store *reader = NULL;
	struct error err;
	uint64_t size;
	int64_t id;

	put_proc(s, "boot", 1, 1, T0, 0);
	/* a reader beside the daemon */
	assert_int_equal(store_open(&o, &reader, &err), 0);
	reader = store_close(reader);
	store_close(s);

	/* and after it stopped: the WAL and its index stay for readers that
	 * may not create them */
	assert_true(exists(t->db, "-wal"));
	assert_true(exists(t->db, "-shm"));
	assert_int_equal(store_open(&o, &reader, &err), 0);
	assert_int_equal(store_schema_version(reader), STORE_SCHEMA_VERSION);
	assert_int_equal(store_size(reader, &size), 0);
	assert_true(size > 0);
	assert_int_equal(store_check(reader, 0), 0);
	assert_int_equal(store_begin(reader), -EROFS);
	struct store_process p = { .boot_id = "b", .pid = 2, .seen = T0, .started_at = -1, .uid = -1, .exited_at = -1 };
	assert_int_equal(store_put_process(reader, &p, &id), -EROFS);
	store_close(reader);

	/* as a user reads it: sqlite3 -readonly, or a read-only URI */
	char uri[512];
	sqlite3 *db = NULL;
	snprintf(uri, sizeof(uri), "file:%s?mode=ro", t->db);
	assert_int_equal(sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), SQLITE_OK);
	assert_int_equal(q_int(db, "SELECT count(*) FROM process_labels"), 1);
	sqlite3_close(db);
}

/* ------------------------------------------------------------ failures */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_locked(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 300);
	int64_t id = put_proc(s, "boot", 1, 1, T0, 0);

	/* another writer holds the database */
	sqlite3 *db = raw_open(t->db, false);
	raw_exec(db, "BEGIN IMMEDIATE");
	int64_t start = now_ms();
	assert_int_equal(store_begin(s), -EBUSY);
	int64_t waited = now_ms() - start;
	assert_true(waited >= 250);
	assert_true(waited < 3000);
	assert_non_null(strstr(store_error(s), "locked"));
	/* writes without a transaction are refused the same way */
	assert_int_equal(store_put_mark(s, id, T0, "x", -1), -EBUSY);

	raw_exec(db, "COMMIT");
	assert_int_equal(store_begin(s), 0);
	assert_int_equal(store_put_mark(s, id, T0, "after", -1), 0);
	assert_int_equal(store_commit(s), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM marks"), 1);
	sqlite3_close(db);

	/* begin twice, commit without begin: the caller's mistakes, named */
	assert_int_equal(store_begin(s), 0);
	assert_int_equal(store_begin(s), -EINVAL);
	store_rollback(s);
	store_rollback(s);
	assert_int_equal(store_commit(s), -EINVAL);
	store_close(s);
}

/* One batch: a census and some fast-tier rows from time on. */
static int put_batch(struct store *s, int64_t id, const struct census *c, int64_t time, int rows)
{
	struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .wall_us = -1,
				  .cpu_us = -1, .bytes_read = -1 };
	int r = store_begin(s);
	if (r < 0)
		return r;
	r = store_put_census(s, id, &m, c, NULL);
	for (int i = 0; r >= 0 && i < rows; i++) {
		struct store_sample x = { .time = time + i * 1000, .private_min = (uint64_t)i, .private_max = 2 * (uint64_t)i,
					  .private_last = (uint64_t)i, .samples = 1 };
		r = store_put_sample(s, id, &x);
	}
	if (r >= 0)
		r = store_commit(s);
	if (r < 0)
		store_rollback(s);
	return r;
}

static void test_full(void **state)
{
	struct test_db *t = *state;
	const uint64_t max_size = 256 * KiB;
	struct store *s = open_store(t->db, max_size, 0);
	struct census *c = java_census();
	int64_t id = put_proc(s, "boot", 1, 1, T0, 0), time = T0;
	int committed = 0, r = 0;
	uint64_t size;

	/* fill it up to the ceiling, a batch at a time */
	while (committed < 10000) {
		r = put_batch(s, id, c, time, 50);
		if (r < 0)
			break;
		committed++;
		time += 50000;
	}
	assert_int_equal(r, -ENOSPC);
	assert_non_null(strstr(store_error(s), "full"));
	assert_true(committed > 0);
	assert_int_equal(store_size(s, &size), 0);
	assert_true(size > max_size);          /* at the ceiling, above the limit */
	assert_true(size <= 2 * max_size + 64 * KiB); /* but not far */

	/* the failed batch left nothing; what was committed is whole */
	assert_int_equal(store_check(s, 0), 0);
	sqlite3 *db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), committed);
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), committed * 50);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);

	/* Still full.  SQLite rolls the whole transaction back after
	 * SQLITE_FULL; a write after that must not land outside it. */
	assert_int_equal(store_begin(s), 0);
	for (int i = 0; i < 1000000; i++) {
		struct store_sample x = { .time = time + i, .private_last = 1, .samples = 1 };
		r = store_put_sample(s, id, &x);
		if (r < 0)
			break;
	}
	assert_int_equal(r, -ENOSPC);
	struct store_sample late = { .time = time - 1, .samples = 1 };
	assert_int_equal(store_put_sample(s, id, &late), -ECANCELED);
	assert_int_equal(store_commit(s), -ECANCELED);
	store_rollback(s);
	assert_int_equal(put_batch(s, id, c, time, 50), -ENOSPC);
	db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "SELECT count(*) FROM samples"), committed * 50);
	sqlite3_close(db);

	/* retention can run at the ceiling, and makes room */
	struct store_retention rt = { .now = time, .max_size = max_size, .batch = 20 };
	bool more = true;
	int steps = 0;
	while (more && steps < 1000) {
		if (store_retention_step(s, &rt, &more) < 0)
			fail_msg("retention step %d: %s", steps, store_error(s));
		steps++;
	}
	assert_false(more);
	assert_int_equal(store_size(s, &size), 0);
	assert_true(size <= max_size);
	assert_int_equal(store_check(s, 0), 0);

	/* and writing works again */
	assert_int_equal(put_batch(s, id, c, time, 50), 0);
	store_close(s);
	census_free(c);
}

/* A light census knows sizes, not memory, per class, region and file:
 * those counters are stored as NULL, not as zeros a reader would sum. */
static void test_light_census(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	struct census *c = java_census();
	struct store_census m = { .time = 5000, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .light = true,
				  .wall_us = 1, .cpu_us = 1, .bytes_read = 1 };
	int64_t id, census_id;

	c->light = true;
	assert_int_equal(store_begin(s), 0);
	id = put_proc(s, "b", 7, 1, 1000, 0);
	assert_int_equal(store_put_census(s, id, &m, c, &census_id), 0);
	assert_int_equal(store_commit(s), 0);
	sqlite3 *db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "SELECT light FROM censuses WHERE id = %lld", (long long)census_id), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld AND private IS NULL "
				   "AND resident IS NULL AND size > 0",
			       (long long)census_id),
			 q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)census_id));
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = %lld AND private IS NOT "
				   "NULL",
			       (long long)census_id),
			 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld AND resident IS NOT NULL",
			       (long long)census_id),
			 0);
	/* the census's own totals (from smaps_rollup) stay */
	assert_int_equal(q_int(db, "SELECT private FROM censuses WHERE id = %lld", (long long)census_id),
			 (int64_t)c->totals.private);
	sqlite3_close(db);
	census_free(c);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_only, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_locked, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_full, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_light_census, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
