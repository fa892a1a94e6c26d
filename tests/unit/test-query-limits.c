/* ramwatch sql's query module, continued (test-query.c): every limit of a
 * statement (time, rows, bytes, a value, memory, text, the statement's own
 * size) passed once, with its reason. */
#include "query-testlib.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_time_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_row_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_statement_limits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
