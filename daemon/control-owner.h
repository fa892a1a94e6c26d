/* Whose is a process the daemon does not watch, for the control requests
 * that name one (scan, mark): the access rule (control-access.h) is
 * checked against it before anything else is read for the asker.
 *
 * linux/control-owner.c reads the process's status file under the proc
 * root (its real uid, its name, VmRSS).  windows/control-owner.c asks the
 * system: the user SID of the process's token (win-owner.h), its image's
 * name and its working set. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "control-access.h"

struct control_owner {
	int64_t uid;               /* Linux: the real uid; -1 on Windows */
	char sid[CONTROL_SID_MAX]; /* Windows: the user SID; "" on Linux */
	char name[64];             /* the process's name; "" unknown */
	bool have_resident;
	uint64_t resident;         /* bytes: VmRSS on Linux, the working set on Windows */
};

/* Reads the owner of process pid (root_fd: the proc root, on Linux).
 * Returns 0 with *ret, -ENOENT when there is no such process, or another
 * negative errno (-EACCES: it may not be looked at). */
int control_owner_read(int root_fd, int pid, struct control_owner *ret);
