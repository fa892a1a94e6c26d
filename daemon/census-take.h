/* Taking one census of one watched process, against what its last census
 * left: the steady check before it (steady.h), a repeat of the last full
 * census when the check reads as it did then, else the census itself
 * (scan.h) and the region events since the previous one.
 *
 * census-take.c is the only file that changes a struct census_last; the
 * census tier holds one per target (struct census_target's last) and
 * calls these for it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "steady.h"
#include "store.h"

struct census;
struct region_event;
struct region_snapshot;
struct strpool;

/* A census and what the store gets of it. */
struct census_result {
	struct store_census meta;
	char message[256];
	struct census *census;        /* NULL unless meta.status is ok, and for a
				       * repeat (meta.repeats_time set) */
	struct region_event *events;  /* since the previous census */
	size_t n_events;
	bool heap_read;               /* a full census (not a repeat) that was to read
				       * in use and free (census_take_options.heap) */
};

/* What a process's last census left for its next one.  Others read
 * steady_private and steady_dropped; nothing else. */
struct census_last {
	struct region_snapshot *snap; /* the regions of the last census */
	size_t n_snap;
	bool snap_light;              /* ... which was light: sizes only */
	/* the steady check (steady.h): what was read before the last full
	 * census, which a repeat points at by its time */
	struct steady_mark steady;    /* source STEADY_NONE: no full census to repeat */
	struct steady_files steady_files; /* where steady found the file mappings, with names */
	bool steady_current;          /* the change watch says its mappings are as steady saw them */
	int64_t steady_read_ms;       /* when the last check that read the process read it (now_ms) */
	int64_t steady_maps_ms;       /* when the last check without the watch read maps (now_ms) */
	int64_t steady_census_time;   /* that census's time (unix ms) */
	uint64_t steady_private;      /* its private memory */
	bool steady_light;            /* it was light */
	bool steady_on_gpu;           /* the GPU figures it was taken with */
	uint64_t steady_vram;
	uint64_t steady_dropped;      /* the writer's dropped rows when it was queued */
};

/* The process a census is of, as its target knows it. */
struct census_subject {
	int pid;
	uint64_t start_time;     /* of the instance: a census of another one is an exit */
	int proc_dir_fd;         /* /proc/PID */
	struct strpool *paths;   /* where the region events' paths are kept (its proc_ref's) */
	bool on_gpu;             /* its GPU memory as last told (gpu-watch.h) */
	uint64_t vram;
};

/* How a census is taken. */
struct census_take_options {
	enum store_trigger trigger;
	bool light;              /* maps and smaps_rollup only */
	bool evidence;           /* read allocators' headers */
	/* read in use and free (the heap walks, after evidence), for at most
	 * heap_allowance_us from the census's start: what the walks did not
	 * reach by then is unknown */
	bool heap;
	uint64_t heap_allowance_us;
	bool may_repeat;         /* a repeat of the last full census may stand for it */
	/* what the change watch said of its mappings and memory, taken just
	 * before (fast_tier_take_mappings) */
	enum steady_mappings mappings;
	/* how long the watch's word that nothing moved stands for the check
	 * (SteadyCheckInterval=, ms): 0, never */
	int64_t check_every_ms;
	int64_t now_ms;
	const struct gpu_snapshot *gpu; /* a snapshot of NVML's state ok; NULL: none */
};

/* Takes a census of s now, records its cost and status, and the region
 * events since the previous one; with o->gpu, the census's GPU section
 * comes from it.  It first reads the steady check; with o->may_repeat,
 * when that is as it was before the last full census (of the same
 * lightness, with the same GPU memory), the result is a repeat of it:
 * status ok, no census, meta.repeats_time set.  Where the change watch
 * says the mappings were kept since the last check, and its file mappings
 * are few, the check reads smaps_rollup and their names only
 * (steady_read_kept), not maps.  Where it says nothing at all moved since
 * the take before the last check that read the process, and that read is
 * younger than o->check_every_ms, the repeat reads nothing.  Without the
 * watch, where the last check that read maps is younger than
 * o->check_every_ms, the check reads statm, the file mappings and
 * smaps_rollup (steady_read_files), and maps only when they moved (the
 * census then needs it).  Fills ret;
 * returns 0, or -ENOMEM. */
int census_take(struct census_last *l, const struct census_subject *s, const struct census_take_options *o,
		struct census_result *ret);

/* Whether steady check m, just read, lets l's last full census stand for
 * one now: the same as what l keeps, of the same lightness, GPU and GPU
 * memory (census-read.h's checks ask it too). */
bool census_take_may_stand(const struct census_last *l, const struct census_subject *s, const struct steady_mark *m,
			   bool light);

/* Whether the last full census may stand for the next one as far as the
 * store goes: the writer dropped no rows (dropped, all told) since it was
 * queued, which may have been its own. */
bool census_take_may_repeat(const struct census_last *l, uint64_t dropped);

/* A full census (not a repeat) was queued (queued) or lost: the next may
 * repeat it only when it is stored; dropped is the writer's count of rows
 * dropped after it was queued. */
void census_take_queued(struct census_last *l, bool queued, uint64_t dropped);

/* Frees what the last census left; l may be reused (as none). */
void census_take_done(struct census_last *l);
