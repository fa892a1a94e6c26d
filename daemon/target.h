/* A watched process: one instance (boot id, pid, start time), followed
 * from the moment discovery picks it until it exits or no longer matches.
 *
 * It keeps /proc/PID open as a directory and holds a pidfd: reads go
 * through the directory, which answers ESRCH once that instance is gone
 * even when the pid is reused, and the pidfd turns readable at the exit,
 * which gives its time to the event loop (Linux 5.3+; without pidfds the
 * fast tier notices the exit at its next read).
 *
 * Each part of a target has one owner, the only file that changes it; the
 * others read what the part's header says they may, and change it through
 * its owner's functions.  The parts are embedded, not pointed at: a sample
 * reaches its part with no more indirection than one struct gives.
 *
 *   the instance (below, up to ref)  target.c: set by target_new, never
 *                                    changed after
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
#include "watched.h"
#include "writer.h"

struct event_source;

struct target {
	struct watched_link link;

	/* the instance */
	int pid;
	uint64_t start_time;
	int proc_dir_fd;        /* /proc/PID, a directory */
	int pidfd;              /* a pidfd (pidfd_open); -1 without one */
	char *cgroup;           /* the cgroup v2 path when following began; NULL unknown */
	char *memcg;            /* its memory cgroup's path, as of the last store tick; NULL unknown */
	struct proc_ref *ref;   /* what the store holds about it: its own reference */

	struct event_source *exit_source;

	struct fast_target fast;
	struct gpu_watch_target gpu;
	struct census_target census;
};

/* What discovery knows about a process when it decides to follow it. */
struct target_identity {
	const char *boot_id;
	int64_t boot_ms;         /* the boot time, unix ms (btime of /proc/stat) */
	long ticks_per_second;   /* sysconf(_SC_CLK_TCK) */
	int64_t now_ms;
	/* A pidfd is kept only below this descriptor number (0: any), so
	 * that every process discovery may yet follow still finds a
	 * descriptor for its directory and its statm: without one, an exit
	 * is seen at the next sample instead of at once. */
	long pidfd_below;
};

/* Starts following pid, whose status discovery just read: opens its proc
 * directory, reads stat, cmdline and exe, and has the fast tier keep statm
 * open (fast_tier_open_statm).  Returns 0 with *ret, -ESRCH when it exited
 * meanwhile, or another negative errno. */
int target_new(int root_fd, int pid, const struct proc_status *status, const struct target_identity *id,
	       struct target **ret);
/* Frees a target and each part's resources, through their owners (not
 * its exit watch, which the manager drops first); accepts NULL, returns
 * NULL. */
struct target *target_free(struct target *t);

/* The descriptors t holds open: its directory, its pidfd, statm. */
unsigned target_fds(const struct target *t);

/* t's memory cgroup is path from now on (copied; kept as it was when
 * there is no memory for the copy). */
void target_set_memcg(struct target *t, const char *path);

/* What the daemon tells of t (its strings are t's). */
void target_describe(const struct target *t, struct core_process *ret);
