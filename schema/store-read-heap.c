/* The report's "in use or kept": for each allocator class of one instance
 * that some census read the figures of (heap-walk.h), what its growth was
 * made of from the first census that read them to the last (held by the
 * program, or kept by its allocator: heap-trend.h), the censuses that
 * show it, and whether its memory in use rose slowly and steadily.
 *
 * One walk of the instance's ok censuses (a repeat with the classes of the
 * census it repeats), class by class in time order, of the classes that
 * any census read the figures of: the others have nothing to say.  A
 * light census read no memory per class and is left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap-trend.h"
#include "limits.h"
#include "store-read-internal.h"

static const struct read_column heap_columns[] = {
	{ "census_id", READ_INT }, { "time", READ_INT },	 { "class", READ_STR },	     { "private", READ_INT },
	{ "in_use", READ_INT },	   { "free", READ_INT },	 { "unknown", READ_INT },    { "returnable", READ_INT },
	{ "how", READ_STR },
};
enum { HC_ID, HC_TIME, HC_CLASS, HC_PRIVATE, HC_IN_USE, HC_FREE, HC_UNKNOWN, HC_RETURNABLE, HC_HOW };
static const struct read_query heap_query = READ_QUERY(
	RS_HEAP_CLASSES,
	"SELECT c.id AS census_id, c.time, k.class, k.private, k.in_use, k.free, k.unknown, k.returnable, k.how"
	" FROM censuses c JOIN census_classes k ON k.census_id = coalesce(c.repeats, c.id)"
	" WHERE c.process_id = ?1 AND c.status = 'ok' AND c.light = 0 AND k.private IS NOT NULL"
	"  AND k.class IN (SELECT DISTINCT r.class FROM censuses x JOIN census_class_rows r ON r.census_id = x.id"
	"                  WHERE x.process_id = ?1 AND r.in_use IS NOT NULL)"
	" ORDER BY k.class, c.time, c.id",
	heap_columns);

/* The censuses of one class, oldest first. */
struct series {
	char *cls;
	char *how;           /* of the last census that read the figures */
	struct heap_point *v;
	int64_t *ids;
	size_t n, allocated;
};

static void series_clear(struct series *s)
{
	free(s->cls);
	free(s->how);
	free(s->v);
	free(s->ids);
	*s = (struct series){ 0 };
}

static int series_add(struct series *s, sqlite3_stmt *st)
{
	if (s->n == s->allocated) {
		size_t more = s->allocated ? 2 * s->allocated : 32;
		struct heap_point *v = realloc(s->v, more * sizeof(*v));
		if (v)
			s->v = v;
		int64_t *ids = realloc(s->ids, more * sizeof(*ids));
		if (ids)
			s->ids = ids;
		if (!v || !ids)
			return -ENOMEM;
		s->allocated = more;
	}
	struct heap_point *p = &s->v[s->n];
	*p = (struct heap_point){
		.time_ms = sqlite3_column_int64(st, HC_TIME),
		.private = (uint64_t)sqlite3_column_int64(st, HC_PRIVATE),
		.known = sqlite3_column_type(st, HC_IN_USE) != SQLITE_NULL &&
			 sqlite3_column_type(st, HC_FREE) != SQLITE_NULL,
		.in_use = (uint64_t)sqlite3_column_int64(st, HC_IN_USE),
		.free = (uint64_t)sqlite3_column_int64(st, HC_FREE),
		.unknown = (uint64_t)sqlite3_column_int64(st, HC_UNKNOWN),
		.returnable = (uint64_t)sqlite3_column_int64(st, HC_RETURNABLE),
	};
	s->ids[s->n++] = sqlite3_column_int64(st, HC_ID);
	const char *how = (const char *)sqlite3_column_text(st, HC_HOW);
	if (p->known && how) {
		char *copy = strdup(how);
		if (!copy)
			return -ENOMEM;
		free(s->how);
		s->how = copy;
	}
	return 0;
}

/* A census of the class: its id, time and figures. */
static json_t *point_json(const struct series *s, size_t i)
{
	const struct heap_point *p = &s->v[i];
	json_t *o = json_object();
	int e = o ? 0 : -ENOMEM;

	e |= read_set(o, "census_id", json_integer(s->ids[i]));
	e |= read_set(o, "time", json_integer(p->time_ms));
	e |= read_set(o, "private", json_integer((json_int_t)p->private));
	e |= read_set(o, "in_use", json_integer((json_int_t)p->in_use));
	e |= read_set(o, "free", json_integer((json_int_t)p->free));
	e |= read_set(o, "unknown", json_integer((json_int_t)p->unknown));
	e |= read_set(o, "returnable", json_integer((json_int_t)p->returnable));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The censuses that show growth g: those whose memory in use (held), free
 * (kept) or either (both) rose by RW_HEAP_GROWTH_MIN since the census
 * before that read the figures; the last RW_REPORT_HEAP_CENSUSES of them,
 * oldest first, and how many there are in *ret_total. */
static json_t *shown_by(const struct series *s, enum heap_growth g, size_t *ret_total)
{
	size_t idx[RW_REPORT_HEAP_CENSUSES], n = 0, total = 0, prev = SIZE_MAX;
	json_t *a = json_array();

	*ret_total = 0;
	if (!a)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->v[i].known)
			continue;
		if (prev != SIZE_MAX) {
			const struct heap_point *x = &s->v[prev], *y = &s->v[i];
			bool used = (int64_t)(y->in_use - x->in_use) >= (int64_t)RW_HEAP_GROWTH_MIN;
			bool kept = (int64_t)(y->free - x->free) >= (int64_t)RW_HEAP_GROWTH_MIN;
			bool shows = g == HEAP_GROWTH_HELD ? used : g == HEAP_GROWTH_KEPT ? kept
								 : g == HEAP_GROWTH_BOTH ? used || kept : false;
			if (shows) {
				total++;
				if (n == ELEMENTSOF(idx))
					memmove(idx, idx + 1, (n - 1) * sizeof(idx[0])), n--;
				idx[n++] = i;
			}
		}
		prev = i;
	}
	for (size_t k = 0; k < n; k++) {
		json_t *o = point_json(s, idx[k]);
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	*ret_total = total;
	return a;
}

static json_t *rise_json(const struct series *s, const struct heap_rise *x)
{
	json_t *o = json_object();
	int e = o ? 0 : -ENOMEM;

	e |= read_set(o, "flagged", json_boolean(x->flagged));
	e |= read_set(o, "first", point_json(s, x->first));
	e |= read_set(o, "last", point_json(s, x->last));
	e |= read_set(o, "rises", json_integer(x->rises));
	e |= read_set(o, "steps", json_integer(x->steps));
	e |= read_set(o, "span_ms", json_integer(x->span_ms));
	e |= read_set(o, "change", json_integer(x->change));
	e |= read_set(o, "bytes_per_hour", json_integer((json_int_t)x->bytes_per_hour));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The class's entry: its figures at the first and the last census that
 * read them, what its growth between the two was made of, the censuses
 * that show it, and the slow rise of in use (null when there was none to
 * flag, or too few censuses read the figures to tell). */
static int series_json(const struct series *s, json_t *a)
{
	size_t first = SIZE_MAX, last = SIZE_MAX, known = 0, total = 0;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].known) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
			known++;
		}
	if (first == SIZE_MAX)
		return 0;
	enum heap_growth g = heap_trend_growth(&s->v[first], &s->v[last]);
	struct heap_rise rise;
	bool flagged = heap_trend_slow_rise(s->v, s->n, &rise);
	json_t *o = json_object();
	int e = o ? 0 : -ENOMEM;

	e |= read_set(o, "class", json_string(s->cls));
	e |= read_set(o, "censuses", json_integer((json_int_t)known));
	e |= read_set(o, "first", point_json(s, first));
	e |= read_set(o, "last", point_json(s, last));
	e |= read_set(o, "growth", json_string(heap_growth_name(g)));
	e |= read_set(o, "shown_by", shown_by(s, g, &total));
	e |= read_set(o, "shown_by_count", json_integer((json_int_t)total));
	e |= read_set(o, "slow_rise", flagged ? rise_json(s, &rise) : json_null());
	e |= read_set(o, "how", s->how ? text_json_string(s->how) : json_null());
	if (e < 0 || json_array_append_new(a, o) < 0) {
		json_decref(o);
		return -ENOMEM;
	}
	return 0;
}

int read_heap_report(struct store_reader *r, int64_t process_id, json_t **ret)
{
	struct series s = { 0 };
	sqlite3_stmt *st = NULL;
	json_t *a = json_array();
	int e;

	if (!a)
		return -ENOMEM;
	e = read_query_prepare(r, &heap_query, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, process_id), "reading in use and free");
	while (e >= 0 && (e = read_step(r, st, "reading in use and free")) > 0) {
		const char *cls = (const char *)sqlite3_column_text(st, HC_CLASS);
		if (!cls)
			continue;
		if (!s.cls || strcmp(s.cls, cls) != 0) {
			if (s.cls && (e = series_json(&s, a)) < 0)
				break;
			series_clear(&s);
			if (!(s.cls = strdup(cls))) {
				e = -ENOMEM;
				break;
			}
		}
		e = series_add(&s, st);
	}
	if (e >= 0 && s.cls)
		e = series_json(&s, a);
	read_done(st);
	series_clear(&s);
	if (e < 0) {
		json_decref(a);
		return e;
	}
	*ret = a;
	return 0;
}
