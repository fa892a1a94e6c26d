/* NVML and the CUDA driver are loaded by name with dlopen on Linux; this
 * build does not load them (nvml.dll and nvcuda.dll are not looked for),
 * so gpu.c, shared for the census's GPU section and its JSON, sees no
 * library and says so. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gpu-cuda.h"
#include "gpu-nvml.h"
#include "gpu.h"

int gpu_nvml_open(struct gpu_nvml *n, const char *path, char *msg, size_t size)
{
	(void)n, (void)path;
	snprintf(msg, size, "the Windows build does not read NVML");
	return GPU_NO_LIBRARY;
}

void gpu_nvml_close(struct gpu_nvml *n)
{
	(void)n;
}

const char *gpu_nvml_error(const struct gpu_nvml *n, nvml_return r)
{
	(void)n, (void)r;
	return "Unknown Error";
}

int gpu_nvml_processes(struct gpu_nvml *n, nvml_device d, bool graphics, struct gpu_nvml_process **ret,
		       size_t *n_ret)
{
	(void)n, (void)d, (void)graphics;
	*ret = NULL;
	*n_ret = 0;
	return -ENOSYS;
}

int gpu_cuda_probe(struct gpu_cuda *c, const char *path, bool list_devices)
{
	(void)path, (void)list_devices;
	snprintf(c->message, sizeof(c->message), "the Windows build does not load the CUDA driver");
	return 0;
}

void gpu_cuda_done(struct gpu_cuda *c)
{
	(void)c;
}
