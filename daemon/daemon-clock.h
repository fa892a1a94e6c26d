/* The daemon's clock: the times it stores and the "now" retention counts
 * from, made from the wall clock (CLOCK_REALTIME, what users query by) and
 * the monotonic clock (CLOCK_MONOTONIC, which nobody sets).
 *
 * The wall clock can be set back or forward while the daemon runs (by hand,
 * by an NTP client that steps it, by a virtual machine resumed).  Timers do
 * not care: they are on the monotonic clock (timer.h).  The times stored do:
 *   - stored times never go back: after the wall clock is set back, they go
 *     on from the last one at the pace of the monotonic clock until the
 *     wall clock catches up; so each process's rows stay in order and none
 *     shares a time with an earlier one;
 *   - a forward jump is taken as it is: the wall clock is what users ask
 *     about, and a row an hour in the past would be found nowhere;
 *   - retention's "now" never runs ahead of the monotonic clock since the
 *     start: a clock set forward a day does not expire or roll up a day of
 *     recent rows; a clock set back makes retention wait.
 * A jump (wall minus monotonic moved by more than RW_CLOCK_JUMP_MS between
 * two readings) is logged once, at notice level.
 *
 * The struct and its functions are pure (tested by test-daemon-clock.c);
 * daemon_clock_now_ms and daemon_clock_retention_now_ms read the clocks for
 * the one daemon-wide instance. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct daemon_clock {
	int64_t wall_at_start;  /* unix ms */
	uint64_t mono_at_start; /* µs */
	int64_t last_stored;    /* unix ms: the last time handed out */
	uint64_t mono_at_last;  /* µs: when it was */
	int64_t offset;         /* ms: wall minus monotonic at the last reading */
};

/* Starts c at wall (unix ms) and mono (µs), read together. */
void daemon_clock_init(struct daemon_clock *c, int64_t wall, uint64_t mono);

/* The time to store for a row read at wall and mono: wall, or, when the
 * wall clock went back, the last time handed out plus the monotonic time
 * since.  Never less than a time it returned before.  mono never goes back. */
int64_t daemon_clock_stored(struct daemon_clock *c, int64_t wall, uint64_t mono);

/* The "now" retention and rollups count from: the smaller of wall and the
 * start's wall time plus the monotonic time since the start. */
int64_t daemon_clock_retention(const struct daemon_clock *c, int64_t wall, uint64_t mono);

/* Whether the wall clock jumped since the last reading: true, with the
 * jump in *ret_jump (ms, negative when set back), when wall minus monotonic
 * moved by more than RW_CLOCK_JUMP_MS.  Each reading becomes the next
 * reference, so slow NTP slewing never adds up to a jump. */
bool daemon_clock_jumped(struct daemon_clock *c, int64_t wall, uint64_t mono, int64_t *ret_jump);

/* The daemon-wide clock, started at its first use: the time to store now
 * (daemon_clock_stored), logging a jump once.  Thread-safe. */
int64_t daemon_clock_now_ms(void);

/* The daemon-wide clock's retention "now" (daemon_clock_retention). */
int64_t daemon_clock_retention_now_ms(void);
