/* Helpers of the tests of ramwatch sql's query module (test-query.c,
 * test-query-limits.c): a store filled through the store's own API and a
 * plain SQLite file, rows collected, and snapshots of the files that show
 * a statement left them as they were. */
#pragma once

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

static inline size_t count_files(const char *dir)
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

static inline bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* A store as the daemon writes it: one process with samples, a census with
 * its classes, a mark, system rows. */
static inline void fill_store(const char *path)
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

static inline void make_plain(const char *path)
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

static inline int setup(void **state)
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

static inline int teardown(void **state)
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

static inline int sink_columns(void *userdata, size_t n, const char *const *names)
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

static inline int sink_row(void *userdata, size_t n, const struct query_value *v)
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

static inline void sink_open(struct sink *s)
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

static inline void sink_close(struct sink *s)
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

static inline void run_with(struct run *x, const char *path, const char *sql, const struct query_options *base)
{
	struct query_options o = base ? *base : (struct query_options){ 0 };

	o.path = path;
	x->r = query_run(&o, sql, &sink_callbacks, &x->sink, &x->res, &x->err);
}

/* Runs sql on path and returns the rows as text (freed with run_done). */
static inline struct run *run(const char *path, const char *sql)
{
	struct run *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	sink_open(&x->sink);
	run_with(x, path, sql, NULL);
	return x;
}

static inline void run_done(struct run *x)
{
	sink_close(&x->sink);
	free(x);
}

/* Runs sql and expects it to succeed with exactly the rows expected. */
static inline void expect_rows(const char *path, const char *sql, const char *expected)
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
static inline void expect_failure_with(const char *path, const char *sql, const struct query_options *o, int r,
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

static inline void expect_failure(const char *path, const char *sql, int r, const char *what)
{
	expect_failure_with(path, sql, NULL, r, what);
}

/* The bytes of the database and its WAL, to compare before and after. */
struct snapshot {
	char *db, *wal;
	size_t db_len, wal_len;
	size_t files;
};

static inline struct snapshot take_snapshot(const struct tmp *t, const char *path)
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

static inline void assert_unchanged(const struct tmp *t, const char *path, struct snapshot *before)
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

