/* Allocates faster than the tracer's writer drains: threads doing
 * malloc/free pairs of 64 KiB blocks (all above the default threshold) as
 * fast as they can, for tests/integration/test_trace_record.py's check
 * that a full buffer drops, counts, and the verdict says so.  Arguments:
 * threads, pairs per thread. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long pairs;

static void *run(void *arg)
{
	(void)arg;
	for (long i = 0; i < pairs; i++) {
		char *volatile p = malloc(65536);
		p[0] = 1;
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	pairs = argc > 2 ? atol(argv[2]) : 1000000;
	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
