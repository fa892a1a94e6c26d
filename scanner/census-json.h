/* The JSON form of a census: what `ramwatch scan --json` prints, what
 * `--out` saves, what `ramwatch summary` and `ramwatch diff` read back, and
 * what the daemon sends over its socket.  Documented in ramwatch(1).
 *
 * Sizes are exact integer bytes; addresses are "0x..." strings (they can
 * exceed the 2^63 that JSON readers keep exact); unknown values are null. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct census;

#define CENSUS_JSON_FORMAT "ramwatch-census"
#define CENSUS_JSON_VERSION 1

/* Returns a new JSON object (the caller owns the reference), or NULL when
 * out of memory.  with_regions adds "regions" when the census kept them. */
json_t *census_to_json(const struct census *c, bool with_regions);

/* Reads a census back from JSON.  Returns 0 with *ret (census_free), or
 * -EBADMSG with the reason in err (naming the field), or -ENOMEM. */
int census_from_json(const json_t *root, struct census **ret, struct error *err);

/* Reads a census file (JSON) whole, at most RW_CENSUS_FILE_MAX bytes; "-"
 * is standard input.  Returns as census_from_json, -EFBIG for a larger
 * file, -E2BIG for one of more than RW_CENSUS_VALUES_MAX JSON values, or
 * -errno of reading.  Duplicate keys, numbers past 64 bits and text that
 * is not UTF-8 are -EBADMSG, as jansson finds them. */
int census_load_file(const char *path, struct census **ret, struct error *err);
