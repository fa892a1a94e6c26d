/* The floor of a Windows census: a bare VirtualQueryEx walk of another
 * process's address space, nothing else (no paths, reads or working set).
 * Usage: walk.exe PID [REPEATS]; prints the regions and the median
 * microseconds per walk. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	DWORD pid = (DWORD)strtoul(argv[1], NULL, 10);
	int repeats = argc > 2 ? atoi(argv[2]) : 21;
	HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid);
	if (!h || repeats < 1 || repeats > 1000)
		return 1;
	double *us = calloc((size_t)repeats, sizeof(*us));
	LARGE_INTEGER freq, t0, t1;
	QueryPerformanceFrequency(&freq);
	unsigned long regions = 0;
	for (int k = 0; k < repeats; k++) {
		MEMORY_BASIC_INFORMATION mbi;
		uint64_t address = 0;
		regions = 0;
		QueryPerformanceCounter(&t0);
		while (address < 0x7fffffff0000ull &&
		       VirtualQueryEx(h, (void *)(uintptr_t)address, &mbi, sizeof(mbi)) == sizeof(mbi)) {
			address = (uintptr_t)mbi.BaseAddress + mbi.RegionSize;
			regions++;
		}
		QueryPerformanceCounter(&t1);
		us[k] = (double)(t1.QuadPart - t0.QuadPart) * 1e6 / (double)freq.QuadPart;
	}
	qsort(us, (size_t)repeats, sizeof(*us), cmp);
	printf("%lu %.0f\n", regions, us[repeats / 2]);
	return 0;
}
