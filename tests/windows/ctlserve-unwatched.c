/* What the control code asks about processes the daemon does not watch,
 * for ctlserve.exe, which watches nothing: on Windows there is no /proc
 * to read an unwatched process's owner from, nor a Linux scanner, and the
 * daemon's Windows side of them belongs with its discovery and census.
 * Here every such process is unknown ("no process N"); a scan of one is
 * the Windows census's (census-read.h). */
#include <errno.h>

#include "procfs.h"

int procfs_open_pid(int root_fd, int pid)
{
	(void)root_fd, (void)pid;
	return -ENOENT;
}

int procfs_read_status(int pid_fd, struct proc_status *ret)
{
	(void)pid_fd, (void)ret;
	return -ESRCH;
}
