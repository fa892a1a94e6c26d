/* Moving a damaged database aside (store-aside.h). */
#include "store-aside.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

/* Two damaged files found in one second (a new file damaged at once: the
 * disk is failing) get .1, .2, ...; beyond this many something else is
 * wrong, and the daemon says so instead of filling the directory. */
#define STORE_ASIDE_TRIES 100

int store_aside_name(const char *path, int64_t time_ms, unsigned n, char *buf, size_t size)
{
	time_t t = (time_t)(time_ms / 1000);
	struct tm tm;
	char stamp[32];
	int len;

	if (!gmtime_r(&t, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		return -EINVAL;
	len = n > 0 ? snprintf(buf, size, "%s.corrupt-%s.%u", path, stamp, n)
		    : snprintf(buf, size, "%s.corrupt-%s", path, stamp);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* The file's companion (suffix "-wal" or "-shm") follows it; one that does
 * not exist is nothing to move. */
static void move_companion(const char *path, const char *moved_to, const char *suffix)
{
	char from[PATH_MAX], to[PATH_MAX];

	if (snprintf(from, sizeof(from), "%s%s", path, suffix) >= (int)sizeof(from) ||
	    snprintf(to, sizeof(to), "%s%s", moved_to, suffix) >= (int)sizeof(to))
		return;
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) < 0 && errno != ENOENT)
		log_warning_errno(errno, "cannot move %s beside %s (left where it is): %m", from, moved_to);
}

int store_aside_move(const char *path, int64_t time_ms, char *ret_moved_to, size_t size)
{
	for (unsigned n = 0; n < STORE_ASIDE_TRIES; n++) {
		int r = store_aside_name(path, time_ms, n, ret_moved_to, size);
		if (r < 0)
			return r;
		if (renameat2(AT_FDCWD, path, AT_FDCWD, ret_moved_to, RENAME_NOREPLACE) == 0) {
			move_companion(path, ret_moved_to, "-wal");
			move_companion(path, ret_moved_to, "-shm");
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}
