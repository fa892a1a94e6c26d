/* Censuses the store tests write: taken from fixture files, so their
 * classes, regions and files are those of a real program. */
#pragma once

#include "testlib.h"

#include <stdio.h>

#include "census.h"
#include "scan.h"

/* A census of a Java 17 process (G1 heap) from tests/data/smaps; fails the
 * test when the fixture cannot be read.  Free with census_free. */
static inline struct census *java_census(void)
{
	struct scan_options o = { .top = 20 };
	struct census *c = NULL;
	struct error err;
	char smaps[4096], status[4096];

	snprintf(smaps, sizeof(smaps), "%s", fixture("smaps/java17-g1.smaps"));
	snprintf(status, sizeof(status), "%s", fixture("smaps/java17-g1.status"));
	if (scan_smaps_file(smaps, status, &o, &c, &err) < 0)
		fail_msg("java17-g1: %s", err.message);
	return c;
}
