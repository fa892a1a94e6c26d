/* The tracer's malloc-heavy benchmark (bench/tracer-bench.py): THREADS
 * threads doing PAIRS malloc/free pairs in all, of 16 to 512 bytes (a
 * linear congruential sequence per thread, so every run asks for the same
 * sizes), each block written once so the allocation is real, and BIG
 * blocks of 256 KiB in all among them (0 when not given), each thread's
 * spread evenly over its pairs and kept until its next one: blocks above
 * any threshold, so that a trace at the default one records something.
 *
 *     malloc-heavy THREADS PAIRS [BIG] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS_MAX 64
#define BIG_BYTES (256 * 1024)

static long per_thread;
static long big_per_thread;

static void *run(void *arg)
{
	unsigned s = (unsigned)(long)arg * 2654435761u + 1;
	long every = big_per_thread ? per_thread / big_per_thread : 0;
	char *big = NULL;

	for (long i = 0; i < per_thread; i++) {
		s = s * 1103515245u + 12345u;
		char *volatile p = malloc(16 + (s >> 8) % 497);
		if (!p)
			abort();
		p[0] = 1;
		free(p);
		if (every && i % every == 0) {
			free(big);
			if (!(big = malloc(BIG_BYTES)))
				abort();
			big[0] = 1;
		}
	}
	free(big);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS_MAX];
	int n = argc == 3 || argc == 4 ? atoi(argv[1]) : 0;

	if (n < 1 || n > THREADS_MAX) {
		fprintf(stderr, "usage: malloc-heavy THREADS PAIRS [BIG]\n");
		return 2;
	}
	per_thread = atol(argv[2]) / n;
	big_per_thread = argc == 4 ? atol(argv[3]) / n : 0;
	if (big_per_thread > per_thread)
		big_per_thread = per_thread;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, (void *)(long)i) != 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
