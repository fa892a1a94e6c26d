/* The daemon's clock: stored times that never go back, retention's now that
 * never runs ahead of the monotonic clock, jumps seen once. */
#include "testlib.h"

#include "daemon-clock.h"
#include "limits.h"

#define SEC_US 1000000ull
#define HOUR_MS (3600ll * 1000)
#define DAY_MS (24 * HOUR_MS)

static const int64_t T0 = 1700000000000ll; /* unix ms */
static const uint64_t M0 = 500 * SEC_US;   /* µs since boot */

static void test_steady_clock_is_the_wall_clock(void **state)
{
	(void)state;
	struct daemon_clock c;
	int64_t jump = 0;

	daemon_clock_init(&c, T0, M0);
	for (int i = 1; i <= 10; i++) {
		uint64_t mono = M0 + (uint64_t)i * SEC_US;
		int64_t wall = T0 + i * 1000;
		assert_false(daemon_clock_jumped(&c, wall, mono, &jump));
		assert_int_equal(daemon_clock_stored(&c, wall, mono), wall);
		assert_int_equal(daemon_clock_retention(&c, wall, mono), wall);
	}
}

static void test_set_back_stored_times_go_on(void **state)
{
	(void)state;
	struct daemon_clock c;
	int64_t jump = 0, last;

	daemon_clock_init(&c, T0, M0);
	assert_int_equal(daemon_clock_stored(&c, T0 + 10000, M0 + 10 * SEC_US), T0 + 10000);
	/* set back an hour: the times go on at the monotonic clock's pace */
	assert_true(daemon_clock_jumped(&c, T0 + 11000 - HOUR_MS, M0 + 11 * SEC_US, &jump));
	assert_int_equal(jump, -HOUR_MS);
	last = daemon_clock_stored(&c, T0 + 11000 - HOUR_MS, M0 + 11 * SEC_US);
	assert_int_equal(last, T0 + 11000);
	for (int i = 12; i < 100; i++) {
		int64_t t = daemon_clock_stored(&c, T0 + i * 1000 - HOUR_MS, M0 + (uint64_t)i * SEC_US);
		assert_int_equal(t, last + 1000);
		last = t;
	}
	/* seen once, not at every reading after it */
	assert_false(daemon_clock_jumped(&c, T0 + 100000 - HOUR_MS, M0 + 100 * SEC_US, &jump));
	/* retention waits: its now is the wall clock, an hour back */
	assert_int_equal(daemon_clock_retention(&c, T0 + 100000 - HOUR_MS, M0 + 100 * SEC_US), T0 + 100000 - HOUR_MS);
	/* once the wall clock is past the last stored time, it is taken again */
	assert_int_equal(daemon_clock_stored(&c, last + 5000, M0 + 101 * SEC_US), last + 5000);
}

static void test_never_twice_the_same_time_going_back(void **state)
{
	(void)state;
	struct daemon_clock c;

	/* readings less than a millisecond apart: the remainder is carried */
	daemon_clock_init(&c, T0, M0);
	for (int i = 1; i <= 2000; i++)
		(void)daemon_clock_stored(&c, T0 - HOUR_MS, M0 + (uint64_t)i * 700);
	assert_int_equal(daemon_clock_stored(&c, T0 - HOUR_MS, M0 + 2000 * 700), T0 + 1400);
	/* a monotonic reading older than the last one moves nothing back */
	assert_int_equal(daemon_clock_stored(&c, T0 - HOUR_MS, M0), T0 + 1400);
}

static void test_set_forward_retention_keeps_pace(void **state)
{
	(void)state;
	struct daemon_clock c;
	int64_t jump = 0;

	daemon_clock_init(&c, T0, M0);
	/* ten minutes in, set forward a day */
	uint64_t mono = M0 + 600 * SEC_US;
	int64_t wall = T0 + 600000 + DAY_MS;
	assert_true(daemon_clock_jumped(&c, wall, mono, &jump));
	assert_int_equal(jump, DAY_MS);
	/* stored times follow the wall clock: it is what users ask about */
	assert_int_equal(daemon_clock_stored(&c, wall, mono), wall);
	/* retention counts from ten minutes after the start, not a day */
	assert_int_equal(daemon_clock_retention(&c, wall, mono), T0 + 600000);
	assert_int_equal(daemon_clock_retention(&c, wall + 60000, mono + 60 * SEC_US), T0 + 660000);
}

static void test_jump_threshold(void **state)
{
	(void)state;
	struct daemon_clock c;
	int64_t jump = 0;

	daemon_clock_init(&c, T0, M0);
	/* at the limit: slewing, not a jump */
	assert_false(daemon_clock_jumped(&c, T0 + 1000 + RW_CLOCK_JUMP_MS, M0 + SEC_US, &jump));
	assert_false(daemon_clock_jumped(&c, T0 + 2000, M0 + 2 * SEC_US, &jump));
	/* past it, either way */
	assert_true(daemon_clock_jumped(&c, T0 + 3000 + RW_CLOCK_JUMP_MS + 1, M0 + 3 * SEC_US, &jump));
	assert_int_equal(jump, RW_CLOCK_JUMP_MS + 1);
	assert_true(daemon_clock_jumped(&c, T0 + 4000, M0 + 4 * SEC_US, &jump));
	assert_int_equal(jump, -(RW_CLOCK_JUMP_MS + 1));
	/* slewing a little at every reading never adds up to a jump */
	for (int i = 5; i < 1000; i++)
		assert_false(daemon_clock_jumped(&c, T0 + i * 1010, M0 + (uint64_t)i * SEC_US, &jump));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_clock_is_the_wall_clock),
		cmocka_unit_test(test_set_back_stored_times_go_on),
		cmocka_unit_test(test_never_twice_the_same_time_going_back),
		cmocka_unit_test(test_set_forward_retention_keeps_pace),
		cmocka_unit_test(test_jump_threshold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
