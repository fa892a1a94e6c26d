/* The report's chart model: scales, the ticks of size and time axes (in
 * the one size and duration grammar, so each label parses back to its
 * value), stacked sums and path data. */
#include "testlib.h"

#include "chart.h"
#include "units.h"

static char *path_of(const struct chart_point *upper, const struct chart_point *lower, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (lower)
		chart_path_band(f, upper, lower, n);
	else
		chart_path_line(f, upper, n);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_scale(void **state)
{
	/* a y axis: 0 bytes at the bottom (pixel 300), 256 MiB at the top (20) */
	struct chart_scale y = { .d0 = 0, .d1 = 256.0 * MiB, .r0 = 300, .r1 = 20 };
	struct chart_scale empty = { .d0 = 5, .d1 = 5, .r0 = 70, .r1 = 900 };

	(void)state;
	assert_true(chart_scale_map(&y, 0) == 300);
	assert_true(chart_scale_map(&y, 256.0 * MiB) == 20);
	assert_true(chart_scale_map(&y, 64.0 * MiB) == 230);
	assert_true(chart_scale_map(&empty, 5) == 70);
	assert_true(chart_scale_map(&empty, 1e9) == 70);
}

static void test_size_ticks(void **state)
{
	struct chart_ticks t;

	(void)state;
	/* 200 MiB in at most 6 steps: 32 MiB would take 7, so 64 MiB */
	chart_size_ticks(200 * MiB, 6, &t);
	assert_int_equal(t.n, 5);
	assert_true(t.top == 256.0 * MiB);
	assert_string_equal(t.tick[0].label, "0");
	assert_string_equal(t.tick[1].label, "64M");
	assert_string_equal(t.tick[3].label, "192M");
	assert_string_equal(t.tick[4].label, "256M");
	assert_true(t.tick[3].value == 192.0 * MiB);
	/* exactly on a step: the top is max itself */
	chart_size_ticks(1 * GiB, 4, &t);
	assert_int_equal(t.n, 5);
	assert_string_equal(t.tick[4].label, "1G");
	assert_string_equal(t.tick[1].label, "256M");
	/* one byte past: the next step */
	chart_size_ticks(1 * GiB + 1, 4, &t);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.tick[1].label, "512M");
	assert_string_equal(t.tick[3].label, "1536M");
	/* every label parses back, by the one grammar, to its value */
	for (size_t i = 0; i < t.n; i++) {
		uint64_t v;
		assert_int_equal(units_parse_size(t.tick[i].label, &v), 0);
		assert_true((double)v == t.tick[i].value);
	}
	/* nothing at all: one step of a byte */
	chart_size_ticks(0, 6, &t);
	assert_int_equal(t.n, 2);
	assert_true(t.top == 1);
	assert_string_equal(t.tick[1].label, "1");
	/* small sizes in bytes and KiB */
	chart_size_ticks(3000, 3, &t);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.tick[3].label, "3K");
	/* asking for more ticks than CHART_TICKS_MAX gets CHART_TICKS_MAX steps */
	chart_size_ticks(100000, 1000, &t);
	assert_true(t.n <= CHART_TICKS_MAX + 1);
	assert_true(t.top >= 100000);
	/* asking for none gets one step */
	chart_size_ticks(100000, 0, &t);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.tick[1].label, "128K");
	/* past CHART_SIZE_MAX: drawn at it, the top fits */
	chart_size_ticks(UINT64_MAX, 2, &t);
	assert_int_equal(t.n, 3);
	assert_true(t.top == (double)CHART_SIZE_MAX);
	assert_string_equal(t.tick[2].label, "4E");
}

static void test_time_ticks(void **state)
{
	const int64_t t0 = 1764440000000;
	struct chart_ticks t;

	(void)state;
	/* 95 seconds in at most 5 steps: 15s would take 6, so 30s */
	chart_time_ticks(t0, t0 + 95000, 5, &t);
	assert_int_equal(t.n, 4);
	assert_true(t.top == (double)(t0 + 95000));
	assert_string_equal(t.tick[0].label, "0");
	assert_string_equal(t.tick[1].label, "30s");
	assert_string_equal(t.tick[2].label, "1min");
	assert_string_equal(t.tick[3].label, "1min 30s");
	assert_true(t.tick[3].value == (double)(t0 + 90000));
	/* the labels are durations by the one grammar */
	for (size_t i = 0; i < t.n; i++) {
		uint64_t ms;
		assert_int_equal(units_parse_duration(t.tick[i].label, UNITS_USEC_PER_MS, &ms), 0);
		assert_true((double)(t0 + (int64_t)ms) == t.tick[i].value);
	}
	/* two hours and a half in 5: 30min */
	chart_time_ticks(t0, t0 + 9000000, 5, &t);
	assert_int_equal(t.n, 6);
	assert_string_equal(t.tick[5].label, "2h 30min");
	/* an empty window is a second long: 200ms would take 5 steps */
	chart_time_ticks(t0, t0, 4, &t);
	assert_true(t.top == (double)(t0 + 1000));
	assert_int_equal(t.n, 3);
	assert_string_equal(t.tick[1].label, "500ms");
	assert_string_equal(t.tick[2].label, "1s");
	chart_time_ticks(t0, t0 - 5000, 4, &t);
	assert_true(t.top == (double)(t0 + 1000));
	/* past the table's last step (7d): doubling from 14d */
	chart_time_ticks(t0, t0 + 400LL * 86400000, 6, &t);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.tick[1].label, "112d");
	/* a year of milliseconds asked in 1000 ticks gets at most CHART_TICKS_MAX steps */
	chart_time_ticks(t0, t0 + 365LL * 86400000, 1000, &t);
	assert_true(t.n <= CHART_TICKS_MAX + 1);
}

static void test_bucket(void **state)
{
	(void)state;
	/* ten minutes in at most 600 buckets: a bucket just over a second,
	 * as buckets start at multiples of it */
	assert_int_equal(chart_bucket_ms(0, 600000, 600), 1001);
	assert_true(600000 / chart_bucket_ms(0, 600000, 600) + 1 <= 600);
	assert_true(600000 / (chart_bucket_ms(0, 600000, 600) - 1) + 1 > 600);
	/* a year, seven days */
	assert_int_equal(chart_bucket_ms(0, 31557600000, CHART_POINTS), 52596001);
	/* an empty or reversed window, and no points asked for */
	assert_int_equal(chart_bucket_ms(5000, 5000, 600), 1);
	assert_int_equal(chart_bucket_ms(5000, 1000, 600), 1);
	assert_int_equal(chart_bucket_ms(0, 10, 0), 11);
}

static void test_stack(void **state)
{
	/* two series of three values: the second sits on the first */
	const double v[] = { 1, 2, 3, 10, 20, 30 };
	double sum[9];

	(void)state;
	chart_stack(v, 2, 3, sum);
	assert_true(sum[0] == 0 && sum[1] == 0 && sum[2] == 0);
	assert_true(sum[3] == 1 && sum[4] == 2 && sum[5] == 3);
	assert_true(sum[6] == 11 && sum[7] == 22 && sum[8] == 33);
}

static void test_paths(void **state)
{
	const struct chart_point upper[] = { { 10, 20 }, { 30.04, 40.06 }, { -0.01, 1e12 } };
	const struct chart_point lower[] = { { 10, 50 }, { 30, 60 }, { 50, 70 } };
	char *s;

	(void)state;
	s = path_of(upper, NULL, 2);
	assert_string_equal(s, "M10.0 20.0L30.0 40.1");
	free(s);
	/* no "-0.0"; far off the chart is kept at a million pixels */
	s = path_of(upper + 2, NULL, 1);
	assert_string_equal(s, "M0.0 1000000.0");
	free(s);
	s = path_of(upper, lower, 2);
	assert_string_equal(s, "M10.0 20.0L30.0 40.1L30.0 60.0L10.0 50.0Z");
	free(s);
	s = path_of(upper, NULL, 0);
	assert_string_equal(s, "");
	free(s);
	s = path_of(upper, lower, 0);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),	   cmocka_unit_test(test_size_ticks), cmocka_unit_test(test_time_ticks),
		cmocka_unit_test(test_bucket),	   cmocka_unit_test(test_stack),	   cmocka_unit_test(test_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
