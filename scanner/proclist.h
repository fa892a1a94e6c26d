/* The list of processes with their memory counters, from status files only
 * (a few microseconds each, readable for every process): how ramwatch scan
 * without a pid picks the process holding the most private memory. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct proc_entry {
	int pid;
	char comm[64];
	uint64_t private; /* RssAnon + VmSwap */
	uint64_t resident;
	int64_t uid;
};

/* Lists the user-space processes under the proc root (kernel threads and
 * processes that exit meanwhile are left out), the most private memory
 * first.  Returns 0 with *ret (free()) and *ret_n, or -errno. */
int proclist_collect(int root_fd, struct proc_entry **ret, size_t *ret_n);
