/* The values of ramwatchd.conf: sizes, times, percentages, booleans and
 * CensusOnGrowth= thresholds, parsed strictly and formatted back to text
 * that parses to the same value. */
#include "testlib.h"

#include <errno.h>
#include <math.h>

#include "config-internal.h"
#include "config.h"

static void test_parse_size(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int r;
		uint64_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "512", 0, 512 },
		{ "512B", 0, 512 },
		{ "64K", 0, 64 * KiB },
		{ "64k", 0, 64 * KiB },
		{ "64KB", 0, 64 * KiB },
		{ "64KiB", 0, 64 * KiB },
		{ "64kib", 0, 64 * KiB },
		{ "256M", 0, 256 * MiB },
		{ "32G", 0, 32 * GiB },
		{ "1T", 0, 1024 * GiB },
		{ "1P", 0, 1ull << 50 },
		{ "15E", 0, 15ull << 60 },
		{ "1.5G", 0, 3 * GiB / 2 },
		{ "0.5K", 0, 512 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "16E", -ERANGE, 0 },
		{ "99999999999999999999E", -ERANGE, 0 },
		{ "1.5", -EINVAL, 0 }, /* a fraction of a byte */
		{ "", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1 M", -EINVAL, 0 },
		{ "1X", -EINVAL, 0 },
		{ "1Mi", -EINVAL, 0 },
		{ "1MBB", -EINVAL, 0 },
		{ "1iB", -EINVAL, 0 },
		{ ".5G", -EINVAL, 0 },
		{ "1.G", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		uint64_t v = 4242;
		int r = config_parse_size(cases[i].s, &v);
		if (r != cases[i].r || (r == 0 && v != cases[i].v) || (r < 0 && v != 4242))
			fail_msg("size \"%s\": %d %llu", cases[i].s, r, (unsigned long long)v);
	}
}

static void test_parse_time(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int r;
		uint64_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "1", 0, 1000000 },
		{ "10us", 0, 10 },
		{ "100ms", 0, 100000 },
		{ "500 ms", 0, 500000 },
		{ "1s", 0, 1000000 },
		{ "5min", 0, 300000000 },
		{ "5m", 0, 300000000 },
		{ "2h", 0, 7200000000 },
		{ "30d", 0, 30ull * 86400000000 },
		{ "2 days", 0, 2ull * 86400000000 },
		{ "1w", 0, 7ull * 86400000000 },
		{ "1y", 0, 31557600000000 },
		{ "1h 30min", 0, 5400000000 },
		{ "1h30min", 0, 5400000000 },
		{ "1.5h", 0, 5400000000 },
		{ "0.0000001s", 0, 0 }, /* below a microsecond: rounded down */
		{ "1s 500ms", 0, 1500000 },
		{ "500000y", 0, 500000ull * 31557600000000 },
		{ "600000y", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "584554y 584554y", -ERANGE, 0 },
		{ "1H", -EINVAL, 0 }, /* units are lower case */
		{ "5x", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ " 1s", -EINVAL, 0 },
		{ "1s ", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "1.5.5s", -EINVAL, 0 },
		{ "1s,2s", -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		config_usec_t v = 4242;
		int r = config_parse_time(cases[i].s, &v);
		if (r != cases[i].r || (r == 0 && v != cases[i].v) || (r < 0 && v != 4242))
			fail_msg("time \"%s\": %d %llu", cases[i].s, r, (unsigned long long)v);
	}
}

static void test_parse_percent_bool(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		int r;
		double v;
	} cases[] = {
		{ "2%", 0, 0.02 },     { "0.5%", 0, 0.005 },   { "0.02", 0, 0.02 },  { "100%", 0, 1.0 },
		{ "0", 0, 0 },	       { "250%", 0, 2.5 },     { "2 %", -EINVAL, 0 }, { "%", -EINVAL, 0 },
		{ "2%%", -EINVAL, 0 }, { "1e3", -EINVAL, 0 },  { "inf", -EINVAL, 0 }, { "nan%", -EINVAL, 0 },
		{ "-2%", -EINVAL, 0 }, { "0x10", -EINVAL, 0 }, { "", -EINVAL, 0 },   { "2,5%", -EINVAL, 0 },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		double v = -1;
		int r = config_parse_percent(cases[i].s, &v);
		/* the same arithmetic as the parser's: "0.5%" is 0.5 / 100 */
		if (r != cases[i].r || (r == 0 && fabs(v - cases[i].v) > 1e-15) || (r < 0 && v != -1))
			fail_msg("percent \"%s\": %d %g", cases[i].s, r, v);
	}

	static const char *const yes[] = { "yes", "true", "on", "1", "YES", "True" };
	static const char *const no[] = { "no", "false", "off", "0", "No", "OFF" };
	static const char *const bad[] = { "y", "n", "", "2", "yess", " yes" };
	bool b;
	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		b = false;
		assert_int_equal(config_parse_bool(yes[i], &b), 0);
		assert_true(b);
		b = true;
		assert_int_equal(config_parse_bool(no[i], &b), 0);
		assert_false(b);
		assert_int_equal(config_parse_bool(bad[i], &b), -EINVAL);
	}
}

static void test_format_values(void **state)
{
	(void)state;
	char b[CONFIG_VALUE_MAX];

	assert_string_equal(config_format_size(b, 0), "0");
	assert_string_equal(config_format_size(b, 512), "512");
	assert_string_equal(config_format_size(b, 1536), "1536");
	assert_string_equal(config_format_size(b, 64 * KiB), "64K");
	assert_string_equal(config_format_size(b, 3 * GiB / 2), "1536M");
	assert_string_equal(config_format_size(b, 32 * GiB), "32G");
	assert_string_equal(config_format_size(b, 3ull << 60), "3E");
	assert_string_equal(config_format_size(b, UINT64_MAX), "18446744073709551615");

	assert_string_equal(config_format_time(b, 0), "0");
	assert_string_equal(config_format_time(b, 1), "1us");
	assert_string_equal(config_format_time(b, 500000), "500ms");
	assert_string_equal(config_format_time(b, 1000000), "1s");
	assert_string_equal(config_format_time(b, 1500000), "1s 500ms");
	assert_string_equal(config_format_time(b, 300000000), "5min");
	assert_string_equal(config_format_time(b, 5400000000), "1h 30min");
	assert_string_equal(config_format_time(b, 7ull * 86400000000), "7d");
	assert_string_equal(config_format_time(b, 86400000001), "1d 1us");
	assert_string_equal(config_format_time(b, 10ull * 31557600000000), "10y");
	assert_string_equal(config_format_time(b, UINT64_MAX), "213503982d 8h 1min 49s 551ms 615us");

	assert_string_equal(config_format_percent(b, 0.02), "2%");
	assert_string_equal(config_format_percent(b, 0.005), "0.5%");
	assert_string_equal(config_format_percent(b, 0.001), "0.1%");
	assert_string_equal(config_format_percent(b, 1.0), "100%");
	assert_string_equal(config_format_percent(b, 0), "0%");
	assert_string_equal(config_format_percent(b, 0.05), "5%");

	/* whatever the value, the text parses back to the very same one */
	static const char *const texts[] = { "0.1%", "0.3%", "0.7%", "1.1%", "2.675%", "33.3%", "99.99%",
					     "0.123456789", "0.333333333333", "0.0001%" };
	for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
		double v, back;
		assert_int_equal(config_parse_percent(texts[i], &v), 0);
		assert_int_equal(config_parse_percent(config_format_percent(b, v), &back), 0);
		if (back != v)
			fail_msg("%s: formatted as %s, parsed back as %.17g", texts[i], b, back);
	}
	for (unsigned i = 1; i <= 1000; i++) {
		double v = i / 997.0, back;
		assert_int_equal(config_parse_percent(config_format_percent(b, v), &back), 0);
		if (back != v)
			fail_msg("%.17g: formatted as %s, parsed back as %.17g", v, b, back);
	}

	assert_string_equal(config_format_growth(b, true, 256 * MiB, 0.05), "256M 5%");
	assert_string_equal(config_format_growth(b, true, GiB, 0), "1G");
	assert_string_equal(config_format_growth(b, true, 0, 0.1), "10%");
	assert_string_equal(config_format_growth(b, true, 0, 0), "0");
	assert_string_equal(config_format_growth(b, false, GiB, 0.1), "no");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_parse_percent_bool),
		cmocka_unit_test(test_format_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
