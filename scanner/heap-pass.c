/* The heap pass (heap-pass.h): runs the registered walkers one after the
 * other, shares one budget of bytes and one deadline among them, and
 * turns their walks into each class's figures.
 *
 * The walkers read through the source evidence read through (the same
 * residency rules: only pages already resident are read), but the pass
 * bounds them by bytes, not by the evidence pass's count of reads: a heap
 * is read a window of resident pages at a time, and what costs is the
 * bytes. */
#include "heap-pass.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "census.h"
#include "heap-walkers.h"
#include "util.h"

struct walker {
	const char *name;
	int (*walk)(const struct heap_walk_input *in, struct heap_walk *w);
};

#define HEAP_WALKER_ROW_(name) { #name, heap_walk_##name },
static const struct walker walkers[] = {
	HEAP_WALKERS(HEAP_WALKER_ROW_)
	{ NULL, NULL },
};
#undef HEAP_WALKER_ROW_

#define N_WALKERS (sizeof(walkers) / sizeof(walkers[0]) - 1)

static bool past(uint64_t deadline_us)
{
	return deadline_us && now_monotonic_us() >= deadline_us;
}

/* Runs one walker within what is left of the budget.  Returns 0 (a walk
 * that failed is w->failed), -ESRCH or -ENOMEM. */
static int run_walker(const struct walker *wk, const struct heap_walk_input *in, uint64_t left,
		      struct heap_walk *w)
{
	struct heap_limits limits = *in->limits;
	struct heap_walk_input mine = *in;
	int r;

	limits.max_bytes = left;
	mine.limits = &limits;
	memset(w, 0, sizeof(*w));
	r = wk->walk(&mine, w);
	if (r == -ESRCH || r == -ENOMEM)
		return r;
	if (r < 0) {
		/* the source failed under the walker: what it covers is unknown */
		w->failed = true;
		snprintf(w->why_not, sizeof(w->why_not), "%s: reading the process's memory failed: %s", wk->name,
			 strerror(-r));
	}
	return 0;
}

int heap_pass_run(struct census *c, const struct heap_walk_input *in, struct heap_pass_result *res)
{
	struct heap_walk walks[N_WALKERS + 1];
	struct heap_figures figures[_CLASS_MAX];
	uint64_t class_private[_CLASS_MAX], t0 = now_monotonic_us(), read = 0;
	struct heap_pass_result out = { 0 };
	size_t n = 0;
	int r = 0;

	/* evidence's count of reads does not bound the walkers: bytes do */
	in->src->max_probes = UINT64_MAX;
	in->src->exhausted = false;
	for (size_t i = 0; walkers[i].walk; i++) {
		uint64_t max = in->limits->max_bytes;
		if (past(in->limits->deadline_us) || read >= max) {
			out.cut = true;
			break;
		}
		r = run_walker(&walkers[i], in, max - read, &walks[n]);
		if (r < 0) {
			heap_walk_done(&walks[n]);
			break;
		}
		read += walks[n].bytes_read;
		if (walks[n].n_covers == 0) {
			heap_walk_done(&walks[n]);
			continue;
		}
		out.walks++;
		n++;
	}
	if (r >= 0) {
		for (int k = 0; k < _CLASS_MAX; k++)
			class_private[k] = c->classes[k].private;
		heap_figures_compute(walks, n, in->regions, in->n_regions, class_private, figures);
		for (int k = 0; k < _CLASS_MAX && r >= 0; k++) {
			const struct heap_figures *f = &figures[k];
			if (f->known)
				r = census_set_heap(c, k, f->in_use, f->free, f->overhead, f->unknown, f->returnable,
						    f->how);
		}
	}
	for (size_t i = 0; i < n; i++)
		heap_walk_done(&walks[i]);
	out.cut |= read >= in->limits->max_bytes || past(in->limits->deadline_us);
	out.bytes_read = read;
	out.wall_us = now_monotonic_us() - t0;
	if (res)
		*res = out;
	return r;
}
