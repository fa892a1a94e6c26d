/* Coalesced fast-tier rows (schema 6): identical steady raw rows stored as
 * one row over their span, a row that differs kept as it is, a new row
 * after a restart, and a database of schema 5 migrated with every old row
 * still there.  Each test writes the same rows to two databases, one
 * coalesced as the daemon writes it and one not, so that what is read
 * back can be compared with what the rows were. */
#include "test-store-read-lib.h"

#include "store-migrations.h"

/* A writer of t's database with coalescing on (writer_of opens one
 * without). */
static struct store *coalescing_writer(struct tmp *t)
{
	if (!t->s) {
		struct store_options o = { .path = t->db, .coalesce = true };
		struct error err;
		if (store_open(&o, &t->s, &err) < 0)
			fail_msg("store_open: %s", err.message);
	}
	return t->s;
}

static int64_t q_int(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	sqlite3_free(sql);
	return v;
}

/* A row of n samples: steady at v (private v, resident 2v) unless
 * spike > 0, which is the private maximum inside the interval. */
static struct store_sample row(int64_t time, uint64_t v, uint64_t spike)
{
	return (struct store_sample){ .time = time, .private_min = v, .private_max = spike > v ? spike : v,
				      .private_last = v, .resident_min = 2 * v, .resident_max = 2 * v,
				      .resident_last = 2 * v, .swap_last = 3, .samples = 10 };
}

static void put(struct tmp *t, int64_t id, const struct store_sample *x)
{
	if (store_put_sample(t->s, id, x) < 0)
		fail_msg("put_sample: %s", store_error(t->s));
}

static int64_t proc(struct tmp *t)
{
	return put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
						 .first_seen = H0, .last_seen = H0, .exited_at = -1 });
}

/* ------------------------------------------------------------ writing */

static void test_identical_rows_coalesce(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 100; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);

	/* one row stands for the hundred: its span, all their samples */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int(t->db, "SELECT time FROM samples"), H0 + SECOND);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples"), H0 + 100 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT samples FROM samples"), 1000);
	assert_int_equal(q_int(t->db, "SELECT private_max FROM samples"), 1000);
	assert_int_equal(q_int(t->db, "SELECT resident_last FROM samples"), 2000);
	assert_int_equal(q_int(t->db, "SELECT swap_last FROM samples"), 3);
}

static void test_spike_kept(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 30; i++) {
		/* a peak inside row 11 that is gone by its end */
		struct store_sample x = row(H0 + i * SECOND, 1000, i == 11 ? 9000 : 0);
		put(t, id, &x);
	}
	commit(t);

	/* the run before the spike, the spike, the run after it */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 3);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + SECOND), H0 + 10 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT private_max FROM samples WHERE time = %lld", H0 + 11 * SECOND), 9000);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 11 * SECOND),
			 H0 + 11 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 12 * SECOND), H0 + 30 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT sum(samples) FROM samples"), 300);
	assert_int_equal(q_int(t->db, "SELECT max(private_max) FROM samples"), 9000);
}

static void test_changes_end_a_run(void **state)
{
	struct tmp *t = *state;
	struct store_sample a = row(H0 + SECOND, 1000, 0), b = row(H0 + 2 * SECOND, 1000, 0),
			    c = row(H0 + 3 * SECOND, 1000, 0), d = row(H0 + 4 * SECOND, 1000, 0),
			    e = row(H0 + 5 * SECOND, 1000, 0);
	int64_t id;

	b.swap_last = 4;          /* swap moved */
	c.resident_last = 2001;   /* resident moved */
	d.resident_min = 1999;    /* resident was not steady inside the interval */
	coalescing_writer(t);
	begin(t);
	id = proc(t);
	put(t, id, &a);
	put(t, id, &b);
	put(t, id, &c);
	put(t, id, &d);
	put(t, id, &e);
	commit(t);
	/* none is the same steady row as the one before it */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 5);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples WHERE until = time"), 5);
}

static void test_restart_starts_a_row(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 5; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	t->s = store_close(t->s);

	coalescing_writer(t);
	begin(t);
	for (int i = 6; i <= 10; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	/* the first row after opening is a row of its own, then extended */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 2);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + SECOND), H0 + 5 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 6 * SECOND), H0 + 10 * SECOND);
}

static void test_rolled_back_run(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	commit(t);
	/* a batch that failed: the daemon keeps its rows and writes them
	 * again, and the store must not extend a row that is not there */
	begin(t);
	for (int i = 1; i <= 3; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	store_rollback(t->s);
	begin(t);
	for (int i = 1; i <= 4; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int(t->db, "SELECT until FROM samples"), H0 + 4 * SECOND);
	assert_int_equal(q_int(t->db, "SELECT samples FROM samples"), 40);
}

static void test_clock_back(void **state)
{
	struct tmp *t = *state;
	struct store_sample a = row(H0 + SECOND, 1000, 0), b = row(H0 + 2 * SECOND, 1000, 0),
			    back = row(H0 + 2 * SECOND, 1000, 0);
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	put(t, id, &a);
	put(t, id, &b);
	/* a second row inside the span: not folded in twice, kept once */
	put(t, id, &back);
	commit(t);
	assert_int_equal(q_int(t->db, "SELECT sum(samples) FROM samples"), 30);
	assert_int_equal(q_int(t->db, "SELECT max(until) FROM samples"), H0 + 2 * SECOND);
}

static void test_off_by_default(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	begin(t);
	id = proc(t);
	for (int i = 1; i <= 5; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples WHERE until = time"), 5);
}

/* ------------------------------------------------------------ migrating */

static void test_migrate_from_v5(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = NULL;
	char *msg = NULL;

	/* a database as a ramwatch of schema 5 left it, with raw, minute and
	 * hour rows */
	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	assert_true(store_n_migrations >= 6);
	for (size_t i = 0; i < 5; i++)
		if (sqlite3_exec(db, store_migrations[i].sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("migration %zu: %s", i + 1, msg);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 5;"
					  "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
					  " VALUES ('b', 42, 7, 'old', 1000, 2000);"
					  "INSERT INTO samples VALUES (1, 3600000, 3600000, 1, 9, 5, 2, 8, 6, 0, 360);"
					  "INSERT INTO samples VALUES (1, 60000, 3660000, 2, 7, 4, 3, 9, 5, 1, 6);"
					  "INSERT INTO samples VALUES (1, 0, 3661000, 4, 4, 4, 5, 5, 5, 2, 10);"
					  "INSERT INTO samples VALUES (1, 0, 3662000, 4, 4, 4, 5, 5, 5, 2, 10);",
				  NULL, NULL, &msg),
			 SQLITE_OK);
	sqlite3_close(db);

	coalescing_writer(t);
	assert_int_equal(store_schema_version(t->s), 6);
	/* every old row is there, each standing for itself */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples"), 4);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples WHERE until = time"), 4);
	assert_int_equal(q_int(t->db, "SELECT sum(samples) FROM samples"), 386);
	assert_int_equal(q_int(t->db, "SELECT private_max FROM samples WHERE resolution = 3600000"), 9);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM memory_timeline"), 4);

	/* and a new identical row after them starts a row of its own */
	begin(t);
	struct store_sample x = { .time = 3663000, .private_min = 4, .private_max = 4, .private_last = 4,
				  .resident_min = 5, .resident_max = 5, .resident_last = 5, .swap_last = 2,
				  .samples = 10 };
	put(t, 1, &x);
	commit(t);
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM samples WHERE resolution = 0"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identical_rows_coalesce, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spike_kept, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_changes_end_a_run, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_restart_starts_a_row, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_rolled_back_run, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_clock_back, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_off_by_default, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_v5, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
