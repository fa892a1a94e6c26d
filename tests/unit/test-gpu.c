/* The GPU module against the stand-in NVML and CUDA driver libraries
 * (tests/gpu-standin, built in $RAMWATCH_BUILD/gpu-standin): devices and
 * uses, errors, a device that vanishes, the fallbacks, MIG, the limits.
 * The census's GPU section is tested in test-gpu-census.c. */
#include "gpu-testlib.h"

#include <dirent.h>
#include <sched.h>
#include "util.h"

static void test_devices_and_uses(void **state)
{
	(void)state;
	script("device " A100 "device " RTX
	       "compute 0 300 1073741824\n"
	       "compute 1 100 2147483648\n"
	       "graphics 0 100 na\n"
	       "graphics 1 200 5242880\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	const char *msg = "x";
	size_t n;

	assert_int_equal(gpu_get_state(g, &msg), GPU_OK);
	assert_null(msg);
	take(g, &s);
	assert_int_equal(s.state, GPU_OK);
	assert_string_equal(s.message, "");
	assert_true(s.time_ms > 0);
	assert_int_equal(s.driver_version, 12040);
	assert_int_equal(s.n_devices, 2);
	assert_int_equal(s.devices[0].index, 0);
	assert_string_equal(s.devices[0].name, "NVIDIA A100-SXM4-80GB");
	assert_string_equal(s.devices[0].uuid, "GPU-11111111-2222-3333-4444-555555555555");
	assert_true(s.devices[0].total == 80 * GiB && s.devices[0].used == 4 * GiB && s.devices[0].free == 76 * GiB);
	assert_true(s.devices[0].present);
	assert_int_equal(s.devices[0].parent, -1);
	assert_int_equal(s.devices[1].index, 1);
	assert_string_equal(s.devices[1].name, "NVIDIA GeForce RTX 4090");

	/* sorted by pid, then device */
	assert_int_equal(s.n_uses, 4);
	assert_int_equal(s.uses[0].pid, 100);
	assert_int_equal(s.uses[0].device, 0);
	assert_true(s.uses[0].graphics);
	assert_true(s.uses[0].used == GPU_BYTES_UNKNOWN);
	assert_int_equal(s.uses[1].pid, 100);
	assert_int_equal(s.uses[1].device, 1);
	assert_false(s.uses[1].graphics);
	assert_true(s.uses[1].used == 2 * GiB);
	assert_int_equal(s.uses[2].pid, 200);
	assert_int_equal(s.uses[3].pid, 300);
	assert_true(s.uses[3].used == 1 * GiB);

	const struct gpu_use *u = gpu_snapshot_find(&s, 100, &n);
	assert_int_equal(n, 2);
	assert_ptr_equal(u, &s.uses[0]);
	u = gpu_snapshot_find(&s, 300, &n);
	assert_int_equal(n, 1);
	assert_int_equal(u->pid, 300);
	assert_null(gpu_snapshot_find(&s, 150, &n));
	assert_int_equal(n, 0);
	assert_null(gpu_snapshot_find(&s, 999, &n));
	assert_int_equal(n, 0);
	gpu_snapshot_done(&s);

	/* NVML answered everything: the CUDA driver was never loaded */
	assert_null(strstr(called(), "cuInit"));
	assert_null(strstr(called(), "cuDriverGetVersion"));
	assert_null(gpu_close(g));
	assert_non_null(strstr(called(), "nvmlShutdown"));
}

/* nvidia-smi's "C+G": one use, as compute, with the figure known. */
static void test_compute_and_graphics_merged(void **state)
{
	(void)state;
	script("device " A100 "graphics 0 42 1048576\ncompute 0 42 na\ncompute 0 43 10\ngraphics 0 43 20\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	take(g, &s);
	assert_int_equal(s.n_uses, 2);
	assert_int_equal(s.uses[0].pid, 42);
	assert_false(s.uses[0].graphics);
	assert_true(s.uses[0].used == 1 * MiB);
	assert_int_equal(s.uses[1].pid, 43);
	assert_true(s.uses[1].used == 20);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

static void test_no_library(void **state)
{
	(void)state;
	script("device " A100);
	struct gpu *g = open_with("/nonexistent/libnvidia-ml.so.1", "/nonexistent/libcuda.so.1");
	struct gpu_snapshot s;
	const char *msg = NULL;

	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	assert_non_null(strstr(msg, "cannot load NVML"));
	take(g, &s);
	assert_int_equal(s.state, GPU_NO_LIBRARY);
	assert_non_null(strstr(s.message, "/nonexistent/libnvidia-ml.so.1"));
	assert_int_equal(s.n_devices, 0);
	assert_int_equal(s.n_uses, 0);
	assert_int_equal(s.driver_version, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* the variable names the library when the option does not */
	assert_int_equal(setenv("RAMWATCH_NVML_LIBRARY", "/nonexistent/nvml.so", 1), 0);
	assert_int_equal(setenv("RAMWATCH_CUDA_LIBRARY", "/nonexistent/cuda.so", 1), 0);
	g = open_with(NULL, NULL);
	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	assert_non_null(strstr(msg, "/nonexistent/nvml.so"));
	gpu_close(g);
	assert_int_equal(setenv("RAMWATCH_NVML_LIBRARY", standin("libnvidia-ml.so.1"), 1), 0);
	g = open_with(NULL, NULL);
	assert_int_equal(gpu_get_state(g, NULL), GPU_OK);
	gpu_close(g);
	unsetenv("RAMWATCH_NVML_LIBRARY");
	unsetenv("RAMWATCH_CUDA_LIBRARY");
}

/* How many threads this process has besides the caller; *ret_tid (when
 * given) one of them. */
static int other_threads(pid_t *ret_tid)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != gettid()) {
			if (ret_tid)
				*ret_tid = atoi(e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

/* Without a driver device and without a library named, the libraries are
 * not looked for, and the state says why; a library named is loaded
 * whatever the devices. */
static void test_no_driver_device(void **state)
{
	(void)state;
	static const char *const absent[] = { "/nonexistent/nvidiactl", "/nonexistent/dxg", NULL };
	static const char *const present[] = { "/nonexistent/nvidiactl", "/dev/null", NULL };
	struct gpu_options none = { .driver_devices = absent };
	struct gpu *g = NULL;
	struct gpu_snapshot s;
	const char *msg = NULL;

	unsetenv("RAMWATCH_NVML_LIBRARY");
	unsetenv("RAMWATCH_CUDA_LIBRARY");
	script("device " A100 "compute 0 300 1073741824\n");
	assert_int_equal(gpu_open(&none, &g), 0);
	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	assert_string_equal(msg, "none of /nonexistent/nvidiactl, /nonexistent/dxg exists; NVML not looked for");
	take(g, &s);
	assert_int_equal(s.state, GPU_NO_LIBRARY);
	assert_int_equal(s.n_devices, 0);
	assert_int_equal(s.driver_version, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* nothing to load: no thread either */
	assert_int_equal(gpu_open_background(&none, &g), 0);
	assert_int_equal(other_threads(NULL), 0);
	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	assert_non_null(strstr(msg, "not looked for"));
	gpu_close(g);

	/* one device present: the default names are looked for (a host
	 * with NVML installed may load it; none says it was not looked for) */
	struct gpu_options some = { .driver_devices = present };
	assert_int_equal(gpu_open(&some, &g), 0);
	if (gpu_get_state(g, &msg) != GPU_OK)
		assert_null(strstr(msg, "not looked for"));
	gpu_close(g);

	/* a library named, by option or by the environment: loaded anyway */
	struct gpu_options named = { .nvml_library = standin("libnvidia-ml.so.1"), .driver_devices = absent };
	assert_int_equal(gpu_open(&named, &g), 0);
	assert_int_equal(gpu_get_state(g, NULL), GPU_OK);
	gpu_close(g);
	assert_int_equal(setenv("RAMWATCH_CUDA_LIBRARY", standin("libcuda.so.1"), 1), 0);
	assert_int_equal(gpu_open(&none, &g), 0);
	take(g, &s);
	assert_int_equal(s.state, GPU_NO_LIBRARY); /* NVML not found, the CUDA driver was asked */
	assert_null(strstr(s.message, "not looked for"));
	assert_int_equal(s.n_devices, 1);
	gpu_snapshot_done(&s);
	gpu_close(g);
	unsetenv("RAMWATCH_CUDA_LIBRARY");
}

/* Without NVML the CUDA driver still lists the devices; who uses them is
 * not known. */
static void test_no_nvml_cuda_lists_devices(void **state)
{
	(void)state;
	script("device " A100 "device " RTX "compute 0 100 1\ncuda-version 11080\n");
	struct gpu *g = open_with("/nonexistent/libnvidia-ml.so.1", standin("libcuda.so.1"));
	struct gpu_snapshot s;
	const char *msg = NULL;

	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	assert_non_null(strstr(msg, "the CUDA driver lists 2 devices"));
	take(g, &s);
	assert_int_equal(s.driver_version, 11080);
	assert_int_equal(s.n_devices, 2);
	assert_string_equal(s.devices[0].uuid, "GPU-11111111-2222-3333-4444-555555555555");
	assert_string_equal(s.devices[1].uuid, "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
	assert_string_equal(s.devices[1].name, "NVIDIA GeForce RTX 4090");
	assert_true(s.devices[0].total == 80 * GiB);
	assert_true(s.devices[0].used == GPU_BYTES_UNKNOWN && s.devices[0].free == GPU_BYTES_UNKNOWN);
	assert_true(s.devices[0].present);
	assert_int_equal(s.n_uses, 0);
	assert_non_null(strstr(called(), "cuInit"));
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* the CUDA driver with no device says so */
	script("cuda-version 12000\n");
	g = open_with("/nonexistent/libnvidia-ml.so.1", standin("libcuda.so.1"));
	take(g, &s);
	assert_int_equal(s.n_devices, 0);
	assert_int_equal(s.driver_version, 12000);
	assert_null(strstr(s.message, "lists"));
	gpu_snapshot_done(&s);
	gpu_close(g);
}

static void test_no_devices(void **state)
{
	(void)state;
	script("# nothing\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	const char *msg = NULL;

	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_DEVICES);
	assert_string_equal(msg, "NVML sees no NVIDIA GPU");
	/* NVML is shut down at once, and the driver API is not started */
	assert_non_null(strstr(called(), "nvmlShutdown"));
	assert_null(strstr(called(), "cuInit"));
	take(g, &s);
	assert_int_equal(s.state, GPU_NO_DEVICES);
	assert_int_equal(s.n_devices, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

static void test_errors(void **state)
{
	(void)state;
	const char *msg = NULL;

	script("device " A100 "fail nvmlInit_v2 9\n");
	struct gpu *g = open_with(standin("libnvidia-ml.so.1"), "/nonexistent/libcuda.so.1");
	assert_int_equal(gpu_get_state(g, &msg), GPU_ERROR);
	assert_non_null(strstr(msg, "Driver Not Loaded"));
	gpu_close(g);

	script("device " A100 "fail nvmlDeviceGetCount_v2 999\n");
	g = open_with(standin("libnvidia-ml.so.1"), "/nonexistent/libcuda.so.1");
	assert_int_equal(gpu_get_state(g, &msg), GPU_ERROR);
	assert_non_null(strstr(msg, "nvmlDeviceGetCount_v2"));
	assert_non_null(strstr(msg, "Unknown Error"));
	gpu_close(g);

	/* an error of one call on every device: the devices are listed, not present */
	script("device " A100 "compute 0 1 1\nfail nvmlDeviceGetComputeRunningProcesses_v3 4\n");
	g = open_standin();
	struct gpu_snapshot s;
	take(g, &s);
	assert_int_equal(s.state, GPU_OK);
	assert_int_equal(s.n_devices, 1);
	assert_false(s.devices[0].present);
	assert_non_null(strstr(s.devices[0].error, "Insufficient Permissions"));
	assert_string_equal(s.devices[0].name, "NVIDIA A100-SXM4-80GB");
	assert_int_equal(s.n_uses, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* a graphics list the device does not support is empty, not an error */
	script("device " A100 "compute 0 7 1\nfail nvmlDeviceGetGraphicsRunningProcesses_v3 3\n");
	g = open_standin();
	take(g, &s);
	assert_true(s.devices[0].present);
	assert_int_equal(s.n_uses, 1);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* A device that falls off the bus: listed, not present, its uses gone;
 * the other device unaffected; its name kept. */
static void test_vanishing_device(void **state)
{
	(void)state;
	script("device " A100 "device " RTX "lost 1 1\ncompute 0 10 100\ncompute 1 11 200\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	size_t n;

	take(g, &s);
	assert_int_equal(s.n_devices, 2);
	assert_true(s.devices[1].present);
	assert_int_equal(s.n_uses, 2);
	gpu_snapshot_done(&s);

	for (int round = 0; round < 2; round++) {
		take(g, &s);
		assert_int_equal(s.state, GPU_OK);
		assert_int_equal(s.n_devices, 2);
		assert_true(s.devices[0].present);
		assert_false(s.devices[1].present);
		assert_non_null(strstr(s.devices[1].error, "GPU is lost"));
		assert_string_equal(s.devices[1].name, "NVIDIA GeForce RTX 4090");
		assert_string_equal(s.devices[1].uuid, "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
		assert_true(s.devices[1].total == 0);
		assert_int_equal(s.n_uses, 1);
		assert_non_null(gpu_snapshot_find(&s, 10, &n));
		assert_null(gpu_snapshot_find(&s, 11, &n));
		gpu_snapshot_done(&s);
	}
	assert_int_equal(gpu_get_state(g, NULL), GPU_OK);
	gpu_close(g);
}

/* A script with n processes on GPU 0 (pids 1000...), then extra. */
static void many_processes(unsigned n, const char *extra)
{
	const char *path = path_in_dir("script");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "device " A100 "%s", extra);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "compute 0 %u %u\n", 1000 + i, i + 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("RAMWATCH_STANDIN_SCRIPT", path, 1), 0);
}

static void test_insufficient_size(void **state)
{
	(void)state;
	struct gpu_snapshot s;
	struct gpu *g;

	/* the first call asks for more room: the buffer grows, the call is made again */
	many_processes(3, "insufficient 1\n");
	g = open_standin();
	take(g, &s);
	assert_true(s.devices[0].present);
	assert_int_equal(s.n_uses, 3);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* more processes than the first buffer holds */
	many_processes(100, "");
	g = open_standin();
	take(g, &s);
	assert_int_equal(s.n_uses, 100);
	assert_int_equal(s.uses[99].pid, 1099);
	assert_true(s.uses[99].used == 100);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* a list that never fits: the device answers an error, nothing more */
	many_processes(3, "insufficient 100\n");
	g = open_standin();
	take(g, &s);
	assert_false(s.devices[0].present);
	assert_non_null(strstr(s.devices[0].error, "processes"));
	assert_int_equal(s.n_uses, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* RW_GPU_PROCESSES_MAX processes are read; one more is an error. */
static void test_process_limit(void **state)
{
	(void)state;
	struct gpu_snapshot s;

	many_processes(RW_GPU_PROCESSES_MAX, "");
	struct gpu *g = open_standin();
	take(g, &s);
	assert_true(s.devices[0].present);
	assert_int_equal(s.n_uses, RW_GPU_PROCESSES_MAX);
	gpu_snapshot_done(&s);
	gpu_close(g);

	many_processes(RW_GPU_PROCESSES_MAX + 1, "");
	g = open_standin();
	take(g, &s);
	assert_false(s.devices[0].present);
	assert_int_equal(s.n_uses, 0);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* RW_GPU_DEVICES_MAX devices are looked at; more are left out. */
static void test_device_limit(void **state)
{
	(void)state;
	const char *path = path_in_dir("script");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (unsigned i = 0; i < RW_GPU_DEVICES_MAX + 1; i++)
		fprintf(f, "device GPU-%08x-0000-0000-0000-000000000000 1024 0 GPU %u\ncompute %u %u 1\n", i, i, i,
			100 + i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("RAMWATCH_STANDIN_SCRIPT", path, 1), 0);

	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	size_t n;
	take(g, &s);
	assert_int_equal(s.n_devices, RW_GPU_DEVICES_MAX);
	assert_int_equal(s.n_uses, RW_GPU_DEVICES_MAX);
	assert_non_null(gpu_snapshot_find(&s, 100 + RW_GPU_DEVICES_MAX - 1, &n));
	assert_null(gpu_snapshot_find(&s, 100 + RW_GPU_DEVICES_MAX, &n));
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* Older NVMLs: without the _v3 calls, and with the unversioned ones only
 * (another entry layout); the same uses either way. */
static void test_fallbacks(void **state)
{
	(void)state;
	static const char *const libs[] = { "libnvidia-ml.so.1", "nov3/libnvidia-ml.so.1", "v1/libnvidia-ml.so.1" };
	script("device " A100 "device " RTX "compute 0 4000000 3221225472\ngraphics 1 12 na\ncompute 1 13 4096\n");
	for (size_t i = 0; i < ELEMENTSOF(libs); i++) {
		struct gpu *g = open_with(standin(libs[i]), "/nonexistent/libcuda.so.1");
		struct gpu_snapshot s;
		take(g, &s);
		assert_int_equal(s.n_devices, 2);
		assert_int_equal(s.n_uses, 3);
		assert_int_equal(s.uses[0].pid, 12);
		assert_true(s.uses[0].graphics);
		assert_true(s.uses[0].used == GPU_BYTES_UNKNOWN);
		assert_int_equal(s.uses[1].pid, 13);
		assert_true(s.uses[1].used == 4096);
		assert_int_equal(s.uses[2].pid, 4000000);
		assert_true(s.uses[2].used == 3 * GiB);
		gpu_snapshot_done(&s);
		gpu_close(g);
	}
}

/* A GPU in MIG mode: its instances are devices of their own, each with
 * its processes; the GPU's own list (root only) is not asked for. */
static void test_mig(void **state)
{
	(void)state;
	script("device " A100 "device " RTX
	       "mig 0 MIG-aaaaaaaa-0000-0000-0000-000000000001 10737418240 1073741824 NVIDIA A100 MIG 1g.10gb\n"
	       "mig 0 MIG-aaaaaaaa-0000-0000-0000-000000000002 21474836480 0 NVIDIA A100 MIG 2g.20gb\n"
	       "compute m0 500 1073741824\ncompute m1 501 2048\ncompute 1 502 4096\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	take(g, &s);
	assert_int_equal(s.n_devices, 4);
	assert_true(s.devices[0].present);
	assert_int_equal(s.devices[0].parent, -1);
	assert_string_equal(s.devices[1].uuid, "MIG-aaaaaaaa-0000-0000-0000-000000000001");
	assert_string_equal(s.devices[1].name, "NVIDIA A100 MIG 1g.10gb");
	assert_int_equal(s.devices[1].index, 0);
	assert_int_equal(s.devices[1].parent, 0);
	assert_true(s.devices[1].total == 10 * GiB && s.devices[1].used == 1 * GiB);
	assert_int_equal(s.devices[2].parent, 0);
	assert_true(s.devices[2].present);
	assert_int_equal(s.devices[3].index, 1);
	assert_int_equal(s.devices[3].parent, -1);
	assert_int_equal(s.n_uses, 3);
	assert_int_equal(s.uses[0].pid, 500);
	assert_int_equal(s.uses[0].device, 1);
	assert_int_equal(s.uses[1].device, 2);
	assert_int_equal(s.uses[2].device, 3);
	gpu_snapshot_done(&s);
	gpu_close(g);

	/* RW_GPU_MIG_MAX instances of a GPU are looked at; more are left out */
	const char *path = path_in_dir("script");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "device " A100);
	for (unsigned i = 0; i < RW_GPU_MIG_MAX + 1; i++)
		fprintf(f, "mig 0 MIG-%08x-0000-0000-0000-000000000000 1024 0 slice %u\ncompute m%u %u 1\n", i, i, i, 600 + i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(setenv("RAMWATCH_STANDIN_SCRIPT", path, 1), 0);
	g = open_standin();
	take(g, &s);
	assert_int_equal(s.n_devices, 1 + RW_GPU_MIG_MAX);
	assert_int_equal(s.n_uses, RW_GPU_MIG_MAX);
	assert_int_equal(s.uses[RW_GPU_MIG_MAX - 1].pid, 600 + RW_GPU_MIG_MAX - 1);
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* NVML without the version call: the CUDA driver gives it, without cuInit. */
static void test_driver_version_from_cuda(void **state)
{
	(void)state;
	script("device " A100 "cuda-version 11080\nfail nvmlSystemGetCudaDriverVersion_v2 13\n");
	struct gpu *g = open_standin();
	struct gpu_snapshot s;
	take(g, &s);
	assert_int_equal(s.state, GPU_OK);
	assert_int_equal(s.driver_version, 11080);
	assert_non_null(strstr(called(), "cuDriverGetVersion"));
	assert_null(strstr(called(), "cuInit"));
	gpu_snapshot_done(&s);
	gpu_close(g);
}

/* Loading on a thread of its own: the call returns while NVML starts, and
 * what is asked next waits for it and answers as gpu_open would. */
static void test_open_background(void **state)
{
	(void)state;
	script("device " A100 "compute 0 300 1073741824\ninit-delay 400\n");
	struct gpu_options o = { .nvml_library = standin("libnvidia-ml.so.1"), .cuda_library = standin("libcuda.so.1") };
	struct gpu *g = NULL;
	struct gpu_snapshot s;
	const char *msg = "x";

	uint64_t t0 = now_monotonic_us();
	assert_int_equal(gpu_open_background(&o, &g), 0);
	assert_non_null(g);
	uint64_t returned = now_monotonic_us() - t0;
	assert_true(returned < 200000); /* NVML takes 400 ms to start */
	assert_int_equal(gpu_get_state(g, &msg), GPU_OK);
	assert_true(now_monotonic_us() - t0 >= 400000);
	assert_null(msg);
	take(g, &s);
	assert_int_equal(s.n_devices, 1);
	assert_int_equal(s.n_uses, 1);
	assert_int_equal(s.uses[0].pid, 300);
	assert_int_equal(s.driver_version, 12040);
	gpu_snapshot_done(&s);
	assert_null(gpu_close(g));
	assert_non_null(strstr(called(), "nvmlShutdown"));

	/* closed before the loading ended: it waits, and shuts NVML down */
	script("device " A100 "init-delay 200\n");
	assert_int_equal(gpu_open_background(&o, &g), 0);
	assert_null(gpu_close(g));
	char *log = called();
	char *init = strstr(log, "nvmlInit_v2"), *last_init = init;
	while (init && (init = strstr(init + 1, "nvmlInit_v2")))
		last_init = init;
	assert_non_null(last_init);
	assert_non_null(strstr(last_init, "nvmlShutdown"));

	/* the library missing: the snapshot says so, as gpu_open's */
	struct gpu_options missing = { .nvml_library = "/nonexistent/libnvidia-ml.so.1",
				       .cuda_library = "/nonexistent/libcuda.so.1" };
	assert_int_equal(gpu_open_background(&missing, &g), 0);
	take(g, &s);
	assert_int_equal(s.state, GPU_NO_LIBRARY);
	assert_non_null(strstr(s.message, "/nonexistent/libnvidia-ml.so.1"));
	gpu_snapshot_done(&s);
	assert_int_equal(gpu_get_state(g, &msg), GPU_NO_LIBRARY);
	gpu_close(g);
}

/* The CPUs the one thread of this process other than the caller may run
 * on (the loader, while NVML takes its time to start). */
static void loader_cpus(cpu_set_t *ret)
{
	pid_t tid = 0;
	assert_int_equal(other_threads(&tid), 1);
	assert_int_equal(sched_getaffinity(tid, sizeof(*ret), ret), 0);
}

/* The loader runs on the CPUs the caller may use but the one it ran on,
 * so that it never takes the census's CPU; on the caller's only CPU when
 * there is no other. */
static void test_loader_cpu(void **state)
{
	(void)state;
	struct gpu_options o = { .nvml_library = standin("libnvidia-ml.so.1"), .cuda_library = standin("libcuda.so.1") };
	cpu_set_t mine, loader, both, one;
	struct gpu *g = NULL;

	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	if (CPU_COUNT(&mine) > 1) {
		script("device " A100 "init-delay 300\n");
		assert_int_equal(gpu_open_background(&o, &g), 0);
		loader_cpus(&loader);
		CPU_AND(&both, &loader, &mine);
		assert_true(CPU_EQUAL(&both, &loader)); /* none the caller may not use */
		assert_int_equal(CPU_COUNT(&loader), CPU_COUNT(&mine) - 1);
		assert_int_equal(gpu_get_state(g, NULL), GPU_OK);
		gpu_close(g);
	}

	/* pinned to one CPU: the loader shares it */
	int cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	script("device " A100 "init-delay 300\n");
	assert_int_equal(gpu_open_background(&o, &g), 0);
	loader_cpus(&loader);
	assert_true(CPU_EQUAL(&loader, &one));
	assert_int_equal(gpu_get_state(g, NULL), GPU_OK);
	gpu_close(g);
	assert_int_equal(sched_setaffinity(0, sizeof(mine), &mine), 0);
}

static void test_state_names(void **state)
{
	(void)state;
	assert_enum_names("GPU state", _GPU_STATE_MAX, gpu_state_name, gpu_state_from_name);
	assert_string_equal(gpu_state_name(GPU_NO_LIBRARY), "no_library");
	assert_int_equal(gpu_state_from_name("bogus"), -1);
	assert_int_equal(gpu_state_from_name(NULL), -1);
	assert_null(gpu_close(NULL));
	gpu_snapshot_done(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_and_uses),
		cmocka_unit_test(test_compute_and_graphics_merged),
		cmocka_unit_test(test_no_library),
		cmocka_unit_test(test_open_background),
		cmocka_unit_test(test_loader_cpu),
		cmocka_unit_test(test_no_driver_device),
		cmocka_unit_test(test_no_nvml_cuda_lists_devices),
		cmocka_unit_test(test_no_devices),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_vanishing_device),
		cmocka_unit_test(test_insufficient_size),
		cmocka_unit_test(test_process_limit),
		cmocka_unit_test(test_device_limit),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_mig),
		cmocka_unit_test(test_driver_version_from_cuda),
		cmocka_unit_test(test_state_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
