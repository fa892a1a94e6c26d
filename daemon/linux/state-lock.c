/* The state directory's lock (state-lock.h).
 *
 * flock(2): the lock belongs to the open file description, so the kernel
 * drops it when the last descriptor to it closes, on any exit, kill -9
 * included; a crash never leaves a stale lock behind, and the pid left in
 * the file is only read to name a holder that still has it.  Taken after
 * the detaching fork, so the process that holds it is the one that keeps
 * running. */
#include "state-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "util.h"

/* The lock file in the state directory. */
#define STATE_LOCK_FILE "ramwatchd.lock"

struct state_lock {
	int fd; /* the lock is this open file description's */
};

/* The pid a holder wrote into the lock file, or 0 when there is none yet
 * (it writes it just after taking the lock) or it is not a pid. */
static int read_lock_holder(int fd)
{
	char buf[16];
	int pid;

	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_pid(buf, &pid) == 0 ? pid : 0;
}

int state_lock_take(const char *state_dir, struct state_lock **ret)
{
	_cleanup_free_ char *path = NULL;
	char pid[16];

	if (asprintf(&path, "%s/" STATE_LOCK_FILE, state_dir) < 0)
		return log_error_errno(ENOMEM, "out of memory");
	/* O_NOFOLLOW: the file is truncated below, never through a link */
	_cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd < 0)
		return log_error_errno(errno, "cannot open the lock file %s: %m", path);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			return log_error_errno(errno, "cannot lock %s: %m", path);
		int holder = read_lock_holder(fd);
		if (holder > 0)
			log_error("another ramwatchd (pid %d) is using the state directory %s (lock %s)", holder,
				  state_dir, path);
		else
			log_error("another ramwatchd is using the state directory %s (lock %s; its pid is not "
				  "written yet)", state_dir, path);
		return -EBUSY;
	}
	/* the pid is for the message above: a daemon that cannot write it
	 * still holds the lock, and the next one is refused all the same */
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	ssize_t w = ftruncate(fd, 0) < 0 ? -1 : pwrite(fd, pid, (size_t)n, 0);
	if (w != n)
		log_warning_errno(w < 0 ? errno : EIO, "cannot write the pid into %s, ignored: %m", path);
	struct state_lock *l = malloc(sizeof(*l));
	if (!l)
		return log_error_errno(ENOMEM, "out of memory");
	l->fd = TAKE_FD(fd);
	*ret = l;
	return 0;
}

struct state_lock *state_lock_release(struct state_lock *l)
{
	if (!l)
		return NULL;
	close(l->fd);
	free(l);
	return NULL;
}
