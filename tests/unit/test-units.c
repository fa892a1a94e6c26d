/* The one grammar of sizes and durations (common/units.c): what the
 * configuration, every option and the SQL limits accept and refuse, the
 * edges, and the exact formatting back. */
#include "testlib.h"

#include <errno.h>

#include "limits.h"
#include "units.h"

#define US_PER_S 1000000ull
#define US_PER_MIN (60 * US_PER_S)
#define US_PER_H (60 * US_PER_MIN)
#define US_PER_D (24 * US_PER_H)

struct size_case {
	const char *s;
	int r;
	uint64_t v;
};

static void check_sizes(const struct size_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 4242;
		int r = units_parse_size(cases[i].s, &v);
		if (r != cases[i].r || (r == 0 && v != cases[i].v) || (r < 0 && v != 4242))
			fail_msg("size \"%s\": %d %llu", cases[i].s, r, (unsigned long long)v);
	}
}

static void test_size_forms(void **state)
{
	(void)state;
	static const struct size_case cases[] = {
		{ "0", 0, 0 },
		{ "512", 0, 512 },
		{ "512B", 0, 512 },
		{ "512b", 0, 512 },
		{ "64K", 0, 64 * KiB },
		{ "64k", 0, 64 * KiB },
		{ "64KB", 0, 64 * KiB },
		{ "64Kb", 0, 64 * KiB },
		{ "64KiB", 0, 64 * KiB },
		{ "64kib", 0, 64 * KiB },
		{ "64KIB", 0, 64 * KiB },
		{ "256M", 0, 256 * MiB },
		{ "256MiB", 0, 256 * MiB },
		{ "32G", 0, 32 * GiB },
		{ "1T", 0, 1024 * GiB },
		{ "1P", 0, 1ull << 50 },
		{ "15E", 0, 15ull << 60 },
		{ "1.5G", 0, 3 * GiB / 2 },
		{ "0.5K", 0, 512 },
		{ "1.0001K", 0, 1024 }, /* 1024.1024 bytes, rounded down */
		{ "007K", 0, 7 * KiB },
		/* digits past the eighteenth count for nothing, and cost nothing */
		{ "1.0000000000000000009E", 0, 1ull << 60 },
	};
	check_sizes(cases, ELEMENTSOF(cases));
}

static void test_size_edges(void **state)
{
	(void)state;
	static const struct size_case cases[] = {
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551615B", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "15.999999999999999999E", 0, UINT64_MAX - 1 }, /* rounded down, just below 16E */
		{ "16E", -ERANGE, 0 },		/* overflow in the multiplication */
		{ "16777216T", -ERANGE, 0 },	/* 2^64 bytes */
		{ "16777215.99999T", 0, UINT64_MAX - 10995116 },
		{ "99999999999999999999E", -ERANGE, 0 },
	};
	check_sizes(cases, ELEMENTSOF(cases));
}

static void test_size_junk(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",    "B",	"K",	"M",	  "-1",	  "+1",	  " 1",	 "1 ",	  "1 M",  "1X",	  "1Mi", "1MBB",
		"1iB", ".5G",	"1.G",	"1.5",	  "1.5B", "1e3",  "0x10", "1,5G", "1KK",  "inf",  "1Z",  "1\tK",
		"1K ", "1K\n", "1.5.5G", "1/2G", "1Gb2",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		uint64_t v = 4242;
		int r = units_parse_size(bad[i], &v);
		if (r != -EINVAL || v != 4242)
			fail_msg("size \"%s\" was not refused as junk: %d %llu", bad[i], r, (unsigned long long)v);
	}
}

static uint64_t usec(const char *s)
{
	uint64_t v = 4242;
	int r = units_parse_duration(s, 1, &v);
	if (r < 0)
		fail_msg("duration \"%s\": %s", s, strerror(-r));
	return v;
}

static void test_duration_forms(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t v;
	} cases[] = {
		{ "0", 0 },
		{ "1", US_PER_S }, /* a bare number is seconds */
		{ "0.5", US_PER_S / 2 },
		{ "10us", 10 },
		{ "10usec", 10 },
		{ "100ms", 100000 },
		{ "100msec", 100000 },
		{ "500 ms", 500000 },
		{ "1s", US_PER_S },
		{ "90sec", 90 * US_PER_S },
		{ "1second", US_PER_S },
		{ "2seconds", 2 * US_PER_S },
		{ "5m", 5 * US_PER_MIN }, /* minutes, as systemd reads it */
		{ "5min", 5 * US_PER_MIN },
		{ "1minute", US_PER_MIN },
		{ "5minutes", 5 * US_PER_MIN },
		{ "2h", 2 * US_PER_H },
		{ "2hr", 2 * US_PER_H },
		{ "1hour", US_PER_H },
		{ "2hours", 2 * US_PER_H },
		{ "30d", 30 * US_PER_D },
		{ "2 days", 2 * US_PER_D },
		{ "1day", US_PER_D },
		{ "1w", 7 * US_PER_D },
		{ "1week", 7 * US_PER_D },
		{ "2weeks", 14 * US_PER_D },
		{ "1y", UNITS_USEC_PER_YEAR },
		{ "1year", UNITS_USEC_PER_YEAR },
		{ "2years", 2 * UNITS_USEC_PER_YEAR },
		{ "1h 30min", US_PER_H + 30 * US_PER_MIN },
		{ "1h30min", US_PER_H + 30 * US_PER_MIN },
		{ "1h\t30min", US_PER_H + 30 * US_PER_MIN },
		{ "1h  30min", US_PER_H + 30 * US_PER_MIN },
		{ "1 hour 5 minutes", US_PER_H + 5 * US_PER_MIN },
		{ "2d 3h", 2 * US_PER_D + 3 * US_PER_H },
		{ "1.5h", US_PER_H + 30 * US_PER_MIN },
		{ "1.5min", 90 * US_PER_S },
		{ "1s 500ms", 1500000 },
		{ "1m 30", 90 * US_PER_S }, /* a part without a unit is seconds too */
		{ "0.0000001s", 0 },	    /* below a microsecond: rounded down */
		{ "1.0000005s", US_PER_S },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		if (usec(cases[i].s) != cases[i].v)
			fail_msg("duration \"%s\": %llu, not %llu", cases[i].s, (unsigned long long)usec(cases[i].s),
				 (unsigned long long)cases[i].v);
}

/* What the three old parsers (the configuration's, --step's and --from's,
 * and --timeout's) answered for the forms they took, here in milliseconds:
 * the same answers now. */
static void test_duration_units_asked(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint64_t ms;
	} cases[] = {
		{ "30s", 30000 },  { "5min", 300000 },	     { "2h", 7200000 },	     { "7d", 604800000 },
		{ "1w", 604800000 }, { "500ms", 500 },	     { "1h30min", 5400000 }, { "1 hour 5 minutes", 3900000 },
		{ "10", 10000 },   { "0.5", 500 },	     { "0.123", 123 },	     { "3600", 3600000 },
	};
	uint64_t v;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		v = 4242;
		assert_int_equal(units_parse_duration(cases[i].s, UNITS_USEC_PER_MS, &v), 0);
		if (v != cases[i].ms)
			fail_msg("\"%s\": %llu ms, not %llu", cases[i].s, (unsigned long long)v,
				 (unsigned long long)cases[i].ms);
	}
	/* rounded down to the unit asked for */
	assert_int_equal(units_parse_duration("1999us", UNITS_USEC_PER_MS, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(units_parse_duration("999us", UNITS_USEC_PER_MS, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_duration("1.5min", UNITS_USEC_PER_SEC, &v), 0);
	assert_int_equal(v, 90);
	assert_int_equal(units_parse_duration("18446744073709551615us", UNITS_USEC_PER_MS, &v), 0);
	assert_int_equal(v, UINT64_MAX / 1000);
	/* no unit of nothing */
	v = 4242;
	assert_int_equal(units_parse_duration("1s", 0, &v), -EINVAL);
	assert_int_equal(v, 4242);
}

static void test_duration_edges(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int r;
		uint64_t v;
	} cases[] = {
		{ "18446744073709551615us", 0, UINT64_MAX },
		{ "18446744073709551616us", -ERANGE, 0 },
		{ "18446744073709551615", -ERANGE, 0 }, /* seconds: overflow in the multiplication */
		{ "18446744073709s", 0, 18446744073709ull * US_PER_S },
		{ "18446744073710s", -ERANGE, 0 },
		{ "500000y", 0, 500000ull * UNITS_USEC_PER_YEAR },
		{ "600000y", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "9223372036854775807d", -ERANGE, 0 },
		{ "584554y 584554y", -ERANGE, 0 },
		{ "18446744073709551615us 1us", -ERANGE, 0 }, /* overflow in the sum */
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		uint64_t v = 4242;
		int r = units_parse_duration(cases[i].s, 1, &v);
		if (r != cases[i].r || (r == 0 && v != cases[i].v) || (r < 0 && v != 4242))
			fail_msg("duration \"%s\": %d %llu", cases[i].s, r, (unsigned long long)v);
	}
}

static void test_duration_junk(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",	"  ",	 "s",	   "ms",     "h5",    "-5s",   "+5s",	"5s-",	  "5S",	   "1H",   "5 mins", "5x",
		" 1s",	"1s ",	 "1s\t",   "1s,2s",  "5min,", "1.5.5s", ".5s",	"1.s",	  "1e3s",  "0x10", "1 h m",
		"1hm",	"1s\n",	 "1s;",	   "10 s s", "inf",   "1/2h",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		uint64_t v = 4242;
		int r = units_parse_duration(bad[i], 1, &v);
		if (r != -EINVAL || v != 4242)
			fail_msg("duration \"%s\" was not refused as junk: %d %llu", bad[i], r, (unsigned long long)v);
	}
}

/* RW_UNITS_TEXT_MAX bytes are read, one more are refused (a size made long
 * by leading zeros, a duration by many parts). */
static void test_text_limit(void **state)
{
	(void)state;
	char s[RW_UNITS_TEXT_MAX + 2];
	uint64_t v;

	memset(s, '0', RW_UNITS_TEXT_MAX - 1);
	s[RW_UNITS_TEXT_MAX - 1] = 'K';
	s[RW_UNITS_TEXT_MAX] = '\0';
	s[RW_UNITS_TEXT_MAX - 2] = '1';
	assert_int_equal(units_parse_size(s, &v), 0);
	assert_int_equal(v, KiB);
	memmove(s + 1, s, RW_UNITS_TEXT_MAX + 1);
	s[0] = '0';
	assert_int_equal(strlen(s), RW_UNITS_TEXT_MAX + 1);
	v = 4242;
	assert_int_equal(units_parse_size(s, &v), -EINVAL);
	assert_int_equal(v, 4242);

	/* "1s 1s 1s ...": 85 parts, the last without its blank */
	size_t n = 0;
	while (n + 3 <= RW_UNITS_TEXT_MAX) {
		memcpy(s + n, "1s ", 3);
		n += 3;
	}
	s[n - 1] = '\0';
	assert_true(strlen(s) <= RW_UNITS_TEXT_MAX);
	assert_int_equal(units_parse_duration(s, UNITS_USEC_PER_SEC, &v), 0);
	assert_int_equal(v, n / 3);
	memset(s, '0', RW_UNITS_TEXT_MAX);
	s[RW_UNITS_TEXT_MAX] = 's';
	s[RW_UNITS_TEXT_MAX + 1] = '\0';
	v = 4242;
	assert_int_equal(units_parse_duration(s, 1, &v), -EINVAL);
	assert_int_equal(v, 4242);
	s[RW_UNITS_TEXT_MAX - 1] = 's';
	s[RW_UNITS_TEXT_MAX] = '\0';
	assert_int_equal(units_parse_duration(s, 1, &v), 0);
	assert_int_equal(v, 0);
}

static void test_format(void **state)
{
	(void)state;
	char b[UNITS_FORMAT_MAX];
	uint64_t back;

	assert_string_equal(units_format_size(b, 0), "0");
	assert_string_equal(units_format_size(b, 512), "512");
	assert_string_equal(units_format_size(b, 1536), "1536");
	assert_string_equal(units_format_size(b, 64 * KiB), "64K");
	assert_string_equal(units_format_size(b, 3 * GiB / 2), "1536M");
	assert_string_equal(units_format_size(b, 32 * GiB), "32G");
	assert_string_equal(units_format_size(b, 3ull << 60), "3E");
	assert_string_equal(units_format_size(b, UINT64_MAX), "18446744073709551615");

	assert_string_equal(units_format_duration(b, 0), "0");
	assert_string_equal(units_format_duration(b, 1), "1us");
	assert_string_equal(units_format_duration(b, 500000), "500ms");
	assert_string_equal(units_format_duration(b, US_PER_S), "1s");
	assert_string_equal(units_format_duration(b, 1500000), "1s 500ms");
	assert_string_equal(units_format_duration(b, 5 * US_PER_MIN), "5min");
	assert_string_equal(units_format_duration(b, US_PER_H + 30 * US_PER_MIN), "1h 30min");
	assert_string_equal(units_format_duration(b, 7 * US_PER_D), "7d");
	assert_string_equal(units_format_duration(b, US_PER_D + 1), "1d 1us");
	assert_string_equal(units_format_duration(b, 10 * UNITS_USEC_PER_YEAR), "10y");
	/* the longest there is */
	assert_string_equal(units_format_duration(b, UINT64_MAX), "213503982d 8h 1min 49s 551ms 615us");

	/* what is written reads back */
	static const uint64_t sizes[] = { 0, 1, 1023, KiB, 3 * GiB / 2, 15ull << 60, UINT64_MAX, UINT64_MAX - 1023 };
	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		assert_int_equal(units_parse_size(units_format_size(b, sizes[i]), &back), 0);
		assert_int_equal(back, sizes[i]);
	}
	static const uint64_t durations[] = { 0, 1, 999, US_PER_S + 1, 90 * US_PER_MIN, UNITS_USEC_PER_YEAR,
					      UNITS_USEC_PER_YEAR + 1, UINT64_MAX };
	for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
		assert_int_equal(units_parse_duration(units_format_duration(b, durations[i]), 1, &back), 0);
		assert_int_equal(back, durations[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_forms),	    cmocka_unit_test(test_size_edges),
		cmocka_unit_test(test_size_junk),	    cmocka_unit_test(test_duration_forms),
		cmocka_unit_test(test_duration_units_asked), cmocka_unit_test(test_duration_edges),
		cmocka_unit_test(test_duration_junk),	    cmocka_unit_test(test_text_limit),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
