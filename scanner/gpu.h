/* NVIDIA GPU memory, from the vendor's libraries loaded at run time:
 * NVML (libnvidia-ml.so.1) for devices and the processes using them, and
 * the CUDA driver API (libcuda.so.1) for what needs no context.
 *
 * Nothing here links against NVIDIA: the libraries are dlopen'ed with our
 * own prototypes ($RAMWATCH_NVML_LIBRARY and $RAMWATCH_CUDA_LIBRARY
 * override their names), and a host without them, without devices, or
 * with a driver that answers errors is a state to report once, never a
 * failure of a scan or of the daemon.  No CUDA context is ever created:
 * one would cost VRAM and put us in the GPU's process list. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gpu_state {
	GPU_OK,          /* NVML answered: devices are known */
	GPU_NO_LIBRARY,  /* libnvidia-ml could not be loaded */
	GPU_NO_DEVICES,  /* loaded, and it sees no device */
	GPU_ERROR,       /* loaded, but it failed (the message says how) */
	_GPU_STATE_MAX
};

const char *gpu_state_name(enum gpu_state s); /* "ok", "no_library", "no_devices", "error" */
/* The state named so, or -1. */
int gpu_state_from_name(const char *name);

/* A byte count NVML could not give (NVML_VALUE_NOT_AVAILABLE). */
#define GPU_BYTES_UNKNOWN UINT64_MAX

struct gpu_device {
	unsigned index;       /* NVML's index */
	char name[96];
	char uuid[96];        /* "GPU-..." (or "MIG-..." for a MIG instance) */
	uint64_t total, used, free; /* bytes of device memory; used and free are
				     * GPU_BYTES_UNKNOWN for a device listed by
				     * the CUDA driver API (NVML missing) */
	bool present;         /* false: the device answered an error this time (e.g. it fell off the bus) */
	int parent;           /* a MIG instance: the index in gpu_snapshot.devices of its GPU; a GPU: -1 */
	char error[96];       /* when not present: what NVML answered */
};

/* One process's use of one device. */
struct gpu_use {
	int pid;
	unsigned device;      /* index into gpu_snapshot.devices */
	uint64_t used;        /* bytes of VRAM; UINT64_MAX when NVML says "not available" */
	bool graphics;        /* from the graphics list rather than the compute list (a process
			       * in both is listed once, as compute) */
};

/* What the GPUs look like at one moment: one NVML process-list call per
 * device (compute and graphics), for every process at once. */
struct gpu_snapshot {
	enum gpu_state state;
	char message[256];    /* why, when state is not ok */
	int64_t time_ms;      /* unix ms */
	struct gpu_device *devices;
	size_t n_devices;
	struct gpu_use *uses;  /* sorted by pid, then device */
	size_t n_uses;
	int driver_version;   /* cuDriverGetVersion, 0 when unknown (e.g. 12040 for 12.4) */
};

struct gpu;

struct gpu_options {
	const char *nvml_library;  /* NULL: $RAMWATCH_NVML_LIBRARY, else "libnvidia-ml.so.1" */
	const char *cuda_library;  /* NULL: $RAMWATCH_CUDA_LIBRARY, else "libcuda.so.1" */
	/* The device files of which one exists wherever NVIDIA's driver can
	 * answer, NULL-terminated; NULL: /dev/nvidiactl (the driver's control
	 * device, which NVML and the CUDA driver open first) and /dev/dxg
	 * (WSL 2's, through which they reach the driver there).  When none
	 * exists and no library is named (here or in the environment), the
	 * libraries are not looked for: state GPU_NO_LIBRARY, saying so. */
	const char *const *driver_devices;
};

/* Loads the libraries and initialises NVML.  Always returns 0 with *ret
 * (whose state says what was found) unless out of memory (-ENOMEM). */
int gpu_open(const struct gpu_options *o, struct gpu **ret);
/* The same, loading on a thread of its own, so that a scan reads /proc
 * while the libraries are looked for (a failed dlopen searches every
 * directory of the library path; nvmlInit_v2 takes far longer).  Every call below waits for
 * the loading to end first; a loading that ran out of memory is state
 * GPU_ERROR.  Returns 0, or -ENOMEM. */
int gpu_open_background(const struct gpu_options *o, struct gpu **ret);
/* Shuts NVML down and unloads; accepts NULL, returns NULL. */
struct gpu *gpu_close(struct gpu *g);

/* NVML's state since gpu_open; *ret_message (when ret_message is given)
 * says why when it is not GPU_OK, and is NULL when it is.  The message
 * lives until gpu_close. */
enum gpu_state gpu_get_state(struct gpu *g, const char **ret_message);

/* Takes a snapshot.  Returns 0 (the snapshot's state says whether it holds
 * anything) or -ENOMEM; free it with gpu_snapshot_done. */
int gpu_snapshot_take(struct gpu *g, struct gpu_snapshot *ret);
void gpu_snapshot_done(struct gpu_snapshot *s);

/* The uses of one pid in a snapshot: a pointer into s->uses and their
 * count (0 when the process uses no GPU). */
const struct gpu_use *gpu_snapshot_find(const struct gpu_snapshot *s, int pid, size_t *ret_n);
