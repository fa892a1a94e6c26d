/* What the Windows scanner reads of a process beyond the walk: its
 * command line (PEB), its heaps (the signature a heap segment starts with;
 * the Toolhelp32 heap list), its threads' stacks (each TEB's NT_TIB), and
 * the residency of its pages (QueryWorkingSetEx).
 *
 * Offsets are those of 64-bit Windows (winternl.h, and the NT_TIB at the
 * TEB's start): PEB.ProcessParameters at 0x20, the parameters'
 * CommandLine UNICODE_STRING at 0x70; NT_TIB StackBase at 0x08 and
 * StackLimit at 0x10; a heap segment's SegmentSignature at 0x10
 * (0xffeeffee, NT heap) or a segment heap's Signature at 0x10
 * (0xddeeddee).  Wine lays these out the same way (doc/design.md#windows). */
#include "winscan-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlhelp32.h>
#include <winternl.h>

#include "limits.h"
#include "macro.h"
#include "win-text.h"
#include "winscan.h"

#define NT_HEAP_SIGNATURE 0xffeeffeeu
#define SEGMENT_HEAP_SIGNATURE 0xddeeddeeu

static bool read_at(HANDLE h, uint64_t address, void *buf, size_t len)
{
	SIZE_T got = 0;
	return ReadProcessMemory(h, (const void *)(uintptr_t)address, buf, len, &got) && got == len;
}

typedef NTSTATUS(NTAPI *query_process_fn)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);
typedef NTSTATUS(NTAPI *query_thread_fn)(HANDLE, THREADINFOCLASS, PVOID, ULONG, PULONG);

/* THREAD_BASIC_INFORMATION (not in mingw's winternl.h) */
struct thread_basic_information {
	NTSTATUS exit_status;
	PVOID teb;
	CLIENT_ID client_id;
	ULONG_PTR affinity_mask;
	LONG priority, base_priority;
};

static FARPROC ntdll(const char *name)
{
	HMODULE m = GetModuleHandleW(L"ntdll.dll");
	return m ? GetProcAddress(m, name) : NULL;
}

const char *winscan_cmdline(HANDLE h, struct win_capture *c)
{
	query_process_fn query = (query_process_fn)(void *)ntdll("NtQueryInformationProcess");
	PROCESS_BASIC_INFORMATION pbi;
	uint64_t params;
	struct {
		USHORT length, max;
		ULONG pad;
		uint64_t buffer;
	} cmd;
	ULONG len;

	if (!query || query(h, ProcessBasicInformation, &pbi, sizeof(pbi), &len) != 0 ||
	    !read_at(h, (uintptr_t)pbi.PebBaseAddress + 0x20, &params, sizeof(params)) ||
	    !read_at(h, params + 0x70, &cmd, sizeof(cmd)) || cmd.length == 0 || cmd.length % 2)
		return NULL;
	_cleanup_free_ wchar_t *w = malloc(cmd.length + sizeof(wchar_t));
	if (!w || !read_at(h, cmd.buffer, w, cmd.length))
		return NULL;
	_cleanup_free_ char *s = win_text_utf8(w, cmd.length / 2);
	return winscan_intern(c, s);
}

/* The index of the region holding address, or -1 (regions are sorted). */
static ssize_t region_of(const struct win_capture *c, uint64_t address)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct win_region *r = &c->regions[mid];
		if (address < r->base)
			hi = mid;
		else if (address >= r->base + r->size)
			lo = mid + 1;
		else
			return r->state == MEM_FREE ? -1 : (ssize_t)mid;
	}
	return -1;
}

static void mark_heaps_by_signature(HANDLE h, struct win_capture *c)
{
	char text[96];
	for (size_t i = 0; i < c->n; i++) {
		struct win_region *r = &c->regions[i];
		uint32_t signature;
		if (r->state != MEM_COMMIT || r->type != MEM_PRIVATE || r->base != r->allocation_base ||
		    (r->protect & 0xff) != PAGE_READWRITE || (r->protect & PAGE_GUARD) || r->size < 0x1000)
			continue;
		if (!read_at(h, r->base + 0x10, &signature, sizeof(signature)))
			continue;
		if (signature == NT_HEAP_SIGNATURE || signature == SEGMENT_HEAP_SIGNATURE) {
			r->mark = signature == NT_HEAP_SIGNATURE ? WIN_MARK_NT_HEAP : WIN_MARK_SEGMENT_HEAP;
			snprintf(text, sizeof(text), "0x%08" PRIx32 " read at 0x%" PRIx64, signature, r->base + 0x10);
			r->evidence = winscan_intern(c, text);
		}
	}
}

static bool is_heap_mark(enum win_mark m)
{
	return m == WIN_MARK_NT_HEAP || m == WIN_MARK_SEGMENT_HEAP || m == WIN_MARK_HEAP_LIST || m == WIN_MARK_HEAP_BLOCK;
}

/* The first region of the reservation holding address, or -1. */
static ssize_t reservation_of(const struct win_capture *c, uint64_t address)
{
	ssize_t i = region_of(c, address);
	while (i > 0 && c->regions[i - 1].state != MEM_FREE &&
	       c->regions[i - 1].allocation_base == c->regions[i].allocation_base)
		i--;
	return i;
}

/* A block larger than the heap's VirtualAlloc threshold (512 KiB on 64-bit
 * Windows) is a reservation of its own that
 * starts with a list entry in the heap's list of such blocks (at 0:
 * HEAP_VIRTUAL_ALLOC_ENTRY on Windows; at 0x10: Wine's ARENA_LARGE, seen
 * under Wine 8.0): its Flink and Blink point into the heap or to the
 * other blocks.  Found from the heaps out, a pass per link of the chain,
 * over what was read once (at most RW_EVIDENCE_READS_MAX reads). */
static int mark_heap_blocks(HANDLE h, struct win_capture *c)
{
	struct candidate {
		size_t region;
		uint64_t links[4];
	};
	_cleanup_free_ struct candidate *cands = NULL;
	size_t n = 0, allocated = 0;
	char text[128];

	/* each candidate is read once; the passes follow the chain in memory */
	for (size_t i = 0; i < c->n && n < RW_EVIDENCE_READS_MAX; i++) {
		const struct win_region *r = &c->regions[i];
		if (r->mark != WIN_MARK_NONE || r->state != MEM_COMMIT || r->type != MEM_PRIVATE ||
		    r->base != r->allocation_base || (r->protect & 0xff) != PAGE_READWRITE)
			continue;
		if (n == allocated) {
			size_t k = allocated ? allocated * 2 : 64;
			struct candidate *m = realloc(cands, k * sizeof(*m));
			if (!m)
				return -ENOMEM;
			cands = m;
			allocated = k;
		}
		if (read_at(h, r->base, cands[n].links, sizeof(cands[n].links)))
			cands[n++].region = i;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t i = 0; i < n; i++) {
			struct win_region *r = &c->regions[cands[i].region];
			if (r->mark != WIN_MARK_NONE)
				continue;
			for (int k = 0; k < 4; k++) {
				ssize_t j = reservation_of(c, cands[i].links[k]);
				if (j < 0 || (size_t)j == cands[i].region || !is_heap_mark(c->regions[j].mark))
					continue;
				r->mark = WIN_MARK_HEAP_BLOCK;
				snprintf(text, sizeof(text), "list entry at 0x%" PRIx64 " links to the heap's 0x%" PRIx64,
					 r->base + (uint64_t)(k / 2) * 0x10, cands[i].links[k]);
				r->evidence = winscan_intern(c, text);
				changed = true;
				break;
			}
		}
	}
	return 0;
}

/* The heap list of another process is what Windows gives and Wine does
 * not (doc/design.md#windows): a heap found there and not by its signature is marked. */
static void mark_heap_list(int pid, struct win_capture *c)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPHEAPLIST, (DWORD)pid);
	HEAPLIST32 hl = { .dwSize = sizeof(hl) };
	char text[96];

	if (snap == INVALID_HANDLE_VALUE)
		return;
	for (BOOL ok = Heap32ListFirst(snap, &hl); ok; ok = Heap32ListNext(snap, &hl)) {
		ssize_t i = region_of(c, (uint64_t)hl.th32HeapID);
		if (i < 0)
			continue;
		/* the mark goes on the reservation's first region */
		while (i > 0 && c->regions[i - 1].state != MEM_FREE &&
		       c->regions[i - 1].allocation_base == c->regions[i].allocation_base)
			i--;
		if (c->regions[i].mark != WIN_MARK_NONE)
			continue;
		c->regions[i].mark = WIN_MARK_HEAP_LIST;
		snprintf(text, sizeof(text), "heap 0x%" PRIx64 " of the heap list", (uint64_t)hl.th32HeapID);
		c->regions[i].evidence = winscan_intern(c, text);
	}
	CloseHandle(snap);
}

static void mark_stacks(HANDLE h, int pid, struct win_capture *c)
{
	query_thread_fn query = (query_thread_fn)(void *)ntdll("NtQueryInformationThread");
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
	THREADENTRY32 te = { .dwSize = sizeof(te) };
	char text[128];

	if (!query || snap == INVALID_HANDLE_VALUE)
		return;
	for (BOOL ok = Thread32First(snap, &te); ok; ok = Thread32Next(snap, &te)) {
		struct thread_basic_information tbi;
		uint64_t tib[3]; /* ExceptionList, StackBase, StackLimit */
		ULONG len;
		if (te.th32OwnerProcessID != (DWORD)pid)
			continue;
		HANDLE t = OpenThread(THREAD_QUERY_INFORMATION, FALSE, te.th32ThreadID);
		if (!t)
			continue;
		bool got = query(t, (THREADINFOCLASS)0 /* ThreadBasicInformation */, &tbi, sizeof(tbi), &len) == 0 &&
			   read_at(h, (uintptr_t)tbi.teb, tib, sizeof(tib));
		CloseHandle(t);
		if (!got || tib[2] == 0 || tib[1] <= tib[2])
			continue;
		ssize_t i = region_of(c, tib[2]);
		if (i < 0)
			continue;
		snprintf(text, sizeof(text), "TEB of thread %lu: stack 0x%" PRIx64 "-0x%" PRIx64,
			 (unsigned long)te.th32ThreadID, tib[2], tib[1]);
		c->regions[i].mark = WIN_MARK_STACK;
		c->regions[i].evidence = winscan_intern(c, text);
	}
	CloseHandle(snap);
}

int winscan_mark(HANDLE h, int pid, struct win_capture *c, struct error *err)
{
	mark_heaps_by_signature(h, c);
	mark_heap_list(pid, c);
	if (mark_heap_blocks(h, c) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	mark_stacks(h, pid, c);
	return 0;
}

/* Resident bytes of one committed region: every page when it has at most
 * WINSCAN_RESIDENCY_PAGES_MAX, else a sample of that many spread evenly.
 * Returns 0, or the Windows error of QueryWorkingSetEx. */
static DWORD region_residency(HANDLE h, struct win_region *r, PSAPI_WORKING_SET_EX_INFORMATION *q)
{
	uint64_t pages = r->size / 4096, sample = pages, resident = 0;
	if (pages == 0)
		return 0;
	if (sample > WINSCAN_RESIDENCY_PAGES_MAX)
		sample = WINSCAN_RESIDENCY_PAGES_MAX;
	for (uint64_t done = 0; done < sample;) {
		uint64_t k = sample - done < WINSCAN_RESIDENCY_BATCH ? sample - done : WINSCAN_RESIDENCY_BATCH;
		for (uint64_t j = 0; j < k; j++)
			q[j].VirtualAddress = (void *)(uintptr_t)(r->base + ((done + j) * pages / sample) * 4096);
		if (!QueryWorkingSetEx(h, q, (DWORD)(k * sizeof(*q))))
			return GetLastError();
		for (uint64_t j = 0; j < k; j++)
			resident += q[j].VirtualAttributes.Valid;
		done += k;
	}
	/* sampled: an estimate, to a whole page */
	r->resident = resident * pages / sample * 4096;
	r->resident_estimated = sample < pages;
	return 0;
}

int winscan_residency(HANDLE h, struct win_capture *c, struct error *err)
{
	_cleanup_free_ PSAPI_WORKING_SET_EX_INFORMATION *q = calloc(WINSCAN_RESIDENCY_BATCH, sizeof(*q));
	bool estimated = false;
	char why[160];

	if (!q)
		return error_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < c->n; i++) {
		struct win_region *r = &c->regions[i];
		if (r->state != MEM_COMMIT || (r->protect & PAGE_GUARD))
			continue;
		DWORD e = region_residency(h, r, q);
		if (e) {
			for (size_t k = 0; k < c->n; k++)
				c->regions[k].resident = 0, c->regions[k].resident_estimated = false;
			c->process.residency = RESIDENCY_UNKNOWN;
			snprintf(why, sizeof(why), "QueryWorkingSetEx failed (Windows error %lu)%s", (unsigned long)e,
				 e == ERROR_INVALID_PARAMETER ? ": Wine answers it for the process itself only" : "");
			c->process.residency_why = winscan_intern(c, why);
			return 0;
		}
		estimated |= r->resident_estimated;
	}
	c->process.residency = estimated ? RESIDENCY_ESTIMATED : RESIDENCY_EXACT;
	if (estimated) {
		snprintf(why, sizeof(why), "regions of more than %u pages were sampled", WINSCAN_RESIDENCY_PAGES_MAX);
		c->process.residency_why = winscan_intern(c, why);
	}
	return 0;
}
