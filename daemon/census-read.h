/* What a census of a watched process reads, where the platforms differ:
 * census-take.c's bookkeeping (a repeat or a census, the region events
 * since the last one, the costs) is the same everywhere, and asks this
 * header for the check before a census and for the census itself.
 *
 * linux/census-read.c: the steady check (steady.h: smaps_rollup and
 * maps, or the names of the file mappings alone when the change watch
 * says they were kept), and the scanner's census (scan.h) of the
 * instance, whose start time must be the subject's.
 *
 * windows/census-read.c: no steady check (a census is never a repeat),
 * and the Windows scanner's (winscan.h: VirtualQueryEx's walk, the heaps,
 * the stacks, the working set) made a census (win-census.h), whose
 * creation time must be the subject's; no heap walk, no light census. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "census-take.h"
#include "error.h"
#include "steady.h"

struct census;

/* Reads the steady check of s before a census into *mark (its source
 * STEADY_NONE when there is none), the file mappings' starts into
 * *files, the bytes it read into *bytes; o census_take's options, l the
 * last census's.  Changes l's steady_current and steady_maps_ms only. */
void census_read_steady(struct census_last *l, const struct census_subject *s, const struct census_take_options *o,
			struct steady_mark *mark, struct steady_files *files, uint64_t *bytes);
/* Whether two steady checks read the same (never, without a check). */
bool census_read_same(const struct steady_mark *a, const struct steady_mark *b);
/* Frees what a steady check kept of the file mappings; f may be reused. */
void census_read_files_done(struct steady_files *f);

/* The census of s now, as o asks (its light, evidence and heap options;
 * the heap walks stop at start_us + o->heap_allowance_us).  Returns 0
 * with *ret (census_free), whose regions are kept for the region events;
 * -ESRCH when the instance is gone (its pid may be another's now),
 * -EACCES or -EPERM when refused, another negative errno, each with err
 * saying why. */
int census_read(const struct census_subject *s, const struct census_take_options *o, uint64_t start_us,
		struct census **ret, struct error *err);

/* A census of any process by its pid (a client's scan of one the daemon
 * does not watch), as ramwatch scan takes it: proc_root is Linux's (NULL:
 * /proc; Windows has none), a light census where the platform has one,
 * the allocators' evidence read unless evidence is false, and progress
 * (may be NULL) called as it reads, whose negative return stops it and is
 * returned: on Linux after each read of smaps, on Windows, whose walk
 * cannot stop midway, once the walk is done. */
struct census_read_scan {
	const char *proc_root;
	bool light, evidence;
	int (*progress)(void *userdata, uint64_t bytes_read);
	void *userdata;
};
/* Returns 0 with *ret (census_free), or a negative errno with err saying
 * why: -ESRCH no such process, -EACCES refused, -EOPNOTSUPP nothing to
 * read (a kernel thread, a 32-bit process), the progress callback's. */
int census_read_pid(int pid, const struct census_read_scan *o, struct census **ret, struct error *err);
