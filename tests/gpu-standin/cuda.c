/* A stand-in for the CUDA driver API (libcuda.so.1), a test fixture only:
 * the context-free calls ramwatch makes, with the driver's signatures,
 * answering from the same script as the NVML stand-in (script.h): its
 * "device" lines are the devices. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "script.h"

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
};

typedef int CUdevice;
typedef struct {
	char bytes[16];
} CUuuid;

int cuDriverGetVersion(int *version);
int cuInit(unsigned int flags);
int cuDeviceGetCount(int *count);
int cuDeviceGet(CUdevice *device, int ordinal);
int cuDeviceGetName(char *name, int length, CUdevice device);
int cuDeviceTotalMem_v2(size_t *bytes, CUdevice device);
int cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice device);

static struct standin_script script;
static int initialised;

int cuDriverGetVersion(int *version)
{
	struct standin_script s = { 0 };
	int r;
	standin_log("cuDriverGetVersion");
	if (standin_load(&s) < 0)
		return CUDA_ERROR_INVALID_VALUE;
	r = standin_fail(&s, "cuDriverGetVersion");
	if (r == 0)
		*version = s.cuda_version;
	standin_free(&s);
	return r;
}

int cuInit(unsigned int flags)
{
	int r;
	standin_log("cuInit");
	if (flags != 0 || standin_load(&script) < 0)
		return CUDA_ERROR_INVALID_VALUE;
	if ((r = standin_fail(&script, "cuInit")) != 0)
		return r;
	if (script.n_gpus == 0)
		return CUDA_ERROR_NO_DEVICE;
	initialised = 1;
	return CUDA_SUCCESS;
}

static int device_ok(CUdevice device)
{
	if (!initialised)
		return CUDA_ERROR_NOT_INITIALIZED;
	return device < 0 || (size_t)device >= script.n_gpus ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

int cuDeviceGetCount(int *count)
{
	if (!initialised)
		return CUDA_ERROR_NOT_INITIALIZED;
	*count = (int)script.n_gpus;
	return CUDA_SUCCESS;
}

int cuDeviceGet(CUdevice *device, int ordinal)
{
	int r = device_ok(ordinal);
	if (r == CUDA_SUCCESS)
		*device = ordinal;
	return r;
}

int cuDeviceGetName(char *name, int length, CUdevice device)
{
	int r = device_ok(device);
	if (r == CUDA_SUCCESS)
		snprintf(name, (size_t)length, "%s", script.devices[device].name);
	return r;
}

int cuDeviceTotalMem_v2(size_t *bytes, CUdevice device)
{
	int r = device_ok(device);
	if (r == CUDA_SUCCESS)
		*bytes = (size_t)script.devices[device].total;
	return r;
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The script's "GPU-8-4-4-4-12" UUID as its 16 bytes. */
int cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice device)
{
	int r = device_ok(device);
	const char *p;
	if (r)
		return r;
	p = script.devices[device].uuid;
	if (strncmp(p, "GPU-", 4) == 0)
		p += 4;
	memset(uuid, 0, sizeof(*uuid));
	for (int i = 0; i < 16 && p[0] && p[1];) {
		if (*p == '-') {
			p++;
			continue;
		}
		if (hex(p[0]) < 0 || hex(p[1]) < 0)
			break;
		uuid->bytes[i++] = (char)(hex(p[0]) << 4 | hex(p[1]));
		p += 2;
	}
	return CUDA_SUCCESS;
}
