/* The machine's memory on Windows, every StoreInterval, as the same row
 * Linux stores from /proc/meminfo (struct store_system): physical memory
 * from GlobalMemoryStatusEx, the commit charge and its limit from
 * GetPerformanceInfo.  Windows has no pressure stall information; the row
 * says so (have_pressure false).
 *
 * win_sysmem_row is pure (the figures the two calls give in, the row
 * out), built and tested on Linux too; win_sysmem_read makes the calls,
 * on Windows only. */
#pragma once

#include <stdint.h>

#include "store.h"

/* What the two calls give, as they give it. */
struct win_sysmem_figures {
	uint64_t total_phys, avail_phys;        /* MEMORYSTATUSEX: bytes */
	uint64_t commit_total, commit_limit;    /* PERFORMANCE_INFORMATION: pages */
	uint64_t page_size;                     /* PERFORMANCE_INFORMATION: bytes */
};

/* The row of f at now_ms:
 *   mem_total, mem_available  physical memory, and what of it is free or
 *                             on the standby list (Windows's "available",
 *                             as MemAvailable is Linux's)
 *   committed_as              the commit charge: every process's private
 *                             committed memory, and the system's
 *   commit_limit              physical memory and the paging files
 *   swap_total                the paging files: the commit limit beyond
 *                             physical memory
 *   swap_free                 what of the paging files the commit charge
 *                             does not claim: the commit limit less the
 *                             charge, at most swap_total (Windows tells
 *                             the paging files' use only per file)
 * Returns 0, or -EOVERFLOW when pages times the page size pass 64 bits
 * (or the page size is 0), -EBADMSG when a figure is larger than the one
 * that bounds it (available above total, the charge above its limit),
 * which no system gives. */
int win_sysmem_row(const struct win_sysmem_figures *f, int64_t now_ms, struct store_system *ret);

/* Reads the figures now and makes the row.  Returns 0, -EIO when a call
 * fails, or as win_sysmem_row. */
int win_sysmem_read(int64_t now_ms, struct store_system *ret);
