/* The pages of a paged answer merged into one (store-read-page.h).  The
 * rule of what belongs together lives here, beside the code that cuts the
 * pages, so that a change in one is seen in the other: a page of history
 * gives the censuses and marks of the time it covers, which ends at its
 * last row's time, and the next page starts after that row, so an entry at
 * that very time may come twice. */
#include "store-read-page.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-field.h"
#include "macro.h"
#include "util.h"

/* The lists an entry of which may be in two pages, and the lists of rows,
 * each in exactly one page. */
static const char *const repeated[] = { "instances", "censuses", "marks" };
static const char *const rows[] = { "samples", "events" };

/* What names entry v of the list array across pages (a key of a JSON
 * object): an instance by process_id, a census by census_id, a mark by
 * process_id, time and name.  NULL when out of memory. */
static char *identity(const char *array, const json_t *v)
{
	const char *name = json_string_value(json_object_get(v, "name"));
	char *s = NULL;
	int n;

	if (streq(array, "censuses"))
		n = asprintf(&s, "%" PRId64, json_field_int_or(v, "census_id", 0));
	else if (streq(array, "instances"))
		n = asprintf(&s, "%" PRId64, json_field_int_or(v, "process_id", 0));
	else
		n = asprintf(&s, "%" PRId64 "/%" PRId64 "/%s", json_field_int_or(v, "process_id", 0),
			     json_field_int_or(v, "time", 0), name ? name : "");
	return n < 0 ? NULL : s;
}

/* Appends the entries of page's list key that into's does not hold. */
static int merge_repeated(json_t *into, const json_t *page, const char *key)
{
	json_t *dst = json_object_get(into, key), *v;
	const json_t *src = json_object_get(page, key);
	_cleanup_(json_decrefp) json_t *seen = json_object();
	size_t i;

	if (!seen)
		return -ENOMEM;
	if (!json_is_array(src))
		return 0;
	if (!json_is_array(dst)) {
		if (json_object_set_new(into, key, json_array()) < 0)
			return -ENOMEM;
		dst = json_object_get(into, key);
	}
	json_array_foreach(dst, i, v) {
		_cleanup_free_ char *id = identity(key, v);
		if (!id || json_object_set_new(seen, id, json_true()) < 0)
			return -ENOMEM;
	}
	json_array_foreach(src, i, v) {
		_cleanup_free_ char *id = identity(key, v);
		if (!id)
			return -ENOMEM;
		if (json_object_get(seen, id))
			continue;
		if (json_object_set_new(seen, id, json_true()) < 0 || json_array_append(dst, v) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Appends page's list key to into's.  Returns the rows added or -ENOMEM. */
static int merge_rows(json_t *into, const json_t *page, const char *key)
{
	json_t *dst = json_object_get(into, key);
	const json_t *src = json_object_get(page, key);

	if (!json_is_array(src))
		return 0;
	if (!json_is_array(dst))
		return json_object_set(into, key, (json_t *)src) < 0 ? -ENOMEM : (int)json_array_size(src);
	return json_array_extend(dst, (json_t *)src) < 0 ? -ENOMEM : (int)json_array_size(src);
}

int store_read_merge_page(json_t *into, const json_t *page)
{
	json_t *next = json_object_get(page, "next");
	int r, added = 0;

	for (size_t i = 0; i < ELEMENTSOF(repeated); i++)
		if ((r = merge_repeated(into, page, repeated[i])) < 0)
			return r;
	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		if ((r = merge_rows(into, page, rows[i])) < 0)
			return r;
		added += r;
	}
	if (json_object_set(into, "next", next ? next : json_null()) < 0)
		return -ENOMEM;
	return added;
}
