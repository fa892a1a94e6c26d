/* The fast tier's arithmetic: samples of /proc/PID/status gathered into one
 * stored row per StoreInterval, holding min, max and last, so a peak between
 * two stored rows is never lost (doc/design.md#the-fast-tier). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

struct sample_acc {
	uint32_t n;
	uint64_t private_min, private_max, private_last;
	uint64_t resident_min, resident_max, resident_last;
	uint64_t swap_last;
};

/* Adds count samples of the same figures (count >= 1: a process sampled
 * several times over which nothing changed adds them at once). */
void sample_acc_add(struct sample_acc *a, uint64_t private, uint64_t resident, uint64_t swap, uint32_t count);

/* Moves what was gathered into a row ending at time and starts over.
 * Returns false (and leaves *ret alone) when there was no sample. */
bool sample_acc_take(struct sample_acc *a, int64_t time, struct store_sample *ret);
