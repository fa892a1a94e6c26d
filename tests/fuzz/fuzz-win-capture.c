/* libFuzzer target: the Windows region list behind `ramwatch.exe scan
 * --capture FILE` (scanner/win-capture.c), and the census made from it
 * (win-census.c).  A capture is a file people send each other, so every
 * byte of one is input: it is parsed, a census built and rendered to JSON,
 * and the census must conserve (class totals = totals).  A capture the
 * census refuses (regions out of order) must say why.  Nothing may crash,
 * leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census-json.h"
#include "census.h"
#include "win-capture.h"
#include "win-census.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct win_capture *cap = NULL;
	struct census *c = NULL;
	struct error err = { 0 };

	if (win_capture_parse((const char *)data, size, &cap, &err) < 0) {
		if (!err.message[0])
			abort();
		return 0;
	}
	if (win_census_build(cap->regions, cap->n, &cap->process, 5, true, &c, &err) < 0) {
		if (!err.message[0])
			abort();
	} else {
		struct census_totals sum;
		census_class_sum(c, &sum);
		if (sum.private != c->totals.private || sum.size != c->totals.size || sum.count != c->totals.count)
			abort();
		json_t *j = census_to_json(c, true);
		if (!j)
			abort();
		json_decref(j);
		census_free(c);
	}
	json_t *again = win_capture_to_json(cap->regions, cap->n, &cap->process);
	json_decref(again);
	win_capture_free(cap);
	return 0;
}
