/* The daemon's clock (daemon-clock.h). */
#include "daemon-clock.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include "limits.h"
#include "log.h"
#include "util.h"

void daemon_clock_init(struct daemon_clock *c, int64_t wall, uint64_t mono)
{
	*c = (struct daemon_clock){
		.wall_at_start = wall,
		.mono_at_start = mono,
		.last_stored = wall,
		.mono_at_last = mono,
		.offset = wall - (int64_t)(mono / 1000),
	};
}

int64_t daemon_clock_stored(struct daemon_clock *c, int64_t wall, uint64_t mono)
{
	/* a monotonic time older than the last one (two threads reading in
	 * turn) counts as no time at all */
	uint64_t since = mono > c->mono_at_last ? mono - c->mono_at_last : 0;
	int64_t floor = c->last_stored + (int64_t)(since / 1000);
	int64_t t = wall > floor ? wall : floor;

	/* the remainder below a millisecond is carried to the next reading */
	c->mono_at_last += since - since % 1000;
	c->last_stored = t;
	return t;
}

int64_t daemon_clock_retention(const struct daemon_clock *c, int64_t wall, uint64_t mono)
{
	uint64_t since = mono > c->mono_at_start ? mono - c->mono_at_start : 0;
	int64_t paced = c->wall_at_start + (int64_t)(since / 1000);

	return wall < paced ? wall : paced;
}

bool daemon_clock_jumped(struct daemon_clock *c, int64_t wall, uint64_t mono, int64_t *ret_jump)
{
	int64_t offset = wall - (int64_t)(mono / 1000), jump = offset - c->offset;

	c->offset = offset;
	if (llabs(jump) <= RW_CLOCK_JUMP_MS)
		return false;
	*ret_jump = jump;
	return true;
}

/* One clock for the daemon: the rows of every process and of the system
 * are on it, and the control socket's threads read it too. */
static pthread_mutex_t the_lock = PTHREAD_MUTEX_INITIALIZER;
static struct daemon_clock the_clock;
static bool the_clock_started;

/* Reads both clocks (the caller holds the lock), starting the clock at its
 * first use and logging a jump; the log never reads this clock, so logging
 * under the lock cannot deadlock. */
static void read_locked(int64_t *ret_wall, uint64_t *ret_mono)
{
	int64_t jump = 0;

	*ret_mono = now_monotonic_us();
	*ret_wall = now_realtime_ms();
	if (!the_clock_started) {
		daemon_clock_init(&the_clock, *ret_wall, *ret_mono);
		the_clock_started = true;
	} else if (daemon_clock_jumped(&the_clock, *ret_wall, *ret_mono, &jump)) {
		int64_t a = llabs(jump);
		log_notice("the wall clock was set %s by %" PRId64 ".%03" PRId64 " s: stored times %s; retention "
			   "keeps to the monotonic clock", jump < 0 ? "back" : "forward", a / 1000, a % 1000,
			   jump < 0 ? "go on from the last one until the wall clock catches up"
				    : "follow the wall clock");
	}
}

int64_t daemon_clock_now_ms(void)
{
	int64_t wall, t;
	uint64_t mono;

	pthread_mutex_lock(&the_lock);
	read_locked(&wall, &mono);
	t = daemon_clock_stored(&the_clock, wall, mono);
	pthread_mutex_unlock(&the_lock);
	return t;
}

int64_t daemon_clock_retention_now_ms(void)
{
	int64_t wall, t;
	uint64_t mono;

	pthread_mutex_lock(&the_lock);
	read_locked(&wall, &mono);
	t = daemon_clock_retention(&the_clock, wall, mono);
	pthread_mutex_unlock(&the_lock);
	return t;
}
