/* A watched process: one instance (boot id, pid, start time), followed
 * from the moment discovery picks it until it exits or no longer matches.
 *
 * On Linux it keeps /proc/PID open as a directory and holds a pidfd:
 * reads go through the directory, which answers ESRCH once that instance
 * is gone even when the pid is reused, and the pidfd turns readable at
 * the exit, which gives its time to the event loop (Linux 5.3+; without
 * pidfds the fast tier notices the exit at its next read).  On Windows it
 * holds nothing: the instance is its pid and creation time, which every
 * round's snapshot of the processes lists until it exits.
 *
 * Each part of a target has one owner, the only file that changes it; the
 * others read what the part's header says they may, and change it through
 * its owner's functions.  The parts are embedded, not pointed at: a sample
 * reaches its part with no more indirection than one struct gives.
 *
 *   the instance (below, up to ref)  the platform's discovery: set when
 *                                    it follows the process
 *                                    (linux/target.c, windows/discover.c),
 *                                    never changed after
 *   link                             watched.c: the watched set's list
 *   exit_source                      manager.c: the exit watch
 *   fast                             fast-tier.c: statm, the last sample,
 *                                    the accumulator (fast-tier.h)
 *   gpu                              gpu-watch.c: the GPU memory as last
 *                                    told (gpu-watch.h)
 *   census                           census-tier.c: the plan, the waiters,
 *                                    the classes; census-take.c: what the
 *                                    last census left (census-tier.h)
 *   *ref                             writer.c: the process's row, changed
 *                                    through proc_ref_* (writer.h) */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census-tier.h"
#include "fast-tier.h"
#include "gpu-watch.h"
#include "proc-parse.h"
#include "core-interface.h"
#include "event-loop.h"
#include "watched.h"
#include "writer.h"

struct event_source;

struct target {
	struct watched_link link;

	/* the instance */
	int pid;
	uint64_t start_time;
	int proc_dir_fd;        /* /proc/PID, a directory; -1 on Windows */
	int pidfd;              /* a pidfd (pidfd_open); -1 without one (always on Windows) */
	char *cgroup;           /* the cgroup v2 path when following began; NULL unknown */
	char *memcg;            /* its memory cgroup's path, as of the last store tick; NULL unknown */
	struct proc_ref *ref;   /* what the store holds about it: its own reference */

	struct event_source *exit_source;

	struct fast_target fast;
	struct gpu_watch_target gpu;
	struct census_target census;
};

/* A target for the instance pid, start_time (its identity: Linux's
 * start time in clock ticks after boot, Windows's creation time in
 * FILETIME ticks), every part made ready, no descriptor: what each
 * platform's discovery fills in.  Returns NULL when out of memory. */
struct target *target_alloc(int pid, uint64_t start_time);
/* Frees a target and each part's resources, through their owners (not
 * its exit watch, which the manager drops first); accepts NULL, returns
 * NULL. */
struct target *target_free(struct target *t);

/* The descriptors t holds open: its directory, its pidfd, statm. */
unsigned target_fds(const struct target *t);

/* Where t's exit is told at once, for the loop to watch (Linux's pidfd):
 * true with *ret, or false when the fast tier sees the exit at its next
 * round. */
bool target_exit_source(const struct target *t, event_fd_t *ret);

/* t's memory cgroup is path from now on (copied; kept as it was when
 * there is no memory for the copy). */
void target_set_memcg(struct target *t, const char *path);

/* What the daemon tells of t (its strings are t's). */
void target_describe(const struct target *t, struct core_process *ret);
