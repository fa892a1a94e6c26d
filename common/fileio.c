/* Whole-file reads with a size limit, and atomic writes. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "util.h"

int read_full_fd(int fd, size_t max, char **ret_buf, size_t *ret_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, allocated = 0;
	struct stat st;

	/* a regular file says its size: refuse a large one before reading it
	 * (files in /proc say 0 and are read to their end) */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
		return -EFBIG;

	for (;;) {
		if (allocated - size < 4096 + 1) {
			size_t want = allocated ? allocated * 2 : 4096 * 2;
			if (want > max + 4096 + 1)
				want = max + 4096 + 1;
			if (want <= allocated)
				return -EFBIG;
			char *n = realloc(buf, want);
			if (!n)
				return -ENOMEM;
			buf = n;
			allocated = want;
		}
		ssize_t k = read(fd, buf + size, allocated - size - 1);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (k == 0)
			break;
		size += (size_t)k;
		if (size > max)
			return -EFBIG;
	}
	buf[size] = '\0';
	*ret_buf = TAKE_PTR(buf);
	if (ret_size)
		*ret_size = size;
	return 0;
}

int read_full_fileat(int dirfd, const char *name, size_t max, char **ret_buf, size_t *ret_size)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return negative_errno();
	return read_full_fd(fd, max, ret_buf, ret_size);
}

/* See fileio.h.  A FIFO is opened without
 * waiting for a writer (open(2) would block until one comes, fifo(7)) and
 * then read as a stream, so one no process writes to reads as empty. */
int open_input(const char *path)
{
	if (streq(path, "-")) {
		int fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? negative_errno() : fd;
	}
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0)
		return negative_errno();
	return TAKE_FD(fd);
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t k = write(fd, p, len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX];
	int r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	_cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return negative_errno();
	r = write_all(fd, data, len);
	if (r >= 0 && fsync(fd) < 0)
		r = negative_errno();
	if (r >= 0 && rename(tmp, path) < 0)
		r = negative_errno();
	if (r < 0)
		unlink(tmp);
	return r;
}
