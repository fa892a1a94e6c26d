/* The state directory's lock on Windows (state-lock.h).
 *
 * LockFileEx on the lock file in the state directory: the lock belongs to
 * the open handle, and Windows lets it go when the handle closes, which
 * it does when the process ends however it ends (TerminateProcess
 * included), so a crash leaves no stale lock behind.  The locked byte is
 * far past the pid the holder writes at the start of the file: a locked
 * range cannot be read by others, and the pid is there to be read by the
 * daemon that is refused, for its message. */
#include "state-lock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "log.h"
#include "macro.h"
#include "util.h"

/* The lock file in the state directory, as on Linux. */
#define STATE_LOCK_FILE "ramwatchd.lock"
/* The byte locked: beyond any pid written at offset 0. */
#define LOCK_OFFSET 0x40000000u

struct state_lock {
	HANDLE file;
};

/* The pid a holder wrote, or 0 when there is none (yet) or it is not one. */
static int read_lock_holder(HANDLE file)
{
	char buf[16];
	DWORD n = 0;
	OVERLAPPED at = { 0 };
	int pid;

	if (!ReadFile(file, buf, sizeof(buf) - 1, &n, &at) || n == 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return parse_pid(buf, &pid) == 0 ? pid : 0;
}

int state_lock_take(const char *state_dir, struct state_lock **ret)
{
	_cleanup_free_ char *path = NULL;
	char pid[16];
	OVERLAPPED at = { .Offset = LOCK_OFFSET };
	DWORD n = 0;

	if (asprintf(&path, "%s\\" STATE_LOCK_FILE, state_dir) < 0)
		return log_error_errno(ENOMEM, "out of memory");
	/* shared for reading and writing: the next daemon opens it to read
	 * the pid; the lock, not the sharing mode, keeps it out */
	HANDLE file = CreateFileA(path, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
				  OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (file == INVALID_HANDLE_VALUE)
		return log_error_errno(posix_errno_of(GetLastError()), "cannot open the lock file %s: %m", path);
	if (!LockFileEx(file, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
		DWORD e = GetLastError();
		if (e != ERROR_LOCK_VIOLATION && e != ERROR_IO_PENDING) {
			CloseHandle(file);
			return log_error_errno(posix_errno_of(e), "cannot lock %s: %m", path);
		}
		int holder = read_lock_holder(file);
		CloseHandle(file);
		if (holder > 0)
			log_error("another ramwatchd (pid %d) is using the state directory %s (lock %s)", holder,
				  state_dir, path);
		else
			log_error("another ramwatchd is using the state directory %s (lock %s; its pid is not "
				  "written yet)",
				  state_dir, path);
		return -EBUSY;
	}
	/* the pid is for the message above: a daemon that cannot write it
	 * still holds the lock */
	int len = snprintf(pid, sizeof(pid), "%lu\r\n", (unsigned long)GetCurrentProcessId());
	OVERLAPPED start = { 0 };
	if (SetFilePointer(file, 0, NULL, FILE_BEGIN) == INVALID_SET_FILE_POINTER || !SetEndOfFile(file) ||
	    !WriteFile(file, pid, (DWORD)len, &n, &start) || n != (DWORD)len)
		log_warning_errno(posix_errno_of(GetLastError()), "cannot write the pid into %s, ignored: %m", path);
	struct state_lock *l = malloc(sizeof(*l));
	if (!l) {
		CloseHandle(file);
		return log_error_errno(ENOMEM, "out of memory");
	}
	l->file = file;
	*ret = l;
	return 0;
}

struct state_lock *state_lock_release(struct state_lock *l)
{
	if (!l)
		return NULL;
	CloseHandle(l->file);
	free(l);
	return NULL;
}
