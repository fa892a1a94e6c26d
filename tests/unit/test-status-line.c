/* The STATUS= line (what "systemctl status ramwatchd" shows), from a
 * status snapshot. */
#include "testlib.h"

#include <errno.h>

#include "status-line.h"

#define MINUTE (60ull * 1000 * 1000)

static void test_status_line(void **state)
{
	(void)state;
	struct core_status st = { .watched = 3, .scan_budget = 0.02 };
	struct status_rate_point since = { .at_us = 1 * MINUTE };
	char line[512];

	st.census.censuses[CENSUS_OK] = 5;
	st.census.censuses[CENSUS_EXITED] = 1;
	st.census.deferred = 7;
	st.census.census_cpu_us = 1200000; /* 1.2 s of CPU over 2 minutes: 1 % */
	status_line_format(&st, 3 * MINUTE, &since, line, sizeof(line));
	assert_string_equal(line, "watching 3 processes; 3.0 censuses/min; census budget 1.00% used of 2.00%; 7 "
				  "deferred; store ok");
	/* the next line's rates are since this one */
	assert_int_equal(since.at_us, 3 * MINUTE);
	assert_int_equal(since.censuses, 6);
	assert_int_equal(since.cpu_us, 1200000);

	/* a minute without censuses, the store failing */
	st.writer.error = -ENOSPC;
	snprintf(st.writer.message, sizeof(st.writer.message), "database or disk is full");
	status_line_format(&st, 4 * MINUTE, &since, line, sizeof(line));
	assert_string_equal(line, "watching 3 processes; 0.0 censuses/min; census budget 0.00% used of 2.00%; 7 "
				  "deferred; store failing: database or disk is full");
	/* ... without a message of the store's: the errno's */
	st.writer.message[0] = '\0';
	status_line_format(&st, 5 * MINUTE, &since, line, sizeof(line));
	assert_non_null(strstr(line, "store failing: No space left on device"));
	/* no time since the last line: no rates, no division by zero */
	status_line_format(&st, 5 * MINUTE, &since, line, sizeof(line));
	assert_non_null(strstr(line, "0.0 censuses/min; census budget 0.00% used"));
}

static void test_rate_point(void **state)
{
	(void)state;
	struct core_status st = { 0 };

	for (int k = 0; k < _CENSUS_STATUS_MAX; k++)
		st.census.censuses[k] = (uint64_t)k + 1;
	st.census.census_cpu_us = 42;
	struct status_rate_point p = status_rate_point(&st, 99);
	assert_int_equal(p.at_us, 99);
	assert_int_equal(p.censuses, _CENSUS_STATUS_MAX * (_CENSUS_STATUS_MAX + 1) / 2);
	assert_int_equal(p.cpu_us, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_rate_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
