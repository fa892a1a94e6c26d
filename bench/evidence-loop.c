/* Censuses of one process taken over and over in one long-lived process, as
 * ramwatchd takes them: with evidence and without, alternating, each timed
 * by the CPU time of the thread that takes it.
 *
 *   evidence-loop PID [RUNS]
 *
 * Prints "runs N evidence_us X shapes_us Y ratio R reads Z" with the
 * medians of RUNS censuses of each kind (default 41).  The one-shot
 * `ramwatch scan` pays once more for what a long-lived process has warm
 * (its code and buffers); evidence-bench.py measures both. */
#include <stdio.h>
#include <stdlib.h>

#include "census.h"
#include "scan.h"
#include "util.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	int pid, runs = argc > 2 ? atoi(argv[2]) : 41;
	int64_t reads = 0;

	if (argc < 2 || parse_pid(argv[1], &pid) < 0 || runs < 1 || runs > 100000) {
		fprintf(stderr, "usage: evidence-loop PID [RUNS]\n");
		return 2;
	}
	uint64_t *t[2] = { calloc((size_t)runs, sizeof(uint64_t)), calloc((size_t)runs, sizeof(uint64_t)) };
	if (!t[0] || !t[1])
		return 1;
	for (int k = 0; k < runs + 1; k++)
		for (int e = 0; e < 2; e++) {
			/* the order alternates, so neither kind always follows the other */
			int kind = (k + e) % 2;
			struct scan_options o = { .keep_regions = true, .no_evidence = kind == 1 };
			struct error err;
			struct census *c = NULL;
			uint64_t cpu0 = now_thread_cpu_us();
			if (scan_process(pid, &o, &c, &err) < 0) {
				fprintf(stderr, "evidence-loop: %s\n", err.message);
				return 1;
			}
			uint64_t used = now_thread_cpu_us() - cpu0;
			if (kind == 0)
				reads = c->evidence.reads;
			census_free(c);
			if (k > 0) /* the first round warms up */
				t[kind][k - 1] = used;
		}
	uint64_t e = median(t[0], runs), s = median(t[1], runs);
	printf("runs %d evidence_us %llu shapes_us %llu ratio %.3f reads %lld\n", runs, (unsigned long long)e,
	       (unsigned long long)s, s ? (double)e / (double)s : 0.0, (long long)reads);
	free(t[0]);
	free(t[1]);
	return 0;
}
