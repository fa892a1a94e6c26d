/* The CUDA driver API (libcuda.so.1), loaded at run time with our own
 * prototypes, for what needs no CUDA context: the driver's CUDA version
 * and, when NVML is missing, the list of devices.  Internal to the
 * scanner. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct gpu_device;

struct gpu_cuda {
	void *lib;
	bool initialised;           /* cuInit ran */
	int driver_version;         /* cuDriverGetVersion: 12040 for 12.4; 0 when unknown */
	struct gpu_device *devices; /* with list_devices: from cuDeviceGet* */
	size_t n_devices;
	char message[160];          /* why there is no version or no list */
};

/* Loads the library at path and asks it for the driver version and, with
 * list_devices, for the devices (cuInit(0) first: it creates no context).
 * A library that cannot be loaded or answers errors leaves the fields
 * empty and says why in message.  Returns 0 or -ENOMEM. */
int gpu_cuda_probe(struct gpu_cuda *c, const char *path, bool list_devices);
/* Frees the device list.  The library stays loaded once cuInit has run:
 * the driver may have started threads that run its code. */
void gpu_cuda_done(struct gpu_cuda *c);
