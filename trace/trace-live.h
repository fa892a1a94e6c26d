/* The replay's table of live allocations, keyed by allocation_id or
 * address: a slot of 32 bytes per allocation, a control byte beside each
 * slot, and beside the slots what few allocations need.
 *
 * Every alloc, free, resize and remap of a replay looks its allocation up
 * here, millions of times a second, in a table larger than the caches when
 * many allocations are live; so this is the common hash table
 * (common/hashtab.h) specialised: slots of one fixed size (the slot of an
 * index is a shift, a copy is a few moves), a multiplicative hash (one
 * multiply, where the common table mixes in five steps), and the lookups
 * inline in the replay's own code.  Open addressing, at most half full,
 * so memory follows the live count.  Nothing visits the table in order: its
 * layout is never output.
 *
 * Each slot has a control byte: 7 bits of its key's hash, or "empty", or
 * "gone" (a slot freed where a lookup may have to pass it).  A lookup reads
 * the 16 control bytes from the key's home at once and compares them all
 * with its 7 bits; an insert takes the first slot of those 16 that is not
 * in use, and the next 16 only when all of them are; a removal marks its
 * slot empty unless 16 slots in use in a row run through it.  Where the
 * table had a loop over a probe run, it has a mask of 16 bits: the ends of
 * those runs (an insert's free slot, a removal's backward shift) were
 * branches the processor mispredicted about once an event of the binary
 * replay, and a random alloc or free now takes none of them.  The first 15
 * control bytes are repeated after the last, so that 16 bytes from any
 * slot can be read in one load.
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

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* Control bytes: a slot in use holds 7 bits of its key's hash (below
 * 0x80); the others have the top bit set. */
#define TRACE_LIVE_EMPTY 0x80u
#define TRACE_LIVE_GONE 0xfeu
/* Control bytes read at once: a lookup's window. */
#define TRACE_LIVE_WINDOW 16u

struct trace_live {
	struct trace_record *slots; /* cap of them, 32-byte aligned */
	/* cap + TRACE_LIVE_WINDOW - 1 control bytes: one a slot, then the
	 * first 15 again */
	unsigned char *ctrl;
	/* where the slots are: from malloc (memory), or (large tables on
	 * Linux) at the start of a mapping of map_len bytes, which the table
	 * grows into (trace-live.c) */
	void *memory, *map;
	size_t map_len;
	size_t cap;   /* a power of two, at least TRACE_LIVE_WINDOW, or 0 */
	size_t count; /* slots in use */
	size_t gone;  /* slots marked gone */
	unsigned shift; /* 64 - log2(cap) */
	/* whether return addresses and stack ids are kept (the replay counts
	 * sites or stacks); else they read as 0 */
	bool keep_rows;
	struct trace_record_more *more;
	/* what an allocation without a more entry has (its segment_event
	 * aside, which is its allocation_event; written as scratch) */
	struct trace_record_more none;
	size_t n_more, more_alloc;
	uint32_t free_more; /* 1 + the first free entry, or 0 */
};

/* keep_rows: whether the table keeps return addresses and stack ids. */
void trace_live_init(struct trace_live *t, bool keep_rows);
void trace_live_done(struct trace_live *t);

/* Allocations live. */
static inline size_t trace_live_count(const struct trace_live *t)
{
	return t->count;
}

/* key times 2^64 over the golden ratio (Fibonacci hashing): its top bits
 * spread aligned addresses and consecutive ids alike. */
static inline uint64_t trace_live_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;
}

/* The slot where the probe for key starts: the hash's top bits.  Only
 * when cap > 0. */
static inline size_t trace_live_home(const struct trace_live *t, uint64_t key)
{
	return (size_t)(trace_live_hash(key) >> t->shift);
}

/* The control byte of key: 7 bits of its hash below those of its home
 * (for any table of fewer than 2^25 slots). */
static inline unsigned char trace_live_tag(uint64_t key)
{
	return (unsigned char)((trace_live_hash(key) >> 32) & 0x7f);
}

/* Starts loading the slots and the control bytes where a lookup of key
 * begins: a hint only.  The slot after its home too, which is in the next
 * cache line when the home is the second of one, since a key is often a
 * slot or two past its home (2 % less CPU time in the binary replay).
 * Always inlined, for the reason hashtab_prefetch is. */
__attribute__((always_inline)) static inline void trace_live_prefetch(const struct trace_live *t, uint64_t key)
{
	if (t->cap) {
		size_t home = trace_live_home(t, key);
		__builtin_prefetch(&t->slots[home]);
		__builtin_prefetch(&t->slots[home + 1]);
		__builtin_prefetch(&t->ctrl[home]);
	}
}

/* A bit for each of the 16 control bytes at c equal to b. */
static inline uint32_t trace_live_match(const unsigned char *c, unsigned char b)
{
#if defined(__SSE2__)
	__m128i w = _mm_loadu_si128((const __m128i *)(const void *)c);
	return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8((char)b)));
#else
	uint32_t m = 0;
	for (unsigned i = 0; i < TRACE_LIVE_WINDOW; i++)
		m |= (uint32_t)(c[i] == b) << i;
	return m;
#endif
}

/* A bit for each of the 16 control bytes at c of a slot not in use. */
static inline uint32_t trace_live_unused(const unsigned char *c)
{
#if defined(__SSE2__)
	return (uint32_t)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)c));
#else
	uint32_t m = 0;
	for (unsigned i = 0; i < TRACE_LIVE_WINDOW; i++)
		m |= (uint32_t)(c[i] >> 7) << i;
	return m;
#endif
}

/* Sets the control byte of slot i, and its copy after the last slot when
 * i is among the first 15. */
static inline void trace_live_set_ctrl(struct trace_live *t, size_t i, unsigned char b)
{
	t->ctrl[i] = b;
	if (__builtin_expect(i < TRACE_LIVE_WINDOW - 1, 0))
		t->ctrl[t->cap + i] = b;
}

/* Whether n slots in use (or gone) are more than a table of cap holds:
 * at most half of it.  Windows of control bytes keep lookups to one load
 * at any fill, but a fuller table makes rows of 16 slots in use, and so
 * gone marks, more often: at 3/4, tables were made again for them every
 * few thousand events.  At half, the benchmark's table of 50,000 live
 * allocations in 131,072 slots is made again in place for its gone marks
 * (some 15,500 by then: trace-live.c) once every 1.6 M events of its
 * random mix. */
static inline bool trace_live_full(size_t n, size_t cap)
{
	return n * 2 > cap;
}

/* The index of key's slot, or cap when it is not in the table.  A window
 * with an empty slot ends the lookup: an insert would have put key there
 * or before it, and a removal never empties a slot a lookup passed over. */
static inline size_t trace_live_find(const struct trace_live *t, uint64_t key)
{
	if (t->count == 0)
		return t->cap;
	size_t mask = t->cap - 1;
	unsigned char tag = trace_live_tag(key);
	for (size_t pos = trace_live_home(t, key);; pos = (pos + TRACE_LIVE_WINDOW) & mask) {
		const unsigned char *c = t->ctrl + pos;
		for (uint32_t m = trace_live_match(c, tag); m; m &= m - 1) {
			size_t i = (pos + (size_t)__builtin_ctz(m)) & mask;
			if (t->slots[i].key == key)
				return i;
		}
		if (trace_live_match(c, TRACE_LIVE_EMPTY))
			return t->cap;
	}
}

/* The record of key, or NULL.  Valid until the next put or take. */
static inline struct trace_record *trace_live_get(struct trace_live *t, uint64_t key)
{
	size_t i = trace_live_find(t, key);
	return i < t->cap ? &t->slots[i] : NULL;
}

/* Makes room for one more key (and drops the gone marks when the table
 * is made again); 0 or -ENOMEM. */
int trace_live_reserve(struct trace_live *t);

/* The slot a new key takes: the first not in use from its home on. */
static inline size_t trace_live_free_slot(const struct trace_live *t, uint64_t key)
{
	size_t mask = t->cap - 1;
	for (size_t pos = trace_live_home(t, key);; pos = (pos + TRACE_LIVE_WINDOW) & mask) {
		uint32_t m = trace_live_unused(t->ctrl + pos);
		if (m)
			return (pos + (size_t)__builtin_ctz(m)) & mask;
	}
}

/* The slot of key: its record when live, else a new one holding only the
 * key (and no more entry), for the caller to fill in with trace_live_write.
 * NULL when out of memory.  One probe finds key or where it goes: the
 * first slot not in use from its home on. */
static inline struct trace_record *trace_live_put(struct trace_live *t, uint64_t key)
{
	if (trace_live_full(t->count + t->gone + 1, t->cap) && trace_live_reserve(t) < 0)
		return NULL;
	size_t mask = t->cap - 1, at = t->cap;
	unsigned char tag = trace_live_tag(key);
	for (size_t pos = trace_live_home(t, key);; pos = (pos + TRACE_LIVE_WINDOW) & mask) {
		const unsigned char *c = t->ctrl + pos;
		for (uint32_t m = trace_live_match(c, tag); m; m &= m - 1) {
			size_t i = (pos + (size_t)__builtin_ctz(m)) & mask;
			if (t->slots[i].key == key)
				return &t->slots[i];
		}
		uint32_t unused = trace_live_unused(c);
		if (at == t->cap && unused)
			at = (pos + (size_t)__builtin_ctz(unused)) & mask;
		if (trace_live_match(c, TRACE_LIVE_EMPTY))
			break;
	}
	t->gone -= t->ctrl[at] == TRACE_LIVE_GONE;
	trace_live_set_ctrl(t, at, tag);
	t->count++;
	t->slots[at].key = key;
	t->slots[at].more = 0;
	return &t->slots[at];
}

/* The more entry of index more (1 + its place), or dflt when more is 0,
 * chosen by a mask: the compiler makes a branch of the plain "?:", and
 * which allocations have an entry is random to the processor. */
static inline struct trace_record_more *trace_live_more_or(const struct trace_live *t, uint32_t more,
							   const struct trace_record_more *dflt)
{
	uintptr_t has = 0 - (uintptr_t)(more != 0);
	uintptr_t at = (uintptr_t)t->more + ((uintptr_t)more - 1) * sizeof(*t->more);
	return (struct trace_record_more *)((at & has) | ((uintptr_t)dflt & ~has));
}

/* The whole allocation of slot rec into out.  Without a branch on whether
 * it has a more entry (frees of allocations with and without one follow
 * each other at random): one without reads the defaults of t->none. */
static inline void trace_live_read(const struct trace_live *t, const struct trace_record *rec,
				   struct trace_allocation *out)
{
	uint32_t more = rec->more;
	const struct trace_record_more *m = trace_live_more_or(t, more, &t->none);

	out->key = rec->key;
	out->len = rec->len;
	out->allocation_event = rec->allocation_event;
	out->scope = rec->scope;
	uint64_t has = 0 - (uint64_t)(more != 0);
	out->segment_event = (m->segment_event & has) | (rec->allocation_event & ~has);
	out->byte_events = m->byte_events;
	out->return_address = m->return_address;
	out->allocator_id = m->allocator_id;
	out->stack_id = m->stack_id;
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

/* Marks slot i no longer in use: empty, unless the slots in use (or gone)
 * on both sides of it make a row of 16 or more, where some lookup may
 * have passed over it (a window of 16 with none empty); then gone. */
static inline void trace_live_clear(struct trace_live *t, size_t i)
{
	size_t mask = t->cap - 1;
	uint32_t after = trace_live_match(t->ctrl + i, TRACE_LIVE_EMPTY);
	uint32_t before = trace_live_match(t->ctrl + ((i - TRACE_LIVE_WINDOW) & mask), TRACE_LIVE_EMPTY);
	/* in use from i on, and right before i (the top bits of before) */
	unsigned run = (unsigned)__builtin_ctz(after | 1u << TRACE_LIVE_WINDOW) +
		       (unsigned)__builtin_clz((before << (32 - TRACE_LIVE_WINDOW)) | 1u << (31 - TRACE_LIVE_WINDOW));
	bool gone = run >= TRACE_LIVE_WINDOW;

	t->gone += gone;
	t->count--;
	trace_live_set_ctrl(t, i, gone ? TRACE_LIVE_GONE : TRACE_LIVE_EMPTY);
}

/* Removes key, copying its allocation to out.  Returns false (out
 * untouched) when key is not live.  Always inlined: a free of every
 * replay runs through it, and the compiler would call it. */
__attribute__((always_inline)) static inline bool trace_live_take(struct trace_live *t, uint64_t key, struct trace_allocation *out)
{
	size_t i = trace_live_find(t, key);

	if (i == t->cap)
		return false;
	uint32_t more = t->slots[i].more;
	trace_live_read(t, &t->slots[i], out);
	/* the entry, if any, to the free list; else the link is written to
	 * scratch and the list stays as it was (no branch, as above) */
	uint64_t *link = &trace_live_more_or(t, more, &t->none)->segment_event;
	*link = t->free_more;
	t->free_more = more ? more : t->free_more;
	trace_live_clear(t, i);
	return true;
}

/* The bytes the table holds: its slots, control bytes and more entries. */
static inline size_t trace_live_bytes(const struct trace_live *t)
{
	return t->cap * sizeof(struct trace_record) + (t->cap ? t->cap + TRACE_LIVE_WINDOW - 1 : 0) +
	       t->more_alloc * sizeof(struct trace_record_more);
}
