/* Following a Linux process (target-os.h): its proc directory, its
 * pidfd, the facts the store keeps of it. */
#include "target-os.h"

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
	_cleanup_(target_freep) struct target *t = target_alloc(pid, 0);
	_cleanup_free_ char *cmdline = NULL, *exe = NULL;
	struct proc_stat st;
	int r;

	if (!t)
		return -ENOMEM;
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


bool target_exit_source(const struct target *t, event_fd_t *ret)
{
	if (t->pidfd < 0)
		return false;
	*ret = t->pidfd;
	return true;
}
