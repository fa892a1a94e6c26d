/* Spans laid over private pages, for walkers whose allocator counts
 * bytes in use and free in a stretch without saying which pages hold
 * which: the JVM's heap (hsperfdata gives sums), a mimalloc page (its
 * header counts blocks in use, its free lists are in the blocks).
 *
 * Blocks a program holds have been written, so their pages are private
 * memory; what was never touched is free memory the allocator carved or
 * committed and nobody wrote.  So in such a stretch in use is counted
 * first, up to its private bytes, and free is what remains private, up
 * to the free bytes: the pages that are no memory go to free, not to in
 * use.  (Scaling both by the private share instead would count a page of
 * two blocks in use among six never touched as a quarter in use.)  The
 * spans' places inside the stretch are the private pages in address
 * order: how many bytes, not which. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "heap-walk.h"

/* Appends spans over the private pages (resident or swapped, as w->runs
 * read them: the stretch must lie in w's covers) of [start, end): in_use
 * bytes first, then free bytes, each at most what is private; free
 * spans are returnable when returnable is set.  Returns 0, -EINVAL (a
 * stretch before the last span), -ENOMEM. */
int heap_private_add(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free_bytes,
		     bool returnable);
