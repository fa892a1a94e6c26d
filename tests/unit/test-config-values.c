/* The values of ramwatchd.conf: percentages, booleans and CensusOnGrowth=
 * thresholds (sizes and times are test-units.c's), parsed strictly and
 * formatted back to text that parses to the same value. */
#include "testlib.h"

#include <errno.h>
#include <math.h>

#include "config-internal.h"
#include "config.h"

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
		cmocka_unit_test(test_parse_percent_bool),
		cmocka_unit_test(test_format_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
