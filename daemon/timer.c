/* The daemon's periodic timers (timer.h). */
#include "timer.h"

#include "log.h"

/* Timer accuracy: sd_event may fire a timer this much late to coalesce
 * wake-ups; a tenth of the interval, at most 50 ms, keeps samples evenly
 * spaced without waking the machine more than needed. */
static uint64_t accuracy_of(uint64_t interval)
{
	uint64_t a = interval / 10;
	return a > 50000 ? 50000 : a ? a : 1;
}

int timer_add(sd_event *e, sd_event_source **ret, uint64_t first, uint64_t interval, sd_event_time_handler_t cb,
	      void *userdata, const char *name)
{
	uint64_t now;
	int r = sd_event_now(e, CLOCK_MONOTONIC, &now);
	if (r < 0)
		return r;
	r = sd_event_add_time(e, ret, CLOCK_MONOTONIC, now + first, accuracy_of(interval), cb, userdata);
	if (r < 0)
		return log_error_errno(r, "cannot add the %s timer: %m", name);
	(void)sd_event_source_set_description(*ret, name);
	return 0;
}

void timer_rearm(sd_event_source *s, uint64_t interval)
{
	uint64_t due = 0, now = 0;
	(void)sd_event_source_get_time(s, &due);
	(void)sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);
	due += interval;
	if (due <= now)
		due = now + interval;
	(void)sd_event_source_set_time(s, due);
	(void)sd_event_source_set_time_accuracy(s, accuracy_of(interval));
	(void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}
