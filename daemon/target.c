/* One watched process (target.h): following an instance, its
 * descriptors, what the daemon tells of it.  Each other part of a target
 * is its owner's, made ready and freed through its owner's calls. */
#include "target.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "macro.h"
#include "procfs.h"
#include "util.h"

DEFINE_CLEANUP(struct target *, target_free)

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
	fast_tier_target_init(t);
	t->proc_dir_fd = procfs_open_pid(root_fd, pid);
	if (t->proc_dir_fd < 0)
		return t->proc_dir_fd == -ENOENT ? -ESRCH : t->proc_dir_fd;
	r = procfs_read_stat(t->proc_dir_fd, &st);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	t->start_time = st.start_time;
	r = procfs_read_cmdline(t->proc_dir_fd, &cmdline);
	if (r == -ENOENT || r == -ESRCH)
		return -ESRCH;
	r = procfs_read_exe(t->proc_dir_fd, &exe); /* may be refused: then unknown */
	if (r == -ENOMEM)
		return r;
	/* read once: a process seldom moves, and the metrics group by it */
	r = procfs_read_cgroup(t->proc_dir_fd, &t->cgroup);
	if (r == -ENOMEM)
		return r;

	/* The pidfd names whatever holds pid now; it is this instance when
	 * the directory opened before it still answers with the same start. */
	t->pidfd = pidfd_open(pid, 0);
	if (t->pidfd >= 0 && procfs_still_alive(t->proc_dir_fd, t->start_time) != 1)
		return -ESRCH;
	if (t->pidfd >= 0 && id->pidfd_below > 0 && t->pidfd >= id->pidfd_below) {
		close(t->pidfd);
		t->pidfd = -1;
	}

	/* after the pidfd, which pidfd_below leaves room for */
	r = fast_tier_open_statm(t);
	if (r < 0)
		return r;

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
	if (t->proc_dir_fd >= 0)
		close(t->proc_dir_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	fast_tier_target_done(t);
	census_tier_target_done(t);
	proc_ref_unref(t->ref);
	free(t->cgroup);
	free(t->memcg);
	free(t);
	return NULL;
}

unsigned target_fds(const struct target *t)
{
	return (t->proc_dir_fd >= 0) + (t->pidfd >= 0) + (t->fast.statm_fd >= 0);
}

void target_set_memcg(struct target *t, const char *path)
{
	if (t->memcg && streq(t->memcg, path))
		return;
	char *copy = strdup(path);
	if (!copy)
		return;
	free(t->memcg);
	t->memcg = copy;
}

void target_describe(const struct target *t, struct core_process *ret)
{
	const struct store_process *info = &t->ref->info;

	*ret = (struct core_process){
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
		.cgroup = t->cgroup,
		.memcg = t->memcg,
		.private = t->fast.private,
		.resident = t->fast.resident,
		.peak_private = info->peak_private,
		.peak_resident = info->peak_resident,
		.vram = t->gpu.on_gpu ? (int64_t)t->gpu.vram : -1,
		.peak_vram = info->peak_vram,
	};
}
