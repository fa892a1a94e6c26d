/* What the unit tests that make real memory cgroups share: the memory
 * controller's mount (skipped where there is none), writing a group's
 * file, and a child process put in a group that grows until it is
 * killed, or only waits. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "cgroup-mem.h"
#include "fileio.h"

/* Writes text into dir/name.  Returns 0 or a negative errno. */
static inline int cgroup_test_write(const char *dir, const char *name, const char *text)
{
	char path[CGROUP_MEM_PATH_MAX + 128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = write_all(fd, text, strlen(text));
	close(fd);
	return r;
}

/* The memory controller's mount, as the daemon finds it.  Returns 0, or
 * -ENOENT where none is mounted (the caller skips). */
static inline int cgroup_test_mount(struct cgroup_mem_mount *ret)
{
	char *mi = NULL, *controllers = NULL;
	size_t len, clen;

	if (read_full_fileat(AT_FDCWD, "/proc/self/mountinfo", 1 << 20, &mi, &len) < 0)
		return -ENOENT;
	/* the v2 root's controllers, where v2 is the hierarchy */
	read_full_fileat(AT_FDCWD, "/sys/fs/cgroup/cgroup.controllers", 4096, &controllers, &clen);
	int r = cgroup_mem_mount_parse(mi, len, controllers, ret);
	free(mi);
	free(controllers);
	return r;
}

/* A child put in the group at dir that allocates and writes a MiB at a
 * time until it is killed (grow), or that waits to be killed.  Returns
 * its pid. */
static inline pid_t cgroup_test_child(const char *dir, bool grow)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	char buf[32];
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	if (cgroup_test_write(dir, "cgroup.procs", buf) < 0)
		_exit(2);
	if (!grow)
		for (;;)
			pause();
	for (;;) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(3);
		memset(p, 1, 1 << 20);
	}
}
