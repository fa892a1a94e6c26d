/* ramwatch mark, for a process the allocation tracer is in: the mark's
 * name goes to FILE.mark beside the process's trace FILE (from
 * RAMWATCH_TRACE_FILE in /proc/PID/environ), where the tracer's writer
 * thread reads it within a few milliseconds and enters scope root/NAME
 * (ramwatch-trace(3)).  The file is written whole and renamed into place,
 * so the tracer never reads half a name. */
#include "mark-trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

#define ENV_KEY "RAMWATCH_TRACE_FILE="
#define ENVIRON_MAX (256u * 1024u)

/* The value of RAMWATCH_TRACE_FILE in the len bytes of an environ block. */
static const char *trace_file_of(const char *env, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *entry = env + at;
		size_t n = strnlen(entry, len - at);
		if (n > sizeof(ENV_KEY) - 1 && memcmp(entry, ENV_KEY, sizeof(ENV_KEY) - 1) == 0 && at + n < len)
			return entry + sizeof(ENV_KEY) - 1;
		at += n + 1;
	}
	return NULL;
}

int mark_trace(long pid, const char *name, char *ret_path, size_t size)
{
	char path[64], tmp[4200];
	static char env[ENVIRON_MAX + 1];
	const char *file;
	ssize_t n;
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT || errno == EACCES || errno == EPERM ? 0 : -errno;
	n = read(fd, env, ENVIRON_MAX);
	if (n <= 0)
		return 0;
	env[n] = 0;
	if (!(file = trace_file_of(env, (size_t)n)) || file[0] != '/')
		return 0;
	if ((size_t)snprintf(ret_path, size, "%s.mark", file) >= size ||
	    (size_t)snprintf(tmp, sizeof(tmp), "%s.mark.%ld", file, (long)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	close(fd);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	size_t len = strlen(name);
	if (write(fd, name, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
		int r = -errno;
		unlink(tmp);
		return r ? r : -EIO;
	}
	if (rename(tmp, ret_path) < 0) {
		int r = -errno;
		unlink(tmp);
		return r;
	}
	return 1;
}
