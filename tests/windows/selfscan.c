/* Residency under Wine: Wine answers QueryWorkingSetEx for the process
 * itself only, so this program holds memory of a known residency and runs
 * the scanner on itself, printing its census as JSON: 16 MiB committed,
 * the first 6 MiB touched (resident), the rest never touched (not).  The
 * region's address is on the first line. */
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>

#include "census-json.h"
#include "census.h"
#include "win-census.h"
#include "winscan.h"

static volatile unsigned char *block;

int main(void)
{
	size_t size = 16u << 20, touched = 6u << 20;
	struct win_capture *cap = NULL;
	struct census *c = NULL;
	struct error err = { 0 };
	struct winscan_options o = { 0 };

	block = VirtualAlloc(NULL, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
	for (size_t i = 0; i < touched; i += 4096)
		block[i] = 1;
	printf("%llu\n", (unsigned long long)(uintptr_t)block);
	if (winscan_process((int)GetCurrentProcessId(), &o, &cap, &err) < 0 ||
	    win_census_build(cap->regions, cap->n, &cap->process, 10, true, &c, &err) < 0) {
		fprintf(stderr, "selfscan: %s\n", err.message);
		return 1;
	}
	json_t *j = census_to_json(c, true);
	json_dumpf(j, stdout, JSON_COMPACT);
	putchar('\n');
	return 0;
}
