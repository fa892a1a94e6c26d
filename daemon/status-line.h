/* The daemon's status in words: the STATUS= line that "systemctl status
 * ramwatchd" shows and the logs repeat, and the census rates it and the
 * control socket's "status" give.  Pure: a status snapshot in, text out. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "core-interface.h"

/* The census counts at a moment, which rates are measured from. */
struct status_rate_point {
	uint64_t at_us;             /* monotonic */
	uint64_t censuses, cpu_us;  /* all statuses together; their CPU time */
};

/* The point of st at now. */
struct status_rate_point status_rate_point(const struct core_status *st, uint64_t now);

/* One line for STATUS= and the logs: what is watched, the censuses per
 * minute and the budget used since *since (then moved to now), what
 * waits, how the store does.  Returns the length snprintf gives. */
int status_line_format(const struct core_status *st, uint64_t now, struct status_rate_point *since, char *buf,
		       size_t size);
