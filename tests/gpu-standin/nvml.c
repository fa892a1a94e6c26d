/* A stand-in for NVML (libnvidia-ml.so.1), a test fixture only: it exports
 * the calls ramwatch makes, with NVML's signatures, and answers from a
 * script (script.h) instead of a GPU.
 *
 * Built three ways: whole; without the _v3 process-list calls
 * (-DSTANDIN_NO_V3, an NVML of drivers 470-510); with the unversioned
 * calls only (-DSTANDIN_V1_ONLY, older, whose entries have no MIG ids). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "script.h"

enum {
	SUCCESS = 0,
	UNINITIALIZED = 1,
	INVALID_ARGUMENT = 2,
	NOT_SUPPORTED = 3,
	NO_PERMISSION = 4,
	NOT_FOUND = 6,
	INSUFFICIENT_SIZE = 7,
	GPU_IS_LOST = 15,
};

typedef struct standin_device *nvmlDevice_t;

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;

typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

/* the exported calls */
int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int r);
int nvmlDeviceGetCount_v2(unsigned int *count);
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
int nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
int nvmlSystemGetCudaDriverVersion_v2(int *version);
int nvmlSystemGetCudaDriverVersion(int *version);
int nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending);
int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig);
int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos);
int nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos);
#if !defined(STANDIN_V1_ONLY)
int nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos);
int nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos);
#endif
#if !defined(STANDIN_V1_ONLY) && !defined(STANDIN_NO_V3)
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos);
int nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos);
#endif

static struct standin_script script;
static int initialised;

/* The answer every device call starts with: the script's failure for the
 * function, NVML not started, or the device lost. */
static int check(const char *function, const struct standin_device *d)
{
	int r = standin_fail(&script, function);
	if (r)
		return r;
	if (!initialised)
		return UNINITIALIZED;
	if (d && standin_lost(&script, d))
		return GPU_IS_LOST;
	return SUCCESS;
}

int nvmlInit_v2(void)
{
	standin_log("nvmlInit_v2");
	if (standin_load(&script) < 0)
		return 999;
	if (script.init_delay_ms)
		nanosleep(&(struct timespec){ .tv_sec = script.init_delay_ms / 1000,
					      .tv_nsec = (long)(script.init_delay_ms % 1000) * 1000000L },
			  NULL);
	int r = standin_fail(&script, "nvmlInit_v2");
	if (r)
		return r;
	initialised = 1;
	return SUCCESS;
}

int nvmlShutdown(void)
{
	standin_log("nvmlShutdown");
	initialised = 0;
	standin_free(&script);
	return SUCCESS;
}

const char *nvmlErrorString(int r)
{
	switch (r) {
	case SUCCESS: return "Success";
	case UNINITIALIZED: return "Uninitialized";
	case INVALID_ARGUMENT: return "Invalid Argument";
	case NOT_SUPPORTED: return "Not Supported";
	case NO_PERMISSION: return "Insufficient Permissions";
	case NOT_FOUND: return "Not Found";
	case INSUFFICIENT_SIZE: return "Insufficient Size";
	case 9: return "Driver Not Loaded";
	case GPU_IS_LOST: return "GPU is lost";
	default: return "Unknown Error";
	}
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
	int r = check("nvmlDeviceGetCount_v2", NULL);
	if (r == SUCCESS)
		*count = (unsigned int)script.n_gpus;
	return r;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	/* a snapshot starts here: a script changed since is read again (the
	 * handles stay valid: they point into the script's fixed array) */
	if (index == 0 && initialised && standin_reload(&script) < 0)
		return 999;
	int r = check("nvmlDeviceGetHandleByIndex_v2", NULL);
	if (r)
		return r;
	if (index >= script.n_gpus)
		return INVALID_ARGUMENT;
	if (standin_lost(&script, &script.devices[index]))
		return GPU_IS_LOST;
	*device = &script.devices[index];
	return SUCCESS;
}

static int copy_string(const char *s, char *buf, unsigned int length)
{
	if (strlen(s) + 1 > length)
		return INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return SUCCESS;
}

int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	int r = check("nvmlDeviceGetName", device);
	return r ? r : copy_string(device->name, name, length);
}

int nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	int r = check("nvmlDeviceGetUUID", device);
	return r ? r : copy_string(device->uuid, uuid, length);
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	if (device->parent < 0)
		device->memory_calls++;
	int r = check("nvmlDeviceGetMemoryInfo", device);
	if (r)
		return r;
	memory->total = device->total;
	memory->used = device->used;
	memory->free = device->total - device->used;
	return SUCCESS;
}

int nvmlSystemGetCudaDriverVersion_v2(int *version)
{
	int r = check("nvmlSystemGetCudaDriverVersion_v2", NULL);
	if (r == SUCCESS)
		*version = script.cuda_version;
	return r;
}

int nvmlSystemGetCudaDriverVersion(int *version)
{
	return nvmlSystemGetCudaDriverVersion_v2(version);
}

static unsigned int mig_count(const struct standin_device *gpu)
{
	unsigned int n = 0;
	for (size_t i = script.n_gpus; i < script.n_devices; i++)
		n += &script.devices[script.devices[i].parent] == gpu;
	return n;
}

int nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
	int r = check("nvmlDeviceGetMigMode", device);
	if (r)
		return r;
	if (device->parent >= 0 || mig_count(device) == 0)
		return NOT_SUPPORTED;
	*current = *pending = 1;
	return SUCCESS;
}

/* Seven slots, as on an A100, of which the script fills the first ones
 * (or as many slots as the script has instances, when more). */
int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
	int r = check("nvmlDeviceGetMaxMigDeviceCount", device);
	unsigned int n = mig_count(device);
	if (r == SUCCESS)
		*count = n == 0 ? 0 : n > 7 ? n : 7;
	return r;
}

int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig)
{
	int r = check("nvmlDeviceGetMigDeviceHandleByIndex", device);
	if (r)
		return r;
	for (size_t i = script.n_gpus; i < script.n_devices; i++)
		if (&script.devices[script.devices[i].parent] == device && index-- == 0) {
			*mig = &script.devices[i];
			return SUCCESS;
		}
	return NOT_FOUND;
}

/* A device's list, in either layout.  A GPU in MIG mode answers only to
 * privileged callers (NVML's documented behaviour): here, never. */
static int list(const char *function, nvmlDevice_t device, unsigned int *count, void *infos, int graphics, int v1)
{
	standin_log(function);
	int r = check(function, device);
	unsigned int n = 0;
	if (r)
		return r;
	if (device->parent < 0 && mig_count(device) > 0)
		return NO_PERMISSION;
	for (size_t i = 0; i < script.n_processes; i++)
		n += &script.devices[script.processes[i].device] == device && script.processes[i].graphics == graphics;
	if (script.insufficient > 0) {
		script.insufficient--;
		*count = n > *count ? n : *count + 1;
		return INSUFFICIENT_SIZE;
	}
	if (n > *count) {
		*count = n;
		return INSUFFICIENT_SIZE;
	}
	n = 0;
	for (size_t i = 0; i < script.n_processes; i++) {
		const struct standin_process *p = &script.processes[i];
		if (&script.devices[p->device] != device || p->graphics != graphics)
			continue;
		if (v1)
			((nvmlProcessInfo_v1_t *)infos)[n++] = (nvmlProcessInfo_v1_t){ p->pid, p->used };
		else
			((nvmlProcessInfo_t *)infos)[n++] = (nvmlProcessInfo_t){ p->pid, p->used, 0xffffffffu, 0xffffffffu };
	}
	*count = n;
	return SUCCESS;
}

int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos)
{
	return list("nvmlDeviceGetComputeRunningProcesses", device, count, infos, 0, 1);
}

int nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_v1_t *infos)
{
	return list("nvmlDeviceGetGraphicsRunningProcesses", device, count, infos, 1, 1);
}

#if !defined(STANDIN_V1_ONLY)
int nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos)
{
	return list("nvmlDeviceGetComputeRunningProcesses_v2", device, count, infos, 0, 0);
}

int nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos)
{
	return list("nvmlDeviceGetGraphicsRunningProcesses_v2", device, count, infos, 1, 0);
}
#endif

#if !defined(STANDIN_V1_ONLY) && !defined(STANDIN_NO_V3)
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos)
{
	return list("nvmlDeviceGetComputeRunningProcesses_v3", device, count, infos, 0, 0);
}

int nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos)
{
	return list("nvmlDeviceGetGraphicsRunningProcesses_v3", device, count, infos, 1, 0);
}
#endif
