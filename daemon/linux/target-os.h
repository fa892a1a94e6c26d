/* Following a Linux process (linux/target.c): what discovery knows of it
 * when it decides to follow it, and the instance opened. */
#pragma once

#include <stdint.h>

#include "proc-parse.h"
#include "target.h"

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
