/* The glibc heap walker: how much of glibc malloc's memory the program
 * still uses and how much malloc keeps free, read from outside, with no
 * symbols and no help from the process, as mallinfo2() would say it from
 * inside: in use = uordblks + hblkhd, free = fordblks (the top chunks,
 * the free chunks in bins, the chunks in fastbins; chunks in the thread
 * caches count in use, as mallinfo2 counts them).
 *
 * How it finds the structures (this file):
 *  - glibc's version (heap-glibc-libc.c: from libc's file name or its
 *    banner) picks the layout of malloc_par and heap_info (the table
 *    below); a version the table does not hold leaves malloc's memory
 *    unknown, with the reason;
 *  - main_arena is the malloc_state in libc's writable data whose bins
 *    each point to themselves or into mapped memory, whose next is itself
 *    or an arena at the start of a 64 MiB-aligned heap, and whose top
 *    chunk ends where [heap] does: sbrk_base + system_mem, with sbrk_base
 *    read from mp_, the malloc_par beside it (found by its own shape: the
 *    counts of mmapped blocks, the thread cache's settings);
 *  - the other arenas are the ring main_arena.next leads round: each sits
 *    in the first of its heaps, whose heap_info (64 MiB-aligned, at the
 *    start of a region) names it; the heap holding its top chunk leads
 *    back to that first heap through heap_info.prev, and the heaps' sizes
 *    add up to the arena's system_mem;
 *  - blocks served by mmap are the regions evidence confirmed by their
 *    chunk headers (evidence.c), in use whole: hblkhd counts them so.
 * heap-glibc-chunks.c then reads the chunks.  Anything that does not
 * check out (the program moves its heap while it is read: 31 walks of 40
 * failed on a two-thread malloc/free loop) is read again, RW_HEAP_RETRIES
 * times at most, then malloc's memory is unknown with the reason.
 *
 * Only pages the page tables show in memory are read (memsource.h); the
 * process is never stopped or attached to. */
#include "heap-glibc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "macro.h"
#include "heap-walkers.h"
#include "runtimes.h"
#include "util.h"

/* glibc/malloc of each tag from glibc-2.31 to glibc-2.41 (malloc.c's
 * struct malloc_par, arena.c's heap_info).  malloc_state is the same in
 * all of them (heap-glibc.h). */
static const struct glibc_layout layouts[] = {
	{
		.first = 31, .last = 31, .safe_linking = false, .heap_info = 32,
		.par_size = 112, .par_mmap_threshold = 16, .par_n_mmaps = 40, .par_n_mmaps_max = 44,
		.par_max_n_mmaps = 48, .par_no_dyn_threshold = 52, .par_mmapped_mem = 56, .par_max_mmapped_mem = 64,
		.par_sbrk_base = 72, .par_tcache_bins = 80, .par_tcache_max_bytes = 88, .par_tcache_count = 96,
	},
	{
		/* safe-linking (malloc.c PROTECT_PTR) */
		.first = 32, .last = 34, .safe_linking = true, .heap_info = 32,
		.par_size = 112, .par_mmap_threshold = 16, .par_n_mmaps = 40, .par_n_mmaps_max = 44,
		.par_max_n_mmaps = 48, .par_no_dyn_threshold = 52, .par_mmapped_mem = 56, .par_max_mmapped_mem = 64,
		.par_sbrk_base = 72, .par_tcache_bins = 80, .par_tcache_max_bytes = 88, .par_tcache_count = 96,
	},
	{
		/* huge pages: malloc_par's thp_pagesize, hp_pagesize, hp_flags;
		 * heap_info's pagesize */
		.first = 35, .last = 41, .safe_linking = true, .heap_info = 48, .hi_pagesize = 32,
		.par_size = 136, .par_mmap_threshold = 16, .par_hp_pagesize = 48, .par_n_mmaps = 60,
		.par_n_mmaps_max = 64, .par_max_n_mmaps = 68, .par_no_dyn_threshold = 72, .par_mmapped_mem = 80,
		.par_max_mmapped_mem = 88, .par_sbrk_base = 96, .par_tcache_bins = 104, .par_tcache_max_bytes = 112,
		.par_tcache_count = 120,
	},
};

/* The thread cache's limits (malloc.c: TCACHE_MAX_BINS, MAX_TCACHE_SIZE,
 * MAX_TCACHE_COUNT) bound mp_'s settings, whatever the tunables say. */
#define TCACHE_MAX_BINS 64u
#define TCACHE_MAX_BYTES 1032u
#define TCACHE_MAX_COUNT 65535u

int heap_glibc_bad(struct glibc *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->why, sizeof(g->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

void heap_glibc_arena_fail(struct glibc *g, size_t a, const char *why)
{
	if (g->arenas[a].failed)
		return;
	g->arenas[a].failed = true;
	if (g->arenas_failed++ == 0)
		snprintf(g->arena_why, sizeof(g->arena_why), "%s", why);
}

const struct region *heap_glibc_region_at(const struct heap_walk_input *in, uint64_t addr)
{
	size_t i = regions_first_after(in->regions, in->n_regions, addr);
	return i < in->n_regions && in->regions[i].start <= addr ? &in->regions[i] : NULL;
}

static bool in_writable(const struct heap_walk_input *in, uint64_t addr)
{
	const struct region *r = heap_glibc_region_at(in, addr);
	return r && region_writable(r);
}

static bool budget_left(struct glibc *g, uint64_t bytes)
{
	return g->w->bytes_read + bytes <= g->in->limits->max_bytes;
}

int heap_glibc_read(struct glibc *g, uint64_t addr, size_t len, void *buf)
{
	struct mem_probe probes[2];
	size_t n = 0;
	int r;

	if (len == 0 || len > 2 * GLIBC_PAGE || addr + len < addr)
		return -EINVAL;
	if (!budget_left(g, len))
		return -ECANCELED;
	uint64_t first = addr & ~(GLIBC_PAGE - 1), last = (addr + len + GLIBC_PAGE - 1) & ~(GLIBC_PAGE - 1);
	page_runs_clear(&g->scratch);
	r = memsource_residency(g->in->src, first, last, &g->scratch);
	if (r < 0)
		return r;
	/* a file's page the page tables map (libc's text, read for its
	 * version) is in memory as much as an anonymous one: reading it
	 * faults nothing in */
	for (size_t i = 0; i < g->scratch.n; i++)
		if (g->scratch.v[i].state == PAGE_FILE)
			g->scratch.v[i].state = PAGE_RESIDENT;
	for (uint64_t at = addr; at < addr + len;) {
		uint64_t page_end = (at & ~(GLIBC_PAGE - 1)) + GLIBC_PAGE;
		uint64_t to = page_end < addr + len ? page_end : addr + len;
		if (page_runs_state(&g->scratch, at) != PAGE_RESIDENT)
			return -ENODATA;
		probes[n++] = (struct mem_probe){
			.addr = at, .len = (uint32_t)(to - at), .buf = (uint8_t *)buf + (at - addr), .runs = &g->scratch
		};
		at = to;
	}
	r = memsource_read(g->in->src, probes, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		g->w->bytes_read += probes[i].got;
		if (probes[i].got != probes[i].len)
			return -ENODATA;
	}
	return 0;
}

/* ------------------------------------------------------------ main_arena and mp_ */

/* Whether addr can be an arena: main_arena (main, once known), or one at
 * the start of a 64 MiB-aligned heap, after its heap_info. */
static bool arena_addr(const struct glibc *g, uint64_t addr, uint64_t main)
{
	if (main && addr == main)
		return true;
	return !((addr - g->layout->heap_info) & (GLIBC_HEAP_MAX - 1)) && in_writable(g->in, addr);
}

/* A malloc_state's own shape at addr: lock and flags in range, every bin
 * empty (pointing to itself) or holding chunks in mapped memory, top and
 * next where they can be (main: main_arena's address, 0 while it is
 * looked for). */
static bool state_ok(const struct glibc *g, uint64_t addr, const uint8_t *b, uint64_t main)
{
	const struct heap_walk_input *in = g->in;

	if (heap_glibc_u32(b, MS_MUTEX) > 2 || (heap_glibc_u32(b, MS_FLAGS) & ~7u) || heap_glibc_u32(b, MS_HAVE_FASTCHUNKS) > 1)
		return false;
	for (unsigned i = 0; i < GLIBC_NBINS - 1; i++) {
		uint64_t fd = heap_glibc_u64(b, MS_BINS + 16 * i), bk = heap_glibc_u64(b, MS_BINS + 16 * i + 8);
		uint64_t self = addr + MS_BINS + 16 * i - 16;
		if (fd == self && bk == self)
			continue;
		if (fd == self || bk == self || ((fd | bk) & 15) || !in_writable(in, fd) || !in_writable(in, bk))
			return false;
	}
	uint64_t top = heap_glibc_u64(b, MS_TOP), next = heap_glibc_u64(b, MS_NEXT), next_free = heap_glibc_u64(b, MS_NEXT_FREE);
	if ((top & 15) || (top != addr + MS_TOP && !in_writable(in, top)))
		return false;
	if (heap_glibc_u64(b, MS_SYSTEM_MEM) > heap_glibc_u64(b, MS_MAX_SYSTEM_MEM))
		return false;
	if (next != addr && !arena_addr(g, next, main))
		return false;
	if (next_free && !arena_addr(g, next_free, main))
		return false;
	return true;
}

/* mp_'s shape: counts of mmapped blocks that agree, the thread cache's
 * settings within glibc's own bounds, sbrk_base 0 or in [heap]. */
static bool par_ok(const struct glibc *g, const uint8_t *b, const struct region *brk)
{
	const struct glibc_layout *l = g->layout;
	int32_t n = (int32_t)heap_glibc_u32(b, l->par_n_mmaps), n_max = (int32_t)heap_glibc_u32(b, l->par_n_mmaps_max);
	int32_t max_n = (int32_t)heap_glibc_u32(b, l->par_max_n_mmaps);
	uint32_t no_dyn = heap_glibc_u32(b, l->par_no_dyn_threshold);
	uint64_t mem = heap_glibc_u64(b, l->par_mmapped_mem), max_mem = heap_glibc_u64(b, l->par_max_mmapped_mem);
	uint64_t sbrk = heap_glibc_u64(b, l->par_sbrk_base);

	if (n < 0 || n_max < 0 || max_n < n || no_dyn > 1 || (mem & (GLIBC_PAGE - 1)) || mem > max_mem ||
	    (n == 0) != (mem == 0))
		return false;
	if (heap_glibc_u64(b, l->par_mmap_threshold) > (UINT64_C(1) << 30))
		return false;
	if (heap_glibc_u64(b, l->par_tcache_bins) > TCACHE_MAX_BINS || heap_glibc_u64(b, l->par_tcache_max_bytes) > TCACHE_MAX_BYTES ||
	    heap_glibc_u64(b, l->par_tcache_count) > TCACHE_MAX_COUNT)
		return false;
	if (l->par_hp_pagesize) {
		uint64_t hp = heap_glibc_u64(b, l->par_hp_pagesize);
		if (hp && (hp < GLIBC_PAGE || (hp & (hp - 1))))
			return false;
	}
	if (sbrk && (!brk || sbrk < brk->start || sbrk >= brk->end))
		return false;
	return true;
}

/* What main_arena's and mp_'s search found. */
struct main_found {
	uint64_t arena, par;
	uint8_t state[MS_SIZE];
	uint64_t sbrk_base;
};

/* Whether the malloc_state at s and the malloc_par at p are main_arena and
 * mp_: top ends where the brk heap does (sbrk_base + system_mem, within
 * [heap]); with no brk heap yet, top is still the arena's own initial
 * chunk and sbrk_base 0.  Returns 1, 0, or an error of reading top. */
static int pair_ok(struct glibc *g, uint64_t s, const uint8_t *sb, const uint8_t *pb, const struct region *brk)
{
	uint64_t top = heap_glibc_u64(sb, MS_TOP), mem = heap_glibc_u64(sb, MS_SYSTEM_MEM);
	uint64_t sbrk = heap_glibc_u64(pb, g->layout->par_sbrk_base);
	uint8_t hdr[8];

	if (mem == 0)
		return top == s + MS_TOP && sbrk == 0;
	if (!brk || !sbrk || (heap_glibc_u32(sb, MS_FLAGS) & MS_NONCONTIGUOUS))
		return 0;
	uint64_t end = sbrk + mem;
	if (end < sbrk || end > brk->end || top < ((sbrk + 15) & ~UINT64_C(15)) || top + GLIBC_MINSIZE > end)
		return 0;
	int r = heap_glibc_read(g, top + 8, 8, hdr);
	if (r == -ENODATA)
		return 0;
	if (r < 0)
		return r;
	return top + (heap_glibc_u64(hdr, 0) & ~GLIBC_SIZE_BITS) == end;
}

static int find_main(struct glibc *g, struct main_found *ret)
{
	const struct heap_walk_input *in = g->in;
	const struct glibc_layout *l = g->layout;
	const struct region *brk = NULL;
	uint64_t start, end;
	int r, found = 0;

	for (size_t i = 0; i < in->n_regions; i++)
		if (in->regions[i].path && streq(in->regions[i].path, "[heap]"))
			brk = &in->regions[i];
	if (heap_glibc_libc_data(in, &start, &end) < 0)
		return heap_glibc_bad(g, "libc's writable data is not mapped as glibc maps it");
	size_t len = end - start, pages = len / GLIBC_PAGE;
	uint8_t *data = calloc(1, len), *read = calloc(pages, 1);
	if (!data || !read) {
		free(data);
		free(read);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pages; i++) {
		r = heap_glibc_read(g, start + i * GLIBC_PAGE, GLIBC_PAGE, data + i * GLIBC_PAGE);
		if (r == -ENODATA)
			continue;
		if (r < 0)
			goto out;
		read[i] = 1;
	}
	/* candidates, each read whole */
	for (size_t s = 0; s + MS_SIZE <= len; s += 8) {
		if (!read[s / GLIBC_PAGE] || !read[(s + MS_SIZE - 1) / GLIBC_PAGE] || !state_ok(g, start + s, data + s, 0))
			continue;
		for (size_t p = 0; p + l->par_size <= len; p += 8) {
			if (!read[p / GLIBC_PAGE] || !read[(p + l->par_size - 1) / GLIBC_PAGE] ||
			    (p + l->par_size > s && p < s + MS_SIZE) || !par_ok(g, data + p, brk))
				continue;
			r = pair_ok(g, start + s, data + s, data + p, brk);
			if (r < 0)
				goto out;
			if (r == 0)
				continue;
			if (found++) {
				r = heap_glibc_bad(g, "two places in libc's data look like main_arena and mp_");
				goto out;
			}
			ret->arena = start + s;
			ret->par = start + p;
			memcpy(ret->state, data + s, MS_SIZE);
			ret->sbrk_base = heap_glibc_u64(data + p, l->par_sbrk_base);
			g->mmapped_mem = heap_glibc_u64(data + p, l->par_mmapped_mem);
			g->n_mmaps = (int)heap_glibc_u32(data + p, l->par_n_mmaps);
		}
	}
	r = found ? 0 : heap_glibc_bad(g, "main_arena was not found in libc's data (its top chunk does not end [heap])");
out:
	free(data);
	free(read);
	return r == -ECANCELED ? heap_glibc_bad(g, "the byte limit was reached before main_arena was found") : r;
}

/* ------------------------------------------------------------ arenas and heaps */

static int add_item(struct glibc *g, const struct glibc_item *it)
{
	if (array_grow((void **)&g->items, g->n_items, &g->items_allocated, sizeof(*g->items), 16) < 0)
		return -ENOMEM;
	g->items[g->n_items++] = *it;
	return 0;
}

static int add_arena(struct glibc *g, uint64_t addr, const uint8_t *state)
{
	if (array_grow((void **)&g->arenas, g->n_arenas, &g->arenas_allocated, sizeof(*g->arenas), 8) < 0)
		return -ENOMEM;
	struct glibc_arena *a = &g->arenas[g->n_arenas++];
	memset(a, 0, sizeof(*a));
	a->addr = addr;
	for (int i = 0; i < GLIBC_NFASTBINS; i++)
		a->fastbins[i] = heap_glibc_u64(state, MS_FASTBINS + 8 * (size_t)i);
	a->top = heap_glibc_u64(state, MS_TOP);
	a->system_mem = heap_glibc_u64(state, MS_SYSTEM_MEM);
	return 0;
}

/* The heaps of the non-main arena at a (its state read), from the one
 * holding top back to its first through heap_info.prev. */
static int arena_heaps(struct glibc *g, uint64_t a, size_t index)
{
	const struct glibc_layout *l = g->layout;
	const struct glibc_arena *ar = &g->arenas[index];
	uint64_t first_heap = a - l->heap_info, x = ar->top & ~(GLIBC_HEAP_MAX - 1), sum = 0;
	uint8_t hi[48];
	int r;

	for (size_t n = 0;; n++) {
		if (n > g->in->n_regions)
			return heap_glibc_bad(g, "the heaps of the arena at %#" PRIx64 " loop", a);
		r = heap_glibc_read(g, x, l->heap_info, hi);
		if (r == -ENODATA)
			return heap_glibc_bad(g, "the heap_info at %#" PRIx64 " is not in memory", x);
		if (r < 0)
			return r;
		uint64_t ar_ptr = heap_glibc_u64(hi, 0), prev = heap_glibc_u64(hi, 8), size = heap_glibc_u64(hi, 16);
		uint64_t mprotect = heap_glibc_u64(hi, 24);
		const struct region *reg = heap_glibc_region_at(g->in, x);
		if (ar_ptr != a || size < l->heap_info + GLIBC_MINSIZE || size > mprotect || mprotect > GLIBC_HEAP_MAX ||
		    ((size | mprotect) & (GLIBC_PAGE - 1)))
			return heap_glibc_bad(g, "the heap_info at %#" PRIx64 " does not name its arena %#" PRIx64, x, a);
		if (l->hi_pagesize && heap_glibc_u64(hi, l->hi_pagesize) != GLIBC_PAGE)
			return heap_glibc_bad(g, "the arena at %#" PRIx64 " has heaps of huge pages (glibc.malloc.hugetlb)", a);
		if (!reg || reg->start != x || reg->end < x + size || !region_writable(reg))
			return heap_glibc_bad(g, "the heap at %#" PRIx64 " is not a region of its own", x);
		struct glibc_item it = {
			.kind = ITEM_ARENA_HEAP,
			.cover_start = reg->start,
			.cover_end = reg->end,
			.first = x == first_heap ? (a + MS_SIZE + 15) & ~UINT64_C(15) : x + l->heap_info,
			.end = x + size,
			.top = x == (ar->top & ~(GLIBC_HEAP_MAX - 1)) ? ar->top : 0,
			.arena = index,
		};
		if (it.top && (it.top < it.first || it.top + GLIBC_MINSIZE > it.end))
			return heap_glibc_bad(g, "the top chunk of the arena at %#" PRIx64 " is outside its heap", a);
		if ((r = add_item(g, &it)) < 0)
			return r;
		g->arenas[index].heaps++;
		sum += size;
		if (prev == 0)
			break;
		if (prev & (GLIBC_HEAP_MAX - 1))
			return heap_glibc_bad(g, "a heap_info's prev at %#" PRIx64 " is not a heap", x);
		x = prev;
	}
	if (x != first_heap)
		return heap_glibc_bad(g, "the heaps of the arena at %#" PRIx64 " do not lead to its first", a);
	if (sum != ar->system_mem)
		return heap_glibc_bad(g, "the heaps of the arena at %#" PRIx64 " hold %" PRIu64 " bytes, its system_mem %" PRIu64,
				 a, sum, ar->system_mem);
	return 0;
}

/* The ring of arenas from main_arena, and every heap. */
static int find_arenas(struct glibc *g, const struct main_found *m)
{
	const struct heap_walk_input *in = g->in;
	uint8_t *state = malloc(MS_SIZE);
	int r;

	if (!state)
		return -ENOMEM;
	r = add_arena(g, m->arena, m->state);
	uint64_t mem = heap_glibc_u64(m->state, MS_SYSTEM_MEM);
	if (r >= 0 && mem > 0) {
		const struct region *brk = heap_glibc_region_at(in, m->sbrk_base);
		struct glibc_item it = {
			.kind = ITEM_MAIN_HEAP,
			.cover_start = brk->start,
			.cover_end = brk->end,
			.first = (m->sbrk_base + 15) & ~UINT64_C(15),
			.end = m->sbrk_base + mem,
			.top = g->arenas[0].top,
			.arena = 0,
		};
		r = add_item(g, &it);
		g->arenas[0].heaps = 1;
	}
	for (uint64_t a = heap_glibc_u64(m->state, MS_NEXT); r >= 0 && a != m->arena;) {
		for (size_t i = 0; i < g->n_arenas; i++)
			if (g->arenas[i].addr == a) {
				r = heap_glibc_bad(g, "the ring of arenas loops at %#" PRIx64, a);
				goto out;
			}
		if (g->n_arenas > in->n_regions) {
			r = heap_glibc_bad(g, "more arenas than regions");
			break;
		}
		r = heap_glibc_read(g, a, MS_SIZE, state);
		if (r == -ENODATA)
			r = heap_glibc_bad(g, "the arena at %#" PRIx64 " is not in memory", a);
		if (r < 0)
			break;
		uint64_t next = heap_glibc_u64(state, MS_NEXT);
		if (((a - g->layout->heap_info) & (GLIBC_HEAP_MAX - 1)) || !arena_addr(g, next, m->arena)) {
			r = heap_glibc_bad(g, "the arena at %#" PRIx64 " is not a malloc_state", a);
			break;
		}
		if ((r = add_arena(g, a, state)) < 0)
			break;
		/* an arena whose bins or heaps change as they are read (its
		 * threads run) is unknown; the ring goes on through its next,
		 * which changes only when an arena is made */
		size_t items = g->n_items;
		if (!state_ok(g, a, state, m->arena)) {
			snprintf(g->why, sizeof(g->why), "the arena at %#" PRIx64 " was changing as it was read", a);
			heap_glibc_arena_fail(g, g->n_arenas - 1, g->why);
		} else if ((r = arena_heaps(g, a, g->n_arenas - 1)) == -EBADMSG) {
			g->n_items = items;
			g->arenas[g->n_arenas - 1].heaps = 0;
			heap_glibc_arena_fail(g, g->n_arenas - 1, g->why);
			r = 0;
		}
		if (r < 0)
			break;
		a = next;
	}
out:
	free(state);
	return r == -ECANCELED ? heap_glibc_bad(g, "the byte limit was reached before the arenas were read") : r;
}

/* The regions evidence confirmed as glibc's mmapped blocks. */
static int add_mmapped(struct glibc *g)
{
	for (size_t i = 0; i < g->in->n_regions; i++) {
		const struct region *r = &g->in->regions[i];
		if (r->rule != RULE_GLIBC_CHUNKS || r->cls != CLASS_MALLOC)
			continue;
		struct glibc_item it = { .kind = ITEM_MMAPPED, .cover_start = r->start, .cover_end = r->end,
					 .first = r->start, .end = r->end };
		int e = add_item(g, &it);
		if (e < 0)
			return e;
		g->mmapped_regions++;
	}
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct glibc_item *x = a, *y = b;
	return x->cover_start < y->cover_start ? -1 : x->cover_start > y->cover_start;
}

/* ------------------------------------------------------------ the walk */

static void reset(struct glibc *g)
{
	uint64_t bytes = g->w->bytes_read;
	enum class_id cls = g->w->cls;
	heap_walk_done(g->w);
	g->w->bytes_read = bytes;
	g->w->cls = cls;
	g->n_arenas = g->n_items = g->n_fast = g->n_spans = g->arenas_failed = 0;
	g->chunks = g->fast_chunks = g->mmapped_regions = g->not_reached = 0;
	g->arena_why[0] = '\0';
	g->mmapped_mem = 0;
	g->n_mmaps = 0;
	g->cut = NULL;
	g->win_start = g->win_end = g->avg_chunk = 0;
	g->why[0] = '\0';
}

/* One try: the structures, then the chunks.  Returns 0, 1 when some
 * arenas did not check out (the walk stands, their heaps unknown),
 * -EBADMSG when the structures did not (g->why), or an error. */
static int walk_once(struct glibc *g)
{
	struct main_found m;
	int r;

	reset(g);
	if ((r = find_main(g, &m)) < 0 || (r = find_arenas(g, &m)) < 0 || (r = add_mmapped(g)) < 0)
		return r;
	qsort_safe(g->items, g->n_items, sizeof(*g->items), item_cmp);
	for (size_t i = 0; i < g->n_items; i++) {
		if (i > 0 && g->items[i].cover_start < g->items[i - 1].cover_end)
			return heap_glibc_bad(g, "two heaps overlap at %#" PRIx64, g->items[i].cover_start);
		r = heap_walk_cover(g->w, g->in->src, g->items[i].cover_start, g->items[i].cover_end);
		if (r < 0)
			return r;
	}
	r = heap_glibc_walk_chunks(g);
	return r < 0 ? r : g->arenas_failed > 0;
}

static const char *ordinal(unsigned n)
{
	static const char *const words[] = { "first", "second", "third", "fourth", "fifth" };
	return n < 5 ? words[n] : "last";
}

/* why without the addresses it names ("the free chunk at 0x7f.. has no
 * footer" becomes "the free chunk has no footer"): a sentence that fits
 * beside the figures. */
static void without_addresses(char *dst, size_t size, const char *why)
{
	size_t n = 0;
	for (const char *p = why; *p && n + 1 < size;) {
		if (startswith(p, " at 0x")) {
			p += 6;
			while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
				p++;
			continue;
		}
		dst[n++] = *p++;
	}
	dst[n] = '\0';
}

static void say_how(struct glibc *g, unsigned tries)
{
	char mm[FORMAT_BYTES_MAX], nr[FORMAT_BYTES_MAX], why[160];
	char *how = g->w->how;
	size_t heaps = 0, size = sizeof(g->w->how), n;

	for (size_t i = 0; i < g->n_arenas; i++)
		heaps += g->arenas[i].heaps;
	snprintf(how, size, "glibc 2.%d: %zu arena%s (%zu heap%s), %" PRIu64 " chunks, %" PRIu64 " in fastbins; tcache counted in use",
		 g->minor, g->n_arenas, g->n_arenas == 1 ? "" : "s", heaps, heaps == 1 ? "" : "s", g->chunks, g->fast_chunks);
	n = strlen(how);
	if (g->n_mmaps > 0 && n < size)
		n += (size_t)snprintf(how + n, size - n, "; %d mmapped block%s (%s)", g->n_mmaps, g->n_mmaps == 1 ? "" : "s",
				      format_bytes(mm, g->mmapped_mem));
	if (g->arenas_failed && n < size) {
		without_addresses(why, sizeof(why), g->arena_why);
		n += (size_t)snprintf(how + n, size - n, "; %zu arena%s did not check out, unknown (%s; %u tries)",
				      g->arenas_failed, g->arenas_failed == 1 ? "" : "s", why, tries);
	} else if (tries > 1 && n < size) {
		n += (size_t)snprintf(how + n, size - n, "; checked out on the %s try", ordinal(tries - 1));
	}
	if (g->cut && n < size)
		snprintf(how + n, size - n, "; stopped at %s: %s not walked, unknown", g->cut, format_bytes(nr, g->not_reached));
}

/* The walk did not check out: every malloc region is unknown, and the
 * class says why. */
static int give_up(struct glibc *g, const char *why, unsigned tries)
{
	const struct heap_walk_input *in = g->in;
	int r;

	reset(g);
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *reg = &in->regions[i];
		if (reg->cls == CLASS_MALLOC && (r = heap_walk_cover(g->w, in->src, reg->start, reg->end)) < 0)
			return r;
	}
	g->w->failed = true;
	if (g->minor >= 0 && tries > 0)
		snprintf(g->w->why_not, sizeof(g->w->why_not), "glibc 2.%d: %s (%u tr%s)", g->minor, why, tries,
			 tries == 1 ? "y" : "ies");
	else if (g->minor >= 0)
		snprintf(g->w->why_not, sizeof(g->w->why_not), "glibc 2.%d: %s", g->minor, why);
	else
		snprintf(g->w->why_not, sizeof(g->w->why_not), "glibc: %s", why);
	return 0;
}

static bool glibc_serves_malloc(const struct heap_walk_input *in)
{
	struct runtimes rt;
	runtimes_init(&rt);
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		/* a program with another allocator inside (redis builds
		 * jemalloc into itself) maps libc alone: evidence that
		 * read that allocator's structures is the word that counts */
		if (r->rule == RULE_JEMALLOC_BASE || r->rule == RULE_JEMALLOC_EXTENTS || r->rule == RULE_MIMALLOC ||
		    r->rule == RULE_TCMALLOC)
			return false;
		if (r->path)
			runtimes_note_file(&rt, r->path);
	}
	return rt.allocator == RUNTIMES_MALLOC_GLIBC;
}

static void glibc_done(struct glibc *g)
{
	free(g->arenas);
	free(g->items);
	free(g->fast);
	free(g->spans);
	free(g->win);
	free(g->probes);
	page_runs_done(&g->scratch);
}

int heap_walk_glibc(const struct heap_walk_input *in, struct heap_walk *w)
{
	struct glibc g = { .in = in, .w = w, .minor = -1 };
	char why[sizeof(g.why)];
	unsigned tries = 0;
	int r, minor = -1;

	w->cls = CLASS_MALLOC;
	if (!glibc_serves_malloc(in))
		return 0;
	r = heap_glibc_version(&g, &minor);
	if (r == -ENOENT)
		return 0; /* no glibc: a static program, musl */
	if (r == -EBADMSG) {
		snprintf(why, sizeof(why), "%s", g.why);
		r = give_up(&g, why, 0);
		goto out;
	}
	if (r < 0)
		goto out;
	g.minor = minor;
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (minor >= layouts[i].first && minor <= layouts[i].last)
			g.layout = &layouts[i];
	if (!g.layout) {
		r = give_up(&g, "a release whose malloc structures this ramwatch does not know (2.31 to 2.41)", 0);
		goto out;
	}
	for (;;) {
		r = walk_once(&g);
		tries++;
		if (r != -EBADMSG && r != 1)
			break;
		bool last = tries > in->limits->retries ||
			    (in->limits->deadline_us && now_monotonic_us() >= in->limits->deadline_us);
		if (r == 1 && last) {
			/* what checked out stands, the rest is unknown */
			r = 0;
			break;
		}
		if (last) {
			snprintf(why, sizeof(why), "%s", g.why);
			r = give_up(&g, why, tries);
			goto out;
		}
	}
	if (r >= 0)
		say_how(&g, tries);
out:
	glibc_done(&g);
	return r;
}
