/* Spans laid over a stretch's private pages, in use first
 * (heap-private.h).  Pure: it reads only the walk's residency. */
#include "heap-private.h"

int heap_private_add(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free_bytes,
		     bool returnable)
{
	for (size_t i = page_runs_first_after(&w->runs, start); i < w->runs.n && w->runs.v[i].start < end; i++) {
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
