/* Salvage: what can still be read of a damaged database, copied into the
 * new one that replaces it (store.h, store_salvage).
 *
 * The workload: once, when the daemon found its database damaged and
 * moved it aside; a few thousand processes at most (MaxProcesses and those
 * that exited within Retention).  What is worth keeping is what a person
 * asks first after the swap: which processes were seen and what the last
 * census of each found.  The timelines (samples, system rows) are left in
 * the damaged file, where `ramwatch sql --db` or sqlite3 can still read
 * what is readable of them.
 *
 * The damaged file is attached read-only (a URI with mode=ro) to a second
 * connection of the new database, so nothing of the copy can write into
 * it.  Damage shows as SQLITE_CORRUPT (or NOTADB) from the statement that
 * reads a bad page: that row is skipped and counted, and the copy goes on
 * with the next.  Each process is copied in a transaction of its own (see
 * copy_process); any other failure is the new file's (a full disk) and
 * stops the copy there. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

/* sqlite3_open_v2 with SQLITE_OPEN_URI: the path percent-encoded after
 * "file:", so that '?', '#' and '%' in it are no part of the URI's syntax
 * (https://sqlite.org/uri.html).  Returns 0 or -ENAMETOOLONG. */
static int uri_of(const char *path, const char *query, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	if (size < 6)
		return -ENAMETOOLONG;
	memcpy(buf, "file:", 5);
	n = 5;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
			     strchr("/-._~", *p);
		if (n + 4 >= size)
			return -ENAMETOOLONG;
		if (plain) {
			buf[n++] = (char)*p;
		} else {
			buf[n++] = '%';
			buf[n++] = hex[*p >> 4];
			buf[n++] = hex[*p & 15];
		}
	}
	if (n + strlen(query) + 1 > size)
		return -ENAMETOOLONG;
	strcpy(buf + n, query);
	return 0;
}

struct salvage {
	sqlite3 *db;
	struct store *s; /* for its messages */
};

/* Runs sql with ?1 bound to id.  Returns 0, -EUCLEAN when the damaged
 * file could not be read there, or another negative errno. */
static int run_with_id(struct salvage *sv, const char *sql, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(sv->db, sql, -1, &st, NULL);

	if (rc == SQLITE_OK && (rc = sqlite3_bind_int64(st, 1, id)) == SQLITE_OK)
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_errno(sv->db, rc);
}

/* The one integer sql gives with ?1 bound to id: 1 with *ret, 0 for none
 * (or NULL), or a negative errno as run_with_id. */
static int int_with_id(struct salvage *sv, const char *sql, int64_t id, int64_t *ret)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(sv->db, sql, -1, &st, NULL), found = 0;

	if (rc == SQLITE_OK && (rc = sqlite3_bind_int64(st, 1, id)) == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			*ret = sqlite3_column_int64(st, 0);
			found = 1;
		}
		if (rc == SQLITE_ROW)
			rc = SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? found : store_errno(sv->db, rc);
}

static int exec(struct salvage *sv, const char *sql)
{
	int rc = sqlite3_exec(sv->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_errno(sv->db, rc);
}

/* The ids of the damaged file's processes, as far as the table can be
 * read.  Returns 0 with *ret (free()) and *ret_n, *ret_unreadable when the
 * list ended at damage; or -ENOMEM. */
static int process_ids(struct salvage *sv, int64_t **ret, size_t *ret_n, bool *ret_unreadable)
{
	sqlite3_stmt *st = NULL;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc = sqlite3_prepare_v2(sv->db, "SELECT id FROM damaged.processes ORDER BY id", -1, &st, NULL);

	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			int64_t *more = realloc(ids, (cap = cap ? 2 * cap : 256) * sizeof(*ids));
			if (!more) {
				sqlite3_finalize(st);
				free(ids);
				return -ENOMEM;
			}
			ids = more;
		}
		ids[n++] = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	*ret_unreadable = rc != SQLITE_DONE;
	*ret = ids;
	*ret_n = n;
	return 0;
}

/* A census and what hangs on it.  Paths and GPUs first: the rows that
 * name them need them.  The census is copied whole, as a key: its rows
 * are read through the views, which give a delta its key's rows too, so
 * the key need not be copied (its foreign key is checked at the commit,
 * after base is cleared). */
static const char *const census_copy[] = {
	"INSERT INTO main.censuses SELECT * FROM damaged.censuses WHERE id = ?1",
	"UPDATE main.censuses SET base = NULL WHERE id = ?1",
	"INSERT OR IGNORE INTO main.paths SELECT * FROM damaged.paths WHERE id IN "
	"(SELECT path_id FROM damaged.census_regions WHERE census_id = ?1 AND path_id IS NOT NULL "
	"UNION SELECT path_id FROM damaged.census_files WHERE census_id = ?1)",
	"INSERT OR IGNORE INTO main.gpus SELECT * FROM damaged.gpus WHERE id IN "
	"(SELECT gpu_id FROM damaged.census_gpu WHERE census_id = ?1)",
	/* by name: a counter a later schema adds per class (census-counters.h)
	 * comes after gone in the table and before it in the view */
	"INSERT INTO main.census_class_rows (census_id, class" CENSUS_SQL_CLASS_NAMES ")"
	" SELECT census_id, class" CENSUS_SQL_CLASS_NAMES " FROM damaged.census_classes WHERE census_id = ?1",
	"INSERT INTO main.census_region_rows SELECT *, 0 FROM damaged.census_regions WHERE census_id = ?1",
	"INSERT INTO main.census_file_rows SELECT *, 0 FROM damaged.census_files WHERE census_id = ?1",
	"INSERT INTO main.census_gpu_rows SELECT *, 0 FROM damaged.census_gpu WHERE census_id = ?1",
};

/* Copies census_id and what hangs on it.  Returns as copy_last_census. */
static int copy_census(struct salvage *sv, int64_t census_id)
{
	int r = 1;

	for (size_t i = 0; r > 0 && i < ELEMENTSOF(census_copy); i++)
		if ((r = run_with_id(sv, census_copy[i], census_id)) == 0)
			r = 1;
	return r;
}

/* Copies the last census of process id, inside the caller's transaction,
 * and first the census it repeats when it is a repeat (whose content that
 * one holds).  Returns 1 when copied, 0 when it has none, -EUCLEAN when it
 * could not be read (the caller rolls back), or another negative errno. */
static int copy_last_census(struct salvage *sv, int64_t process_id)
{
	int64_t census_id = 0, repeats = 0;
	int r = int_with_id(sv, "SELECT max(id) FROM damaged.censuses WHERE process_id = ?1", process_id, &census_id);

	if (r > 0)
		r = int_with_id(sv, "SELECT coalesce(repeats, 0) FROM damaged.censuses WHERE id = ?1", census_id,
				&repeats);
	if (r > 0 && repeats > 0)
		r = copy_census(sv, repeats);
	if (r > 0)
		r = copy_census(sv, census_id);
	return r;
}

static void rollback(struct salvage *sv)
{
	if (!sqlite3_get_autocommit(sv->db))
		(void)sqlite3_exec(sv->db, "ROLLBACK", NULL, NULL, NULL);
}

/* One process, with its last census when that can be read, in a
 * transaction of its own: after SQLITE_CORRUPT the damaged file's pager
 * stays in its error state until the transaction ends, so a damaged row
 * must not share one with the rows that come after it.  Returns 0 or a
 * negative errno of the new file. */
static int copy_process(struct salvage *sv, int64_t id, bool with_census, struct store_salvage *ret)
{
	static const char put[] = "INSERT INTO main.processes SELECT * FROM damaged.processes WHERE id = ?1";
	int r = exec(sv, "BEGIN IMMEDIATE"), census = 0;

	if (r >= 0)
		r = exec(sv, "PRAGMA defer_foreign_keys = ON");
	if (r >= 0)
		r = run_with_id(sv, put, id);
	if (r >= 0 && with_census && (census = copy_last_census(sv, id)) == -EUCLEAN) {
		/* the process alone, then */
		rollback(sv);
		ret->skipped_censuses++;
		return copy_process(sv, id, false, ret);
	}
	if (r >= 0 && census < 0)
		r = census;
	if (r >= 0)
		r = exec(sv, "COMMIT");
	if (r < 0) {
		rollback(sv);
		if (r != -EUCLEAN)
			return r;
		ret->skipped_processes++;
		return 0;
	}
	ret->processes++;
	ret->censuses += (uint64_t)census;
	return 0;
}

static int copy(struct salvage *sv, struct store_salvage *ret)
{
	_cleanup_free_ int64_t *ids = NULL;
	size_t n = 0;
	int r;

	r = process_ids(sv, &ids, &n, &ret->unreadable);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = copy_process(sv, ids[i], true, ret);
	return r;
}

int store_salvage(struct store *s, const char *damaged_path, struct store_salvage *ret)
{
	struct salvage sv = { .s = s };
	char main_uri[4200], damaged_uri[4200];
	sqlite3_stmt *st = NULL;
	int64_t version = -1;
	int rc, r;

	*ret = (struct store_salvage){ 0 };
	if (s->read_only)
		return store_failf(s, -EROFS, "opened read-only: no writes");
	if (uri_of(s->path, "", main_uri, sizeof(main_uri)) < 0 ||
	    uri_of(damaged_path, "?mode=ro", damaged_uri, sizeof(damaged_uri)) < 0)
		return store_failf(s, -ENAMETOOLONG, "salvage: a path too long");

	rc = sqlite3_open_v2(main_uri, &sv.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL);
	if (rc != SQLITE_OK) {
		r = store_fail(s, rc, "salvage: opening the new database");
		sqlite3_close(sv.db);
		return r;
	}
	sqlite3_extended_result_codes(sv.db, 1);
	sqlite3_busy_timeout(sv.db, 2000);

	rc = sqlite3_prepare_v2(sv.db, "ATTACH ?1 AS damaged", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_bind_text(st, 1, damaged_uri, -1, SQLITE_STATIC)) == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(ret->why, sizeof(ret->why), "it cannot be opened: %s", sqlite3_errmsg(sv.db));
		sqlite3_close(sv.db);
		return 0;
	}
	rc = sqlite3_prepare_v2(sv.db, "PRAGMA damaged.user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (version != STORE_SCHEMA_VERSION) {
		if (version < 0)
			snprintf(ret->why, sizeof(ret->why), "its header cannot be read");
		else
			snprintf(ret->why, sizeof(ret->why), "its schema version is %lld, not %d", (long long)version,
				 STORE_SCHEMA_VERSION);
		sqlite3_close(sv.db);
		return 0;
	}

	r = copy(&sv, ret);
	if (r < 0) {
		/* what was copied stays: whole processes and censuses */
		error_set(&s->error, r, "%s: salvage: %s", s->path, sqlite3_errmsg(sv.db));
		snprintf(ret->why, sizeof(ret->why), "the new database would not take more");
	}
	sqlite3_close(sv.db);
	return r;
}
