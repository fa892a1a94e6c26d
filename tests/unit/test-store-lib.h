/* Helpers of the store's tests (test-store.c, test-store-failures.c): a
 * store opened on a test's own file, and a plain SQLite connection that
 * checks what a user of the database would see. */
#pragma once

#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "census.h"
#include "fixtures-census.h"
#include "region-events.h"
#include "scan.h"
#include "store-migrations.h"
#include "store.h"

#define T0 1700000000000LL /* a unix ms time to start from */

static inline bool exists(const char *path, const char *suffix)
{
	char p[400];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return stat(p, &st) == 0;
}

static inline struct store *open_store(const char *path, uint64_t max_size, int busy_ms)
{
	struct store_options o = { .path = path, .max_size = max_size, .busy_timeout_ms = busy_ms };
	struct store *s = NULL;
	struct error err;
	int r = store_open(&o, &s, &err);
	if (r < 0)
		fail_msg("store_open %s: %s (%d)", path, err.message, r);
	return s;
}

static inline int try_open(const char *path, bool read_only, struct error *err)
{
	struct store_options o = { .path = path, .read_only = read_only };
	struct store *s = NULL;
	int r = store_open(&o, &s, err);
	if (r >= 0)
		store_close(s);
	return r;
}

/* A plain SQLite connection, as a user's. */
static inline sqlite3 *raw_open(const char *path, bool read_only)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
				 NULL);
	if (rc != SQLITE_OK)
		fail_msg("open %s: %s", path, sqlite3_errstr(rc));
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static inline void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* The first column of the first row of a query (printf-style, sqlite3
 * formats: %lld, %Q); fails the test when there is no row. */
static inline int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row (%s)", sql, sqlite3_errmsg(db));
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

static inline double q_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	double v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The first column of the first row as text, in buf ("NULL" for a NULL). */
static inline const char *q_text(sqlite3 *db, char *buf, size_t size, const char *fmt, ...)
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
	const unsigned char *v = sqlite3_column_text(st, 0);
	snprintf(buf, size, "%s", v ? (const char *)v : "NULL");
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return buf;
}

static inline char *file_bytes(const char *path, size_t *len)
{
	return slurp(path, len);
}

static inline int64_t put_proc(struct store *s, const char *boot, int pid, int64_t start, int64_t seen, uint64_t peak)
{
	struct store_process p = { .boot_id = boot, .pid = pid, .start_time = start, .started_at = -1, .uid = 1000,
				   .comm = "java", .seen = seen, .exited_at = -1, .peak_private = peak,
				   .peak_resident = peak };
	int64_t id = -1;
	int r = store_put_process(s, &p, &id);
	if (r < 0)
		fail_msg("put_process: %s", store_error(s));
	return id;
}

