/* Listing processes by their status counters. */
#include "proclist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "procfs.h"

struct collector {
	int root_fd;
	struct proc_entry *entries;
	size_t n, allocated;
};

static int collect_one(int pid, void *userdata)
{
	struct collector *c = userdata;
	_cleanup_close_ int fd = procfs_open_pid(c->root_fd, pid);
	struct proc_status st;
	uint64_t private;

	if (fd < 0)
		return 0; /* gone, or hidden (hidepid): not ours to list */
	if (procfs_read_status(fd, &st) < 0 || st.kthread || !status_private(&st, &private))
		return 0; /* kernel threads have no RssAnon */
	if (c->n == c->allocated) {
		size_t want = c->allocated ? c->allocated * 2 : 256;
		struct proc_entry *e = realloc(c->entries, want * sizeof(*e));
		if (!e)
			return -ENOMEM;
		c->entries = e;
		c->allocated = want;
	}
	struct proc_entry *e = &c->entries[c->n++];
	*e = (struct proc_entry){
		.pid = pid,
		.private = private,
		.resident = st.counter[STATUS_VM_RSS],
		.uid = st.uid,
	};
	memcpy(e->comm, st.name, sizeof(e->comm));
	return 0;
}

static int cmp_private(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;
	if (x->private != y->private)
		return x->private > y->private ? -1 : 1;
	return x->pid - y->pid;
}

int proclist_collect(int root_fd, struct proc_entry **ret, size_t *ret_n)
{
	struct collector c = { .root_fd = root_fd };
	int r = procfs_for_each_pid(root_fd, collect_one, &c);
	if (r < 0) {
		free(c.entries);
		return r;
	}
	qsort_safe(c.entries, c.n, sizeof(*c.entries), cmp_private);
	*ret = c.entries;
	*ret_n = c.n;
	return 0;
}
