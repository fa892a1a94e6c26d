/* One read-only SQL query on a database file, safe against a hostile
 * query: what `ramwatch sql` runs.  The rows come back one at a time
 * through a callback, so a client streams them.
 *
 * What keeps a query from harming the database or the machine
 * (ramwatch(1), "sql"):
 *   - the file is opened read-only (never as a URI), with SQLite's
 *     defensive mode, no extensions, no trusted schema, query_only, and
 *     temporary storage in memory;
 *   - an authorizer allows reading only: SELECT (WITH, VALUES, EXPLAIN),
 *     the functions except those that load code, and a few read-only
 *     PRAGMAs (QUERY_PRAGMAS below); never a write, a schema change, a
 *     transaction, ATTACH or VACUUM INTO;
 *   - exactly one statement, which SQLite must call read-only;
 *   - limits (common/limits.h, "ramwatch sql"): time, rows, result size,
 *     the length of the query and of a value, memory, columns, expression
 *     depth, compound SELECTs, LIKE patterns.
 * Access to the file itself is its permissions: this adds none. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The PRAGMAs a query may use, as words for messages and documentation:
 * those that describe tables and indexes (with a name or without), and
 * those that read a number about the file (without an argument only). */
#define QUERY_PRAGMAS                                                                             \
	"table_info, table_xinfo, table_list, index_list, index_info, index_xinfo, foreign_key_list, " \
	"user_version, application_id, page_size, page_count, freelist_count"

enum query_type {
	QUERY_NULL,
	QUERY_INTEGER,
	QUERY_REAL,
	QUERY_TEXT,
	QUERY_BLOB,
};

/* One value of a row, valid during the row callback only. */
struct query_value {
	enum query_type type;
	int64_t integer; /* QUERY_INTEGER */
	double real;     /* QUERY_REAL: never NaN (SQLite makes that NULL); may be infinite */
	/* QUERY_TEXT: the bytes as stored, meant to be UTF-8 but not
	 * checked, followed by a NUL (the text may hold NULs of its own);
	 * QUERY_BLOB: the bytes.  NULL when size is 0. */
	const void *data;
	size_t size;
};

struct query_options {
	const char *path;    /* the database file, never read as a URI */
	uint64_t timeout_ms; /* time SQLite may spend; 0: RW_SQL_TIMEOUT_DEFAULT_MS */
	uint64_t max_rows;   /* 0: RW_SQL_ROWS_DEFAULT */
	uint64_t max_bytes;  /* result size: text and blob bytes, 8 for any other value; 0: RW_SQL_BYTES_DEFAULT */
};

struct query_callbacks {
	/* Called once, before the first row (also when there is none), with
	 * the result's column names.  A negative return stops the query
	 * and is returned by query_run. */
	int (*columns)(void *userdata, size_t n, const char *const *names);
	/* Called for each row with its n values.  A negative return stops
	 * the query and is returned by query_run. */
	int (*row)(void *userdata, size_t n, const struct query_value *values);
};

enum query_stop {
	QUERY_COMPLETE,      /* every row was given */
	QUERY_STOPPED_ROWS,  /* there were more than max_rows */
	QUERY_STOPPED_BYTES, /* the next row would have passed max_bytes */
};

struct query_result {
	uint64_t rows;  /* rows given to the callback */
	uint64_t bytes; /* their size, counted as for max_bytes */
	enum query_stop stop;
};

/* Opens o->path read-only, checks that sql is one statement that only
 * reads, runs it within the limits and gives its rows to cb.
 *
 * Returns 0 with *ret filled (a limit on rows or bytes is not an error:
 * ret->stop says it was hit), or a negative errno with a message for
 * people in err:
 *   the system's errno (-ENOENT, -EACCES, -EISDIR, ...) when the file
 *     cannot be opened, -EBADMSG when it is not a SQLite database;
 *   -EPERM: the statement was refused (a write, ATTACH, a PRAGMA not
 *     allowed, more than one statement, ...), err says why;
 *   -ENODATA: no statement (empty, or comments only);
 *   -EINVAL: SQLite refused the query (a syntax error, no such table),
 *     err holds its message, or the query has parameters;
 *   -E2BIG: the query's text is longer than RW_SQL_TEXT_MAX, or a value
 *     longer than RW_SQL_VALUE_MAX;
 *   -ENOMEM: the query needed more than RW_SQL_MEMORY_MAX;
 *   -ETIME: the time limit passed;
 *   -EBUSY: the database stayed locked;
 *   -EIO: any other failure of SQLite's;
 *   or what a callback returned.
 * ret->rows counts the rows given before a failure.
 *
 * SQLite's heap limit is process-wide: for the duration of the call it is
 * RW_SQL_MEMORY_MAX, then the caller's again. */
int query_run(const struct query_options *o, const char *sql, const struct query_callbacks *cb, void *userdata,
	      struct query_result *ret, struct error *err);
