/* Memory about to be written whole, its pages made present in one call. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Makes the whole pages in [p, p + len) present and writable now, with
 * one madvise(MADV_POPULATE_WRITE) (Linux 5.14) instead of a fault on
 * each page as it is first written.  For memory the caller writes all
 * of next (a table it clears, a buffer it fills): each fault is an
 * exception and a return, and in a virtual machine can be far more (about
 * 10 us a page written a page at a time, 4-5 us populated first, on the
 * 2-CPU virtual machine of BENCHMARKS.md: bench/page-populate).  A hint:
 * where the kernel refuses, the pages come as they are written, as
 * before.  Memory of the process's own only (anonymous or private);
 * pages already present are left as they are. */
static inline void memory_populate(void *p, size_t len)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
	long n = sysconf(_SC_PAGESIZE);
	size_t page = n > 0 ? (size_t)n : 4096;
	uintptr_t from = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t to = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}
