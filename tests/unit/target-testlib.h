/* Watched processes for the daemon's unit tests: targets made from plain
 * values, without a process behind them (no proc directory, no pidfd). */
#pragma once

#include <stdlib.h>

#include "target.h"
#include "writer.h"

/* A target for pid, instance start (its start time), of uid, named comm.
 * Freed with target_free. */
static inline struct target *test_target(int pid, uint64_t start, int64_t uid, const char *comm)
{
	struct target *t = calloc(1, sizeof(*t));
	struct store_process info = {
		.boot_id = "0b4f0f6e-52a1-4c3f-9a53-8b2a6c6f1f00",
		.pid = pid,
		.start_time = (int64_t)start,
		.started_at = -1,
		.uid = uid,
		.comm = comm,
		.seen = -1,
		.exited_at = -1,
	};

	if (!t)
		return NULL;
	t->pid = pid;
	t->start_time = start;
	t->proc_dir_fd = -1;
	t->pidfd = -1;
	fast_tier_target_init(t);
	t->ref = proc_ref_new(&info);
	if (!t->ref) {
		free(t);
		return NULL;
	}
	return t;
}
