/* The counters kept for the whole trace, each scope, each allocation site
 * and each site-detail bucket, and the arithmetic of the replay on them.
 *
 * Sums saturate at 2^64-1 instead of wrapping: a trace may carry lengths up
 * to 2^64-1, and a saturated total reads as "at least this", where a wrapped
 * one would be a small, wrong number.  Decrements stop at zero, as the
 * reference does for live bytes: a free of more than is live (an unmatched
 * free, a resize of a partly seen allocation) never goes negative. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct trace_counters {
	uint64_t allocations;
	uint64_t frees;
	uint64_t allocated_bytes;
	uint64_t freed_bytes;
	uint64_t bulk_invalidated_requests;
	uint64_t bulk_invalidated_bytes;
	uint64_t untracked_requests;
	uint64_t untracked_request_bytes;
	uint64_t live_allocations;
	uint64_t live_bytes;
	uint64_t high_water_live_bytes;
	uint64_t retained_bytes;
	uint64_t high_water_retained_bytes;
	uint64_t completed_lifetimes;
	uint64_t lifetime_total_events;
	uint64_t lifetime_max_events;
	uint64_t lifetime_total_byte_events;
	uint64_t lifetime_max_byte_events;
};

static inline void trace_add(uint64_t *x, uint64_t v)
{
	if (__builtin_add_overflow(*x, v, x))
		*x = UINT64_MAX;
}

/* One more, for a counter that only ever grows by one an event: it cannot
 * pass 2^64-1 (a replay would take centuries to count that far), so it
 * needs no saturating add. */
static inline void trace_count(uint64_t *x)
{
	++*x;
}

static inline uint64_t trace_mul(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static inline void trace_sub_floor(uint64_t *x, uint64_t v)
{
	*x = *x >= v ? *x - v : 0;
}

static inline void trace_high_water(uint64_t *mark, uint64_t v)
{
	if (v > *mark)
		*mark = v;
}

/* An allocation of len bytes comes alive.  Retained bytes follow it unless
 * its allocator is a logical one (requests, not memory). */
static inline void trace_counters_alloc(struct trace_counters *c, uint64_t len, bool tracks_retained)
{
	trace_add(&c->allocations, 1);
	trace_count(&c->live_allocations);
	trace_add(&c->allocated_bytes, len);
	trace_add(&c->live_bytes, len);
	trace_high_water(&c->high_water_live_bytes, c->live_bytes);
	if (tracks_retained) {
		trace_add(&c->retained_bytes, len);
		trace_high_water(&c->high_water_retained_bytes, c->retained_bytes);
	}
}

/* len bytes are freed.  An allocator that retains freed memory keeps them
 * retained; retained bytes drop only when at least len are retained. */
static inline void trace_counters_free(struct trace_counters *c, uint64_t len, bool releases)
{
	trace_count(&c->frees);
	if (c->live_allocations > 0)
		c->live_allocations--;
	trace_add(&c->freed_bytes, len);
	trace_sub_floor(&c->live_bytes, len);
	if (releases && c->retained_bytes >= len)
		c->retained_bytes -= len;
}

/* A live allocation grows or shrinks from old_len to new_len. */
static inline void trace_counters_resize(struct trace_counters *c, uint64_t old_len, uint64_t new_len,
					 bool tracks_retained, bool releases)
{
	if (new_len >= old_len) {
		uint64_t delta = new_len - old_len;
		trace_add(&c->allocated_bytes, delta);
		trace_add(&c->live_bytes, delta);
		trace_high_water(&c->high_water_live_bytes, c->live_bytes);
		if (tracks_retained) {
			trace_add(&c->retained_bytes, delta);
			trace_high_water(&c->high_water_retained_bytes, c->retained_bytes);
		}
	} else {
		uint64_t delta = old_len - new_len;
		trace_add(&c->freed_bytes, delta);
		trace_sub_floor(&c->live_bytes, delta);
		if (releases && c->retained_bytes >= delta)
			c->retained_bytes -= delta;
	}
}

/* A release: the allocation is invalidated in bulk (its arena went), not
 * freed one by one, so it is neither a free nor freed bytes. */
static inline void trace_counters_bulk_invalidate(struct trace_counters *c, uint64_t len)
{
	trace_add(&c->bulk_invalidated_requests, 1);
	trace_add(&c->bulk_invalidated_bytes, len);
	if (c->live_allocations > 0)
		c->live_allocations--;
	trace_sub_floor(&c->live_bytes, len);
}

/* An allocation the producer stopped tracking (an untracked remap of it):
 * it leaves the live set and counts as an untracked request. */
static inline void trace_counters_lose(struct trace_counters *c, uint64_t len)
{
	if (c->live_allocations > 0)
		c->live_allocations--;
	trace_sub_floor(&c->live_bytes, len);
	trace_add(&c->untracked_requests, 1);
	trace_add(&c->untracked_request_bytes, len);
}

/* An allocation the producer could not track: traffic, never live. */
static inline void trace_counters_untracked(struct trace_counters *c, uint64_t len, uint64_t count)
{
	trace_add(&c->allocations, count);
	trace_add(&c->allocated_bytes, len);
	trace_add(&c->untracked_requests, count);
	trace_add(&c->untracked_request_bytes, len);
}

/* A lifetime ends after events events and byte_events byte-events. */
static inline void trace_counters_lifetime(struct trace_counters *c, uint64_t events, uint64_t byte_events)
{
	trace_count(&c->completed_lifetimes);
	trace_add(&c->lifetime_total_events, events);
	trace_high_water(&c->lifetime_max_events, events);
	trace_add(&c->lifetime_total_byte_events, byte_events);
	trace_high_water(&c->lifetime_max_byte_events, byte_events);
}

static inline uint64_t trace_counters_mean_events(const struct trace_counters *c)
{
	return c->completed_lifetimes ? c->lifetime_total_events / c->completed_lifetimes : 0;
}

static inline uint64_t trace_counters_mean_byte_events(const struct trace_counters *c)
{
	return c->completed_lifetimes ? c->lifetime_total_byte_events / c->completed_lifetimes : 0;
}
