/* page-populate: what new anonymous memory costs a page, written a page at
 * a time (a fault on each) beside made present first by one
 * madvise(MADV_POPULATE_WRITE) and then written, the two alternated in
 * rounds on fresh mappings of the same size.  The replay's new table
 * slots, control bytes and read buffer are made present the second way
 * (common/populate.h).
 *
 *   page-populate [MIB [ROUNDS]]     (default 8 MiB, 9 rounds)
 *
 * Prints the median of the rounds for each, in microseconds a page, and
 * their ratio. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Seconds to make len bytes of a fresh mapping present and write a byte of
 * each page: populated first or not; -1 when refused. */
static double one(size_t len, size_t page, int populate)
{
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	double t = now();
	if (populate && madvise((void *)p, len, MADV_POPULATE_WRITE) < 0) {
		munmap((void *)p, len);
		return -1;
	}
	for (size_t i = 0; i < len; i += page)
		p[i] = 1;
	t = now() - t;
	munmap((void *)p, len);
	return t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 8, rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 9;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = mib << 20;
	double *faulted = calloc(rounds, sizeof(double)), *populated = calloc(rounds, sizeof(double));

	if (!mib || !rounds || rounds > 1000 || !faulted || !populated) {
		fprintf(stderr, "usage: page-populate [MIB [ROUNDS (1-1000)]]\n");
		return 2;
	}
	for (size_t r = 0; r < rounds; r++) {
		faulted[r] = one(len, page, 0);
		populated[r] = one(len, page, 1);
		if (faulted[r] < 0 || populated[r] < 0) {
			perror("page-populate: mmap or madvise(MADV_POPULATE_WRITE)");
			return 1;
		}
	}
	qsort(faulted, rounds, sizeof(double), cmp);
	qsort(populated, rounds, sizeof(double), cmp);
	double pages = (double)(len / page), f = faulted[rounds / 2] / pages * 1e6, p = populated[rounds / 2] / pages * 1e6;
	printf("%zu MiB, %zu rounds: written a page at a time %.2f us a page, populated first %.2f us a page (%.1fx)\n",
	       mib, rounds, f, p, p > 0 ? f / p : 0);
	return 0;
}
