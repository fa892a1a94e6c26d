/* The daemon's region events (regions that appeared, disappeared, grew or
 * shrank between two censuses) as a memtrace event stream
 * (doc/trace-format.md#the-daemons-region-events), so that `ramwatch trace summary --layer
 * physical` ranks a process's memory classes by what they kept, what they
 * churned and how long their regions lived.
 *
 * The stream is version 3, numbered from 1 without gaps, bounded by
 * trace.start and trace.stop, every event of layer physical_page:
 *
 *   - the address space goes to the analyzer's physical ledger as map and
 *     unmap events (scope root/<class>): a region that appears is a map of
 *     its range, one that disappears an unmap of it, a region that grew or
 *     shrank a map or unmap of the difference at its end;
 *   - the memory of each region goes to its class's scope as an alloc of
 *     its resident bytes when it appears, a resize when its resident bytes
 *     change, a free when it disappears.  The analyzer keeps map and unmap
 *     in its ledger only and ranks scopes by their allocations, so without
 *     these the scope lines would stay empty.  Resident bytes, not address
 *     space: this is the physical layer, and a reservation costs nothing;
 *   - each census that brought changes is a "census" event before them, so
 *     lifetimes in events also count censuses lived.
 *
 * A region that was there before the first event given (its first event
 * is not an appearance) is allocated at the start with what it held before
 * that event, so a window of the history still balances.  Regions present
 * at the end stay live: that is what the class kept. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region-event-kind.h"

struct trace_region_event {
	enum region_event_kind kind;
	int64_t time;      /* unix ms */
	int64_t census_id; /* the census that saw the change */
	uint64_t start;    /* the region's start address: its identity */
	const char *cls;   /* class key; NULL or "" is "unknown" */
	uint64_t size, size_before;
	uint64_t resident, resident_before;
};

/* Writes the memtrace lines for n events (in any order: they are replayed
 * by time, census and within a census disappearances first, then
 * shrinking, growth and appearances) to f.  Returns 0, -ENOMEM or -EIO. */
int trace_export_region_events(const struct trace_region_event *v, size_t n, FILE *f);
