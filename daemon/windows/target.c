/* Following a Windows process (target-os.h): the facts the store keeps of
 * it, read once, through a handle opened for a moment.  The handle's
 * creation time must be the snapshot's: Windows gives a pid to a new
 * process once the last handle of the one before is closed, so a pid
 * alone may name another process by the time it is opened. */
#include "target-os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "log.h"
#include "macro.h"
#include "win-owner.h"
#include "win-text.h"

/* A handle of p's instance, or NULL with *ret_error: -ESRCH (gone, or its
 * pid is another's), -EACCES. */
static HANDLE open_instance(const struct win_proc *p, int *ret_error)
{
	FILETIME created, exited, kernel, user;
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p->pid);

	if (!h) {
		*ret_error = GetLastError() == ERROR_ACCESS_DENIED ? -EACCES : -ESRCH;
		return NULL;
	}
	if (!GetProcessTimes(h, &created, &exited, &kernel, &user) ||
	    ((uint64_t)created.dwHighDateTime << 32 | created.dwLowDateTime) != p->created) {
		CloseHandle(h);
		*ret_error = -ESRCH;
		return NULL;
	}
	return h;
}

int target_image_path(const struct win_proc *p, char **ret)
{
	wchar_t path[32768];
	DWORD len = ELEMENTSOF(path);
	int r = 0;

	*ret = NULL;
	HANDLE h = open_instance(p, &r);
	if (!h)
		return r == -EACCES ? 0 : r;
	if (QueryFullProcessImageNameW(h, 0, path, &len)) {
		*ret = win_text_utf8(path, (int)len);
		if (!*ret)
			r = -ENOMEM;
	}
	CloseHandle(h);
	return r;
}

int target_new_windows(const struct win_proc *p, const char *boot_id, const char *exe, int64_t now_ms,
		       struct target **ret)
{
	_cleanup_free_ char *path = NULL;
	struct win_owner owner;
	struct error err = { 0 };
	int r;

	if (!exe) {
		if ((r = target_image_path(p, &path)) < 0)
			return r;
		exe = path;
	}
	/* an owner that cannot be read (a protected process) stays unknown */
	r = win_owner_read(p->pid, &owner, &err);
	if (r == -ESRCH)
		return r;
	if (r < 0)
		log_pid_debug((int)p->pid, "cannot read the owner of process %u: %s", (unsigned)p->pid, err.message);

	struct target *t = target_alloc((int)p->pid, p->created);
	if (!t)
		return -ENOMEM;
	int64_t start_ms = win_procs_start_ms(p->created);
	struct store_process info = {
		.platform = PLATFORM_WINDOWS,
		.boot_id = boot_id,
		.pid = (int)p->pid,
		.start_time = start_ms,
		.started_at = start_ms,
		.uid = -1,
		.owner = r < 0 ? NULL : owner.name[0] ? owner.name : owner.sid,
		.comm = p->name,
		.exe = exe,
		.seen = now_ms,
		.exited_at = -1,
		.peak_private = p->commit,
		.peak_resident = p->working_set,
	};
	t->ref = proc_ref_new(&info);
	if (!t->ref) {
		target_free(t);
		return -ENOMEM;
	}
	*ret = t;
	return 0;
}

bool target_exit_source(const struct target *t, event_fd_t *ret)
{
	/* the fast tier's round lists every process: an exit is seen there */
	(void)t;
	(void)ret;
	return false;
}
