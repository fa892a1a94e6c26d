/* Times and spans as typed on the command line, and times written back. */
#include "testlib.h"

#include <errno.h>
#include <time.h>

#include "timeparse.h"

/* 2026-11-29T14:00:00Z */
#define T0 INT64_C(1795960800000)
#define S 1000
#define MIN (60 * S)
#define H (60 * MIN)
#define D (24 * H)

/* Central European time, without needing tzdata: UTC+1, UTC+2 in summer
 * (last Sunday of March to last Sunday of October). */
static int set_zone(void **state)
{
	(void)state;
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	return 0;
}

static int64_t at(const char *s)
{
	int64_t v = -1;
	int r = timeparse_time(s, T0, &v);
	if (r < 0)
		fail_msg("'%s': %s", s, strerror(-r));
	return v;
}

static int time_error(const char *s)
{
	int64_t v = 42;
	int r = timeparse_time(s, T0, &v);
	assert_int_equal(v, 42); /* untouched on failure */
	return r;
}

/* A span ago is a duration in the grammar of every option and of the
 * configuration (test-units.c has the whole of it). */
static void test_spans_ago(void **state)
{
	(void)state;
	assert_int_equal(at("30s"), T0 - 30 * S);
	assert_int_equal(at("5m"), T0 - 5 * MIN); /* minutes, as systemd reads it */
	assert_int_equal(at("1w"), T0 - 7 * D);
	assert_int_equal(at("500ms"), T0 - 500);
	assert_int_equal(at("1h 30min"), T0 - H - 30 * MIN);
	assert_int_equal(at("1 hour 5 minutes ago"), T0 - H - 5 * MIN);
	assert_int_equal(at("90sec"), T0 - 90 * S);
	/* the forms the configuration took and --since did not */
	assert_int_equal(at("1.5h"), T0 - H - 30 * MIN);
	assert_int_equal(at("1.5h ago"), T0 - H - 30 * MIN);
	assert_int_equal(at("30"), T0 - 30 * S);
	assert_int_equal(at("2500us"), T0 - 2);
	assert_int_equal(at("1y"), T0 - INT64_C(31557600000));

	const char *bad[] = { "", " ", "s", "5 mins", "-5s", "5s-", "5S", "h5", "5min,", " 5s", "5s ", "5s  ago",
			      "ago 5s", "5s ago ago" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (time_error(bad[i]) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
	/* before 1970, or past what a duration holds */
	assert_int_equal(time_error("99999999999999999999s"), -ERANGE);
	assert_int_equal(time_error("9223372036854775807d"), -ERANGE);
	assert_int_equal(time_error("18446744073709551615ms"), -ERANGE);
}

static void test_ago_and_now(void **state)
{
	(void)state;
	assert_int_equal(at("now"), T0);
	assert_int_equal(at("30s"), T0 - 30 * S);
	assert_int_equal(at("5min"), T0 - 5 * MIN);
	assert_int_equal(at("2h"), T0 - 2 * H);
	assert_int_equal(at("7d"), T0 - 7 * D);
	assert_int_equal(at("1h30min"), T0 - H - 30 * MIN);
	assert_int_equal(at("1h30min ago"), T0 - H - 30 * MIN);
	assert_int_equal(at("0s"), T0);
	assert_int_equal(time_error("ago"), -EINVAL);
	assert_int_equal(time_error(" ago"), -EINVAL);
	assert_int_equal(time_error("Now"), -EINVAL);
	assert_int_equal(time_error("tomorrow"), -EINVAL);
	assert_int_equal(time_error("-1h"), -EINVAL);
	/* before 1970 */
	assert_int_equal(time_error("100000d"), -ERANGE);
}

static void test_unix_seconds(void **state)
{
	(void)state;
	assert_int_equal(at("@1795960800"), T0);
	assert_int_equal(at("@1795960800.5"), T0 + 500);
	assert_int_equal(at("@1795960800.1239"), T0 + 123); /* milliseconds, truncated */
	assert_int_equal(at("@0"), 0);
	assert_int_equal(at("@253402300799"), INT64_C(253402300799000));
	assert_int_equal(time_error("@253402300800"), -ERANGE);
	assert_int_equal(time_error("@99999999999999999999"), -ERANGE);
	const char *bad[] = { "@", "@x", "@-1", "@1.", "@1.2.3", "@ 1", "@1e9", "@1.1234567890" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (time_error(bad[i]) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
}

static void test_iso_with_zone(void **state)
{
	(void)state;
	assert_int_equal(at("2026-11-29T14:00Z"), T0);
	assert_int_equal(at("2026-11-29T14:00:00Z"), T0);
	assert_int_equal(at("2026-11-29t14:00z"), T0);
	assert_int_equal(at("2026-11-29 14:00:05Z"), T0 + 5 * S);
	assert_int_equal(at("2026-11-29T14:00:05.250Z"), T0 + 5 * S + 250);
	assert_int_equal(at("2026-11-29T14:00:05,5Z"), T0 + 5 * S + 500);
	assert_int_equal(at("2026-11-29T15:00+01:00"), T0);
	assert_int_equal(at("2026-11-29T15:00+0100"), T0);
	assert_int_equal(at("2026-11-29T15:00+01"), T0);
	assert_int_equal(at("2026-11-29T09:00:00-05:00"), T0);
	assert_int_equal(at("2026-11-29T19:30+05:30"), T0);
	assert_int_equal(at("2024-02-29T00:00Z"), INT64_C(1709164800000));
	assert_int_equal(at("9999-12-31T23:59:59Z"), INT64_C(253402300799000));
	assert_int_equal(at("1970-01-01T00:00Z"), 0);
	assert_int_equal(time_error("1969-12-31T23:59:59Z"), -ERANGE);
	assert_int_equal(time_error("1970-01-01T00:30+01:00"), -ERANGE);
}

static void test_iso_local(void **state)
{
	(void)state;
	/* November: CET, UTC+1 */
	assert_int_equal(at("2026-11-29T15:00"), T0);
	assert_int_equal(at("2026-11-29 15:00:05"), T0 + 5 * S);
	assert_int_equal(at("2026-11-29"), T0 - 15 * H);
	/* July: CEST, UTC+2 */
	assert_int_equal(at("2026-07-01T12:00"), INT64_C(1782900000000));
}

static void test_iso_refused(void **state)
{
	(void)state;
	const char *bad[] = {
		"2026-02-29",	      "2026-02-30T10:00",    "2026-13-01",	  "2026-00-10",
		"2026-11-31",	      "2026-11-29T24:00",    "2026-11-29T14:60",  "2026-11-29T14:00:60",
		"2026-11-29T14",      "2026-11-29X14:00",    "2026-11-29T14:00+25:00", "2026-11-29T14:00+01:60",
		"2026-11-29T14:00Zx", "2026-11-29T14:00:05.Z", "2026-11-29T14:00:05.1234567890Z", "2026-11-2",
		"2026-1-29",	      "2026-11-29T1:00",     "2026-11-29T14:00 Z", "2026-11-29Z",
		"2026-11-29T14:00+1", "2026-11-29T14:00+01:0",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (time_error(bad[i]) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
}

static void test_format(void **state)
{
	(void)state;
	char buf[TIMEPARSE_FORMAT_MAX];
	int64_t back;

	assert_string_equal(timeparse_format_local(buf, T0), "2026-11-29 15:00:00");
	assert_string_equal(timeparse_format_local(buf, T0 + 999), "2026-11-29 15:00:00");
	assert_string_equal(timeparse_format_clock(buf, T0 + 5 * S), "15:00:05");
	assert_string_equal(timeparse_format_local(buf, -1), "-");
	/* what is written reads back */
	assert_int_equal(timeparse_time(timeparse_format_local(buf, T0 + 7 * S), 0, &back), 0);
	assert_int_equal(back, T0 + 7 * S);
	assert_int_equal(timeparse_time(timeparse_format_local(buf, INT64_C(1782900000000)), 0, &back), 0);
	assert_int_equal(back, INT64_C(1782900000000));

	assert_string_equal(timeparse_format_span(buf, 0), "0ms");
	assert_string_equal(timeparse_format_span(buf, 850), "850ms");
	assert_string_equal(timeparse_format_span(buf, 12 * S + 400), "12s");
	assert_string_equal(timeparse_format_span(buf, 5 * MIN), "5min");
	assert_string_equal(timeparse_format_span(buf, 5 * MIN + 3 * S), "5min 3s");
	assert_string_equal(timeparse_format_span(buf, H + 30 * MIN + 59 * S), "1h 30min");
	assert_string_equal(timeparse_format_span(buf, 2 * D + 3 * H + 5 * MIN), "2d 3h");
	assert_string_equal(timeparse_format_span(buf, D), "1d");
	assert_string_equal(timeparse_format_span(buf, INT64_MAX), "106751991167d 7h");
	/* spans written are spans read */
	assert_int_equal(timeparse_time(timeparse_format_span(buf, H + 30 * MIN), T0, &back), 0);
	assert_int_equal(back, T0 - H - 30 * MIN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_spans_ago, set_zone),
		cmocka_unit_test_setup(test_ago_and_now, set_zone),
		cmocka_unit_test_setup(test_unix_seconds, set_zone),
		cmocka_unit_test_setup(test_iso_with_zone, set_zone),
		cmocka_unit_test_setup(test_iso_local, set_zone),
		cmocka_unit_test_setup(test_iso_refused, set_zone),
		cmocka_unit_test_setup(test_format, set_zone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
