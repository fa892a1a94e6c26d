/* A watched process: one instance (boot id, pid, start time), followed
 * from the moment discovery picks it until it exits or no longer matches.
 *
 * It keeps /proc/PID open as a directory and holds a pidfd: reads go
 * through the directory, which answers ESRCH once that instance is gone
 * even when the pid is reused, and the pidfd turns readable at the exit,
 * which gives its time to the event loop (Linux 5.3+; without pidfds the
 * fast tier notices the exit at its next read). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census-tier.h"
#include "export-text.h"
#include "proc-parse.h"
#include "region-events.h"
#include "sample.h"
#include "schedule.h"
#include "steady.h"
#include "store.h"
#include "core-interface.h"
#include "writer.h"

typedef struct sd_event_source sd_event_source;

struct target {
	struct target *prev, *next; /* the watched set's list (watched.c) */
	int pid;
	uint64_t start_time;
	int pid_fd;             /* /proc/PID */
	int pidfd;              /* -1 without pidfd_open */
	int statm_fd;           /* /proc/PID/statm kept open; -1: status only */
	unsigned fast_slot;     /* its place in the fast tier's array (fast-tier.c) */
	unsigned fds;           /* the descriptors it holds open */
	sd_event_source *exit_source;
	struct proc_ref *ref;   /* what the store holds about it */
	char *cgroup;           /* the cgroup v2 path when following began; NULL unknown */

	/* the fast tier (fast-tier.c) */
	uint64_t private, resident, swap; /* the last sample */
	bool status_read;                 /* status was read since following began */
	struct proc_statm status_statm;   /* statm as it was when status was last read */
	int64_t status_at_ms;             /* ... and when */
	struct sample_acc acc;

	/* GPU memory, from the last GPU snapshot (every StoreInterval) */
	bool on_gpu;            /* NVML listed it on some device */
	uint64_t vram;          /* what it holds there, summed over devices (known figures) */

	/* the census tier (census-tier.c) */
	struct census_plan plan;
	struct census_waiter *waiters; /* clients waiting for the next census */
	struct region_snapshot *snap; /* the regions of the last census */
	size_t n_snap;
	bool snap_light;              /* ... which was light: sizes only */
	struct export_classes classes; /* the classes of the last ok census, for the metrics */
	/* the steady check (steady.h): what was read before the last full
	 * census, which a repeat points at by its time */
	struct steady_mark steady;    /* source STEADY_NONE: no full census to repeat */
	struct steady_files steady_files; /* where steady found the file mappings, with names */
	bool steady_current;          /* the change watch says its mappings are as steady saw them */
	int64_t steady_census_time;   /* that census's time (unix ms) */
	uint64_t steady_private;      /* its private memory */
	bool steady_light;            /* it was light */
	bool steady_on_gpu;           /* the GPU figures it was taken with */
	uint64_t steady_vram;
	uint64_t steady_dropped;      /* the writer's dropped rows when it was queued */
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
 * directory, reads stat, cmdline and exe, keeps statm open (out of
 * descriptors, EMFILE or ENFILE, it samples from status alone).  Returns 0 with *ret, -ESRCH when
 * it exited meanwhile, or another negative errno. */
int target_new(int root_fd, int pid, const struct proc_status *status, const struct target_identity *id,
	       struct target **ret);
/* Frees a target (not its event source, which the manager owns); accepts
 * NULL, returns NULL. */
struct target *target_free(struct target *t);

/* Takes a sample: private, resident and swap into the accumulator and the
 * peaks.  statm is what the caller read of t->statm_fd now (NULL without
 * that descriptor).  Status is read only when statm changed since status
 * was last read, at the first sample, and once target_status_due_ms has
 * come; otherwise the figures of that status are the sample's.  Without
 * statm it reads status every time.  Returns 0, or -ESRCH when the process
 * has exited (or is a zombie), or another negative errno. */
int target_sample(struct target *t, const struct proc_statm *statm, int64_t now_ms, int64_t status_every_ms);

/* The next target_sample reads status whatever statm says (its swap moved). */
void target_status_stale(struct target *t);

/* From when (unix ms) status is read again even if statm stays the same:
 * status_every_ms after it was last read (a page swapped in or out changes
 * statm's resident, so swap stays exact) or, for a process that had
 * nothing in swap, RW_STATUS_REFRESH_MS if that is longer.  INT64_MIN
 * before the first status. */
int64_t target_status_due_ms(const struct target *t, int64_t status_every_ms);

/* Adds count samples more of the figures of the last one (the fast tier
 * found statm unchanged and nothing due), the last at seen_ms. */
void target_repeat_sample(struct target *t, uint32_t count, int64_t seen_ms);

/* Takes a census now (light: maps and smaps_rollup only; evidence: read
 * allocators' headers), records its cost and status, and the region events
 * since the previous one.  With gpu (a snapshot of NVML's state ok; NULL:
 * none), the census's GPU section comes from it.  It first reads the
 * steady check (steady.h); with may_repeat, when that is as it was before
 * the last full census (of the same lightness, with the same GPU memory),
 * the result is a repeat of it: status ok, no census, meta.repeats_time
 * set.  mappings is what the change watch said of its mappings, taken
 * just before: where it says they were kept since the last check, and
 * its file mappings are few, the check reads smaps_rollup and their names
 * only (steady_read_kept), not maps.  Fills ret; returns 0, or -ENOMEM. */
int target_census(struct target *t, enum store_trigger trigger, bool light, bool evidence, bool may_repeat,
		  enum steady_mappings mappings, int64_t now_ms, const struct gpu_snapshot *gpu,
		  struct census_result *ret);

/* Takes what snapshot s (of NVML's state ok) says of the process: whether
 * it is on a GPU, the memory it holds there (its peak with it).  Returns
 * its uses in s and their count, as gpu_snapshot_find. */
const struct gpu_use *target_gpu(struct target *t, const struct gpu_snapshot *s, size_t *ret_n);

/* What the daemon tells of t (its strings are t's). */
void target_describe(const struct target *t, struct core_process *ret);
