/* The fast tier: every SampleInterval, the status file of each watched
 * process (a few microseconds, no page-table walk), gathered into min, max
 * and last until the store cycle writes one row of it (sample.h).
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
};

/* Reads t's status at now_ms (unix ms).  Returns 0, -ESRCH when t has
 * exited (the caller lets it go), or another negative errno (counted,
 * the first one logged). */
int fast_tier_sample(struct fast_tier *f, struct target *t, int64_t now_ms);

/* Queues on writer the row of what was gathered about t since the last
 * one, ending at now_ms; nothing when there was no sample. */
void fast_tier_queue(struct target *t, struct writer *writer, int64_t now_ms);
