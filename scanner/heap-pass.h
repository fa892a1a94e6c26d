/* The heap pass: after evidence, every walker of the registry
 * (heap-walkers.h) reads its allocator's structures, within one census's
 * bounds, and each class a walk described gets its in use, free,
 * overhead, unknown and returnable bytes (census_set_heap). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap-walk.h"

struct census;

/* What the pass did, for the census's cost and the benchmarks. */
struct heap_pass_result {
	uint64_t bytes_read; /* of the process's memory, by all walkers */
	uint64_t wall_us;
	size_t walks;        /* walkers that found their allocator */
	bool cut;            /* the deadline or the byte limit stopped a walker, or kept one from running */
};

/* Runs the walkers on the census c of the regions in (classified,
 * evidence applied, as census_summarise summed them), through in->src,
 * within in->limits: at most limits->max_bytes read by all walkers
 * together, none started past the deadline.  A walk that does not check
 * out after limits->retries more tries leaves its classes' memory
 * unknown, with the reason in the class's how.  Classes no walk describes
 * stay unknown (census_summarise left them so).  Returns 0 with *res
 * (may be NULL), -ESRCH when the process vanished, -ENOMEM. */
int heap_pass_run(struct census *c, const struct heap_walk_input *in, struct heap_pass_result *res);
