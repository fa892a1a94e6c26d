/* GPU memory in the daemon: NVML opened once at start (and again on a
 * reload, only while it was not usable: a driver installed since), one
 * snapshot every StoreInterval for all processes at once (one process-list
 * call per device, not one per process), the rows it gives queued for the
 * store, the VRAM growth trigger, and the snapshot the censuses take their
 * GPU section from.
 *
 * A host without NVIDIA GPUs is told once, at info, and nothing else
 * changes.  A device that stops answering (it fell off the bus) or comes
 * back is told once per change; its rows say so (present 0), and the
 * daemon goes on with the others.
 *
 * gpu_watch_note, the bookkeeping of what was told, is pure, so that
 * tests feed it snapshots; the calls below it are the daemon's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu.h"

struct census_tier;
struct target;
struct watched;
struct writer;

/* A watched process's GPU memory as the last snapshot told it (struct
 * target's gpu): gpu-watch.c is the only file that changes it
 * (gpu_watch_match); the census tier reads it for its growth trigger and
 * its repeats, the daemon's view of the process for its figures. */
struct gpu_watch_target {
	bool on_gpu;     /* NVML listed it on some device */
	uint64_t vram;   /* what it holds there, summed over devices (known figures) */
};

/* A device as last told. */
struct gpu_watch_device {
	char uuid[96];   /* "" while it never answered */
	unsigned index;
	int parent;      /* a MIG instance: its GPU's place in the snapshot; a GPU: -1 */
	bool present;
	bool listed;     /* in the snapshot being noted (scratch) */
};

enum gpu_watch_change {
	GPU_WATCH_NEW,   /* a device not seen before (a MIG instance made) */
	GPU_WATCH_LOST,  /* it answered before, or is new, and answers an error now */
	GPU_WATCH_BACK,  /* it answers again */
	GPU_WATCH_GONE,  /* no longer listed (a MIG instance removed) */
};

struct gpu_watch {
	struct gpu *gpu;          /* NULL: not open */
	enum gpu_state state;     /* of NVML, since gpu_open */
	struct gpu_snapshot last; /* the latest snapshot, when have_last */
	bool have_last;
	struct gpu_watch_device *devices; /* as last told */
	size_t n_devices;
};

/* Called for each change a snapshot brings: d is the device in the
 * snapshot (for GPU_WATCH_GONE, a device of the old list with only uuid
 * and index set). */
typedef void (*gpu_watch_report_t)(void *userdata, enum gpu_watch_change change, const struct gpu_device *d);

/* Compares snapshot s with the devices as last told, reports each change
 * (a device first seen present is new, not a change, at the first
 * snapshot: first says so), and keeps s's devices as the ones told.  A
 * device is known by its UUID, or by its index while it has none.
 * Returns 0 or -ENOMEM (the list is then as it was). */
int gpu_watch_note(struct gpu_watch *w, const struct gpu_snapshot *s, bool first, gpu_watch_report_t report,
		   void *userdata);

/* Frees the snapshot, the list and closes NVML; w may be reused. */
void gpu_watch_done(struct gpu_watch *w);

/* Opens NVML and tells once what it found (no driver, no GPU: at info);
 * with devices, takes the first snapshot. */
void gpu_watch_open(struct gpu_watch *w);
/* On a reload: opens NVML again unless it is in use. */
void gpu_watch_reload(struct gpu_watch *w);
/* The latest snapshot, for the censuses' GPU section and the metrics;
 * NULL without NVML. */
const struct gpu_snapshot *gpu_watch_snapshot(const struct gpu_watch *w);
/* Takes what snapshot s (of NVML's state ok) says of t: whether it is on
 * a GPU, the memory it holds there (its process row's peak with it).
 * Returns its uses in s and their count, as gpu_snapshot_find. */
const struct gpu_use *gpu_watch_match(struct target *t, const struct gpu_snapshot *s, size_t *ret_n);
/* In the store cycle, rows ending at now (unix ms): a snapshot, what it
 * tells of each watched process (its GPU memory, to the census tier for
 * the growth trigger), and its rows queued on writer.  Nothing without
 * NVML.  Returns whether a snapshot told the census tier. */
bool gpu_watch_cycle(struct gpu_watch *w, const struct watched *watched, struct census_tier *ct,
		     struct writer *writer, int64_t now);
