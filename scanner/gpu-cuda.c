/* The CUDA driver API without a context.
 *
 * Only calls documented to need no context are made: cuDriverGetVersion
 * (not even cuInit), then cuInit(0), cuDeviceGetCount, cuDeviceGet,
 * cuDeviceGetName, cuDeviceTotalMem_v2, cuDeviceGetUuid_v2.  A context
 * would take device memory and put this process in the GPU's process
 * list, among the processes it reports on.
 *
 * What it adds to NVML: the driver's CUDA version when NVML lacks
 * nvmlSystemGetCudaDriverVersion, and the devices (name, UUID, memory
 * size) on a host where NVML cannot be loaded or will not start but the
 * CUDA driver can; there, which process uses how much of them stays
 * unknown. */
#include "gpu-cuda.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "limits.h"

typedef int cu_result; /* CUresult: CUDA_SUCCESS is 0 */
typedef int cu_device; /* CUdevice */

/* CUuuid */
struct cu_uuid {
	unsigned char bytes[16];
};

static void *symbol(void *lib, const char *name)
{
	return dlsym(lib, name);
}

/* "GPU-" and the UUID's 16 bytes as 8-4-4-4-12 hex digits: what NVML and
 * nvidia-smi print. */
static void format_uuid(const struct cu_uuid *u, char *buf, size_t size)
{
	const unsigned char *b = u->bytes;
	snprintf(buf, size,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
}

static int list_devices(struct gpu_cuda *c)
{
	cu_result (*init)(unsigned int);
	cu_result (*count)(int *);
	cu_result (*get)(cu_device *, int);
	cu_result (*name)(char *, int, cu_device);
	cu_result (*total)(size_t *, cu_device);
	cu_result (*uuid)(struct cu_uuid *, cu_device);
	void *p[6] = {
		symbol(c->lib, "cuInit"),	     symbol(c->lib, "cuDeviceGetCount"),
		symbol(c->lib, "cuDeviceGet"),	     symbol(c->lib, "cuDeviceGetName"),
		symbol(c->lib, "cuDeviceTotalMem_v2"), symbol(c->lib, "cuDeviceGetUuid_v2"),
	};
	for (size_t i = 0; i < 6; i++)
		if (!p[i]) {
			snprintf(c->message, sizeof(c->message), "the CUDA driver lacks a device call");
			return 0;
		}
	memcpy(&init, &p[0], sizeof(init));
	memcpy(&count, &p[1], sizeof(count));
	memcpy(&get, &p[2], sizeof(get));
	memcpy(&name, &p[3], sizeof(name));
	memcpy(&total, &p[4], sizeof(total));
	memcpy(&uuid, &p[5], sizeof(uuid));

	cu_result r = init(0);
	c->initialised = true;
	if (r != 0) {
		/* 100 is CUDA_ERROR_NO_DEVICE */
		snprintf(c->message, sizeof(c->message), "%s (cuInit: error %d)",
			 r == 100 ? "the CUDA driver sees no device" : "the CUDA driver did not start", r);
		return 0;
	}
	int n = 0;
	if (count(&n) != 0 || n < 0)
		n = 0;
	if ((unsigned)n > RW_GPU_DEVICES_MAX)
		n = RW_GPU_DEVICES_MAX;
	c->devices = calloc((size_t)n + 1, sizeof(*c->devices));
	if (!c->devices)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct gpu_device *d = &c->devices[c->n_devices];
		cu_device dev;
		size_t bytes = 0;
		struct cu_uuid u;
		if (get(&dev, i) != 0)
			continue;
		d->index = (unsigned)i;
		d->parent = -1;
		d->present = true;
		if (name(d->name, (int)sizeof(d->name), dev) != 0)
			d->name[0] = '\0';
		d->name[sizeof(d->name) - 1] = '\0';
		if (uuid(&u, dev) == 0)
			format_uuid(&u, d->uuid, sizeof(d->uuid));
		if (total(&bytes, dev) == 0)
			d->total = bytes;
		d->used = d->free = GPU_BYTES_UNKNOWN;
		c->n_devices++;
	}
	return 0;
}

int gpu_cuda_probe(struct gpu_cuda *c, const char *path, bool want_devices)
{
	memset(c, 0, sizeof(*c));
	dlerror();
	c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		const char *why = dlerror();
		snprintf(c->message, sizeof(c->message), "cannot load the CUDA driver: %s", why ? why : path);
		return 0;
	}
	cu_result (*version)(int *);
	void *p = symbol(c->lib, "cuDriverGetVersion");
	memcpy(&version, &p, sizeof(version));
	if (p && version(&c->driver_version) != 0)
		c->driver_version = 0;

	int r = want_devices ? list_devices(c) : 0;
	/* after cuInit the driver's threads may be running its code: it stays */
	if (!c->initialised) {
		dlclose(c->lib);
		c->lib = NULL;
	}
	return r;
}

void gpu_cuda_done(struct gpu_cuda *c)
{
	free(c->devices);
	c->devices = NULL;
	c->n_devices = 0;
}
