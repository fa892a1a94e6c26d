/* Allocation lifecycle rules of the replay (the reference analyzer's
 * recordAllocation, recordFree, recordRelease, resizeAllocation,
 * recordRemap and recordLostTrackingRemap, and what they apply to sites and
 * to the --site detail buckets).  A stack of --stacks counts as a site does:
 * what its alloc event allocated, whatever stack the free names. */
#include "trace-alloc.h"

#include <errno.h>
#include <string.h>

int trace_alloc_scope(struct trace_analyzer *a, const struct trace_scope_ref *ref, uint32_t *ret)
{
	if (ref->index >= 0) {
		*ret = (uint32_t)ref->index;
		return 0;
	}
	return trace_scopes_intern(&a->scopes, ref->path, ref->len, ret);
}

static const struct trace_allocator *allocator_of(struct trace_analyzer *a, uint32_t allocator_id)
{
	if (!a->allocator_cached || a->cached_allocator_id != allocator_id) {
		a->cached_allocator = hashtab_get(&a->allocators, allocator_id);
		a->cached_allocator_id = allocator_id;
		a->allocator_cached = true;
	}
	return a->cached_allocator;
}

bool trace_alloc_releases(struct trace_analyzer *a, uint32_t allocator_id)
{
	const struct trace_allocator *s = allocator_of(a, allocator_id);
	return !s || !s->retains_freed_memory;
}

enum trace_layer trace_alloc_layer(struct trace_analyzer *a, uint32_t allocator_id)
{
	const struct trace_allocator *s = allocator_of(a, allocator_id);
	return s ? s->layer : TRACE_LAYER_BACKING;
}

/* Logical allocators count requests, which retain nothing themselves. */
static bool tracks_retained(struct trace_analyzer *a, uint32_t allocator_id)
{
	return trace_alloc_layer(a, allocator_id) != TRACE_LAYER_LOGICAL;
}

static struct trace_counters *scope_counters(struct trace_analyzer *a, uint32_t scope)
{
	return &a->scopes.v[scope].counters;
}

static struct trace_counters *site_get(const struct trace_analyzer *a, uint64_t return_address)
{
	struct trace_site *s = hashtab_get(&a->sites, return_address);
	return s ? &s->counters : NULL;
}

static struct trace_counters *site_upsert(struct trace_analyzer *a, uint64_t return_address)
{
	bool is_new;
	struct trace_site *s = hashtab_upsert(&a->sites, return_address, &is_new);
	return s ? &s->counters : NULL;
}

static struct trace_counters *stack_get(const struct trace_analyzer *a, uint32_t stack_id)
{
	struct trace_stack *s = hashtab_get(&a->stacks, stack_id);
	return s ? &s->counters : NULL;
}

/* The rows an allocation counts in besides its scope: its site (--sites)
 * and its stack (--stacks), those there are; returns how many. */
static inline size_t rows_of(const struct trace_analyzer *a, uint64_t return_address, uint32_t stack_id,
			     struct trace_counters *ret[2])
{
	size_t n = 0;

	/* without --sites and --stacks (the usual summary) there are none */
	if (!a->options.track_sites && !a->options.track_stacks)
		return 0;

	if (a->options.track_sites && (ret[n] = site_get(a, return_address)))
		n++;
	if (a->options.track_stacks && (ret[n] = stack_get(a, stack_id)))
		n++;
	return n;
}

static struct trace_counters *bucket_get(const struct hashtab *t, uint64_t key)
{
	struct trace_bucket *b = hashtab_get(t, key);
	return b ? &b->counters : NULL;
}

static struct trace_counters *bucket_upsert(struct hashtab *t, uint64_t key)
{
	bool is_new;
	struct trace_bucket *b = hashtab_upsert(t, key, &is_new);
	return b ? &b->counters : NULL;
}

static bool is_detail_site(const struct trace_analyzer *a, uint64_t return_address)
{
	return a->options.has_site_detail && a->options.site_detail == return_address;
}

static int detail_alloc(struct trace_analyzer *a, uint32_t allocator_id, uint32_t scope, uint64_t len)
{
	bool tracks = tracks_retained(a, allocator_id);
	struct trace_counters *c = bucket_upsert(&a->detail_sizes, len);
	if (!c)
		return -ENOMEM;
	trace_counters_alloc(c, len, tracks);
	if (!(c = bucket_upsert(&a->detail_scopes, scope)))
		return -ENOMEM;
	trace_counters_alloc(c, len, tracks);
	return 0;
}

static void detail_free(struct trace_analyzer *a, uint32_t allocator_id, uint32_t scope, uint64_t len)
{
	bool releases = trace_alloc_releases(a, allocator_id);
	struct trace_counters *c;
	if ((c = bucket_get(&a->detail_sizes, len)))
		trace_counters_free(c, len, releases);
	if ((c = bucket_get(&a->detail_scopes, scope)))
		trace_counters_free(c, len, releases);
}

/* In the detail a resize moves the allocation from one size to another:
 * a free of the old length and an allocation of the new one. */
static int detail_resize(struct trace_analyzer *a, uint32_t allocator_id, uint32_t scope, uint64_t old_len,
			 uint64_t new_len)
{
	if (old_len == new_len)
		return 0;
	detail_free(a, allocator_id, scope, old_len);
	return detail_alloc(a, allocator_id, scope, new_len);
}

/* Inline in trace_alloc_record, for every alloc record of a binary trace. */
__attribute__((always_inline)) static inline int alloc_tracked(struct trace_analyzer *a, uint32_t allocator_id,
							       uint64_t key, uint32_t scope, uint64_t return_address,
							       uint32_t stack_id, uint64_t len)
{
	bool tracks = tracks_retained(a, allocator_id);
	struct trace_record *slot = trace_live_put(&a->allocations, key);
	struct trace_counters *c[2];

	if (!slot)
		return -ENOMEM;
	/* A second allocation under a live key replaces the record, as a map
	 * put does in the reference: the first one is never freed. */
	const struct trace_allocation rec = {
		.key = key,
		.len = len,
		.return_address = return_address,
		.allocation_event = a->events,
		.segment_event = a->events,
		.allocator_id = allocator_id,
		.scope = scope,
		.stack_id = stack_id,
	};
	if (trace_live_write(&a->allocations, slot, &rec) < 0)
		return -ENOMEM;
	trace_counters_alloc(&a->totals.c, len, tracks);
	if (a->options.totals_only)
		return 0;
	trace_counters_alloc(scope_counters(a, scope), len, tracks);
	if (a->options.track_sites && !site_upsert(a, return_address))
		return -ENOMEM;
	for (size_t i = 0, n = rows_of(a, return_address, stack_id, c); i < n; i++)
		trace_counters_alloc(c[i], len, tracks);
	if (is_detail_site(a, return_address))
		return detail_alloc(a, allocator_id, scope, len);
	return 0;
}

int trace_alloc_tracked(struct trace_analyzer *a, uint32_t allocator_id, uint64_t key, uint32_t scope,
			uint64_t return_address, uint32_t stack_id, uint64_t len)
{
	return alloc_tracked(a, allocator_id, key, scope, return_address, stack_id, len);
}

int trace_alloc_untracked(struct trace_analyzer *a, uint32_t scope, uint64_t return_address, uint32_t stack_id,
			  uint64_t len, uint64_t count)
{
	struct trace_counters *c[2];

	trace_counters_untracked(&a->totals.c, len, count);
	if (a->options.totals_only)
		return 0;
	trace_counters_untracked(scope_counters(a, scope), len, count);
	if (a->options.track_sites && !site_upsert(a, return_address))
		return -ENOMEM;
	for (size_t i = 0, n = rows_of(a, return_address, stack_id, c); i < n; i++)
		trace_counters_untracked(c[i], len, count);
	return 0;
}

static uint64_t span(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* Byte-events accrue per size segment: len bytes for the events since the
 * length last changed. */
static void accrue(struct trace_allocation *rec, uint64_t now)
{
	trace_add(&rec->byte_events, trace_mul(rec->len, span(rec->segment_event, now)));
	rec->segment_event = now;
}

/* A lifetime ends (free or release): it counts for the totals, the scope,
 * the site and the detail buckets of its current length and scope. */
static void end_lifetime(struct trace_analyzer *a, const struct trace_allocation *rec)
{
	uint64_t events = span(rec->allocation_event, a->events);
	uint64_t byte_events = rec->byte_events;
	struct trace_counters *c, *rows[2];

	trace_add(&byte_events, trace_mul(rec->len, span(rec->segment_event, a->events)));
	trace_counters_lifetime(&a->totals.c, events, byte_events);
	trace_counters_lifetime(scope_counters(a, rec->scope), events, byte_events);
	for (size_t i = 0, n = rows_of(a, rec->return_address, rec->stack_id, rows); i < n; i++)
		trace_counters_lifetime(rows[i], events, byte_events);
	if (is_detail_site(a, rec->return_address)) {
		if ((c = bucket_get(&a->detail_sizes, rec->len)))
			trace_counters_lifetime(c, events, byte_events);
		if ((c = bucket_get(&a->detail_scopes, rec->scope)))
			trace_counters_lifetime(c, events, byte_events);
	}
}

/* Inline in trace_alloc_record, as alloc_tracked. */
__attribute__((always_inline)) static inline int free_tracked(struct trace_analyzer *a, uint64_t key,
							      uint32_t allocator_id, const struct trace_scope_ref *scope,
							      uint64_t len)
{
	struct trace_allocation rec;
	struct trace_counters *c[2];
	uint32_t idx;
	int r;

	if (trace_live_take(&a->allocations, key, &rec)) {
		bool releases = trace_alloc_releases(a, rec.allocator_id);
		trace_counters_free(&a->totals.c, rec.len, releases);
		if (a->options.totals_only)
			return 0;
		end_lifetime(a, &rec);
		trace_counters_free(scope_counters(a, rec.scope), rec.len, releases);
		for (size_t i = 0, n = rows_of(a, rec.return_address, rec.stack_id, c); i < n; i++)
			trace_counters_free(c[i], rec.len, releases);
		if (is_detail_site(a, rec.return_address))
			detail_free(a, rec.allocator_id, rec.scope, rec.len);
		return 0;
	}
	/* A free of nothing live still frees what it says, from its own
	 * scope, as the reference does; it is also unbalanced evidence. */
	trace_add(&a->totals.unmatched_frees, 1);
	bool releases = trace_alloc_releases(a, allocator_id);
	trace_counters_free(&a->totals.c, len, releases);
	if (a->options.totals_only)
		return 0;
	if ((r = trace_alloc_scope(a, scope, &idx)) < 0)
		return r;
	trace_counters_free(scope_counters(a, idx), len, releases);
	return 0;
}

int trace_alloc_free(struct trace_analyzer *a, uint64_t key, uint32_t allocator_id,
		     const struct trace_scope_ref *scope, uint64_t len)
{
	return free_tracked(a, key, allocator_id, scope, len);
}

void trace_alloc_release(struct trace_analyzer *a, uint64_t key)
{
	struct trace_allocation rec;
	struct trace_counters *c, *rows[2];

	if (!trace_live_take(&a->allocations, key, &rec)) {
		trace_add(&a->totals.unmatched_frees, 1);
		return;
	}
	trace_counters_bulk_invalidate(&a->totals.c, rec.len);
	if (a->options.totals_only)
		return;
	end_lifetime(a, &rec);
	trace_counters_bulk_invalidate(scope_counters(a, rec.scope), rec.len);
	for (size_t i = 0, n = rows_of(a, rec.return_address, rec.stack_id, rows); i < n; i++)
		trace_counters_bulk_invalidate(rows[i], rec.len);
	if (is_detail_site(a, rec.return_address)) {
		if ((c = bucket_get(&a->detail_sizes, rec.len)))
			trace_counters_bulk_invalidate(c, rec.len);
		if ((c = bucket_get(&a->detail_scopes, rec.scope)))
			trace_counters_bulk_invalidate(c, rec.len);
	}
}

/* The length of a live allocation changes: totals, scope, site, detail.
 * A site's retained bytes grow with it whatever the allocator, as in the
 * reference (applySiteResize). */
static int change_length(struct trace_analyzer *a, const struct trace_allocation *rec, uint64_t new_len)
{
	bool tracks = tracks_retained(a, rec->allocator_id);
	bool releases = trace_alloc_releases(a, rec->allocator_id);
	struct trace_counters *c[2];

	trace_counters_resize(&a->totals.c, rec->len, new_len, tracks, releases);
	if (a->options.totals_only)
		return 0;
	trace_counters_resize(scope_counters(a, rec->scope), rec->len, new_len, tracks, releases);
	for (size_t i = 0, n = rows_of(a, rec->return_address, rec->stack_id, c); i < n; i++)
		trace_counters_resize(c[i], rec->len, new_len, true, releases);
	if (is_detail_site(a, rec->return_address))
		return detail_resize(a, rec->allocator_id, rec->scope, rec->len, new_len);
	return 0;
}

int trace_alloc_resize(struct trace_analyzer *a, uint64_t key, uint64_t new_len, bool is_remap)
{
	struct trace_record *slot = trace_live_get(&a->allocations, key);
	struct trace_allocation rec;
	int r;

	if (!slot) {
		trace_add(is_remap ? &a->totals.unmatched_remaps : &a->totals.unmatched_resizes, 1);
		return 0;
	}
	trace_live_read(&a->allocations, slot, &rec);
	accrue(&rec, a->events);
	/* change_length touches other tables only: slot stays valid */
	r = change_length(a, &rec, new_len);
	rec.len = new_len;
	if (trace_live_write(&a->allocations, slot, &rec) < 0)
		return -ENOMEM;
	return r;
}

int trace_alloc_remap(struct trace_analyzer *a, uint64_t old_key, uint64_t new_key, uint64_t new_len)
{
	struct trace_allocation rec;
	struct trace_record *moved;
	int r;

	trace_add(&a->totals.remaps, 1);
	if (old_key == new_key)
		return trace_alloc_resize(a, old_key, new_len, true);
	if (!trace_live_take(&a->allocations, old_key, &rec)) {
		trace_add(&a->totals.unmatched_remaps, 1);
		return 0;
	}
	accrue(&rec, a->events);
	r = change_length(a, &rec, new_len);
	rec.len = new_len;
	rec.key = new_key;
	/* what was live at the new key is replaced, as by an allocation */
	if (!(moved = trace_live_put(&a->allocations, new_key)) || trace_live_write(&a->allocations, moved, &rec) < 0)
		return -ENOMEM;
	return r;
}

int trace_alloc_lose(struct trace_analyzer *a, uint64_t key, uint64_t new_len)
{
	struct trace_allocation rec;
	struct trace_counters *c, *rows[2];
	int r;

	if (!trace_live_take(&a->allocations, key, &rec)) {
		trace_add(&a->totals.unmatched_remaps, 1);
		return 0;
	}
	/* counted as a resize to the new length, then gone from the live set
	 * as untracked: no lifetime ends, since its end is not seen */
	trace_add(&a->totals.resizes, 1);
	bool tracks = tracks_retained(a, rec.allocator_id);
	bool releases = trace_alloc_releases(a, rec.allocator_id);
	trace_counters_resize(&a->totals.c, rec.len, new_len, tracks, releases);
	trace_counters_lose(&a->totals.c, new_len);
	if (a->options.totals_only)
		return 0;
	trace_counters_resize(scope_counters(a, rec.scope), rec.len, new_len, tracks, releases);
	trace_counters_lose(scope_counters(a, rec.scope), new_len);
	for (size_t i = 0, n = rows_of(a, rec.return_address, rec.stack_id, rows); i < n; i++) {
		trace_counters_resize(rows[i], rec.len, new_len, true, releases);
		trace_counters_lose(rows[i], new_len);
	}
	if (is_detail_site(a, rec.return_address)) {
		if ((r = detail_resize(a, rec.allocator_id, rec.scope, rec.len, new_len)) < 0)
			return r;
		if ((c = bucket_get(&a->detail_sizes, new_len)))
			trace_counters_lose(c, new_len);
		if ((c = bucket_get(&a->detail_scopes, rec.scope)))
			trace_counters_lose(c, new_len);
	}
	return 0;
}

int trace_alloc_record(struct trace_analyzer *a, const struct trace_bin_record *rec, const struct trace_scope_ref *ref,
		       struct error *err)
{
	uint32_t scope;
	int r;

	switch (rec->kind) {
	case TRACE_BIN_ALLOC:
		if (rec->failed) {
			trace_add(&a->totals.failed_allocations, 1);
			return 0;
		}
		if ((r = trace_alloc_scope(a, ref, &scope)) < 0)
			return r;
		if (!rec->scope_id)
			a->root_scope = scope;
		if (a->options.track_stacks) {
			struct trace_stack *s;
			if ((r = trace_analyzer_stack(a, rec->stack_id, &s, err)) < 0)
				return r;
		}
		return alloc_tracked(a, TRACE_BIN_LOGICAL_ALLOCATOR, rec->address, scope, rec->return_address,
				     rec->stack_id, rec->len);
	case TRACE_BIN_FREE:
		/* a free record carries no length */
		return free_tracked(a, rec->address, TRACE_BIN_LOGICAL_ALLOCATOR, ref, 0);
	case TRACE_BIN_RESIZE:
		if (rec->failed) {
			trace_add(&a->totals.failed_resizes, 1);
			return 0;
		}
		trace_add(&a->totals.resizes, 1);
		return trace_alloc_resize(a, rec->address, rec->len, false);
	case TRACE_BIN_MOVE:
		if (rec->failed) {
			trace_add(&a->totals.failed_remaps, 1);
			return 0;
		}
		return trace_alloc_remap(a, rec->old_address, rec->address, rec->len);
	default: return 0;
	}
}

bool trace_alloc_pairs(const struct trace_analyzer *a)
{
	return a->options.layer == TRACE_LAYER_LOGICAL && !a->options.track_sites && !a->options.track_stacks &&
	       !a->options.has_site_detail;
}

int trace_alloc_pair_scope(struct trace_analyzer *a, const struct trace_bin_record *alloc,
			   const struct trace_scope_ref *ref, uint32_t *ret)
{
	int r = trace_alloc_scope(a, ref, ret);
	if (r == 0 && !alloc->scope_id)
		a->root_scope = *ret;
	return r;
}

void trace_alloc_pair(struct trace_analyzer *a, const struct trace_bin_record *alloc, uint32_t scope,
		      uint64_t allocation_event)
{
	bool tracks = tracks_retained(a, TRACE_BIN_LOGICAL_ALLOCATOR);
	bool releases = trace_alloc_releases(a, TRACE_BIN_LOGICAL_ALLOCATOR);
	uint64_t len = alloc->len, events = span(allocation_event, a->events);
	struct trace_allocation replaced;

	/* the alloc would replace what was live under its key, and the free
	 * take it out: the key is left with nothing */
	trace_live_take(&a->allocations, alloc->address, &replaced);
	trace_counters_alloc(&a->totals.c, len, tracks);
	trace_counters_free(&a->totals.c, len, releases);
	if (a->options.totals_only)
		return;
	/* as end_lifetime: one length since the allocation, no byte-events
	 * before */
	uint64_t byte_events = 0;
	trace_add(&byte_events, trace_mul(len, events));
	struct trace_counters *c = scope_counters(a, scope);
	trace_counters_alloc(c, len, tracks);
	trace_counters_lifetime(&a->totals.c, events, byte_events);
	trace_counters_lifetime(c, events, byte_events);
	trace_counters_free(c, len, releases);
}
