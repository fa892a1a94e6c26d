/* Every process of a Windows machine at one moment, from one call of
 * NtQuerySystemInformation(SystemProcessInformation): what discovery needs
 * (pid, parent, creation time, image name, session) and what the fast
 * sampler reads each round (commit, working set, its peak, page faults,
 * threads), for all processes at once, where reading them one by one would
 * cost an OpenProcess and a GetProcessMemoryInfo each.
 *
 * win_procs_parse, win_procs_find and win_procs_compare are pure (bytes
 * in, records out) and are built and tested on Linux too; win_procs_read
 * (win-procs-live.c) makes the call, on Windows only.
 *
 * A process is known by its pid and its creation time together: Windows
 * gives a pid to a new process as soon as the last handle of the one
 * before it is closed. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The 64-bit layout of SYSTEM_PROCESS_INFORMATION (winternl.h), in
 * bytes: the fields read, at these offsets, in a record of this size
 * followed by one SYSTEM_THREAD_INFORMATION per thread.  The live reader
 * checks them against the SDK's structure when it is compiled. */
#define WIN_PROCS_RECORD_SIZE 256u
#define WIN_PROCS_OFF_NEXT 0u            /* ULONG NextEntryOffset: 0 for the last */
#define WIN_PROCS_OFF_THREADS 4u         /* ULONG NumberOfThreads */
#define WIN_PROCS_OFF_CREATED 32u        /* LARGE_INTEGER CreateTime */
#define WIN_PROCS_OFF_NAME_LENGTH 56u    /* UNICODE_STRING ImageName: USHORT Length, in bytes */
#define WIN_PROCS_OFF_NAME_BUFFER 64u    /* ... PWSTR Buffer, an address within the buffer */
#define WIN_PROCS_OFF_PID 80u            /* HANDLE UniqueProcessId */
#define WIN_PROCS_OFF_PARENT 88u         /* HANDLE InheritedFromUniqueProcessId */
#define WIN_PROCS_OFF_SESSION 100u       /* ULONG SessionId */
#define WIN_PROCS_OFF_PAGE_FAULTS 128u   /* VM_COUNTERS.PageFaultCount (ULONG) */
#define WIN_PROCS_OFF_PEAK_WS 136u       /* VM_COUNTERS.PeakWorkingSetSize */
#define WIN_PROCS_OFF_WS 144u            /* VM_COUNTERS.WorkingSetSize */
#define WIN_PROCS_OFF_PAGEFILE 184u      /* VM_COUNTERS.PagefileUsage */
#define WIN_PROCS_OFF_PRIVATE_PAGES 200u /* PrivatePageCount (bytes, despite its name) */

/* FILETIME ticks (100 ns since 1601-01-01) at the unix epoch. */
#define WIN_FILETIME_UNIX_EPOCH 116444736000000000ull

/* How far past the snapshot's time a creation time may be and still be
 * taken as one (a day, in FILETIME ticks): the system clock set back
 * between a process's start and the snapshot. */
#define WIN_PROCS_CREATED_SLACK (24ull * 3600 * 10000000)

/* One process of a snapshot.  Sizes are bytes. */
struct win_proc {
	uint32_t pid;
	uint32_t parent;      /* the pid of its creator, which may have exited and its pid gone to another */
	uint64_t created;     /* creation time, FILETIME ticks; 0 for the idle process */
	const char *name;     /* the image's file name ("holder.exe"), UTF-8, in the snapshot; "" when none */
	uint32_t session;     /* the terminal services session */
	uint32_t threads;
	uint32_t page_faults; /* since it started (VM_COUNTERS counts them in 32 bits) */
	uint64_t commit;      /* private committed memory (see win_procs_parse) */
	uint64_t working_set;
	uint64_t peak_working_set;
};

/* A snapshot: its processes sorted by pid, then creation time. */
struct win_procs {
	struct win_proc *procs;
	size_t n;
	char *names; /* every name, one allocation */
};

/* Reads the records of buf (len bytes, which the caller's process holds at
 * address: the image names' Buffer fields point into it).  A process's
 * commit is the larger of PagefileUsage and PrivatePageCount: Windows
 * gives both the same figure, the private bytes committed; Wine 8 fills
 * only PagefileUsage (from the Unix process's RssAnon and VmSwap), and
 * leaves PageFaultCount 0.  An image name longer than
 * RW_WIN_PROC_NAME_MAX UTF-16 units is cut at a character; units that are
 * not UTF-16 (a lone surrogate) and NULs become U+FFFD.  Returns 0 with
 * *ret (win_procs_free), or, with err saying which record and what:
 *   -EBADMSG  a record that does not fit in len (a buffer cut short, an
 *             offset past its end or less than a record on), a process
 *             id past 32 bits, or a name whose bytes are not within the
 *             buffer or of an odd length
 *   -E2BIG    more than RW_WIN_PROCS_MAX records, or len past
 *             RW_WIN_PROCS_BUFFER_MAX (more than win_procs_read asks for)
 *   -ENOMEM
 * taken is the system time (FILETIME ticks) when the snapshot was read.
 * A creation time later than taken + WIN_PROCS_CREATED_SLACK is not known
 * yet and reads 0, as the idle process's: Wine lists a process still
 * being created with its creation time unset (its server's fill, 0x55 in
 * every byte) and gives the real one a moment later, so a caller that
 * took the first as the process's identity would see one process exit
 * and another start.  Windows never gives such a time. */
int win_procs_parse(const void *buf, size_t len, uint64_t address, uint64_t taken, struct win_procs **ret,
		    struct error *err);

/* Accepts NULL, returns NULL. */
struct win_procs *win_procs_free(struct win_procs *s);

/* The record of pid and created in s, or NULL. */
const struct win_proc *win_procs_find(const struct win_procs *s, uint32_t pid, uint64_t created);

enum win_procs_change {
	WIN_PROCS_STARTED, /* in now, not in before */
	WIN_PROCS_EXITED,  /* in before, not in now */
};

/* Called by win_procs_compare for each change; p is the record of the
 * snapshot it is in.  A negative return stops the walk. */
typedef int (*win_procs_change_t)(void *userdata, enum win_procs_change change, const struct win_proc *p);

/* Walks two snapshots (before may be NULL: every process started) in pid
 * order and calls fn for each process that started or exited between
 * them.  A pid whose creation time changed is the exit of one process and
 * the start of another.  Returns 0, or the first negative fn returned. */
int win_procs_compare(const struct win_procs *before, const struct win_procs *now, win_procs_change_t fn,
		      void *userdata);

/* What a caller noted of each process of before (marks_before[i] of
 * before->procs[i]: a verdict, say) carried to now: marks_now[j] is the
 * mark of the same process (pid and creation time) in before, or 0 for a
 * process that was not there (before NULL: none was).  A pid whose
 * creation time changed is another process, and starts again from 0. */
void win_procs_carry(const struct win_procs *before, const uint8_t *marks_before, const struct win_procs *now,
		     uint8_t *marks_now);

/* A creation time (FILETIME ticks of 100 ns since 1601) in unix
 * milliseconds, as the store keeps a start time; negative before 1970. */
int64_t win_procs_start_ms(uint64_t created);

/* ------------------------------------------------------------ Windows only */

/* The buffer NtQuerySystemInformation fills, kept from one snapshot to the
 * next so that a round does not allocate it again once it has grown.
 * Zeroed to start. */
struct win_procs_reader {
	void *buf;
	size_t size;
};

/* Every process now.  The buffer grows to what the system says it needs,
 * never past RW_WIN_PROCS_BUFFER_MAX.  Returns 0 with *ret
 * (win_procs_free), or, with err: -E2BIG (past that size, or past
 * RW_WIN_PROCS_MAX processes), -EBADMSG (see win_procs_parse), -EIO (the
 * call failed: the NTSTATUS in the message), -ENOMEM. */
int win_procs_read(struct win_procs_reader *r, struct win_procs **ret, struct error *err);
/* Frees the buffer; accepts a zeroed r. */
void win_procs_reader_done(struct win_procs_reader *r);
