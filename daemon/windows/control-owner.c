/* Whose is a process the daemon does not watch, on Windows
 * (control-owner.h): the user SID of its token (win-owner.h: what the
 * access rule compares with the asker's), the name of its image, its
 * working set.  The process is opened with PROCESS_QUERY_LIMITED_INFORMATION,
 * as the census would open it; a process gone between the two reads is
 * one that does not exist. */
#include "control-owner.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <windows.h>
#include <psapi.h>

#include "error.h"
#include "log.h"
#include "win-owner.h"
#include "win-text.h"

/* The image's file name (holder.exe) into ret->name, when it can be read. */
static void read_name(HANDLE h, struct control_owner *ret)
{
	wchar_t path[MAX_PATH];
	DWORD len = MAX_PATH;

	if (!QueryFullProcessImageNameW(h, 0, path, &len))
		return;
	char *utf8 = win_text_utf8(path, (int)len);
	if (!utf8)
		return;
	const char *base = strrchr(utf8, '\\');
	snprintf(ret->name, sizeof(ret->name), "%s", base ? base + 1 : utf8);
	free(utf8);
}

int control_owner_read(int root_fd, int pid, struct control_owner *ret)
{
	struct control_owner o = { .uid = -1 };
	struct win_owner owner;
	struct error err = { 0 };
	PROCESS_MEMORY_COUNTERS counters = { .cb = sizeof(counters) };
	(void)root_fd;

	if (pid <= 0)
		return -ENOENT;
	int r = win_owner_read((uint32_t)pid, &owner, &err);
	if (r == -ESRCH)
		return -ENOENT;
	if (r < 0) {
		log_pid_debug(pid, "cannot read the owner of process %d: %s", pid, err.message);
		return r;
	}
	snprintf(o.sid, sizeof(o.sid), "%s", owner.sid);
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD)pid);
	if (!h) {
		DWORD e = GetLastError();
		return e == ERROR_INVALID_PARAMETER ? -ENOENT : -posix_errno_of(e);
	}
	read_name(h, &o);
	if (GetProcessMemoryInfo(h, &counters, sizeof(counters))) {
		o.have_resident = true;
		o.resident = counters.WorkingSetSize;
	}
	CloseHandle(h);
	*ret = o;
	return 0;
}
