/* The memory cgroups of the watched processes (cgroup-watch.h).
 *
 * A tick costs one read of /proc/PID/cgroup per watched process and the
 * handful of files of each group (cgroup_mem_read); the groups are few
 * beside the processes.  The table is rebuilt at each tick: a process
 * moves between groups, a group goes with its last process. */
#include "cgroup-watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "store.h"
#include "util.h"
#include "writer.h"

struct group {
	char *path;
	uint64_t inode;
	uint64_t processes, private, resident;
	bool read;
	struct cgroup_mem mem;
};

struct cgroup_watch {
	struct cgroup_mem_mount mount;
	int mount_fd;
	struct group *groups;
	size_t n_groups, allocated;
	struct export_cgroup *export;
	size_t allocated_export;
	struct cgroup_watch_limit *limits;
	size_t n_limits, allocated_limits;
	uint64_t *limit_inodes;
	size_t allocated_inodes;
};

int cgroup_watch_new(const char *mountinfo_path, struct cgroup_watch **ret)
{
	struct cgroup_watch *cw = calloc(1, sizeof(*cw));
	int r;

	if (!cw)
		return -ENOMEM;
	r = cgroup_mem_open_mount(mountinfo_path, &cw->mount, &cw->mount_fd);
	if (r < 0) {
		free(cw);
		return r;
	}
	*ret = cw;
	return 0;
}

static void clear_groups(struct cgroup_watch *cw)
{
	for (size_t i = 0; i < cw->n_groups; i++)
		free(cw->groups[i].path);
	cw->n_groups = 0;
}

struct cgroup_watch *cgroup_watch_free(struct cgroup_watch *cw)
{
	if (!cw)
		return NULL;
	clear_groups(cw);
	free(cw->groups);
	free(cw->export);
	free(cw->limits);
	free(cw->limit_inodes);
	close(cw->mount_fd);
	free(cw);
	return NULL;
}

enum cgroup_mem_version cgroup_watch_version(const struct cgroup_watch *cw)
{
	return cw->mount.version;
}

int cgroup_watch_mount_fd(const struct cgroup_watch *cw)
{
	return cw->mount_fd;
}

const struct cgroup_mem_mount *cgroup_watch_mount(const struct cgroup_watch *cw)
{
	return &cw->mount;
}

bool cgroup_watch_path_within(const char *path, const char *top)
{
	size_t n = strlen(top);
	if (n == 1 && top[0] == '/')
		return path[0] == '/';
	return strncmp(path, top, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* The inode of the group at path (its directory below the mount), 0 when
 * it cannot be read. */
static uint64_t inode_of(const struct cgroup_watch *cw, const char *path)
{
	struct stat st;
	const char *rel = path[0] == '/' && path[1] ? path + 1 : ".";
	return fstatat(cw->mount_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_ino : 0;
}

void cgroup_watch_begin(struct cgroup_watch *cw)
{
	clear_groups(cw);
}

const char *cgroup_watch_add_process(struct cgroup_watch *cw, int proc_dir_fd, uint64_t private, uint64_t resident)
{
	char path[CGROUP_MEM_PATH_MAX];
	struct group *g = NULL;

	if (cgroup_mem_process_path(proc_dir_fd, &cw->mount, path, sizeof(path)) < 0)
		return NULL;
	for (size_t i = 0; i < cw->n_groups && !g; i++)
		if (streq(cw->groups[i].path, path))
			g = &cw->groups[i];
	if (!g) {
		if (array_grow((void **)&cw->groups, cw->n_groups + 1, &cw->allocated, sizeof(*cw->groups), 8) < 0)
			return NULL;
		g = &cw->groups[cw->n_groups];
		*g = (struct group){ .path = strdup(path) };
		if (!g->path)
			return NULL;
		cw->n_groups++;
	}
	g->processes++;
	g->private += private;
	g->resident += resident;
	return g->path;
}

static void queue_row(const struct cgroup_watch *cw, const struct group *g, struct writer *writer, int64_t now_ms)
{
	const struct cgroup_mem *m = &g->mem;
	struct store_cgroup sg = {
		.version = cw->mount.version == CGROUP_MEM_V1 ? 1 : 2,
		.path = g->path,
		.inode = g->inode,
	};
	struct store_cgroup_sample x = {
		.time = now_ms,
		.usage = m->usage,
		.have_limit = m->have_limit,
		.have_applies = m->have_applies,
		.have_high = m->have_high,
		.have_swap = m->have_swap,
		.limit = m->limit,
		.applies = m->applies,
		.high = m->high,
		.swap = m->swap,
		.anon = m->anon,
		.file = m->file,
		.shmem = m->shmem,
		.have_kernel = m->have_kernel,
		.have_sock = m->have_sock,
		.kernel = m->kernel,
		.sock = m->sock,
		.have_events = m->have_events,
		.oom = m->oom,
		.oom_kill = m->oom_kill,
		/* v2 only: v1's oom_control has neither */
		.have_high_max_events = m->have_events && cw->mount.version == CGROUP_MEM_V2,
		.events_high = m->events_high,
		.events_max = m->events_max,
		.processes = g->processes,
		.processes_private = g->private,
		.processes_resident = g->resident,
	};
	(void)writer_add_cgroup(writer, &sg, &x);
}

/* Adds the group whose limit applies to g, once. */
static void add_limit(struct cgroup_watch *cw, const struct group *g)
{
	char holder[CGROUP_MEM_PATH_MAX];

	if (cgroup_mem_limit_holder(cw->mount_fd, &cw->mount, g->path, g->mem.applies, holder, sizeof(holder)) < 0)
		return;
	for (size_t i = 0; i < cw->n_limits; i++)
		if (streq(cw->limits[i].path, holder))
			return;
	if (array_grow((void **)&cw->limits, cw->n_limits + 1, &cw->allocated_limits, sizeof(*cw->limits), 4) < 0 ||
	    array_grow((void **)&cw->limit_inodes, cw->n_limits + 1, &cw->allocated_inodes, sizeof(*cw->limit_inodes),
		       4) < 0)
		return;
	struct cgroup_watch_limit *l = &cw->limits[cw->n_limits];
	memcpy(l->path, holder, strlen(holder) + 1);
	l->limit = g->mem.applies;
	cw->limit_inodes[cw->n_limits] = inode_of(cw, holder);
	cw->n_limits++;
}

void cgroup_watch_end(struct cgroup_watch *cw, struct writer *writer, int64_t now_ms)
{
	cw->n_limits = 0;
	for (size_t i = 0; i < cw->n_groups; i++) {
		struct group *g = &cw->groups[i];
		int r = cgroup_mem_read(cw->mount_fd, &cw->mount, g->path, &g->mem);
		if (r < 0) {
			/* gone between the two reads, or not readable: left out */
			if (r != -ENOENT)
				log_debug_errno(r, "cannot read the memory cgroup %s: %m", g->path);
			continue;
		}
		g->read = true;
		g->inode = inode_of(cw, g->path);
		if (writer)
			queue_row(cw, g, writer, now_ms);
		if (g->mem.have_applies)
			add_limit(cw, g);
	}
}

int cgroup_watch_path_of(const struct cgroup_watch *cw, int proc_dir_fd, char *buf, size_t size)
{
	return cgroup_mem_process_path(proc_dir_fd, &cw->mount, buf, size);
}

int cgroup_watch_limit_of(const struct cgroup_watch *cw, const char *path, struct cgroup_watch_limit *ret)
{
	struct cgroup_mem m;
	int r;

	if ((r = cgroup_mem_read(cw->mount_fd, &cw->mount, path, &m)) < 0)
		return r;
	if (!m.have_applies)
		return -ENOENT;
	ret->limit = m.applies;
	return cgroup_mem_limit_holder(cw->mount_fd, &cw->mount, path, m.applies, ret->path, sizeof(ret->path));
}

const struct cgroup_watch_limit *cgroup_watch_limits(const struct cgroup_watch *cw, size_t *ret_n)
{
	*ret_n = cw->n_limits;
	return cw->limits;
}

const struct export_cgroup *cgroup_watch_export(const struct cgroup_watch *cw, size_t *ret_n)
{
	struct cgroup_watch *w = (struct cgroup_watch *)cw;
	size_t n = 0;

	if (cw->n_groups == 0 ||
	    array_grow((void **)&w->export, cw->n_groups, &w->allocated_export, sizeof(*w->export), 8) < 0) {
		*ret_n = 0;
		return NULL;
	}
	for (size_t i = 0; i < cw->n_groups; i++) {
		const struct group *g = &cw->groups[i];
		if (!g->read)
			continue;
		w->export[n++] = (struct export_cgroup){
			.path = g->path,
			.have_limit = g->mem.have_applies,
			.usage = g->mem.usage,
			.limit = g->mem.applies,
			.have_oom_kill = g->mem.have_events,
			.oom_kill = g->mem.oom_kill,
		};
	}
	*ret_n = n;
	return w->export;
}

/* ------------------------------------------------------------ ids */

/* Depth first below dir (path rel), counting directories in *budget. */
static int walk(int dir_fd, char *rel, size_t size, uint64_t id, unsigned *budget)
{
	DIR *d = fdopendir(dir_fd);
	struct dirent *e;
	int r = -ENOENT;

	if (!d) {
		close(dir_fd);
		return -ENOENT;
	}
	size_t len = strlen(rel);
	while (r == -ENOENT && *budget > 0 && (e = readdir(d))) {
		if (e->d_type != DT_DIR || streq(e->d_name, ".") || streq(e->d_name, ".."))
			continue;
		(*budget)--;
		if (len + 1 + strlen(e->d_name) + 1 > size)
			continue;
		snprintf(rel + len, size - len, "/%s", e->d_name);
		if ((uint64_t)e->d_ino == id)
			r = 0;
		else {
			int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0)
				r = walk(fd, rel, size, id, budget);
		}
		if (r < 0)
			rel[len] = 0;
	}
	closedir(d);
	return r;
}

int cgroup_watch_path_of_id(const struct cgroup_watch *cw, uint64_t id, char *buf, size_t size)
{
	if (id == 0 || size < 2)
		return -ENOENT;
	for (size_t i = 0; i < cw->n_groups; i++)
		if (cw->groups[i].inode == id)
			return snprintf(buf, size, "%s", cw->groups[i].path) < (int)size ? 0 : -ENOENT;
	for (size_t i = 0; i < cw->n_limits; i++)
		if (cw->limit_inodes[i] == id)
			return snprintf(buf, size, "%s", cw->limits[i].path) < (int)size ? 0 : -ENOENT;
	if (inode_of(cw, "/") == id) {
		snprintf(buf, size, "/");
		return 0;
	}
	int fd = openat(cw->mount_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	unsigned budget = CGROUP_WATCH_WALK_MAX;
	buf[0] = 0;
	return walk(fd, buf, size, id, &budget);
}
