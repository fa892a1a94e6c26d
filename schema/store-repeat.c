/* Writing a repeat: a census that found nothing changed since a full one
 * of the same process (ramwatch-schema(7), REPEATS).  Its row copies the
 * repeated census's columns but for its own time, trigger and cost, and
 * names it in repeats; nothing else is written, since its classes,
 * regions, files and GPU memory are the repeated census's.
 *
 * The copied columns are read from the table itself when the statement is
 * first prepared, so a column a later migration adds to censuses (a total
 * of the census) is copied as well without this file knowing it. */
#include <errno.h>
#include <string.h>

#include "store-internal.h"

/* The columns a repeat has of its own: everything else is copied.  Of
 * its cost, what the cheap check took; it read no thread, stack pointer
 * or page table, so those figures stay NULL. */
static const char *const own[] = {
	"id", "process_id", "time", "trigger", "status", "message", "wall_us", "cpu_us", "bytes_read", "repeats",
	"base", "threads", "stack_pointers", "evidence_batches", "pages_looked_up",
};

static bool is_own(const char *name)
{
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(own[i], name) == 0)
			return true;
	return false;
}

/* The INSERT of a repeat, newly allocated with sqlite3_malloc: the copied
 * columns listed twice, "a, b" into "x.a, x.b".  Returns 0 or a negative
 * errno. */
static int repeat_sql(struct store *s, char **ret)
{
	sqlite3_str *into = sqlite3_str_new(s->db), *from = sqlite3_str_new(s->db);
	sqlite3_stmt *st = NULL;
	int rc, r = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT name FROM pragma_table_info('censuses') ORDER BY cid", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (name && !is_own(name)) {
			sqlite3_str_appendf(into, ", \"%w\"", name);
			sqlite3_str_appendf(from, ", x.\"%w\"", name);
		}
		rc = SQLITE_OK;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	if (rc != SQLITE_OK)
		r = store_fail(s, rc, "reading the census table's columns");
	sqlite3_finalize(st);
	char *a = sqlite3_str_finish(into), *b = sqlite3_str_finish(from);
	if (r >= 0 && (!a || !b))
		r = -ENOMEM;
	if (r >= 0) {
		/* the census repeated: a full ok one of the process at that
		 * time (the daemon's clock gives each census its own time) */
		*ret = sqlite3_mprintf("INSERT INTO censuses (process_id, time, trigger, status, wall_us, cpu_us,"
				       " bytes_read, repeats%s)"
				       " SELECT ?1, ?2, ?3, 'ok', ?4, ?5, ?6, x.id%s FROM censuses x"
				       " WHERE x.process_id = ?1 AND x.time = ?7 AND x.status = 'ok' AND x.repeats IS NULL"
				       " ORDER BY x.id DESC LIMIT 1",
				       a, b);
		if (!*ret)
			r = -ENOMEM;
	}
	sqlite3_free(a);
	sqlite3_free(b);
	return r;
}

int store_put_repeat(struct store *s, int64_t process_id, const struct store_census *m, int64_t *ret_id)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt_built(s, STMT_REPEAT_PUT, repeat_sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, m->time);
	rc |= store_bind_text(st, 3, store_trigger_name(m->trigger));
	rc |= store_bind_opt(st, 4, m->wall_us);
	rc |= store_bind_opt(st, 5, m->cpu_us);
	rc |= store_bind_opt(st, 6, m->bytes_read);
	rc |= sqlite3_bind_int64(st, 7, m->repeats_time);
	r = store_bound_run(s, st, rc, "census");
	if (r < 0)
		return r;
	if (sqlite3_changes(s->db) == 0)
		return store_failf(s, -EINVAL, "census: the census it repeats (process %lld, at %lld) is not in the store",
				   (long long)process_id, (long long)m->repeats_time);
	if (ret_id)
		*ret_id = sqlite3_last_insert_rowid(s->db);
	return 0;
}
