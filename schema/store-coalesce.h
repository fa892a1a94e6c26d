/* Coalescing of the fast tier's raw rows (store-coalesce.c): a process
 * that holds still writes the same steady row every StoreInterval, and
 * such rows are kept as one row over their span (ramwatch-schema(7),
 * COALESCED ROWS).  The store remembers each process's last raw row (a
 * run) so that an identical next row extends it without reading the
 * table.  Only schema/ includes this. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* A process's last raw row as written: which row (process_id, time), how
 * far it reaches, and the values an identical row repeats. */
struct store_run {
	int64_t process_id; /* the key */
	int64_t time, until;
	int64_t until_before; /* until before the last row joined, to undo it */
	uint32_t samples;     /* of the last row that joined */
	struct store_sample values; /* the row's counters (time and samples aside) */
	bool steady;
	bool apart; /* the process has GPU memory rows: its rows stay apart */
};

/* Forgets the run of process_id (an exited process writes no more rows),
 * so that the runs kept stay as many as the processes followed. */
void store_coalesce_forget(struct store *s, int64_t process_id);

/* A GPU memory row of process_id at time: GPU rows are read with the
 * sample row of the same time, so that row must stand alone; it is split
 * out of its run, and the process's rows are not coalesced from now on.
 * Returns 0 or a negative errno. */
int store_sample_apart(struct store *s, int64_t process_id, int64_t time);
