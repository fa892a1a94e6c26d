/* The store's life: opening a database (creating and migrating it for the
 * daemon, checking its version for readers), transactions, size and health.
 *
 * The workload: one writer, the daemon, committing a transaction of a few
 * hundred rows every StoreInterval and running retention now and then; any
 * number of readers (the client, Grafana) that must never block it and must
 * be able to read while the daemon is stopped.  Hence WAL mode with a WAL
 * file that stays (SQLITE_FCNTL_PERSIST_WAL), synchronous=NORMAL (a crash
 * may lose the last commit, never the database), and incremental
 * auto-vacuum so retention can give space back to the file system. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store-coalesce.h"
#include "store-internal.h"
#include "store-migrations.h"
#include "util.h"

#define BUSY_TIMEOUT_DEFAULT_MS 2000

/* "RAMW", set by migration 001: a SQLite file of another program is not
 * migrated into a ramwatch database by mistake. */
#define STORE_APPLICATION_ID 0x52414d57

/* The WAL is cut back to this after a checkpoint (PRAGMA
 * journal_size_limit); about SQLite's automatic checkpoint of 1000 pages. */
#define STORE_WAL_SIZE_LIMIT (4 * 1024 * 1024)

/* MaxDatabaseSize is kept by retention; max_page_count is the hard ceiling
 * a little above it, so that writes between two retention steps have room
 * and a runaway write fails with -ENOSPC instead of growing the file. */
#define STORE_CEILING_SLACK_MIN_PAGES 64
#define STORE_CEILING_SLACK_DIVISOR 16

/* A bounded check looks at the clock this often (virtual machine steps):
 * about a millisecond of quick_check on a page-cached file. */
#define STORE_CHECK_PROGRESS_OPS 10000

static const char *const trigger_names[_TRIGGER_MAX] = {
	[TRIGGER_FIRST] = "first",       [TRIGGER_INTERVAL] = "interval", [TRIGGER_GROWTH] = "growth",
	[TRIGGER_MARK] = "mark",         [TRIGGER_REQUEST] = "request",   [TRIGGER_LIMIT] = "limit",
};

static const char *const status_names[_CENSUS_STATUS_MAX] = {
	[CENSUS_OK] = "ok",
	[CENSUS_EXITED] = "exited",
	[CENSUS_DENIED] = "denied",
	[CENSUS_ERROR] = "error",
};

const char *store_trigger_name(enum store_trigger t)
{
	return (unsigned)t < _TRIGGER_MAX ? trigger_names[t] : NULL;
}

const char *store_census_status_name(enum census_status s)
{
	return (unsigned)s < _CENSUS_STATUS_MAX ? status_names[s] : NULL;
}

struct store *store_close(struct store *s)
{
	if (!s)
		return NULL;
	if (s->db) {
		store_rollback(s);
		for (size_t i = 0; i < _STMT_MAX; i++)
			sqlite3_finalize(s->stmt[i]);
		/* every statement is finalized, so this closes for good */
		sqlite3_close(s->db);
	}
	hashtab_done(&s->runs);
	free(s->path);
	free(s);
	return NULL;
}

DEFINE_CLEANUP(struct store *, store_close)

const char *store_error(const struct store *s)
{
	if (!s)
		return "no database";
	return error_has_message(&s->error) ? s->error.message : "no error";
}

int store_schema_version(const struct store *s)
{
	return s->version;
}

/* A one-off query of one integer (pragmas at open).  Returns 0 with *ret,
 * or a negative errno with the message set. */
static int query_int(struct store *s, const char *sql, const char *what, int64_t *ret)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*ret = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE) {
			*ret = 0;
			rc = SQLITE_OK;
		}
	}
	if (rc != SQLITE_OK) {
		int r = store_fail(s, rc, what);
		sqlite3_finalize(st);
		return r;
	}
	sqlite3_finalize(st);
	return 0;
}

static int connect(struct store *s, const struct store_options *o)
{
	int flags = s->read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	int rc = sqlite3_open_v2(s->path, &s->db, flags, NULL);

	if (rc != SQLITE_OK) {
		int r = store_errno(s->db, rc);
		const char *why = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
		/* SQLite's "unable to open database file" alone does not say
		 * whether the file is missing or forbidden: the errno does */
		if (r < 0 && r != -EIO)
			return error_set(&s->error, r, "%s: cannot open: %s (%s)", s->path, why, strerror(-r));
		return error_set(&s->error, -EIO, "%s: cannot open: %s", s->path, why);
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, o->busy_timeout_ms > 0 ? o->busy_timeout_ms : BUSY_TIMEOUT_DEFAULT_MS);
	/* Until the version is known to be ours, closing must not checkpoint
	 * a WAL into a database this program refuses to touch. */
	if (!s->read_only)
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	return 0;
}

/* Reads the version and checks that the file is a ramwatch database this
 * program may open.  Returns 0 or a negative errno with the message set. */
static int check_version(struct store *s, bool *ret_empty)
{
	int64_t version, app, objects;
	int r;

	/* The first read of the file: a file that is not SQLite fails here,
	 * before anything was written to it. */
	r = query_int(s, "PRAGMA user_version", "reading the schema version", &version);
	if (r == -EUCLEAN)
		return store_failf(s, r, "not a SQLite database, or a damaged one (%s)", sqlite3_errmsg(s->db));
	if (r < 0)
		return r;
	r = query_int(s, "PRAGMA application_id", "reading the application id", &app);
	if (r < 0)
		return r;
	r = query_int(s, "SELECT count(*) FROM sqlite_master", "reading the schema", &objects);
	if (r < 0)
		return r;

	if (version > STORE_SCHEMA_VERSION)
		return store_failf(s, -EPROTO,
				   "database schema version %lld is newer than this ramwatch knows (%d); upgrade ramwatch",
				   (long long)version, STORE_SCHEMA_VERSION);
	if (version < 0 || (version > 0 && app != STORE_APPLICATION_ID) || (version == 0 && objects > 0))
		return store_failf(s, -EBADMSG,
				   "not a ramwatch database (a SQLite database of another program: application id "
				   "0x%llx, schema version %lld)",
				   (unsigned long long)app, (long long)version);
	if (s->read_only && version < STORE_SCHEMA_VERSION) {
		if (version == 0)
			return store_failf(s, -EPROTO, "no ramwatch database yet: ramwatchd creates it when it starts");
		return store_failf(s, -EPROTO,
				   "database schema version %lld is older than this ramwatch's (%d); ramwatchd must "
				   "migrate it first (it does when it starts)",
				   (long long)version, STORE_SCHEMA_VERSION);
	}
	s->version = (int)version;
	*ret_empty = version == 0 && objects == 0;
	return 0;
}

static int set_wal_mode(struct store *s)
{
	sqlite3_stmt *st = NULL;
	const unsigned char *mode;
	int rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL), r = 0;

	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = store_fail(s, rc, "setting WAL mode");
	} else {
		/* SQLite answers with the mode it is in, which stays the old one
		 * where WAL cannot work (no shared memory: some network file
		 * systems); readers would then block the daemon. */
		mode = sqlite3_column_text(st, 0);
		if (!mode || strcasecmp((const char *)mode, "wal") != 0)
			r = store_failf(s, -EIO, "cannot use WAL mode here (journal mode stays %s)",
					mode ? (const char *)mode : "unknown");
	}
	sqlite3_finalize(st);
	return r;
}

/* The rows that refer to a row that is not there, PRAGMA foreign_key_check
 * counted over the tables that refer to table and table itself: what
 * making table again could break.  Returns 0 with *ret_n, or a negative
 * errno with the message set. */
static int count_dangling(struct store *s, const char *table, const char *what, int64_t *ret_n)
{
	/* each such table once; its rows are checked against all of its
	 * foreign keys, which is what the pragma can do */
	static const char sql[] = "SELECT count(*) FROM (SELECT DISTINCT m.name FROM sqlite_master m,"
				  " pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND (f.\"table\" = ?1 OR m.name = ?1))"
				  " t, pragma_foreign_key_check(t.name)";
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*ret_n = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK) {
		int r = store_fail(s, rc, what);
		sqlite3_finalize(st);
		return r;
	}
	sqlite3_finalize(st);
	return 0;
}

/* Runs migration m in the transaction migrate() began.  One that makes a
 * table again does it as SQLite's procedure for other changes of a table
 * says (ALTER TABLE, "Making Other Kinds Of Table Schema Changes"): with
 * foreign keys off (migrate() turned them off), and their check before it
 * commits.  A row that referred to a missing row before (written by hand
 * with foreign keys off, as the sqlite3 shell has them) is left as it is:
 * only a reference the change broke stops it. */
static int run_migration(struct store *s, const struct store_migration *m, const char *what)
{
	int64_t before = 0, after = 0;
	int r;

	if (m->rebuilds) {
		r = count_dangling(s, m->rebuilds, what, &before);
		if (r < 0)
			return r;
	}
	r = store_exec(s, m->sql, what);
	if (r < 0 || !m->rebuilds)
		return r;
	r = count_dangling(s, m->rebuilds, what, &after);
	if (r < 0)
		return r;
	if (after > before)
		return store_failf(s, -EPROTO, "%s: %lld rows refer to rows of %s that are gone (%lld before it)",
				   what, (long long)after, m->rebuilds, (long long)before);
	return 0;
}

/* Applies the migrations the database lacks, each in a transaction of its
 * own that also sets user_version, so a database is always at one version
 * of the schema and never between two. */
static int migrate(struct store *s)
{
	for (size_t i = (size_t)s->version; i < store_n_migrations; i++) {
		const struct store_migration *m = &store_migrations[i];
		char what[128], pragma[64];
		int64_t version = 0;
		int r;

		snprintf(what, sizeof(what), "migration %d (%s)", m->version, m->name);
		/* only outside a transaction does this take effect */
		if (m->rebuilds) {
			r = store_exec(s, "PRAGMA foreign_keys = OFF", what);
			if (r < 0)
				return r;
		}
		r = store_exec(s, "BEGIN IMMEDIATE", what);
		if (r >= 0) {
			/* another writer may have migrated since the version was read */
			r = query_int(s, "PRAGMA user_version", what, &version);
			if (r >= 0 && version < m->version) {
				r = run_migration(s, m, what);
				snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", m->version);
				if (r >= 0)
					r = store_exec(s, pragma, what);
			}
			if (r >= 0)
				r = store_exec(s, "COMMIT", what);
			if (r < 0 && !sqlite3_get_autocommit(s->db))
				sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		}
		/* on again whatever happened: the connection writes with them */
		if (m->rebuilds && sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK &&
		    r >= 0)
			r = store_fail(s, sqlite3_errcode(s->db), what);
		if (r < 0)
			return r;
		s->version = m->version;
	}
	return 0;
}

static int open_writer(struct store *s, const struct store_options *o)
{
	int64_t page_size, auto_vacuum;
	char sql[160];
	bool empty = false;
	int one = 1, r;

	r = check_version(s, &empty);
	if (r < 0)
		return r;
	/* before anything is written into it, migrations included */
	if (!empty && o->check_ms > 0) {
		r = store_check(s, o->check_ms);
		if (r < 0)
			return r;
	}
	/* Only possible before the first table exists. */
	if (empty) {
		r = store_exec(s, "PRAGMA auto_vacuum = INCREMENTAL", "setting auto_vacuum");
		if (r < 0)
			return r;
	}
	r = set_wal_mode(s);
	if (r < 0)
		return r;
	snprintf(sql, sizeof(sql), "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA journal_size_limit = %d",
		 STORE_WAL_SIZE_LIMIT);
	r = store_exec(s, sql, "setting up the connection");
	if (r < 0)
		return r;
	/* Without a WAL file and its index beside the database, a reader
	 * that may not write to the directory (group ramwatch) could not open
	 * it while the daemon is stopped; so they stay when the daemon closes. */
	sqlite3_file_control(s->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);

	r = migrate(s);
	if (r < 0)
		return r;
	s->sweep.due = true;
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);

	r = query_int(s, "PRAGMA page_size", "reading the page size", &page_size);
	if (r >= 0)
		r = query_int(s, "PRAGMA auto_vacuum", "reading auto_vacuum", &auto_vacuum);
	if (r < 0)
		return r;
	s->page_size = page_size > 0 ? page_size : 4096;
	s->incremental_vacuum = auto_vacuum == 2;
	r = query_int(s, "PRAGMA max_page_count", "reading max_page_count", &s->sqlite_max_pages);
	if (r < 0)
		return r;
	return o->max_size > 0 ? store_set_max_size(s, o->max_size) : 0;
}

int store_set_max_size(struct store *s, uint64_t max_size)
{
	uint64_t ps = (uint64_t)s->page_size, slack = max_size / STORE_CEILING_SLACK_DIVISOR, pages;
	int r = store_writable(s);

	if (r < 0)
		return r;
	if (slack < STORE_CEILING_SLACK_MIN_PAGES * ps)
		slack = STORE_CEILING_SLACK_MIN_PAGES * ps;
	pages = max_size > 0 ? (max_size + slack + ps - 1) / ps : 0;
	if (pages > (uint64_t)s->sqlite_max_pages)
		pages = 0; /* beyond what SQLite allows anyway */
	/* no ceiling is SQLite's own limit */
	r = store_set_max_pages(s, pages > 0 ? (int64_t)pages : s->sqlite_max_pages);
	if (r < 0)
		return r;
	s->ceiling_pages = (int64_t)pages;
	return 0;
}

static int open_reader(struct store *s)
{
	int64_t page_size;
	bool empty = false;
	int r;

	r = check_version(s, &empty);
	if (r < 0)
		return r;
	r = query_int(s, "PRAGMA page_size", "reading the page size", &page_size);
	if (r < 0)
		return r;
	s->page_size = page_size > 0 ? page_size : 4096;
	return 0;
}

int store_open(const struct store_options *o, struct store **ret, struct error *err)
{
	_cleanup_(store_closep) struct store *s = NULL;
	int r;

	if (!o || !o->path || !o->path[0])
		return error_set(err, -EINVAL, "no database path");
	s = calloc(1, sizeof(*s));
	if (s)
		s->path = strdup(o->path);
	if (!s || !s->path)
		return error_set(err, -ENOMEM, "%s: out of memory", o->path);
	s->read_only = o->read_only;
	s->coalesce = o->coalesce && !o->read_only;
	s->whole_censuses = o->whole_censuses;
	hashtab_init(&s->runs, sizeof(struct store_run));

	r = connect(s, o);
	if (r >= 0)
		r = s->read_only ? open_reader(s) : open_writer(s, o);
	if (r < 0) {
		if (err) {
			*err = s->error;
			err->code = r;
		}
		return r;
	}
	error_clear(&s->error);
	*ret = TAKE_PTR(s);
	return 0;
}

/* ------------------------------------------------------------ transactions */

int store_begin(struct store *s)
{
	sqlite3_stmt *st;
	int r;

	if (s->in_transaction || !sqlite3_get_autocommit(s->db))
		return store_failf(s, -EINVAL, "a transaction is already open");
	r = store_writable(s);
	if (r < 0)
		return r;
	/* IMMEDIATE takes the write lock now: a database another writer holds
	 * is found here, after the busy timeout, not half-way through a batch. */
	r = store_stmt(s, STMT_BEGIN, "BEGIN IMMEDIATE", &st);
	if (r < 0)
		return r;
	r = store_stmt_run(s, st, "beginning a transaction");
	if (r < 0)
		return r;
	s->in_transaction = true;
	return 0;
}

int store_commit(struct store *s)
{
	sqlite3_stmt *st;
	int r;

	if (!s->in_transaction)
		return store_failf(s, -EINVAL, "no transaction to commit");
	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_COMMIT, "COMMIT", &st);
	if (r < 0)
		return r;
	r = store_stmt_run(s, st, "committing");
	if (r < 0)
		return r;
	s->in_transaction = false;
	return 0;
}

void store_rollback(struct store *s)
{
	sqlite3_stmt *st;

	/* SQLite rolls some failed transactions back itself (SQLITE_FULL,
	 * SQLITE_IOERR, SQLITE_NOMEM may): then there is nothing left to do. */
	if (!s || !s->db)
		return;
	s->in_transaction = false;
	if (sqlite3_get_autocommit(s->db))
		return;
	if (store_stmt(s, STMT_ROLLBACK, "ROLLBACK", &st) < 0 || store_stmt_run(s, st, "rolling back") < 0)
		/* the statement could not even be prepared (no memory): the
		 * one-off form needs none of the cache */
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/* ------------------------------------------------------------ size and health */

int store_size(struct store *s, uint64_t *ret_bytes)
{
	sqlite3_stmt *st;
	int64_t pages = 0, free_pages = 0;
	int r;

	r = store_stmt(s, STMT_PAGE_COUNT, "PRAGMA page_count", &st);
	if (r >= 0)
		r = store_stmt_int(s, st, "counting pages", &pages);
	if (r >= 0)
		r = store_stmt(s, STMT_FREELIST_COUNT, "PRAGMA freelist_count", &st);
	if (r >= 0)
		r = store_stmt_int(s, st, "counting free pages", &free_pages);
	if (r < 0)
		return r;
	*ret_bytes = pages > free_pages ? (uint64_t)(pages - free_pages) * (uint64_t)s->page_size : 0;
	return 0;
}

/* The first problem quick_check tells, on one line for the log: its
 * "*** in database main ***" heading left out, lines joined by "; ". */
static void first_problem(const char *text, char *buf, size_t size)
{
	static const char heading[] = "*** in database main ***";
	size_t n = 0;

	if (!text)
		text = "?";
	if (strncmp(text, heading, sizeof(heading) - 1) == 0)
		text += sizeof(heading) - 1;
	while (*text == '\n')
		text++;
	for (; *text && n + 3 < size; text++)
		if (*text != '\n')
			buf[n++] = *text;
		else if (text[1]) {
			buf[n++] = ';';
			buf[n++] = ' ';
		}
	buf[n] = '\0';
}

/* The progress handler of a bounded check: a non-zero answer interrupts
 * the statement (SQLITE_INTERRUPT). */
static int check_past_deadline(void *userdata)
{
	return now_monotonic_us() >= *(const uint64_t *)userdata;
}

int store_check(struct store *s, unsigned max_ms)
{
	sqlite3_stmt *st = NULL;
	uint64_t start = now_monotonic_us(), deadline = start + (uint64_t)max_ms * 1000;
	int rc, r = 0, problems = 0;
	char first[256] = "";

	s->checked_whole = false;
	rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, "checking");
	/* quick_check reads every page; the handler looks at the clock every
	 * STORE_CHECK_PROGRESS_OPS virtual machine steps */
	if (max_ms > 0)
		sqlite3_progress_handler(s->db, STORE_CHECK_PROGRESS_OPS, check_past_deadline, &deadline);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(st, 0);
		if (line && strcmp(line, "ok") == 0)
			continue;
		if (problems++ == 0)
			first_problem(line, first, sizeof(first));
	}
	sqlite3_progress_handler(s->db, 0, NULL, NULL);
	s->check_us = now_monotonic_us() - start;
	if (problems > 0)
		/* what was found counts even when the bound stopped the rest */
		r = store_failf(s, -EUCLEAN, "damaged: %s%s", first, problems > 1 ? " (and more)" : "");
	else if (rc == SQLITE_INTERRUPT && max_ms > 0)
		r = 1;
	else if (rc != SQLITE_DONE)
		r = store_fail(s, rc, "checking");
	else
		s->checked_whole = true;
	sqlite3_finalize(st);
	return r;
}

bool store_checked_whole(const struct store *s, uint64_t *ret_us)
{
	if (ret_us)
		*ret_us = s->check_us;
	return s->checked_whole;
}
