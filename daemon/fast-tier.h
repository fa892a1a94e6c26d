/* The fast tier: every SampleInterval, the statm file of each watched
 * process, kept open (a microsecond or two, no page-table walk), and its
 * status when statm changed or once per StoreInterval (target_sample),
 * gathered into min, max and last until the store cycle writes one row of
 * it (sample.h).
 *
 * Only the fast tier changes a target's sample fields and its accumulator
 * (target_sample reads them in for it; the store cycle and letting a
 * process go take its row through fast_tier_queue). */
#pragma once

#include <stdint.h>

struct target;
struct writer;

struct fast_tier {
	uint64_t sample_errors; /* reads that failed other than by an exit */
	uint64_t round_us_max;  /* the longest sample round since the start (wall time) */
};

/* A sample round (the fast tier over the watched set and the census pass
 * after it) took us microseconds: kept when the longest so far. */
void fast_tier_round(struct fast_tier *f, uint64_t us);

/* Samples t at now_ms (unix ms), reading its status at least every
 * status_every_ms.  Returns 0, -ESRCH when t has
 * exited (the caller lets it go), or another negative errno (counted,
 * the first one logged). */
int fast_tier_sample(struct fast_tier *f, struct target *t, int64_t now_ms, int64_t status_every_ms);

/* Queues on writer the row of what was gathered about t since the last
 * one, ending at now_ms; nothing when there was no sample. */
void fast_tier_queue(struct target *t, struct writer *writer, int64_t now_ms);
