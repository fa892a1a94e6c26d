/* The fast tier's reads on Linux (fast-read.h): statm kept open, status
 * through the process's proc directory. */
#include "fast-read.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <unistd.h>

#include "limits.h"
#include "procfs.h"
#include "target.h"

/* Whether fd leaves RW_FD_RESERVE descriptors free below the soft limit:
 * open() gives the lowest free number, so fd is about how many are open. */
static bool fd_below_reserve(int fd)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return true;
	return (rlim_t)fd + RW_FD_RESERVE < rl.rlim_cur;
}

int fast_read_round(struct fast_read **r)
{
	(void)r;
	return 0;
}

struct fast_read *fast_read_free(struct fast_read *r)
{
	(void)r;
	return NULL;
}

int fast_read_open_statm(const struct target *t)
{
	int fd = procfs_open_statm(t->proc_dir_fd);
	if (fd == -ENOENT || fd == -ESRCH)
		return -ESRCH;
	if (fd >= 0 && !fd_below_reserve(fd)) {
		close(fd);
		return -EMFILE;
	}
	return fd;
}

int fast_read_statm_text(int fd, char *buf, size_t size, size_t *ret_len)
{
	return procfs_pread_statm_text(fd, buf, size, ret_len);
}

int fast_read_figures(struct fast_read *r, const struct target *t, uint64_t *ret_private, uint64_t *ret_resident,
		      uint64_t *ret_swap)
{
	struct proc_status st;
	uint64_t private;

	(void)r;
	int k = procfs_read_status(t->proc_dir_fd, &st);
	if (k == -ENOENT || k == -ESRCH)
		return -ESRCH;
	if (k < 0)
		return k;
	/* a zombie, or a task past exit_mm: the memory is gone */
	if (st.state == 'Z' || st.state == 'X' || !status_has(&st, STATUS_VM_RSS))
		return -ESRCH;
	if (!status_private(&st, &private))
		private = st.counter[STATUS_RSS_ANON] + st.counter[STATUS_VM_SWAP];
	*ret_private = private;
	*ret_resident = st.counter[STATUS_VM_RSS];
	*ret_swap = st.counter[STATUS_VM_SWAP];
	return 0;
}
