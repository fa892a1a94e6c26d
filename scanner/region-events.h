/* Region events: what changed in a process's address space between two
 * censuses — regions that appeared, disappeared, grew or shrank — so churn
 * and region lifetimes can be studied later.  A region is known by its
 * start address, path and inode.  Pure: snapshots in, events out. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "region-event-kind.h"

struct census;
struct strpool;

/* What the daemon keeps of a census between two: 48 bytes a region. */
struct region_snapshot {
	uint64_t start, end, inode;
	const char *path; /* interned in the caller's pool, NULL when anonymous */
	uint64_t private, resident;
	uint8_t cls;
};

struct region_event {
	enum region_event_kind kind;
	uint64_t start, inode;
	const char *path;
	uint8_t cls;
	uint64_t size, size_before;         /* 0 before an appearance, after a disappearance */
	uint64_t private, private_before;
	uint64_t resident, resident_before;
};

/* A snapshot of a census's regions (it must have kept them), sorted by
 * address, paths interned in pool.  Returns 0 with *ret (free()), -ENODATA
 * when the census has no region list, -ENOMEM. */
int region_snapshot_take(const struct census *c, struct strpool *pool, struct region_snapshot **ret, size_t *ret_n);

/* The events from before to after (both sorted by start).  A region that
 * keeps its key is an event when its size changed or its private memory
 * moved by at least min_change bytes (GREW or SHRANK by the private change,
 * else by the size change).  Returns 0 with *ret (free(), NULL when none) or
 * -ENOMEM. */
int region_events_diff(const struct region_snapshot *before, size_t n_before, const struct region_snapshot *after,
		       size_t n_after, uint64_t min_change, struct region_event **ret, size_t *ret_n);
