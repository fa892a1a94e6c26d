/* The censuses and marks of a stretch of time, as history gives them with
 * each page: every census with its class totals (all of them, or those
 * asked for), every mark, in time order across the instances.
 *
 * Each instance is read on its own, walking censuses_by_process and
 * marks_by_process in order; with several instances the lists are put in
 * time order afterwards, which costs a sort of pointers rather than a sort
 * of rows inside SQLite. */
#include <errno.h>
#include <stdlib.h>

#include "classes.h"
#include "store-read-internal.h"

/* What the censuses and marks of a page are read with. */
struct window {
	struct store_reader *r;
	const char *classes; /* a JSON array of class keys in text; NULL: all */
	int64_t lo, hi;
};

/* A census as the page lists it, and its class totals: two walks of
 * censuses_by_process in the same order, in step (a join that repeated
 * each census's columns on each of its classes read twice as many
 * values). */
static const struct read_column census_columns[] = {
	{ "process_id", READ_INT },
	{ "census_id", READ_INT },
	{ "time", READ_INT },
	{ "trigger", READ_STR },
	{ "status", READ_STR },
	{ "light", READ_BOOL },
	{ "message", READ_STR },
	{ "private", READ_INT },
	{ "resident", READ_INT },
	{ "vram", READ_INT },
	{ "repeats", READ_INT },
};
/* a repeat's classes and GPU memory are the repeated census's */
static const struct read_query census_query =
	READ_QUERY(RS_CENSUSES_WINDOW,
		   "SELECT c.process_id, c.id AS census_id, c.time, c.trigger, c.status, c.light, c.message, c.private,"
		   "  c.resident, (SELECT sum(g.used) FROM census_gpu g WHERE g.census_id = coalesce(c.repeats, c.id))"
		   "  AS vram, c.repeats"
		   " FROM censuses c WHERE c.process_id = ?1 AND c.time >= ?2 AND c.time <= ?3 ORDER BY c.time, c.id",
		   census_columns);

/* Where census_columns has the census id. */
#define CENSUS_ID_COLUMN 1

/* The census and the class of a row are read by the code; the values
 * after them (CLASS_VALUES of them, from CLASS_FIRST_VALUE) are the
 * class's object. */
#define CLASS_CENSUS_COLUMN 0
#define CLASS_KEY_COLUMN 1
#define CLASS_FIRST_VALUE 2
/* The values: the counters CENSUS_COUNTERS gives history (census-counters.h). */
#define HISTORY_ONE_(name, class_key, total_key, per_class, light_class, light_total, optional, history, ...) \
	CENSUS_IF_##history(+1)
#define CLASS_VALUES (0 CENSUS_COUNTERS(HISTORY_ONE_))
#define HISTORY_COLUMN_(name, class_key, total_key, per_class, light_class, light_total, optional, history, ...) \
	CENSUS_IF_##history({ #class_key, READ_INT }, )
#define HISTORY_SQL_(name, class_key, total_key, per_class, light_class, light_total, optional, history, ...) \
	CENSUS_IF_##history(", k." #class_key)
static const struct read_column class_columns[] = {
	{ "census_id", READ_KEY },
	{ "class", READ_KEY },
	CENSUS_COUNTERS(HISTORY_COLUMN_)
};
static const struct read_query class_query =
	READ_QUERY(RS_CLASSES_WINDOW,
		   "SELECT c.id AS census_id, k.class" CENSUS_COUNTERS(HISTORY_SQL_)
		   " FROM censuses c JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)"
		   " WHERE c.process_id = ?1 AND c.time >= ?2 AND c.time <= ?3"
		   "  AND (?4 IS NULL OR k.class IN (SELECT value FROM json_each(?4)))"
		   " ORDER BY c.time, c.id, k.class",
		   class_columns);
_Static_assert(ELEMENTSOF(class_columns) == CLASS_FIRST_VALUE + CLASS_VALUES, "a class's values follow its census and class");

static const struct read_column mark_columns[] = {
	{ "process_id", READ_INT },
	{ "time", READ_INT },
	{ "name", READ_STR },
	{ "by_uid", READ_INT },
};
static const struct read_query mark_query =
	READ_QUERY(RS_MARKS_WINDOW,
		   "SELECT process_id, time, name, by_uid FROM marks"
		   " WHERE process_id = ?1 AND time >= ?2 AND time <= ?3 ORDER BY time, id",
		   mark_columns);

/* The last object given for a class, and the values it holds.  From one
 * census to the next most classes keep their values (images, stacks,
 * shared memory, mapped files): such a class is the same JSON object,
 * held once more, not a new one.  A week of censuses has some 25,000 class
 * totals; allocating (and later freeing) an object of four values for each
 * was most of a week's answer.  The answer is only ever written out, and
 * json_dumps writes a shared object wherever it is held. */
struct class_memo {
	json_t *o;
	int64_t v[CLASS_VALUES];
	bool null[CLASS_VALUES];
};

static bool same_values(const struct class_memo *m, sqlite3_stmt *st)
{
	for (int i = 0; i < CLASS_VALUES; i++) {
		bool null = sqlite3_column_type(st, CLASS_FIRST_VALUE + i) == SQLITE_NULL;
		if (null != m->null[i] || (!null && sqlite3_column_int64(st, CLASS_FIRST_VALUE + i) != m->v[i]))
			return false;
	}
	return true;
}

/* One class of a census (the row of st); a light census did not read
 * memory per class: null, not 0.  NULL when out of memory. */
static json_t *class_json(sqlite3_stmt *st, struct class_memo *memo)
{
	json_t *k;

	if (memo && memo->o && same_values(memo, st))
		return json_incref(memo->o);
	k = read_row_json(st, &class_query);
	if (!k)
		return NULL;
	if (memo) {
		json_decref(memo->o);
		memo->o = json_incref(k);
		for (int i = 0; i < CLASS_VALUES; i++) {
			memo->null[i] = sqlite3_column_type(st, CLASS_FIRST_VALUE + i) == SQLITE_NULL;
			memo->v[i] = sqlite3_column_int64(st, CLASS_FIRST_VALUE + i);
		}
	}
	return k;
}

/* Appends to a the censuses of instance id in the window, each with its
 * class totals. */
static int censuses_of(const struct window *wd, int64_t id, json_t *a)
{
	struct store_reader *r = wd->r;
	struct class_memo memo[_CLASS_MAX] = { 0 };
	sqlite3_stmt *cs = NULL, *ks = NULL;
	int e, k = 0, rc;

	e = read_query_prepare(r, &census_query, &cs);
	if (e >= 0)
		e = read_query_prepare(r, &class_query, &ks);
	if (e >= 0) {
		rc = sqlite3_bind_int64(cs, 1, id) | sqlite3_bind_int64(ks, 1, id);
		rc |= sqlite3_bind_int64(cs, 2, wd->lo) | sqlite3_bind_int64(ks, 2, wd->lo);
		rc |= sqlite3_bind_int64(cs, 3, wd->hi) | sqlite3_bind_int64(ks, 3, wd->hi);
		rc |= wd->classes ? sqlite3_bind_text(ks, 4, wd->classes, -1, SQLITE_STATIC) : sqlite3_bind_null(ks, 4);
		e = read_bound(r, cs, rc, "reading censuses");
	}
	if (e >= 0)
		k = e = read_step(r, ks, "reading census classes");
	while (e >= 0 && (e = read_step(r, cs, "reading censuses")) > 0) {
		int64_t census_id = sqlite3_column_int64(cs, CENSUS_ID_COLUMN);
		json_t *o = read_row_json(cs, &census_query), *classes = json_object();

		if (!o || !classes || read_set(o, "classes", json_incref(classes)) < 0 ||
		    json_array_append_new(a, o) < 0) {
			json_decref(classes);
			e = -ENOMEM;
			break;
		}
		/* the class rows of this census, the next in their walk */
		while (k > 0 && sqlite3_column_int64(ks, CLASS_CENSUS_COLUMN) == census_id) {
			const char *key = (const char *)sqlite3_column_text(ks, CLASS_KEY_COLUMN);
			int c = class_from_key(key);
			if (json_object_set_new(classes, key, class_json(ks, c >= 0 ? &memo[c] : NULL)) < 0) {
				k = -ENOMEM;
				break;
			}
			k = read_step(r, ks, "reading census classes");
		}
		json_decref(classes);
		if (k < 0) {
			e = k;
			break;
		}
	}
	read_done(cs);
	read_done(ks);
	for (size_t i = 0; i < ELEMENTSOF(memo); i++)
		json_decref(memo[i].o);
	return e < 0 ? e : 0;
}

static int marks_of(const struct window *wd, int64_t id, json_t *a)
{
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_query_prepare(wd->r, &mark_query, &st);
	if (e >= 0) {
		rc = sqlite3_bind_int64(st, 1, id);
		rc |= sqlite3_bind_int64(st, 2, wd->lo);
		rc |= sqlite3_bind_int64(st, 3, wd->hi);
		e = read_bound(wd->r, st, rc, "reading marks");
	}
	if (e >= 0)
		e = read_rows(wd->r, st, &mark_query, 0, a, NULL, NULL, "reading marks");
	return e < 0 ? e : 0;
}

/* An entry of a list being put in time order. */
struct timed {
	json_t *o;
	int64_t time, process_id;
	size_t seq; /* its place before: equal entries keep it */
};

static int compare_timed(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->process_id != y->process_id)
		return x->process_id < y->process_id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Puts the entries of a (read instance by instance, each in time order) in
 * time order, then instance order.  Returns 0 or -ENOMEM. */
static int sort_by_time(json_t *a)
{
	size_t n = json_array_size(a);
	struct timed *v;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_array_get(a, i);
		v[i] = (struct timed){ .o = json_incref(o),
				       .time = json_integer_value(json_object_get(o, "time")),
				       .process_id = json_integer_value(json_object_get(o, "process_id")),
				       .seq = i };
	}
	qsort(v, n, sizeof(*v), compare_timed);
	json_array_clear(a);
	int e = 0;
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(a, v[i].o) < 0)
			e = -ENOMEM;
	free(v);
	return e;
}

int read_window(struct store_reader *r, const struct read_process *p, size_t n, const char *classes, int64_t lo,
		int64_t hi, json_t **ret_censuses, json_t **ret_marks)
{
	const struct window window = { .r = r, .classes = classes, .lo = lo, .hi = hi }, *wd = &window;
	json_t *cs = json_array(), *ms = json_array();
	int e = cs && ms ? 0 : -ENOMEM;

	for (size_t i = 0; e >= 0 && i < n; i++) {
		e = censuses_of(wd, p[i].id, cs);
		if (e >= 0)
			e = marks_of(wd, p[i].id, ms);
	}
	if (e >= 0 && n > 1)
		e = sort_by_time(cs);
	if (e >= 0 && n > 1)
		e = sort_by_time(ms);
	if (e < 0) {
		json_decref(cs);
		json_decref(ms);
		return e;
	}
	*ret_censuses = cs;
	*ret_marks = ms;
	return 0;
}
