/* The daemon's periodic timers: one-shot timers of the event loop re-armed
 * at a fixed pace after each run, so the pace does not drift by the work
 * done. */
#pragma once

#include <stdint.h>

#include "event-loop.h"

/* Adds a one-shot timer on e, first due first µs from the loop's now, with
 * the accuracy of interval, named name (for the logs).  Returns 0 with
 * *ret, or a negative errno after logging why. */
int timer_add(struct event_loop *e, struct event_source **ret, uint64_t first, uint64_t interval,
	      event_handler_t cb, void *userdata, const char *name);

/* Re-arms a one-shot timer interval after its last due time, or from now
 * when it fell behind. */
void timer_rearm(struct event_source *s, uint64_t interval);
