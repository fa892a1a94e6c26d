/* The "processes" answer from the store, and the process object it lists
 * (which the report repeats): identity, owner, the last stored sample, the
 * peaks and the last census.  The daemon overlays live values for the
 * processes it watches; the store alone cannot know which those are.
 *
 * Listing every instance reads the processes table whole (one row per
 * instance, bounded by retention); the per-instance values are index
 * lookups, a few per instance. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "store-read-internal.h"
#include "util.h"

/* An instance with the values the list is sorted by. */
struct listed {
	struct read_process p;
	int64_t private, resident; /* of the last stored sample; -1: none */
	int64_t vram;              /* the GPU memory rows of that sample; -1: none */
	int64_t key;               /* the one sorted by */
};

/* The private and resident of the newest fast-tier row of process id: the
 * newest raw row, else minute row, else hour row (each coarser tier only
 * holds older rows), and the GPU memory of the same row (the last figure,
 * summed over devices).  -1 when there is none.  Returns 0 or a negative
 * errno. */
static int last_sample(struct store_reader *r, int64_t id, int64_t *ret_private, int64_t *ret_resident,
		       int64_t *ret_vram)
{
	static const int64_t resolutions[] = { RESOLUTION_RAW, RESOLUTION_MINUTE, RESOLUTION_HOUR };
	enum { LS_PRIVATE, LS_RESIDENT, LS_VRAM };
	static const struct read_column columns[] = {
		[LS_PRIVATE] = { "private_last", READ_KEY },
		[LS_RESIDENT] = { "resident_last", READ_KEY },
		[LS_VRAM] = { "vram", READ_KEY },
	};
	static const struct read_query q =
		READ_QUERY(RS_LAST_SAMPLE,
			   "SELECT s.private_last, s.resident_last,"
			   "  (SELECT sum(g.used_last) FROM gpu_samples g WHERE g.process_id = s.process_id"
			   "   AND g.resolution = s.resolution AND g.time = s.time) AS vram"
			   " FROM samples s WHERE s.process_id = ?1 AND s.resolution = ?2"
			   " ORDER BY s.time DESC LIMIT 1",
			   columns);
	sqlite3_stmt *st = NULL;
	int e, rc;

	*ret_private = *ret_resident = *ret_vram = -1;
	e = read_query_prepare(r, &q, &st);
	for (size_t i = 0; e >= 0 && i < ELEMENTSOF(resolutions); i++) {
		rc = sqlite3_bind_int64(st, 1, id);
		rc |= sqlite3_bind_int64(st, 2, resolutions[i]);
		e = read_bound(r, st, rc, "reading the last sample");
		if (e < 0)
			break;
		e = read_step(r, st, "reading the last sample");
		if (e > 0) {
			*ret_private = sqlite3_column_int64(st, LS_PRIVATE);
			*ret_resident = sqlite3_column_int64(st, LS_RESIDENT);
			if (sqlite3_column_type(st, LS_VRAM) != SQLITE_NULL)
				*ret_vram = sqlite3_column_int64(st, LS_VRAM);
		}
		read_done(st);
		if (e != 0)
			break;
	}
	return e < 0 ? e : 0;
}

static const struct read_column last_census_columns[] = {
	{ "census_id", READ_INT },
	{ "time", READ_INT },
	{ "trigger", READ_STR },
	{ "status", READ_STR },
};
static const struct read_query last_census_query =
	READ_QUERY(RS_LAST_CENSUS,
		   "SELECT id AS census_id, time, trigger, status FROM censuses WHERE process_id = ?1"
		   " ORDER BY time DESC, id DESC LIMIT 1",
		   last_census_columns);

/* {"census_id", "time", "trigger", "status"} of the newest census of any
 * status, or null.  Returns 0 with *ret or a negative errno. */
static int last_census(struct store_reader *r, int64_t id, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *o = NULL;
	int e;

	e = read_query_prepare(r, &last_census_query, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, id), "reading the last census");
	if (e < 0)
		return e;
	e = read_step(r, st, "reading the last census");
	if (e > 0) {
		o = read_row_json(st, &last_census_query);
		e = o ? 0 : -ENOMEM;
	}
	read_done(st);
	if (e < 0) {
		json_decref(o);
		return e;
	}
	*ret = o ? o : json_null();
	return 0;
}

static int process_json(struct store_reader *r, const struct read_process *p, int64_t private, int64_t resident,
			int64_t vram, json_t **ret)
{
	json_t *o, *census = NULL;
	char user[256];
	int e;

	e = last_census(r, p->id, &census);
	if (e < 0)
		return e;
	o = json_object();
	if (!o) {
		json_decref(census);
		return -ENOMEM;
	}
	e = read_set(o, "process_id", json_integer(p->id));
	e |= read_set(o, "pid", json_integer(p->pid));
	e |= read_set(o, "boot_id", text_json_string(p->boot_id));
	e |= read_set(o, "start_time", json_integer(p->start_time));
	e |= read_set(o, "started_at", json_field_int_or_null(p->started_at));
	e |= read_set(o, "platform", json_string(census_platform_name(p->platform)));
	e |= read_set(o, "uid", json_field_int_or_null(p->uid));
	/* a Windows process's account as stored; a Linux one's from its uid */
	e |= read_set(o, "user", text_json_string(p->owner ? p->owner : read_user_name(p->uid, user, sizeof(user))));
	e |= read_set(o, "comm", text_json_string(p->comm));
	e |= read_set(o, "exe", text_json_string(p->exe));
	e |= read_set(o, "cmdline", text_json_string(p->cmdline));
	/* the daemon knows which it watches, and says so */
	e |= read_set(o, "watched", json_false());
	e |= read_set(o, "first_seen", json_integer(p->first_seen));
	e |= read_set(o, "last_seen", json_integer(p->last_seen));
	e |= read_set(o, "exited_at", json_field_int_or_null(p->exited_at));
	e |= read_set(o, "private", json_field_int_or_null(private));
	e |= read_set(o, "resident", json_field_int_or_null(resident));
	e |= read_set(o, "peak_private", json_integer(p->peak_private));
	e |= read_set(o, "peak_resident", json_integer(p->peak_resident));
	e |= read_set(o, "vram", json_field_int_or_null(vram));
	e |= read_set(o, "peak_vram", json_integer(p->peak_vram));
	e |= read_set(o, "last_census", census);
	if (e < 0) {
		json_decref(o);
		return -ENOMEM;
	}
	*ret = o;
	return 0;
}

int read_process_json(struct store_reader *r, const struct read_process *p, json_t **ret)
{
	int64_t private, resident, vram;
	int e = last_sample(r, p->id, &private, &resident, &vram);

	return e < 0 ? e : process_json(r, p, private, resident, vram, ret);
}

enum sort_key { SORT_PRIVATE, SORT_RESIDENT, SORT_PEAK, SORT_VRAM };

static int64_t key_of(const struct listed *x, enum sort_key k)
{
	switch (k) {
	case SORT_RESIDENT:
		return x->resident;
	case SORT_PEAK:
		return x->p.peak_private;
	case SORT_VRAM:
		return x->vram;
	default:
		return x->private;
	}
}

/* The living first, then the largest by the key, then the most recently
 * seen. */
static int compare_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	bool alive_x = x->p.exited_at < 0, alive_y = y->p.exited_at < 0;

	if (alive_x != alive_y)
		return alive_x ? -1 : 1;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->p.last_seen != y->p.last_seen)
		return x->p.last_seen > y->p.last_seen ? -1 : 1;
	return x->p.id > y->p.id ? -1 : x->p.id < y->p.id;
}

static void listed_free(struct listed *l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		read_process_clear(&l[i].p);
	free(l);
}

/* Every instance the asker may see, with its last sample.  Returns 0 with
 * *ret and *ret_n, or a negative errno. */
static int list(struct store_reader *r, int64_t only_uid, const char *only_owner, bool exited, struct listed **ret,
		size_t *ret_n)
{
	sqlite3_stmt *st = NULL;
	struct listed *l = NULL;
	size_t n = 0, size = 0;
	int e, rc;

	e = read_process_prepare(r, RS_PROCESS_LIST,
				 "SELECT " READ_PROCESS_COLUMNS " FROM processes p"
				 " WHERE (?1 < 0 OR p.uid = ?1 OR p.owner = ?3 COLLATE NOCASE)"
				 " AND (?2 OR p.exited_at IS NULL)",
				 &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, only_uid);
	rc |= sqlite3_bind_int(st, 2, exited);
	rc |= only_owner ? sqlite3_bind_text(st, 3, only_owner, -1, SQLITE_STATIC) : sqlite3_bind_null(st, 3);
	e = read_bound(r, st, rc, "listing processes");
	if (e < 0)
		return e;
	while ((e = read_step(r, st, "listing processes")) > 0) {
		if (n == size) {
			size_t more = size ? 2 * size : 16;
			struct listed *grown = realloc(l, more * sizeof(*l));
			if (!grown) {
				e = -ENOMEM;
				break;
			}
			l = grown;
			size = more;
		}
		e = read_process_load(st, &l[n].p);
		if (e < 0)
			break;
		n++;
	}
	read_done(st);
	/* the last samples after the list: one statement at a time */
	for (size_t i = 0; e >= 0 && i < n; i++)
		e = last_sample(r, l[i].p.id, &l[i].private, &l[i].resident, &l[i].vram);
	if (e < 0) {
		listed_free(l, n);
		return e;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

int store_read_processes(struct store_reader *r, int64_t only_uid, const char *only_owner, bool exited,
			 const char *sort, unsigned limit, json_t **ret, struct error *err)
{
	enum sort_key key;
	struct listed *l = NULL;
	json_t *answer = NULL, *a = NULL;
	size_t n = 0, shown;
	int e;

	if (!sort || streq(sort, "private"))
		key = SORT_PRIVATE;
	else if (streq(sort, "resident"))
		key = SORT_RESIDENT;
	else if (streq(sort, "peak"))
		key = SORT_PEAK;
	else if (streq(sort, "vram"))
		key = SORT_VRAM;
	else
		return read_end(r, read_failf(r, -EINVAL, "sort: \"%s\" is not private, resident, peak or vram", sort),
				err);
	if (limit == 0)
		limit = RW_ANSWER_ROWS_DEFAULT;
	if (limit > RW_ANSWER_ROWS_MAX)
		limit = RW_ANSWER_ROWS_MAX;

	e = read_begin(r);
	if (e >= 0)
		e = list(r, only_uid, only_owner, exited, &l, &n);
	if (e < 0)
		return read_end(r, e, err);
	for (size_t i = 0; i < n; i++)
		l[i].key = key_of(&l[i], key);
	qsort_safe(l, n, sizeof(*l), compare_listed);
	shown = n < limit ? n : limit;

	a = json_array();
	e = a ? 0 : -ENOMEM;
	for (size_t i = 0; e >= 0 && i < shown; i++) {
		json_t *o = NULL;
		e = read_check(r);
		if (e >= 0)
			e = process_json(r, &l[i].p, l[i].private, l[i].resident, l[i].vram, &o);
		if (e >= 0 && json_array_append_new(a, o) < 0)
			e = -ENOMEM;
	}
	listed_free(l, n);
	if (e >= 0) {
		answer = json_object();
		e = answer ? 0 : -ENOMEM;
		e |= read_set(answer, "processes", json_incref(a));
		e |= read_set(answer, "filtered_to_uid", only_uid >= 0 ? json_integer(only_uid) : json_null());
	}
	json_decref(a);
	if (e < 0) {
		json_decref(answer);
		return read_end(r, e, err);
	}
	*ret = answer;
	return read_end(r, 0, err);
}
