/* The Windows ground truth: a process that makes memory of known kinds,
 * says on standard output (one JSON line) where each is and how large,
 * and who it is (pid and creation time), then holds it until its standard
 * input closes.  test_windows.py scans it from another process and checks
 * every kind lands in its class; test_win_watch.py finds it among every
 * process, with the commit it holds.
 *
 * Every committed byte the line names is touched (written once per page),
 * so the process really holds it.  Usage: holder.exe [--regions N] [--exit-after MS] [--light]
 *   --regions N      also make N small reservations (a long walk)
 *   --exit-after MS  exit by itself after MS milliseconds
 *   --light          make nothing: say who it is and wait (a process to start many of)
 *
 * While it holds its memory, lines on its standard input grow it, each
 * answered by one JSON line once the memory is touched
 * ({"grown": "commit"|"heap", "mib": N}):
 *   commit N         commit and touch N MiB more of private memory
 *   heap N           allocate and touch N blocks of 1 MiB from its own heap
 *                    (each a large block the heap commits apart; at most
 *                    4096) */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)

static volatile unsigned char *keep[16];
/* the heap blocks of one "heap N" (they are never freed) */
#define MAX_BLOCKS 4096
static volatile unsigned char *blocks[MAX_BLOCKS];
static HANDLE quit;

static void touch(volatile unsigned char *p, size_t size)
{
	for (size_t i = 0; i < size; i += 4096)
		p[i] = (unsigned char)(i / 4096 + 1);
}

static DWORD WINAPI thread_main(LPVOID arg)
{
	volatile char buf[64 * 1024]; /* grows the stack past its first page */
	(void)arg;
	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 1;
	WaitForSingleObject(quit, INFINITE);
	return buf[0];
}

/* Its identity, as another process sees it: pid and creation time. */
static uint64_t created_time(void)
{
	FILETIME created, exited, kernel, user;
	GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user);
	return (uint64_t)created.dwHighDateTime << 32 | created.dwLowDateTime;
}

static int hold_light(unsigned exit_after)
{
	char line[64];

	printf("{\"pid\": %lu, \"created\": %llu}\n", (unsigned long)GetCurrentProcessId(),
	       (unsigned long long)created_time());
	fflush(stdout);
	if (exit_after) {
		Sleep(exit_after);
		return 0;
	}
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}

/* Answers the lines of standard input (commit N, heap N) until it closes. */
static void grow_on_request(HANDLE heap)
{
	char line[64];
	unsigned mib;

	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "commit %u", &mib) == 1) {
			volatile unsigned char *p = VirtualAlloc(NULL, mib * MiB, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
			if (p)
				touch(p, mib * MiB);
			printf("{\"grown\": \"commit\", \"mib\": %u}\n", p ? mib : 0);
		} else if (sscanf(line, "heap %u", &mib) == 1) {
			/* every block allocated before any is touched: Wine's
			 * commit figure follows the pages touched, and a census
			 * it starts on the way then finds all the blocks */
			unsigned made = 0;
			for (; made < mib && made < MAX_BLOCKS; made++)
				if (!(blocks[made] = HeapAlloc(heap, 0, MiB)))
					break;
			for (unsigned i = 0; i < made; i++)
				touch(blocks[i], MiB);
			printf("{\"grown\": \"heap\", \"mib\": %u}\n", made);
		}
		fflush(stdout);
	}
}

static uint64_t addr(const volatile void *p)
{
	return (uint64_t)(uintptr_t)p;
}

int main(int argc, char **argv)
{
	unsigned regions = 0, exit_after = 0;
	bool light = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--light") == 0)
			light = true;
		else if (i + 1 < argc && strcmp(argv[i], "--regions") == 0)
			regions = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (i + 1 < argc && strcmp(argv[i], "--exit-after") == 0)
			exit_after = (unsigned)strtoul(argv[++i], NULL, 10);
	}
	quit = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (light)
		return hold_light(exit_after);

	/* private data: 24 MiB committed and touched */
	size_t private_size = 24 * MiB;
	keep[0] = VirtualAlloc(NULL, private_size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	touch(keep[0], private_size);

	/* a heap of its own with small blocks, and two large blocks the heap
	 * allocates apart (past its VirtualAlloc threshold) */
	HANDLE heap = HeapCreate(0, 0, 0);
	for (int i = 0; i < 256; i++)
		touch(HeapAlloc(heap, 0, 4096), 4096);
	size_t block_size = 6 * MiB;
	keep[1] = HeapAlloc(heap, 0, block_size);
	keep[2] = HeapAlloc(heap, 0, block_size);
	touch(keep[1], block_size);
	touch(keep[2], block_size);

	/* the C runtime's malloc: a large block of the process heap */
	size_t malloc_size = 5 * MiB;
	keep[3] = malloc(malloc_size);
	touch(keep[3], malloc_size);

	/* a data file mapped and read fully */
	wchar_t dir[MAX_PATH], path[MAX_PATH];
	GetTempPathW(MAX_PATH, dir);
	GetTempFileNameW(dir, L"rwh", 0, path);
	size_t file_size = 8 * MiB;
	HANDLE file = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
				  FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	char *zeros = calloc(1, 1 << 20);
	DWORD wrote;
	for (size_t i = 0; i < file_size; i += 1 << 20)
		WriteFile(file, zeros, 1 << 20, &wrote, NULL);
	HANDLE file_map = CreateFileMappingW(file, NULL, PAGE_READONLY, 0, 0, NULL);
	volatile unsigned char *view = MapViewOfFile(file_map, FILE_MAP_READ, 0, 0, 0);
	unsigned sum = 0;
	for (size_t i = 0; i < file_size; i += 4096)
		sum += view[i];

	/* a section backed by the paging file, mapped and written */
	size_t section_size = 4 * MiB;
	HANDLE section = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, (DWORD)section_size, NULL);
	keep[4] = MapViewOfFile(section, FILE_MAP_WRITE, 0, 0, 0);
	touch(keep[4], section_size);

	/* 64 GiB reserved, 16 MiB of it committed and touched */
	size_t big_size = 64 * GiB, big_committed = 16 * MiB;
	keep[5] = VirtualAlloc(NULL, big_size, MEM_RESERVE, PAGE_NOACCESS);
	if (keep[5] && VirtualAlloc((void *)keep[5], big_committed, MEM_COMMIT, PAGE_READWRITE))
		touch(keep[5], big_committed);

	/* write-combined (what a GPU driver maps) */
	size_t wc_size = 2 * MiB;
	keep[6] = VirtualAlloc(NULL, wc_size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE | PAGE_WRITECOMBINE);
	if (keep[6])
		touch(keep[6], wc_size);

	/* executable private memory (generated code) */
	size_t jit_size = 256 * 1024;
	keep[7] = VirtualAlloc(NULL, jit_size, MEM_RESERVE | MEM_COMMIT, PAGE_EXECUTE_READWRITE);
	touch(keep[7], jit_size);

	/* threads with known stack reservations */
	static const size_t stacks[] = { 1 * MiB, 4 * MiB, 8 * MiB };
	DWORD tids[3];
	for (int i = 0; i < 3; i++)
		CloseHandle(CreateThread(NULL, stacks[i], thread_main, NULL, STACK_SIZE_PARAM_IS_A_RESERVATION, &tids[i]));
	Sleep(100);

	for (unsigned i = 0; i < regions; i++) {
		volatile unsigned char *p = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
		if (p)
			p[0] = 1;
	}

	/* its identity, as another process sees it: pid and creation time */
	FILETIME created, exited, kernel, user;
	GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user);

	printf("{\"pid\": %lu, \"created\": %llu, \"private\": [%llu, %llu], \"heap\": %llu, \"heap_blocks\": [%llu, %llu], "
	       "\"heap_block_size\": %llu, \"malloc\": [%llu, %llu], \"file\": [%llu, %llu], \"section\": [%llu, %llu], "
	       "\"big\": [%llu, %llu, %llu], \"wc\": [%llu, %llu], \"jit\": [%llu, %llu], "
	       "\"threads\": [%lu, %lu, %lu], \"stacks\": [%llu, %llu, %llu], \"sum\": %u}\n",
	       (unsigned long)GetCurrentProcessId(), (unsigned long long)created.dwHighDateTime << 32 | created.dwLowDateTime,
	       (unsigned long long)addr(keep[0]), (unsigned long long)private_size,
	       (unsigned long long)addr(heap), (unsigned long long)addr(keep[1]), (unsigned long long)addr(keep[2]),
	       (unsigned long long)block_size, (unsigned long long)addr(keep[3]), (unsigned long long)malloc_size,
	       (unsigned long long)addr(view), (unsigned long long)file_size, (unsigned long long)addr(keep[4]),
	       (unsigned long long)section_size, (unsigned long long)addr(keep[5]), (unsigned long long)big_size,
	       (unsigned long long)(keep[5] ? big_committed : 0), (unsigned long long)addr(keep[6]),
	       (unsigned long long)wc_size, (unsigned long long)addr(keep[7]), (unsigned long long)jit_size,
	       (unsigned long)tids[0], (unsigned long)tids[1], (unsigned long)tids[2], (unsigned long long)stacks[0],
	       (unsigned long long)stacks[1], (unsigned long long)stacks[2], sum);
	fflush(stdout);

	if (exit_after) {
		Sleep(exit_after);
		return 0;
	}
	grow_on_request(heap);
	SetEvent(quit);
	return 0;
}
