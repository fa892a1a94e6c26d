/* NVIDIA GPU memory per process: the devices and the processes using them,
 * from NVML, at one moment (a snapshot), for every process at once.
 *
 * The workload: a client takes one snapshot per scan; the daemon one per
 * StoreInterval, for the GPU memory of every process it watches, which
 * its censuses take their GPU section from.  A
 * snapshot costs a few NVML calls per device (handle, name, UUID, memory,
 * the compute and graphics process lists), microseconds each with the
 * driver loaded; nvmlInit_v2, paid once in gpu_open, is the slow part.
 *
 * What is asked where (see gpu-nvml.c and gpu-cuda.c for the calls):
 * - NVML gives the devices (index, name, UUID, memory total/used/free) and
 *   each device's processes with the device memory they hold.  A process in
 *   both the compute and the graphics list of a device (nvidia-smi's
 *   "C+G") is listed once, as compute: NVML gives its whole use in both.
 * - MIG: a GPU in MIG mode is listed, then each of its MIG instances as a
 *   device of its own ("MIG-" UUID, its own memory, parent pointing at the
 *   GPU), and the process lists are read per instance: the GPU's own list
 *   would add them all up again, and needs privileges NVML only grants to
 *   root.  What is left out: GPU and compute instance ids of a process
 *   (the instance's device says where it is), and vGPU hosts, where NVML
 *   refuses per-instance queries (the instance then answers an error).
 * - The CUDA driver API adds the driver's CUDA version when NVML has no
 *   call for it, and the list of devices when NVML is missing or will not
 *   start (which process uses them is then unknown).
 *
 * The pids are those NVML reports: the host's, seen from the initial pid
 * namespace.  A scan from inside a container with a pid namespace of its
 * own finds no use for its pids, and says nothing wrong.
 *
 * A device that answers an error (NVML_ERROR_GPU_IS_LOST when it fell off
 * the bus) is listed with present false and the error, without uses; the
 * others are unaffected, and the next snapshot asks it again.
 *
 * A struct gpu is used by one thread at a time (the process-list buffer is
 * kept between calls); snapshots are plain data, shared freely once taken. */
#include "gpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu-cuda.h"
#include "gpu-nvml.h"
#include "limits.h"
#include "macro.h"
#include "util.h"

struct gpu {
	enum gpu_state state;
	char message[256];
	int driver_version;
	struct gpu_nvml nvml;
	struct gpu_cuda cuda;
	/* NVML's devices (at most RW_GPU_DEVICES_MAX), their names and UUIDs
	 * as last read, so a device that stops answering keeps its name */
	unsigned count;
	struct gpu_device *known;
	/* the libraries' names, kept for an opening on a thread of its own
	 * (gpu_open_background), which every other call waits for */
	char *nvml_name, *cuda_name;
	pthread_t opener;
	bool opening;
	/* no library named and no driver device present: nothing to load */
	bool no_driver;
};

static const char *const state_names[_GPU_STATE_MAX] = {
	[GPU_OK] = "ok",
	[GPU_NO_LIBRARY] = "no_library",
	[GPU_NO_DEVICES] = "no_devices",
	[GPU_ERROR] = "error",
};

const char *gpu_state_name(enum gpu_state s)
{
	return (unsigned)s < _GPU_STATE_MAX ? state_names[s] : "?";
}

int gpu_state_from_name(const char *name)
{
	for (int s = 0; s < _GPU_STATE_MAX; s++)
		if (name && streq(state_names[s], name))
			return s;
	return -1;
}

/* The option, else the environment variable when set and not empty, else
 * the name the loader finds. */
static const char *library(const char *option, const char *variable, const char *fallback)
{
	const char *v = getenv(variable);
	return option ? option : v && *v ? v : fallback;
}

#ifdef __linux__
static const char *const default_driver_devices[] = { "/dev/nvidiactl", "/dev/dxg", NULL };
#else
/* the Windows build loads nothing (windows/gpu-none.c), and says so */
static const char *const default_driver_devices[] = { NULL };
#endif

/* Whether any of the driver's device files exists.  A failed search of
 * the library path for both libraries costs more than the rest of a small
 * census (0.4 ms of CPU, BENCHMARKS.md), and on a host without the driver
 * it can only fail.  Anything but "no such file" counts as present. */
static bool driver_present(const char *const *devices)
{
	if (!devices[0])
		return true; /* none to look at */
	for (size_t i = 0; devices[i]; i++)
		if (access(devices[i], F_OK) == 0 || errno != ENOENT)
			return true;
	return false;
}

static bool named(const char *option, const char *variable)
{
	const char *v = getenv(variable);
	return option || (v && *v);
}

static struct gpu *gpu_new(const struct gpu_options *o)
{
	struct gpu *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	const char *const *devices = o && o->driver_devices ? o->driver_devices : default_driver_devices;
	g->no_driver = !named(o ? o->nvml_library : NULL, "RAMWATCH_NVML_LIBRARY") &&
		       !named(o ? o->cuda_library : NULL, "RAMWATCH_CUDA_LIBRARY") && !driver_present(devices);
	if (g->no_driver) {
		int len = snprintf(g->message, sizeof(g->message), "none of");
		for (size_t i = 0; devices[i] && len > 0 && (size_t)len < sizeof(g->message); i++)
			len += snprintf(g->message + len, sizeof(g->message) - (size_t)len, "%s %s", i ? "," : "",
					devices[i]);
		if (len > 0 && (size_t)len < sizeof(g->message))
			snprintf(g->message + len, sizeof(g->message) - (size_t)len, " exists; NVML not looked for");
	}
	g->nvml_name = strdup(library(o ? o->nvml_library : NULL, "RAMWATCH_NVML_LIBRARY", "libnvidia-ml.so.1"));
	g->cuda_name = strdup(library(o ? o->cuda_library : NULL, "RAMWATCH_CUDA_LIBRARY", "libcuda.so.1"));
	if (!g->nvml_name || !g->cuda_name)
		return gpu_close(g);
	return g;
}

/* Loads the libraries and asks them what they see; what gpu_close undoes.
 * Returns 0 or -ENOMEM. */
static int gpu_load(struct gpu *g)
{
	if (g->no_driver) {
		g->state = GPU_NO_LIBRARY; /* the message was written by gpu_new */
		return 0;
	}
	g->state = gpu_nvml_open(&g->nvml, g->nvml_name, g->message, sizeof(g->message));
	if (g->state == GPU_OK) {
		unsigned n = 0;
		nvml_return r = g->nvml.device_count(&n);
		if (g->nvml.cuda_version && g->nvml.cuda_version(&g->driver_version) != NVML_SUCCESS)
			g->driver_version = 0;
		if (r != NVML_SUCCESS) {
			g->state = GPU_ERROR;
			snprintf(g->message, sizeof(g->message), "NVML cannot count the devices (nvmlDeviceGetCount_v2): %s",
				 gpu_nvml_error(&g->nvml, r));
		} else if (n == 0) {
			g->state = GPU_NO_DEVICES;
			snprintf(g->message, sizeof(g->message), "NVML sees no NVIDIA GPU");
		} else {
			g->count = n < RW_GPU_DEVICES_MAX ? n : RW_GPU_DEVICES_MAX;
			g->known = calloc(g->count, sizeof(*g->known));
			if (!g->known)
				return -ENOMEM;
		}
		if (g->state != GPU_OK)
			gpu_nvml_close(&g->nvml);
	}

	/* the driver API: for the version NVML did not give, and for the
	 * devices where NVML is missing or failed */
	bool list = g->state == GPU_NO_LIBRARY || g->state == GPU_ERROR;
	if (g->driver_version == 0 || list) {
		if (gpu_cuda_probe(&g->cuda, g->cuda_name, list) < 0)
			return -ENOMEM;
		if (g->driver_version == 0)
			g->driver_version = g->cuda.driver_version;
		if (g->cuda.n_devices > 0) {
			size_t len = strlen(g->message);
			snprintf(g->message + len, sizeof(g->message) - len,
				 "; the CUDA driver lists %zu device%s (which process uses them is not known)",
				 g->cuda.n_devices, g->cuda.n_devices == 1 ? "" : "s");
		}
	}
	return 0;
}

int gpu_open(const struct gpu_options *o, struct gpu **ret)
{
	struct gpu *g = gpu_new(o);
	if (!g)
		return -ENOMEM;
	if (gpu_load(g) < 0) {
		gpu_close(g);
		return -ENOMEM;
	}
	*ret = g;
	return 0;
}

static void *gpu_load_thread(void *arg)
{
	struct gpu *g = arg;
	if (gpu_load(g) < 0) {
		/* what is half loaded stays for gpu_close; nothing is asked */
		g->state = GPU_ERROR;
		snprintf(g->message, sizeof(g->message), "out of memory while loading NVML");
	}
	return NULL;
}

/* Starts the loading thread on a CPU other than the caller's where it may
 * run elsewhere: a new thread is placed beside its creator, and there the
 * loading (0.4 ms for a failed search of the library path, far more for
 * nvmlInit_v2) took the CPU from the census's read for a whole time slice
 * while the other CPU was idle (perf sched timehist, BENCHMARKS.md;
 * SCHED_IDLE did not help: a slice is a slice whatever the weight).
 * Where that cannot be set, where it was. */
static int start_loader(struct gpu *g)
{
#ifdef __linux__
	pthread_attr_t attr;
	cpu_set_t cpus;
	int cpu = sched_getcpu(), r;

	if (cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 1 &&
	    pthread_attr_init(&attr) == 0) {
		CPU_CLR(cpu, &cpus);
		r = pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
		if (r == 0)
			r = pthread_create(&g->opener, &attr, gpu_load_thread, g);
		pthread_attr_destroy(&attr);
		if (r == 0)
			return 0;
	}
#endif
	return -pthread_create(&g->opener, NULL, gpu_load_thread, g);
}

int gpu_open_background(const struct gpu_options *o, struct gpu **ret)
{
	struct gpu *g = gpu_new(o);
	if (!g)
		return -ENOMEM;
	if (!g->no_driver && start_loader(g) == 0) {
		g->opening = true;
	} else if (gpu_load(g) < 0) { /* nothing to load, or no thread to spare: here */
		gpu_close(g);
		return -ENOMEM;
	}
	*ret = g;
	return 0;
}

/* Waits for an opening on its thread to end. */
static void gpu_wait(struct gpu *g)
{
	if (g->opening) {
		pthread_join(g->opener, NULL);
		g->opening = false;
	}
}

struct gpu *gpu_close(struct gpu *g)
{
	if (!g)
		return NULL;
	gpu_wait(g);
	gpu_nvml_close(&g->nvml);
	gpu_cuda_done(&g->cuda);
	free(g->known);
	free(g->nvml_name);
	free(g->cuda_name);
	free(g);
	return NULL;
}

enum gpu_state gpu_get_state(struct gpu *g, const char **ret_message)
{
	gpu_wait(g);
	if (ret_message)
		*ret_message = g->state == GPU_OK ? NULL : g->message;
	return g->state;
}

/* ------------------------------------------------------------ a snapshot */

struct builder {
	struct gpu *g;
	struct gpu_snapshot *s;
	size_t devices_cap, uses_cap;
};

static int add_device(struct builder *b, const struct gpu_device *d, size_t *ret_pos)
{
	struct gpu_snapshot *s = b->s;
	if (s->n_devices == b->devices_cap) {
		size_t want = b->devices_cap ? b->devices_cap * 2 : 8;
		struct gpu_device *p = realloc(s->devices, want * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->devices = p;
		b->devices_cap = want;
	}
	*ret_pos = s->n_devices;
	s->devices[s->n_devices++] = *d;
	return 0;
}

static int add_use(struct builder *b, const struct gpu_use *u)
{
	struct gpu_snapshot *s = b->s;
	if (s->n_uses == b->uses_cap) {
		size_t want = b->uses_cap ? b->uses_cap * 2 : 16;
		struct gpu_use *p = realloc(s->uses, want * sizeof(*p));
		if (!p)
			return -ENOMEM;
		s->uses = p;
		b->uses_cap = want;
	}
	s->uses[s->n_uses++] = *u;
	return 0;
}

/* The device answered r to call: it is not present this time. */
static void set_lost(struct builder *b, struct gpu_device *d, const char *call, nvml_return r)
{
	d->present = false;
	d->total = d->used = d->free = 0;
	snprintf(d->error, sizeof(d->error), "%s: %s", call, gpu_nvml_error(&b->g->nvml, r));
}

/* Reads name, UUID and memory of handle h into d.  Returns the NVML
 * error (d is then not present) or NVML_SUCCESS. */
static nvml_return describe(struct builder *b, nvml_device h, struct gpu_device *d)
{
	struct gpu_nvml *n = &b->g->nvml;
	char buf[NVML_NAME_SIZE > NVML_UUID_SIZE ? NVML_NAME_SIZE : NVML_UUID_SIZE];
	struct nvml_memory m = { 0 };
	nvml_return r;

	if ((r = n->device_name(h, buf, sizeof(buf))) != NVML_SUCCESS) {
		set_lost(b, d, "nvmlDeviceGetName", r);
		return r;
	}
	buf[sizeof(buf) - 1] = '\0';
	snprintf(d->name, sizeof(d->name), "%s", buf);
	if ((r = n->device_uuid(h, buf, sizeof(buf))) != NVML_SUCCESS) {
		set_lost(b, d, "nvmlDeviceGetUUID", r);
		return r;
	}
	buf[sizeof(buf) - 1] = '\0';
	snprintf(d->uuid, sizeof(d->uuid), "%s", buf);
	if ((r = n->device_memory(h, &m)) != NVML_SUCCESS) {
		set_lost(b, d, "nvmlDeviceGetMemoryInfo", r);
		return r;
	}
	d->total = m.total;
	d->used = m.used;
	d->free = m.free;
	return NVML_SUCCESS;
}

/* The compute and graphics lists of handle h, as uses of the device at
 * pos.  On an NVML error the device is marked not present and its uses
 * of this snapshot are dropped.  Returns 0 or -ENOMEM. */
static int add_lists(struct builder *b, nvml_device h, size_t pos)
{
	size_t before = b->s->n_uses;
	for (int graphics = 0; graphics <= 1; graphics++) {
		struct gpu_nvml_process *p;
		size_t n;
		int r = gpu_nvml_processes(&b->g->nvml, h, graphics, &p, &n);
		if (r == -ENOMEM)
			return r;
		if (r != NVML_SUCCESS) {
			b->s->n_uses = before;
			if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
				struct gpu_device *d = &b->s->devices[pos];
				d->present = false;
				snprintf(d->error, sizeof(d->error), "more than %u processes, or a list that kept growing",
					 RW_GPU_PROCESSES_MAX);
			} else
				set_lost(b, &b->s->devices[pos],
					 graphics ? "nvmlDeviceGetGraphicsRunningProcesses" : "nvmlDeviceGetComputeRunningProcesses",
					 r);
			return 0;
		}
		for (size_t i = 0; i < n; i++) {
			struct gpu_use u = { .pid = p[i].pid, .device = (unsigned)pos, .used = p[i].used,
					     .graphics = graphics };
			if (add_use(b, &u) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The MIG instances of the GPU at pos (handle h), each a device with its
 * own lists.  Returns 0 or -ENOMEM. */
static int add_mig_instances(struct builder *b, nvml_device h, size_t pos)
{
	struct gpu_nvml *n = &b->g->nvml;
	unsigned max = 0;
	nvml_return r = n->mig_count(h, &max);

	if (r != NVML_SUCCESS) {
		set_lost(b, &b->s->devices[pos], "nvmlDeviceGetMaxMigDeviceCount", r);
		return 0;
	}
	if (max > RW_GPU_MIG_MAX)
		max = RW_GPU_MIG_MAX;
	for (unsigned k = 0; k < max; k++) {
		nvml_device mh;
		size_t mpos;
		r = n->mig_by_index(h, k, &mh);
		if (r == NVML_ERROR_NOT_FOUND || r == NVML_ERROR_INVALID_ARGUMENT)
			continue; /* no instance in this slot */
		struct gpu_device d = { .index = b->s->devices[pos].index, .present = true, .parent = (int)pos };
		if (r != NVML_SUCCESS)
			set_lost(b, &d, "nvmlDeviceGetMigDeviceHandleByIndex", r);
		else
			r = describe(b, mh, &d);
		if (add_device(b, &d, &mpos) < 0)
			return -ENOMEM;
		if (r == NVML_SUCCESS && add_lists(b, mh, mpos) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int add_gpu(struct builder *b, unsigned index)
{
	struct gpu_nvml *n = &b->g->nvml;
	struct gpu_device *known = &b->g->known[index];
	struct gpu_device d = { .index = index, .present = true, .parent = -1 };
	nvml_device h;
	size_t pos;
	bool mig = false;

	snprintf(d.name, sizeof(d.name), "%s", known->name);
	snprintf(d.uuid, sizeof(d.uuid), "%s", known->uuid);
	nvml_return r = n->device_by_index(index, &h);
	if (r != NVML_SUCCESS)
		set_lost(b, &d, "nvmlDeviceGetHandleByIndex_v2", r);
	else if ((r = describe(b, h, &d)) == NVML_SUCCESS) {
		*known = d;
		if (n->mig_mode) {
			unsigned current = 0, pending = 0;
			nvml_return m = n->mig_mode(h, &current, &pending);
			if (m == NVML_SUCCESS)
				mig = current == NVML_DEVICE_MIG_ENABLE;
			else if (m != NVML_ERROR_NOT_SUPPORTED) {
				set_lost(b, &d, "nvmlDeviceGetMigMode", m);
				r = m;
			}
		}
	}
	if (add_device(b, &d, &pos) < 0)
		return -ENOMEM;
	if (r != NVML_SUCCESS)
		return 0;
	return mig ? add_mig_instances(b, h, pos) : add_lists(b, h, pos);
}

static int cmp_use(const void *a, const void *b)
{
	const struct gpu_use *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	return (int)x->graphics - (int)y->graphics;
}

/* Sorts the uses by pid, then device, and keeps one per pid and device:
 * the compute entry, with the graphics entry's figure when it alone has
 * one. */
static void sort_uses(struct gpu_snapshot *s)
{
	size_t kept = 0;
	qsort_safe(s->uses, s->n_uses, sizeof(*s->uses), cmp_use);
	for (size_t i = 0; i < s->n_uses; i++) {
		struct gpu_use *u = &s->uses[i];
		if (kept > 0 && s->uses[kept - 1].pid == u->pid && s->uses[kept - 1].device == u->device) {
			struct gpu_use *k = &s->uses[kept - 1];
			if (k->used == GPU_BYTES_UNKNOWN || (u->used != GPU_BYTES_UNKNOWN && u->used > k->used))
				k->used = u->used;
			continue;
		}
		s->uses[kept++] = *u;
	}
	s->n_uses = kept;
}

int gpu_snapshot_take(struct gpu *g, struct gpu_snapshot *ret)
{
	gpu_wait(g);
	struct gpu_snapshot s = {
		.state = g->state,
		.time_ms = now_realtime_ms(),
		.driver_version = g->driver_version,
	};
	struct builder b = { .g = g, .s = &s };
	int r = 0;

	if (g->state != GPU_OK) {
		snprintf(s.message, sizeof(s.message), "%s", g->message);
		for (size_t i = 0; i < g->cuda.n_devices && r >= 0; i++) {
			size_t pos;
			r = add_device(&b, &g->cuda.devices[i], &pos);
		}
	} else {
		for (unsigned i = 0; i < g->count && r >= 0; i++)
			r = add_gpu(&b, i);
		if (r >= 0)
			sort_uses(&s);
	}
	if (r < 0) {
		gpu_snapshot_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

void gpu_snapshot_done(struct gpu_snapshot *s)
{
	if (!s)
		return;
	free(s->devices);
	free(s->uses);
	s->devices = NULL;
	s->uses = NULL;
	s->n_devices = s->n_uses = 0;
}

const struct gpu_use *gpu_snapshot_find(const struct gpu_snapshot *s, int pid, size_t *ret_n)
{
	size_t lo = 0, hi = s->n_uses;
	while (lo < hi) { /* the first use of a pid >= pid */
		size_t mid = lo + (hi - lo) / 2;
		if (s->uses[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < s->n_uses && s->uses[end].pid == pid)
		end++;
	*ret_n = end - lo;
	return end > lo ? &s->uses[lo] : NULL;
}
