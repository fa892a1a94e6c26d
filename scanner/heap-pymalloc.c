/* pymalloc's heap, read from outside: how many bytes of a CPython
 * process's arenas hold objects and how many pymalloc keeps free, as
 * sys._debugmallocstats() counts them.
 *
 * pymalloc (Objects/obmalloc.c, Include/internal/pycore_obmalloc.h)
 * serves requests of up to 512 bytes from pools of one size class each,
 * carved from arenas it maps.  A pool is aligned to its size and starts
 * with a header: the blocks allocated (count), the head of its free list,
 * the size class, the offset of the next block never carved and the
 * largest such offset.  Those fields fix one another (the pool size less
 * one block is maxnextoffset; blocks are carved whole, one after the
 * other, from the header's end; the free list's head is a carved block;
 * a pool with no free block is full), so a pool is found at each aligned
 * address of the python class's regions by its header alone, and
 *
 *   in use = count x block size (the bytes in allocated blocks),
 *   free   = the other blocks of used pools, carved or not (the bytes in
 *            available blocks) and whole empty pools (the unused pools),
 *
 * the pool headers, the tail of a pool that holds no whole block
 * (quantization) and an arena's part before its first aligned pool being
 * overhead.  Empty pools hold nothing: they are the returnable part
 * (pymalloc unmaps an arena once all its pools are empty; an empty pool
 * in an arena still used stays mapped until then).  Arenas pymalloc gave
 * back are unmapped, so they are no region and count nowhere.
 *
 * The arena structures (the arenas array, usable_arenas, the radix tree
 * since 3.10) live in the interpreter's writable data and the C heap,
 * whose addresses only symbols give; they are not read: arenas are
 * counted by the arena index their pools carry, and memory with no pool
 * header that checks out is unknown, never guessed.
 *
 * A running program moves under the reader: a pool read while a block is
 * handed out or given back can show a count that its carved blocks or
 * its free list contradict.  The python class's memory is read an arena's
 * worth at a time (an aligned window of the arena size); a window with
 * such a pool is read again, at most limits->retries times, then is
 * unknown.  Only pages already resident are read (memsource_read). */
#include "heap-walkers.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "macro.h"
#include "runtimes.h"
#include "units.h"
#include "util.h"

/* The layouts of 64-bit CPython 3.8 to 3.13, by minor version.  The pool
 * header is the same in all (48 bytes: count, freeblock, nextpool,
 * prevpool as 8 bytes each, then arenaindex, szidx, nextoffset,
 * maxnextoffset as 4); ALIGNMENT is 16 since 3.8, so 32 size classes of
 * 16 to 512 bytes.  3.10 added the radix tree (WITH_PYMALLOC_RADIX_TREE)
 * and with it, on 64-bit, USE_LARGE_ARENAS and USE_LARGE_POOLS. */
static const struct pymalloc_layout {
	int minor_first, minor_last;
	uint32_t pool_size, arena_size;
	uint32_t header, alignment, classes;
} layouts[] = {
	{ 8, 9, 4 * KiB, 256 * KiB, 48, 16, 32 },    /* a pool is a page (SYSTEM_PAGE_SIZE) */
	{ 10, 13, 16 * KiB, 1 * MiB, 48, 16, 32 },   /* POOL_BITS 14, ARENA_BITS 20 */
};

/* Pools in a window: an arena's size over the pool size (64 in both). */
#define SLOTS_MAX 64u

struct pool {
	uint64_t freeblock;
	uint32_t count, arenaindex, szidx, nextoffset, maxnextoffset;
};

enum verdict {
	SLOT_NONE,   /* no pool header here (or none that could be read) */
	SLOT_POOL,   /* a pool whose header checks out */
	SLOT_MOVING, /* a pool's header whose fields disagree: read mid-change */
};

/* The verdict on the header b read at addr.  The fields that describe the
 * pool's shape (size class, maxnextoffset, nextoffset on a block boundary)
 * decide whether this is a pool at all; a pool whose count and free list
 * then contradict its carved blocks is one caught changing. */
static enum verdict pool_check(const struct pymalloc_layout *l, const uint8_t *b, uint64_t addr, struct pool *p)
{
	p->count = bytes_u32(b, 0);
	p->freeblock = bytes_u64(b, 8);
	p->arenaindex = bytes_u32(b, 32);
	p->szidx = bytes_u32(b, 36);
	p->nextoffset = bytes_u32(b, 40);
	p->maxnextoffset = bytes_u32(b, 44);
	if (p->szidx >= l->classes || p->arenaindex >= (1u << 24))
		return SLOT_NONE;
	uint32_t size = (p->szidx + 1) * l->alignment;
	/* init_pool carves two blocks at once: nextoffset starts past the second */
	if (p->maxnextoffset != l->pool_size - size || p->nextoffset < l->header + 2 * size ||
	    p->nextoffset > l->pool_size || (p->nextoffset - l->header) % size)
		return SLOT_NONE;
	uint32_t carved = (p->nextoffset - l->header) / size, blocks = (l->pool_size - l->header) / size;
	if (p->count > carved)
		return SLOT_MOVING;
	if (p->freeblock == 0)
		/* no free block: the pool is full, every block carved */
		return p->count == carved && carved == blocks ? SLOT_POOL : SLOT_MOVING;
	/* the head of the free list is a carved block not in use */
	if (p->freeblock < addr + l->header || p->freeblock >= addr + p->nextoffset ||
	    (p->freeblock - addr - l->header) % size || p->count == carved)
		return SLOT_MOVING;
	return SLOT_POOL;
}

/* What the walk counts as it goes. */
struct tally {
	uint64_t pools, empty_pools, windows_moved;
	uint32_t *arenas; /* arena index << 1 | whether a pool of it is used */
	size_t n_arenas, arenas_allocated;
	const char *stopped; /* why the walk stopped before the end, or NULL */
};

static int note_arena(struct tally *t, uint32_t index, bool used)
{
	if (array_grow((void **)&t->arenas, t->n_arenas, &t->arenas_allocated, sizeof(*t->arenas), 256) < 0)
		return -ENOMEM;
	t->arenas[t->n_arenas++] = index << 1 | used;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Arenas seen (distinct indexes), and of them those whose every pool read
 * is empty (pymalloc keeps one such arena mapped for reuse). */
static void count_arenas(struct tally *t, uint64_t *ret_arenas, uint64_t *ret_empty)
{
	uint64_t arenas = 0, empty = 0;

	if (t->n_arenas)
		qsort(t->arenas, t->n_arenas, sizeof(*t->arenas), cmp_u32);
	for (size_t i = 0; i < t->n_arenas;) {
		uint32_t index = t->arenas[i] >> 1;
		bool used = false;
		for (; i < t->n_arenas && t->arenas[i] >> 1 == index; i++)
			used |= t->arenas[i] & 1;
		arenas++;
		empty += !used;
	}
	*ret_arenas = arenas;
	*ret_empty = empty;
}

/* One window: the pool slots of [a, b), read and checked. */
struct window {
	uint64_t a, b, first; /* first: the first slot's address */
	size_t n;
	struct page_runs runs;
	uint8_t buf[SLOTS_MAX][48];
	struct mem_probe probes[SLOTS_MAX];
	struct pool pools[SLOTS_MAX];
	enum verdict verdict[SLOTS_MAX];
	uint64_t private[SLOTS_MAX];
};

/* Reads the window's residency and headers once.  Returns 0 (with
 * *ret_moving telling whether a pool was caught changing) or -errno. */
static int window_read(const struct pymalloc_layout *l, struct memsource *src, struct window *x, struct heap_walk *w,
		       bool *ret_moving)
{
	size_t n_probes = 0;
	int r;

	page_runs_clear(&x->runs);
	r = memsource_residency(src, x->a, x->b, &x->runs);
	if (r < 0)
		return r;
	for (size_t i = 0; i < x->n; i++) {
		uint64_t s = x->first + (uint64_t)i * l->pool_size;
		x->verdict[i] = SLOT_NONE;
		x->private[i] = page_runs_bytes(&x->runs, s, s + l->pool_size, PAGE_RESIDENT) +
				page_runs_bytes(&x->runs, s, s + l->pool_size, PAGE_SWAPPED);
		if (page_runs_state(&x->runs, s) != PAGE_RESIDENT)
			continue;
		x->probes[n_probes++] = (struct mem_probe){
			.addr = s, .len = l->header, .buf = x->buf[i], .runs = &x->runs
		};
	}
	if (n_probes == 0) {
		*ret_moving = false;
		return 0;
	}
	r = memsource_read(src, x->probes, n_probes);
	if (r < 0)
		return r;
	bool moving = false;
	for (size_t k = 0; k < n_probes; k++) {
		const struct mem_probe *p = &x->probes[k];
		size_t i = (p->addr - x->first) / l->pool_size;
		w->bytes_read += p->got;
		if (p->got != l->header)
			continue;
		x->verdict[i] = pool_check(l, p->buf, p->addr, &x->pools[i]);
		moving |= x->verdict[i] == SLOT_MOVING;
	}
	*ret_moving = moving;
	return 0;
}

/* The spans of one pool that checked out at s. */
static int add_pool(const struct pymalloc_layout *l, struct heap_walk *w, uint64_t s, const struct pool *p)
{
	uint32_t size = (p->szidx + 1) * l->alignment;
	uint32_t carved = (p->nextoffset - l->header) / size, blocks = (l->pool_size - l->header) / size;

	if (p->count == 0)
		/* an empty pool: all of it free, and nothing in it to keep */
		return heap_walk_add_free(w, s, s + l->pool_size, s, s + l->pool_size);
	/* the header and the blocks carved so far, then the blocks never
	 * carved (whose pages are mostly never touched: they count only
	 * where private) */
	int r = heap_walk_add(w, s, s + p->nextoffset, (uint64_t)p->count * size, (uint64_t)(carved - p->count) * size);
	if (r < 0 || carved == blocks)
		return r;
	return heap_walk_add(w, s + p->nextoffset, s + l->pool_size, 0, (uint64_t)(blocks - carved) * size);
}

/* Covers and spans of a window that checked out: stretches of slots each
 * a pool that checked out or holding no private memory, so that private
 * memory with no pool header read (a page swapped, a header that is not
 * pymalloc's) stays unknown. */
static int window_add(const struct pymalloc_layout *l, struct memsource *src, struct window *x, struct heap_walk *w,
		      struct tally *t)
{
	for (size_t i = 0; i < x->n;) {
		size_t j = i, pools = 0;
		for (; j < x->n && (x->verdict[j] == SLOT_POOL || x->private[j] == 0); j++)
			pools += x->verdict[j] == SLOT_POOL;
		if (j == i) {
			/* private memory with no pool read: left unknown */
			i++;
			continue;
		}
		if (pools) {
			uint64_t start = x->first + (uint64_t)i * l->pool_size, end = x->first + (uint64_t)j * l->pool_size;
			int r = heap_walk_cover(w, src, start, end);
			if (r < 0)
				return r;
			for (size_t k = i; k < j; k++) {
				if (x->verdict[k] != SLOT_POOL)
					continue;
				const struct pool *p = &x->pools[k];
				r = add_pool(l, w, x->first + (uint64_t)k * l->pool_size, p);
				if (r >= 0)
					r = note_arena(t, p->arenaindex, p->count > 0);
				if (r < 0)
					return r;
				t->pools++;
				t->empty_pools += p->count == 0;
			}
		}
		i = j;
	}
	return 0;
}

/* The python class's stretches of address space: its regions, neighbours
 * merged (evidence may split one mapping into parts). */
static size_t python_ranges(const struct heap_walk_input *in, struct heap_range *v, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (r->cls != CLASS_PYTHON || !region_readable(r))
			continue;
		if (n && v[n - 1].end == r->start) {
			v[n - 1].end = r->end;
			continue;
		}
		if (n == max)
			return n + 1;
		v[n++] = (struct heap_range){ r->start, r->end };
	}
	return n;
}

static const struct pymalloc_layout *layout_of(int minor)
{
	for (size_t i = 0; i < ELEMENTSOF(layouts); i++)
		if (minor >= layouts[i].minor_first && minor <= layouts[i].minor_last)
			return &layouts[i];
	return NULL;
}

static int python_version(const struct heap_walk_input *in)
{
	struct runtimes rt;

	runtimes_init(&rt);
	if (in->exe)
		runtimes_note_program(&rt, in->exe);
	for (size_t i = 0; i < in->n_regions && rt.python_minor < 0; i++)
		if (in->regions[i].path)
			runtimes_note_file(&rt, in->regions[i].path);
	return rt.python_minor;
}

/* n with a comma between thousands, into buf (at least 32 bytes). */
static const char *grouped(char *buf, uint64_t n)
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%" PRIu64, n), o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}

/* Walks the windows of one range.  Returns 0 (t->stopped set when a limit
 * ended the walk) or -errno. */
static int walk_range(const struct pymalloc_layout *l, const struct heap_walk_input *in, const struct heap_range *rg,
		      struct window *x, struct heap_walk *w, struct tally *t)
{
	const struct heap_limits *lim = in->limits;
	unsigned tries = 1 + (lim ? lim->retries : 0);

	for (uint64_t a = rg->start; a < rg->end && !t->stopped;) {
		uint64_t b = (a & ~(uint64_t)(l->arena_size - 1)) + l->arena_size;
		x->a = a;
		x->b = b < rg->end ? b : rg->end;
		x->first = (a + l->pool_size - 1) & ~(uint64_t)(l->pool_size - 1);
		x->n = x->b > x->first ? (x->b - x->first) / l->pool_size : 0;
		a = x->b;
		if (x->n == 0)
			continue;
		if (lim && lim->max_bytes && w->bytes_read + x->n * l->header > lim->max_bytes) {
			t->stopped = "stopped at the limit of bytes read";
			break;
		}
		if (lim && lim->deadline_us && now_monotonic_us() > lim->deadline_us) {
			t->stopped = "stopped at the census's time budget";
			break;
		}
		bool moving = true;
		for (unsigned k = 0; k < tries && moving; k++) {
			int r = window_read(l, in->src, x, w, &moving);
			if (r < 0)
				return r;
			if (in->src->exhausted) {
				t->stopped = "stopped at the limit of reads";
				return 0;
			}
		}
		if (moving) {
			t->windows_moved++;
			continue;
		}
		int r = window_add(l, in->src, x, w, t);
		if (r < 0)
			return r;
	}
	return 0;
}

/* What could not be told, for a walk that found nothing to count. */
static void say_why_not(struct heap_walk *w, int minor, const struct tally *t, unsigned tries)
{
	if (minor < 0)
		snprintf(w->why_not, sizeof(w->why_not),
			 "pymalloc: CPython's version not known (from its program's or libpython's name)");
	else if (!layout_of(minor))
		snprintf(w->why_not, sizeof(w->why_not), "pymalloc: the layout of CPython 3.%d is not known", minor);
	else if (t->stopped)
		snprintf(w->why_not, sizeof(w->why_not), "pymalloc (CPython 3.%d): %s", minor, t->stopped);
	else if (t->windows_moved)
		snprintf(w->why_not, sizeof(w->why_not),
			 "pymalloc (CPython 3.%d): pools changed while read, %u tries", minor, tries);
	else
		snprintf(w->why_not, sizeof(w->why_not), "pymalloc (CPython 3.%d): no pool header checks out", minor);
}

int heap_walk_pymalloc(const struct heap_walk_input *in, struct heap_walk *w)
{
	struct heap_range *ranges = NULL;
	struct window *x = NULL;
	struct tally t = { 0 };
	size_t n_ranges = 0;
	int r = 0;

	w->cls = CLASS_PYTHON;
	for (size_t i = 0; i < in->n_regions; i++)
		n_ranges += in->regions[i].cls == CLASS_PYTHON;
	if (n_ranges == 0)
		return 0;
	ranges = calloc(n_ranges, sizeof(*ranges));
	x = calloc(1, sizeof(*x));
	if (!ranges || !x) {
		r = -ENOMEM;
		goto out;
	}
	n_ranges = python_ranges(in, ranges, n_ranges);

	int minor = python_version(in);
	const struct pymalloc_layout *l = layout_of(minor);
	unsigned tries = 1 + (in->limits ? in->limits->retries : 0);
	for (size_t i = 0; l && i < n_ranges && !t.stopped; i++) {
		r = walk_range(l, in, &ranges[i], x, w, &t);
		if (r < 0)
			goto out;
	}

	if (w->n_covers == 0) {
		/* nothing counted: the class is unknown, with the reason */
		say_why_not(w, minor, &t, tries);
		w->failed = true;
		for (size_t i = 0; i < n_ranges; i++)
			if ((r = heap_walk_cover(w, in->src, ranges[i].start, ranges[i].end)) < 0)
				goto out;
		goto out;
	}

	uint64_t arenas, empty_arenas;
	char b1[32], b2[32], b3[32];
	count_arenas(&t, &arenas, &empty_arenas);
	int len = snprintf(w->how, sizeof(w->how), "pymalloc (CPython 3.%d): %s arena%s, %s pool%s (%s empty, returnable",
			   minor, grouped(b1, arenas), arenas == 1 ? "" : "s", grouped(b2, t.pools), t.pools == 1 ? "" : "s",
			   grouped(b3, t.empty_pools));
	if (empty_arenas && len > 0 && (size_t)len < sizeof(w->how))
		len += snprintf(w->how + len, sizeof(w->how) - len, "; %s arena%s all empty", grouped(b1, empty_arenas),
				empty_arenas == 1 ? "" : "s");
	if (len > 0 && (size_t)len < sizeof(w->how))
		len += snprintf(w->how + len, sizeof(w->how) - len, "), from pool headers, arena structures not read");
	if (t.windows_moved && len > 0 && (size_t)len < sizeof(w->how))
		len += snprintf(w->how + len, sizeof(w->how) - len, "; %s arena%s unknown: pools changed while read, %u tries",
				grouped(b1, t.windows_moved), t.windows_moved == 1 ? "" : "s", tries);
	if (t.stopped && len > 0 && (size_t)len < sizeof(w->how))
		snprintf(w->how + len, sizeof(w->how) - len, "; %s, the rest unknown", t.stopped);
out:
	if (x)
		page_runs_done(&x->runs);
	free(x);
	free(ranges);
	free(t.arenas);
	return r;
}
