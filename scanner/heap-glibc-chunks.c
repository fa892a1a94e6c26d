/* The glibc heap walker's chunk walk (heap-glibc.h): the fastbins, then
 * every heap read from its first chunk to its top chunk (or, for an
 * arena's older heaps, to the fenceposts at its end).
 *
 * A chunk is free when the next chunk's PREV_INUSE bit is clear, and then
 * the next chunk's prev_size repeats its size; chunks in fastbins keep
 * the bit set (they look in use) and are found from the arenas' fastbinsY
 * lists, with safe-linking undone from 2.32 on (fd ^ (&fd >> 12)).  Chunks
 * in the thread caches look in use too, and mallinfo2 counts them so: so
 * do we.  The top chunk is free.  What malloc_trim(0) would give back is
 * returnable: the whole pages of a free chunk past its header (mtrim
 * keeps sizeof (struct malloc_chunk)), and of the top chunk all but its
 * first MINSIZE + 1 bytes (systrim, heap_trim).
 *
 * A heap is read a window of resident pages at a time (1 MiB, one read
 * each), and a window is read only where a chunk header falls: a 450 MiB
 * fragmented heap costs about a tenth of a second, where one read per
 * chunk cost four times that.  Consecutive chunks become one span while
 * they are all in use, or all free, or sit in pages all private (then the
 * span's sums are exact); a free chunk with whole pages to give back is a
 * span of its own, with its returnable range. */
#include "heap-glibc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "util.h"

#define WINDOW (1u << 20)
#define WINDOW_PAGES (WINDOW / GLIBC_PAGE)
/* sizeof (struct malloc_chunk): what malloc_trim keeps of a free chunk */
#define FREE_KEEP UINT64_C(48)

static bool past_deadline(const struct glibc *g)
{
	uint64_t d = g->in->limits->deadline_us;
	return d && now_monotonic_us() >= d;
}

/* ------------------------------------------------------------ fastbins */

struct chain {
	uint64_t p;
	size_t arena;
	unsigned bin;
	uint64_t tortoise, power, lam; /* Brent's cycle finding: a chain that loops is caught */
	uint8_t buf[16];               /* size, fd */
};

static int fast_add(struct glibc *g, uint64_t p, unsigned bin)
{
	if (g->n_fast == g->fast_allocated) {
		size_t want = g->fast_allocated ? 2 * g->fast_allocated : 64;
		uint64_t *v = realloc(g->fast, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		g->fast = v;
		g->fast_allocated = want;
	}
	g->fast[g->n_fast++] = p | bin;
	return 0;
}

/* Whether [p, p + size) lies among the chunks of a heap of arena a. */
static bool in_arena(const struct glibc *g, size_t a, uint64_t p, uint64_t size)
{
	for (size_t i = 0; i < g->n_items; i++) {
		const struct glibc_item *it = &g->items[i];
		uint64_t stop = it->top ? it->top : it->end;
		if (it->kind != ITEM_MMAPPED && it->arena == a && p >= it->first && p + size <= stop)
			return true;
	}
	return false;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One round: reads size and fd of each chain's current chunk, all in one
 * batch (a chunk's fields may straddle two pages). */
static int read_round(struct glibc *g, struct chain *c, size_t n)
{
	struct mem_probe probes[2 * GLIBC_NFASTBINS * 8];
	size_t k = 0;
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t at = c[i].p + 8, split = (at & ~(GLIBC_PAGE - 1)) + GLIBC_PAGE;
		uint32_t first = split < at + 16 ? (uint32_t)(split - at) : 16;
		for (uint64_t a = at; a < at + 16; a = split) {
			enum page_state st = page_runs_state(&g->w->runs, a);
			if (st == PAGE_SWAPPED)
				return glibc_bad(g, "a fastbin chunk at %#" PRIx64 " is in swap", c[i].p);
			if (st != PAGE_RESIDENT)
				return glibc_bad(g, "a fastbin chunk at %#" PRIx64 " is not in memory", c[i].p);
			uint32_t len = a == at ? first : 16 - first;
			probes[k++] = (struct mem_probe){
				.addr = a, .len = len, .buf = c[i].buf + (a - at), .runs = &g->w->runs
			};
			bytes += len;
			if (a != at || first == 16)
				break;
		}
	}
	if (g->w->bytes_read + bytes > g->in->limits->max_bytes)
		return glibc_bad(g, "the byte limit was reached while the fastbins were read");
	int r = memsource_read(g->in->src, probes, k);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k; i++) {
		g->w->bytes_read += probes[i].got;
		if (probes[i].got != probes[i].len)
			return glibc_bad(g, "a fastbin chunk at %#" PRIx64 " could not be read", probes[i].addr - 8);
	}
	return 0;
}

/* Every arena's fastbin chains into g->fast, sorted, a chunk once. */
static int read_fastbins(struct glibc *g)
{
	struct chain c[GLIBC_NFASTBINS * 8];
	size_t next_arena = 0, next_bin = 0;
	int r;

	size_t active = 0;
	for (;;) {
		/* the chains still going, and new ones up to a batch */
		while (active < sizeof(c) / sizeof(c[0]) && next_arena < g->n_arenas) {
			uint64_t head = g->arenas[next_arena].fastbins[next_bin];
			if (head) {
				if (head & 15)
					return glibc_bad(g, "a fastbin's head %#" PRIx64 " is not a chunk", head);
				c[active++] = (struct chain){ .p = head, .arena = next_arena, .bin = (unsigned)next_bin,
							      .tortoise = head, .power = 1, .lam = 1 };
			}
			if (++next_bin == GLIBC_NFASTBINS) {
				next_bin = 0;
				next_arena++;
			}
		}
		if (active == 0)
			break;
		if (past_deadline(g))
			return glibc_bad(g, "the deadline passed while the fastbins were read");
		if ((r = read_round(g, c, active)) < 0)
			return r;
		size_t keep = 0;
		for (size_t i = 0; i < active; i++) {
			struct chain *x = &c[i];
			uint64_t size = glibc_u64(x->buf, 0) & ~GLIBC_SIZE_BITS, fd = glibc_u64(x->buf, 8);
			if (size != (x->bin + 2) * 16)
				return glibc_bad(g, "a chunk of %" PRIu64 " bytes at %#" PRIx64 " in fastbin %u", size, x->p,
						 x->bin);
			if (!in_arena(g, x->arena, x->p, size))
				return glibc_bad(g, "a fastbin chunk at %#" PRIx64 " is outside its arena's heaps", x->p);
			if ((r = fast_add(g, x->p, x->bin)) < 0)
				return r;
			uint64_t next = g->layout->safe_linking ? fd ^ ((x->p + 16) >> 12) : fd;
			if (next == 0)
				continue;
			if (next & 15)
				return glibc_bad(g, "a fastbin link at %#" PRIx64 " is not a chunk", x->p + 16);
			if (next == x->tortoise)
				return glibc_bad(g, "fastbin %u of the arena at %#" PRIx64 " loops", x->bin,
						 g->arenas[x->arena].addr);
			if (x->power == x->lam) {
				x->tortoise = next;
				x->power *= 2;
				x->lam = 0;
			}
			x->lam++;
			x->p = next;
			c[keep++] = *x;
		}
		active = keep;
	}
	qsort_safe(g->fast, g->n_fast, sizeof(*g->fast), u64_cmp);
	for (size_t i = 1; i < g->n_fast; i++)
		if ((g->fast[i] & ~UINT64_C(15)) == (g->fast[i - 1] & ~UINT64_C(15)))
			return glibc_bad(g, "the chunk at %#" PRIx64 " is in two fastbins", g->fast[i] & ~UINT64_C(15));
	g->fast_chunks = g->n_fast;
	return 0;
}

/* ------------------------------------------------------------ windows */

static void mark_read(struct glibc *g, size_t page)
{
	g->win_read[page / 64] |= UINT64_C(1) << (page % 64);
}

static bool was_read(const struct glibc *g, size_t page)
{
	return (g->win_read[page / 64] >> (page % 64)) & 1;
}

/* Reads the resident pages of [page of addr, + WINDOW) below limit, in
 * one batch, as far as the byte limit allows.  Returns 0, or -ECANCELED
 * with g->cut. */
static int window_load(struct glibc *g, uint64_t addr, uint64_t limit)
{
	uint64_t start = addr & ~(GLIBC_PAGE - 1), end = (limit + GLIBC_PAGE - 1) & ~(GLIBC_PAGE - 1);
	uint64_t left = g->in->limits->max_bytes > g->w->bytes_read ? g->in->limits->max_bytes - g->w->bytes_read : 0;
	size_t n = 0;
	int r;

	if (past_deadline(g)) {
		g->cut = "the census's deadline";
		return -ECANCELED;
	}
	if (end > start + WINDOW)
		end = start + WINDOW;
	memset(g->win_read, 0, sizeof(g->win_read));
	g->win_start = g->win_end = start;
	for (uint64_t p = start; p < end; p += GLIBC_PAGE) {
		if (page_runs_state(&g->w->runs, p) != PAGE_RESIDENT)
			continue;
		if ((n + 1) * GLIBC_PAGE > left) {
			end = p; /* the byte limit: the window ends here */
			break;
		}
		g->probes[n++] = (struct mem_probe){
			.addr = p, .len = GLIBC_PAGE, .buf = g->win + (p - start), .runs = &g->w->runs
		};
	}
	if (end <= addr) {
		g->cut = "the byte limit";
		return -ECANCELED;
	}
	r = memsource_read(g->in->src, g->probes, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		g->w->bytes_read += g->probes[i].got;
		if (g->probes[i].got == GLIBC_PAGE)
			mark_read(g, (g->probes[i].addr - start) / GLIBC_PAGE);
	}
	g->win_end = end;
	return 0;
}

/* The header (prev_size, size) of the chunk at p, a heap's chunk below
 * limit.  Returns 0, -ECANCELED (a limit: g->cut), -ENODATA (its page is
 * in swap), -EBADMSG, or an error. */
static int header(struct glibc *g, uint64_t p, uint64_t limit, uint64_t *prev_size, uint64_t *size)
{
	int r;

	if (p < g->win_start || p + 16 > g->win_end) {
		if ((r = window_load(g, p, limit)) < 0)
			return r;
	}
	if (!was_read(g, (p - g->win_start) / GLIBC_PAGE)) {
		enum page_state st = page_runs_state(&g->w->runs, p);
		if (st == PAGE_SWAPPED)
			return -ENODATA;
		return glibc_bad(g, "the chunk header at %#" PRIx64 " is not in memory", p);
	}
	*prev_size = glibc_u64(g->win, p - g->win_start);
	*size = glibc_u64(g->win, p - g->win_start + 8);
	return 0;
}

/* ------------------------------------------------------------ spans */

enum { SPAN_NONE, SPAN_IN_USE, SPAN_FREE, SPAN_MIXED };

/* Consecutive chunks not yet added as a span. */
struct pending {
	uint64_t start, end, in_use, free;
	int kind;
};

static int flush(struct glibc *g, struct pending *a)
{
	int r = 0;
	if (a->kind != SPAN_NONE)
		r = heap_walk_add(g->w, a->start, a->end, a->in_use, a->free);
	a->kind = SPAN_NONE;
	return r == -EINVAL ? glibc_bad(g, "chunks out of order at %#" PRIx64, a->start) : r;
}

static bool all_private(const struct glibc *g, uint64_t start, uint64_t end)
{
	return heap_walk_private(g->w, start, end) == end - start;
}

/* Adds the chunk [start, end), free or in use; a free chunk's bytes from
 * ret on are what the allocator could give back. */
static int emit(struct glibc *g, struct pending *a, uint64_t start, uint64_t end, bool is_free, uint64_t ret)
{
	int kind = is_free ? SPAN_FREE : SPAN_IN_USE, r;

	g->chunks++;
	if (is_free && ret && ((ret + GLIBC_PAGE - 1) & ~(GLIBC_PAGE - 1)) + GLIBC_PAGE <= end) {
		if ((r = flush(g, a)) < 0)
			return r;
		r = heap_walk_add_free(g->w, start, end, ret, end);
		return r == -EINVAL ? glibc_bad(g, "chunks out of order at %#" PRIx64, start) : r;
	}
	if (a->kind != SPAN_NONE && a->end == start &&
	    (a->kind == kind || (all_private(g, a->start, a->end) && all_private(g, start, end)))) {
		if (a->kind != kind)
			a->kind = SPAN_MIXED;
	} else {
		if ((r = flush(g, a)) < 0)
			return r;
		*a = (struct pending){ .start = start, .kind = kind };
	}
	a->end = end;
	if (is_free)
		a->free += end - start;
	else
		a->in_use += end - start;
	return 0;
}

/* ------------------------------------------------------------ heaps */

/* Whether the chunk at p of size bytes is in a fastbin (g->fast from
 * *at on; chunks come in address order). */
static int in_fastbin(struct glibc *g, size_t *at, uint64_t p, uint64_t size, bool *ret)
{
	*ret = false;
	if (*at < g->n_fast && (g->fast[*at] & ~UINT64_C(15)) < p)
		return glibc_bad(g, "the fastbin chunk at %#" PRIx64 " is not on a chunk boundary", g->fast[*at] & ~UINT64_C(15));
	if (*at < g->n_fast && (g->fast[*at] & ~UINT64_C(15)) == p) {
		if (size != ((g->fast[*at] & 15) + 2) * 16)
			return glibc_bad(g, "the fastbin chunk at %#" PRIx64 " has another size in the heap", p);
		(*at)++;
		*ret = true;
	}
	return 0;
}

/* Walks one heap's chunks into spans.  Returns 0, -ECANCELED when a
 * limit stopped it (what it did not reach is an unknown span), -EBADMSG,
 * or an error. */
static int walk_heap(struct glibc *g, const struct glibc_item *it, size_t *fast_at, struct pending *a)
{
	const bool main_heap = it->kind == ITEM_MAIN_HEAP;
	uint64_t p = it->first, stop = it->top ? it->top : it->end;
	uint64_t prev = 0, prev_size = 0;
	bool prev_flag = true;
	int r;

	for (;;) {
		uint64_t ps = 0, sz = 0, size;
		if (p + 16 > it->end)
			return glibc_bad(g, "the heap at %#" PRIx64 " ends with no fencepost", it->cover_start);
		r = header(g, p, it->end, &ps, &sz);
		if (r == -ECANCELED || r == -ENODATA) {
			uint64_t from = prev ? prev : p;
			int e = flush(g, a);
			if (e < 0)
				return e;
			if ((e = heap_walk_add_unknown(g->w, from, it->end)) < 0)
				return e == -EINVAL ? glibc_bad(g, "chunks out of order at %#" PRIx64, from) : e;
			g->not_reached += it->end - from;
			if (r == -ENODATA)
				g->cut = "a chunk header in swap";
			return r == -ENODATA ? 0 : r;
		}
		if (r < 0)
			return r;
		if (prev) {
			bool fast = false;
			if (!(sz & GLIBC_PREV_INUSE)) {
				if (ps != prev_size)
					return glibc_bad(g, "the free chunk at %#" PRIx64 " has no footer", prev);
				if (!prev_flag)
					return glibc_bad(g, "two free chunks side by side at %#" PRIx64, prev);
				if (*fast_at < g->n_fast && (g->fast[*fast_at] & ~UINT64_C(15)) == prev)
					return glibc_bad(g, "the fastbin chunk at %#" PRIx64 " is marked free", prev);
				r = emit(g, a, prev, p, true, prev + FREE_KEEP);
			} else if ((r = in_fastbin(g, fast_at, prev, prev_size, &fast)) >= 0) {
				r = emit(g, a, prev, p, fast, 0);
			}
			if (r < 0)
				return r;
		}
		size = sz & ~GLIBC_SIZE_BITS;
		if (it->top && p == stop) {
			if (p + size != it->end || (sz & GLIBC_IS_MMAPPED))
				return glibc_bad(g, "the top chunk at %#" PRIx64 " does not end its heap", p);
			return emit(g, a, p, it->end, true, p + GLIBC_MINSIZE + 1);
		}
		if (!it->top && size == 0) {
			/* the fencepost sysmalloc writes when it starts a new heap */
			if (p + 16 > it->end || p + 48 < it->end)
				return glibc_bad(g, "the heap at %#" PRIx64 " does not end with its fenceposts", it->cover_start);
			return 0;
		}
		if ((sz & GLIBC_IS_MMAPPED) || (main_heap && (sz & GLIBC_NON_MAIN_ARENA)))
			return glibc_bad(g, "the chunk at %#" PRIx64 " has flags %#" PRIx64 " no heap chunk has", p,
					 sz & GLIBC_SIZE_BITS);
		if (size & 15)
			return glibc_bad(g, "the chunk at %#" PRIx64 " has a size not a multiple of 16", p);
		if (p == it->first && !(sz & GLIBC_PREV_INUSE))
			return glibc_bad(g, "the first chunk at %#" PRIx64 " says the one before it is free", p);
		if (size < GLIBC_MINSIZE) {
			if (it->top || size != 16)
				return glibc_bad(g, "the chunk at %#" PRIx64 " is smaller than any chunk", p);
			/* the fencepost before the end: overhead, no chunk */
			prev = 0;
			p += 16;
			continue;
		}
		if (p + size > stop || p + size < p)
			return glibc_bad(g, "the chunk at %#" PRIx64 " runs past %s", p, it->top ? "the top chunk" : "its heap");
		prev = p;
		prev_size = size;
		prev_flag = sz & GLIBC_PREV_INUSE;
		p += size;
	}
}

int glibc_walk_chunks(struct glibc *g)
{
	struct pending a = { .kind = SPAN_NONE };
	size_t fast_at = 0;
	bool cut = false;
	int r;

	if ((r = read_fastbins(g)) < 0)
		return r;
	if (!g->win && !(g->win = malloc(WINDOW)))
		return -ENOMEM;
	if (!g->probes && !(g->probes = malloc(WINDOW_PAGES * sizeof(*g->probes))))
		return -ENOMEM;
	for (size_t i = 0; i < g->n_items; i++) {
		const struct glibc_item *it = &g->items[i];
		if (it->kind == ITEM_MMAPPED) {
			/* a block in use whole, header and all, as hblkhd counts it */
			if ((r = flush(g, &a)) < 0 || (r = heap_walk_add(g->w, it->first, it->end, it->end - it->first, 0)) < 0)
				return r;
			continue;
		}
		if (cut) {
			if ((r = flush(g, &a)) < 0 || (r = heap_walk_add_unknown(g->w, it->first, it->end)) < 0)
				return r;
			g->not_reached += it->end - it->first;
			continue;
		}
		uint64_t before = g->not_reached;
		r = walk_heap(g, it, &fast_at, &a);
		if (r == -ECANCELED) {
			cut = true;
			continue;
		}
		if (r < 0)
			return r;
		/* a heap left at a header in swap: its fastbin chunks past it were not met */
		while (g->not_reached != before && fast_at < g->n_fast && (g->fast[fast_at] & ~UINT64_C(15)) < it->end)
			fast_at++;
		if ((r = flush(g, &a)) < 0)
			return r;
	}
	if ((r = flush(g, &a)) < 0)
		return r;
	if (!cut && !g->cut && fast_at != g->n_fast)
		return glibc_bad(g, "%zu fastbin chunks are not chunks of the heaps", g->n_fast - fast_at);
	return 0;
}
