/* The daemon's periodic timers: one-shot sd_event timers re-armed at a
 * fixed pace after each run, so the pace does not drift by the work done. */
#pragma once

#include <stdint.h>

#include <systemd/sd-event.h>

/* Adds a one-shot monotonic timer on e, first due first µs from now, with
 * the accuracy of interval, named name (for the logs).  Returns 0 with
 * *ret, or a negative errno after logging why. */
int timer_add(sd_event *e, sd_event_source **ret, uint64_t first, uint64_t interval, sd_event_time_handler_t cb,
	      void *userdata, const char *name);

/* Re-arms a one-shot timer interval after its last due time, or from now
 * when it fell behind. */
void timer_rearm(sd_event_source *s, uint64_t interval);
