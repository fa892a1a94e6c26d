/* See win-procs.h: the snapshot's one call, on Windows.
 *
 * NtQuerySystemInformation is ntdll's, documented in winternl.h for this
 * class; Windows and Wine 8 both answer SystemProcessInformation for
 * every process, whoever owns it, without a handle to any of them
 * (measured under Wine 8.0: the counters come from each Unix process's
 * status, PagefileUsage from its RssAnon and VmSwap). */
#include "win-procs.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <windows.h>
#include <winternl.h>

#include "limits.h"

/* ntstatus.h would clash with winnt.h's own status codes */
#define STATUS_INFO_LENGTH_MISMATCH_ ((NTSTATUS)0xC0000004L)
#define STATUS_BUFFER_TOO_SMALL_ ((NTSTATUS)0xC0000023L)

/* The buffer a first snapshot starts with: 256 processes of 16 threads. */
#define FIRST_SIZE (512u * 1024u)

/* The pure parser reads the layout by offset; these are the SDK's own. */
#define VM_OFF(field) (offsetof(SYSTEM_PROCESS_INFORMATION, VirtualMemoryCounters) + offsetof(VM_COUNTERS, field))
_Static_assert(sizeof(SYSTEM_PROCESS_INFORMATION) == WIN_PROCS_RECORD_SIZE, "record size");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, NextEntryOffset) == WIN_PROCS_OFF_NEXT, "NextEntryOffset");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, NumberOfThreads) == WIN_PROCS_OFF_THREADS, "NumberOfThreads");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, CreateTime) == WIN_PROCS_OFF_CREATED, "CreateTime");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, ImageName) + offsetof(UNICODE_STRING, Length) ==
		       WIN_PROCS_OFF_NAME_LENGTH,
	       "ImageName.Length");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, ImageName) + offsetof(UNICODE_STRING, Buffer) ==
		       WIN_PROCS_OFF_NAME_BUFFER,
	       "ImageName.Buffer");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, UniqueProcessId) == WIN_PROCS_OFF_PID, "UniqueProcessId");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, InheritedFromUniqueProcessId) == WIN_PROCS_OFF_PARENT,
	       "InheritedFromUniqueProcessId");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, SessionId) == WIN_PROCS_OFF_SESSION, "SessionId");
_Static_assert(VM_OFF(PageFaultCount) == WIN_PROCS_OFF_PAGE_FAULTS, "PageFaultCount");
_Static_assert(VM_OFF(PeakWorkingSetSize) == WIN_PROCS_OFF_PEAK_WS, "PeakWorkingSetSize");
_Static_assert(VM_OFF(WorkingSetSize) == WIN_PROCS_OFF_WS, "WorkingSetSize");
_Static_assert(VM_OFF(PagefileUsage) == WIN_PROCS_OFF_PAGEFILE, "PagefileUsage");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, PrivatePageCount) == WIN_PROCS_OFF_PRIVATE_PAGES,
	       "PrivatePageCount");

static int grow(struct win_procs_reader *r, size_t want, struct error *err)
{
	if (r->size >= RW_WIN_PROCS_BUFFER_MAX)
		return error_set(err, -E2BIG, "the process list takes more than %u bytes", RW_WIN_PROCS_BUFFER_MAX);
	if (want > RW_WIN_PROCS_BUFFER_MAX)
		want = RW_WIN_PROCS_BUFFER_MAX;
	void *b = malloc(want);
	if (!b)
		return error_set(err, -ENOMEM, "out of memory");
	free(r->buf);
	r->buf = b;
	r->size = want;
	return 0;
}

int win_procs_read(struct win_procs_reader *r, struct win_procs **ret, struct error *err)
{
	int k;

	if (!r->buf && (k = grow(r, FIRST_SIZE, err)) < 0)
		return k;
	for (;;) {
		ULONG got = 0;
		NTSTATUS st = NtQuerySystemInformation(SystemProcessInformation, r->buf, (ULONG)r->size, &got);
		if (st >= 0) {
			FILETIME taken;
			GetSystemTimeAsFileTime(&taken);
			return win_procs_parse(r->buf, got, (uint64_t)(uintptr_t)r->buf,
					       (uint64_t)taken.dwHighDateTime << 32 | taken.dwLowDateTime, ret, err);
		}
		if (st != STATUS_INFO_LENGTH_MISMATCH_ && st != STATUS_BUFFER_TOO_SMALL_)
			return error_set(err, -EIO, "NtQuerySystemInformation(SystemProcessInformation): NTSTATUS %#lx",
					 (unsigned long)st);
		/* processes start between two calls: ask for more than the
		 * size the system said, and at least twice the last one */
		size_t want = (size_t)got + got / 8 + 64 * 1024;
		if (want < 2 * r->size)
			want = 2 * r->size;
		if ((k = grow(r, want, err)) < 0)
			return k;
	}
}

void win_procs_reader_done(struct win_procs_reader *r)
{
	free(r->buf);
	*r = (struct win_procs_reader){ 0 };
}
