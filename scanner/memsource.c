/* Runs of page states and the bounded front of a memory source: every read
 * of evidence goes through memsource_read, which counts it and stops at the
 * census's limit, whatever the source behind it. */
#include "memsource.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define PAGE 4096ull

static const char *const page_state_names[_PAGE_STATE_MAX] = {
	[PAGE_ABSENT] = "absent",
	[PAGE_RESIDENT] = "resident",
	[PAGE_ZERO] = "zero",
	[PAGE_FILE] = "file",
	[PAGE_SWAPPED] = "swapped",
};

const char *page_state_name(enum page_state s)
{
	return (unsigned)s < _PAGE_STATE_MAX ? page_state_names[s] : "?";
}

int page_state_from_name(const char *name)
{
	for (int s = 0; s < _PAGE_STATE_MAX; s++)
		if (streq(page_state_names[s], name))
			return s;
	return -1;
}

int page_runs_add(struct page_runs *runs, uint64_t start, uint64_t end, enum page_state state)
{
	if (start >= end || state == PAGE_ABSENT)
		return 0;
	if (runs->n > 0) {
		struct page_run *last = &runs->v[runs->n - 1];
		if (last->end == start && last->state == state) {
			last->end = end;
			return 0;
		}
	}
	if (runs->n == runs->allocated) {
		size_t want = runs->allocated ? runs->allocated * 2 : 8;
		struct page_run *v = realloc(runs->v, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		runs->v = v;
		runs->allocated = want;
	}
	runs->v[runs->n++] = (struct page_run){ start, end, state };
	return 0;
}

void page_runs_clear(struct page_runs *runs)
{
	runs->n = 0;
}

void page_runs_done(struct page_runs *runs)
{
	free(runs->v);
	*runs = (struct page_runs){ 0 };
}

size_t page_runs_first_after(const struct page_runs *runs, uint64_t addr)
{
	size_t lo = 0, hi = runs->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (runs->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

enum page_state page_runs_state(const struct page_runs *runs, uint64_t addr)
{
	size_t i = page_runs_first_after(runs, addr);
	return i < runs->n && runs->v[i].start <= addr ? runs->v[i].state : PAGE_ABSENT;
}

uint64_t page_runs_next(const struct page_runs *runs, uint64_t addr, uint64_t end, enum page_state s)
{
	addr &= ~(PAGE - 1);
	for (size_t i = page_runs_first_after(runs, addr); i < runs->n && runs->v[i].start < end; i++) {
		if (runs->v[i].state != s)
			continue;
		uint64_t at = runs->v[i].start > addr ? runs->v[i].start : addr;
		return at < end ? at : end;
	}
	return end;
}

uint64_t page_runs_run_end(const struct page_runs *runs, uint64_t addr)
{
	size_t i = page_runs_first_after(runs, addr);
	return i < runs->n && runs->v[i].start <= addr ? runs->v[i].end : addr;
}

uint64_t page_runs_bytes(const struct page_runs *runs, uint64_t start, uint64_t end, enum page_state s)
{
	uint64_t sum = 0;
	for (size_t i = page_runs_first_after(runs, start); i < runs->n && runs->v[i].start < end; i++) {
		if (runs->v[i].state != s)
			continue;
		uint64_t a = runs->v[i].start > start ? runs->v[i].start : start;
		uint64_t b = runs->v[i].end < end ? runs->v[i].end : end;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

static int ask(struct memsource *src, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
	       struct page_runs *runs, uint64_t *ret_end)
{
	size_t before = runs->n;
	*ret_end = end;
	if (end <= start)
		return 0;
	src->questions++;
	int r = src->ops->residency(src->self, start, end, max_pages, present_only, runs, ret_end);
	if (r < 0) {
		runs->n = before;
		return r;
	}
	if (*ret_end <= start || *ret_end > end)
		*ret_end = end; /* no progress reported: take it all as asked */
	src->pages_mapped += (*ret_end - start) / PAGE;
	return 0;
}

int memsource_window(struct memsource *src, uint64_t start, uint64_t end, uint64_t max_pages,
		     struct page_runs *runs, uint64_t *ret_end)
{
	return ask(src, start, end, max_pages, true, runs, ret_end);
}

int memsource_residency(struct memsource *src, uint64_t start, uint64_t end, struct page_runs *runs)
{
	uint64_t done;
	return ask(src, start, end, 0, false, runs, &done);
}

int memsource_pages(struct memsource *src, const uint64_t *pages, size_t n, struct page_runs *runs)
{
	bool stack[64], *in = n <= 64 ? stack : malloc(n * sizeof(*in));
	int r = -EOPNOTSUPP;

	if (!in)
		return -ENOMEM;
	if (n && src->ops->present) {
		src->questions++;
		r = src->ops->present(src->self, pages, n, in);
	}
	if (r == -EOPNOTSUPP) {
		/* page by page: a window of one page each */
		r = 0;
		for (size_t i = 0; i < n && r == 0; i++) {
			uint64_t done;
			r = ask(src, pages[i], pages[i] + PAGE, 1, true, runs, &done);
		}
	} else if (r == 0) {
		for (size_t i = 0; i < n && r == 0; i++)
			if (in[i])
				r = page_runs_add(runs, pages[i], pages[i] + PAGE, PAGE_RESIDENT);
		src->pages_mapped += n;
	}
	if (in != stack)
		free(in);
	return r;
}

int memsource_read(struct memsource *src, struct mem_probe *probes, size_t n)
{
	size_t allowed = n, readable = 0;

	for (size_t i = 0; i < n; i++) {
		probes[i].got = 0;
		/* a probe spans one page: only that page's residency was checked */
		if (probes[i].len == 0 || (probes[i].addr & (PAGE - 1)) + probes[i].len > PAGE ||
		    !probes[i].runs || page_runs_state(probes[i].runs, probes[i].addr) != PAGE_RESIDENT)
			probes[i].len = 0;
		else
			readable++;
	}
	/* what is counted, and limited, is what is read */
	uint64_t left = src->max_probes > src->probes ? src->max_probes - src->probes : 0;
	if (readable > left) {
		size_t k = 0;
		for (allowed = 0; allowed < n && (probes[allowed].len == 0 || k < left); allowed++)
			k += probes[allowed].len > 0;
		readable = k;
		src->exhausted = true;
	}
	if (readable == 0)
		return 0;
	src->probes += readable;
	src->calls++;
	int r = src->ops->read(src->self, probes, allowed);
	for (size_t i = 0; i < allowed; i++)
		src->bytes += probes[i].got;
	return r;
}

void memsource_close(struct memsource *src)
{
	if (src && src->ops && src->ops->close)
		src->ops->close(src->self);
	if (src)
		src->ops = NULL;
}
