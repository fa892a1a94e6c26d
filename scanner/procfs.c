/* Readers of /proc/PID files, relative to a directory fd. */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "util.h"

int procfs_open_root(const char *path)
{
	int fd = open(path ? path : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

int procfs_open_pid(int root_fd, int pid)
{
	char name[16];
	snprintf(name, sizeof(name), "%d", pid);
	int fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

int procfs_read_stat(int pid_fd, struct proc_stat *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = read_full_fileat(pid_fd, "stat", RW_PROC_FILE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return stat_parse(buf, len, ret);
}

int procfs_read_status(int pid_fd, struct proc_status *ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r = read_full_fileat(pid_fd, "status", RW_PROC_FILE_MAX, &buf, &len);
	if (r < 0)
		return r;
	return status_parse(buf, len, ret);
}

int procfs_open_statm(int pid_fd)
{
	int fd = openat(pid_fd, "statm", O_RDONLY | O_CLOEXEC);
	return fd < 0 ? negative_errno() : fd;
}

int procfs_pread_statm_text(int fd, char *buf, size_t size, size_t *ret_len)
{
	ssize_t n = pread(fd, buf, size, 0);
	if (n < 0)
		return errno == ENOENT ? -ESRCH : negative_errno();
	/* a task past exit_mm reads as empty on some kernels */
	if (n == 0)
		return -ESRCH;
	if ((size_t)n == size)
		return -EBADMSG;
	*ret_len = (size_t)n;
	return 0;
}

int procfs_pread_statm(int fd, struct proc_statm *ret)
{
	char buf[RW_STATM_TEXT_MAX];
	size_t n;
	int r = procfs_pread_statm_text(fd, buf, sizeof(buf), &n);
	if (r < 0)
		return r;
	return statm_parse(buf, n, ret);
}

int procfs_read_cmdline(int pid_fd, char **ret)
{
	_cleanup_free_ char *raw = NULL;
	size_t len;
	int r = read_full_fileat(pid_fd, "cmdline", RW_PROC_FILE_MAX, &raw, &len);
	if (r < 0)
		return r;
	char *joined = malloc(RW_CMDLINE_MAX + 1);
	if (!joined)
		return -ENOMEM;
	cmdline_join(raw, len, joined, RW_CMDLINE_MAX + 1);
	*ret = joined;
	return 0;
}

int procfs_read_cgroup(int pid_fd, char **ret)
{
	_cleanup_free_ char *raw = NULL;
	char path[PATH_MAX];
	size_t len;
	int r = read_full_fileat(pid_fd, "cgroup", RW_PROC_FILE_MAX, &raw, &len);
	if (r < 0)
		return r;
	r = cgroup_parse_unified(raw, len, path, sizeof(path));
	if (r < 0)
		return r;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	*ret = copy;
	return 0;
}

int procfs_read_exe(int pid_fd, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(pid_fd, "exe", buf, sizeof(buf) - 1);
	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	char *s = strdup(buf);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int procfs_read_boot_id(int root_fd, char **ret)
{
	char *buf;
	size_t len;
	int r = read_full_fileat(root_fd, "sys/kernel/random/boot_id", 256, &buf, &len);
	if (r < 0)
		return r;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	*ret = buf;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int procfs_read_stack_pointers(int pid_fd, uint64_t **ret, size_t *ret_n, size_t *ret_threads)
{
	_cleanup_free_ uint64_t *sps = NULL;
	size_t n = 0, allocated = 0, threads = 0, readable = 0;
	int first_error = 0;

	int task_fd = openat(pid_fd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (task_fd < 0)
		return negative_errno();
	_cleanup_closedir_ DIR *d = fdopendir(task_fd);
	if (!d) {
		int r = negative_errno();
		close(task_fd);
		return r;
	}
	struct dirent *de;
	while ((de = readdir(d)) && threads < RW_THREADS_MAX) {
		char path[64];
		_cleanup_free_ char *buf = NULL;
		size_t len;
		uint64_t sp;
		int tid;

		if (parse_pid(de->d_name, &tid) < 0)
			continue;
		threads++;
		snprintf(path, sizeof(path), "%d/syscall", tid);
		int r = read_full_fileat(task_fd, path, 4096, &buf, &len);
		if (r < 0) {
			if (!first_error && r != -ENOENT && r != -ESRCH)
				first_error = r;
			continue;
		}
		readable++;
		if (syscall_parse_sp(buf, len, &sp) <= 0)
			continue;
		if (n == allocated) {
			size_t want = allocated ? allocated * 2 : 16;
			uint64_t *m = realloc(sps, want * sizeof(*m));
			if (!m)
				return -ENOMEM;
			sps = m;
			allocated = want;
		}
		sps[n++] = sp;
	}
	if (readable == 0 && first_error)
		return first_error;
	qsort_safe(sps, n, sizeof(*sps), cmp_u64);
	*ret = TAKE_PTR(sps);
	*ret_n = n;
	if (ret_threads)
		*ret_threads = threads;
	return 0;
}

int procfs_still_alive(int pid_fd, uint64_t start_time)
{
	struct proc_stat st;
	int r = procfs_read_stat(pid_fd, &st);
	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	/* a zombie (Z) or dead (X) process has released its address space */
	if (st.state == 'Z' || st.state == 'X' || st.start_time != start_time)
		return 0;
	return 1;
}

int procfs_for_each_pid(int root_fd, int (*fn)(int pid, void *userdata), void *userdata)
{
	int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (!d) {
		int r = negative_errno();
		close(fd);
		return r;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		int pid;
		if (parse_pid(de->d_name, &pid) < 0)
			continue;
		int r = fn(pid, userdata);
		if (r < 0)
			return r;
	}
	return 0;
}
