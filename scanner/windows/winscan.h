/* The live Windows scanner: one process read from outside with the
 * rights the OS gives (OpenProcess with PROCESS_QUERY_INFORMATION and
 * PROCESS_VM_READ), into a captured region list (win-capture.h) that
 * win_census_build turns into a census.
 *
 * What it reads, in order: the process's identity (image path, creation
 * time, command line from its PEB, owner), the VirtualQueryEx walk of its
 * user address space with mapped files' paths, heaps by the signature
 * they wrote and by the heap list, threads' stacks from their TEBs,
 * residency from QueryWorkingSetEx, the process's counters; then that it
 * is still the same process. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "win-capture.h"

/* Pages whose residency is looked up one by one in one reservation; past
 * it, a sample of this many pages spread evenly, and the figure is an
 * estimate (the reference samples 128). */
#define WINSCAN_RESIDENCY_PAGES_MAX 65536u
/* How long a scan whose process exited is waited for before the answer is
 * the exit (winscan_process): a scan that is not stuck finishes at once. */
#define WINSCAN_EXIT_GRACE_MS 2000u
/* Entries per QueryWorkingSetEx call. */
#define WINSCAN_RESIDENCY_BATCH 4096u

struct winscan_options {
	bool no_residency; /* do not call QueryWorkingSetEx */
	bool no_evidence;  /* read nothing of the process's memory (heaps, stacks, command line) */
};

/* Reads process pid.  Returns 0 with *ret (win_capture_free), or, with err
 * saying what a person can do:
 *   -ESRCH       no such process, or it exited during the scan (no census
 *                is made of a process that did not last the scan)
 *   -EACCES      access denied (run as Administrator, or with
 *                SeDebugPrivilege; protected processes cannot be read)
 *   -EOPNOTSUPP  a 32-bit process
 *   -E2BIG       more than RW_REGIONS_MAX regions
 *   -ENOMEM */
int winscan_process(int pid, const struct winscan_options *o, struct win_capture **ret, struct error *err);

/* A process to scan: pid, its image's file name (UTF-8) and private bytes. */
struct winscan_entry {
	int pid;
	char name[260];
	uint64_t private;
};

/* Every process but this one, most private bytes first (those this user
 * cannot query have 0).  Returns 0 with *ret (free) and *ret_n, or a
 * negative errno. */
int winscan_list(struct winscan_entry **ret, size_t *ret_n);
