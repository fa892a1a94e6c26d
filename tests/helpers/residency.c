/* The residency helper: malloc blocks whose pages are not all in memory,
 * so tests can check that reading evidence never brings a page in.
 *
 *   residency [UNTOUCHED_MIB [PAGED_MIB]]
 *
 * "untouched": a block of UNTOUCHED_MIB (default 256) that is never
 *   written: only its first page, where malloc writes the chunk header, is
 *   resident.
 * "paged_out": a block of PAGED_MIB (default 16), written whole, then
 *   handed to swap with MADV_PAGEOUT (Linux 5.4): its header page too.
 *   Without swap the pages stay; "paged_out_swap" says what the kernel
 *   reports swapped afterwards (VmSwap, kB), so the test knows.
 *
 * Prints one line of JSON when ready, then waits for its standard input to
 * close.  The blocks stay reachable from volatile globals. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define MiB (1024ul * 1024ul)

static char *volatile untouched;
static char *volatile paged_out;

static long vm_swap_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSwap: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	size_t untouched_len = (argc > 1 ? strtoul(argv[1], NULL, 10) : 256) * MiB;
	size_t paged_len = (argc > 2 ? strtoul(argv[2], NULL, 10) : 16) * MiB;
	long page = sysconf(_SC_PAGESIZE);
	char buf[64];

	untouched = malloc(untouched_len);
	paged_out = malloc(paged_len);
	if (!untouched || !paged_out) {
		perror("malloc");
		return 1;
	}
	memset(paged_out, 0x5a, paged_len);
	/* the whole mapping, from its page-aligned start (the chunk header) */
	char *map = (char *)((uintptr_t)paged_out & ~((uintptr_t)page - 1));
	int advised = madvise(map, paged_len + (size_t)(paged_out - map), MADV_PAGEOUT);
	int err = advised < 0 ? errno : 0;

	printf("{\"pid\": %d, \"untouched\": \"%p\", \"untouched_len\": %zu, \"paged_out\": \"%p\", "
	       "\"paged_out_len\": %zu, \"pageout\": \"%s\", \"paged_out_swap\": %ld}\n",
	       (int)getpid(), (void *)untouched, untouched_len, (void *)paged_out, paged_len,
	       advised < 0 ? strerror(err) : "ok", vm_swap_kb());
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	return 0;
}
