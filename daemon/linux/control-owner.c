/* Whose is a process the daemon does not watch, on Linux
 * (control-owner.h): its status file under the proc root. */
#include "control-owner.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "procfs.h"

int control_owner_read(int root_fd, int pid, struct control_owner *ret)
{
	struct proc_status st;
	int fd = procfs_open_pid(root_fd, pid);
	if (fd < 0)
		return fd;
	int r = procfs_read_status(fd, &st);
	close(fd);
	if (r < 0)
		return r == -ESRCH ? -ENOENT : r;
	*ret = (struct control_owner){
		.uid = st.uid,
		.have_resident = status_has(&st, STATUS_VM_RSS),
		.resident = st.counter[STATUS_VM_RSS],
	};
	snprintf(ret->name, sizeof(ret->name), "%s", st.name);
	return 0;
}
