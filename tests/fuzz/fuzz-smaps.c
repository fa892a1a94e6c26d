/* libFuzzer target: the smaps parser, fed in two pieces cut where the
 * input says, then the classifier and the census on whatever it accepted.
 * Nothing may crash, leak or read out of bounds, and the census must keep
 * its conservation property on any input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "classify.h"
#include "smaps.h"
#include "strpool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same input fed a byte at a time takes the general path for every
 * line: it must give the same regions as the fast paths, or the same error. */
static void differential(const uint8_t *data, size_t size, int error, const struct region *regions, size_t n)
{
	struct strpool *pool = strpool_new();
	struct smaps_parser p;
	size_t m = 0;
	int r = 0;

	if (!pool)
		return;
	smaps_parser_init(&p, 4096, pool);
	for (size_t i = 0; i < size && r == 0; i++)
		r = smaps_parser_feed(&p, (const char *)data + i, 1);
	if (r == 0)
		r = smaps_parser_finish(&p);
	struct region *slow = smaps_parser_take(&p, &m);
	smaps_parser_done(&p);
	if ((r == 0) != (error == 0))
		abort();
	if (r == 0) {
		if (m != n)
			abort();
		for (size_t i = 0; i < n; i++)
			if (slow[i].start != regions[i].start || slow[i].end != regions[i].end ||
			    slow[i].present != regions[i].present || slow[i].vmflags != regions[i].vmflags ||
			    memcmp(slow[i].kb_low, regions[i].kb_low, sizeof(slow[i].kb_low)) ||
			    memcmp(slow[i].kb_high, regions[i].kb_high, sizeof(slow[i].kb_high)) ||
			    slow[i].thp_eligible != regions[i].thp_eligible)
				abort();
	}
	regions_free(slow);
	strpool_free(pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct census *c = census_new();
	struct smaps_parser p;
	size_t cut = size ? data[0] % (size + 1) : 0, n = 0;

	if (!c)
		return 0;
	smaps_parser_init(&p, 4096, c->strings);
	int r = smaps_parser_feed(&p, (const char *)data, cut);
	if (r == 0)
		r = smaps_parser_feed(&p, (const char *)data + cut, size - cut);
	if (r == 0)
		r = smaps_parser_finish(&p);
	struct region *regions = smaps_parser_take(&p, &n);
	smaps_parser_done(&p);
	if (size <= 8192)
		differential(data, size, r, regions, n);
	if (r == 0) {
		uint64_t sps[] = { 0x7f0000001000, 0xc000001000 };
		struct classify_hints e = { .stack_pointers = sps, .n_stack_pointers = 2,
					       .exe = "/usr/bin/python3.11", .cmdline = "java -Xmx1g" };
		if (classify_regions(regions, n, &e) == 0 && census_summarise(c, regions, n, 8, true) == 0) {
			struct census_totals sum;
			census_class_sum(c, &sum);
			if (sum.private != c->totals.private || sum.resident != c->totals.resident ||
			    sum.count != n)
				abort();
		}
	}
	regions_free(regions);
	census_free(c);
	return 0;
}
