/* Memory cgroups: where the memory controller is mounted, which group a
 * process is in, and a group's usage, limits, statistics and OOM counters,
 * on cgroup v1 and v2 alike.
 *
 * The parsers are pure (text in, figures out); cgroup_mem_read reads a
 * group's files through the controller's mount, opened once.
 *
 * v1 and v2 say the same things in other words:
 *   usage      memory.usage_in_bytes        memory.current
 *   limit      memory.limit_in_bytes        memory.max ("max": none)
 *   applies    memory.stat                  the lowest memory.max or
 *              hierarchical_memory_limit    memory.high up the tree
 *   high       -                            memory.high
 *   swap       memsw.usage - usage          memory.swap.current
 *   OOM kills  memory.oom_control oom_kill  memory.events oom_kill
 * v1 counts a limit as PAGE_COUNTER_MAX pages when there is none
 * (9223372036854771712 bytes with 4 KiB pages): anything from 2^62 on is
 * no limit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cgroup_mem_version {
	CGROUP_MEM_NONE, /* no memory controller mounted */
	CGROUP_MEM_V1,
	CGROUP_MEM_V2,
};

#define CGROUP_MEM_PATH_MAX 4096

/* Where the memory controller is: its mount point, the group the mount
 * shows at its root (a container's "/docker/ID"), and its version. */
struct cgroup_mem_mount {
	enum cgroup_mem_version version;
	char mount_point[CGROUP_MEM_PATH_MAX];
	char root[CGROUP_MEM_PATH_MAX];
};

/* From /proc/self/mountinfo: the v1 hierarchy with the memory controller,
 * else a v2 mount; v2 counts only when its root's cgroup.controllers
 * (given, or NULL when it could not be read) lists memory.  Returns 0,
 * -ENOENT when no mount has the controller, -EBADMSG. */
int cgroup_mem_mount_parse(const char *mountinfo, size_t len, const char *v2_controllers,
			   struct cgroup_mem_mount *ret);

/* A process's memory group, from /proc/PID/cgroup, under the mount's root
 * (the directory below the mount point; "/" for the mount's root).
 * Returns 0, -ENODATA when the process has no group of that version,
 * -ENAMETOOLONG, -EBADMSG. */
int cgroup_mem_path_parse(const char *text, size_t len, const struct cgroup_mem_mount *m, char *buf, size_t size);

/* A memory group at a moment.  Figures its version does not give are
 * marked absent. */
struct cgroup_mem {
	enum cgroup_mem_version version;
	uint64_t usage;
	bool have_limit, have_applies, have_high, have_swap;
	uint64_t limit;   /* its own */
	uint64_t applies; /* the one that applies: its own or an ancestor's */
	uint64_t high;    /* v2: where the kernel starts reclaiming hard */
	uint64_t swap;
	/* memory.stat, the group with its descendants: anonymous, page
	 * cache, shared memory (tmpfs, shm), kernel (v2, and v1's kmem) and
	 * socket buffers (v2) */
	bool have_kernel, have_sock;
	uint64_t anon, file, shmem, kernel, sock;
	/* OOM counters since the group was made (v2's high and max: times
	 * the group went past memory.high and hit memory.max) */
	bool have_events;
	uint64_t oom, oom_kill, events_high, events_max;
};

/* A limit file's value: a number, or "max" (v2) and v1's huge values for
 * none.  Returns 1 with *ret for a limit, 0 for none, -EBADMSG. */
int cgroup_mem_limit_parse(const char *text, size_t len, uint64_t *ret);

/* memory.stat into *ret (v1: the total_* lines and
 * hierarchical_memory_limit; v2: anon, file, shmem, kernel, sock).
 * Returns 0 or -EBADMSG. */
int cgroup_mem_stat_parse(const char *text, size_t len, enum cgroup_mem_version v, struct cgroup_mem *ret);

/* v1 memory.oom_control or v2 memory.events into *ret.  Returns 0 or
 * -EBADMSG. */
int cgroup_mem_events_parse(const char *text, size_t len, enum cgroup_mem_version v, struct cgroup_mem *ret);

/* Reads the group at path (as cgroup_mem_path_parse gives it) below the
 * mount opened as mount_fd.  Returns 0, -ENOENT when the group is gone,
 * or another negative errno. */
int cgroup_mem_read(int mount_fd, const struct cgroup_mem_mount *m, const char *path, struct cgroup_mem *ret);

/* The usage of the group at path, alone (a cheap read for polling).
 * Returns 0, -ENOENT when the group is gone, or another negative errno. */
int cgroup_mem_read_usage(int mount_fd, const struct cgroup_mem_mount *m, const char *path, uint64_t *ret);

/* The group whose own limit is applies, from path up to the mount's root
 * (the group the limit that applies to path is set on), into buf.
 * Returns 0, -ENOENT when none has it, -ENAMETOOLONG, another errno. */
int cgroup_mem_limit_holder(int mount_fd, const struct cgroup_mem_mount *m, const char *path, uint64_t applies,
			    char *buf, size_t size);

/* The memory group of the process whose /proc/PID is proc_dir_fd, as
 * cgroup_mem_path_parse gives it.  Returns 0 or its errors, -ENOENT or
 * -ESRCH when the process is gone. */
int cgroup_mem_process_path(int proc_dir_fd, const struct cgroup_mem_mount *m, char *buf, size_t size);

/* Finds the memory controller (mountinfo_path NULL: /proc/self/mountinfo;
 * v1 first, else a v2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified
 * whose root has the memory controller) and opens its mount point.
 * Returns 0 with *ret_mount and *ret_fd (the caller's), -ENOENT where
 * there is none, another negative errno. */
int cgroup_mem_open_mount(const char *mountinfo_path, struct cgroup_mem_mount *ret_mount, int *ret_fd);
