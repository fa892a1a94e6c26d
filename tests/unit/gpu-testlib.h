/* Helpers of the GPU tests (test-gpu.c, test-gpu-census.c): the stand-in
 * NVML and CUDA driver libraries (tests/gpu-standin, built in
 * $RAMWATCH_BUILD/gpu-standin), told what to answer by a script file in a
 * directory of the test's own. */
#pragma once

#include "testlib.h"

#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>

#include "census-json.h"
#include "census.h"
#include "gpu.h"
#include "limits.h"
#include "render-census.h"
#include "scan.h"

static char dir[256];

/* The path of a stand-in library. */
static inline const char *standin(const char *name)
{
	static char buf[4][512];
	static int next;
	const char *build = getenv("RAMWATCH_BUILD");
	char *b = buf[next++ % 4];
	snprintf(b, sizeof(buf[0]), "%s/gpu-standin/%s", build && *build ? build : "build", name);
	return b;
}

static inline const char *path_in_dir(const char *name)
{
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* Writes the stand-in script (printf-style) and points the stand-ins at it. */
static inline void script(const char *fmt, ...) _printf_(1, 2);

static inline void script(const char *fmt, ...)
{
	const char *path = path_in_dir("script");
	FILE *f = fopen(path, "w");
	va_list ap;
	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("RAMWATCH_STANDIN_SCRIPT", path, 1), 0);
	unlink(path_in_dir("log"));
}

/* What the stand-ins logged (init and shutdown calls), "" when nothing. */
static inline char *called(void)
{
	static char buf[4096];
	FILE *f = fopen(path_in_dir("log"), "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static inline struct gpu *open_with(const char *nvml, const char *cuda)
{
	struct gpu_options o = { .nvml_library = nvml, .cuda_library = cuda };
	struct gpu *g = NULL;
	assert_int_equal(gpu_open(&o, &g), 0);
	assert_non_null(g);
	return g;
}

static inline struct gpu *open_standin(void)
{
	return open_with(standin("libnvidia-ml.so.1"), standin("libcuda.so.1"));
}

static inline void take(struct gpu *g, struct gpu_snapshot *s)
{
	assert_int_equal(gpu_snapshot_take(g, s), 0);
}

static inline int setup(void **state)
{
	(void)state;
	if (test_dir_make(dir, sizeof(dir), "gpu") < 0)
		return -1;
	unsetenv("RAMWATCH_NVML_LIBRARY");
	unsetenv("RAMWATCH_CUDA_LIBRARY");
	return setenv("RAMWATCH_STANDIN_LOG", path_in_dir("log"), 1);
}

static inline int teardown(void **state)
{
	(void)state;
	test_dir_remove(dir);
	return 0;
}

#define A100 "GPU-11111111-2222-3333-4444-555555555555 85899345920 4294967296 NVIDIA A100-SXM4-80GB\n"
#define RTX "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee 25769803776 1073741824 NVIDIA GeForce RTX 4090\n"

