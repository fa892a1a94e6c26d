/* A reader of the store: a read-only connection of its own for the
 * control socket's answers, its prepared statements, its time limit and its
 * interrupt, and the edge where SQLite's result codes become negative errno
 * values.
 *
 * The workload: a few requests a minute from people and scripts, each one
 * snapshot (a read transaction) of a few thousand to a hundred thousand
 * rows, on a worker thread of the daemon while the daemon writes through
 * its own connection.  WAL mode means neither waits for the other; a
 * reader only waits (busy timeout) while SQLite recovers a WAL. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-read-internal.h"
#include "util.h"

/* Readers hardly ever wait in WAL mode; when they do (a WAL being
 * recovered after a crash), a second is plenty, and a request has 10. */
#define READ_BUSY_TIMEOUT_MS 1000

/* SQLite calls the progress handler every this many virtual machine
 * steps: a few microseconds of work, so a deadline is met within that. */
#define READ_PROGRESS_STEPS 1000

/* read_check reads the clock once every this many calls (a row each). */
#define READ_CHECK_EVERY 16

static const char msg_deadline[] = "the query took longer than its time limit";
static const char msg_interrupted[] = "the query was interrupted";

/* ------------------------------------------------------------ errors */

int read_failf(struct store_reader *r, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(&r->error, e, fmt, ap);
	va_end(ap);
	return e;
}

int read_fail(struct store_reader *r, int rc, const char *what)
{
	int e;

	if ((rc & 0xff) == SQLITE_INTERRUPT) {
		/* The progress handler and sqlite3_interrupt both end here;
		 * the handler said which it was. */
		if (r->timed_out)
			return read_failf(r, -ETIME, "%s: %s", what, msg_deadline);
		return read_failf(r, -EINTR, "%s: %s", what, msg_interrupted);
	}
	e = store_errno(r->db, rc);
	if (e >= 0)
		e = -EIO;
	return read_failf(r, e, "%s: %s: %s", r->store->path, what, sqlite3_errmsg(r->db));
}

/* Stops a running statement (a non-zero return) once the deadline passed
 * or an interrupt came. */
static int progress(void *userdata)
{
	struct store_reader *r = userdata;

	if (r->ending)
		return 0;
	if (atomic_load(&r->interrupted))
		return 1;
	if (r->deadline_us > 0 && now_monotonic_us() >= r->deadline_us) {
		r->timed_out = true;
		return 1;
	}
	return 0;
}

int read_check(struct store_reader *r)
{
	if (r->ending)
		return 0;
	if (atomic_load(&r->interrupted))
		return read_failf(r, -EINTR, "%s", msg_interrupted);
	if (r->deadline_us > 0 && r->ticks++ % READ_CHECK_EVERY == 0 && now_monotonic_us() >= r->deadline_us) {
		r->timed_out = true;
		return read_failf(r, -ETIME, "%s", msg_deadline);
	}
	return 0;
}

/* ------------------------------------------------------------ statements */

int read_prepare(struct store_reader *r, enum read_stmt id, const char *sql, sqlite3_stmt **ret)
{
	int rc;

	if (!r->stmt[id]) {
		rc = sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &r->stmt[id], NULL);
		if (rc != SQLITE_OK) {
			r->stmt[id] = NULL;
			return read_fail(r, rc, "preparing a query");
		}
	}
	*ret = r->stmt[id];
	return 0;
}

void read_done(sqlite3_stmt *st)
{
	/* reset repeats the error of the last step: already reported */
	if (st) {
		(void)sqlite3_reset(st);
		(void)sqlite3_clear_bindings(st);
	}
}

int read_bound(struct store_reader *r, sqlite3_stmt *st, int rc, const char *what)
{
	if (rc == SQLITE_OK)
		return 0;
	/* the ORed codes are no code; the connection holds the real one */
	rc = sqlite3_errcode(r->db);
	read_done(st);
	return read_fail(r, rc != SQLITE_OK ? rc : SQLITE_MISUSE, what);
}

int read_step(struct store_reader *r, sqlite3_stmt *st, const char *what)
{
	int rc, e;

	e = read_check(r);
	if (e < 0)
		return e;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return read_fail(r, rc, what);
}

/* ------------------------------------------------------------ transactions */

static int run(struct store_reader *r, enum read_stmt id, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int e = read_prepare(r, id, sql, &st);

	if (e < 0)
		return e;
	e = read_step(r, st, sql);
	read_done(st);
	return e < 0 ? e : 0;
}

int read_begin(struct store_reader *r)
{
	/* an interrupt belongs to the query that was running when it came */
	atomic_store(&r->interrupted, false);
	r->timed_out = false;
	r->ticks = 0;
	error_clear(&r->error);
	if (!sqlite3_get_autocommit(r->db))
		(void)read_end(r, 0, NULL);
	return run(r, RS_BEGIN, "BEGIN");
}

int read_end(struct store_reader *r, int result, struct error *err)
{
	/* Ending a read transaction must not fail for the deadline that
	 * stopped its query, or the next answer would find it still open. */
	r->ending = true;
	if (!sqlite3_get_autocommit(r->db) && run(r, RS_COMMIT, "COMMIT") < 0 && !sqlite3_get_autocommit(r->db))
		(void)run(r, RS_ROLLBACK, "ROLLBACK");
	r->ending = false;
	if (result < 0)
		error_set(err, result, "%s", error_message_or_strerror(&r->error, result));
	return result;
}

/* ------------------------------------------------------------ opening */

/* rw_glob(pattern, text): fnmatch without flags, as the daemon's Watch=
 * selectors match (glob_match), which SQLite's GLOB is not quite (its
 * character classes differ).  NULL text matches nothing. */
static void sql_glob(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *pattern = sqlite3_value_text(argv[0]);
	const unsigned char *text = argc > 1 ? sqlite3_value_text(argv[1]) : NULL;

	sqlite3_result_int(ctx, pattern && text && glob_match((const char *)pattern, (const char *)text));
}

int store_reader_open(const char *path, struct store_reader **ret, struct error *err)
{
	struct store_options o = { .path = path, .read_only = true, .busy_timeout_ms = READ_BUSY_TIMEOUT_MS };
	struct store_reader *r;
	int e, rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return error_set(err, -ENOMEM, "%s: out of memory", path ? path : "");
	atomic_init(&r->interrupted, false);
	/* store_open refuses any schema version but this build's (-EPROTO,
	 * saying whether to upgrade ramwatch or let ramwatchd migrate) */
	e = store_open(&o, &r->store, err);
	if (e < 0) {
		free(r);
		return e;
	}
	r->db = r->store->db;

	/* a second lock: even a bug here cannot write */
	rc = sqlite3_exec(r->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(r->db, "rw_glob", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					     NULL, sql_glob, NULL, NULL);
	if (rc != SQLITE_OK) {
		e = read_fail(r, rc, "setting up the reader");
		if (err)
			*err = r->error;
		store_reader_close(r);
		return e;
	}
	sqlite3_progress_handler(r->db, READ_PROGRESS_STEPS, progress, r);
	*ret = r;
	return 0;
}

struct store_reader *store_reader_close(struct store_reader *r)
{
	if (!r)
		return NULL;
	if (r->db) {
		r->ending = true;
		if (!sqlite3_get_autocommit(r->db))
			sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_progress_handler(r->db, 0, NULL, NULL);
	}
	/* the statements first: store_close closes the connection for good
	 * only when none is left */
	for (size_t i = 0; i < _RS_MAX; i++)
		sqlite3_finalize(r->stmt[i]);
	store_close(r->store);
	free(r);
	return NULL;
}

void store_reader_set_deadline(struct store_reader *r, uint64_t deadline_us)
{
	r->deadline_us = deadline_us;
}

void store_reader_interrupt(struct store_reader *r)
{
	/* The flag stops what sqlite3_interrupt alone would miss: a query
	 * between two statements, or in the C code between two rows. */
	atomic_store(&r->interrupted, true);
	sqlite3_interrupt(r->db);
}
