/* The replay's table of live allocations, keyed by allocation_id or
 * address: a slot of 32 bytes per allocation, and beside the slots what
 * few allocations need.
 *
 * Every alloc, free, resize and remap of a replay looks its allocation up
 * here, millions of times a second, in a table larger than the caches when
 * many allocations are live; so this is the common hash table
 * (common/hashtab.h) specialised: slots of one fixed size (the slot of an
 * index is a shift, a copy is a few moves), a multiplicative hash (one
 * multiply, where the common table mixes in five steps), and the lookups
 * inline in the replay's own code.  Open addressing with linear probing and
 * backward-shift deletion, at most 3/8 full, so memory follows the live
 * count: a fuller table has longer probe runs, whose ends the processor
 * mispredicts (at 5/8, the benchmark's 50,000 live allocations made 1.6
 * mispredicted branches an event in the table and took 14 % more time).
 * Nothing visits the table in order: its layout is never output.
 *
 * A slot holds what every allocation has: its key, length, scope and the
 * event it was allocated at, two to a cache line.  What most never have
 * (a length changed since, so byte-events accrued before that; another
 * allocator than the binary trace's logical one; a site and a stack, kept
 * only when the replay counts them) is a "more" entry in a dense array
 * beside the slots, which the slot names by index; an allocation without
 * one has the defaults trace_live_read gives.  Half the bytes of a slot
 * holding everything make half the cache misses on a large live set. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-binary.h"

/* A live allocation, whole: what the replay needs when it is freed,
 * resized or moved. */
struct trace_allocation {
	uint64_t key; /* allocation_id, or the address when that is 0 */
	uint64_t len;
	uint64_t return_address;
	uint64_t allocation_event; /* events counted when it was allocated */
	uint64_t segment_event;    /* ... when its length last changed */
	uint64_t byte_events;      /* byte-events accrued before that */
	uint32_t allocator_id;
	uint32_t scope;
	uint32_t stack_id; /* of its alloc event, 0 for none */
};

/* A slot (the key first). */
struct trace_record {
	uint64_t key;
	uint64_t len;
	uint64_t allocation_event;
	uint32_t scope;
	uint32_t more; /* 0, or 1 + the index of its struct trace_record_more */
};

/* The rest of an allocation that has more than the defaults. */
struct trace_record_more {
	uint64_t segment_event; /* a free entry: 1 + the index of the next free one */
	uint64_t byte_events;
	uint64_t return_address;
	uint32_t allocator_id;
	uint32_t stack_id;
};

/* The key of a free slot; the one real key equal to it lives in max. */
#define TRACE_LIVE_FREE UINT64_MAX

struct trace_live {
	struct trace_record *slots; /* cap of them, 32-byte aligned, in memory */
	void *memory;
	size_t cap;                 /* a power of two, or 0 */
	size_t count;               /* in slots, max excluded */
	unsigned shift;             /* 64 - log2(cap) */
	bool has_max;
	/* whether return addresses and stack ids are kept (the replay counts
	 * sites or stacks); else they read as 0 */
	bool keep_rows;
	struct trace_record max;
	struct trace_record_more *more;
	size_t n_more, more_alloc;
	uint32_t free_more; /* 1 + the first free entry, or 0 */
};

/* keep_rows: whether the table keeps return addresses and stack ids. */
void trace_live_init(struct trace_live *t, bool keep_rows);
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
 * key (and no more entry), for the caller to fill in with trace_live_write.
 * NULL when out of memory. */
static inline struct trace_record *trace_live_put(struct trace_live *t, uint64_t key)
{
	if (key == TRACE_LIVE_FREE) {
		if (!t->has_max)
			t->max.more = 0;
		t->has_max = true;
		t->max.key = key;
		return &t->max;
	}
	if ((t->count + 1) * 8 > t->cap * 3 && trace_live_reserve(t) < 0)
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
	t->slots[i].more = 0;
	return &t->slots[i];
}

/* The whole allocation of slot rec into out. */
static inline void trace_live_read(const struct trace_live *t, const struct trace_record *rec,
				   struct trace_allocation *out)
{
	out->key = rec->key;
	out->len = rec->len;
	out->allocation_event = rec->allocation_event;
	out->scope = rec->scope;
	if (rec->more) {
		const struct trace_record_more *m = &t->more[rec->more - 1];
		out->segment_event = m->segment_event;
		out->byte_events = m->byte_events;
		out->return_address = m->return_address;
		out->allocator_id = m->allocator_id;
		out->stack_id = m->stack_id;
	} else {
		out->segment_event = rec->allocation_event;
		out->byte_events = 0;
		out->return_address = 0;
		out->allocator_id = TRACE_BIN_LOGICAL_ALLOCATOR;
		out->stack_id = 0;
	}
}

/* A new more entry: 1 + its index, or 0 when out of memory. */
uint32_t trace_live_more_new(struct trace_live *t);

static inline void trace_live_more_free(struct trace_live *t, uint32_t more)
{
	t->more[more - 1].segment_event = t->free_more;
	t->free_more = more;
}

/* Stores a (its key aside) in slot rec, with a more entry only when a
 * differs from what trace_live_read gives without one.  0 or -ENOMEM
 * (rec then unchanged). */
static inline int trace_live_write(struct trace_live *t, struct trace_record *rec, const struct trace_allocation *a)
{
	bool more = a->segment_event != a->allocation_event || a->byte_events != 0 ||
		    a->allocator_id != TRACE_BIN_LOGICAL_ALLOCATOR ||
		    (t->keep_rows && (a->return_address != 0 || a->stack_id != 0));

	if (more && !rec->more && !(rec->more = trace_live_more_new(t)))
		return -ENOMEM;
	if (!more && rec->more) {
		trace_live_more_free(t, rec->more);
		rec->more = 0;
	}
	rec->len = a->len;
	rec->allocation_event = a->allocation_event;
	rec->scope = a->scope;
	if (more) {
		struct trace_record_more *m = &t->more[rec->more - 1];
		m->segment_event = a->segment_event;
		m->byte_events = a->byte_events;
		m->return_address = t->keep_rows ? a->return_address : 0;
		m->allocator_id = a->allocator_id;
		m->stack_id = t->keep_rows ? a->stack_id : 0;
	}
	return 0;
}

/* Removes key, copying its allocation to out.  Returns false (out
 * untouched) when key is not live.  Always inlined: a free of every
 * replay runs through it, and the compiler would call it. */
__attribute__((always_inline)) static inline bool trace_live_take(struct trace_live *t, uint64_t key, struct trace_allocation *out)
{
	if (key == TRACE_LIVE_FREE) {
		if (!t->has_max)
			return false;
		trace_live_read(t, &t->max, out);
		if (t->max.more)
			trace_live_more_free(t, t->max.more);
		t->max.more = 0;
		t->has_max = false;
		return true;
	}
	size_t hole = trace_live_find(t, key), mask = t->cap - 1;
	if (hole == t->cap)
		return false;
	trace_live_read(t, &t->slots[hole], out);
	if (t->slots[hole].more)
		trace_live_more_free(t, t->slots[hole].more);
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

/* The bytes the table holds: its slots and its more entries. */
static inline size_t trace_live_bytes(const struct trace_live *t)
{
	return t->cap * sizeof(struct trace_record) + t->more_alloc * sizeof(struct trace_record_more);
}
