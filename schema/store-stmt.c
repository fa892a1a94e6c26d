/* The store's edge with SQLite: result codes become negative errno values
 * with a message, statements are prepared once and reused, values are bound
 * the same way everywhere.  The daemon writes a few hundred rows a cycle
 * through a few dozen statements, so preparing each once matters more than
 * anything clever here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store-errno.h"
#include "store-internal.h"

int store_errno(sqlite3 *db, int rc)
{
	int e;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_FULL:
		/* max_page_count reached, or the disk is full */
		return -ENOSPC;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		/* the file is damaged: a failure of its own, told apart from a
		 * full disk or a lock, since only moving the file aside helps */
		return -EUCLEAN;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG:
		/* the caller gave a row the schema refuses: retrying cannot help */
		return -EINVAL;
	case SQLITE_IOERR:
		/* A write that failed for want of space is SQLITE_IOERR_WRITE
		 * (or _FSYNC, _TRUNCATE) with the system's errno underneath. */
		e = store_system_errno(db);
		return e == ENOSPC || e == EDQUOT ? -ENOSPC : -EIO;
	case SQLITE_CANTOPEN:
		e = store_system_errno(db);
		return e > 0 ? -e : -EIO;
	default:
		return -EIO;
	}
}

/* A damaged file is not written into again, not even by the checkpoint
 * that closing the connection would run: it stays as it was found, for a
 * person to look at. */
static int note_damage(struct store *s, int r)
{
	if (r == -EUCLEAN && s->db)
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	return r;
}

int store_fail(struct store *s, int rc, const char *what)
{
	int r = note_damage(s, store_errno(s->db, rc));

	return error_set(&s->error, r < 0 ? r : -EIO, "%s: %s: %s", s->path, what,
			 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

int store_failf(struct store *s, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(&s->error, r, fmt, ap);
	va_end(ap);
	return note_damage(s, error_prefix(&s->error, "%s: ", s->path));
}

int store_stmt(struct store *s, enum store_stmt id, const char *sql, sqlite3_stmt **ret)
{
	int rc;

	if (!s->stmt[id]) {
		rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[id], NULL);
		if (rc != SQLITE_OK) {
			s->stmt[id] = NULL;
			return store_fail(s, rc, "preparing a statement");
		}
	}
	*ret = s->stmt[id];
	return 0;
}

int store_stmt_built(struct store *s, enum store_stmt id, int (*build)(struct store *s, char **ret),
		     sqlite3_stmt **ret)
{
	char *sql = NULL;
	int r;

	if (s->stmt[id]) {
		*ret = s->stmt[id];
		return 0;
	}
	r = build(s, &sql);
	if (r >= 0)
		r = store_stmt(s, id, sql, ret);
	sqlite3_free(sql);
	return r;
}

void store_stmt_done(sqlite3_stmt *st)
{
	/* reset returns the error of the last step again: already handled */
	(void)sqlite3_reset(st);
	(void)sqlite3_clear_bindings(st);
}

int store_stmt_run(struct store *s, sqlite3_stmt *st, const char *what)
{
	int rc;

	do
		rc = sqlite3_step(st);
	while (rc == SQLITE_ROW);
	if (rc != SQLITE_DONE) {
		int r = store_fail(s, rc, what);
		store_stmt_done(st);
		return r;
	}
	store_stmt_done(st);
	return 0;
}

int store_stmt_int(struct store *s, sqlite3_stmt *st, const char *what, int64_t *ret)
{
	int rc = sqlite3_step(st), found = 0;

	if (rc == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
			*ret = sqlite3_column_int64(st, 0);
			found = 1;
		}
	} else if (rc != SQLITE_DONE) {
		int r = store_fail(s, rc, what);
		store_stmt_done(st);
		return r;
	}
	store_stmt_done(st);
	return found;
}

int store_bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	return sqlite3_bind_int64(st, i, v > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)v);
}

int store_bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	return v == -1 ? sqlite3_bind_null(st, i) : sqlite3_bind_int64(st, i, v);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	/* SQLITE_STATIC: the caller's string outlives the step, and the
	 * bindings are cleared right after it. */
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

int store_bound(struct store *s, sqlite3_stmt *st, int rc, const char *what)
{
	if (rc == SQLITE_OK)
		return 0;
	/* The ORed codes are no code; the connection holds the real one. */
	rc = sqlite3_errcode(s->db);
	store_stmt_done(st);
	return store_fail(s, rc != SQLITE_OK ? rc : SQLITE_MISUSE, what);
}

int store_bound_run(struct store *s, sqlite3_stmt *st, int rc, const char *what)
{
	int r = store_bound(s, st, rc, what);
	return r < 0 ? r : store_stmt_run(s, st, what);
}

int store_exec(struct store *s, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		int r = note_damage(s, store_errno(s->db, rc));
		error_set(&s->error, r < 0 ? r : -EIO, "%s: %s: %s", s->path, what, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return s->error.code;
	}
	return 0;
}

int store_writable(struct store *s)
{
	if (s->read_only)
		return store_failf(s, -EROFS, "opened read-only: no writes");
	if (s->in_transaction && sqlite3_get_autocommit(s->db))
		return store_failf(s, -ECANCELED,
				   "the transaction was rolled back after an earlier error; roll back and start again");
	return 0;
}

int store_set_max_pages(struct store *s, int64_t pages)
{
	char sql[64];

	/* A pragma takes no bound parameters. */
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages);
	return store_exec(s, sql, "setting max_page_count");
}
