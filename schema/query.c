/* One read-only query on a database file for `ramwatch sql`, run so that a
 * hostile query can neither change the file nor take the machine's memory
 * or time.
 *
 * The workload: a person, a script or a dashboard's query asks one
 * question of the store; most answers are a few hundred rows.  The query
 * is whatever its author typed, so every layer assumes the worst:
 * SQLITE_OPEN_READONLY alone would still let ATTACH create files, VACUUM
 * INTO write a copy anywhere, load_extension run code and a recursive
 * query build strings until memory runs out.  See query.h for the
 * layers; each one below says what it stops. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"
#include "macro.h"
#include "query.h"
#include "store-errno.h"
#include "util.h"

/* The progress handler looks at the clock every this many virtual machine
 * instructions: a few microseconds of work. */
#define QUERY_PROGRESS_OPS 1000

/* A reader of a WAL database waits only while another connection
 * recovers it; a locked file is reported after this long. */
#define QUERY_BUSY_MS 2000

struct query {
	sqlite3 *db;
	const char *path;
	struct error *err; /* the caller's; may be NULL */
	char refused[256]; /* why the authorizer said no, first reason */
	uint64_t limit_us; /* time SQLite may spend */
	uint64_t spent_us; /* time spent in finished calls into SQLite */
	uint64_t since_us; /* start of the call under way */
	bool timed_out;
};

static int failf(struct query *q, int r, const char *fmt, ...) _printf_(3, 4);
static int failf(struct query *q, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(q->err, r, fmt, ap);
	va_end(ap);
	return r;
}

/* ------------------------------------------------------------ the authorizer */

/* Functions refused though the connection's settings already disable
 * them, so that no build of SQLite can bring them back:
 * load_extension loads a shared library; fts3_tokenizer with two
 * arguments installs a tokenizer from a pointer, i.e. code (this build has
 * SQLITE_ENABLE_FTS3_TOKENIZER); readfile, writefile and edit are the
 * sqlite3 shell's, should a build register them. */
static const char *const denied_functions[] = {
	"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit",
};

/* PRAGMAs that describe the schema: their argument is a table or index
 * name, never a setting. */
static const char *const pragmas_with_name[] = {
	"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
};

/* PRAGMAs that read a number about the file; with an argument they would
 * set it, so only the bare form is allowed. */
static const char *const pragmas_bare[] = {
	"user_version", "application_id", "page_size", "page_count", "freelist_count",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (strcasecmp(s, list[i]) == 0)
			return true;
	return false;
}

static bool is_schema_table(const char *name)
{
	return name && (strcasecmp(name, "sqlite_master") == 0 || strcasecmp(name, "sqlite_schema") == 0 ||
			strcasecmp(name, "sqlite_temp_master") == 0 || strcasecmp(name, "sqlite_temp_schema") == 0);
}

static const char *action_name(int action, const char *arg)
{
	switch (action) {
	case SQLITE_CREATE_INDEX: return "CREATE INDEX";
	case SQLITE_CREATE_TABLE: return "CREATE TABLE";
	case SQLITE_CREATE_TEMP_INDEX: return "CREATE TEMP INDEX";
	case SQLITE_CREATE_TEMP_TABLE: return "CREATE TEMP TABLE";
	case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TEMP TRIGGER";
	case SQLITE_CREATE_TEMP_VIEW: return "CREATE TEMP VIEW";
	case SQLITE_CREATE_TRIGGER: return "CREATE TRIGGER";
	case SQLITE_CREATE_VIEW: return "CREATE VIEW";
	case SQLITE_CREATE_VTABLE: return "CREATE VIRTUAL TABLE";
	case SQLITE_DELETE: return "DELETE";
	case SQLITE_DROP_INDEX: return "DROP INDEX";
	case SQLITE_DROP_TABLE: return "DROP TABLE";
	case SQLITE_DROP_TEMP_INDEX: return "DROP INDEX";
	case SQLITE_DROP_TEMP_TABLE: return "DROP TABLE";
	case SQLITE_DROP_TEMP_TRIGGER: return "DROP TRIGGER";
	case SQLITE_DROP_TEMP_VIEW: return "DROP VIEW";
	case SQLITE_DROP_TRIGGER: return "DROP TRIGGER";
	case SQLITE_DROP_VIEW: return "DROP VIEW";
	case SQLITE_DROP_VTABLE: return "DROP VIRTUAL TABLE";
	case SQLITE_INSERT: return "INSERT";
	case SQLITE_UPDATE: return "UPDATE";
	case SQLITE_TRANSACTION: return arg ? arg : "a transaction"; /* BEGIN, COMMIT, ROLLBACK */
	case SQLITE_SAVEPOINT: return "SAVEPOINT";
	case SQLITE_ATTACH: return "ATTACH (or VACUUM INTO)";
	case SQLITE_DETACH: return "DETACH";
	case SQLITE_ALTER_TABLE: return "ALTER TABLE";
	case SQLITE_REINDEX: return "REINDEX";
	case SQLITE_ANALYZE: return "ANALYZE";
	default: return "this statement";
	}
}

static int refuse(struct query *q, const char *fmt, ...) _printf_(2, 3);
static int refuse(struct query *q, const char *fmt, ...)
{
	va_list ap;

	if (!q->refused[0]) {
		va_start(ap, fmt);
		vsnprintf(q->refused, sizeof(q->refused), fmt, ap);
		va_end(ap);
	}
	return SQLITE_DENY;
}

/* Called by SQLite while it compiles a statement (and when a pragma
 * table-valued function such as pragma_table_info compiles its PRAGMA):
 * everything that is not reading is refused, with the reason kept for the
 * message.  The arguments are SQLite's (sqlite3_set_authorizer). */
static int authorize(void *userdata, int action, const char *a, const char *b, const char *schema, const char *via)
{
	struct query *q = userdata;

	(void)schema;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		if (in_list(b, denied_functions, ELEMENTSOF(denied_functions)))
			return refuse(q, "the function %s() is not allowed", b);
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		if (in_list(a, pragmas_with_name, ELEMENTSOF(pragmas_with_name)) ||
		    (!b && in_list(a, pragmas_bare, ELEMENTSOF(pragmas_bare))))
			return SQLITE_OK;
		return refuse(q, "PRAGMA %s%s%s is not allowed (allowed: %s, the last five without an argument)",
			      a ? a : "?", b ? " = " : "", b ? b : "", QUERY_PRAGMAS);
	case SQLITE_UPDATE:
		/* SQLite asks this, about the schema table, while it sets up an
		 * eponymous virtual table (json_each, pragma_table_info,
		 * dbstat; SQLite 3.40).  A real UPDATE of the schema table
		 * fails anyway: it is not a read-only statement, the schema is
		 * not writable and the connection is read-only. */
		if (!via && is_schema_table(a))
			return SQLITE_OK;
		__attribute__((fallthrough));
	case SQLITE_INSERT:
	case SQLITE_DELETE:
		/* CREATE, DROP and ANALYZE ask first about writing the schema
		 * table, and stop at the refusal */
		if (is_schema_table(a))
			return refuse(q, "changing the schema is not allowed");
		__attribute__((fallthrough));
	default:
		return refuse(q, "%s is not allowed", action_name(action, a));
	}
}

/* ------------------------------------------------------------ time */

static int progress(void *userdata)
{
	struct query *q = userdata;

	if (q->spent_us + (now_monotonic_us() - q->since_us) <= q->limit_us)
		return 0;
	q->timed_out = true;
	return 1; /* SQLite stops with SQLITE_INTERRUPT */
}

static void clock_start(struct query *q)
{
	q->since_us = now_monotonic_us();
}

static void clock_stop(struct query *q)
{
	q->spent_us += now_monotonic_us() - q->since_us;
}

/* ------------------------------------------------------------ opening */

/* The file's own errno before SQLite's: SQLite reports every failure to
 * open as "unable to open database file", and opens a directory or an
 * empty name (a temporary database) without complaint. */
static int check_file(struct query *q, const char *path)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	if (!path || !path[0])
		return failf(q, -ENOENT, "no database path given");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int r = negative_errno();
		return failf(q, r, "cannot open %s: %s", path, strerror(-r));
	}
	if (S_ISDIR(st.st_mode))
		return failf(q, -EISDIR, "cannot open %s: %s", path, strerror(EISDIR));
	if (!S_ISREG(st.st_mode))
		return failf(q, -EBADMSG, "cannot open %s: not a regular file", path);
	return 0;
}

/* Sets a boolean of sqlite3_db_config and checks that it took. */
static int db_config(struct query *q, int option, int value, const char *what)
{
	int now = -1;

	if (sqlite3_db_config(q->db, option, value, &now) != SQLITE_OK || now != value)
		return failf(q, -EIO, "%s: cannot set up a safe connection (%s)", q->path, what);
	return 0;
}

static int connect_readonly(struct query *q)
{
	static const struct {
		int id;
		int value;
	} limits[] = {
		{ SQLITE_LIMIT_LENGTH, RW_SQL_VALUE_MAX },
		{ SQLITE_LIMIT_SQL_LENGTH, RW_SQL_TEXT_MAX },
		{ SQLITE_LIMIT_COLUMN, RW_SQL_COLUMNS_MAX },
		{ SQLITE_LIMIT_EXPR_DEPTH, RW_SQL_EXPR_DEPTH_MAX },
		{ SQLITE_LIMIT_COMPOUND_SELECT, RW_SQL_COMPOUND_MAX },
		{ SQLITE_LIMIT_LIKE_PATTERN_LENGTH, RW_SQL_PATTERN_MAX },
		{ SQLITE_LIMIT_ATTACHED, 0 },
		{ SQLITE_LIMIT_TRIGGER_DEPTH, 1 },
		{ SQLITE_LIMIT_WORKER_THREADS, 0 },
	};
	_cleanup_free_ char *local = NULL;
	const char *name = q->path;
	char *msg = NULL;
	int rc, r;

	/* This SQLite is built with SQLITE_USE_URI: a name starting with
	 * "file:" would be read as a URI, whose parameters (mode=rwc,
	 * vfs=, immutable=) the caller did not mean; ":memory:" is no file. */
	if (name[0] != '/' && (strncasecmp(name, "file:", 5) == 0 || strcmp(name, ":memory:") == 0)) {
		if (asprintf(&local, "./%s", name) < 0)
			return failf(q, -ENOMEM, "out of memory");
		name = local;
	}
	rc = sqlite3_open_v2(name, &q->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		int e = store_system_errno(q->db);
		return failf(q, e > 0 ? -e : -EIO, "cannot open %s: %s", q->path,
			     e > 0 ? strerror(e) : sqlite3_errstr(rc));
	}
	sqlite3_extended_result_codes(q->db, 1);
	sqlite3_busy_timeout(q->db, QUERY_BUSY_MS);

	/* Defensive mode: no writes to the schema table, shadow tables or
	 * sqlite_dbpage, no writable_schema, even where a write got this far. */
	if ((r = db_config(q, SQLITE_DBCONFIG_DEFENSIVE, 1, "defensive")) < 0 ||
	    (r = db_config(q, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, "load_extension")) < 0 ||
	    (r = db_config(q, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, "fts3_tokenizer")) < 0 ||
	    /* functions in the schema's views must be harmless ones */
	    (r = db_config(q, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "trusted_schema")) < 0 ||
	    (r = db_config(q, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "triggers")) < 0)
		return r;
	/* query_only refuses any write at run time; temp_store keeps sorting
	 * and temporary tables in memory, where the heap limit bounds them,
	 * rather than in temporary files that could fill a disk. */
	rc = sqlite3_exec(q->db, "PRAGMA query_only = 1; PRAGMA trusted_schema = OFF; PRAGMA temp_store = MEMORY", NULL,
			  NULL, &msg);
	if (rc != SQLITE_OK) {
		r = failf(q, -EIO, "%s: cannot set up a safe connection: %s", q->path, msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return r;
	}
	for (size_t i = 0; i < ELEMENTSOF(limits); i++)
		sqlite3_limit(q->db, limits[i].id, limits[i].value);
	/* From here on, the query's own statements only. */
	sqlite3_set_authorizer(q->db, authorize, q);
	sqlite3_progress_handler(q->db, QUERY_PROGRESS_OPS, progress, q);
	return 0;
}

/* ------------------------------------------------------------ the statement */

/* What SQLite skips between statements: white space (as sqlite3Isspace),
 * comments (a block comment may run to the end) and empty statements.
 * Returns the first byte of anything else, or the terminating NUL. */
static const char *skip_nothing(const char *s)
{
	for (;;) {
		if (*s && strchr(" \t\n\v\f\r;", *s))
			s++;
		else if (s[0] == '-' && s[1] == '-')
			s += strcspn(s, "\n");
		else if (s[0] == '/' && s[1] == '*') {
			const char *end = strstr(s + 2, "*/");
			s = end ? end + 2 : s + strlen(s);
		} else
			return s;
	}
}

/* The negative errno and message for a SQLite failure while preparing or
 * stepping. */
static int sqlite_failure(struct query *q, int rc)
{
	/* A refusal can come back as SQLITE_ERROR ("not authorized to use
	 * function"): the authorizer's reason is the one to give. */
	if (q->refused[0])
		return failf(q, -EPERM, "refused: %s: ramwatch sql only reads", q->refused);
	switch (rc & 0xff) {
	case SQLITE_AUTH:
		return failf(q, -EPERM, "refused: %s: ramwatch sql only reads", sqlite3_errmsg(q->db));
	case SQLITE_INTERRUPT:
		if (q->timed_out)
			return failf(q, -ETIME, "the query ran out of time");
		return failf(q, -EINTR, "interrupted");
	case SQLITE_NOMEM:
		return failf(q, -ENOMEM, "out of memory: the query needs more than %u MiB (sorting, grouping, DISTINCT)",
			     RW_SQL_MEMORY_MAX / (1024u * 1024u));
	case SQLITE_TOOBIG:
		return failf(q, -E2BIG, "%s: values are limited to %u MiB", sqlite3_errmsg(q->db),
			     RW_SQL_VALUE_MAX / (1024u * 1024u));
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return failf(q, -EBUSY, "%s: the database is locked: %s", q->path, sqlite3_errmsg(q->db));
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return failf(q, -EBADMSG, "%s: %s", q->path, sqlite3_errmsg(q->db));
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR: {
		int e = store_system_errno(q->db);
		return failf(q, e > 0 ? -e : -EIO, "%s: %s%s%s", q->path, sqlite3_errmsg(q->db), e > 0 ? ": " : "",
			     e > 0 ? strerror(e) : "");
	}
	case SQLITE_READONLY:
		/* a hot journal or a WAL that needs recovery, which a reader
		 * may not do: the daemon does when it starts */
		return failf(q, -EIO, "%s: %s", q->path, sqlite3_errmsg(q->db));
	case SQLITE_ERROR:
	case SQLITE_RANGE:
	case SQLITE_MISMATCH:
	case SQLITE_CONSTRAINT:
		return failf(q, -EINVAL, "%s", sqlite3_errmsg(q->db));
	default:
		return failf(q, -EIO, "%s", sqlite3_errmsg(q->db));
	}
}

/* Compiles sql, which must be exactly one statement that only reads.
 * Returns 0 with *ret, or a negative errno with the message set. */
static int prepare(struct query *q, const char *sql, sqlite3_stmt **ret)
{
	sqlite3_stmt *st = NULL;
	const char *start = skip_nothing(sql), *tail = NULL, *rest;
	int rc;

	if (!*start)
		return failf(q, -ENODATA, "no statement: the query is empty");
	clock_start(q);
	rc = sqlite3_prepare_v3(q->db, start, -1, 0, &st, &tail);
	clock_stop(q);
	if (rc != SQLITE_OK)
		return sqlite_failure(q, rc);
	if (!st)
		return failf(q, -ENODATA, "no statement: the query is empty");
	rest = tail ? skip_nothing(tail) : "";
	if (*rest) {
		sqlite3_finalize(st);
		return failf(q, -EPERM, "refused: one statement only; after the first comes \"%.40s%s\"", rest,
			     strlen(rest) > 40 ? "..." : "");
	}
	/* VACUUM, and whatever the authorizer did not foresee */
	if (!sqlite3_stmt_readonly(st)) {
		sqlite3_finalize(st);
		return failf(q, -EPERM, "refused: the statement is not read-only (VACUUM writes a database file): "
			     "ramwatch sql only reads");
	}
	if (sqlite3_bind_parameter_count(st) > 0) {
		const char *p = sqlite3_bind_parameter_name(st, 1);
		int r = failf(q, -EINVAL,
			      "the query has parameters (%s), which ramwatch sql cannot give values: write the values "
			      "into the query (a Grafana query's $__from and $__to are unix milliseconds)",
			      p ? p : "?");
		sqlite3_finalize(st);
		return r;
	}
	*ret = st;
	return 0;
}

/* Reads the current row into values, returning its size as max_bytes
 * counts it, or a negative errno. */
static int64_t read_row(struct query *q, sqlite3_stmt *st, size_t n, struct query_value *values)
{
	int64_t size = 0;

	for (size_t i = 0; i < n; i++) {
		struct query_value *v = &values[i];
		int c = (int)i;

		*v = (struct query_value){ .type = QUERY_NULL };
		switch (sqlite3_column_type(st, c)) {
		case SQLITE_INTEGER:
			v->type = QUERY_INTEGER;
			v->integer = sqlite3_column_int64(st, c);
			break;
		case SQLITE_FLOAT:
			v->type = QUERY_REAL;
			v->real = sqlite3_column_double(st, c);
			break;
		case SQLITE_TEXT:
			v->type = QUERY_TEXT;
			v->data = sqlite3_column_text(st, c); /* before _bytes: no conversion after */
			v->size = (size_t)sqlite3_column_bytes(st, c);
			break;
		case SQLITE_BLOB:
			v->type = QUERY_BLOB;
			v->data = sqlite3_column_blob(st, c);
			v->size = (size_t)sqlite3_column_bytes(st, c);
			break;
		default:
			break;
		}
		if (!v->data && v->size > 0)
			return sqlite_failure(q, SQLITE_NOMEM);
		if (!v->data && v->type == QUERY_TEXT)
			v->data = "";
		if (v->size == 0 && v->type == QUERY_BLOB)
			v->data = NULL;
		size += v->type == QUERY_TEXT || v->type == QUERY_BLOB ? (int64_t)v->size : 8;
	}
	return size;
}

static int run(struct query *q, const struct query_options *o, sqlite3_stmt *st, const struct query_callbacks *cb,
	       void *userdata, struct query_result *res)
{
	uint64_t max_rows = o->max_rows ? o->max_rows : RW_SQL_ROWS_DEFAULT;
	uint64_t max_bytes = o->max_bytes ? o->max_bytes : RW_SQL_BYTES_DEFAULT;
	size_t n = (size_t)sqlite3_column_count(st);
	_cleanup_free_ struct query_value *values = calloc(n ? n : 1, sizeof(*values));
	_cleanup_free_ char **names = calloc(n ? n : 1, sizeof(*names));
	int r = 0;

	if (!values || !names)
		return failf(q, -ENOMEM, "out of memory");
	/* copies: a statement SQLite compiles again (the daemon changed the
	 * schema) lets go of its old names */
	for (size_t i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, (int)i);
		names[i] = strdup(name ? name : "?");
		if (!names[i]) {
			r = failf(q, -ENOMEM, "out of memory");
			goto out;
		}
	}
	if (cb->columns && (r = cb->columns(userdata, n, (const char *const *)names)) < 0)
		goto out;

	for (;;) {
		int64_t size;
		int rc;

		clock_start(q);
		rc = sqlite3_step(st);
		clock_stop(q);
		if (rc == SQLITE_DONE)
			break;
		if (rc != SQLITE_ROW) {
			r = sqlite_failure(q, rc);
			goto out;
		}
		if ((size_t)sqlite3_data_count(st) != n) {
			r = failf(q, -EAGAIN, "the database's schema changed while the query ran; run it again");
			goto out;
		}
		if (res->rows >= max_rows) {
			res->stop = QUERY_STOPPED_ROWS;
			break;
		}
		size = read_row(q, st, n, values);
		if (size < 0) {
			r = (int)size;
			goto out;
		}
		if (res->bytes + (uint64_t)size > max_bytes) {
			res->stop = QUERY_STOPPED_BYTES;
			break;
		}
		if (cb->row && (r = cb->row(userdata, n, values)) < 0)
			goto out;
		res->rows++;
		res->bytes += (uint64_t)size;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	return r < 0 ? r : 0;
}

int query_run(const struct query_options *o, const char *sql, const struct query_callbacks *cb, void *userdata,
	      struct query_result *ret, struct error *err)
{
	struct query q = { .path = o ? o->path : NULL, .err = err };
	struct query_result res = { 0 };
	sqlite3_stmt *st = NULL;
	sqlite3_int64 heap_limit;
	size_t len;
	int r;

	error_clear(err);
	if (!o || !sql || !cb)
		return failf(&q, -EINVAL, "no query");
	len = strlen(sql);
	if (len > RW_SQL_TEXT_MAX)
		return failf(&q, -E2BIG, "the query is %zu bytes long; at most %u are allowed", len, RW_SQL_TEXT_MAX);
	q.limit_us = (o->timeout_ms ? o->timeout_ms : RW_SQL_TIMEOUT_DEFAULT_MS) * 1000u;

	r = check_file(&q, o->path);
	if (r < 0)
		return r;
	/* Process-wide; restored below.  What SQLite already holds counts. */
	heap_limit = sqlite3_hard_heap_limit64(RW_SQL_MEMORY_MAX);
	r = connect_readonly(&q);
	if (r >= 0)
		r = prepare(&q, sql, &st);
	if (r >= 0)
		r = run(&q, o, st, cb, userdata, &res);
	sqlite3_finalize(st);
	sqlite3_close(q.db);
	sqlite3_hard_heap_limit64(heap_limit);
	if (ret)
		*ret = res;
	return r;
}
