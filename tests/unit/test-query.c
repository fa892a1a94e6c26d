/* ramwatch sql's query module on real database files: a store filled
 * through the store's own API (WAL mode, as the daemon leaves it), and
 * plain SQLite files.  Every hostile statement is refused with its reason
 * and leaves the files byte for byte as they were.  The limits are tested
 * in test-query-limits.c. */
#include "query-testlib.h"

/* ------------------------------------------------------------ reading */

static void test_values(void **state)
{
	struct tmp *t = *state;
	struct run *x;

	expect_rows(t->db, "SELECT 42, -7, 1.5, 'a,b', x'00ff', NULL, '', 9223372036854775807, -0.0",
		    "i42|i-7|r1.5|'a,b'|x'00ff'|NULL|''|i9223372036854775807|r-0\n");
	expect_rows(t->plain, "SELECT a, b, c FROM t ORDER BY a",
		    "i1|'one'|r1.5\ni2|NULL|NULL\ni3|'a,\"b\"\nc'|r-0.25\n");
	expect_rows(t->db, "SELECT zeroblob(0), x''", "x''|x''\n");

	/* names, and the columns callback once even without rows */
	x = run(t->plain, "SELECT a AS first, b, c + 1 FROM t WHERE a > 99");
	assert_int_equal(x->r, 0);
	assert_int_equal(x->sink.columns_calls, 1);
	assert_string_equal(x->sink.names, "first,b,c + 1");
	assert_int_equal(x->res.rows, 0);
	assert_string_equal(sink_text(&x->sink), "");
	run_done(x);

	/* text with a NUL inside keeps its length */
	x = run(t->db, "SELECT length(CAST('a' || char(0) || 'b' AS BLOB)), 'a' || char(0) || 'b'");
	assert_int_equal(x->r, 0);
	assert_memory_equal(sink_text(&x->sink), "i3|'a\0b'\n", 9);
	assert_int_equal(x->sink.len, 9);
	run_done(x);
}

static void test_store_tables_and_views(void **state)
{
	struct tmp *t = *state;
	char sql[256];
	struct run *views;

	expect_rows(t->db, "SELECT pid, comm, cmdline FROM processes", "i4242|'java'|'java -Xmx1g, \"quoted\"'\n");
	expect_rows(t->db, "SELECT time, metric, value FROM grafana_process_memory WHERE kind = 'private' ORDER BY time",
		    "r1.7e+09|'java [4242] private'|i188743680\n"
		    "r1.7e+09|'java [4242] private'|i189792256\n"
		    "r1.7e+09|'java [4242] private'|i190840832\n");
	/* every class of the census, adding up to its total */
	expect_rows(t->db,
		    "SELECT count(*) = (SELECT count(*) FROM census_classes), sum(value) = (SELECT private FROM censuses),"
		    " min(metric) FROM grafana_process_classes",
		    "i1|i1|'images'\n");
	expect_rows(t->db, "SELECT metric, value FROM grafana_system_memory WHERE metric = 'mem_used'",
		    "'mem_used'|i25769803776\n");
	expect_rows(t->db, "SELECT metric, value FROM grafana_memory_pressure ORDER BY metric",
		    "'pressure_full_avg10'|r0.25\n'pressure_full_avg60'|r0.125\n"
		    "'pressure_some_avg10'|r1.5\n'pressure_some_avg60'|r0.5\n");
	expect_rows(t->db, "SELECT title, text, tags, time_end - time FROM grafana_marks ORDER BY time",
		    "'load model'|'java [4242]'|'pid=4242'|r10\n'serve'|'java [4242]'|'pid=4242'|NULL\n");
	expect_rows(t->db, "SELECT metric, value, time_ms % 60000 FROM grafana_census_rate", "'first'|i1|i0\n");

	/* every view answers through the connection's restrictions (no
	 * trusted schema, the authorizer) */
	views = run(t->db, "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name");
	assert_int_equal(views->r, 0);
	assert_true(views->res.rows >= 14);
	for (char *line = (char *)sink_text(&views->sink), *end; line && *line; line = end + 1) {
		struct run *x;
		end = strchr(line, '\n');
		*end = '\0';
		snprintf(sql, sizeof(sql), "SELECT * FROM %.*s", (int)(strlen(line) - 2), line + 1);
		x = run(t->db, sql);
		if (x->r < 0)
			fail_msg("%s: %s", sql, x->err.message);
		run_done(x);
	}
	run_done(views);
}

static void test_allowed_pragmas(void **state)
{
	struct tmp *t = *state;
	char expected[64];
	struct run *x;

	snprintf(expected, sizeof(expected), "i%d\n", STORE_SCHEMA_VERSION);
	expect_rows(t->db, "PRAGMA user_version", expected);
	expect_rows(t->db, "PRAGMA application_id", "i1380011351\n");
	/* the row's key, its span, and its counters (sample-row.h) */
	snprintf(expected, sizeof(expected), "i%d\n", 4 + _SAMPLE_N_COLUMNS);
	expect_rows(t->db, "SELECT count(*) FROM pragma_table_info('samples')", expected);
	expect_rows(t->plain, "PRAGMA table_info(t)",
		    "i0|'a'|'INTEGER'|i0|NULL|i0\ni1|'b'|'TEXT'|i0|NULL|i0\ni2|'c'|'REAL'|i0|NULL|i0\n");
	expect_rows(t->plain, "PRAGMA index_list(t)", "i0|'t_by_a'|i0|'c'|i0\n");
	expect_rows(t->plain, "SELECT name FROM pragma_index_info('t_by_a')", "'a'\n");
	expect_rows(t->db, "SELECT sum(value) FROM json_each('[1, 2, 3]')", "i6\n");
	x = run(t->db, "PRAGMA page_count");
	assert_int_equal(x->r, 0);
	assert_int_equal(x->res.rows, 1);
	run_done(x);
}

static void test_one_statement(void **state)
{
	struct tmp *t = *state;

	expect_rows(t->db, "SELECT 1; -- done\n/* really */ ;;\n", "i1\n");
	expect_rows(t->db, " ;; /* first */ SELECT 2", "i2\n");
	expect_rows(t->db, "SELECT 3 /* a block comment to the end", "i3\n");
	expect_failure(t->db, "SELECT 1; SELECT 2", -EPERM, "one statement only; after the first comes \"SELECT 2\"");
	expect_failure(t->db, "SELECT 1;\n-- x\nATTACH 'x.db' AS x", -EPERM, "one statement only");
	expect_failure(t->db, "", -ENODATA, "no statement");
	expect_failure(t->db, "  -- a comment only", -ENODATA, "no statement");
	expect_failure(t->db, "/* */ ;", -ENODATA, "no statement");
}

static void test_sql_errors(void **state)
{
	struct tmp *t = *state;

	expect_failure(t->db, "SELEC 1", -EINVAL, "near \"SELEC\": syntax error");
	expect_failure(t->db, "SELECT * FROM nothing_here", -EINVAL, "no such table: nothing_here");
	expect_failure(t->db, "SELECT $__from", -EINVAL, "the query has parameters ($__from)");
	expect_failure(t->db, "SELECT ?", -EINVAL, "the query has parameters");
}

/* ------------------------------------------------------------ refusing */

static void test_refused(void **state)
{
	struct tmp *t = *state;
	char evil[400], copy[400], sql[1024];
	const struct {
		const char *sql;
		const char *why;
	} cases[] = {
		{ "INSERT INTO marks (process_id, time, name) VALUES (1, 1, 'x')", "INSERT is not allowed" },
		{ "REPLACE INTO marks (process_id, time, name) VALUES (1, 1, 'x')", "INSERT is not allowed" },
		{ "UPDATE processes SET comm = 'x'", "UPDATE is not allowed" },
		{ "DELETE FROM samples", "DELETE is not allowed" },
		{ "WITH x AS (SELECT 1) DELETE FROM samples", "DELETE is not allowed" },
		{ "EXPLAIN DELETE FROM samples", "DELETE is not allowed" },
		{ "CREATE TABLE x (y)", "changing the schema is not allowed" },
		{ "CREATE TEMP TABLE x (y)", "changing the schema is not allowed" },
		{ "CREATE TEMP VIEW v AS SELECT 1", "changing the schema is not allowed" },
		{ "CREATE INDEX i ON samples (swap_last)", "changing the schema is not allowed" },
		{ "CREATE TRIGGER tr AFTER INSERT ON marks BEGIN SELECT 1; END", "CREATE TRIGGER is not allowed" },
		{ "CREATE VIRTUAL TABLE v USING fts5 (x)", "changing the schema is not allowed" },
		{ "DROP TABLE samples", "changing the schema is not allowed" },
		{ "DROP VIEW annotations", "changing the schema is not allowed" },
		{ "ALTER TABLE marks ADD COLUMN x", "ALTER TABLE is not allowed" },
		{ "INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (y)')",
		  "changing the schema is not allowed" },
		{ "ANALYZE", "changing the schema is not allowed" },
		{ "REINDEX", "REINDEX is not allowed" },
		{ "VACUUM", "not read-only" },
		{ "BEGIN IMMEDIATE", "BEGIN is not allowed" },
		{ "COMMIT", "COMMIT is not allowed" },
		{ "SAVEPOINT s", "SAVEPOINT is not allowed" },
		{ "DETACH main", "DETACH is not allowed" },
		{ "PRAGMA writable_schema = 1", "PRAGMA writable_schema = 1 is not allowed" },
		{ "PRAGMA journal_mode = DELETE", "PRAGMA journal_mode = DELETE is not allowed" },
		{ "PRAGMA journal_mode", "PRAGMA journal_mode is not allowed" },
		{ "PRAGMA wal_checkpoint(TRUNCATE)", "PRAGMA wal_checkpoint = TRUNCATE is not allowed" },
		{ "PRAGMA user_version = 7", "PRAGMA user_version = 7 is not allowed" },
		{ "PRAGMA query_only = 0", "PRAGMA query_only = 0 is not allowed" },
		{ "PRAGMA trusted_schema = 1", "PRAGMA trusted_schema = 1 is not allowed" },
		{ "PRAGMA temp_store = FILE", "PRAGMA temp_store = FILE is not allowed" },
		{ "SELECT * FROM pragma_journal_mode", "PRAGMA journal_mode is not allowed" },
		{ "SELECT * FROM pragma_integrity_check", "PRAGMA integrity_check is not allowed" },
		{ "SELECT load_extension('/nonexistent/evil.so')", "the function load_extension() is not allowed" },
		{ "SELECT fts3_tokenizer('simple')", "the function fts3_tokenizer() is not allowed" },
		{ "SELECT fts3_tokenizer('evil', x'0000000000000000')", "the function fts3_tokenizer() is not allowed" },
	};
	struct snapshot before = take_snapshot(t, t->db);

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		expect_failure(t->db, cases[i].sql, -EPERM, cases[i].why);

	/* no file is made: not by ATTACH, not by VACUUM INTO, not by an
	 * ATTACH after a first statement */
	snprintf(evil, sizeof(evil), "%s/evil.db", t->dir);
	snprintf(copy, sizeof(copy), "%s/copy.db", t->dir);
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS evil", evil);
	expect_failure(t->db, sql, -EPERM, "ATTACH (or VACUUM INTO) is not allowed");
	snprintf(sql, sizeof(sql), "ATTACH 'file:%s?mode=rwc' AS evil", evil);
	expect_failure(t->db, sql, -EPERM, "ATTACH (or VACUUM INTO) is not allowed");
	snprintf(sql, sizeof(sql), "SELECT 1; ATTACH '%s' AS evil; CREATE TABLE evil.x (y)", evil);
	expect_failure(t->db, sql, -EPERM, "one statement only");
	snprintf(sql, sizeof(sql), "VACUUM INTO '%s'", copy);
	expect_failure(t->db, sql, -EPERM, "not read-only");
	assert_false(exists(evil));
	assert_false(exists(copy));

	assert_unchanged(t, t->db, &before);
	/* and it still reads */
	expect_rows(t->db, "SELECT count(*) FROM samples", "i3\n");
}

/* The same on a file in rollback-journal mode: no journal appears. */
static void test_refused_plain(void **state)
{
	struct tmp *t = *state;
	struct snapshot before = take_snapshot(t, t->plain);

	expect_failure(t->plain, "DELETE FROM t", -EPERM, "DELETE is not allowed");
	expect_failure(t->plain, "PRAGMA journal_mode = WAL", -EPERM, "is not allowed");
	expect_failure(t->plain, "DROP INDEX t_by_a", -EPERM, "changing the schema is not allowed");
	expect_failure(t->plain, "REINDEX t_by_a", -EPERM, "REINDEX is not allowed");
	expect_rows(t->plain, "SELECT count(*) FROM t", "i3\n");
	assert_unchanged(t, t->plain, &before);
}

/* ------------------------------------------------------------ files */

static void test_open_errors(void **state)
{
	struct tmp *t = *state;
	char path[400], cwd[4096];
	sqlite3 *db = NULL;
	int fd;

	snprintf(path, sizeof(path), "%s/missing.db", t->dir);
	expect_failure(path, "SELECT 1", -ENOENT, "cannot open");
	assert_false(exists(path));
	expect_failure(t->dir, "SELECT 1", -EISDIR, "Is a directory");
	expect_failure("", "SELECT 1", -ENOENT, "no database path");
	snprintf(path, sizeof(path), "%s/notes.txt", t->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(write(fd, "not a database, no ", 19), 19);
	close(fd);
	expect_failure(path, "SELECT * FROM sqlite_master", -EBADMSG, "file is not a database");
	expect_failure("/dev/null", "SELECT 1", -EBADMSG, "not a regular file");

	/* permissions are the file's own (root reads anything) */
	if (geteuid() != 0) {
		assert_int_equal(chmod(t->plain, 0), 0);
		expect_failure(t->plain, "SELECT 1", -EACCES, "Permission denied");
		assert_int_equal(chmod(t->plain, 0644), 0);
	}

	/* a name is a file name, never a URI nor an in-memory database */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(t->dir), 0);
	expect_failure("file:fresh.db?mode=rwc", "SELECT 1", -ENOENT, "cannot open file:fresh.db?mode=rwc");
	assert_false(exists("fresh.db"));
	expect_failure(":memory:", "SELECT 1", -ENOENT, "cannot open :memory:");
	assert_int_equal(sqlite3_open_v2("./file:named.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE n (v); INSERT INTO n VALUES ('the file')", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	expect_rows("file:named.db", "SELECT v FROM n", "'the file'\n");
	assert_int_equal(chdir(cwd), 0);
}

/* The daemon writes while a query reads: the query sees what was
 * committed, and neither waits for the other. */
static void test_reading_while_writing(void **state)
{
	struct tmp *t = *state;
	struct store_options o = { .path = t->db };
	struct store *s = NULL;
	struct error err;

	assert_int_equal(store_open(&o, &s, &err), 0);
	assert_int_equal(store_begin(s), 0);
	struct store_system sys = { .time = T0 + 90000, .mem_total = 64 * GiB, .mem_available = 1 * GiB };
	assert_int_equal(store_put_system(s, &sys), 0);
	expect_rows(t->db, "SELECT count(*) FROM system", "i1\n");
	assert_int_equal(store_commit(s), 0);
	expect_rows(t->db, "SELECT count(*) FROM system", "i2\n");
	store_close(s);
}

static void test_callback_errors(void **state)
{
	struct tmp *t = *state;
	struct run x = { 0 };

	sink_open(&x.sink);
	x.sink.fail_at = 2;
	run_with(&x, t->plain, "SELECT a FROM t ORDER BY a", NULL);
	assert_int_equal(x.r, -EIO);
	assert_int_equal(x.res.rows, 1);
	sink_close(&x.sink);

	sink_open(&x.sink);
	x.sink.fail_columns = true;
	run_with(&x, t->plain, "SELECT a FROM t", NULL);
	assert_int_equal(x.r, -ENOTSUP);
	assert_int_equal(x.sink.rows, 0);
	sink_close(&x.sink);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_tables_and_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allowed_pragmas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sql_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reading_while_writing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
