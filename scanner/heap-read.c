/* A stretch of memory read for a heap walk (heap-read.h): one residency
 * question, then one batch of reads of its resident pages. */
#include "heap-read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096ull

int heap_read(struct memsource *src, uint64_t addr, size_t len, uint8_t *buf, uint64_t *bytes)
{
	struct page_runs runs = { 0 };
	struct mem_probe *probes = NULL;
	size_t n = 0;
	int r;

	if (len == 0)
		return 0;
	if (addr + len < addr)
		return -EINVAL;
	uint64_t first = addr & ~(PAGE - 1), last = (addr + len + PAGE - 1) & ~(PAGE - 1);
	probes = calloc((last - first) / PAGE, sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	r = memsource_residency(src, first, last, &runs);
	for (uint64_t page = first; r == 0 && page < last; page += PAGE) {
		uint64_t a = page > addr ? page : addr, b = page + PAGE < addr + len ? page + PAGE : addr + len;
		enum page_state state = page_runs_state(&runs, page);
		if (state == PAGE_ABSENT || state == PAGE_ZERO)
			memset(buf + (a - addr), 0, b - a);
		else if (state == PAGE_RESIDENT)
			probes[n++] = (struct mem_probe){ .addr = a, .len = (uint32_t)(b - a), .buf = buf + (a - addr), .runs = &runs };
		else
			r = -EIO;
	}
	if (r == 0)
		r = memsource_read(src, probes, n);
	for (size_t i = 0; i < n; i++)
		*bytes += probes[i].got;
	for (size_t i = 0; r == 0 && i < n; i++)
		if (probes[i].got == 0)
			r = -EAGAIN;
	free(probes);
	page_runs_done(&runs);
	return r;
}
