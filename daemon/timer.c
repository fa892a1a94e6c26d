/* The daemon's periodic timers (timer.h). */
#include "timer.h"

#include "log.h"

/* Timer accuracy: the loop may fire a timer this much late to coalesce
 * wake-ups; a tenth of the interval, at most 50 ms, keeps samples evenly
 * spaced without waking the machine more than needed. */
static uint64_t accuracy_of(uint64_t interval)
{
	uint64_t a = interval / 10;
	return a > 50000 ? 50000 : a ? a : 1;
}

int timer_add(struct event_loop *e, struct event_source **ret, uint64_t first, uint64_t interval,
	      event_handler_t cb, void *userdata, const char *name)
{
	int r = event_loop_add_timer(e, event_loop_now(e) + first, accuracy_of(interval), cb, userdata, name, ret);
	if (r < 0)
		return log_error_errno(r, "cannot add the %s timer: %m", name);
	return 0;
}

void timer_rearm(struct event_source *s, uint64_t interval)
{
	uint64_t due = event_timer_due(s), now = event_loop_now(event_source_loop(s));
	due += interval;
	if (due <= now)
		due = now + interval;
	(void)event_timer_arm_at(s, due, accuracy_of(interval));
}
