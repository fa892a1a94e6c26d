/* The fast tier's arithmetic: the samples of one StoreInterval gathered
 * into one stored row, each counter of SAMPLE_COLUMNS (sample-row.h) the
 * lowest, the highest or the last value of its figure, so a peak between
 * two stored rows is never lost (doc/design.md#the-fast-tier). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* The row being gathered: a member for each counter of SAMPLE_COLUMNS
 * (samples: how many samples it holds; 0 when none). */
struct sample_acc {
	SAMPLE_COLUMNS(SAMPLE_MEMBER)
};

/* Adds count samples of the same figures (count >= 1: a process sampled
 * several times over which nothing changed adds them at once). */
void sample_acc_add(struct sample_acc *a, const struct sample_figures *f, uint32_t count);

/* Moves what was gathered into a row ending at time and starts over.
 * Returns false (and leaves *ret alone) when there was no sample. */
bool sample_acc_take(struct sample_acc *a, int64_t time, struct store_sample *ret);
