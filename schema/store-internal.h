/* What the store's files share: the connection, its cache of prepared
 * statements, and the conversion of SQLite's result codes into negative
 * errno values with a message.  Only schema/ includes this (and sqlite3.h). */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "hashtab.h"
#include "macro.h"
#include "store.h"

/* Every statement the store runs more than once, prepared on first use
 * (SQLITE_PREPARE_PERSISTENT) and kept until store_close. */
enum store_stmt {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_PAGE_COUNT,
	STMT_FREELIST_COUNT,
	STMT_PROCESS_PUT,
	STMT_PROCESS_UPDATE,
	STMT_SAMPLE_PUT,
	STMT_SAMPLE_EXTEND,
	STMT_SAMPLE_UNEXTEND,
	STMT_SPAN_FIND,
	STMT_SPAN_PART,
	STMT_SPAN_DROP,
	STMT_CENSUS_PUT,
	STMT_CLASS_PUT,
	STMT_REGION_PUT,
	STMT_FILE_PUT,
	STMT_PATH_FIND,
	STMT_PATH_ADD,
	STMT_EVENT_PUT,
	STMT_MARK_PUT,
	STMT_SYSTEM_PUT,
	STMT_ROLLUP_BOUNDARY,
	STMT_ROLLUP,
	STMT_ROLLUP_DELETE,
	STMT_EXPIRE_CENSUSES,
	STMT_EXPIRE_SAMPLES,
	STMT_EXPIRE_SYSTEM,
	STMT_EXPIRE_MARKS,
	STMT_EXPIRE_PROCESSES,
	STMT_OLDEST_ROWS,
	STMT_PATHS_WINDOW,
	STMT_PATHS_DELETE,
	STMT_GPU_FIND,
	STMT_GPU_DEVICE_PUT,
	STMT_GPU_SAMPLE_PUT,
	STMT_CENSUS_GPU_PUT,
	STMT_GPU_ROLLUP,
	STMT_GPU_ROLLUP_DELETE,
	STMT_EXPIRE_GPU_DEVICES,
	STMT_EXPIRE_GPU_SAMPLES,
	STMT_REPEAT_PUT,
	STMT_OOM_PUT,
	STMT_OOM_LINK,
	STMT_OOM_LINK_CENSUS,
	STMT_CGROUP_PUT,
	STMT_CGROUP_SAMPLE_PUT,
	STMT_CGROUP_ROLLUP,
	STMT_CGROUP_ROLLUP_DELETE,
	STMT_EXPIRE_OOM_KILLS,
	STMT_EXPIRE_CGROUP_SAMPLES,
	STMT_EXPIRE_CGROUPS,
	STMT_DELTA_KEY,
	STMT_DELTA_SIZE,
	STMT_DELTA_BASE,
	/* per census table, in store-delta.c's order */
	STMT_DELTA_DROP,
	STMT_DELTA_DROP_LAST = STMT_DELTA_DROP + 3,
	STMT_DELTA_MARK,
	STMT_DELTA_MARK_LAST = STMT_DELTA_MARK + 3,
	_STMT_MAX
};

/* Inserts fast-tier row x of process_id as it is (store-put.c); a row of
 * the same process and time merges into it, each counter by its how
 * (sample-row.h).  store_put_sample, which may extend the row before
 * instead (store-coalesce.c), is what callers use.  Returns 0 or a
 * negative errno. */
int store_insert_sample(struct store *s, int64_t process_id, const struct store_sample *x);

/* Cuts the coalesced raw rows with a time at or before upto into one row
 * per bucket of res (the bucket's part of the span), the part after
 * upto's bucket left as one row, so that a rollup of the rows up to upto
 * by their time puts every part in its bucket.  Returns 0 or a negative
 * errno. */
int store_spans_cut(struct store *s, int64_t upto, int64_t res);

/* Trims the coalesced raw rows that began before cutoff and reach it to
 * their part from cutoff on, so that expiry by time leaves what is still
 * kept.  Returns 0 or a negative errno. */
int store_spans_trim(struct store *s, int64_t cutoff);

struct store {
	sqlite3 *db;
	char *path;
	bool read_only;
	bool coalesce;         /* store_options.coalesce */
	bool whole_censuses;   /* store_options.whole_censuses */
	bool in_transaction;   /* store_begin succeeded, no commit or rollback yet */
	int version;           /* PRAGMA user_version */
	int64_t page_size;     /* bytes */
	int64_t ceiling_pages; /* PRAGMA max_page_count while writing; 0: none */
	int64_t sqlite_max_pages; /* max_page_count as SQLite opened it: no ceiling */
	bool incremental_vacuum; /* PRAGMA auto_vacuum is INCREMENTAL */
	bool checked_whole;    /* the check at open went through the whole file */
	uint64_t check_us;     /* how long it took */
	/* The sweep for paths nothing refers to: it goes round the table a
	 * window at a time; a lap is due after deletions (and once after
	 * opening, for what an earlier run left). */
	struct store_sweep {
		int64_t cursor; /* the last path id looked at in this lap */
		bool active;    /* a lap is under way */
		bool due;       /* rows were deleted: another lap is wanted */
	} sweep;
	/* The last raw row written of each process (struct store_run of
	 * store-coalesce.h, keyed by process id), so that an identical next
	 * row extends it without a read; empty after opening, so a restart
	 * starts new rows. */
	struct hashtab runs;
	sqlite3_stmt *stmt[_STMT_MAX];
	struct error error; /* the last failure, for store_error */
};

/* The negative errno for a SQLite result code (primary or extended):
 * -ENOSPC, -EBUSY, -EIO, -EROFS, -EUCLEAN (SQLITE_CORRUPT, SQLITE_NOTADB),
 * -ENOMEM, -EACCES, -EINVAL, or the system's errno where SQLite could not
 * open a file. */
int store_errno(sqlite3 *db, int rc);

/* Records what failed (what, then SQLite's own message) for store_error and
 * returns store_errno(rc).  After -EUCLEAN, closing no longer checkpoints
 * into the damaged file. */
int store_fail(struct store *s, int rc, const char *what);

/* Records a message of the store's own and returns r (a negative errno;
 * -EUCLEAN as in store_fail). */
int store_failf(struct store *s, int r, const char *fmt, ...) _printf_(3, 4);

/* The statement id, prepared with sql on first use.  Returns 0 with *ret
 * (owned by the store; finish it with store_stmt_done) or a negative errno. */
int store_stmt(struct store *s, enum store_stmt id, const char *sql, sqlite3_stmt **ret);

/* The same for a statement whose SQL is made at run time (from the
 * columns the schema has): build is called on first use only and returns
 * 0 with SQL to free with sqlite3_free, or a negative errno. */
int store_stmt_built(struct store *s, enum store_stmt id, int (*build)(struct store *s, char **ret),
		     sqlite3_stmt **ret);

/* Resets a statement and clears its bindings, so a reused statement holds
 * no strings of the caller's and no read transaction open. */
void store_stmt_done(sqlite3_stmt *st);

/* Steps a statement that returns no rows, then store_stmt_done.  Returns 0 or
 * store_fail(what). */
int store_stmt_run(struct store *s, sqlite3_stmt *st, const char *what);

/* Steps a statement that returns at most one row of one integer, then
 * store_stmt_done.  Returns 1 with *ret, 0 with no row (or a NULL), or
 * store_fail(what). */
int store_stmt_int(struct store *s, sqlite3_stmt *st, const char *what, int64_t *ret);

/* Binding helpers.  They return SQLite's result code; the callers OR them
 * together and, when the result is not SQLITE_OK, report the connection's
 * error through store_bound. */
int store_bind_u64(sqlite3_stmt *st, int i, uint64_t v);  /* clamped to INT64_MAX */
int store_bind_opt(sqlite3_stmt *st, int i, int64_t v);   /* -1: NULL */
int store_bind_text(sqlite3_stmt *st, int i, const char *v); /* NULL: NULL */

/* Checks the ORed result of a run of binds.  Returns 0, or resets st and
 * returns store_fail(what) with the error of the bind that failed. */
int store_bound(struct store *s, sqlite3_stmt *st, int rc, const char *what);

/* store_bound, then store_stmt_run: the common end of a write. */
int store_bound_run(struct store *s, sqlite3_stmt *st, int rc, const char *what);

/* Runs sql (no rows wanted) outside the statement cache, for the rare
 * statements: pragmas at open, migrations. */
int store_exec(struct store *s, const char *sql, const char *what);

/* 0 when the store may write; -EROFS for a reader; -ECANCELED when SQLite
 * rolled back the caller's transaction after an error (SQLITE_FULL and
 * I/O errors may), so that a write now would land outside it. */
int store_writable(struct store *s);

/* The GPU rows (store-gpu.c). */

/* The id in gpus of the device uuid, added or brought up to date (name,
 * index, total when known, last seen).  Returns 0 with *ret or a negative
 * errno. */
int store_gpu_id(struct store *s, const char *uuid, const char *name, unsigned index, uint64_t total, int64_t seen,
		 int64_t *ret);

/* The devices of census c's GPU section (taken at time), as rows of
 * census_gpu.  Returns 0 or a negative errno. */
int store_put_census_gpu(struct store *s, int64_t census_id, int64_t time, const struct census *c);

/* A repeat census of process_id (m->repeats_time > 0): store_put_census
 * for it (store-repeat.c). */
int store_put_repeat(struct store *s, int64_t process_id, const struct store_census *m, int64_t *ret_id);

/* Stores census_id, just written whole, as a delta against the latest key
 * census of process_id when that is small enough (ramwatch-schema(7),
 * DELTAS); else it stays a key (store-delta.c).  Returns 0 or a negative
 * errno. */
int store_delta_census(struct store *s, int64_t process_id, int64_t census_id);

/* After census census_id (ok, taken at time) of process_id is stored:
 * the OOM kills of the process at or after time whose census is older
 * (or none) link to it (store-oom.c).  Returns 0 or a negative errno. */
int store_oom_link_census(struct store *s, int64_t process_id, int64_t census_id, int64_t time);

/* Sets PRAGMA max_page_count (for this connection only) to pages, > 0.
 * SQLite never sets it below the database's current page count. */
int store_set_max_pages(struct store *s, int64_t pages);

/* The status counters a census row keeps in columns of their own since
 * schema 7 (counter_swap ... counter_hugetlb), in the columns' order:
 * written by store-census.c, read back by store-read-census-load.c. */
#define STORE_N_STATUS_COLUMNS 6
extern const enum status_counter store_status_columns[STORE_N_STATUS_COLUMNS];
