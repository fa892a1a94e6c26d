/* What happened to each region between two stored censuses, from the
 * region events the daemon recorded between them: netted per region
 * (a region that grew at three censuses grew once, by the sum), largest
 * first, as a table or JSON. */
#pragma once

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "region-event-kind.h"
#include "render-census.h"

struct region_change {
	enum region_event_kind kind; /* appeared, disappeared, grew, shrank */
	uint64_t start;              /* the region's address: its identity */
	const char *cls, *path;      /* into the events answer; path NULL: anonymous */
	uint64_t size, size_before;
	uint64_t private, private_before;
};

/* The changes the events (an events answer's "events" array, oldest
 * first) add up to, largest change first (of size or private, whichever
 * is more).  A region that appeared and went again between the two
 * censuses, or came back to where it was, has no change.  Strings point
 * into events.  Returns 0 with *ret (free()) and *ret_n, -EBADMSG naming
 * the event and field in err, or -ENOMEM. */
int region_changes_from_events(const json_t *events, struct region_change **ret, size_t *ret_n, struct error *err);

/* The first top of the n changes (top 0: all) as a table under a heading
 * (text or Markdown), with a line saying how many more there are.
 * Nothing when n is 0.  Returns 0 or -ENOMEM / -EIO. */
int render_region_changes(const struct region_change *v, size_t n, size_t top, const struct render_options *o,
			  FILE *f);

/* The n changes as a JSON array: kind, start (hex), class, path, size,
 * size_before, private, private_before.  NULL without memory. */
json_t *region_changes_json(const struct region_change *v, size_t n);
