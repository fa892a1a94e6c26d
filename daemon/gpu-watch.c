/* GPU memory in the daemon (gpu-watch.h): opening NVML, a snapshot every
 * StoreInterval, what it tells of each watched process, the rows for the
 * store, and the changes of the devices, told once each.
 *
 * The workload: a snapshot costs a few NVML calls per device, microseconds
 * each; matching it to the watched processes is a binary search per
 * process in the snapshot's uses (sorted by pid). */
#include "gpu-watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "census-tier.h"
#include "target.h"
#include "util.h"
#include "watched.h"
#include "writer.h"

/* ------------------------------------------------------------ what was told */

static struct gpu_watch_device *find(struct gpu_watch *w, const struct gpu_device *d)
{
	/* by UUID; one that never answered has none yet, and is the GPU of
	 * its index (a MIG instance always has one: it is listed only once
	 * its GPU answered) */
	for (size_t i = 0; i < w->n_devices; i++)
		if (d->uuid[0] && streq(w->devices[i].uuid, d->uuid))
			return &w->devices[i];
	for (size_t i = 0; i < w->n_devices; i++)
		if (!w->devices[i].uuid[0] && w->devices[i].parent < 0 && d->parent < 0 && w->devices[i].index == d->index)
			return &w->devices[i];
	return NULL;
}

int gpu_watch_note(struct gpu_watch *w, const struct gpu_snapshot *s, bool first, gpu_watch_report_t report,
		   void *userdata)
{
	struct gpu_watch_device *next = calloc(s->n_devices + 1, sizeof(*next));

	if (!next)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_devices; i++)
		w->devices[i].listed = false;
	for (size_t i = 0; i < s->n_devices; i++) {
		const struct gpu_device *d = &s->devices[i];
		struct gpu_watch_device *old = find(w, d);

		if (old && !old->listed) {
			old->listed = true;
			if (old->present && !d->present)
				report(userdata, GPU_WATCH_LOST, d);
			else if (!old->present && d->present)
				report(userdata, GPU_WATCH_BACK, d);
		} else if (!d->present)
			report(userdata, GPU_WATCH_LOST, d);
		else if (!first)
			report(userdata, GPU_WATCH_NEW, d);
		next[i] = (struct gpu_watch_device){ .index = d->index, .parent = d->parent, .present = d->present };
		snprintf(next[i].uuid, sizeof(next[i].uuid), "%s", d->uuid);
	}
	for (size_t i = 0; i < w->n_devices; i++)
		if (!w->devices[i].listed) {
			struct gpu_device gone = { .index = w->devices[i].index, .parent = w->devices[i].parent };
			snprintf(gone.uuid, sizeof(gone.uuid), "%s", w->devices[i].uuid);
			report(userdata, GPU_WATCH_GONE, &gone);
		}
	free(w->devices);
	w->devices = next;
	w->n_devices = s->n_devices;
	return 0;
}

void gpu_watch_done(struct gpu_watch *w)
{
	if (w->have_last)
		gpu_snapshot_done(&w->last);
	w->have_last = false;
	free(w->devices);
	w->devices = NULL;
	w->n_devices = 0;
	w->gpu = gpu_close(w->gpu);
}

/* ------------------------------------------------------------ the daemon's side */

/* "GPU 1 (NVIDIA L4, GPU-aaaa...)" */
static const char *device_label(char *buf, size_t size, const struct gpu_device *d)
{
	if (d->name[0] && d->uuid[0])
		snprintf(buf, size, "GPU %u (%s, %s)", d->index, d->name, d->uuid);
	else if (d->uuid[0])
		snprintf(buf, size, "GPU %u (%s)", d->index, d->uuid);
	else
		snprintf(buf, size, "GPU %u", d->index);
	return buf;
}

static void tell_change(void *userdata, enum gpu_watch_change change, const struct gpu_device *d)
{
	char label[256];
	(void)userdata;

	device_label(label, sizeof(label), d);
	switch (change) {
	case GPU_WATCH_NEW:
		log_info("%s appeared: its memory is sampled", label);
		break;
	case GPU_WATCH_LOST:
		log_warning("%s does not answer (%s): its memory is not sampled until it does", label,
			    d->error[0] ? d->error : "no reason given");
		break;
	case GPU_WATCH_BACK:
		log_notice("%s answers again: its memory is sampled", label);
		break;
	case GPU_WATCH_GONE:
		log_info("%s is no longer listed", label);
		break;
	}
}

/* Takes a snapshot into the watch's last one, telling what changed.
 * Returns 0 or -ENOMEM (the previous snapshot stays). */
static int snapshot(struct gpu_watch *w, bool first)
{
	struct gpu_snapshot s;
	int r = gpu_snapshot_take(w->gpu, &s);

	if (r < 0)
		return r;
	r = gpu_watch_note(w, &s, first, tell_change, NULL);
	if (r < 0) {
		gpu_snapshot_done(&s);
		return r;
	}
	if (w->have_last)
		gpu_snapshot_done(&w->last);
	w->last = s;
	w->have_last = true;
	return 0;
}

/* The one line about the devices found, at start. */
static void tell_devices(const struct gpu_watch *w)
{
	char line[1024];
	size_t len = 0, gpus = 0;

	line[0] = '\0';
	for (size_t i = 0; i < w->last.n_devices && len < sizeof(line); i++) {
		const struct gpu_device *d = &w->last.devices[i];
		char label[256];
		if (d->parent < 0)
			gpus++;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", i ? ", " : "",
					d->parent < 0 ? device_label(label, sizeof(label), d) : d->uuid);
	}
	log_info("NVIDIA GPU memory sampled every StoreInterval (CUDA %d.%d): %zu GPU%s: %s",
		 w->last.driver_version / 1000, w->last.driver_version % 1000 / 10, gpus, gpus == 1 ? "" : "s", line);
}

/* Opens NVML and tells what it found, unless that is told already (the
 * state it was in before: a reload that finds the same says nothing).
 * Returns 0 or -ENOMEM. */
static int open_gpu(struct gpu_watch *w, int told)
{
	const char *why = NULL;
	int r = gpu_open(NULL, &w->gpu);

	if (r < 0)
		return r;
	w->state = gpu_get_state(w->gpu, &why);
	if (w->state == GPU_OK) {
		r = snapshot(w, true);
		if (r < 0)
			return r;
	}
	if ((int)w->state == told)
		return 0;
	switch (w->state) {
	case GPU_OK:
		tell_devices(w);
		break;
	case GPU_NO_LIBRARY:
		log_info("no NVIDIA driver (%s): GPU memory not sampled", why);
		break;
	case GPU_NO_DEVICES:
		log_info("%s: GPU memory not sampled", why);
		break;
	default:
		log_notice("GPU memory not sampled: %s", why);
		break;
	}
	return 0;
}

static void open_or_tell(struct gpu_watch *w, int told)
{
	int r = open_gpu(w, told);
	if (r < 0) {
		log_warning_errno(r, "cannot look for NVIDIA GPUs: %m; GPU memory not sampled");
		gpu_watch_done(w);
		w->state = GPU_ERROR;
	}
}

void gpu_watch_open(struct gpu_watch *w)
{
	open_or_tell(w, -1);
}

void gpu_watch_reload(struct gpu_watch *w)
{
	enum gpu_state before = w->state;

	if (w->gpu && before == GPU_OK)
		return;
	gpu_watch_done(w);
	open_or_tell(w, (int)before);
}

const struct gpu_snapshot *gpu_watch_snapshot(const struct gpu_watch *w)
{
	return w->have_last && w->state == GPU_OK ? &w->last : NULL;
}

const struct gpu_use *gpu_watch_match(struct target *t, const struct gpu_snapshot *s, size_t *ret_n)
{
	const struct gpu_use *u = gpu_snapshot_find(s, t->pid, ret_n);
	uint64_t sum = 0;

	for (size_t i = 0; i < *ret_n; i++)
		if (u[i].used != GPU_BYTES_UNKNOWN)
			sum += u[i].used;
	t->gpu.on_gpu = *ret_n > 0;
	t->gpu.vram = sum;
	proc_ref_gpu(t->ref, sum);
	return u;
}

bool gpu_watch_cycle(struct gpu_watch *gw, const struct watched *watched, struct census_tier *ct,
		     struct writer *writer, int64_t now)
{
	struct writer_gpu_use *uses = NULL;
	size_t n_uses = 0, allocated = 0;
	uint64_t mono = now_monotonic_us();
	int r;

	if (!gw->gpu || gw->state != GPU_OK)
		return false;
	r = snapshot(gw, false);
	if (r < 0) {
		log_warning_errno(r, "GPU snapshot lost: %m");
		return false;
	}
	const struct gpu_snapshot *s = &gw->last;
	for (struct target *t = watched_first(watched); t; t = watched_next(t)) {
		size_t n;
		const struct gpu_use *u = gpu_watch_match(t, s, &n);

		census_tier_gpu_told(ct, t, mono);
		if (n == 0)
			continue;
		if (n_uses + n > allocated) {
			size_t more = (allocated ? 2 * allocated : 16) + n;
			struct writer_gpu_use *grown = realloc(uses, more * sizeof(*uses));
			if (!grown) {
				free(uses);
				log_warning("GPU memory rows of this interval lost: out of memory");
				return true;
			}
			uses = grown;
			allocated = more;
		}
		for (size_t i = 0; i < n; i++)
			if (u[i].used != GPU_BYTES_UNKNOWN)
				uses[n_uses++] = (struct writer_gpu_use){ .proc = t->ref, .device = u[i].device,
									  .used = u[i].used };
	}
	if (writer_add_gpu(writer, now, s->devices, s->n_devices, uses, n_uses) < 0)
		log_warning("GPU memory rows of this interval lost: out of memory");
	free(uses);
	return true;
}
