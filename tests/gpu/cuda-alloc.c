/* A CUDA process of known shape, for tests/gpu/check.sh on a host with an
 * NVIDIA GPU: through the CUDA driver API, loaded at run time with its own
 * prototypes (no CUDA headers or toolkit), it makes the device's primary
 * context current, then allocates known amounts of
 *   device memory   (cuMemAlloc),
 *   pinned memory   (cuMemHostAlloc, every page touched),
 *   managed memory  (cuMemAllocManaged, every page touched from the host),
 * so that a census can be checked against them.
 *
 *   cuda-alloc VRAM_MIB PINNED_MIB MANAGED_MIB
 *
 * It speaks on its standard streams, a line at a time: it prints
 * "context" once the context exists and waits for a line (so the context's
 * own cost can be measured first); then allocates and prints
 *   vram ADDRESS BYTES
 *   pinned ADDRESS BYTES
 *   managed ADDRESS BYTES
 *   ready
 * and waits for its standard input to close before it exits.  Errors go
 * to standard error with exit status 1; no GPU or no driver, status 2.
 * $RAMWATCH_CUDA_LIBRARY names the library instead of libcuda.so.1. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;               /* CUresult */
typedef int cu_device;               /* CUdevice */
typedef struct cu_context *cu_context; /* CUcontext */
typedef unsigned long long cu_deviceptr; /* CUdeviceptr (64-bit since CUDA 3.2) */

#define CU_MEM_ATTACH_GLOBAL 1u
#define CUDA_ERROR_NO_DEVICE 100

static struct {
	cu_result (*init)(unsigned int);
	cu_result (*device_get)(cu_device *, int);
	cu_result (*primary_retain)(cu_context *, cu_device);
	cu_result (*set_current)(cu_context);
	cu_result (*mem_alloc)(cu_deviceptr *, size_t);
	cu_result (*host_alloc)(void **, size_t, unsigned int);
	cu_result (*managed_alloc)(cu_deviceptr *, size_t, unsigned int);
	cu_result (*error_string)(cu_result, const char **);
} cu;

static void *lib;

static void *need(const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "cuda-alloc: the CUDA driver has no %s\n", name);
		exit(1);
	}
	return p;
}

static void check(cu_result r, const char *call)
{
	const char *s = NULL;
	if (r == 0)
		return;
	if (cu.error_string)
		cu.error_string(r, &s);
	fprintf(stderr, "cuda-alloc: %s: error %d (%s)\n", call, r, s ? s : "?");
	exit(r == CUDA_ERROR_NO_DEVICE ? 2 : 1);
}

static size_t mib(const char *arg)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (*end || v == 0 || v > (1ull << 20)) {
		fprintf(stderr, "cuda-alloc: '%s' is not a size in MiB\n", arg);
		exit(1);
	}
	return (size_t)v << 20;
}

static void wait_line(void)
{
	char line[64];
	if (!fgets(line, sizeof(line), stdin))
		exit(0);
}

int main(int argc, char **argv)
{
	const char *path = getenv("RAMWATCH_CUDA_LIBRARY");
	cu_device dev;
	cu_context ctx;
	cu_deviceptr vram, managed;
	void *pinned;

	if (argc != 4) {
		fprintf(stderr, "usage: cuda-alloc VRAM_MIB PINNED_MIB MANAGED_MIB\n");
		return 1;
	}
	size_t vram_bytes = mib(argv[1]), pinned_bytes = mib(argv[2]), managed_bytes = mib(argv[3]);

	lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "cuda-alloc: %s\n", dlerror());
		return 2;
	}
	/* dlsym's void * into function pointers: the same representation on
	 * every platform with dlsym */
	void *p;
	p = need("cuInit"), memcpy(&cu.init, &p, sizeof(p));
	p = need("cuDeviceGet"), memcpy(&cu.device_get, &p, sizeof(p));
	p = need("cuDevicePrimaryCtxRetain"), memcpy(&cu.primary_retain, &p, sizeof(p));
	p = need("cuCtxSetCurrent"), memcpy(&cu.set_current, &p, sizeof(p));
	p = need("cuMemAlloc_v2"), memcpy(&cu.mem_alloc, &p, sizeof(p));
	p = need("cuMemHostAlloc"), memcpy(&cu.host_alloc, &p, sizeof(p));
	p = need("cuMemAllocManaged"), memcpy(&cu.managed_alloc, &p, sizeof(p));
	p = dlsym(lib, "cuGetErrorString"), memcpy(&cu.error_string, &p, sizeof(p));

	check(cu.init(0), "cuInit");
	check(cu.device_get(&dev, 0), "cuDeviceGet");
	check(cu.primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	check(cu.set_current(ctx), "cuCtxSetCurrent");
	printf("context\n");
	fflush(stdout);
	wait_line();

	check(cu.mem_alloc(&vram, vram_bytes), "cuMemAlloc_v2");
	check(cu.host_alloc(&pinned, pinned_bytes, 0), "cuMemHostAlloc");
	memset(pinned, 0x5a, pinned_bytes);
	check(cu.managed_alloc(&managed, managed_bytes, CU_MEM_ATTACH_GLOBAL), "cuMemAllocManaged");
	memset((void *)(uintptr_t)managed, 0xa5, managed_bytes);

	printf("vram 0x%llx %zu\n", vram, vram_bytes);
	printf("pinned 0x%llx %zu\n", (unsigned long long)(uintptr_t)pinned, pinned_bytes);
	printf("managed 0x%llx %zu\n", managed, managed_bytes);
	printf("ready\n");
	fflush(stdout);
	while (fgetc(stdin) != EOF)
		;
	return 0;
}
