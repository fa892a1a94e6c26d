/* The replay's table of live allocations: one slot of a cache line per
 * allocation, keyed by its allocation_id or address.
 *
 * Every alloc, free, resize and remap of a replay looks its allocation up
 * here, millions of times a second, in a table larger than the caches when
 * many allocations are live; so this is the common hash table
 * (common/hashtab.h) specialised: slots of one fixed size (the slot of an
 * index is a shift, a copy is a few moves), a multiplicative hash (one
 * multiply, where the common table mixes in five steps), and the lookups
 * inline in the replay's own code.  Open addressing with linear probing and
 * backward-shift deletion, at most 5/8 full, so memory follows the live
 * count.  Nothing visits the table in order: its layout is never output. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A live allocation: what the replay needs when it is freed, resized or
 * moved (the key first). */
struct trace_record {
	uint64_t key; /* allocation_id, or the address when that is 0 */
	uint64_t len;
	uint64_t return_address;
	uint64_t allocation_event; /* events counted when it was allocated */
	uint64_t segment_event;    /* ... when its length last changed */
	uint64_t byte_events;      /* byte-events accrued before that */
	uint32_t allocator_id;
	uint32_t scope;
	uint32_t stack_id; /* of its alloc event, 0 for none */
	uint32_t unused;   /* to 64 bytes: one cache line per slot */
};

/* The key of a free slot; the one real key equal to it lives in max. */
#define TRACE_LIVE_FREE UINT64_MAX

struct trace_live {
	struct trace_record *slots; /* cap of them, 64-byte aligned, in memory */
	void *memory;
	size_t cap;                 /* a power of two, or 0 */
	size_t count;               /* in slots, max excluded */
	unsigned shift;             /* 64 - log2(cap) */
	bool has_max;
	struct trace_record max;
};

void trace_live_init(struct trace_live *t);
void trace_live_done(struct trace_live *t);

/* Allocations live. */
static inline size_t trace_live_count(const struct trace_live *t)
{
	return t->count + t->has_max;
}

/* The slot where the probe for key starts (Fibonacci hashing: the top bits
 * of key times 2^64 over the golden ratio spread aligned addresses and
 * consecutive ids alike).  Only when cap > 0. */
static inline size_t trace_live_home(const struct trace_live *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> t->shift);
}

/* Starts loading the slot where a lookup of key begins: a hint only.
 * Always inlined, for the reason hashtab_prefetch is. */
__attribute__((always_inline)) static inline void trace_live_prefetch(const struct trace_live *t, uint64_t key)
{
	if (t->cap)
		__builtin_prefetch(&t->slots[trace_live_home(t, key)]);
}

/* The index of key's slot, or cap when it is not in the array. */
static inline size_t trace_live_find(const struct trace_live *t, uint64_t key)
{
	if (t->count == 0 || key == TRACE_LIVE_FREE)
		return t->cap;
	size_t mask = t->cap - 1;
	for (size_t i = trace_live_home(t, key);; i = (i + 1) & mask) {
		uint64_t k = t->slots[i].key;
		if (k == key)
			return i;
		if (k == TRACE_LIVE_FREE)
			return t->cap;
	}
}

/* The record of key, or NULL.  Valid until the next put or take. */
static inline struct trace_record *trace_live_get(struct trace_live *t, uint64_t key)
{
	if (key == TRACE_LIVE_FREE)
		return t->has_max ? &t->max : NULL;
	size_t i = trace_live_find(t, key);
	return i < t->cap ? &t->slots[i] : NULL;
}

/* Makes room for one more key; 0 or -ENOMEM. */
int trace_live_reserve(struct trace_live *t);

/* The slot of key: its record when live, else a new one holding only the
 * key, for the caller to fill in.  NULL when out of memory. */
static inline struct trace_record *trace_live_put(struct trace_live *t, uint64_t key)
{
	if (key == TRACE_LIVE_FREE) {
		t->has_max = true;
		t->max.key = key;
		return &t->max;
	}
	if ((t->count + 1) * 8 > t->cap * 5 && trace_live_reserve(t) < 0)
		return NULL;
	size_t mask = t->cap - 1, i = trace_live_home(t, key);
	/* the run ends at a free slot, where a new key goes: with no
	 * tombstones nothing further on can hold it */
	for (;; i = (i + 1) & mask) {
		uint64_t k = t->slots[i].key;
		if (k == key)
			return &t->slots[i];
		if (k == TRACE_LIVE_FREE)
			break;
	}
	t->count++;
	t->slots[i].key = key;
	return &t->slots[i];
}

/* Removes key, copying its record to out.  Returns false (out untouched)
 * when key is not live. */
static inline bool trace_live_take(struct trace_live *t, uint64_t key, struct trace_record *out)
{
	if (key == TRACE_LIVE_FREE) {
		if (!t->has_max)
			return false;
		*out = t->max;
		t->has_max = false;
		return true;
	}
	size_t hole = trace_live_find(t, key), mask = t->cap - 1;
	if (hole == t->cap)
		return false;
	*out = t->slots[hole];
	t->count--;
	/* Backward shift: a later member of the probe run moves into the hole
	 * when its home is not between the hole and it. */
	for (size_t j = (hole + 1) & mask; t->slots[j].key != TRACE_LIVE_FREE; j = (j + 1) & mask) {
		size_t home = trace_live_home(t, t->slots[j].key);
		if (((j - home) & mask) >= ((j - hole) & mask)) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole].key = TRACE_LIVE_FREE;
	return true;
}

/* The bytes the table holds. */
static inline size_t trace_live_bytes(const struct trace_live *t)
{
	return t->cap * sizeof(struct trace_record);
}
