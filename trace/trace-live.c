/* The table of live allocations' growth (the lookups are inline in
 * trace-live.h). */
#include "trace-live.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "populate.h"
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define MIN_CAP 16u
#define ALIGN 32u
#define MIN_MORE 64u
/* a huge page of x86-64 and arm64 (4 KiB base pages) */
#define HUGE_PAGE ((size_t)2 << 20)
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MREMAP_FIXED)
#define MAPPED 1
/* Slots of this many bytes and more are mapped (16,384 slots, a table of
 * 4,096 live allocations or more). */
#define MAP_MIN (HUGE_PAGE / 4)
/* Address space a mapping of slots reserves: 16 times the table (doubled
 * four times before it must move), and 32 MiB at least. */
#define MAP_ROOM 16u
#define MAP_ROOM_MIN ((size_t)32 << 20)
#else
#define MAPPED 0
#endif

void trace_live_init(struct trace_live *t, bool keep_rows)
{
	*t = (struct trace_live){ .shift = 64, .keep_rows = keep_rows };
	t->none.allocator_id = TRACE_BIN_LOGICAL_ALLOCATOR;
}

static void slots_free(struct trace_live *t);

void trace_live_done(struct trace_live *t)
{
	slots_free(t);
	free(t->ctrl);
	free(t->more);
	trace_live_init(t, t->keep_rows);
}

uint32_t trace_live_more_new(struct trace_live *t)
{
	uint32_t i = t->free_more;

	if (i) {
		t->free_more = (uint32_t)t->more[i - 1].segment_event;
		return i;
	}
	if (t->n_more == t->more_alloc) {
		size_t n = t->more_alloc ? t->more_alloc * 2 : MIN_MORE;
		struct trace_record_more *v;
		/* one entry for each live allocation at most: fewer than 2^32
		 * long before memory runs out */
		if (n > UINT32_MAX || !(v = realloc(t->more, n * sizeof(*v))))
			return 0;
		/* taken in turn from the first on: the new half is written
		 * whole before the array doubles again */
		memory_populate(v + t->more_alloc, (n - t->more_alloc) * sizeof(*v));
		t->more = v;
		t->more_alloc = n;
	}
	return (uint32_t)++t->n_more;
}

/* Slots of a small table come from malloc, as do all on other systems
 * than Linux.  From MAP_MIN on they are mapped in huge pages
 * (transparent_hugepage "madvise", the default of many distributions;
 * else in 4 KiB pages), at the start of a mapping that reserves room for
 * the table doubled several times: a table that doubles keeps the slots
 * it has in the pages they are in and rehashes them in place
 * (rehash_in_place), so only its new half is new memory.  New slots are
 * made present in one call (memory_populate), not a fault a page as they
 * are first written: the hash spreads them over all their pages.  Made
 * anew beside the old one instead, a table of 50,000 live allocations
 * had 14 MiB of huge pages cleared over its doublings, and clearing them
 * was a tenth of the binary replay's CPU time, or far more on a host slow
 * to give a virtual machine new memory; mapped from 2 MiB of slots only,
 * the tables below took 450 faults of 4 KiB pages.
 * Untouched, the room costs address space only (MAP_NORESERVE). */
static void slots_free(struct trace_live *t)
{
#if MAPPED
	if (t->map)
		(void)munmap(t->map, t->map_len);
#endif
	free(t->memory);
	t->map = t->memory = NULL;
	t->map_len = 0;
	t->slots = NULL;
}

#if MAPPED
/* A range of len bytes of address space (prot: PROT_NONE, or readable
 * and writable) starting on a huge page, or NULL. */
static void *map_aligned(size_t len, int prot)
{
	if (len > SIZE_MAX - HUGE_PAGE)
		return NULL;
	size_t over = len + HUGE_PAGE;
	char *p = mmap(NULL, over, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	char *at = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (at > p)
		(void)munmap(p, (size_t)(at - p));
	if (p + over > at + len)
		(void)munmap(at + len, (size_t)(p + over - (at + len)));
	/* a hint: refused, the table is in small pages */
	(void)madvise(at, len, MADV_HUGEPAGE);
	return at;
}

/* The address space to reserve for len bytes of slots, or 0 past what a
 * size_t holds. */
static size_t room_for(size_t len)
{
	if (len > SIZE_MAX / MAP_ROOM)
		return 0;
	return len * MAP_ROOM > MAP_ROOM_MIN ? len * MAP_ROOM : MAP_ROOM_MIN;
}

/* Room for len bytes of slots in n's mapping: the mapping as it is when
 * it has that room, else moved (its pages with it, not copied) to the
 * start of a larger one.  0 or -ENOMEM, n unchanged. */
static int map_room(struct trace_live *n, size_t len)
{
	if (len <= n->map_len)
		return 0;
	size_t room = room_for(len);
	char *at = room ? map_aligned(room, PROT_NONE) : NULL;
	if (!at)
		return -ENOMEM;
	void *p = mremap(n->map, n->map_len, room, MREMAP_MAYMOVE | MREMAP_FIXED, at);
	if (p == MAP_FAILED) {
		(void)munmap(at, room);
		return -ENOMEM;
	}
	(void)madvise(p, room, MADV_HUGEPAGE);
	n->map = n->slots = p;
	n->map_len = room;
	return 0;
}
#endif

/* Slots for n->cap in n, new: 0 or -ENOMEM. */
static int slots_new(struct trace_live *n)
{
	size_t bytes = n->cap * sizeof(struct trace_record);

	n->map = n->memory = NULL;
	n->map_len = 0;
#if MAPPED
	size_t room = room_for(bytes);
	if (bytes >= MAP_MIN && room && (n->map = map_aligned(room, PROT_READ | PROT_WRITE))) {
		n->map_len = room;
		n->slots = n->map;
	}
#endif
	if (!n->map) {
		/* aligned by hand (Windows' C library has no aligned_alloc): a
		 * slot is in one cache line, not across two */
		if (bytes > SIZE_MAX - ALIGN || !(n->memory = malloc(bytes + ALIGN)))
			return -ENOMEM;
		n->slots = (struct trace_record *)(((uintptr_t)n->memory + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
	}
	memory_populate(n->slots, bytes);
	return 0;
}

/* Control bytes for n->cap in n, all empty: 0 or -ENOMEM. */
static int ctrl_new(struct trace_live *n)
{
	size_t bytes = n->cap + TRACE_LIVE_WINDOW - 1;

	if (!(n->ctrl = malloc(bytes)))
		return -ENOMEM;
	memory_populate(n->ctrl, bytes);
	memset(n->ctrl, TRACE_LIVE_EMPTY, bytes);
	n->gone = 0;
	return 0;
}

static void set_cap(struct trace_live *n, size_t cap)
{
	unsigned bits = 0;

	while (((size_t)1 << bits) < cap)
		bits++;
	n->cap = cap;
	n->shift = 64 - bits;
}

/* body for each slot in use of t, its index in i: from the last to the
 * first when down, else from the first on. */
#define EACH_IN_USE(t, down, i, body)                                                            \
	for (size_t w_ = 0; w_ < (t)->cap; w_ += TRACE_LIVE_WINDOW) {                           \
		size_t at_ = (down) ? (t)->cap - TRACE_LIVE_WINDOW - w_ : w_;                     \
		for (uint32_t m_ = ~trace_live_unused((t)->ctrl + at_) & 0xffffu; m_;) {          \
			unsigned b_ = (down) ? 31u - (unsigned)__builtin_clz(m_)                     \
					     : (unsigned)__builtin_ctz(m_);                           \
			size_t i = at_ + b_;                                                      \
			m_ &= ~(1u << b_);                                                        \
			body                                                                      \
		}                                                                                 \
	}

/* t made again for cap slots (its own number, or twice that where its
 * slots are mapped) with the gone marks dropped, its slots rehashed where
 * they are: new control bytes, and each slot in use taken in turn and put
 * where a lookup finds it first.  That place must not hold a slot still
 * to be taken.  Doubled, a key's home doubles too, so its slot moves
 * towards the end: taken from the last to the first, a slot's new place is
 * at or after it (all taken already).  At the same size a slot moves
 * towards its home, into places of gone marks: taken from the first on,
 * its new place is at or before it.  The few that do not (a probe that
 * wraps around the table's end; a key far from its home) wait in a list
 * until all are taken.  0 or -ENOMEM (t as it was, its mapping perhaps
 * moved). */
static int rehash_in_place(struct trace_live *t, size_t cap)
{
	struct trace_live n = *t;
	struct trace_record *wait = NULL;
	size_t waiting = 0;
	bool down = cap > t->cap;

	set_cap(&n, cap);
#if MAPPED
	if (down) {
		if (!t->map || map_room(&n, cap * sizeof(struct trace_record)) < 0)
			return -ENOMEM;
		/* the slots where the room is, if it moved */
		t->map = n.map;
		t->map_len = n.map_len;
		t->slots = n.slots;
		memory_populate(n.slots + t->cap, (cap - t->cap) * sizeof(struct trace_record));
	}
#else
	if (down)
		return -ENOMEM;
#endif
	if (t->count && !(wait = malloc(t->count * sizeof(*wait))))
		return -ENOMEM;
	if (ctrl_new(&n) < 0) {
		free(wait);
		return -ENOMEM;
	}
	EACH_IN_USE(t, down, i, {
		struct trace_record r = n.slots[i];
		size_t j = trace_live_free_slot(&n, r.key);
		if (down ? j < i : j > i) {
			wait[waiting++] = r;
		} else {
			trace_live_set_ctrl(&n, j, t->ctrl[i]);
			n.slots[j] = r;
		}
	})
	for (size_t k = 0; k < waiting; k++) {
		size_t j = trace_live_free_slot(&n, wait[k].key);
		trace_live_set_ctrl(&n, j, trace_live_tag(wait[k].key));
		n.slots[j] = wait[k];
	}
	free(wait);
	free(t->ctrl);
	*t = n;
	return 0;
}

/* t made again for cap slots beside the old table (the first table, one
 * from malloc outgrown, or where the other way has no memory). */
static int rebuild(struct trace_live *t, size_t cap)
{
	struct trace_live n = *t;

	set_cap(&n, cap);
	if (slots_new(&n) < 0)
		return -ENOMEM;
	if (ctrl_new(&n) < 0) {
		slots_free(&n);
		return -ENOMEM;
	}
	EACH_IN_USE(t, false, i, {
		size_t j = trace_live_free_slot(&n, t->slots[i].key);
		trace_live_set_ctrl(&n, j, t->ctrl[i]);
		n.slots[j] = t->slots[i];
	})
	slots_free(t);
	free(t->ctrl);
	*t = n;
	return 0;
}

int trace_live_reserve(struct trace_live *t)
{
	size_t cap = t->cap ? t->cap : MIN_CAP;

	if (!trace_live_full(t->count + t->gone + 1, t->cap))
		return 0;
	/* twice the slots when the live ones fill 7/8 of what the table
	 * holds; else the same number made again without the gone marks,
	 * which leaves an eighth of what it holds for new ones before the
	 * next time (a table that makes many is not made again every few) */
	while ((t->count + 1) * 64 > cap * 28) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	if (cap > (SIZE_MAX - ALIGN - TRACE_LIVE_WINDOW) / (sizeof(struct trace_record) + 1))
		return -ENOMEM;
	if ((cap == t->cap || (cap == t->cap * 2 && t->map)) && rehash_in_place(t, cap) == 0)
		return 0;
	return rebuild(t, cap);
}
