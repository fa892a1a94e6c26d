/* NVML, the NVIDIA Management Library (libnvidia-ml.so.1), loaded at run
 * time with our own prototypes: the few calls gpu.c makes, written from
 * NVIDIA's public NVML API reference.  Internal to the scanner. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* nvmlReturn_t values used here (nvml.h numbers them so since NVML 2.x) */
enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_UNKNOWN = 999,
};

/* nvmlDeviceGetMigMode's current mode */
#define NVML_DEVICE_MIG_ENABLE 1u
/* NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define NVML_NAME_SIZE 96u
#define NVML_UUID_SIZE 96u

typedef int nvml_return;
typedef struct nvml_device_opaque *nvml_device; /* nvmlDevice_t */

/* nvmlMemory_t */
struct nvml_memory {
	unsigned long long total, free, used;
};

/* nvmlProcessInfo_v1_t: what the unversioned process-list calls fill */
struct nvml_process_v1 {
	unsigned int pid;
	unsigned long long used_gpu_memory; /* NVML_VALUE_NOT_AVAILABLE: all ones */
};

/* nvmlProcessInfo_t (v2 layout): what the _v2 and _v3 calls fill */
struct nvml_process_v2 {
	unsigned int pid;
	unsigned long long used_gpu_memory;
	unsigned int gpu_instance_id, compute_instance_id;
};

/* One entry of a device's process list, as gpu.c reads it. */
struct gpu_nvml_process {
	int pid;
	uint64_t used; /* GPU_BYTES_UNKNOWN when NVML cannot say */
};

typedef nvml_return (*nvml_processes_v2_fn)(nvml_device, unsigned int *, struct nvml_process_v2 *);
typedef nvml_return (*nvml_processes_v1_fn)(nvml_device, unsigned int *, struct nvml_process_v1 *);

struct gpu_nvml {
	void *lib;
	bool initialised;

	/* required */
	nvml_return (*init)(void);     /* nvmlInit_v2 */
	nvml_return (*shutdown)(void); /* nvmlShutdown */
	const char *(*error_string)(nvml_return);
	nvml_return (*device_count)(unsigned int *);               /* nvmlDeviceGetCount_v2 */
	nvml_return (*device_by_index)(unsigned int, nvml_device *); /* nvmlDeviceGetHandleByIndex_v2 */
	nvml_return (*device_name)(nvml_device, char *, unsigned int);
	nvml_return (*device_uuid)(nvml_device, char *, unsigned int);
	nvml_return (*device_memory)(nvml_device, struct nvml_memory *);

	/* optional: the newest of each present (_v3, else _v2, else v1) */
	nvml_processes_v2_fn compute_v2, graphics_v2;
	nvml_processes_v1_fn compute_v1, graphics_v1;
	nvml_return (*cuda_version)(int *); /* nvmlSystemGetCudaDriverVersion(_v2) */
	nvml_return (*mig_mode)(nvml_device, unsigned int *, unsigned int *);
	nvml_return (*mig_count)(nvml_device, unsigned int *);
	nvml_return (*mig_by_index)(nvml_device, unsigned int, nvml_device *);

	/* the process-list buffers, kept between calls: room for cap entries
	 * of struct nvml_process_v2 (the v1 entries are smaller) and of what
	 * they are read into */
	void *buf;
	struct gpu_nvml_process *out;
	unsigned int cap;
};

/* Loads the library at path and initialises NVML.  Returns the gpu_state
 * it leads to (GPU_OK, GPU_NO_LIBRARY, GPU_ERROR, never GPU_NO_DEVICES)
 * with the reason in msg when not GPU_OK. */
int gpu_nvml_open(struct gpu_nvml *n, const char *path, char *msg, size_t size);
/* Shuts NVML down and unloads it; accepts one never opened. */
void gpu_nvml_close(struct gpu_nvml *n);

/* NVML's words for an error, "Unknown Error" when it has none. */
const char *gpu_nvml_error(const struct gpu_nvml *n, nvml_return r);

/* A device's compute (or graphics) processes into *ret (n_ret entries,
 * owned by n until the next call).  A list the device does not support
 * (NVML_ERROR_NOT_SUPPORTED) is empty.  Returns NVML_SUCCESS, NVML's
 * error, NVML_ERROR_INSUFFICIENT_SIZE when the list outgrows
 * RW_GPU_PROCESSES_MAX or keeps outgrowing the buffer, or -ENOMEM. */
int gpu_nvml_processes(struct gpu_nvml *n, nvml_device d, bool graphics, struct gpu_nvml_process **ret,
		       size_t *n_ret);
