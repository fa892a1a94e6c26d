/* The "cgroups" and "cgroup_history" answers: the memory cgroups the store
 * knows, each with its latest row, its headroom and the time to its limit
 * at its current growth; and the timeline of one group (or of every group
 * of a unit).
 *
 * A group's rows are in three tiers, as the fast tier's (raw, minute and
 * hour rows, store-retention.c).  Its latest row is in its finest tier
 * that has rows; a timeline gives raw rows where there are any, minute
 * rows before the first raw row, hour rows before the first minute or raw
 * row.  Every lookup is on the table's key (cgroup_id, resolution, time):
 * a few hundred groups at most, each a handful of seeks. */
#include <errno.h>
#include <string.h>

#include "limits.h"
#include "store-read-internal.h"

/* A row's columns as both answers give them; processes_private and
 * beyond_processes are nulled for a user who may see only their own
 * processes.  ?1 the group. */
#define ROW_COLUMNS                                                                                           \
	"s.time, s.resolution, s.usage, s.usage_max, s.limit_applies AS \"limit\", s.limit_own, s.high,"       \
	" s.limit_applies - s.usage AS headroom, s.swap, s.anon, s.file, s.kernel, s.shmem, s.sock, s.oom,"    \
	" s.oom_kill, s.events_high, s.events_max, s.processes, s.processes_private,"                         \
	" max(s.usage - s.processes_private, 0) AS beyond_processes"

enum { R_TIME, R_RESOLUTION, R_USAGE, R_USAGE_MAX, R_LIMIT, R_LIMIT_OWN, R_HIGH, R_HEADROOM };

static const struct read_column row_columns[] = {
	[R_TIME] = { "time", READ_INT },
	[R_RESOLUTION] = { "resolution", READ_INT },
	[R_USAGE] = { "usage", READ_INT },
	[R_USAGE_MAX] = { "usage_max", READ_INT },
	[R_LIMIT] = { "limit", READ_INT },
	[R_LIMIT_OWN] = { "limit_own", READ_INT },
	[R_HIGH] = { "high", READ_INT },
	[R_HEADROOM] = { "headroom", READ_INT },
	{ "swap", READ_INT },
	{ "anon", READ_INT },
	{ "file", READ_INT },
	{ "kernel", READ_INT },
	{ "shmem", READ_INT },
	{ "sock", READ_INT },
	{ "oom", READ_INT },
	{ "oom_kill", READ_INT },
	{ "events_high", READ_INT },
	{ "events_max", READ_INT },
	{ "processes", READ_INT },
	{ "processes_private", READ_INT },
	{ "beyond_processes", READ_INT },
};

static const struct read_column group_columns[] = {
	{ "cgroup_id", READ_INT }, { "path", READ_STR },       { "unit", READ_STR },
	{ "version", READ_INT },   { "first_seen", READ_INT }, { "last_seen", READ_INT },
};
#define GROUP_COLUMNS "id AS cgroup_id, path, unit, version, first_seen, last_seen"

static const struct read_query list_query =
	READ_QUERY(RS_CGROUP_LIST, "SELECT " GROUP_COLUMNS " FROM cgroups ORDER BY path, version LIMIT ?1",
		   group_columns);
/* by path (?1), or by unit (?2) */
static const struct read_query match_query = READ_QUERY(
	RS_CGROUP_MATCH,
	"SELECT " GROUP_COLUMNS " FROM cgroups WHERE path = ?1 OR unit = ?2 ORDER BY path, version LIMIT ?3",
	group_columns);

static const struct read_column int_column[] = { { "v", READ_KEY } };
/* the finest tier of group ?1 with rows, and the first time of a tier ?2 */
static const struct read_query finest_query =
	READ_QUERY(RS_CGROUP_FINEST, "SELECT min(resolution) AS v FROM cgroup_samples WHERE cgroup_id = ?1", int_column);
static const struct read_query first_at_query = READ_QUERY(
	RS_CGROUP_FIRST_AT, "SELECT min(time) AS v FROM cgroup_samples WHERE cgroup_id = ?1 AND resolution = ?2",
	int_column);

static const struct read_query latest_query = READ_QUERY(
	RS_CGROUP_LATEST,
	"SELECT " ROW_COLUMNS " FROM cgroup_samples s WHERE s.cgroup_id = ?1 AND s.resolution = ?2"
	" ORDER BY s.time DESC LIMIT 1",
	row_columns);
/* the earliest row of the tier at or after ?3: where the growth is
 * measured from */
static const struct read_query earliest_query = READ_QUERY(
	RS_CGROUP_EARLIEST,
	"SELECT " ROW_COLUMNS " FROM cgroup_samples s WHERE s.cgroup_id = ?1 AND s.resolution = ?2 AND s.time >= ?3"
	" ORDER BY s.time LIMIT 1",
	row_columns);

/* The rows of group ?1 in [?2, ?3]: raw rows, minute rows whose minute
 * began before the first raw row (?4), hour rows whose hour began before
 * the first minute or raw row (?5); ?6 rows at most. */
static const struct read_query rows_query = READ_QUERY(
	RS_CGROUP_ROWS,
	"SELECT " ROW_COLUMNS " FROM cgroup_samples s WHERE s.cgroup_id = ?1 AND s.time >= ?2 AND s.time <= ?3"
	"  AND (s.resolution = 0 OR (s.resolution = 60000 AND s.time - 60000 < ?4)"
	"       OR (s.resolution = 3600000 AND s.time - 3600000 < ?5))"
	" ORDER BY s.time, s.resolution DESC LIMIT ?6",
	row_columns);

/* One integer of a one-column query bound to (?1 id[, ?2 b]).  Returns 1
 * with *ret, 0 for no row or NULL, or a negative errno. */
static int one_int(struct store_reader *r, const struct read_query *q, int64_t id, int64_t b, int64_t *ret)
{
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_query_prepare(r, q, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		rc |= sqlite3_bind_int64(st, 2, b);
	e = read_bound(r, st, rc, "reading a cgroup");
	if (e >= 0)
		e = read_step(r, st, "reading a cgroup");
	if (e > 0 && sqlite3_column_type(st, 0) != SQLITE_NULL)
		*ret = sqlite3_column_int64(st, 0);
	else if (e > 0)
		e = 0;
	read_done(st);
	return e;
}

/* Nulls what the sums of others' processes would tell. */
static int hide_processes(json_t *row)
{
	int e = read_set(row, "processes_private", json_null());
	return e | read_set(row, "beyond_processes", json_null());
}

/* Row q of group id in tier res (and time >= from for the earliest) as an
 * object with its time and usage.  Returns 1 with *ret, 0 without a
 * row, or a negative errno. */
static int row_at(struct store_reader *r, const struct read_query *q, int64_t id, int64_t res, int64_t from,
		  json_t **ret, int64_t *ret_time, int64_t *ret_usage)
{
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_query_prepare(r, q, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, id);
	rc |= sqlite3_bind_int64(st, 2, res);
	if (sqlite3_bind_parameter_count(st) >= 3)
		rc |= sqlite3_bind_int64(st, 3, from);
	e = read_bound(r, st, rc, "reading a cgroup's rows");
	if (e >= 0)
		e = read_step(r, st, "reading a cgroup's rows");
	if (e > 0) {
		*ret_time = sqlite3_column_int64(st, R_TIME);
		*ret_usage = sqlite3_column_int64(st, R_USAGE);
		if (ret && !(*ret = read_row_json(st, q)))
			e = -ENOMEM;
	}
	read_done(st);
	return e;
}

/* Adds to group g its latest row's figures, growth_per_s and
 * time_to_limit_ms. */
static int add_latest(struct store_reader *r, json_t *g, int64_t window_ms, bool processes_figures)
{
	json_t *latest = NULL, *growth = NULL, *eta = NULL;
	int64_t id = json_integer_value(json_object_get(g, "cgroup_id"));
	int64_t res, t1 = 0, u1 = 0, t0 = 0, u0 = 0;
	const char *key;
	json_t *v;
	int e;

	e = one_int(r, &finest_query, id, 0, &res);
	if (e <= 0) /* no rows: the figures stay absent (null) */
		return e < 0 ? e : read_set(g, "time", json_null());
	e = row_at(r, &latest_query, id, res, 0, &latest, &t1, &u1);
	if (e <= 0)
		return e;
	e = row_at(r, &earliest_query, id, res, t1 - window_ms, NULL, &t0, &u0);
	if (e >= 0 && !processes_figures)
		e = hide_processes(latest);
	if (e < 0) {
		json_decref(latest);
		return e;
	}
	json_object_foreach(latest, key, v)
		if ((e = read_set(g, key, json_incref(v))) < 0)
			break;
	/* growth over the window, and the time to the limit that applies
	 * at it (0: at or past the limit; null: no limit, not growing) */
	json_t *limit = json_object_get(latest, "limit");
	if (e >= 0 && t1 > t0) {
		int64_t rate = (u1 - u0) * 1000 / (t1 - t0);
		growth = json_integer(rate);
		if (json_is_integer(limit)) {
			int64_t headroom = json_integer_value(limit) - u1;
			if (headroom <= 0)
				eta = json_integer(0);
			else if (rate > 0)
				eta = json_integer(headroom / rate * 1000 + headroom % rate * 1000 / rate);
		}
	} else if (e >= 0 && json_is_integer(limit) && json_integer_value(limit) <= u1)
		eta = json_integer(0);
	json_decref(latest);
	if (e < 0)
		return e;
	e = read_set(g, "growth_per_s", growth ? growth : json_null());
	return e | read_set(g, "time_to_limit_ms", eta ? eta : json_null());
}

static int cgroups(struct store_reader *r, int64_t window_ms, bool processes_figures, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *list = json_array();
	int e;

	if (!list)
		return -ENOMEM;
	e = read_query_prepare(r, &list_query, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, RW_ANSWER_ROWS_MAX), "reading cgroups");
	if (e >= 0)
		e = read_rows(r, st, &list_query, 0, list, NULL, NULL, "reading cgroups");
	for (size_t i = 0; e >= 0 && i < json_array_size(list); i++)
		e = add_latest(r, json_array_get(list, i), window_ms, processes_figures);
	if (e < 0) {
		json_decref(list);
		return e;
	}
	/* largest usage first; groups without rows last */
	size_t n = json_array_size(list);
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0; k--) {
			json_t *a = json_array_get(list, k - 1), *b = json_array_get(list, k);
			json_int_t ua = json_integer_value(json_object_get(a, "usage"));
			json_int_t ub = json_integer_value(json_object_get(b, "usage"));
			if (!json_is_integer(json_object_get(b, "usage")) ||
			    (json_is_integer(json_object_get(a, "usage")) && ua >= ub))
				break;
			json_incref(a);
			json_array_set(list, k - 1, b);
			json_array_set_new(list, k, a);
		}
	*ret = json_pack("{s:o}", "cgroups", list);
	return *ret ? 0 : -ENOMEM;
}

int store_read_cgroups(struct store_reader *r, int64_t window_ms, bool processes_figures, json_t **ret,
		       struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = cgroups(r, window_ms, processes_figures, ret);
	return read_end(r, e, err);
}

/* The rows of group id in [since, until], at most limit (one more to
 * know whether it was cut: *ret_cut). */
static int group_rows(struct store_reader *r, int64_t id, int64_t since, int64_t until, unsigned limit,
		      bool processes_figures, json_t *rows, bool *ret_cut)
{
	int64_t first_raw = READ_TIME_MAX, first_minute = READ_TIME_MAX, t;
	sqlite3_stmt *st = NULL;
	size_t before = json_array_size(rows);
	int e, rc;

	e = one_int(r, &first_at_query, id, RESOLUTION_RAW, &t);
	if (e > 0)
		first_raw = first_minute = t;
	if (e >= 0)
		e = one_int(r, &first_at_query, id, RESOLUTION_MINUTE, &t);
	if (e > 0 && t - RESOLUTION_MINUTE < first_minute)
		first_minute = t - RESOLUTION_MINUTE + 1;
	if (e < 0)
		return e;
	e = read_query_prepare(r, &rows_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, id);
	rc |= sqlite3_bind_int64(st, 2, since);
	rc |= sqlite3_bind_int64(st, 3, until);
	rc |= sqlite3_bind_int64(st, 4, first_raw);
	rc |= sqlite3_bind_int64(st, 5, first_minute);
	rc |= sqlite3_bind_int64(st, 6, (int64_t)limit + 1);
	e = read_bound(r, st, rc, "reading a cgroup's rows");
	if (e >= 0)
		e = read_rows(r, st, &rows_query, limit, rows, NULL, NULL, "reading a cgroup's rows");
	if (e < 0)
		return e;
	*ret_cut = e > 0;
	for (size_t i = before; !processes_figures && i < json_array_size(rows); i++)
		if (hide_processes(json_array_get(rows, i)) < 0)
			return -ENOMEM;
	/* each row says whose it is */
	for (size_t i = before; i < json_array_size(rows); i++)
		if (read_set(json_array_get(rows, i), "cgroup_id", json_integer(id)) < 0)
			return -ENOMEM;
	return 0;
}

static int history(struct store_reader *r, const struct store_cgroup_history_query *q, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *groups = json_array(), *rows = json_array();
	unsigned limit = q->limit ? q->limit : RW_ANSWER_ROWS_DEFAULT;
	bool cut = false;
	int e, rc;

	if (limit > RW_ANSWER_ROWS_MAX)
		limit = RW_ANSWER_ROWS_MAX;
	if (!groups || !rows) {
		e = -ENOMEM;
		goto out;
	}
	if (!q->cgroup == !q->unit) {
		e = read_failf(r, -EINVAL, "give a cgroup or a unit");
		goto out;
	}
	if (q->since > q->until) {
		e = read_failf(r, -EINVAL, "since (%lld) is after until (%lld)", (long long)q->since,
			       (long long)q->until);
		goto out;
	}
	e = read_query_prepare(r, &match_query, &st);
	if (e < 0)
		goto out;
	rc = store_bind_text(st, 1, q->cgroup);
	rc |= store_bind_text(st, 2, q->unit);
	rc |= sqlite3_bind_int64(st, 3, RW_ANSWER_ROWS_MAX);
	e = read_bound(r, st, rc, "reading cgroups");
	if (e >= 0)
		e = read_rows(r, st, &match_query, 0, groups, NULL, NULL, "reading cgroups");
	if (e < 0)
		goto out;
	if (json_array_size(groups) == 0) {
		e = q->cgroup ? read_failf(r, -ENOENT, "no cgroup %s in the store", q->cgroup)
			      : read_failf(r, -ENOENT, "no cgroup of unit %s in the store", q->unit);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(groups) && !cut; i++) {
		unsigned left = limit - (unsigned)json_array_size(rows);
		int64_t id = json_integer_value(json_object_get(json_array_get(groups, i), "cgroup_id"));
		e = left == 0 ? (cut = true, 0)
			      : group_rows(r, id, read_time_clamp(q->since), read_time_clamp(q->until), left,
					   q->processes_figures, rows, &cut);
		if (e < 0)
			goto out;
	}
	*ret = json_pack("{s:O, s:O, s:b}", "cgroups", groups, "samples", rows, "truncated", cut);
	e = *ret ? 0 : -ENOMEM;
out:
	json_decref(groups);
	json_decref(rows);
	return e;
}

int store_read_cgroup_history(struct store_reader *r, const struct store_cgroup_history_query *q, json_t **ret,
			      struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = history(r, q, ret);
	return read_end(r, e, err);
}
