/* The report's "since_previous": a census against the ok census before it
 * of the same instance — class by class, the files that came and went, and
 * how many region events the later census found.  Every query is keyed by
 * the two census ids (primary keys, region_events_by_census). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-read-internal.h"

/* One class in either census.  A class missing from one census had no
 * region there (0); a light census did not measure it (unknown). */
struct compared {
	char key[32];
	bool known_before, known_after;
	int64_t before, after;
};

static bool change_known(const struct compared *c)
{
	return c->known_before && c->known_after;
}

static int64_t magnitude(const struct compared *c)
{
	int64_t d = c->after - c->before;
	return d < 0 ? -d : d;
}

/* The largest change first; unknown changes last; then by key. */
static int compare_change(const void *a, const void *b)
{
	const struct compared *x = a, *y = b;

	if (change_known(x) != change_known(y))
		return change_known(x) ? -1 : 1;
	if (change_known(x) && magnitude(x) != magnitude(y))
		return magnitude(x) > magnitude(y) ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int previous(struct store_reader *r, int64_t process_id, int64_t census_id, int64_t time, int64_t *ret_id,
		    int64_t *ret_time)
{
	static const struct read_column columns[] = { { "id", READ_KEY }, { "time", READ_KEY } };
	static const struct read_query q = READ_QUERY(
		RS_CENSUS_PREVIOUS,
		"SELECT id, time FROM censuses WHERE process_id = ?1 AND time <= ?2"
		" AND (time < ?2 OR id < ?3) AND status = 'ok' ORDER BY time DESC, id DESC LIMIT 1",
		columns);
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_query_prepare(r, &q, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, time);
	rc |= sqlite3_bind_int64(st, 3, census_id);
	e = read_bound(r, st, rc, "finding the census before");
	if (e >= 0)
		e = read_step(r, st, "finding the census before");
	if (e > 0) {
		*ret_id = sqlite3_column_int64(st, 0);
		*ret_time = sqlite3_column_int64(st, 1);
	}
	read_done(st);
	return e;
}

/* The census whose classes and files are census_id's: the census it
 * repeats, or itself.  Returns 0 with *ret or a negative errno. */
static int content_of(struct store_reader *r, int64_t census_id, int64_t *ret)
{
	static const struct read_column columns[] = { { "content", READ_KEY } };
	static const struct read_query q = READ_QUERY(
		RS_CENSUS_CONTENT, "SELECT coalesce(repeats, id) AS content FROM censuses WHERE id = ?1", columns);
	sqlite3_stmt *st = NULL;
	int e;

	e = read_query_prepare(r, &q, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "finding a census's content");
	if (e >= 0)
		e = read_step(r, st, "finding a census's content");
	*ret = e > 0 ? sqlite3_column_int64(st, 0) : census_id;
	read_done(st);
	return e < 0 ? e : 0;
}

/* Each class of census ?1 (after) or ?2 (before): whether it is in each,
 * its private memory there, and whether that is unknown (a light census). */
enum compared_column {
	CMP_CLASS,
	CMP_IN_AFTER,
	CMP_PRIVATE_AFTER,
	CMP_IN_BEFORE,
	CMP_PRIVATE_BEFORE,
	CMP_UNKNOWN_AFTER,
	CMP_UNKNOWN_BEFORE,
	_CMP_MAX
};
static const struct read_column compared_columns[] = {
	[CMP_CLASS] = { "class", READ_KEY },
	[CMP_IN_AFTER] = { "in_after", READ_KEY },
	[CMP_PRIVATE_AFTER] = { "private_after", READ_KEY },
	[CMP_IN_BEFORE] = { "in_before", READ_KEY },
	[CMP_PRIVATE_BEFORE] = { "private_before", READ_KEY },
	[CMP_UNKNOWN_AFTER] = { "unknown_after", READ_KEY },
	[CMP_UNKNOWN_BEFORE] = { "unknown_before", READ_KEY },
};
_Static_assert(ELEMENTSOF(compared_columns) == _CMP_MAX, "a column for every field");
static const struct read_query compared_query = READ_QUERY(
	RS_CLASSES_COMPARED,
	"SELECT class,"
	"  max(census_id = ?1) AS in_after, max(CASE WHEN census_id = ?1 THEN private END) AS private_after,"
	"  max(census_id = ?2) AS in_before, max(CASE WHEN census_id = ?2 THEN private END) AS private_before,"
	"  max(census_id = ?1 AND private IS NULL) AS unknown_after,"
	"  max(census_id = ?2 AND private IS NULL) AS unknown_before"
	" FROM census_classes WHERE census_id IN (?1, ?2) GROUP BY class",
	compared_columns);

static int classes(struct store_reader *r, int64_t after, int64_t before, json_t **ret)
{
	struct compared *c = NULL;
	size_t n = 0, allocated = 0;
	sqlite3_stmt *st = NULL;
	json_t *a = NULL;
	int e, rc;

	e = read_query_prepare(r, &compared_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, after);
	rc |= sqlite3_bind_int64(st, 2, before);
	e = read_bound(r, st, rc, "comparing classes");
	while (e >= 0 && (e = read_step(r, st, "comparing classes")) > 0) {
		const char *key = (const char *)sqlite3_column_text(st, CMP_CLASS);
		if (n == allocated) {
			size_t more = allocated ? 2 * allocated : 16;
			struct compared *grown = realloc(c, more * sizeof(*c));
			if (!grown) {
				e = -ENOMEM;
				break;
			}
			c = grown;
			allocated = more;
		}
		c[n] = (struct compared){
			.before = sqlite3_column_int64(st, CMP_PRIVATE_BEFORE),
			.after = sqlite3_column_int64(st, CMP_PRIVATE_AFTER),
			/* absent: no region of that class, so 0 and known */
			.known_after = !sqlite3_column_int(st, CMP_UNKNOWN_AFTER),
			.known_before = !sqlite3_column_int(st, CMP_UNKNOWN_BEFORE),
		};
		snprintf(c[n].key, sizeof(c[n].key), "%s", key ? key : "?");
		n++;
	}
	read_done(st);
	if (e >= 0) {
		qsort_safe(c, n, sizeof(*c), compare_change);
		a = json_array();
		e = a ? 0 : -ENOMEM;
	}
	for (size_t i = 0; e >= 0 && i < n; i++) {
		json_t *o = json_object();
		e = o ? 0 : -ENOMEM;
		e |= read_set(o, "class", json_string(c[i].key));
		e |= read_set(o, "private_before", c[i].known_before ? json_integer(c[i].before) : json_null());
		e |= read_set(o, "private", c[i].known_after ? json_integer(c[i].after) : json_null());
		e |= read_set(o, "change", change_known(&c[i]) ? json_integer(c[i].after - c[i].before) : json_null());
		if (e < 0 || json_array_append_new(a, o) < 0) {
			json_decref(o);
			e = -ENOMEM;
		}
	}
	free(c);
	if (e < 0) {
		json_decref(a);
		return e;
	}
	*ret = a;
	return 0;
}

/* The files of census ?1 that are not in census ?2, by path: the new ones
 * with their memory, the gone ones without (their memory is gone too). */
#define FILES_NOT_IN                                                                                   \
	" FROM census_files f JOIN paths p ON p.id = f.path_id"                                         \
	" WHERE f.census_id = ?1"                                                                       \
	"  AND NOT EXISTS (SELECT 1 FROM census_files o WHERE o.census_id = ?2 AND o.path_id = f.path_id)" \
	" ORDER BY p.path"
static const struct read_column new_files_columns[] = {
	{ "path", READ_STR },
	{ "kind", READ_STR },
	{ "size", READ_INT },
	{ "resident", READ_INT },
	{ "private", READ_INT },
};
static const struct read_column gone_files_columns[] = {
	{ "path", READ_STR },
	{ "kind", READ_STR },
	{ "size", READ_INT },
};
static const struct read_query new_files =
	READ_QUERY(RS_FILES_NEW, "SELECT p.path, f.kind, f.size, f.resident, f.private" FILES_NOT_IN, new_files_columns);
static const struct read_query gone_files =
	READ_QUERY(RS_FILES_GONE, "SELECT p.path, f.kind, f.size" FILES_NOT_IN, gone_files_columns);

/* The files of census in that are not in census out, as q gives them. */
static int files(struct store_reader *r, const struct read_query *q, int64_t in, int64_t out, json_t **ret)
{
	json_t *a = json_array();
	sqlite3_stmt *st = NULL;
	int e, rc;

	if (!a)
		return -ENOMEM;
	e = read_query_prepare(r, q, &st);
	if (e >= 0) {
		rc = sqlite3_bind_int64(st, 1, in);
		rc |= sqlite3_bind_int64(st, 2, out);
		e = read_bound(r, st, rc, "comparing files");
	}
	if (e >= 0)
		e = read_rows(r, st, q, 0, a, NULL, NULL, "comparing files");
	if (e < 0) {
		json_decref(a);
		return e;
	}
	*ret = a;
	return 0;
}

static int event_counts(struct store_reader *r, int64_t census_id, json_t **ret)
{
	static const char *const kinds[] = { "appeared", "disappeared", "grew", "shrank" };
	/* a row names its key: the kind, and its count */
	static const struct read_column columns[] = { { "kind", READ_KEY }, { "count", READ_KEY } };
	static const struct read_query q = READ_QUERY(
		RS_EVENT_COUNTS, "SELECT kind, count(*) AS count FROM region_events WHERE census_id = ?1 GROUP BY kind",
		columns);
	json_t *o = json_object();
	sqlite3_stmt *st = NULL;
	int e = o ? 0 : -ENOMEM;

	/* every kind, zero included, so a reader need not guess */
	for (size_t i = 0; e >= 0 && i < ELEMENTSOF(kinds); i++)
		e = read_set(o, kinds[i], json_integer(0));
	if (e >= 0)
		e = read_query_prepare(r, &q, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, census_id), "counting region events");
	while (e >= 0 && (e = read_step(r, st, "counting region events")) > 0)
		e = read_set(o, (const char *)sqlite3_column_text(st, 0), read_column_int(st, 1));
	read_done(st);
	if (e < 0) {
		json_decref(o);
		return e;
	}
	*ret = o;
	return 0;
}

int read_since_previous(struct store_reader *r, int64_t process_id, int64_t census_id, int64_t time,
			json_t **ret)
{
	json_t *o = NULL, *cls = NULL, *gained = NULL, *lost = NULL, *events = NULL;
	int64_t before_id, before_time, after_content, before_content;
	int e;

	e = previous(r, process_id, census_id, time, &before_id, &before_time);
	if (e <= 0) {
		if (e == 0)
			*ret = json_null();
		return e;
	}
	/* a repeat is compared by the content it stands for */
	e = content_of(r, census_id, &after_content);
	if (e >= 0)
		e = content_of(r, before_id, &before_content);
	if (e >= 0)
		e = classes(r, after_content, before_content, &cls);
	if (e >= 0)
		e = files(r, &new_files, after_content, before_content, &gained);
	if (e >= 0)
		e = files(r, &gone_files, before_content, after_content, &lost);
	if (e >= 0)
		e = event_counts(r, census_id, &events);
	if (e >= 0) {
		o = json_object();
		e = o ? 0 : -ENOMEM;
		e |= read_set(o, "previous_census_id", json_integer(before_id));
		e |= read_set(o, "previous_time", json_integer(before_time));
		e |= read_set(o, "classes", json_incref(cls));
		e |= read_set(o, "new_files", json_incref(gained));
		e |= read_set(o, "gone_files", json_incref(lost));
		e |= read_set(o, "region_events", json_incref(events));
	}
	json_decref(cls);
	json_decref(gained);
	json_decref(lost);
	json_decref(events);
	if (e < 0) {
		json_decref(o);
		return e;
	}
	*ret = o;
	return 0;
}
