/* A census of a Windows process from its regions, as VirtualQueryEx reports
 * them: the regions grouped by AllocationBase into reservations, each
 * reservation classified by the Windows rules of the classifier's table
 * (classify.h, RULE_WIN_*), then summarised as any census (census.h).
 *
 * Pure: it takes a list of regions, from the live walk (scanner/windows/)
 * or from a captured region list (win-capture.h), and never asks the OS,
 * so it compiles and is tested on Linux too. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census.h"
#include "error.h"

/* The values of MEMORY_BASIC_INFORMATION (winnt.h), which captures keep. */
#define WIN_MEM_COMMIT 0x1000u
#define WIN_MEM_RESERVE 0x2000u
#define WIN_MEM_FREE 0x10000u
#define WIN_MEM_PRIVATE 0x20000u
#define WIN_MEM_MAPPED 0x40000u
#define WIN_MEM_IMAGE 0x1000000u

#define WIN_PAGE_NOACCESS 0x01u
#define WIN_PAGE_READONLY 0x02u
#define WIN_PAGE_READWRITE 0x04u
#define WIN_PAGE_WRITECOPY 0x08u
#define WIN_PAGE_EXECUTE 0x10u
#define WIN_PAGE_EXECUTE_READ 0x20u
#define WIN_PAGE_EXECUTE_READWRITE 0x40u
#define WIN_PAGE_EXECUTE_WRITECOPY 0x80u
#define WIN_PAGE_GUARD 0x100u
#define WIN_PAGE_NOCACHE 0x200u
#define WIN_PAGE_WRITECOMBINE 0x400u

/* What the scanner learnt of a region beyond VirtualQueryEx; on the
 * region at a reservation's start (or, for a stack, any of its regions). */
enum win_mark {
	WIN_MARK_NONE,
	WIN_MARK_NT_HEAP,      /* SegmentSignature 0xffeeffee read at base + 0x10 */
	WIN_MARK_SEGMENT_HEAP, /* 0xddeeddee read at base + 0x10 */
	WIN_MARK_HEAP_LIST,    /* a heap id of the Toolhelp32 heap list */
	WIN_MARK_HEAP_BLOCK,   /* a heap's large block: its list entry links to a heap */
	WIN_MARK_STACK,        /* a thread's TEB StackLimit/StackBase falls in it */
	WIN_MARK_CUDA_HOST,    /* CUDA knows it as host memory (a capture from inside) */
	_WIN_MARK_MAX
};

const char *win_mark_name(enum win_mark m);
int win_mark_from_name(const char *name);

/* One region of VirtualQueryEx's walk. */
struct win_region {
	uint64_t base, allocation_base, size;
	uint32_t state, protect, allocation_protect, type;
	const char *path;  /* drive-letter path in UTF-8, NULL when none */
	uint64_t resident; /* bytes in the working set (committed regions) */
	bool resident_estimated; /* resident comes from a sample of its pages */
	enum win_mark mark;
	const char *evidence; /* what was read and what it showed, NULL */
};

/* What is known of the process besides its regions. */
struct win_process {
	int pid;
	int64_t creation_time; /* FILETIME, 100 ns since 1601; -1 */
	const char *image;     /* QueryFullProcessImageNameW, UTF-8; NULL */
	const char *cmdline;   /* NULL */
	const char *owner;     /* DOMAIN\user; NULL */
	enum census_residency residency;
	const char *residency_why; /* why not exact; NULL */
	int64_t private_usage, working_set, peak_working_set, pagefile_usage; /* -1: unknown */
};

/* Builds *ret (census_free) from n regions in address order (free regions
 * are skipped): one census region per reservation, classified, with
 * private = its commit charge (committed bytes of private memory, the
 * copy-on-write committed bytes of views and images), resident = its
 * working-set bytes, size = its reserved bytes; top and keep_all as
 * census_summarise.  Returns 0, -ENOMEM, or -EINVAL with err set when the
 * regions overlap, are out of order, or a region lies below its
 * allocation base. */
int win_census_build(const struct win_region *regions, size_t n, const struct win_process *p, size_t top,
		     bool keep_all, struct census **ret, struct error *err);
