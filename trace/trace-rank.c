/* Collecting and sorting report rows. */
#include "trace-rank.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const sort_names[_TRACE_SORT_MAX] = {
	[TRACE_SORT_RETAINED] = "retained",
	[TRACE_SORT_TRAFFIC] = "traffic",
	[TRACE_SORT_LIFETIME] = "lifetime",
};

const char *trace_sort_name(enum trace_sort s)
{
	return s < _TRACE_SORT_MAX ? sort_names[s] : "?";
}

int trace_sort_from_name(const char *s)
{
	for (int i = 0; i < _TRACE_SORT_MAX; i++)
		if (strcmp(sort_names[i], s) == 0)
			return i;
	return -1;
}

void trace_rows_free(struct trace_rows *rows)
{
	free(rows->v);
	*rows = (struct trace_rows){ 0 };
}

/* Larger first. */
#define BY(field)                                   \
	do {                                        \
		if (a->field != b->field)           \
			return a->field > b->field ? -1 : 1; \
	} while (0)

int trace_counters_order(enum trace_sort sort, const struct trace_counters *a, const struct trace_counters *b)
{
	switch (sort) {
	case TRACE_SORT_RETAINED:
		BY(retained_bytes);
		BY(high_water_retained_bytes);
		break;
	case TRACE_SORT_TRAFFIC:
		BY(allocated_bytes);
		BY(allocations);
		break;
	case TRACE_SORT_LIFETIME:
		BY(lifetime_total_byte_events);
		BY(lifetime_total_events);
		BY(lifetime_max_events);
		BY(completed_lifetimes);
		break;
	default: break;
	}
	/* then the same fixed chain whatever the sort */
	BY(retained_bytes);
	BY(high_water_retained_bytes);
	BY(allocated_bytes);
	BY(allocations);
	BY(lifetime_total_byte_events);
	BY(lifetime_total_events);
	BY(lifetime_max_events);
	BY(completed_lifetimes);
	BY(live_bytes);
	BY(high_water_live_bytes);
	return 0;
}

static int compare_named(const void *x, const void *y, void *data)
{
	const struct trace_row *a = x, *b = y;
	int o = trace_counters_order(*(const enum trace_sort *)data, a->counters, b->counters);
	if (o)
		return o;
	/* byte order, a prefix first */
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static int compare_keyed(const void *x, const void *y, void *data)
{
	const struct trace_row *a = x, *b = y;
	int o = trace_counters_order(*(const enum trace_sort *)data, a->counters, b->counters);
	if (o)
		return o;
	return a->key < b->key ? -1 : a->key > b->key;
}

static bool shown(const struct trace_counters *c, const struct trace_filter *f)
{
	if (!f)
		return true;
	if (!f->include_zero_live && c->live_bytes == 0 && c->high_water_live_bytes == 0 && c->retained_bytes == 0)
		return false;
	return !(c->live_bytes < f->min_bytes && c->high_water_live_bytes < f->min_bytes &&
		 c->retained_bytes < f->min_bytes);
}

static int finish(struct trace_rows *rows, enum trace_sort sort, bool named, size_t top, struct trace_rows *ret)
{
	if (rows->n)
		qsort_r(rows->v, rows->n, sizeof(rows->v[0]), named ? compare_named : compare_keyed, &sort);
	if (rows->n > top)
		rows->n = top;
	*ret = *rows;
	return 0;
}

static int alloc_rows(struct trace_rows *rows, size_t n)
{
	rows->n = 0;
	rows->v = calloc(n ? n : 1, sizeof(rows->v[0]));
	return rows->v ? 0 : -ENOMEM;
}

int trace_rank_scopes(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		      size_t top, struct trace_rows *ret)
{
	struct trace_rows rows;
	if (alloc_rows(&rows, a->scopes.n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < a->scopes.n; i++) {
		const struct trace_scope *s = &a->scopes.v[i];
		if (shown(&s->counters, f))
			rows.v[rows.n++] = (struct trace_row){ .name = s->path, .name_len = s->len, .counters = &s->counters };
	}
	return finish(&rows, sort, true, top, ret);
}

/* Rows from a table of slots holding a key and then counters. */
static int rank_table(const struct hashtab *t, size_t counters_offset, enum trace_sort sort,
		      const struct trace_filter *f, size_t top, struct trace_rows *ret)
{
	struct trace_rows rows;
	if (alloc_rows(&rows, t->count) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < hashtab_slots(t); i++) {
		const unsigned char *slot = hashtab_at(t, i);
		if (!slot)
			continue;
		const struct trace_counters *c = (const void *)(slot + counters_offset);
		uint64_t key;
		memcpy(&key, slot, sizeof(key));
		if (shown(c, f))
			rows.v[rows.n++] = (struct trace_row){ .key = key, .counters = c };
	}
	return finish(&rows, sort, false, top, ret);
}

int trace_rank_sites(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		     size_t top, struct trace_rows *ret)
{
	return rank_table(&a->sites, offsetof(struct trace_site, counters), sort, f, top, ret);
}

int trace_rank_stacks(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		      size_t top, struct trace_rows *ret)
{
	return rank_table(&a->stacks, offsetof(struct trace_stack, counters), sort, f, top, ret);
}

int trace_rank_detail_sizes(const struct trace_analyzer *a, enum trace_sort sort, size_t top,
			    struct trace_rows *ret)
{
	return rank_table(&a->detail_sizes, offsetof(struct trace_bucket, counters), sort, NULL, top, ret);
}

int trace_rank_detail_scopes(const struct trace_analyzer *a, enum trace_sort sort, size_t top,
			     struct trace_rows *ret)
{
	struct trace_rows rows;
	int r = rank_table(&a->detail_scopes, offsetof(struct trace_bucket, counters), sort, NULL, SIZE_MAX, &rows);
	if (r < 0)
		return r;
	for (size_t i = 0; i < rows.n; i++) {
		const struct trace_scope *s = &a->scopes.v[rows.v[i].key];
		rows.v[i].name = s->path;
		rows.v[i].name_len = s->len;
	}
	return finish(&rows, sort, true, top, ret);
}
