/* ramwatch sql's query module on real database files: a store filled
 * through the store's own API (WAL mode, as the daemon leaves it), and
 * plain SQLite files.  Every hostile statement is refused with its reason
 * and leaves the files byte for byte as they were; every limit is passed
 * once. */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "census.h"
#include "fixtures-census.h"
#include "limits.h"
#include "query.h"
#include "scan.h"
#include "store.h"
#include "util.h"

#define T0 1700000000000LL /* a unix ms time to start from */

struct tmp {
	char dir[256];
	char db[300];   /* a store, filled */
	char plain[300]; /* a plain SQLite file (rollback journal) */
};

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* A store as the daemon writes it: one process with samples, a census with
 * its classes, a mark, system rows. */
static void fill_store(const char *path)
{
	struct store_options o = { .path = path };
	struct store *s = NULL;
	struct census *c = java_census();
	struct error err;
	int64_t pid_id = -1, census_id = -1;

	if (store_open(&o, &s, &err) < 0)
		fail_msg("store_open: %s", err.message);
	assert_int_equal(store_begin(s), 0);
	struct store_process p = { .boot_id = "boot", .pid = 4242, .start_time = 77, .started_at = -1, .uid = 1000,
				   .comm = "java", .cmdline = "java -Xmx1g, \"quoted\"", .seen = T0, .exited_at = -1,
				   .peak_private = 300 * MiB, .peak_resident = 400 * MiB };
	assert_int_equal(store_put_process(s, &p, &pid_id), 0);
	for (int i = 0; i < 3; i++) {
		struct store_sample x = { .time = T0 + 10000 * (i + 1), .private_min = 100 * MiB,
					  .private_max = (180 + (uint64_t)i) * MiB, .private_last = 150 * MiB,
					  .resident_min = 200 * MiB, .resident_max = 260 * MiB,
					  .resident_last = 250 * MiB, .swap_last = 0, .samples = 10 };
		assert_int_equal(store_put_sample(s, pid_id, &x), 0);
	}
	struct store_census m = { .time = T0 + 20000, .trigger = TRIGGER_FIRST, .status = CENSUS_OK,
				  .wall_us = 1500, .cpu_us = 1200, .bytes_read = 65536 };
	assert_int_equal(store_put_census(s, pid_id, &m, c, &census_id), 0);
	assert_int_equal(store_put_mark(s, pid_id, T0 + 15000, "load model", 1000), 0);
	assert_int_equal(store_put_mark(s, pid_id, T0 + 25000, "serve", 1000), 0);
	struct store_system sys = { .time = T0 + 10000, .mem_total = 64 * GiB, .mem_available = 40 * GiB,
				    .swap_total = 8 * GiB, .swap_free = 6 * GiB, .committed_as = 30 * GiB,
				    .commit_limit = 40 * GiB, .have_pressure = true, .some_avg10 = 1.5,
				    .some_avg60 = 0.5, .full_avg10 = 0.25, .full_avg60 = 0.125 };
	assert_int_equal(store_put_system(s, &sys), 0);
	assert_int_equal(store_commit(s), 0);
	store_close(s);
	census_free(c);
}

static void make_plain(const char *path)
{
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	if (sqlite3_exec(db,
			 "CREATE TABLE t (a INTEGER, b TEXT, c REAL);"
			 "CREATE INDEX t_by_a ON t (a);"
			 "INSERT INTO t VALUES (1, 'one', 1.5), (2, NULL, NULL), (3, 'a,\"b\"\nc', -0.25);",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("make_plain: %s", msg);
	sqlite3_close(db);
}

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t || test_dir_make(t->dir, sizeof(t->dir), "query") < 0) {
		free(t);
		return -1;
	}
	snprintf(t->db, sizeof(t->db), "%s/ramwatch.db", t->dir);
	snprintf(t->plain, sizeof(t->plain), "%s/plain.db", t->dir);
	fill_store(t->db);
	make_plain(t->plain);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	test_dir_remove(t->dir);
	free(t);
	return 0;
}

/* ------------------------------------------------------------ collecting rows */

/* The rows as text: values as i42, r1.5, 'text', x'00ff', NULL joined by
 * '|', one row a line; the names joined by ','. */
struct sink {
	char *text;
	size_t len;
	FILE *f;
	char names[4096];
	unsigned columns_calls;
	uint64_t rows;
	useconds_t sleep_us;  /* per row */
	uint64_t fail_at;     /* the row (from 1) whose callback fails, 0: none */
	bool fail_columns;
};

static int sink_columns(void *userdata, size_t n, const char *const *names)
{
	struct sink *s = userdata;

	s->columns_calls++;
	s->names[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(s->names);
		snprintf(s->names + len, sizeof(s->names) - len, "%s%s", i ? "," : "", names[i]);
	}
	return s->fail_columns ? -ENOTSUP : 0;
}

static int sink_row(void *userdata, size_t n, const struct query_value *v)
{
	struct sink *s = userdata;

	if (s->fail_at && s->rows + 1 == s->fail_at)
		return -EIO;
	if (s->sleep_us)
		usleep(s->sleep_us);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			fputc('|', s->f);
		switch (v[i].type) {
		case QUERY_NULL: fputs("NULL", s->f); break;
		case QUERY_INTEGER: fprintf(s->f, "i%lld", (long long)v[i].integer); break;
		case QUERY_REAL: fprintf(s->f, "r%g", v[i].real); break;
		case QUERY_TEXT:
			assert_int_equal(((const char *)v[i].data)[v[i].size], '\0');
			fputc('\'', s->f);
			fwrite(v[i].data, 1, v[i].size, s->f);
			fputc('\'', s->f);
			break;
		case QUERY_BLOB:
			fputs("x'", s->f);
			for (size_t k = 0; k < v[i].size; k++)
				fprintf(s->f, "%02x", ((const unsigned char *)v[i].data)[k]);
			fputc('\'', s->f);
			break;
		}
	}
	fputc('\n', s->f);
	s->rows++;
	return 0;
}

static const struct query_callbacks sink_callbacks = { .columns = sink_columns, .row = sink_row };

static void sink_open(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->text, &s->len);
	assert_non_null(s->f);
}

static const char *sink_text(struct sink *s)
{
	fflush(s->f);
	return s->text;
}

static void sink_close(struct sink *s)
{
	fclose(s->f);
	free(s->text);
}

struct run {
	int r;
	struct query_result res;
	struct error err;
	struct sink sink;
};

static void run_with(struct run *x, const char *path, const char *sql, const struct query_options *base)
{
	struct query_options o = base ? *base : (struct query_options){ 0 };

	o.path = path;
	x->r = query_run(&o, sql, &sink_callbacks, &x->sink, &x->res, &x->err);
}

/* Runs sql on path and returns the rows as text (freed with run_done). */
static struct run *run(const char *path, const char *sql)
{
	struct run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	sink_open(&x->sink);
	run_with(x, path, sql, NULL);
	return x;
}

static void run_done(struct run *x)
{
	sink_close(&x->sink);
	free(x);
}

/* Runs sql and expects it to succeed with exactly the rows expected. */
static void expect_rows(const char *path, const char *sql, const char *expected)
{
	struct run *x = run(path, sql);
	if (x->r < 0)
		fail_msg("%s: %d %s", sql, x->r, x->err.message);
	assert_int_equal(x->res.stop, QUERY_COMPLETE);
	assert_string_equal(sink_text(&x->sink), expected);
	run_done(x);
}

/* Runs sql with options o (NULL: the defaults) and expects the failure r
 * with a message holding what. */
static void expect_failure_with(const char *path, const char *sql, const struct query_options *o, int r,
				const char *what)
{
	struct run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	sink_open(&x->sink);
	run_with(x, path, sql, o);
	if (x->r != r || !strstr(x->err.message, what))
		fail_msg("%.200s: expected %d with \"%s\", got %d \"%s\"", sql, r, what, x->r, x->err.message);
	run_done(x);
}

static void expect_failure(const char *path, const char *sql, int r, const char *what)
{
	expect_failure_with(path, sql, NULL, r, what);
}

/* The bytes of the database and its WAL, to compare before and after. */
struct snapshot {
	char *db, *wal;
	size_t db_len, wal_len;
	size_t files;
};

static struct snapshot take_snapshot(const struct tmp *t, const char *path)
{
	struct snapshot s = { 0 };
	char wal[400];

	s.db = slurp(path, &s.db_len);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (exists(wal))
		s.wal = slurp(wal, &s.wal_len);
	s.files = count_files(t->dir);
	return s;
}

static void assert_unchanged(const struct tmp *t, const char *path, struct snapshot *before)
{
	struct snapshot after = take_snapshot(t, path);

	assert_int_equal(after.db_len, before->db_len);
	assert_memory_equal(after.db, before->db, before->db_len);
	assert_int_equal(after.wal_len, before->wal_len);
	if (before->wal_len)
		assert_memory_equal(after.wal, before->wal, before->wal_len);
	assert_int_equal(after.files, before->files);
	free(after.db);
	free(after.wal);
	free(before->db);
	free(before->wal);
}

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
	expect_rows(t->db, "SELECT count(*) FROM pragma_table_info('samples')", "i12\n");
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

/* ------------------------------------------------------------ limits */

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void test_time_limit(void **state)
{
	struct tmp *t = *state;
	struct query_options o = { .timeout_ms = 300 };
	struct run x = { 0 };
	uint64_t start = now_ms();

	sink_open(&x.sink);
	run_with(&x, t->db, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
		 &o);
	assert_int_equal(x.r, -ETIME);
	assert_non_null(strstr(x.err.message, "ran out of time"));
	assert_true(now_ms() - start < 3000);
	sink_close(&x.sink);

	/* the time spent writing rows out is the caller's, not the query's */
	sink_open(&x.sink);
	x.sink.sleep_us = 100 * 1000;
	o.timeout_ms = 200;
	run_with(&x, t->db, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5) SELECT i FROM r",
		 &o);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.res.rows, 5);
	sink_close(&x.sink);
}

static void test_row_limit(void **state)
{
	struct tmp *t = *state;
	const char *eleven = "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 11) SELECT i FROM r";
	struct query_options o = { .max_rows = 10 };
	struct run x = { 0 };

	sink_open(&x.sink);
	run_with(&x, t->db, eleven, &o);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.res.stop, QUERY_STOPPED_ROWS);
	assert_int_equal(x.res.rows, 10);
	assert_int_equal(x.sink.rows, 10);
	sink_close(&x.sink);

	/* exactly the limit is no stop */
	sink_open(&x.sink);
	o.max_rows = 11;
	run_with(&x, t->db, eleven, &o);
	assert_int_equal(x.res.stop, QUERY_COMPLETE);
	assert_int_equal(x.res.rows, 11);
	sink_close(&x.sink);

	/* a query without end stops at the default */
	sink_open(&x.sink);
	run_with(&x, t->db, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r", NULL);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.res.stop, QUERY_STOPPED_ROWS);
	assert_int_equal(x.res.rows, RW_SQL_ROWS_DEFAULT);
	sink_close(&x.sink);
}

static void test_byte_limit(void **state)
{
	struct tmp *t = *state;
	struct query_options o = { .max_bytes = 100 };
	struct run x = { 0 };

	/* 30 bytes of text a row: the fourth would pass 100 */
	sink_open(&x.sink);
	run_with(&x, t->db,
		 "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10) "
		 "SELECT printf('%.*c', 30, 'x') FROM r",
		 &o);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.res.stop, QUERY_STOPPED_BYTES);
	assert_int_equal(x.res.rows, 3);
	assert_int_equal(x.res.bytes, 90);
	sink_close(&x.sink);

	/* numbers and NULLs count 8 bytes: 12 of them fill 96, the 13th and
	 * 14th would pass 100 */
	sink_open(&x.sink);
	run_with(&x, t->db,
		 "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 7) SELECT i, NULL FROM r", &o);
	assert_int_equal(x.res.stop, QUERY_STOPPED_BYTES);
	assert_int_equal(x.res.rows, 6);
	assert_int_equal(x.res.bytes, 96);
	sink_close(&x.sink);

	/* a huge result stops at the default size */
	sink_open(&x.sink);
	run_with(&x, t->db,
		 "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT zeroblob(1048576) FROM r", NULL);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.res.stop, QUERY_STOPPED_BYTES);
	assert_int_equal(x.res.bytes, RW_SQL_BYTES_DEFAULT);
	sink_close(&x.sink);
}

static void test_value_limit(void **state)
{
	struct tmp *t = *state;
	char sql[128], expected[32];
	struct run *x;

	sqlite3_memory_highwater(1);
	expect_failure(t->db, "SELECT zeroblob(1e9)", -E2BIG, "string or blob too big");
	snprintf(sql, sizeof(sql), "SELECT length(randomblob(%u))", RW_SQL_VALUE_MAX + 1);
	expect_failure(t->db, sql, -E2BIG, "values are limited to 16 MiB");
	snprintf(sql, sizeof(sql), "SELECT length(zeroblob(%u))", RW_SQL_VALUE_MAX);
	snprintf(expected, sizeof(expected), "i%u\n", RW_SQL_VALUE_MAX);
	expect_rows(t->db, sql, expected);
	/* a string doubled until it is too long */
	x = run(t->db, "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r) SELECT length(s) FROM r");
	assert_int_equal(x->r, -E2BIG);
	assert_int_equal(x->res.rows, 24); /* 1 byte to 8 MiB; 16 MiB is past the limit */
	run_done(x);
	expect_failure(t->db, "SELECT replace(printf('%.*c', 10000000, 'x'), 'x', 'yy')", -E2BIG, "too big");
	/* SQLite's printf gives up at the limit and answers NULL */
	expect_rows(t->db, "SELECT printf('%.*c', 1e9, 'x') IS NULL", "i1\n");
	/* nothing near a gigabyte was ever held */
	assert_true(sqlite3_memory_highwater(0) < RW_SQL_MEMORY_MAX);
}

static void test_memory_limit(void **state)
{
	struct tmp *t = *state;

	assert_int_equal(sqlite3_hard_heap_limit64(-1), 0);
	/* a DISTINCT and a sort that would hold a gigabyte; under the
	 * sanitizers each megabyte allocated is slow enough to reach the
	 * default time limit first, and this is about the memory limit */
	const struct query_options patient = { .timeout_ms = 120 * 1000 };
	expect_failure_with(t->db,
			    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000) "
			    "SELECT count(DISTINCT randomblob(1000000)) FROM r",
			    &patient, -ENOMEM, "more than 256 MiB");
	expect_failure_with(t->db,
			    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000) "
			    "SELECT randomblob(1000000) FROM r ORDER BY random()",
			    &patient, -ENOMEM, "out of memory");
	/* the process's own limit is given back */
	assert_int_equal(sqlite3_hard_heap_limit64(-1), 0);
	sqlite3_hard_heap_limit64(1024ll * 1024 * 1024);
	expect_rows(t->db, "SELECT 1", "i1\n");
	assert_int_equal(sqlite3_hard_heap_limit64(0), 1024ll * 1024 * 1024);
}

/* A query of len bytes: "SELECT 1 --xxx...". */
static char *query_of_length(size_t len)
{
	char *s = malloc(len + 1);
	assert_non_null(s);
	memset(s, 'x', len);
	memcpy(s, "SELECT 1 --", 11);
	s[len] = '\0';
	return s;
}

static void test_text_limit(void **state)
{
	struct tmp *t = *state;
	char *sql = query_of_length(RW_SQL_TEXT_MAX);

	expect_rows(t->db, sql, "i1\n");
	free(sql);
	sql = query_of_length(RW_SQL_TEXT_MAX + 1);
	expect_failure(t->db, sql, -E2BIG, "at most 1048576 are allowed");
	free(sql);
}

/* head and n copies of item joined by sep, with room for one more byte. */
static char *repeat(const char *head, const char *item, const char *sep, size_t n)
{
	size_t len = strlen(head) + n * (strlen(item) + strlen(sep)) + 2;
	char *s = malloc(len);
	assert_non_null(s);
	strcpy(s, head);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, sep);
		strcat(s, item);
	}
	return s;
}

static void test_statement_limits(void **state)
{
	struct tmp *t = *state;
	char *sql;
	struct run *x;

	sql = repeat("SELECT ", "1", ", ", RW_SQL_COLUMNS_MAX);
	x = run(t->db, sql);
	assert_int_equal(x->r, 0);
	run_done(x);
	free(sql);
	sql = repeat("SELECT ", "1", ", ", RW_SQL_COLUMNS_MAX + 1);
	expect_failure(t->db, sql, -EINVAL, "too many columns in result set");
	free(sql);

	sql = repeat("SELECT ", "1", " + ", RW_SQL_EXPR_DEPTH_MAX / 2);
	expect_rows(t->db, sql, "i100\n");
	free(sql);
	sql = repeat("SELECT ", "1", " + ", RW_SQL_EXPR_DEPTH_MAX + 1);
	expect_failure(t->db, sql, -EINVAL, "Expression tree is too large (maximum depth 200)");
	free(sql);

	sql = repeat("", "SELECT 1", " UNION ALL ", RW_SQL_COMPOUND_MAX);
	x = run(t->db, sql);
	assert_int_equal(x->r, 0);
	assert_int_equal(x->res.rows, RW_SQL_COMPOUND_MAX);
	run_done(x);
	free(sql);
	sql = repeat("", "SELECT 1", " UNION ALL ", RW_SQL_COMPOUND_MAX + 1);
	expect_failure(t->db, sql, -EINVAL, "too many terms in compound SELECT");
	free(sql);

	sql = repeat("SELECT 'a' LIKE '", "%", "", RW_SQL_PATTERN_MAX);
	strcat(sql, "'");
	expect_rows(t->db, sql, "i1\n");
	free(sql);
	sql = repeat("SELECT 'a' LIKE '", "%", "", RW_SQL_PATTERN_MAX + 1);
	strcat(sql, "'");
	expect_failure(t->db, sql, -EINVAL, "LIKE or GLOB pattern too complex");
	free(sql);
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
		cmocka_unit_test_setup_teardown(test_time_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_row_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_statement_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reading_while_writing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
