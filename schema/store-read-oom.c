/* The "oom" answer: the OOM kills the store holds, newest first, each
 * with the kernel's figures for the victim and the victim's last census
 * (its totals by class), as the question after a kill is "what was it
 * doing".  Kills are few (a table of hundreds of rows on a troubled
 * host), so the walk is the time index and one census lookup per kill. */
#include <errno.h>
#include <string.h>

#include "limits.h"
#include "store-read-internal.h"

/* A kill's columns: what the answer gives as they are, then what the code
 * puts into "kernel" and "census". */
#define KILL_COLUMNS                                                                                          \
	"k.time, k.pid, k.comm, k.uid, k.cgroup, k.limit_cgroup, k.oom_constraint AS \"constraint\","        \
	" k.limit_hit AS \"limit\", k.usage, k.total_vm, k.anon_rss, k.file_rss, k.shmem_rss, k.pgtables,"     \
	" k.oom_score_adj, c.id AS census_id, c.time AS census_time, c.private AS census_private,"             \
	" coalesce(c.repeats, c.id) AS census_classes_id"

enum {
	K_TIME,
	K_PID,
	K_COMM,
	K_UID,
	K_CGROUP,
	K_LIMIT_CGROUP,
	K_CONSTRAINT,
	K_LIMIT,
	K_USAGE,
	K_KERNEL, /* the first of the kernel's figures */
	K_CENSUS_ID = K_KERNEL + 6,
	K_CENSUS_TIME,
	K_CENSUS_PRIVATE,
	K_CENSUS_CLASSES_ID,
};

static const struct read_column kill_columns[] = {
	[K_TIME] = { "time", READ_INT },
	[K_PID] = { "pid", READ_INT },
	[K_COMM] = { "comm", READ_STR },
	[K_UID] = { "uid", READ_INT },
	[K_CGROUP] = { "cgroup", READ_STR },
	[K_LIMIT_CGROUP] = { "limit_cgroup", READ_STR },
	[K_CONSTRAINT] = { "constraint", READ_STR },
	[K_LIMIT] = { "limit", READ_INT },
	[K_USAGE] = { "usage", READ_INT },
	[K_KERNEL] = { "total_vm", READ_KEY },
	{ "anon_rss", READ_KEY },
	{ "file_rss", READ_KEY },
	{ "shmem_rss", READ_KEY },
	{ "pgtables", READ_KEY },
	{ "oom_score_adj", READ_KEY },
	[K_CENSUS_ID] = { "census_id", READ_KEY },
	[K_CENSUS_TIME] = { "census_time", READ_KEY },
	[K_CENSUS_PRIVATE] = { "census_private", READ_KEY },
	[K_CENSUS_CLASSES_ID] = { "census_classes_id", READ_KEY },
};

/* ?1 since, ?2 until, ?3 a cgroup or NULL, ?4 it with "/" after it (what
 * lies below it), ?5 only_uid or NULL, ?6 rows, ?7 only_owner or NULL (a
 * victim's account is its process's) */
static const struct read_query kills_query = READ_QUERY(
	RS_OOM_KILLS,
	"SELECT " KILL_COLUMNS " FROM oom_kills k LEFT JOIN censuses c ON c.id = k.census_id"
	" WHERE k.time >= ?1 AND k.time <= ?2"
	"  AND (?3 IS NULL OR k.cgroup = ?3 OR k.limit_cgroup = ?3 OR substr(k.cgroup, 1, length(?4)) = ?4"
	"       OR substr(k.limit_cgroup, 1, length(?4)) = ?4)"
	"  AND (?5 IS NULL OR k.uid = ?5"
	"       OR EXISTS (SELECT 1 FROM processes p WHERE p.id = k.process_id AND p.owner = ?7 COLLATE NOCASE))"
	" ORDER BY k.time DESC, k.id DESC LIMIT ?6",
	kill_columns);

static const struct read_query kill_of_query = READ_QUERY(
	RS_OOM_KILL_OF,
	"SELECT " KILL_COLUMNS " FROM oom_kills k LEFT JOIN censuses c ON c.id = k.census_id"
	" WHERE k.process_id = ?1 ORDER BY k.time DESC, k.id DESC LIMIT 1",
	kill_columns);

static const struct read_column class_columns[] = {
	{ "class", READ_STR }, { "private", READ_INT }, { "resident", READ_INT }, { "swap", READ_INT },
};
static const struct read_query classes_query = READ_QUERY(
	RS_OOM_CENSUS_CLASSES,
	"SELECT class, private, resident, swap FROM census_classes WHERE census_id = ?1"
	" ORDER BY coalesce(private, 0) DESC, class",
	class_columns);

/* The kernel's figures of the row, null when it gave none. */
static json_t *kernel_json(sqlite3_stmt *st)
{
	json_t *o;
	bool any = false;
	int e = 0;

	for (int i = K_KERNEL; i < K_CENSUS_ID; i++)
		any |= sqlite3_column_type(st, i) != SQLITE_NULL;
	if (!any)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	for (int i = K_KERNEL; i < K_CENSUS_ID; i++)
		e |= read_set(o, kill_columns[i].key, read_column_int(st, i));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The row's census: {"id", "time", "private", "classes"}, null when the
 * kill has none. */
static int census_json(struct store_reader *r, sqlite3_stmt *kill, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *o, *classes;
	int e;

	if (sqlite3_column_type(kill, K_CENSUS_ID) == SQLITE_NULL) {
		*ret = json_null();
		return 0;
	}
	classes = json_array();
	if (!classes)
		return -ENOMEM;
	e = read_query_prepare(r, &classes_query, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, sqlite3_column_int64(kill, K_CENSUS_CLASSES_ID)),
			       "reading a census's classes");
	if (e >= 0)
		e = read_rows(r, st, &classes_query, 0, classes, NULL, NULL, "reading a census's classes");
	if (e < 0) {
		json_decref(classes);
		return e;
	}
	o = json_object();
	e = o ? 0 : -ENOMEM;
	e |= read_set(o, "id", read_column_int(kill, K_CENSUS_ID));
	e |= read_set(o, "time", read_column_int(kill, K_CENSUS_TIME));
	e |= read_set(o, "private", read_column_int(kill, K_CENSUS_PRIVATE));
	e |= read_set(o, "classes", classes);
	if (e < 0) {
		json_decref(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

/* The kill of st's current row as the answer gives it. */
static int kill_json(struct store_reader *r, sqlite3_stmt *st, const struct read_query *q, json_t **ret)
{
	json_t *o = read_row_json(st, q), *census = NULL;
	int e = o ? 0 : -ENOMEM;

	e |= read_set(o, "kernel", kernel_json(st));
	if (e >= 0)
		e = census_json(r, st, &census);
	if (e >= 0)
		e = read_set(o, "census", census);
	if (e < 0) {
		json_decref(o);
		return e;
	}
	*ret = o;
	return 0;
}

static int kills(struct store_reader *r, const struct store_oom_query *q, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *list = NULL, *answer;
	_cleanup_free_ char *below = NULL;
	const char *cgroup = q->cgroup;
	unsigned limit = q->limit, n = 0;
	bool truncated = false;
	int e, rc;

	if (q->since > q->until)
		return read_failf(r, -EINVAL, "since (%lld) is after until (%lld)", (long long)q->since,
				  (long long)q->until);
	if (limit == 0)
		limit = RW_ANSWER_ROWS_DEFAULT;
	if (limit > RW_ANSWER_ROWS_MAX)
		limit = RW_ANSWER_ROWS_MAX;
	/* "/x/" and "/x" are one group; "/" is every group */
	if (cgroup) {
		size_t len = strlen(cgroup);
		while (len > 1 && cgroup[len - 1] == '/')
			len--;
		if (len == 1 && cgroup[0] == '/')
			cgroup = NULL;
		else if (asprintf(&below, "%.*s/", (int)len, cgroup) < 0)
			return -ENOMEM;
	}

	e = read_query_prepare(r, &kills_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, read_time_clamp(q->since));
	rc |= sqlite3_bind_int64(st, 2, read_time_clamp(q->until));
	if (below) {
		rc |= sqlite3_bind_text(st, 3, below, (int)strlen(below) - 1, SQLITE_TRANSIENT);
		rc |= sqlite3_bind_text(st, 4, below, -1, SQLITE_TRANSIENT);
	}
	if (q->only_uid >= 0)
		rc |= sqlite3_bind_int64(st, 5, q->only_uid);
	rc |= sqlite3_bind_int64(st, 6, (int64_t)limit + 1);
	if (q->only_uid >= 0 && q->only_owner)
		rc |= sqlite3_bind_text(st, 7, q->only_owner, -1, SQLITE_TRANSIENT);
	e = read_bound(r, st, rc, "reading OOM kills");
	list = json_array();
	if (!list)
		e = -ENOMEM;
	while (e >= 0 && (e = read_step(r, st, "reading OOM kills")) > 0) {
		json_t *k = NULL;
		if (n == limit) {
			truncated = true;
			break;
		}
		e = kill_json(r, st, &kills_query, &k);
		if (e >= 0 && json_array_append_new(list, k) < 0)
			e = -ENOMEM;
		n++;
	}
	read_done(st);
	if (e < 0) {
		json_decref(list);
		return e;
	}
	answer = json_pack("{s:o, s:b}", "kills", list, "truncated", truncated);
	if (!answer)
		return -ENOMEM;
	*ret = answer;
	return 0;
}

int store_read_oom_kills(struct store_reader *r, const struct store_oom_query *q, json_t **ret, struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = kills(r, q, ret);
	return read_end(r, e, err);
}

int read_oom_kill_of(struct store_reader *r, int64_t process_id, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	int e;

	e = read_query_prepare(r, &kill_of_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, process_id), "reading an OOM kill");
	if (e >= 0)
		e = read_step(r, st, "reading an OOM kill");
	if (e > 0)
		e = kill_json(r, st, &kill_of_query, ret);
	else if (e == 0)
		*ret = json_null();
	read_done(st);
	return e < 0 ? e : 0;
}
