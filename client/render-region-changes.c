/* The region changes between two stored censuses (render-region-changes.h).
 * The events answer gives one event per region per census that saw it
 * change; between two censuses a region may have changed at each census
 * in between, so its events are folded into one change from its state
 * before the first to its state after the last. */
#include "render-region-changes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "render-answer.h"
#include "table.h"
#include "util.h"

struct event {
	struct region_change c;
	size_t seq; /* its place in the answer: time order */
};

static int bad(struct error *err, size_t i, const char *field)
{
	return error_set(err, -EBADMSG, "region event %zu: no valid \"%s\"", i, field);
}

static bool get_u64(const json_t *o, const char *key, uint64_t *ret)
{
	int64_t v;
	if (!answer_int(o, key, &v) || v < 0)
		return false;
	*ret = (uint64_t)v;
	return true;
}

static int parse_event(const json_t *o, size_t i, struct event *ret, struct error *err)
{
	const char *kind = answer_str(o, "kind"), *start = answer_str(o, "start");
	const json_t *path = json_object_get(o, "path");
	struct region_change *c = &ret->c;
	char *end = NULL;
	int k;

	if (!json_is_object(o))
		return error_set(err, -EBADMSG, "region event %zu is not an object", i);
	if (!kind || (k = region_event_kind_from_name(kind)) < 0)
		return bad(err, i, "kind");
	c->kind = (enum region_event_kind)k;
	if (!start || strncmp(start, "0x", 2) != 0)
		return bad(err, i, "start");
	errno = 0;
	c->start = strtoull(start + 2, &end, 16);
	if (errno || end == start + 2 || *end)
		return bad(err, i, "start");
	c->cls = answer_str(o, "class");
	if (path && !json_is_null(path) && !json_is_string(path))
		return bad(err, i, "path");
	c->path = json_is_string(path) ? json_string_value(path) : NULL;
	if (!get_u64(o, "size", &c->size))
		return bad(err, i, "size");
	if (!get_u64(o, "size_before", &c->size_before))
		return bad(err, i, "size_before");
	if (!get_u64(o, "private", &c->private))
		return bad(err, i, "private");
	if (!get_u64(o, "private_before", &c->private_before))
		return bad(err, i, "private_before");
	ret->seq = i;
	return 0;
}

static int cmp_start(const void *x, const void *y)
{
	const struct event *a = x, *b = y;
	if (a->c.start != b->c.start)
		return a->c.start < b->c.start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* How much a change moved: of size or private, the more. */
static uint64_t magnitude(const struct region_change *c)
{
	uint64_t s = distance(c->size, c->size_before), p = distance(c->private, c->private_before);
	return s > p ? s : p;
}

static int cmp_magnitude(const void *x, const void *y)
{
	const struct region_change *a = x, *b = y;
	uint64_t ma = magnitude(a), mb = magnitude(b);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Folds the events of one region (first .. last, in time order) into
 * *ret.  Returns false when they add up to no change. */
static bool fold(const struct event *first, const struct event *last, struct region_change *ret)
{
	bool before = first->c.kind != REGION_APPEARED, after = last->c.kind != REGION_DISAPPEARED;
	struct region_change c = last->c;

	if (!before && !after)
		return false; /* came and went between the two censuses */
	c.size_before = before ? first->c.size_before : 0;
	c.private_before = before ? first->c.private_before : 0;
	if (!after)
		c.size = c.private = 0;
	if (!before)
		c.kind = REGION_APPEARED;
	else if (!after)
		c.kind = REGION_DISAPPEARED;
	else {
		int64_t ds = (int64_t)(c.size - c.size_before), dp = (int64_t)(c.private - c.private_before);
		int64_t d = distance(c.size, c.size_before) >= distance(c.private, c.private_before) ? ds : dp;
		if (d == 0)
			return false;
		c.kind = d > 0 ? REGION_GREW : REGION_SHRANK;
	}
	*ret = c;
	return true;
}

int region_changes_from_events(const json_t *events, struct region_change **ret, size_t *ret_n, struct error *err)
{
	_cleanup_free_ struct event *v = NULL;
	struct region_change *out;
	size_t n = json_array_size(events), m = 0;
	int r;

	if (events && !json_is_array(events))
		return error_set(err, -EBADMSG, "\"events\" is not an array");
	v = calloc(n ? n : 1, sizeof(*v));
	out = calloc(n ? n : 1, sizeof(*out));
	if (!v || !out) {
		free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if ((r = parse_event(json_array_get(events, i), i, &v[i], err)) < 0) {
			free(out);
			return r;
		}
	qsort_safe(v, n, sizeof(*v), cmp_start);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].c.start == v[i].c.start;)
			j++;
		if (fold(&v[i], &v[j - 1], &out[m]))
			m++;
	}
	qsort_safe(out, m, sizeof(*out), cmp_magnitude);
	*ret = out;
	*ret_n = m;
	return 0;
}

int render_region_changes(const struct region_change *v, size_t n, size_t top, const struct render_options *o,
			  FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("CHANGE", ">SIZE", ">CHANGE", ">PRIVATE", ">CHANGE",
							   "CLASS", "ADDRESS", "PATH", NULL);
	char s[4][FORMAT_BYTES_MAX];
	size_t shown = top && top < n ? top : n;
	int r;

	if (!t)
		return -ENOMEM;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < shown; i++) {
		const struct region_change *c = &v[i];
		r = table_add(t, region_event_kind_name(c->kind));
		r |= table_add(t, format_bytes(s[0], c->kind == REGION_DISAPPEARED ? c->size_before : c->size));
		r |= table_add(t, format_bytes_delta(s[1], (int64_t)(c->size - c->size_before)));
		r |= table_add(t, format_bytes(s[2], c->kind == REGION_DISAPPEARED ? c->private_before : c->private));
		r |= table_add(t, format_bytes_delta(s[3], (int64_t)(c->private - c->private_before)));
		r |= table_add(t, c->cls && c->cls[0] ? c->cls : "unknown");
		r |= table_addf(t, "%" PRIx64, c->start);
		r |= table_add(t, c->path ? c->path : "");
		if (r < 0)
			return -ENOMEM;
	}
	if (o->format == RENDER_MARKDOWN)
		fputs("\n### Regions that appeared, grew, shrank or disappeared, largest first\n\n", f);
	else
		fputs("\nRegions that appeared, grew, shrank or disappeared, largest first\n", f);
	r = o->format == RENDER_MARKDOWN ? table_print_markdown(t, f) : table_print(t, f);
	if (r >= 0 && shown < n)
		fprintf(f, "%s%zu more\n", o->format == RENDER_MARKDOWN ? "\n" : "", n - shown);
	return r < 0 ? r : ferror(f) ? -EIO : 0;
}

json_t *region_changes_json(const struct region_change *v, size_t n)
{
	json_t *a = json_array();
	char start[24];

	for (size_t i = 0; a && i < n; i++) {
		const struct region_change *c = &v[i];
		snprintf(start, sizeof(start), "0x%" PRIx64, c->start);
		json_t *o = json_pack("{s:s, s:s, s:s?, s:s?, s:I, s:I, s:I, s:I}", "kind", region_event_kind_name(c->kind),
				      "start", start, "class", c->cls, "path", c->path, "size", (json_int_t)c->size,
				      "size_before", (json_int_t)c->size_before, "private", (json_int_t)c->private,
				      "private_before", (json_int_t)c->private_before);
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
