/* See winscan.h: opening the process, its identity, the VirtualQueryEx
 * walk and the check that the process lasted the scan.  What is read of
 * its memory (heaps, stacks) and its residency are in winscan-evidence.c.
 *
 * Facts this relies on (measured under Wine 8.0, and documented for
 * Windows): VirtualQueryEx and GetMappedFileNameW answer for another
 * process with PROCESS_QUERY_INFORMATION; ReadProcessMemory needs
 * PROCESS_VM_READ; a process that exited keeps answering through an open
 * handle until the handle is closed, so an exit is seen by its exit code,
 * not by a failing walk; and under Wine a query that meets the exit
 * itself may never return, so the reading runs in a thread of its own
 * that the caller watches against the exit. */
#include "winscan.h"
#include "winscan-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlhelp32.h>
#include <windows.h>
#include <winternl.h>

#include "limits.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"
#include "win-text.h"

/* The top of the user address space of a 64-bit process (128 TiB). */
#define USER_SPACE_END 0x7fffffff0000ull

const char *winscan_intern(struct win_capture *c, const char *s)
{
	return s ? strpool_intern(c->strings, s, strlen(s)) : NULL;
}

static int open_error(int pid, DWORD e, struct error *err)
{
	if (e == ERROR_ACCESS_DENIED)
		return error_set(err, -EACCES,
				 "access denied to process %d: run ramwatch as Administrator, or with SeDebugPrivilege, "
				 "to read another user's processes; protected processes (PPL: antimalware, lsass) cannot "
				 "be read at all",
				 pid);
	if (e == ERROR_INVALID_PARAMETER)
		return error_set(err, -ESRCH, "no process %d", pid);
	return error_set(err, -EIO, "cannot open process %d: Windows error %lu", pid, (unsigned long)e);
}

static bool still_running(HANDLE h)
{
	DWORD code;
	return GetExitCodeProcess(h, &code) && code == STILL_ACTIVE;
}

static int64_t creation_time(HANDLE h)
{
	FILETIME created, exited, kernel, user;
	if (!GetProcessTimes(h, &created, &exited, &kernel, &user))
		return -1;
	return (int64_t)(((uint64_t)created.dwHighDateTime << 32) | created.dwLowDateTime);
}

static const char *image_path(HANDLE h, struct win_capture *c)
{
	wchar_t buf[32768];
	DWORD len = ELEMENTSOF(buf);
	if (!QueryFullProcessImageNameW(h, 0, buf, &len))
		return NULL;
	_cleanup_free_ char *s = win_text_utf8(buf, (int)len);
	return winscan_intern(c, s);
}

/* DOMAIN\user of the process's token, or NULL. */
static const char *owner(HANDLE h, struct win_capture *c)
{
	HANDLE token;
	union {
		TOKEN_USER user;
		char bytes[256];
	} info;
	DWORD len;
	const char *ret = NULL;

	if (!OpenProcessToken(h, TOKEN_QUERY, &token))
		return NULL;
	if (GetTokenInformation(token, TokenUser, &info, sizeof(info), &len)) {
		_cleanup_free_ char *s = win_text_account(info.user.User.Sid);
		ret = winscan_intern(c, s);
	}
	CloseHandle(token);
	return ret;
}

static void counters(HANDLE h, struct win_process *p)
{
	PROCESS_MEMORY_COUNTERS_EX pmc = { .cb = sizeof(pmc) };
	if (!GetProcessMemoryInfo(h, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)))
		return;
	p->private_usage = (int64_t)pmc.PrivateUsage;
	p->working_set = (int64_t)pmc.WorkingSetSize;
	p->peak_working_set = (int64_t)pmc.PeakWorkingSetSize;
	p->pagefile_usage = (int64_t)pmc.PagefileUsage;
}

static int grow(struct win_capture *c, size_t *allocated)
{
	if (c->n < *allocated)
		return 0;
	if (*allocated >= RW_REGIONS_MAX)
		return -E2BIG;
	size_t n = *allocated ? *allocated * 2 : 1024;
	if (n > RW_REGIONS_MAX)
		n = RW_REGIONS_MAX;
	struct win_region *r = realloc(c->regions, n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	c->regions = r;
	*allocated = n;
	return 0;
}

/* The path of the view or image at base, as a drive-letter path. */
static const char *mapped_path(HANDLE h, uint64_t base, const struct win_devices *dev, struct win_capture *c)
{
	wchar_t buf[32768];
	DWORD len = GetMappedFileNameW(h, (void *)(uintptr_t)base, buf, ELEMENTSOF(buf));
	if (len == 0)
		return NULL;
	buf[len < ELEMENTSOF(buf) ? len : ELEMENTSOF(buf) - 1] = 0;
	_cleanup_free_ char *s = win_devices_path(dev, buf);
	return winscan_intern(c, s);
}

static int walk(HANDLE h, int pid, struct win_capture *c, struct error *err)
{
	struct win_devices *dev = win_devices_new();
	size_t allocated = 0;
	uint64_t address = 0, path_base = UINT64_MAX;
	const char *path = NULL;
	MEMORY_BASIC_INFORMATION mbi;
	int r = 0;

	if (!dev)
		return error_set(err, -ENOMEM, "out of memory");
	while (address < USER_SPACE_END && VirtualQueryEx(h, (void *)(uintptr_t)address, &mbi, sizeof(mbi)) == sizeof(mbi)) {
		uint64_t base = (uintptr_t)mbi.BaseAddress, size = mbi.RegionSize;
		if (size == 0 || base + size <= address)
			break;
		if ((r = grow(c, &allocated)) < 0) {
			r = r == -E2BIG ? error_set(err, r, "process %d has more than %u regions", pid, RW_REGIONS_MAX) :
					  error_set(err, r, "out of memory");
			break;
		}
		struct win_region *x = &c->regions[c->n++];
		*x = (struct win_region){ .base = base, .size = size, .state = mbi.State };
		if (mbi.State != MEM_FREE) {
			x->allocation_base = (uintptr_t)mbi.AllocationBase;
			x->protect = mbi.Protect;
			x->allocation_protect = mbi.AllocationProtect;
			x->type = mbi.Type;
			if (mbi.Type == MEM_IMAGE || mbi.Type == MEM_MAPPED) {
				/* one name per reservation: a view has one file */
				if (x->allocation_base != path_base) {
					path_base = x->allocation_base;
					path = mapped_path(h, base, dev, c);
				}
				x->path = path;
			}
		}
		address = base + size;
	}
	win_devices_free(dev);
	return r;
}

/* One scan's state, shared by the thread that reads the process and the
 * caller that watches it (see winscan_process); freed by whichever of the
 * two lets go of it last. */
struct scan {
	LONG refs;
	HANDLE h;
	int pid;
	struct winscan_options options;
	struct win_capture *capture;
	int result;
	struct error err;
};

static void scan_unref(struct scan *s)
{
	if (InterlockedDecrement(&s->refs) != 0)
		return;
	win_capture_free(s->capture);
	CloseHandle(s->h);
	free(s);
}

/* Everything read through the handle, in order; s->result and s->err, or
 * s->capture. */
static int scan_read(struct scan *s)
{
	const struct winscan_options *o = &s->options;
	struct error *err = &s->err;
	HANDLE h = s->h;
	int pid = s->pid, r;
	struct win_capture *c;

	if (!(c = s->capture = calloc(1, sizeof(*c))) || !(c->strings = strpool_new()))
		return error_set(err, -ENOMEM, "out of memory");
	struct win_process *p = &c->process;
	*p = (struct win_process){ .pid = pid, .private_usage = -1, .working_set = -1, .peak_working_set = -1,
				   .pagefile_usage = -1 };
	int64_t created = creation_time(h);
	p->creation_time = created;
	p->image = image_path(h, c);
	p->owner = owner(h, c);
	if (!o->no_evidence)
		p->cmdline = winscan_cmdline(h, c);
	if ((r = walk(h, pid, c, err)) < 0)
		return r;
	if (!o->no_evidence && (r = winscan_mark(h, pid, c, err)) < 0)
		return r;
	if (o->no_residency) {
		p->residency = RESIDENCY_UNKNOWN;
		p->residency_why = winscan_intern(c, "not asked for (--no-residency)");
	} else if ((r = winscan_residency((DWORD)pid == GetCurrentProcessId() ? GetCurrentProcess() : h, c, err)) < 0) {
		/* Wine answers QueryWorkingSetEx for the pseudo handle of the
		 * process itself only, not for a handle OpenProcess gave */
		return r;
	}
	counters(h, p);
	/* the census is of one process from start to end: a process that
	 * exited (or whose pid was reused) during the walk gives none */
	if (!still_running(h) || creation_time(h) != created)
		return error_set(err, -ESRCH, "process %d exited during the scan: no census", pid);
	return 0;
}

static DWORD WINAPI scan_thread(void *arg)
{
	struct scan *s = arg;
	s->result = scan_read(s);
	/* asked by the thread itself, before it returns: Wine gives a thread
	 * that has ended no CPU time */
	if (s->capture)
		s->capture->reader_cpu_us = now_thread_cpu_us();
	scan_unref(s);
	return 0;
}

int winscan_process(int pid, const struct winscan_options *o, struct win_capture **ret, struct error *err)
{
	BOOL wow = FALSE;
	HANDLE h, thread;
	int r;

	if (pid <= 0)
		return error_set(err, -ESRCH, "no process %d", pid);
	h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ | SYNCHRONIZE, FALSE, (DWORD)pid);
	if (!h)
		return open_error(pid, GetLastError(), err);
	if (!still_running(h)) {
		CloseHandle(h);
		return error_set(err, -ESRCH, "no process %d (it has exited)", pid);
	}
	if (IsWow64Process(h, &wow) && wow) {
		CloseHandle(h);
		return error_set(err, -EOPNOTSUPP,
				 "process %d is a 32-bit process: its address space is not read by this 64-bit build", pid);
	}
	struct scan *s = calloc(1, sizeof(*s));
	if (!s) {
		CloseHandle(h);
		return error_set(err, -ENOMEM, "out of memory");
	}
	*s = (struct scan){ .refs = 2, .h = h, .pid = pid, .options = *o };

	/* The reading is done by a thread of its own, watched against the
	 * process's exit.  Measured under Wine 8.0: a query of another
	 * process's memory (VirtualQueryEx, GetMappedFileNameW) that meets
	 * the target's exit can wait for ever, as the request made to the
	 * target is never answered.  Once the process has exited, what was
	 * read would give no census anyway; the thread is given a moment to
	 * finish and is otherwise left behind, owning what it reads (scan
	 * holds a reference for it), and the answer is the exit. */
	if (!(thread = CreateThread(NULL, 0, scan_thread, s, 0, NULL))) {
		s->refs = 1;
		scan_unref(s);
		return error_set(err, -ENOMEM, "cannot start the scan: Windows error %lu", (unsigned long)GetLastError());
	}
	HANDLE both[2] = { thread, h };
	DWORD w = WaitForMultipleObjects(2, both, FALSE, INFINITE);
	if (w != WAIT_OBJECT_0)
		w = WaitForSingleObject(thread, WINSCAN_EXIT_GRACE_MS);
	CloseHandle(thread);
	if (w != WAIT_OBJECT_0)
		r = error_set(err, -ESRCH, "process %d exited during the scan: no census", pid);
	else if ((r = s->result) < 0)
		error_set(err, r, "%s", s->err.message);
	else
		*ret = TAKE_PTR(s->capture);
	scan_unref(s);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct winscan_entry *x = a, *y = b;
	if (x->private != y->private)
		return x->private > y->private ? -1 : 1;
	return x->pid - y->pid;
}

int winscan_list(struct winscan_entry **ret, size_t *ret_n)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W e = { .dwSize = sizeof(e) };
	struct winscan_entry *all = NULL;
	size_t n = 0, allocated = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return -EIO;
	for (BOOL ok = Process32FirstW(snap, &e); ok; ok = Process32NextW(snap, &e)) {
		if (e.th32ProcessID == 0 || e.th32ProcessID == GetCurrentProcessId())
			continue;
		if (n == allocated) {
			size_t k = allocated ? allocated * 2 : 256;
			struct winscan_entry *m = realloc(all, k * sizeof(*m));
			if (!m) {
				free(all);
				CloseHandle(snap);
				return -ENOMEM;
			}
			all = m;
			allocated = k;
		}
		struct winscan_entry *x = &all[n++];
		*x = (struct winscan_entry){ .pid = (int)e.th32ProcessID };
		_cleanup_free_ char *name = win_text_utf8(e.szExeFile, -1);
		snprintf(x->name, sizeof(x->name), "%s", name ? name : "?");
		HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, e.th32ProcessID);
		if (h) {
			PROCESS_MEMORY_COUNTERS_EX pmc = { .cb = sizeof(pmc) };
			if (GetProcessMemoryInfo(h, (PROCESS_MEMORY_COUNTERS *)&pmc, sizeof(pmc)))
				x->private = pmc.PrivateUsage;
			CloseHandle(h);
		}
	}
	CloseHandle(snap);
	if (n)
		qsort(all, n, sizeof(*all), cmp_entry);
	*ret = all;
	*ret_n = n;
	return 0;
}
