/* Opening the file behind a process's mapping (mapping-file.h).  The
 * process is not trusted: its root may be a container's, full of links
 * it made; so the file is opened without following a link out of that
 * root and is then checked to be the one the kernel says is mapped. */
#include "mapping-file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"

#define OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

static bool is_deleted(const char *path)
{
	static const char gone[] = " (deleted)";
	size_t n = strlen(path), g = sizeof(gone) - 1;
	return n > g && strcmp(path + n - g, gone) == 0;
}

/* Whether fd is a regular file with the mapping's inode.  Not its device:
 * a file on overlayfs (a container's /tmp, its /usr) is mapped as the
 * file of the layer below, whose device is not the one stat shows through
 * the overlay. */
static int check(int fd, const struct region *r, char *why, size_t why_size)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != r->inode) {
		snprintf(why, why_size, "%s is not the file mapped", r->path);
		return -ESTALE;
	}
	return 0;
}

static int open_in_root(int root_fd, const struct region *r, char *why, size_t why_size)
{
	struct open_how how = {
		.flags = OPEN_FLAGS | O_NOFOLLOW,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	_cleanup_close_ int fd = (int)syscall(SYS_openat2, root_fd, r->path + strspn(r->path, "/"), &how, sizeof(how));
	if (fd < 0) {
		int e = negative_errno();
		snprintf(why, why_size, "%s could not be opened: %s", r->path, strerror(-e));
		return e;
	}
	int e = check(fd, r, why, why_size);
	return e < 0 ? e : TAKE_FD(fd);
}

int mapping_file_open(const char *proc_root, int pid, const struct region *r, char *why, size_t why_size)
{
	char name[PATH_MAX];
	_cleanup_close_ int pid_fd = -1, root_fd = -1;

	if (!r->path || r->path[0] != '/' || r->inode == 0) {
		snprintf(why, why_size, "the mapping has no file");
		return -ENOENT;
	}
	if (pid <= 0) {
		if (is_deleted(r->path)) {
			snprintf(why, why_size, "%s: deleted", r->path);
			return -ENOENT;
		}
		_cleanup_close_ int here = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (here < 0)
			return negative_errno();
		return open_in_root(here, r, why, why_size);
	}
	snprintf(name, sizeof(name), "%s/%d", proc_root, pid);
	pid_fd = open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pid_fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : negative_errno();
	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64, r->start, r->end);
	_cleanup_close_ int fd = openat(pid_fd, name, OPEN_FLAGS);
	if (fd >= 0) {
		int e = check(fd, r, why, why_size);
		return e < 0 ? e : TAKE_FD(fd);
	}
	/* EPERM without CAP_SYS_ADMIN; whatever else failed, the path is
	 * tried too, and the inode tells whether it is the file mapped */
	if (is_deleted(r->path)) {
		snprintf(why, why_size, "%s: reading a deleted file needs CAP_SYS_ADMIN", r->path);
		return -ENOENT;
	}
	root_fd = openat(pid_fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_fd < 0) {
		int e = negative_errno();
		snprintf(why, why_size, "the process's root could not be opened: %s", strerror(-e));
		return e == -ENOENT ? -ESRCH : e;
	}
	return open_in_root(root_fd, r, why, why_size);
}
