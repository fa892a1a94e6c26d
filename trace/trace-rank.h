/* Ranking of scopes, sites and --site detail buckets: which rows a report
 * shows and in what order (the reference's counterOrder and tie-breaks). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-analyzer.h"

enum trace_sort {
	TRACE_SORT_RETAINED, /* what is kept */
	TRACE_SORT_TRAFFIC,  /* what is churned */
	TRACE_SORT_LIFETIME, /* how long bytes lived */
	_TRACE_SORT_MAX,
};

const char *trace_sort_name(enum trace_sort s);
/* The sort named s, or -1. */
int trace_sort_from_name(const char *s);

/* One row: a scope (name), a site (key: its return address), a stack
 * (key: its stack_id) or a detail
 * bucket (key: a length; or name: a scope). */
struct trace_row {
	const char *name;
	size_t name_len;
	uint64_t key;
	const struct trace_counters *counters;
};

struct trace_rows {
	struct trace_row *v;
	size_t n;
};

void trace_rows_free(struct trace_rows *rows);

/* Which scopes and sites are shown: unless include_zero_live, those with
 * nothing live, never anything live and nothing retained are left out;
 * so are those whose live, high-water live and retained bytes are all
 * below min_bytes. */
struct trace_filter {
	uint64_t min_bytes;
	bool include_zero_live;
};

/* Each collects the rows, sorted, keeping the first top.  The rows point
 * into the analyzer.  Returns 0 or -ENOMEM. */
int trace_rank_scopes(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		      size_t top, struct trace_rows *ret);
int trace_rank_sites(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		     size_t top, struct trace_rows *ret);
/* Stacks (--stacks) by the same rules as sites; the row of events
 * without a stack_id has key 0. */
int trace_rank_stacks(const struct trace_analyzer *a, enum trace_sort sort, const struct trace_filter *f,
		      size_t top, struct trace_rows *ret);
/* Detail buckets are all shown (no filter), by length and by scope. */
int trace_rank_detail_sizes(const struct trace_analyzer *a, enum trace_sort sort, size_t top,
			    struct trace_rows *ret);
int trace_rank_detail_scopes(const struct trace_analyzer *a, enum trace_sort sort, size_t top,
			     struct trace_rows *ret);

/* < 0 when a ranks before b under sort, > 0 after, 0 when the counters
 * tie (rows then go by name or key, ascending). */
int trace_counters_order(enum trace_sort sort, const struct trace_counters *a, const struct trace_counters *b);
