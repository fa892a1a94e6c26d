/* The "events" answer: the region events of one instance (what appeared,
 * disappeared, grew or shrank between two censuses), oldest first, a page
 * at a time.  Events of one census share its time, so the cursor names
 * the last event by its time and row id, and the next page starts right
 * after it.  The walk is the index region_events_by_process (process_id,
 * time, and the row id every index ends with). */
#include <errno.h>

#include "limits.h"
#include "store-read-internal.h"

#define CURSOR_EVENTS 'e'

/* The events of one instance in time order, a page at a time: rows
 * after the cursor (time, row id), one more than the page to know whether
 * another follows. */
static const char events_sql[] =
	"SELECT e.rowid, e.time, e.census_id, e.kind, e.start, e.class, p.path, e.inode, e.size,"
	"       e.size_before, e.private, e.private_before, e.resident, e.resident_before"
	" FROM region_events e LEFT JOIN paths p ON p.id = e.path_id"
	" WHERE e.process_id = ?1 AND e.time >= ?2 AND e.time <= ?3 AND (e.time > ?4 OR e.rowid > ?5)"
	" ORDER BY e.time, e.rowid LIMIT ?6";
/* Where events_columns has what the cursor names. */
enum { EV_ROWID, EV_TIME };
static const struct read_column events_columns[] = {
	[EV_ROWID] = { "rowid", READ_KEY },
	[EV_TIME] = { "time", READ_INT },
	{ "census_id", READ_INT },
	{ "kind", READ_STR },
	{ "start", READ_ADDRESS },
	{ "class", READ_STR },
	{ "path", READ_STR },
	{ "inode", READ_INODE },
	{ "size", READ_INT },
	{ "size_before", READ_INT },
	{ "private", READ_INT },
	{ "private_before", READ_INT },
	{ "resident", READ_INT },
	{ "resident_before", READ_INT },
};
static const struct read_query events_query = READ_QUERY(RS_EVENTS, events_sql, events_columns);

/* The cursor of the last event given: its time and row id. */
static void seen(sqlite3_stmt *st, void *userdata)
{
	int64_t *last = userdata;

	last[0] = sqlite3_column_int64(st, EV_TIME);
	last[1] = sqlite3_column_int64(st, EV_ROWID);
}

/* A page of events of process id in [since, until] after the cursor
 * (time, row id); *ret_next the cursor of the next page or null. */
static int page(struct store_reader *r, int64_t id, int64_t since, int64_t until, unsigned limit,
		const int64_t *after, json_t *events, json_t **ret_next)
{
	sqlite3_stmt *st = NULL;
	int64_t last[2] = { 0, 0 };
	int e, rc;

	e = read_query_prepare(r, &events_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, id);
	rc |= sqlite3_bind_int64(st, 2, after && after[0] > since ? after[0] : since);
	rc |= sqlite3_bind_int64(st, 3, until);
	rc |= sqlite3_bind_int64(st, 4, after ? after[0] : READ_TIME_MIN);
	rc |= sqlite3_bind_int64(st, 5, after ? after[1] : 0);
	rc |= sqlite3_bind_int64(st, 6, (int64_t)limit + 1);
	e = read_bound(r, st, rc, "reading region events");
	if (e >= 0)
		e = read_rows(r, st, &events_query, limit, events, seen, last, "reading region events");
	if (e < 0)
		return e;
	*ret_next = e > 0 ? read_cursor_json(CURSOR_EVENTS, last, 2) : json_null();
	return *ret_next ? 0 : -ENOMEM;
}

static int events(struct store_reader *r, const struct store_select *sel, int64_t since, int64_t until,
		  unsigned limit, const char *cursor, json_t **ret)
{
	struct read_process *p = NULL;
	json_t *answer = NULL, *list = NULL, *next = NULL;
	int64_t after[2];
	size_t n = 0;
	int e;

	if (since > until)
		return read_failf(r, -EINVAL, "since (%lld) is after until (%lld)", (long long)since,
				  (long long)until);
	if (cursor && read_cursor_parse(cursor, CURSOR_EVENTS, after, 2) < 0)
		return read_failf(r, -EINVAL, "cursor: \"%s\" is not the next page of this query", cursor);
	if (limit == 0)
		limit = RW_ANSWER_ROWS_DEFAULT;
	if (limit > RW_ANSWER_ROWS_MAX)
		limit = RW_ANSWER_ROWS_MAX;

	e = read_select(r, sel, true, &p, &n);
	if (e < 0)
		return e;
	list = json_array();
	e = list ? page(r, p->id, read_time_clamp(since), read_time_clamp(until), limit, cursor ? after : NULL, list,
			&next)
		 : -ENOMEM;
	if (e >= 0) {
		answer = json_object();
		e = answer ? 0 : -ENOMEM;
		e |= read_set(answer, "instance", read_instance_json(p));
		e |= read_set(answer, "events", json_incref(list));
		e |= read_set(answer, "next", json_incref(next));
	}
	read_processes_free(p, n);
	json_decref(list);
	json_decref(next);
	if (e < 0) {
		json_decref(answer);
		return e;
	}
	*ret = answer;
	return 0;
}

int store_read_events(struct store_reader *r, const struct store_select *sel, int64_t since, int64_t until,
		      unsigned limit, const char *cursor, json_t **ret, struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = events(r, sel, since, until, limit, cursor, ret);
	return read_end(r, e, err);
}
