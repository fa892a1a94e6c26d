/* The memory cgroups of the watched processes: at each store tick, which
 * group each watched process is in, each such group read (usage, the
 * limit that applies, memory.stat, the OOM counters) and queued with the
 * sums of its processes' private and resident memory, so that what the
 * kernel charges a group beyond its processes shows; the groups whose
 * limit applies to them (where the census before death watches); and a
 * group's path from the id the kernel gives it (its directory's inode),
 * for the OOM watch's kills.
 *
 * cgroup-watch.c owns the controller's mount and the table of groups of
 * the last tick; the manager feeds it the watched processes one by one
 * (it knows no target) and reads the table back through this header. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup-mem.h"
#include "export-text.h"

struct cgroup_watch;
struct writer;

/* A group whose limit applies to groups of watched processes: where the
 * census before death watches the usage (v1: its usage_in_bytes against
 * the threshold; v2: its memory.current). */
struct cgroup_watch_limit {
	char path[CGROUP_MEM_PATH_MAX];
	uint64_t limit;
};

/* Finds the memory controller and opens its mount (mountinfo_path NULL:
 * /proc/self/mountinfo).  Returns 0 with *ret, -ENOENT where no memory
 * controller is mounted (the daemon then has no groups), -ENOMEM. */
int cgroup_watch_new(const char *mountinfo_path, struct cgroup_watch **ret);
/* Accepts NULL, returns NULL. */
struct cgroup_watch *cgroup_watch_free(struct cgroup_watch *cw);

enum cgroup_mem_version cgroup_watch_version(const struct cgroup_watch *cw);
/* The mount's descriptor and description, for reading a group's usage. */
int cgroup_watch_mount_fd(const struct cgroup_watch *cw);
const struct cgroup_mem_mount *cgroup_watch_mount(const struct cgroup_watch *cw);

/* A store tick: begin, then each watched process (its /proc/PID
 * descriptor and its last private and resident figures), then end, which
 * reads each group, queues its row on writer at now_ms, and finds the
 * groups whose limits apply.  A process whose group cannot be read is
 * left out of this tick.  add_process returns the path of the process's
 * group (the table's, valid until the next begin), or NULL when it was
 * left out. */
void cgroup_watch_begin(struct cgroup_watch *cw);
const char *cgroup_watch_add_process(struct cgroup_watch *cw, int proc_dir_fd, uint64_t private, uint64_t resident);
void cgroup_watch_end(struct cgroup_watch *cw, struct writer *writer, int64_t now_ms);

/* The memory cgroup of the process whose /proc/PID is proc_dir_fd, its
 * path into buf (size bytes).  Returns 0 or a negative errno. */
int cgroup_watch_path_of(const struct cgroup_watch *cw, int proc_dir_fd, char *buf, size_t size);

/* The limit that applies to the group at path, and the group that holds
 * it, into *ret.  Returns 0, -ENOENT when no limit applies, or another
 * negative errno. */
int cgroup_watch_limit_of(const struct cgroup_watch *cw, const char *path, struct cgroup_watch_limit *ret);

/* The groups whose limits apply to the groups of the last tick (each
 * once), and how many. */
const struct cgroup_watch_limit *cgroup_watch_limits(const struct cgroup_watch *cw, size_t *ret_n);

/* The groups of the last tick, for the metrics (their strings are the
 * watch's, valid until the next tick). */
const struct export_cgroup *cgroup_watch_export(const struct cgroup_watch *cw, size_t *ret_n);

/* The path of the group whose directory's inode is id, into buf: a group
 * of the last tick or a limit's, else a walk of the mount (at most
 * CGROUP_WATCH_WALK_MAX directories).  Returns 0, -ENOENT. */
#define CGROUP_WATCH_WALK_MAX 8192
int cgroup_watch_path_of_id(const struct cgroup_watch *cw, uint64_t id, char *buf, size_t size);

/* Whether the group at path is below, or is, the group at top. */
bool cgroup_watch_path_within(const char *path, const char *top);
