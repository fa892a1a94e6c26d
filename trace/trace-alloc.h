/* The allocation lifecycle of the replay: allocations, frees, releases,
 * resizes and remaps applied to the totals, the scope, the site, the stack and the
 * --site detail buckets.  Internal to the analyzer (trace-analyzer.c calls
 * these after deciding an event's layer, outcome and tracking). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-analyzer.h"

/* An event's scope: a path not yet interned (index < 0), or an index. */
struct trace_scope_ref {
	const char *path;
	size_t len;
	int64_t index;
};

/* The scope's index, interning its path when needed: 0 or -ENOMEM. */
int trace_alloc_scope(struct trace_analyzer *a, const struct trace_scope_ref *ref, uint32_t *ret);

/* Each returns 0 or -ENOMEM. */
int trace_alloc_tracked(struct trace_analyzer *a, uint32_t allocator_id, uint64_t key, uint32_t scope,
			uint64_t return_address, uint32_t stack_id, uint64_t len);
/* count: the calls it stands for (an untracked alloc's "count", 1 when absent) */
int trace_alloc_untracked(struct trace_analyzer *a, uint32_t scope, uint64_t return_address, uint32_t stack_id,
			  uint64_t len, uint64_t count);
/* A tracked free; scope and len count only when the key is not live. */
int trace_alloc_free(struct trace_analyzer *a, uint64_t key, uint32_t allocator_id,
		     const struct trace_scope_ref *scope, uint64_t len);
void trace_alloc_release(struct trace_analyzer *a, uint64_t key);
int trace_alloc_resize(struct trace_analyzer *a, uint64_t key, uint64_t new_len, bool is_remap);
int trace_alloc_remap(struct trace_analyzer *a, uint64_t old_key, uint64_t new_key, uint64_t new_len);
int trace_alloc_lose(struct trace_analyzer *a, uint64_t key, uint64_t new_len);

/* A record of a binary trace of the logical kinds (alloc, free, resize,
 * move), its scope resolved, by the rules of the event it stands for:
 * trace_alloc_tracked, _free, _resize or _remap, or the count of its
 * failure.  Returns 0, -EINVAL (err says why) or -ENOMEM. */
int trace_alloc_record(struct trace_analyzer *a, const struct trace_bin_record *rec, const struct trace_scope_ref *ref,
		       struct error *err);

/* An alloc record (succeeded) and the free record of the same address
 * right after it, as most small blocks of a thread are freed: the two
 * replayed as trace_alloc_record replays them one after the other, without
 * putting the allocation in the live table to take it out again.
 * trace_alloc_pairs says whether the analyzer's options allow it (no
 * sites, stacks or site detail, which would count more); the caller
 * resolves the alloc's scope with trace_alloc_pair_scope (0 or -ENOMEM)
 * before it counts the free event, and passes the analyzer's events as
 * they were after the alloc was counted. */
bool trace_alloc_pairs(const struct trace_analyzer *a);
int trace_alloc_pair_scope(struct trace_analyzer *a, const struct trace_bin_record *alloc,
			   const struct trace_scope_ref *ref, uint32_t *ret);
void trace_alloc_pair(struct trace_analyzer *a, const struct trace_bin_record *alloc, uint32_t scope,
		      uint64_t allocation_event);

/* Whether the allocator frees memory back (unknown allocators do), and
 * the layer it declared (unknown: backing_boundary). */
bool trace_alloc_releases(struct trace_analyzer *a, uint32_t allocator_id);
enum trace_layer trace_alloc_layer(struct trace_analyzer *a, uint32_t allocator_id);
