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
/* chunks this large on average (the last few) are read a header's page at
 * a time: a system call a chunk costs less than a window's pages, most of
 * them the blocks' insides (a page read costs about a third of a call) */
#define SPARSE_CHUNK (4 * GLIBC_PAGE)
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
	bool readable;
};

static int fast_add(struct glibc *g, uint64_t p, size_t arena, unsigned bin)
{
	if (array_grow((void **)&g->fast, g->n_fast, &g->fast_allocated, sizeof(*g->fast), 64) < 0)
		return -ENOMEM;
	g->fast[g->n_fast++] = (struct glibc_fast){ .addr = p, .arena = (uint32_t)arena, .bin = bin };
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

static int fast_cmp(const void *a, const void *b)
{
	const struct glibc_fast *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One round: reads size and fd of each chain's current chunk, all in one
 * batch (a chunk's fields may straddle two pages).  A chain whose chunk
 * is not in memory fails its arena.  Returns 0 or the source's error;
 * -ECANCELED at the byte limit. */
static int read_round(struct glibc *g, struct chain *c, size_t n)
{
	struct mem_probe probes[2 * GLIBC_NFASTBINS * 8];
	size_t owner[2 * GLIBC_NFASTBINS * 8];
	size_t k = 0;
	uint64_t bytes = 0;
	char why[160];

	for (size_t i = 0; i < n; i++) {
		uint64_t at = c[i].p + 8, split = (at & ~(GLIBC_PAGE - 1)) + GLIBC_PAGE;
		uint64_t parts[2][2] = { { at, split < at + 16 ? split : at + 16 }, { split, at + 16 } };
		c[i].readable = true;
		if (!in_arena(g, c[i].arena, c[i].p, GLIBC_MINSIZE)) {
			snprintf(why, sizeof(why), "a fastbin link at %#" PRIx64 " points outside its arena's heaps", c[i].p);
			heap_glibc_arena_fail(g, c[i].arena, why);
			c[i].readable = false;
			continue;
		}
		for (int j = 0; j < 2 && parts[j][0] < parts[j][1]; j++) {
			enum page_state st = page_runs_state(&g->w->runs, parts[j][0]);
			if (st != PAGE_RESIDENT) {
				snprintf(why, sizeof(why), "a fastbin chunk at %#" PRIx64 " is %s", c[i].p,
					 st == PAGE_SWAPPED ? "in swap" : "not in memory");
				heap_glibc_arena_fail(g, c[i].arena, why);
				c[i].readable = false;
				break;
			}
			owner[k] = i;
			probes[k++] = (struct mem_probe){ .addr = parts[j][0], .len = (uint32_t)(parts[j][1] - parts[j][0]),
							  .buf = c[i].buf + (parts[j][0] - at), .runs = &g->w->runs };
			bytes += parts[j][1] - parts[j][0];
		}
	}
	if (g->w->bytes_read + bytes > g->in->limits->max_bytes)
		return -ECANCELED;
	int r = memsource_read(g->in->src, probes, k);
	if (r < 0)
		return r;
	for (size_t i = 0; i < k; i++) {
		g->w->bytes_read += probes[i].got;
		if (probes[i].got != probes[i].len && c[owner[i]].readable) {
			snprintf(why, sizeof(why), "a fastbin chunk at %#" PRIx64 " could not be read", c[owner[i]].p);
			heap_glibc_arena_fail(g, c[owner[i]].arena, why);
			c[owner[i]].readable = false;
		}
	}
	return 0;
}

/* The next chunk of a chain, or 0 at its end; fails the chain's arena
 * when the chunk read does not check out. */
static int chain_step(struct glibc *g, struct chain *x, uint64_t *next)
{
	uint64_t size = heap_glibc_u64(x->buf, 0) & ~GLIBC_SIZE_BITS, fd = heap_glibc_u64(x->buf, 8);
	char why[160];
	int r;

	*next = 0;
	if (size != (x->bin + 2) * 16)
		snprintf(why, sizeof(why), "a chunk of %" PRIu64 " bytes at %#" PRIx64 " in fastbin %u", size, x->p, x->bin);
	else if (!in_arena(g, x->arena, x->p, size))
		snprintf(why, sizeof(why), "a fastbin chunk at %#" PRIx64 " is outside its arena's heaps", x->p);
	else {
		if ((r = fast_add(g, x->p, x->arena, x->bin)) < 0)
			return r;
		uint64_t n = g->layout->safe_linking ? fd ^ ((x->p + 16) >> 12) : fd;
		if (n == 0)
			return 0;
		if (n & 15)
			snprintf(why, sizeof(why), "a fastbin link at %#" PRIx64 " is not a chunk", x->p + 16);
		else if (n == x->tortoise)
			snprintf(why, sizeof(why), "fastbin %u of the arena at %#" PRIx64 " loops", x->bin,
				 g->arenas[x->arena].addr);
		else {
			if (x->power == x->lam) {
				x->tortoise = n;
				x->power *= 2;
				x->lam = 0;
			}
			x->lam++;
			*next = n;
			return 0;
		}
	}
	heap_glibc_arena_fail(g, x->arena, why);
	return 0;
}

/* Every arena's fastbin chains into g->fast, sorted, a chunk once.
 * Returns 0, -ECANCELED (a limit stopped it: g->cut), or an error. */
static int read_fastbins(struct glibc *g)
{
	struct chain c[GLIBC_NFASTBINS * 8];
	size_t next_arena = 0, next_bin = 0, active = 0;
	int r;

	for (;;) {
		/* the chains still going, and new ones up to a batch */
		while (active < sizeof(c) / sizeof(c[0]) && next_arena < g->n_arenas) {
			uint64_t head = g->arenas[next_arena].failed ? 0 : g->arenas[next_arena].fastbins[next_bin];
			if (head && (head & 15))
				heap_glibc_arena_fail(g, next_arena, "a fastbin's head is not a chunk");
			else if (head)
				c[active++] = (struct chain){ .p = head, .arena = next_arena, .bin = (unsigned)next_bin,
							      .tortoise = head, .power = 1, .lam = 1 };
			if (++next_bin == GLIBC_NFASTBINS) {
				next_bin = 0;
				next_arena++;
			}
		}
		if (active == 0)
			break;
		if (past_deadline(g)) {
			g->cut = "the census's deadline";
			return -ECANCELED;
		}
		if ((r = read_round(g, c, active)) < 0) {
			if (r == -ECANCELED)
				g->cut = "the byte limit";
			return r;
		}
		size_t keep = 0;
		for (size_t i = 0; i < active; i++) {
			uint64_t next;
			if (!c[i].readable || g->arenas[c[i].arena].failed)
				continue;
			if ((r = chain_step(g, &c[i], &next)) < 0)
				return r;
			if (next && !g->arenas[c[i].arena].failed) {
				c[i].p = next;
				c[keep++] = c[i];
			}
		}
		active = keep;
	}
	qsort_safe(g->fast, g->n_fast, sizeof(*g->fast), fast_cmp);
	for (size_t i = 1; i < g->n_fast; i++)
		if (g->fast[i].addr == g->fast[i - 1].addr) {
			heap_glibc_arena_fail(g, g->fast[i].arena, "a chunk is in two fastbins");
			heap_glibc_arena_fail(g, g->fast[i - 1].arena, "a chunk is in two fastbins");
		}
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
 * one batch, as far as the byte limit allows; where the chunks are large
 * (g->avg_chunk of SPARSE_CHUNK or more), the page of addr alone: a
 * window would read mostly the blocks' insides.  Returns 0, or
 * -ECANCELED with g->cut. */
static int window_load(struct glibc *g, uint64_t addr, uint64_t limit)
{
	uint64_t start = addr & ~(GLIBC_PAGE - 1), end = (limit + GLIBC_PAGE - 1) & ~(GLIBC_PAGE - 1);
	uint64_t span = g->avg_chunk >= SPARSE_CHUNK ? GLIBC_PAGE : WINDOW;
	uint64_t left = g->in->limits->max_bytes > g->w->bytes_read ? g->in->limits->max_bytes - g->w->bytes_read : 0;
	size_t n = 0;
	int r;

	if (past_deadline(g)) {
		g->cut = "the census's deadline";
		return -ECANCELED;
	}
	if (end > start + span)
		end = start + span;
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
		return heap_glibc_bad(g, "the chunk header at %#" PRIx64 " is not in memory", p);
	}
	*prev_size = heap_glibc_u64(g->win, p - g->win_start);
	*size = heap_glibc_u64(g->win, p - g->win_start + 8);
	return 0;
}

/* ------------------------------------------------------------ spans */

enum { SPAN_NONE, SPAN_IN_USE, SPAN_FREE, SPAN_MIXED };

/* Consecutive chunks not yet kept as a span. */
struct pending {
	uint64_t start, end, in_use, free;
	int kind;
};

static int keep_span(struct glibc *g, const struct heap_span *x)
{
	if (array_grow((void **)&g->spans, g->n_spans, &g->spans_allocated, sizeof(*g->spans), 256) < 0)
		return -ENOMEM;
	g->spans[g->n_spans++] = *x;
	return 0;
}

static int flush(struct glibc *g, struct pending *a)
{
	int r = 0;
	if (a->kind != SPAN_NONE)
		r = keep_span(g, &(struct heap_span){ .start = a->start, .end = a->end, .in_use = a->in_use, .free = a->free });
	a->kind = SPAN_NONE;
	return r;
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
		return keep_span(g, &(struct heap_span){
					    .start = start, .end = end, .free = end - start, .ret_start = ret, .ret_end = end });
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
	if (*at < g->n_fast && g->fast[*at].addr < p)
		return heap_glibc_bad(g, "the fastbin chunk at %#" PRIx64 " is not on a chunk boundary", g->fast[*at].addr);
	if (*at < g->n_fast && g->fast[*at].addr == p) {
		if (size != (g->fast[*at].bin + 2) * 16)
			return heap_glibc_bad(g, "the fastbin chunk at %#" PRIx64 " has another size in the heap", p);
		(*at)++;
		*ret = true;
	}
	return 0;
}

/* Walks one heap's chunks into spans.  Returns 0, -ECANCELED when a
 * limit stopped it (what it did not reach is an unknown span), -EBADMSG
 * (g->why), or an error. */
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
			return heap_glibc_bad(g, "the heap at %#" PRIx64 " ends with no fencepost", it->cover_start);
		r = header(g, p, it->end, &ps, &sz);
		if (r == -ECANCELED || r == -ENODATA) {
			uint64_t from = prev ? prev : p;
			int e = flush(g, a);
			if (e < 0 || (e = keep_span(g, &(struct heap_span){ .start = from, .end = it->end, .unknown = true })) < 0)
				return e;
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
					return heap_glibc_bad(g, "the free chunk at %#" PRIx64 " has no footer", prev);
				if (!prev_flag)
					return heap_glibc_bad(g, "two free chunks side by side at %#" PRIx64, prev);
				if (*fast_at < g->n_fast && g->fast[*fast_at].addr == prev)
					return heap_glibc_bad(g, "the fastbin chunk at %#" PRIx64 " is marked free", prev);
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
				return heap_glibc_bad(g, "the top chunk at %#" PRIx64 " does not end its heap", p);
			return emit(g, a, p, it->end, true, p + GLIBC_MINSIZE + 1);
		}
		if (!it->top && size == 0) {
			/* the fencepost sysmalloc writes when it starts a new heap */
			if (p + 16 > it->end || p + 48 < it->end)
				return heap_glibc_bad(g, "the heap at %#" PRIx64 " does not end with its fenceposts", it->cover_start);
			return 0;
		}
		if ((sz & GLIBC_IS_MMAPPED) || (main_heap && (sz & GLIBC_NON_MAIN_ARENA)))
			return heap_glibc_bad(g, "a chunk at %#" PRIx64 " has flags no heap chunk has (%#" PRIx64 ")", p,
					 sz & GLIBC_SIZE_BITS);
		if (size & 15)
			return heap_glibc_bad(g, "the chunk at %#" PRIx64 " has a size not a multiple of 16", p);
		if (p == it->first && !(sz & GLIBC_PREV_INUSE))
			return heap_glibc_bad(g, "the first chunk at %#" PRIx64 " says the one before it is free", p);
		if (size < GLIBC_MINSIZE) {
			if (it->top || size != 16)
				return heap_glibc_bad(g, "the chunk at %#" PRIx64 " is smaller than any chunk", p);
			/* the fencepost before the end: overhead, no chunk */
			prev = 0;
			p += 16;
			continue;
		}
		if (p + size > stop || p + size < p)
			return heap_glibc_bad(g, "the chunk at %#" PRIx64 " runs past %s", p, it->top ? "the top chunk" : "its heap");
		prev = p;
		prev_size = size;
		prev_flag = sz & GLIBC_PREV_INUSE;
		g->avg_chunk = (g->avg_chunk * 7 + size) / 8;
		p += size;
	}
}

/* Skips the fastbin chunks below end; those of an arena that checked out
 * so far were not met by its walk: it fails. */
static void skip_fast(struct glibc *g, size_t *at, uint64_t end, bool blame)
{
	for (; *at < g->n_fast && g->fast[*at].addr < end; (*at)++)
		if (blame)
			heap_glibc_arena_fail(g, g->fast[*at].arena, "a fastbin chunk is not a chunk of its heaps");
}

/* The spans kept become the walk's, item by item: an arena that failed
 * leaves its heaps unknown. */
static int assemble(struct glibc *g)
{
	int r = 0;

	for (size_t i = 0; i < g->n_items && r >= 0; i++) {
		const struct glibc_item *it = &g->items[i];
		if (it->kind != ITEM_MMAPPED && g->arenas[it->arena].failed) {
			r = heap_walk_add_unknown(g->w, it->first, it->end);
			continue;
		}
		for (size_t k = it->span_from; k < it->span_to && r >= 0; k++) {
			const struct heap_span *x = &g->spans[k];
			if (x->unknown)
				r = heap_walk_add_unknown(g->w, x->start, x->end);
			else if (x->ret_end)
				r = heap_walk_add_free(g->w, x->start, x->end, x->ret_start, x->ret_end);
			else
				r = heap_walk_add(g->w, x->start, x->end, x->in_use, x->free);
		}
	}
	return r == -EINVAL ? heap_glibc_bad(g, "spans out of order") : r;
}

int heap_glibc_walk_chunks(struct glibc *g)
{
	struct pending a = { .kind = SPAN_NONE };
	size_t fast_at = 0;
	bool cut = false;
	int r;

	g->n_spans = 0;
	r = read_fastbins(g);
	if (r == -ECANCELED)
		cut = true;
	else if (r < 0)
		return r;
	if (!g->win && !(g->win = malloc(WINDOW)))
		return -ENOMEM;
	if (!g->probes && !(g->probes = malloc(WINDOW_PAGES * sizeof(*g->probes))))
		return -ENOMEM;
	for (size_t i = 0; i < g->n_items; i++) {
		struct glibc_item *it = &g->items[i];
		it->span_from = g->n_spans;
		if (it->kind == ITEM_MMAPPED) {
			/* blocks in use whole, headers and all, as hblkhd counts them */
			r = keep_span(g, &(struct heap_span){ .start = it->first, .end = it->end, .in_use = it->end - it->first });
		} else if (cut) {
			r = keep_span(g, &(struct heap_span){ .start = it->first, .end = it->end, .unknown = true });
			g->not_reached += it->end - it->first;
		} else if (g->arenas[it->arena].failed) {
			skip_fast(g, &fast_at, it->end, false);
			r = 0;
		} else {
			skip_fast(g, &fast_at, it->first, true);
			uint64_t before = g->not_reached, chunks = g->chunks;
			r = walk_heap(g, it, &fast_at, &a);
			if (r >= 0 || r == -ECANCELED) {
				int e = flush(g, &a);
				if (e < 0)
					return e;
			}
			if (r == -ECANCELED) {
				cut = true;
				r = 0;
			} else if (r == -EBADMSG) {
				g->chunks = chunks;
				heap_glibc_arena_fail(g, it->arena, g->why);
				a.kind = SPAN_NONE;
				g->n_spans = it->span_from;
				skip_fast(g, &fast_at, it->end, false);
				r = 0;
			} else if (r >= 0 && g->not_reached != before) {
				/* left at a header in swap: its fastbin chunks past it were not met */
				skip_fast(g, &fast_at, it->end, false);
			}
		}
		if (r < 0)
			return r;
		it->span_to = g->n_spans;
	}
	if (!cut)
		skip_fast(g, &fast_at, UINT64_MAX, true);
	g->fast_chunks = 0;
	for (size_t i = 0; i < g->n_fast; i++)
		g->fast_chunks += !g->arenas[g->fast[i].arena].failed;
	return assemble(g);
}
