/* One watched process: identity, the fast tier's reads, a census. */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "census.h"
#include "daemon-clock.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "procfs.h"
#include "scan.h"
#include "util.h"

DEFINE_CLEANUP(struct target *, target_free)

/* Whether fd leaves RW_FD_RESERVE descriptors free below the soft limit:
 * open() gives the lowest free number, so fd is about how many are open. */
static bool fd_below_reserve(int fd)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return true;
	return (rlim_t)fd + RW_FD_RESERVE < rl.rlim_cur;
}

int target_new(int root_fd, int pid, const struct proc_status *status, const struct target_identity *id,
	       struct target **ret)
{
	_cleanup_(target_freep) struct target *t = calloc(1, sizeof(*t));
	_cleanup_free_ char *cmdline = NULL, *exe = NULL;
	struct proc_stat st;
	int r;

	if (!t)
		return -ENOMEM;
	t->pid = pid;
	t->pidfd = -1;
	t->statm_fd = -1;
	t->pid_fd = procfs_open_pid(root_fd, pid);
	if (t->pid_fd < 0)
		return t->pid_fd == -ENOENT ? -ESRCH : t->pid_fd;
	t->fds = 1;
	r = procfs_read_stat(t->pid_fd, &st);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	t->start_time = st.start_time;
	r = procfs_read_cmdline(t->pid_fd, &cmdline);
	if (r == -ENOENT || r == -ESRCH)
		return -ESRCH;
	r = procfs_read_exe(t->pid_fd, &exe); /* may be refused: then unknown */
	if (r == -ENOMEM)
		return r;
	/* read once: a process seldom moves, and the metrics group by it */
	r = procfs_read_cgroup(t->pid_fd, &t->cgroup);
	if (r == -ENOMEM)
		return r;

	/* The pidfd names whatever holds pid now; it is this instance when
	 * the directory opened before it still answers with the same start. */
	t->pidfd = pidfd_open(pid, 0);
	if (t->pidfd >= 0 && procfs_still_alive(t->pid_fd, t->start_time) != 1)
		return -ESRCH;
	if (t->pidfd >= 0 && id->pidfd_below > 0 && t->pidfd >= id->pidfd_below) {
		close(t->pidfd);
		t->pidfd = -1;
	}
	if (t->pidfd >= 0)
		t->fds++;

	/* statm costs a tenth of status to read (BENCHMARKS.md); without a
	 * descriptor for it, status alone still gives every figure */
	t->statm_fd = procfs_open_statm(t->pid_fd);
	if (t->statm_fd == -ENOENT || t->statm_fd == -ESRCH)
		return -ESRCH;
	if (t->statm_fd >= 0 && !fd_below_reserve(t->statm_fd)) {
		close(t->statm_fd);
		t->statm_fd = -EMFILE;
	}
	if (t->statm_fd < 0) {
		log_full_errno(LOG_DEBUG, t->statm_fd, pid, "cannot keep statm of process %d open, reading status only: %m",
			       pid);
		t->statm_fd = -1;
	} else
		t->fds++;

	uint64_t private = 0;
	(void)status_private(status, &private);
	struct store_process info = {
		.boot_id = id->boot_id,
		.pid = pid,
		.start_time = (int64_t)st.start_time,
		.started_at = id->boot_ms >= 0 && id->ticks_per_second > 0
				      ? id->boot_ms + (int64_t)(st.start_time * 1000 / (uint64_t)id->ticks_per_second)
				      : -1,
		.uid = status->uid,
		.comm = status->name,
		.exe = exe,
		.cmdline = cmdline,
		.seen = id->now_ms,
		.exited_at = -1,
		.peak_private = private,
		.peak_resident = status->counter[STATUS_VM_RSS],
	};
	t->ref = proc_ref_new(&info);
	if (!t->ref)
		return -ENOMEM;
	*ret = TAKE_PTR(t);
	return 0;
}

struct target *target_free(struct target *t)
{
	if (!t)
		return NULL;
	if (t->pid_fd >= 0)
		close(t->pid_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->statm_fd >= 0)
		close(t->statm_fd);
	proc_ref_unref(t->ref);
	free(t->cgroup);
	steady_files_done(&t->steady_files);
	free(t->snap);
	free(t);
	return NULL;
}

/* Reads status into the last sample's figures. */
static int sample_status(struct target *t)
{
	struct proc_status st;
	uint64_t private;
	int r;

	r = procfs_read_status(t->pid_fd, &st);
	if (r == -ENOENT || r == -ESRCH)
		return -ESRCH;
	if (r < 0)
		return r;
	/* a zombie, or a task past exit_mm: the memory is gone */
	if (st.state == 'Z' || st.state == 'X' || !status_has(&st, STATUS_VM_RSS))
		return -ESRCH;
	if (!status_private(&st, &private))
		private = st.counter[STATUS_RSS_ANON] + st.counter[STATUS_VM_SWAP];
	t->private = private;
	t->resident = st.counter[STATUS_VM_RSS];
	t->swap = st.counter[STATUS_VM_SWAP];
	return 0;
}

void target_status_stale(struct target *t)
{
	t->status_read = false;
}

int64_t target_status_due_ms(const struct target *t, int64_t status_every_ms)
{
	int64_t every = status_every_ms;

	/* A process with nothing in swap keeps none while statm stays the
	 * same (a page swapped out leaves resident); one with swap may free
	 * swapped pages without a change statm shows. */
	if (!t->status_read)
		return INT64_MIN;
	if (t->swap == 0 && every < RW_STATUS_REFRESH_MS)
		every = RW_STATUS_REFRESH_MS;
	return t->status_at_ms > INT64_MAX - every ? INT64_MAX : t->status_at_ms + every;
}

static void note_sample(struct target *t, uint32_t count, int64_t now_ms)
{
	struct store_process *info = &t->ref->info;

	sample_acc_add(&t->acc, &(struct sample_figures){ .private = t->private, .resident = t->resident, .swap = t->swap },
		       count);
	info->seen = now_ms;
	if (t->private > info->peak_private)
		info->peak_private = t->private;
	if (t->resident > info->peak_resident)
		info->peak_resident = t->resident;
}

int target_sample(struct target *t, const struct proc_statm *statm, int64_t now_ms, int64_t status_every_ms)
{
	int r;

	if (!statm || !t->status_read || !statm_equal(statm, &t->status_statm) ||
	    now_ms >= target_status_due_ms(t, status_every_ms)) {
		r = sample_status(t);
		if (r < 0)
			return r;
		t->status_read = true;
		t->status_at_ms = now_ms;
		if (statm)
			t->status_statm = *statm;
	}
	/* else statm is what it was at the last status: so are its figures */
	note_sample(t, 1, now_ms);
	return 0;
}

void target_repeat_sample(struct target *t, uint32_t count, int64_t seen_ms)
{
	if (count > 0)
		note_sample(t, count, seen_ms);
}

/* Region events against the previous census; a light census knows sizes
 * only, so beside one, private changes are not compared. */
static int census_events(struct target *t, const struct census *c, struct census_result *ret)
{
	struct region_snapshot *snap = NULL;
	size_t n = 0;
	int r;

	r = region_snapshot_take(c, t->ref->paths, &snap, &n);
	if (r < 0)
		return r == -ENODATA ? 0 : r;
	if (t->snap) {
		uint64_t min_change = t->snap_light || c->light ? UINT64_MAX : RW_REGION_EVENT_MIN_CHANGE;
		r = region_events_diff(t->snap, t->n_snap, snap, n, min_change, &ret->events, &ret->n_events);
		if (r < 0) {
			free(snap);
			return r;
		}
	}
	free(t->snap);
	t->snap = snap;
	t->n_snap = n;
	t->snap_light = c->light;
	return 0;
}

const struct gpu_use *target_gpu(struct target *t, const struct gpu_snapshot *s, size_t *ret_n)
{
	const struct gpu_use *u = gpu_snapshot_find(s, t->pid, ret_n);
	uint64_t sum = 0;

	for (size_t i = 0; i < *ret_n; i++)
		if (u[i].used != GPU_BYTES_UNKNOWN)
			sum += u[i].used;
	t->on_gpu = *ret_n > 0;
	t->vram = sum;
	if (sum > t->ref->info.peak_vram)
		t->ref->info.peak_vram = sum;
	return u;
}

/* Whether the last full census can stand for one now: the steady check
 * read the same, and what the census would take besides (its lightness,
 * the GPU memory) is the same. */
static bool may_stand(const struct target *t, const struct steady_mark *m, bool light)
{
	return steady_same(m, &t->steady) && t->steady_light == light && t->steady_on_gpu == t->on_gpu &&
	       t->steady_vram == t->vram;
}

/* The steady check of t before a census (target_census), into *mark:
 * smaps_rollup and the names of its file mappings alone when the change
 * watch says its mappings are as t->steady saw them and a repeat may
 * come of it; else maps too, and the names where the watch can tell. */
static void steady_check(struct target *t, bool may_repeat, enum steady_mappings mappings,
			 struct steady_mark *mark, struct steady_files *files, uint64_t *bytes)
{
	if (mappings != STEADY_MAPPINGS_KEPT)
		t->steady_current = false; /* until a full census's mark is kept */
	if (may_repeat && t->steady_current && t->steady.has_names &&
	    steady_read_kept(t->pid_fd, &t->steady, &t->steady_files, mark, bytes) == 0 &&
	    steady_same(mark, &t->steady))
		return;
	/* what is kept of the mappings must be read from them */
	unsigned flags = mappings != STEADY_MAPPINGS_UNKNOWN ? STEADY_READ_NAMES : 0;
	if (steady_read(t->pid_fd, flags, mark, files, NULL, bytes) < 0)
		mark->source = STEADY_NONE;
}

/* t's steady check is mark now, its file mappings' starts files (taken). */
static void keep_mark(struct target *t, const struct steady_mark *mark, struct steady_files *files,
		      enum steady_mappings mappings)
{
	t->steady = *mark;
	/* a mark of the kept check (the GPU memory or the lightness moved)
	 * has the names at the starts already kept, and read no starts */
	if (!mark->has_names || files->n == mark->named) {
		steady_files_done(&t->steady_files);
		t->steady_files = *files;
		*files = (struct steady_files){ 0 };
	}
	/* the watch's take came before the mark's read */
	t->steady_current = mappings != STEADY_MAPPINGS_UNKNOWN && mark->source != STEADY_NONE;
}

int target_census(struct target *t, enum store_trigger trigger, bool light, bool evidence, bool may_repeat,
		  enum steady_mappings mappings, int64_t now_ms, const struct gpu_snapshot *gpu,
		  struct census_result *ret)
{
	struct scan_options o = { .keep_regions = true, .light = light, .gpu_snapshot = gpu, .no_evidence = !evidence };
	struct error err = { 0 };
	struct census *c = NULL;
	struct steady_mark mark = { .source = STEADY_NONE };
	_cleanup_(steady_files_done) struct steady_files files = { 0 };
	uint64_t t0 = now_monotonic_us(), cpu0 = now_thread_cpu_us(), steady_bytes = 0;
	int r;

	*ret = (struct census_result){
		.meta = { .time = now_ms, .trigger = trigger, .light = light, .wall_us = -1, .cpu_us = -1,
			  .bytes_read = -1 },
	};
	/* Read before the census, never after: a change between the two is
	 * then in the census and not in the mark, so the next check sees it
	 * and takes a full census; read after, the mark could hold a change
	 * the census missed, and later repeats would stand for the wrong
	 * content.  Any failure (the process exiting, a refusal) leaves the
	 * census itself to say what happened. */
	steady_check(t, may_repeat, mappings, &mark, &files, &steady_bytes);
	if (may_repeat && may_stand(t, &mark, light)) {
		/* read after the watch's take, and the same as what is kept */
		t->steady_current = mappings != STEADY_MAPPINGS_UNKNOWN;
		ret->meta.status = CENSUS_OK;
		ret->meta.light = t->steady_light;
		ret->meta.repeats_time = t->steady_census_time;
		ret->meta.time = daemon_clock_now_ms();
		ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
		ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
		ret->meta.bytes_read = (int64_t)steady_bytes;
		return 0;
	}
	r = scan_process(t->pid, &o, &c, &err);
	if (r == 0 && (uint64_t)c->start_time != t->start_time) {
		/* the pid holds another process now: ours is gone */
		c = census_free(c);
		r = -ESRCH;
		error_set(&err, r, "process %d exited; its pid was reused", t->pid);
	}
	if (r < 0) {
		ret->meta.status = r == -ENOENT || r == -ESRCH		? CENSUS_EXITED
				   : r == -EACCES || r == -EPERM	? CENSUS_DENIED
									: CENSUS_ERROR;
		/* the store keeps a census's reason as the scanner gave it, cut at
		 * sizeof(ret->message) - 1 bytes as it always was */
		snprintf(ret->message, sizeof(ret->message), "%.*s", (int)sizeof(ret->message) - 1,
			 error_message_or_strerror(&err, r));
		ret->meta.message = ret->message;
		ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
		ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
		return r == -ENOMEM ? r : 0;
	}

	ret->meta.status = CENSUS_OK;
	ret->meta.light = c->light;
	keep_mark(t, &mark, &files, mappings);
	t->steady_light = c->light;
	t->steady_on_gpu = t->on_gpu;
	t->steady_vram = t->vram;
	t->steady_private = census_private(c);
	/* the row is at the time the census says it was taken (its JSON's
	 * taken_at), a moment after it was asked for: a client that has the
	 * census finds its row by that time.  The time is the daemon clock's,
	 * as every row's, so a wall clock set back never puts it before an
	 * earlier row (daemon-clock.h) */
	c->taken_at_ms = daemon_clock_now_ms();
	ret->meta.time = c->taken_at_ms;
	t->steady_census_time = c->taken_at_ms;
	r = census_events(t, c, ret);
	if (r < 0) {
		t->steady.source = STEADY_NONE; /* this census is not stored */
		census_free(c);
		return r;
	}
	/* the snapshot holds what the next census needs; the store needs only
	 * the summaries */
	free(c->regions);
	c->regions = NULL;
	c->n_regions = 0;
	/* the cost is all the daemon spent on it: the read and the comparison */
	ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
	ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
	ret->meta.bytes_read = c->bytes_read + (int64_t)steady_bytes;
	ret->census = c;
	return 0;
}

void target_describe(const struct target *t, struct view_process *ret)
{
	const struct store_process *info = &t->ref->info;

	*ret = (struct view_process){
		.process_id = t->ref->id,
		.pid = t->pid,
		.start_time = info->start_time,
		.started_at = info->started_at,
		.uid = info->uid,
		.last_seen = info->seen,
		.boot_id = info->boot_id,
		.comm = info->comm,
		.exe = info->exe,
		.cmdline = info->cmdline,
		.private = t->private,
		.resident = t->resident,
		.peak_private = info->peak_private,
		.peak_resident = info->peak_resident,
		.vram = t->on_gpu ? (int64_t)t->vram : -1,
		.peak_vram = info->peak_vram,
	};
}
