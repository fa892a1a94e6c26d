/* The evidence pass: which regions are read, how they are walked, and the
 * bounds on what it costs.
 *
 * A census of smaps already walks every page table of the process; this
 * pass must cost a tenth of that at most, so it never walks them again:
 *   - it reads 64 bytes (up to 512 for the structures that need them) at
 *     the start of chosen pages, a few per block or arena, never one per
 *     page of memory;
 *   - it asks whether a page is resident only for the pages it reads
 *     (a round's block boundaries together, in one question; in a search
 *     the next RW_EVIDENCE_WINDOW_PAGES pages in use),
 *     and not at all in a region smaps shows wholly resident: under a
 *     hypervisor that shadows page tables every page asked about costs;
 *   - all walkers advance together, one batch of reads per round, so a
 *     census of ten thousand regions costs ten batches of reads, not ten
 *     thousand system calls; along blocks of one size, a walker reads
 *     READ_AHEAD boundaries a round.
 *
 * A walker covers a run of neighbouring anonymous regions that shapes
 * leave uncertain.  At a block boundary (the run's start, the end of the
 * last block found) it expects a header: a glibc chunk, whose size leads
 * to the next boundary; a pymalloc pool, whose 1 MiB arena (256 KiB before
 * Python 3.10) is the next stretch; a jemalloc base block or a mimalloc
 * segment, which say their own size.  Between boundaries it searches for
 * the next header: for glibc, whose blocks start on any page, page after
 * resident page (RW_EVIDENCE_SEARCH_PAGES), then the first page of each
 * run of resident pages (RW_EVIDENCE_SEARCH_RUNS), then it stops; for
 * jemalloc and mimalloc at their alignment (2 MiB for base blocks, 32 MiB
 * for segments).  jemalloc's extents carry no header: once one base block
 * shows jemalloc serves the process, the search stops and the rest is its
 * by elimination.  [heap] is read once at its start, where glibc's main
 * arena begins with its tcache chunk and tcmalloc keeps its span records.
 *
 * What is found is a list of segments per walk; evidence-split.c makes
 * them into rules, sentences and, for a region of several owners, parts. */
#include "evidence.h"
#include "evidence-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "limits.h"
#include "macro.h"
#include "runtimes.h"
#include "strpool.h"
#include "units.h"
#include "util.h"

#define PAGE (4 * KiB)
#define POOL_MAX (16 * KiB)
#define JEMALLOC_BASE_ALIGN (2 * MiB)
#define MIMALLOC_SEGMENT (32 * MiB)
#define PROBE_SLOT 512u /* the most one probe reads (mimalloc's segment, tcmalloc's spans) */
#define PROBE_LEN 64u   /* what a header check reads */
#define SEARCH_BATCH 32u
/* Blocks of one size follow each other (a program's buffers, an array's
 * rows): at a boundary after a glibc block of length L, the headers at
 * L, 2L, ... are read in the same round, and taken while each is one. */
#define READ_AHEAD 8u
struct pass {
	struct memsource *src;
	const struct region *regions;
	enum runtimes_allocator allocator;
	bool python;
	struct walker *w;
	size_t n_w;
	struct mem_probe *probes;
	uint8_t *bufs;
	size_t n_probes, allocated;
	uint32_t slot; /* bytes of bufs per probe: the most this process's probes read */
	bool jemalloc_seen; /* a base block was read: jemalloc serves this process */
	uint64_t round;     /* the round of reads being prepared, from 1 */
	/* this round's block boundaries in regions only partly resident,
	 * asked about together once the round's probes are known */
	struct page_runs asked;
	uint64_t *pages;
	size_t n_pages, pages_allocated;
	/* the shape rules whose regions are read, looked up once a pass */
	int rule_glibc_arena, rule_stack_shape, rule_image_bss, rule_jemalloc_shape;
};

/* ------------------------------------------------------------ segments */

static int segs_add(struct segments *s, uint64_t start, uint64_t end, enum owner owner, uint64_t count,
		    uint64_t unit)
{
	if (start >= end)
		return 0;
	if (s->n == s->allocated) {
		size_t want = s->allocated ? s->allocated * 2 : 8;
		struct segment *v = realloc(s->v, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->allocated = want;
	}
	s->v[s->n++] = (struct segment){ start, end, owner, count, unit };
	return 0;
}

/* Records [start, end) as owner's, with the stretch before it as unknown,
 * and goes on at end. */
static int found(struct walker *w, uint64_t start, uint64_t end, enum owner owner, uint64_t count, uint64_t unit)
{
	int r = segs_add(&w->segs, w->gap, start, OWNER_NONE, 0, 0);
	if (r >= 0)
		r = segs_add(&w->segs, start, end, owner, count, unit);
	w->gap = w->pos = end;
	w->searched = 0;
	w->mode = end >= w->end ? M_DONE : M_WALK;
	return r;
}

static int finish(struct walker *w)
{
	w->mode = M_DONE;
	return segs_add(&w->segs, w->gap, w->end, OWNER_NONE, 0, 0);
}

/* ------------------------------------------------------------ what is read */

/* Whether shapes left region r uncertain enough to read. */
static bool wants_evidence(const struct pass *p, const struct region *r)
{
	if (r->path && streq(r->path, "[heap]"))
		return region_readable(r) && region_field(r, COUNT_ANONYMOUS) > 0;
	if (r->path || region_shared(r) || !region_readable(r) || !region_writable(r) || region_private(r) == 0)
		return false;
	switch (r->cls) {
	case CLASS_OTHER:
	case CLASS_PYTHON:
	case CLASS_OPENBLAS:
		return true;
	case CLASS_MALLOC:
		return r->rule == p->rule_glibc_arena || r->rule == p->rule_jemalloc_shape;
	case CLASS_STACKS:
		/* a guard below and no thread's stack pointer in it: a block
		 * mapped just above another mapping's guard looks the same */
		return r->rule == p->rule_stack_shape;
	case CLASS_IMAGES:
		/* pymalloc's first arenas, mapped right after a library's
		 * .bss, are merged into it by the kernel: the shape says
		 * image, the pools' headers say python (CPython 3.11 on Debian
		 * 12: two arenas a process) */
		return p->python && r->rule == p->rule_image_bss && region_size(r) >= RW_EVIDENCE_BSS_ARENA_MIN;
	default:
		return false;
	}
}

/* Whether region b continues the walk over region a: a glibc arena heap
 * and [heap] are walked alone, from their own start. */
static bool continues(const struct pass *p, const struct region *a, const struct region *b)
{
	return a->end == b->start && !a->path && !b->path && a->rule != p->rule_glibc_arena &&
	       b->rule != p->rule_glibc_arena;
}

/* Who serves malloc, and whether Python's does too, by the files mapped
 * (runtimes.h). */
static void find_allocator(struct pass *p, const struct region *r, size_t n)
{
	struct runtimes rt;

	runtimes_init(&rt);
	for (size_t i = 0; i < n; i++) {
		const char *path = r[i].path;
		if (path && path[0] == '/' && !(i > 0 && r[i - 1].path == path))
			runtimes_note_file(&rt, path);
	}
	p->allocator = rt.allocator;
	p->python = rt.python;
}

/* ------------------------------------------------------------ residency */

/* The region of walker w holding addr. */
static const struct region *region_at(const struct pass *p, const struct walker *w, uint64_t addr)
{
	size_t i = w->first + regions_first_after(p->regions + w->first, w->last + 1 - w->first, addr);
	return &p->regions[i <= w->last ? i : w->last];
}

/* Fills window x from addr's page on: a region smaps shows all resident
 * and anonymous needs no question; others ask the page tables for the
 * next RW_EVIDENCE_WINDOW_PAGES pages in use from addr on (one question,
 * which skips what holds nothing at little cost). */
static int fill_window(struct pass *p, struct walker *w, struct window *x, uint64_t addr)
{
	const struct region *r = region_at(p, w, addr);
	uint64_t start = addr & ~(PAGE - 1);

	page_runs_clear(&x->runs);
	x->start = start;
	x->end = r->end;
	if (region_field(r, COUNT_ANONYMOUS) >= region_size(r))
		return page_runs_add(&x->runs, start, r->end, PAGE_RESIDENT);
	if (region_field(r, COUNT_ANONYMOUS) == 0)
		return 0; /* nothing resident to read: no question asked */
	return memsource_window(p->src, start, r->end, RW_EVIDENCE_WINDOW_PAGES, &x->runs, &x->end);
}

/* The window holding addr: one already filled, or a window no read of
 * this round depends on, filled now; NULL when every window serves this
 * round already.  Every page the page tables are asked about costs, so a
 * search asks about RW_EVIDENCE_WINDOW_PAGES pages in use at a time. */
static int window_for(struct pass *p, struct walker *w, uint64_t addr, struct window **ret)
{
	struct window *spare = NULL;

	for (size_t i = 0; i < EVIDENCE_WINDOWS; i++) {
		struct window *x = &w->win[i];
		if (x->end > x->start && x->start <= addr && addr < x->end) {
			x->round = p->round;
			*ret = x;
			return 0;
		}
		if (x->round != p->round && (!spare || x->round < spare->round))
			spare = x;
	}
	*ret = NULL;
	if (!spare)
		return 0;
	int r = fill_window(p, w, spare, addr);
	if (r < 0) {
		spare->start = spare->end = 0;
		return r;
	}
	spare->round = p->round;
	*ret = spare;
	return 0;
}

/* ------------------------------------------------------------ probes */

static int probe_add(struct pass *p, const struct page_runs *runs, uint64_t addr, uint32_t len)
{
	if (p->n_probes == p->allocated) {
		size_t want = p->allocated ? p->allocated * 2 : 64;
		struct mem_probe *v = realloc(p->probes, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->probes = v;
		uint8_t *b = realloc(p->bufs, want * p->slot);
		if (!b)
			return -ENOMEM;
		p->bufs = b;
		p->allocated = want;
	}
	p->probes[p->n_probes++] = (struct mem_probe){ .addr = addr, .len = len < p->slot ? len : p->slot,
						       .runs = runs };
	return 0;
}

/* Probes the block boundary addr: at once in a region smaps shows wholly
 * resident; in one only partly resident, once the round's question about
 * all such boundaries (ask_boundaries) says its page is in memory (a read
 * of a page that is not would fault it in).  Returns 1 when probed, 0
 * when there is nothing to read, or -errno. */
static int probe_at(struct pass *p, struct walker *w, uint64_t addr, uint32_t len)
{
	if (addr >= w->end)
		return 0;
	const struct region *r = region_at(p, w, addr);
	uint64_t anon = region_field(r, COUNT_ANONYMOUS);
	if (anon == 0)
		return 0;
	if (anon < region_size(r)) {
		if (p->n_pages == p->pages_allocated) {
			size_t want = p->pages_allocated ? p->pages_allocated * 2 : 64;
			uint64_t *v = realloc(p->pages, want * sizeof(*v));
			if (!v)
				return -ENOMEM;
			p->pages = v;
			p->pages_allocated = want;
		}
		p->pages[p->n_pages++] = addr & ~(PAGE - 1);
		int e = probe_add(p, &p->asked, addr, len);
		return e < 0 ? e : 1;
	}
	/* wholly resident: the page needs no question */
	struct window *x;
	int e = window_for(p, w, addr, &x);
	if (e < 0)
		return e;
	if (!x)
		return 0;
	e = probe_add(p, &x->runs, addr, len);
	return e < 0 ? e : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The round's one question about the boundaries probe_at set aside. */
static int ask_boundaries(struct pass *p)
{
	page_runs_clear(&p->asked);
	if (p->n_pages == 0)
		return 0;
	qsort(p->pages, p->n_pages, sizeof(*p->pages), cmp_u64);
	size_t k = 1;
	for (size_t i = 1; i < p->n_pages; i++)
		if (p->pages[i] != p->pages[k - 1])
			p->pages[k++] = p->pages[i];
	p->n_pages = 0;
	return memsource_pages(p->src, p->pages, k, &p->asked);
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* What a header probe reads at addr: 512 bytes where a mimalloc segment
 * may start, 64 elsewhere. */
static uint32_t header_len(const struct pass *p, uint64_t addr)
{
	return p->allocator == RUNTIMES_MALLOC_MIMALLOC && addr % MIMALLOC_SEGMENT == 0 ? PROBE_SLOT : PROBE_LEN;
}

/* The step between the addresses a search reads: glibc's blocks start on
 * any page, jemalloc's base blocks and mimalloc's segments at their
 * alignment; tcmalloc's spans carry nothing to find. */
static uint64_t search_step(const struct pass *p)
{
	switch (p->allocator) {
	case RUNTIMES_MALLOC_JEMALLOC: return JEMALLOC_BASE_ALIGN;
	case RUNTIMES_MALLOC_MIMALLOC: return MIMALLOC_SEGMENT;
	case RUNTIMES_MALLOC_TCMALLOC: return 0;
	default: return PAGE;
	}
}

/* This round's probes of walker w. */
static int emit(struct pass *p, struct walker *w)
{
	int r = 0;

	w->first_probe = p->n_probes;
	switch (w->mode) {
	case M_START:
		if (w->brk) {
			r = probe_at(p, w, w->start, PROBE_SLOT);
			break;
		}
		__attribute__((fallthrough));
	case M_WALK: {
		r = probe_at(p, w, w->pos, header_len(p, w->pos));
		/* 16 KiB pools start at the first 16 KiB boundary of an arena */
		uint64_t pool = round_up(w->pos, POOL_MAX);
		if (r >= 0 && p->python && pool != w->pos)
			r = probe_at(p, w, pool, PROBE_LEN);
		/* read ahead once two blocks (or arenas) in a row had one length */
		for (uint64_t j = 1; r >= 0 && w->last_len && w->same && j < READ_AHEAD; j++) {
			uint64_t next = w->pos + j * w->last_len;
			r = probe_at(p, w, next, PROBE_LEN);
			if (r >= 0 && w->last_arena && round_up(next, POOL_MAX) != next)
				r = probe_at(p, w, round_up(next, POOL_MAX), PROBE_LEN);
		}
		break;
	}
	case M_SEARCH: {
		uint64_t step = search_step(p);
		if (step != PAGE) {
			/* one aligned address a round: each has a window of its own */
			r = probe_at(p, w, round_up(w->pos, step), header_len(p, round_up(w->pos, step)));
			break;
		}
		struct window *x;
		if ((r = window_for(p, w, w->pos, &x)) < 0 || !x)
			break;
		w->search = x;
		/* page by page at first, then the first page of each run of
		 * resident pages (the page before it, outside the window, is
		 * taken as the start of a run: at most one read too many) */
		bool runs_only = w->searched >= RW_EVIDENCE_SEARCH_PAGES;
		/* a round reads no further than the bounds: what is left of them */
		uint64_t left = (runs_only ? RW_EVIDENCE_SEARCH_PAGES + RW_EVIDENCE_SEARCH_RUNS : RW_EVIDENCE_SEARCH_PAGES) -
				w->searched;
		uint64_t a = page_runs_next(&x->runs, w->pos, x->end, PAGE_RESIDENT);
		for (unsigned k = 0; r >= 0 && k < SEARCH_BATCH && k < left && a < x->end && a < w->end; k++) {
			r = probe_add(p, &x->runs, a, header_len(p, a));
			uint64_t next = runs_only ? page_runs_run_end(&x->runs, a) : a + PAGE;
			a = page_runs_next(&x->runs, next, x->end, PAGE_RESIDENT);
		}
		w->pos_next = runs_only && a >= x->end ? x->end : 0;
		break;
	}
	case M_DONE:
		break;
	}
	w->n_probes = p->n_probes - w->first_probe;
	return r < 0 ? r : 0;
}

static const uint8_t *probe_bytes(const struct pass *p, const struct mem_probe *pr)
{
	return p->bufs + (size_t)(pr - p->probes) * p->slot;
}

/* What one probe shows at a block boundary (boundary is its address) or
 * a searched page (boundary UINT64_MAX): 1 when recognised and recorded,
 * 0 when not, or -errno. */
static int recognise(struct pass *p, struct walker *w, const struct mem_probe *pr, uint64_t boundary)
{
	const uint8_t *b = probe_bytes(p, pr);
	uint64_t len, used;
	uint32_t index;
	int r;

	if (!pr->got)
		return 0;
	switch (p->allocator) {
	case RUNTIMES_MALLOC_JEMALLOC:
		if ((len = evidence_jemalloc_base(b, pr->got, pr->addr, w->end))) {
			p->jemalloc_seen = true;
			r = found(w, pr->addr, pr->addr + len, OWNER_JEMALLOC_BASE, 1, len);
			return r < 0 ? r : 1;
		}
		break;
	case RUNTIMES_MALLOC_MIMALLOC:
		if ((len = evidence_mimalloc_segment(b, pr->got, pr->addr, w->end, &used))) {
			r = found(w, pr->addr, pr->addr + len, OWNER_MIMALLOC, used, len);
			return r < 0 ? r : 1;
		}
		break;
	case RUNTIMES_MALLOC_GLIBC:
		/* a program with jemalloc built in (redis from its sources, with
		 * je_ symbols) maps no libjemalloc: a base block at a boundary
		 * says so, and jemalloc's rules apply from then on */
		if (pr->addr % JEMALLOC_BASE_ALIGN == 0 && (len = evidence_jemalloc_base(b, pr->got, pr->addr, w->end))) {
			p->allocator = RUNTIMES_MALLOC_JEMALLOC;
			p->jemalloc_seen = true;
			r = found(w, pr->addr, pr->addr + len, OWNER_JEMALLOC_BASE, 1, len);
			return r < 0 ? r : 1;
		}
		break;
	case RUNTIMES_MALLOC_TCMALLOC:
		break;
	}
	if ((len = evidence_glibc_chunk(b, pr->got, pr->addr, w->end))) {
		r = found(w, pr->addr, pr->addr + len, OWNER_GLIBC_CHUNKS, 1, len);
		w->same = w->last_len == len && !w->last_arena;
		w->last_len = len;
		w->last_arena = false;
		return r < 0 ? r : 1;
	}
	if (p->python && (len = evidence_pymalloc_pool(b, pr->got, pr->addr, &index))) {
		/* the arena starts at most a pool below its first pool, in pages
		 * never touched: where exactly does not change a count */
		uint64_t base = boundary;
		if (base == UINT64_MAX)
			base = pr->addr - w->gap >= len ? pr->addr - (len - PAGE) : w->gap;
		uint64_t arena = len == POOL_MAX ? 1 * MiB : 256 * KiB, end = base + arena;
		if (end > w->end)
			end = w->end;
		r = found(w, base, end, OWNER_PYMALLOC, 1, len);
		w->same = w->last_len == arena && w->last_arena;
		w->last_len = arena;
		w->last_arena = true;
		return r < 0 ? r : 1;
	}
	w->last_len = 0;
	return 0;
}

static int take(struct pass *p, struct walker *w)
{
	const struct mem_probe *pr = p->probes + w->first_probe;
	size_t n = w->n_probes;
	uint64_t len;
	int r;

	switch (w->mode) {
	case M_START:
		if (w->brk) {
			/* [heap]: glibc's main arena starts with its tcache chunk,
			 * tcmalloc's page heap with its span records */
			if (n && pr[0].got && p->allocator != RUNTIMES_MALLOC_TCMALLOC && evidence_glibc_tcache(probe_bytes(p, pr), pr[0].got))
				return found(w, w->start, w->end, OWNER_GLIBC_BRK, 1, 0);
			if (n && pr[0].got && p->allocator == RUNTIMES_MALLOC_TCMALLOC &&
			    (len = evidence_tcmalloc_spans(probe_bytes(p, pr), pr[0].got, w->start, w->end)))
				return found(w, w->start, w->end, OWNER_TCMALLOC, len, 0);
			return finish(w);
		}
		if (n && pr[0].addr == w->start && pr[0].got &&
		    (len = evidence_glibc_heap_info(probe_bytes(p, pr), pr[0].got, w->start, w->end - w->start)))
			return found(w, w->start, w->end, OWNER_GLIBC_HEAP, len, 0);
		__attribute__((fallthrough));
	case M_WALK: {
		/* the boundary, or the pool boundary above it; once something is
		 * found there, the read-ahead probes of the next boundary, while
		 * something is found at each */
		bool any = false;
		for (size_t i = 0; i < n && (w->mode == M_WALK || w->mode == M_START);) {
			uint64_t at = w->pos, pool = round_up(at, POOL_MAX);
			bool hit = false;
			for (; i < n && !hit && (w->mode == M_WALK || w->mode == M_START); i++) {
				if (pr[i].addr != at && !(p->python && pr[i].addr == pool))
					continue;
				r = recognise(p, w, &pr[i], at);
				if (r < 0)
					return r;
				hit = r > 0;
			}
			if (!hit)
				break;
			any = true;
		}
		if (any)
			return 0;
		w->last_len = 0;
		w->mode = M_SEARCH;
		w->pos += PAGE; /* the boundary was read, or cannot be */
		if (w->pos >= w->end || search_step(p) == 0)
			return finish(w);
		return 0;
	}
	case M_SEARCH: {
		uint64_t step = search_step(p);
		for (size_t i = 0; i < n; i++) {
			r = recognise(p, w, &pr[i], UINT64_MAX);
			if (r != 0)
				return r < 0 ? r : 0;
		}
		w->searched += n ? n : 1;
		if (n && step == PAGE && w->pos_next)
			w->pos = w->pos_next; /* runs only: the window's runs were all read */
		else if (n && step == PAGE && w->searched > RW_EVIDENCE_SEARCH_PAGES && w->search)
			w->pos = page_runs_run_end(&w->search->runs, pr[n - 1].addr);
		else if (n)
			w->pos = pr[n - 1].addr + (step == PAGE ? PAGE : step);
		else if (step != PAGE)
			w->pos = round_up(w->pos, step) + step; /* that aligned address was not resident */
		else if (w->search && w->pos < w->search->end)
			w->pos = w->search->end; /* nothing resident left in the window */
		else
			w->pos += PAGE;
		if (w->pos >= w->end || (p->allocator == RUNTIMES_MALLOC_JEMALLOC && p->jemalloc_seen))
			return finish(w);
		if (step == PAGE && w->searched >= RW_EVIDENCE_SEARCH_PAGES + RW_EVIDENCE_SEARCH_RUNS) {
			w->gave_up = true;
			return finish(w);
		}
		return 0;
	}
	case M_DONE:
		return 0;
	}
	return 0;
}

static int walk_all(struct pass *p)
{
	for (;;) {
		size_t active = 0;
		int r;

		p->n_probes = 0;
		p->round++;
		for (size_t i = 0; i < p->n_w; i++) {
			if (p->w[i].mode == M_DONE)
				continue;
			if ((r = emit(p, &p->w[i])) < 0)
				return r;
			active++;
		}
		if (active == 0)
			return 0;
		if ((r = ask_boundaries(p)) < 0)
			return r;
		/* a round is read whole or not at all, so no walker acts on
		 * reads the limit refused */
		size_t reads = 0;
		for (size_t i = 0; i < p->n_probes; i++)
			reads += page_runs_state(p->probes[i].runs, p->probes[i].addr) == PAGE_RESIDENT;
		if (p->src->probes + reads > p->src->max_probes) {
			p->src->exhausted = true;
			for (size_t i = 0; i < p->n_w; i++)
				if (p->w[i].mode != M_DONE) {
					p->w[i].cut = true;
					if ((r = finish(&p->w[i])) < 0)
						return r;
				}
			return 0;
		}
		for (size_t i = 0; i < p->n_probes; i++)
			p->probes[i].buf = p->bufs + i * p->slot;
		if (p->n_probes && (r = memsource_read(p->src, p->probes, p->n_probes)) < 0)
			return r;
		for (size_t i = 0; i < p->n_w; i++)
			if (p->w[i].mode != M_DONE && (r = take(p, &p->w[i])) < 0)
				return r;
	}
}

static void pass_done(struct pass *p)
{
	page_runs_done(&p->asked);
	free(p->pages);
	for (size_t i = 0; i < p->n_w; i++) {
		free(p->w[i].segs.v);
		for (size_t k = 0; k < EVIDENCE_WINDOWS; k++)
			page_runs_done(&p->w[i].win[k].runs);
	}
	free(p->w);
	free(p->probes);
	free(p->bufs);
}

/* One walker per run of neighbouring regions to read. */
static int make_walkers(struct pass *p, const struct region *r, size_t n)
{
	size_t count = 0;
	for (int round = 0; round < 2; round++) {
		count = 0;
		for (size_t i = 0; i < n; i++) {
			if (!wants_evidence(p, &r[i]))
				continue;
			size_t j = i;
			while (j + 1 < n && wants_evidence(p, &r[j + 1]) && continues(p, &r[j], &r[j + 1]))
				j++;
			/* smaller than any block an allocator we know maps: its shape stands */
			if (!r[i].path && r[j].end - r[i].start < RW_EVIDENCE_MIN_SPAN) {
				i = j;
				continue;
			}
			if (round == 1)
				p->w[count] = (struct walker){ .first = i, .last = j, .start = r[i].start, .end = r[j].end,
							      .pos = r[i].start, .gap = r[i].start, .mode = M_START,
							      .brk = r[i].path != NULL };
			count++;
			i = j;
		}
		if (round == 0) {
			if (count == 0)
				break;
			p->w = calloc(count, sizeof(*p->w));
			if (!p->w)
				return -ENOMEM;
		}
	}
	p->n_w = count;
	return 0;
}

int evidence_apply(struct memsource *src, struct region **regions, size_t *n, size_t max_regions,
		   struct strpool *pool, struct evidence_result *res)
{
	struct pass p = { .src = src, .regions = *regions };
	int r;

	*res = (struct evidence_result){ .taken = true };
	p.rule_glibc_arena = classify_rule_from_key("glibc_arena");
	p.rule_stack_shape = classify_rule_from_key("stack_shape");
	p.rule_image_bss = classify_rule_from_key("image_bss");
	p.rule_jemalloc_shape = classify_rule_from_key("jemalloc_shape");
	find_allocator(&p, *regions, *n);
	p.slot = p.allocator == RUNTIMES_MALLOC_MIMALLOC || p.allocator == RUNTIMES_MALLOC_TCMALLOC ? PROBE_SLOT : PROBE_LEN;
	if ((r = make_walkers(&p, *regions, *n)) < 0)
		return r;
	r = walk_all(&p);
	if (r == -EPERM || r == -EACCES) {
		res->taken = false;
		snprintf(res->why_not, sizeof(res->why_not),
			 "the process's memory may not be read (process_vm_readv needs ptrace access: CAP_SYS_PTRACE, "
			 "or the same user where kernel.yama.ptrace_scope allows)");
	}
	if (r < 0) {
		pass_done(&p);
		return r;
	}
	res->regions = p.n_w;
	res->exhausted = src->exhausted;
	if (src->exhausted)
		snprintf(res->why_not, sizeof(res->why_not),
			 "the read limit (%llu reads) was reached: the regions left keep their shape",
			 (unsigned long long)src->max_probes);
	/* jemalloc's extents carry no header: once a base block shows it
	 * serves the process, what no header was found in is its memory, by
	 * elimination (evidence-split.c) */
	r = evidence_conclude(src, regions, n, max_regions, p.w, p.n_w, p.allocator == RUNTIMES_MALLOC_JEMALLOC && p.jemalloc_seen,
			      pool, res);
	res->reads = src->probes;
	res->bytes = src->bytes;
	res->calls = src->calls;
	res->pages = src->pages_mapped;
	res->questions = src->questions;
	pass_done(&p);
	return r;
}
