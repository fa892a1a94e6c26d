/* Heap walks' spans become figures per class (heap-walk.h).  Pure but for
 * the residency a cover reads: the walkers read the allocators'
 * structures; this file only counts, at the page level, so that the
 * figures of a class add up to its private bytes exactly. */
#include "heap-walk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PAGE 4096ull

static int add(struct heap_walk *w, const struct heap_span *x)
{
	if (x->end <= x->start || x->in_use + x->free < x->in_use || x->in_use + x->free > x->end - x->start)
		return -EINVAL;
	if (x->ret_end && (x->ret_start < x->start || x->ret_end > x->end || x->ret_end < x->ret_start))
		return -EINVAL;
	if (w->n_spans && x->start < w->spans[w->n_spans - 1].end)
		return -EINVAL;
	if (array_grow((void **)&w->spans, w->n_spans, &w->allocated, sizeof(*w->spans), 64) < 0)
		return -ENOMEM;
	w->spans[w->n_spans++] = *x;
	return 0;
}

int heap_walk_add(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free_bytes)
{
	return add(w, &(struct heap_span){ .start = start, .end = end, .in_use = in_use, .free = free_bytes });
}

int heap_walk_add_free(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t ret_start, uint64_t ret_end)
{
	return add(w, &(struct heap_span){
			      .start = start,
			      .end = end,
			      .free = end > start ? end - start : 0,
			      .ret_start = ret_start,
			      .ret_end = ret_end,
		      });
}

int heap_walk_add_unknown(struct heap_walk *w, uint64_t start, uint64_t end)
{
	return add(w, &(struct heap_span){ .start = start, .end = end, .unknown = true });
}

int heap_walk_cover(struct heap_walk *w, struct memsource *src, uint64_t start, uint64_t end)
{
	if (end <= start || (w->n_covers && start < w->covers[w->n_covers - 1].end))
		return -EINVAL;
	if (array_grow((void **)&w->covers, w->n_covers, &w->covers_allocated, sizeof(*w->covers), 64) < 0)
		return -ENOMEM;
	/* residency at page granularity: a cover that starts or ends inside
	 * a page shares it with the range before or after */
	uint64_t from = start & ~(PAGE - 1), to = (end + PAGE - 1) & ~(PAGE - 1);
	if (w->runs.n && w->runs.v[w->runs.n - 1].end > from)
		from = w->runs.v[w->runs.n - 1].end;
	if (to > from) {
		int r = memsource_residency(src, from, to, &w->runs);
		if (r < 0)
			return r;
	}
	w->covers[w->n_covers++] = (struct heap_range){ start, end };
	return 0;
}

uint64_t heap_walk_private(const struct heap_walk *w, uint64_t start, uint64_t end)
{
	return page_runs_bytes(&w->runs, start, end, PAGE_RESIDENT) + page_runs_bytes(&w->runs, start, end, PAGE_SWAPPED);
}

void heap_walk_done(struct heap_walk *w)
{
	if (!w)
		return;
	free(w->spans);
	free(w->covers);
	page_runs_done(&w->runs);
	memset(w, 0, sizeof(*w));
}

/* What one walk counts of its class, before the class's figures are
 * fitted to the class's private bytes. */
struct tally {
	uint64_t in_use, free, overhead, unknown, returnable;
};

/* The private bytes of [start, end) that lie in regions of class cls. */
static uint64_t private_in_class(const struct heap_walk *w, const struct region *regions, size_t n, uint64_t start,
				 uint64_t end)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n && regions[i].start < end; i++) {
		const struct region *r = &regions[i];
		if (r->end <= start || r->cls != w->cls)
			continue;
		uint64_t a = r->start > start ? r->start : start, b = r->end < end ? r->end : end;
		sum += heap_walk_private(w, a, b);
	}
	return sum;
}

/* x * num / den without overflow, for num <= den. */
static uint64_t scaled(uint64_t x, uint64_t num, uint64_t den)
{
	if (den == 0 || num >= den)
		return x;
	return (uint64_t)((unsigned __int128)x * num / den);
}

/* Whole pages of [start, end) that are private memory. */
static uint64_t whole_pages(const struct heap_walk *w, uint64_t start, uint64_t end)
{
	uint64_t a = (start + PAGE - 1) & ~(PAGE - 1), b = end & ~(PAGE - 1);
	return b > a ? heap_walk_private(w, a, b) : 0;
}

static void tally_walk(const struct heap_walk *w, const struct region *regions, size_t n, struct tally *t)
{
	struct tally x = { 0 };
	uint64_t covered = 0;

	for (size_t i = 0; i < w->n_covers; i++)
		covered += private_in_class(w, regions, n, w->covers[i].start, w->covers[i].end);
	if (w->failed) {
		t->unknown += covered;
		return;
	}
	for (size_t i = 0; i < w->n_spans; i++) {
		const struct heap_span *s = &w->spans[i];
		uint64_t len = s->end - s->start, priv = private_in_class(w, regions, n, s->start, s->end);
		if (s->unknown) {
			x.unknown += priv;
			continue;
		}
		uint64_t in_use = scaled(s->in_use, priv, len), free_bytes = scaled(s->free, priv, len);
		uint64_t ret = s->ret_end ? whole_pages(w, s->ret_start, s->ret_end) : 0;
		x.in_use += in_use;
		x.free += free_bytes;
		x.returnable += ret < free_bytes ? ret : free_bytes;
	}
	/* spans outside the covers cannot make more than the covers hold */
	if (x.in_use + x.free + x.unknown > covered) {
		uint64_t described = x.in_use + x.free + x.unknown;
		x.in_use = scaled(x.in_use, covered, described);
		x.unknown = scaled(x.unknown, covered, described);
		x.free = covered - x.in_use - x.unknown;
	}
	if (x.returnable > x.free)
		x.returnable = x.free;
	t->in_use += x.in_use;
	t->free += x.free;
	t->unknown += x.unknown;
	t->returnable += x.returnable;
	t->overhead += covered - x.in_use - x.free - x.unknown;
}

static void join_how(char *dst, size_t size, const char *how)
{
	size_t len = strlen(dst);
	if (!how || !how[0] || len + 1 >= size)
		return;
	snprintf(dst + len, size - len, "%s%s", len ? "; " : "", how);
}

void heap_figures_compute(const struct heap_walk *walks, size_t n_walks, const struct region *regions,
			  size_t n_regions, const uint64_t class_private[_CLASS_MAX], struct heap_figures ret[_CLASS_MAX])
{
	struct tally t[_CLASS_MAX];

	memset(t, 0, sizeof(t));
	memset(ret, 0, _CLASS_MAX * sizeof(*ret));
	for (size_t i = 0; i < n_walks; i++) {
		const struct heap_walk *w = &walks[i];
		if ((unsigned)w->cls >= _CLASS_MAX || w->n_covers == 0)
			continue;
		tally_walk(w, regions, n_regions, &t[w->cls]);
		ret[w->cls].known = true;
		join_how(ret[w->cls].how, sizeof(ret[w->cls].how), w->failed ? w->why_not : w->how);
	}
	for (int k = 0; k < _CLASS_MAX; k++) {
		struct heap_figures *f = &ret[k];
		uint64_t total = t[k].in_use + t[k].free + t[k].overhead + t[k].unknown, priv = class_private[k];
		if (!f->known)
			continue;
		if (total > priv) {
			/* the pages moved between the census's read and the
			 * walk's: each figure its share of what the census saw */
			f->in_use = scaled(t[k].in_use, priv, total);
			f->free = scaled(t[k].free, priv, total);
			f->unknown = scaled(t[k].unknown, priv, total);
			f->overhead = priv - f->in_use - f->free - f->unknown;
		} else {
			f->in_use = t[k].in_use;
			f->free = t[k].free;
			f->overhead = t[k].overhead;
			/* what no walk covered */
			f->unknown = t[k].unknown + (priv - total);
		}
		f->returnable = t[k].returnable < f->free ? t[k].returnable : f->free;
	}
}
