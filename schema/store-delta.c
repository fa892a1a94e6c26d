/* Storing a census as the changes from a key census of the same process
 * (ramwatch-schema(7), DELTAS).  The census is first written whole, as
 * every census was before schema 9; then, when the process has a key with
 * room for one more delta and the changes are few enough, its rows equal
 * to the key's go and each row of the key it lacks gets a gone row.  All
 * of it runs in SQL inside the caller's transaction, against rows SQLite
 * has just cached, so the census costs a few statements more and no read
 * of the key into memory.
 *
 * The columns compared are read from the tables themselves when the
 * statements are first prepared, as store-repeat.c does, so a column a
 * later migration adds is compared as well. */
#include <errno.h>
#include <string.h>

#include "limits.h"
#include "store-internal.h"

/* The rows tables of a census and the column that tells a row from the
 * others of the same census. */
static const struct delta_table {
	const char *name;
	const char *key;
} tables[] = {
	{ "census_class_rows", "class" },
	{ "census_region_rows", "rank" },
	{ "census_file_rows", "path_id" },
	{ "census_gpu_rows", "gpu_id" },
};
_Static_assert(sizeof(tables) / sizeof(tables[0]) == STMT_DELTA_DROP_LAST - STMT_DELTA_DROP + 1, "a statement per table");
_Static_assert(sizeof(tables) / sizeof(tables[0]) == STMT_DELTA_MARK_LAST - STMT_DELTA_MARK + 1, "a statement per table");

/* A table's value columns (all but census_id and gone) as "a, b" and
 * "k.a, k.b", and "k.a IS t.a AND ..." comparing row k with row t; newly
 * allocated with sqlite3_malloc.  Returns 0 or a negative errno. */
static int columns(struct store *s, const char *table, char **ret_list, char **ret_k, char **ret_equal)
{
	sqlite3_str *list = sqlite3_str_new(s->db), *k = sqlite3_str_new(s->db), *eq = sqlite3_str_new(s->db);
	sqlite3_stmt *st = NULL;
	const char *sep = "";
	int rc, r = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT name FROM pragma_table_info(?1) ORDER BY cid", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		rc = SQLITE_OK;
		if (!name || strcmp(name, "census_id") == 0 || strcmp(name, "gone") == 0)
			continue;
		sqlite3_str_appendf(list, "%s\"%w\"", sep, name);
		sqlite3_str_appendf(k, "%sk.\"%w\"", sep, name);
		sqlite3_str_appendf(eq, "%sk.\"%w\" IS t.\"%w\"", *sep ? " AND " : "", name, name);
		sep = ", ";
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	if (rc != SQLITE_OK)
		r = store_fail(s, rc, "reading a census table's columns");
	sqlite3_finalize(st);
	*ret_list = sqlite3_str_finish(list);
	*ret_k = sqlite3_str_finish(k);
	*ret_equal = sqlite3_str_finish(eq);
	if (r >= 0 && (!*ret_list || !*ret_k || !*ret_equal))
		r = -ENOMEM;
	if (r >= 0 && !**ret_list)
		r = store_failf(s, -EINVAL, "census table %s has no columns", table);
	return r;
}

/* Prepares, once, the statements of table i: the gone rows of census ?1
 * for the rows of key ?2 it lacks, and the deletion of the rows of ?1
 * equal to the key's. */
static int prepare_table(struct store *s, size_t i)
{
	const struct delta_table *t = &tables[i];
	char *list = NULL, *k = NULL, *equal = NULL, *mark = NULL, *drop = NULL;
	sqlite3_stmt *st;
	int r;

	if (s->stmt[STMT_DELTA_MARK + i] && s->stmt[STMT_DELTA_DROP + i])
		return 0;
	r = columns(s, t->name, &list, &k, &equal);
	if (r >= 0) {
		mark = sqlite3_mprintf("INSERT INTO \"%w\" (census_id, %s, gone) SELECT ?1, %s, 1 FROM \"%w\" k"
				       " WHERE k.census_id = ?2 AND k.gone = 0 AND NOT EXISTS"
				       " (SELECT 1 FROM \"%w\" x WHERE x.census_id = ?1 AND x.\"%w\" = k.\"%w\")",
				       t->name, list, k, t->name, t->name, t->key, t->key);
		drop = sqlite3_mprintf("DELETE FROM \"%w\" AS t WHERE t.census_id = ?1 AND t.gone = 0 AND EXISTS"
				       " (SELECT 1 FROM \"%w\" k WHERE k.census_id = ?2 AND k.gone = 0 AND %s)",
				       t->name, t->name, equal);
		r = mark && drop ? 0 : -ENOMEM;
	}
	if (r >= 0)
		r = store_stmt(s, (enum store_stmt)(STMT_DELTA_MARK + i), mark, &st);
	if (r >= 0)
		r = store_stmt(s, (enum store_stmt)(STMT_DELTA_DROP + i), drop, &st);
	sqlite3_free(list);
	sqlite3_free(k);
	sqlite3_free(equal);
	sqlite3_free(mark);
	sqlite3_free(drop);
	return r;
}

/* The size statement: ?1's rows, how many of them differ from key ?2's
 * plus how many of the key's it lacks, and the deltas the key has. */
static int size_sql(struct store *s, char **ret)
{
	sqlite3_str *whole = sqlite3_str_new(s->db), *changed = sqlite3_str_new(s->db);
	int r = 0;

	for (size_t i = 0; r >= 0 && i < sizeof(tables) / sizeof(tables[0]); i++) {
		const struct delta_table *t = &tables[i];
		char *list = NULL, *k = NULL, *equal = NULL;

		r = columns(s, t->name, &list, &k, &equal);
		if (r >= 0) {
			sqlite3_str_appendf(whole, "%s(SELECT count(*) FROM \"%w\" WHERE census_id = ?1)", i ? " + " : "",
					    t->name);
			sqlite3_str_appendf(changed,
					    "%s(SELECT count(*) FROM \"%w\" t WHERE t.census_id = ?1 AND NOT EXISTS"
					    " (SELECT 1 FROM \"%w\" k WHERE k.census_id = ?2 AND k.gone = 0 AND %s))"
					    " + (SELECT count(*) FROM \"%w\" k WHERE k.census_id = ?2 AND k.gone = 0"
					    " AND NOT EXISTS (SELECT 1 FROM \"%w\" x WHERE x.census_id = ?1"
					    " AND x.\"%w\" = k.\"%w\"))",
					    i ? " + " : "", t->name, t->name, equal, t->name, t->name, t->key, t->key);
		}
		sqlite3_free(list);
		sqlite3_free(k);
		sqlite3_free(equal);
	}
	char *a = sqlite3_str_finish(whole), *b = sqlite3_str_finish(changed);
	if (r >= 0 && (!a || !b))
		r = -ENOMEM;
	if (r >= 0) {
		*ret = sqlite3_mprintf("SELECT %s, %s, (SELECT count(*) FROM censuses WHERE base = ?2)", a, b);
		if (!*ret)
			r = -ENOMEM;
	}
	sqlite3_free(a);
	sqlite3_free(b);
	return r;
}

/* Reads the size statement for census_id against key.  Returns 0 with
 * *ret_whole, *ret_changed and *ret_deltas, or a negative errno. */
static int delta_size(struct store *s, int64_t census_id, int64_t key, int64_t *ret_whole, int64_t *ret_changed,
		      int64_t *ret_deltas)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt_built(s, STMT_DELTA_SIZE, size_sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, census_id);
	rc |= sqlite3_bind_int64(st, 2, key);
	r = store_bound(s, st, rc, "census delta");
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		r = store_fail(s, rc, "census delta");
		store_stmt_done(st);
		return r;
	}
	*ret_whole = sqlite3_column_int64(st, 0);
	*ret_changed = sqlite3_column_int64(st, 1);
	*ret_deltas = sqlite3_column_int64(st, 2);
	store_stmt_done(st);
	return 0;
}

/* Runs statement id bound to (census_id, key). */
static int run_pair(struct store *s, enum store_stmt id, int64_t census_id, int64_t key)
{
	sqlite3_stmt *st = s->stmt[id];
	int rc = sqlite3_bind_int64(st, 1, census_id);

	rc |= sqlite3_bind_int64(st, 2, key);
	return store_bound_run(s, st, rc, "census delta");
}

int store_delta_census(struct store *s, int64_t process_id, int64_t census_id)
{
	int64_t key = 0, whole = 0, changed = 0, deltas = 0;
	sqlite3_stmt *st;
	int r, rc;

	if (s->whole_censuses)
		return 0;
	/* the latest key of the process: an ok census of its own, no delta */
	r = store_stmt(s, STMT_DELTA_KEY,
		       "SELECT id FROM censuses WHERE process_id = ?1 AND id <> ?2 AND status = 'ok'"
		       " AND repeats IS NULL AND base IS NULL ORDER BY time DESC, id DESC LIMIT 1",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, census_id);
	r = store_bound(s, st, rc, "census delta");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "census delta", &key);
	if (r <= 0)
		return r; /* the first census of the process is a key */

	r = delta_size(s, census_id, key, &whole, &changed, &deltas);
	if (r < 0)
		return r;
	/* a key of its own: the changes would be most of it, or the key has
	 * as many deltas as re-keying may have to take again */
	if (deltas >= RW_CENSUS_DELTAS_MAX || changed * 100 > whole * (int64_t)RW_CENSUS_DELTA_PERCENT)
		return 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		r = prepare_table(s, i);
		/* gone rows first: they look for the rows the drop takes */
		if (r >= 0)
			r = run_pair(s, (enum store_stmt)(STMT_DELTA_MARK + i), census_id, key);
		if (r >= 0)
			r = run_pair(s, (enum store_stmt)(STMT_DELTA_DROP + i), census_id, key);
		if (r < 0)
			return r;
	}
	r = store_stmt(s, STMT_DELTA_BASE, "UPDATE censuses SET base = ?2 WHERE id = ?1", &st);
	if (r < 0)
		return r;
	return run_pair(s, STMT_DELTA_BASE, census_id, key);
}
