/* In use or kept, over time: what the heap walks' figures of one class
 * (heap-walk.h: in use, free, unknown, of its private bytes) say when the
 * class grows.  Memory a program still holds (in use) that keeps growing
 * is a leak candidate; memory its allocator keeps free (freed blocks it
 * did not give back) that grows is fragmentation or caching, and the
 * returnable part of it is what the allocator could give back.
 *
 * Pure arithmetic on figures, shared by ramwatch diff (two censuses) and
 * the report (every census of a process); the thresholds are named in
 * common/limits.h (RW_HEAP_GROWTH_MIN, RW_HEAP_RISE_*). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One class at one census. */
struct heap_point {
	int64_t time_ms;   /* when the census was taken */
	uint64_t private;  /* the class's private bytes */
	bool known;        /* a heap walk accounted for the class: the rest is meaningful */
	uint64_t in_use, free, unknown, returnable;
};

/* What a class's growth from one census to another was made of. */
enum heap_growth {
	HEAP_GROWTH_NONE,     /* it did not grow by RW_HEAP_GROWTH_MIN */
	HEAP_GROWTH_HELD,     /* in use grew: held by the program */
	HEAP_GROWTH_KEPT,     /* free grew: kept by the allocator */
	HEAP_GROWTH_BOTH,     /* both, neither less than half the other */
	HEAP_GROWTH_UNKNOWN,  /* not known at one of the two, or the walk could not tell most of it */
	HEAP_GROWTH_OVERHEAD, /* neither: the allocator's own structures */
	_HEAP_GROWTH_MAX
};

/* "none", "held", "kept", "both", "unknown", "overhead": the word the
 * report's JSON gives. */
const char *heap_growth_name(enum heap_growth g);

/* What the growth of a class from a to b was made of.  A class grew when
 * its private bytes rose by RW_HEAP_GROWTH_MIN or more; then it is held
 * when in use rose more than free, kept when free rose more, both when
 * each rose by RW_HEAP_GROWTH_MIN and the smaller by at least half the
 * larger, unknown when either census does not know the class's figures
 * or unknown rose more than either, overhead when neither in use nor free
 * rose by RW_HEAP_GROWTH_MIN. */
enum heap_growth heap_trend_growth(const struct heap_point *a, const struct heap_point *b);

/* A slow, steady rise of in use: among the last RW_HEAP_RISE_CENSUSES
 * points that know the class's figures (fewer: none is flagged), in use
 * rose from one to the next at least RW_HEAP_RISE_MIN times, the points
 * span at least RW_HEAP_RISE_SPAN_MS, and in use rose by
 * RW_HEAP_RISE_BYTES or more from the first to the last. */
struct heap_rise {
	bool flagged;
	size_t first, last;     /* indices into the points: the stretch looked at */
	unsigned rises, steps;  /* steps where in use rose, of those compared */
	int64_t span_ms;        /* from the first to the last */
	int64_t change;         /* in use, last less first */
	double bytes_per_hour;  /* change over span */
};

/* Looks at points v[0..n) (oldest first) for a slow, steady rise of in
 * use; fills *ret whatever it finds (flagged false when none, or when
 * fewer than RW_HEAP_RISE_CENSUSES points know the figures).  Returns
 * ret->flagged. */
bool heap_trend_slow_rise(const struct heap_point *v, size_t n, struct heap_rise *ret);
