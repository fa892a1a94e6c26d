/* Loading NVML at run time and asking it for process lists.
 *
 * The library is found by name (the loader's search: the driver installs
 * libnvidia-ml.so.1 in the system's library directory, and container
 * runtimes mount it there) or by the path $RAMWATCH_NVML_LIBRARY gives.
 * Every symbol is looked up with dlsym, so a build never needs NVIDIA's
 * headers or libraries, and an NVML older than a call simply lacks it:
 *
 *   nvmlDeviceGetComputeRunningProcesses_v3 (drivers 510+), else _v2
 *   (470-510), else the unversioned call (older; its entries have no MIG
 *   instance ids), and the same for the graphics list;
 *   nvmlSystemGetCudaDriverVersion_v2, else the unversioned one;
 *   nvmlDeviceGetMigMode and the MIG device handles (drivers 450+).
 *
 * A process list is read into a buffer kept between calls: NVML answers
 * NVML_ERROR_INSUFFICIENT_SIZE with the count it needs, the buffer grows to
 * that (and a little more: processes start between two calls) and the call
 * is made again, a few times at most. */
#include "gpu-nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "limits.h"
#include "macro.h"

/* First buffer size, in entries: most GPUs run a handful of processes. */
#define PROCESSES_FIRST 32u
/* Calls of one list before giving up on a list that keeps growing. */
#define PROCESSES_ATTEMPTS 4

struct symbol {
	size_t offset;        /* of the function pointer in struct gpu_nvml */
	const char *names[3]; /* the first one the library has wins */
};

#define SYM(field, ...) { offsetof(struct gpu_nvml, field), { __VA_ARGS__ } }

static const struct symbol required[] = {
	SYM(init, "nvmlInit_v2"),
	SYM(shutdown, "nvmlShutdown"),
	SYM(error_string, "nvmlErrorString"),
	SYM(device_count, "nvmlDeviceGetCount_v2"),
	SYM(device_by_index, "nvmlDeviceGetHandleByIndex_v2"),
	SYM(device_name, "nvmlDeviceGetName"),
	SYM(device_uuid, "nvmlDeviceGetUUID"),
	SYM(device_memory, "nvmlDeviceGetMemoryInfo"),
};

static const struct symbol optional[] = {
	SYM(compute_v2, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"),
	SYM(graphics_v2, "nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"),
	SYM(cuda_version, "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"),
	SYM(mig_mode, "nvmlDeviceGetMigMode"),
	SYM(mig_count, "nvmlDeviceGetMaxMigDeviceCount"),
	SYM(mig_by_index, "nvmlDeviceGetMigDeviceHandleByIndex"),
};

/* The v1 calls, asked for only when the v2 layout's are missing. */
static const struct symbol oldest[] = {
	SYM(compute_v1, "nvmlDeviceGetComputeRunningProcesses"),
	SYM(graphics_v1, "nvmlDeviceGetGraphicsRunningProcesses"),
};

#undef SYM

/* Looks a symbol up under its names; stores it (or NULL) in its field.
 * Returns whether found.  A function pointer and a void pointer have the
 * same size and representation on every platform dlsym exists on. */
static bool resolve(struct gpu_nvml *n, const struct symbol *s)
{
	void *p = NULL;
	for (size_t i = 0; i < ELEMENTSOF(s->names) && s->names[i] && !p; i++)
		p = dlsym(n->lib, s->names[i]);
	memcpy((char *)n + s->offset, &p, sizeof(p));
	return p != NULL;
}

int gpu_nvml_open(struct gpu_nvml *n, const char *path, char *msg, size_t size)
{
	memset(n, 0, sizeof(*n));
	dlerror();
	n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib) {
		const char *why = dlerror();
		snprintf(msg, size, "cannot load NVML: %s", why ? why : path);
		return GPU_NO_LIBRARY;
	}
	for (size_t i = 0; i < ELEMENTSOF(required); i++)
		if (!resolve(n, &required[i])) {
			snprintf(msg, size, "%s lacks %s: an NVML older than this program supports", path,
				 required[i].names[0]);
			gpu_nvml_close(n);
			return GPU_ERROR;
		}
	for (size_t i = 0; i < ELEMENTSOF(optional); i++)
		resolve(n, &optional[i]);
	if (!n->compute_v2)
		resolve(n, &oldest[0]);
	if (!n->graphics_v2)
		resolve(n, &oldest[1]);
	if (!(n->mig_mode && n->mig_count && n->mig_by_index))
		n->mig_mode = NULL;

	nvml_return r = n->init();
	if (r != NVML_SUCCESS) {
		snprintf(msg, size, "NVML did not start (nvmlInit_v2): %s", gpu_nvml_error(n, r));
		gpu_nvml_close(n);
		return GPU_ERROR;
	}
	n->initialised = true;
	return GPU_OK;
}

void gpu_nvml_close(struct gpu_nvml *n)
{
	if (n->initialised)
		n->shutdown();
	if (n->lib)
		dlclose(n->lib);
	free(n->buf);
	free(n->out);
	memset(n, 0, sizeof(*n));
}

const char *gpu_nvml_error(const struct gpu_nvml *n, nvml_return r)
{
	const char *s = n->error_string ? n->error_string(r) : NULL;
	return s ? s : "Unknown Error";
}

static int grow(struct gpu_nvml *n, unsigned int want)
{
	void *buf = realloc(n->buf, (size_t)want * sizeof(struct nvml_process_v2));
	if (!buf)
		return -ENOMEM;
	n->buf = buf;
	struct gpu_nvml_process *out = realloc(n->out, (size_t)want * sizeof(*out));
	if (!out)
		return -ENOMEM;
	n->out = out;
	n->cap = want;
	return 0;
}

static uint64_t used_bytes(unsigned long long v)
{
	return v == ~0ull ? GPU_BYTES_UNKNOWN : (uint64_t)v; /* NVML_VALUE_NOT_AVAILABLE */
}

int gpu_nvml_processes(struct gpu_nvml *n, nvml_device d, bool graphics, struct gpu_nvml_process **ret,
		       size_t *n_ret)
{
	nvml_processes_v2_fn f2 = graphics ? n->graphics_v2 : n->compute_v2;
	nvml_processes_v1_fn f1 = graphics ? n->graphics_v1 : n->compute_v1;

	*ret = NULL;
	*n_ret = 0;
	if (!f2 && !f1)
		return NVML_SUCCESS; /* an NVML without the call lists nothing */
	if (!n->buf && grow(n, PROCESSES_FIRST) < 0)
		return -ENOMEM;
	for (int attempt = 0; attempt < PROCESSES_ATTEMPTS; attempt++) {
		unsigned int count = n->cap;
		nvml_return r = f2 ? f2(d, &count, n->buf) : f1(d, &count, n->buf);
		if (r == NVML_ERROR_NOT_SUPPORTED)
			return NVML_SUCCESS;
		if (r == NVML_SUCCESS) {
			if (count > n->cap)
				count = n->cap;
			for (unsigned int i = 0; i < count; i++) {
				if (f2) {
					const struct nvml_process_v2 *p = (const struct nvml_process_v2 *)n->buf + i;
					n->out[i] = (struct gpu_nvml_process){ (int)p->pid, used_bytes(p->used_gpu_memory) };
				} else {
					const struct nvml_process_v1 *p = (const struct nvml_process_v1 *)n->buf + i;
					n->out[i] = (struct gpu_nvml_process){ (int)p->pid, used_bytes(p->used_gpu_memory) };
				}
			}
			*ret = n->out;
			*n_ret = count;
			return NVML_SUCCESS;
		}
		if (r != NVML_ERROR_INSUFFICIENT_SIZE)
			return r;
		if (n->cap >= RW_GPU_PROCESSES_MAX)
			return NVML_ERROR_INSUFFICIENT_SIZE;
		/* count is what NVML needs now; leave room for a few more */
		unsigned int base = count > n->cap ? count : n->cap;
		uint64_t want = (uint64_t)base + base / 4 + 16;
		if (want > RW_GPU_PROCESSES_MAX)
			want = RW_GPU_PROCESSES_MAX;
		if (grow(n, (unsigned int)want) < 0)
			return -ENOMEM;
	}
	return NVML_ERROR_INSUFFICIENT_SIZE;
}
