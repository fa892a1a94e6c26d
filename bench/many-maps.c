/* A process with many mappings, for benchmarks and for the test that kills
 * a process while its smaps is read.
 *
 *   many-maps [N] [PAGES]
 *
 * Maps N separate anonymous regions of PAGES pages each (default 20000 x 1),
 * touches every page, prints "ready N" and sleeps until killed.  Neighbours
 * alternate between read-write and read-only so the kernel cannot merge
 * them into one region. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long pages = argc > 2 ? atol(argv[2]) : 1;
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages * page);

	if (n < 0 || pages < 1) {
		fprintf(stderr, "usage: many-maps [N] [PAGES]\n");
		return 2;
	}
	/* one reservation, then alternating protections inside it: every
	 * region is its own VMA, and they stay contiguous */
	char *base = mmap(NULL, len * (size_t)(n ? n : 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		char *p = base + (size_t)i * len;
		memset(p, 1, len);
		if (i % 2 && mprotect(p, len, PROT_READ) < 0) {
			perror("mprotect (raise vm.max_map_count?)");
			return 1;
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	for (;;)
		pause();
}
