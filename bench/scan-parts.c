/* Where a census's own time goes, per region: parsing, classifying and
 * summing the smaps text of a saved file, in memory (no kernel work), best
 * of N runs.
 *
 *   scan-parts FILE [RUNS]
 *
 * Prints "regions N parse_ns X classify_ns Y summarise_ns Z" (per region). */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <time.h>

#include "census.h"
#include "classify.h"
#include "fileio.h"
#include "limits.h"
#include "smaps.h"
#include "strpool.h"

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	char *text;
	size_t len, n = 0;
	int runs = argc > 2 ? atoi(argv[2]) : 20;
	double best[3] = { 1e30, 1e30, 1e30 };

	if (argc < 2 || read_full_fileat(AT_FDCWD, argv[1], 1u << 30, &text, &len) < 0) {
		fprintf(stderr, "usage: scan-parts FILE [RUNS]\n");
		return 2;
	}
	for (int k = 0; k < runs; k++) {
		struct strpool *pool = strpool_new();
		struct smaps_parser p;
		smaps_parser_init(&p, 0, pool);
		double t0 = now_ns();
		/* in the chunks a census reads */
		for (size_t off = 0; off < len; off += RW_SMAPS_READ_SIZE)
			if (smaps_parser_feed(&p, text + off, len - off < RW_SMAPS_READ_SIZE ? len - off : RW_SMAPS_READ_SIZE) < 0)
				return fprintf(stderr, "%s\n", p.message), 1;
		if (smaps_parser_finish(&p) < 0)
			return fprintf(stderr, "%s\n", p.message), 1;
		double t1 = now_ns();
		struct region *r = smaps_parser_take(&p, &n);
		classify_regions(r, n, NULL);
		double t2 = now_ns();
		struct census *c = census_new();
		census_summarise(c, r, n, RW_TOP_DEFAULT, false);
		double t3 = now_ns();
		double d[3] = { t1 - t0, t2 - t1, t3 - t2 };
		for (int i = 0; i < 3; i++)
			if (d[i] < best[i])
				best[i] = d[i];
		census_free(c);
		regions_free(r);
		smaps_parser_done(&p);
		strpool_free(pool);
	}
	printf("regions %zu parse_ns %.0f classify_ns %.0f summarise_ns %.0f\n", n, best[0] / (double)n,
	       best[1] / (double)n, best[2] / (double)n);
	free(text);
	return 0;
}
