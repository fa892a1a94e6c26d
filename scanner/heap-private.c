/* Spans laid over a stretch's private pages, in use first
 * (heap-private.h).  Pure: it reads only the walk's residency. */
#include "heap-private.h"

/* The first run of runs ending after addr. */
static size_t first_after(const struct page_runs *runs, uint64_t addr)
{
	size_t lo = 0, hi = runs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (runs->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int heap_private_add(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free_bytes,
		     bool returnable)
{
	for (size_t i = first_after(&w->runs, start); i < w->runs.n && w->runs.v[i].start < end; i++) {
		const struct page_run *run = &w->runs.v[i];
		if (run->state != PAGE_RESIDENT && run->state != PAGE_SWAPPED)
			continue;
		uint64_t at = run->start > start ? run->start : start, stop = run->end < end ? run->end : end;
		uint64_t take = stop - at < in_use ? stop - at : in_use;
		if (take) {
			int r = heap_walk_add(w, at, at + take, take, 0);
			if (r < 0)
				return r;
			at += take;
			in_use -= take;
		}
		take = stop - at < free_bytes ? stop - at : free_bytes;
		if (take) {
			int r = returnable ? heap_walk_add_free(w, at, at + take, at, at + take)
					   : heap_walk_add(w, at, at + take, 0, take);
			if (r < 0)
				return r;
			free_bytes -= take;
		}
		if (!in_use && !free_bytes)
			break;
	}
	return 0;
}
