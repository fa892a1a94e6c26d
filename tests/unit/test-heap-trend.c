/* heap-trend: what a class's growth was made of (held by the program or
 * kept by its allocator), and the slow, steady rise of in use, each
 * threshold of common/limits.h met and missed by one. */
#include "testlib.h"

#include "heap-trend.h"
#include "limits.h"

#define HOUR_MS (3600ll * 1000)

static struct heap_point point(int64_t t, uint64_t private, uint64_t in_use, uint64_t free_kept)
{
	return (struct heap_point){ .time_ms = t,
				    .private = private,
				    .known = true,
				    .in_use = in_use,
				    .free = free_kept,
				    .unknown = private - in_use - free_kept };
}

static void test_growth(void **state)
{
	(void)state;
	struct heap_point a = point(0, 100 * MiB, 60 * MiB, 40 * MiB);
	struct heap_point b;

	/* below RW_HEAP_GROWTH_MIN the class did not grow, whatever moved */
	b = point(1, a.private + RW_HEAP_GROWTH_MIN - 1, a.in_use + RW_HEAP_GROWTH_MIN - 1, a.free);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_NONE);
	/* at it, in use grew: held */
	b = point(1, a.private + RW_HEAP_GROWTH_MIN, a.in_use + RW_HEAP_GROWTH_MIN, a.free);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_HELD);
	assert_string_equal(heap_growth_name(HEAP_GROWTH_HELD), "held");
	/* free grew: kept */
	b = point(1, a.private + 300 * MiB, a.in_use + 20 * MiB, a.free + 280 * MiB);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_KEPT);
	/* both, the smaller at half the larger; a byte less is the larger's */
	b = point(1, a.private + 30 * MiB, a.in_use + 20 * MiB, a.free + 10 * MiB);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_BOTH);
	b = point(1, a.private + 30 * MiB, a.in_use + 20 * MiB, a.free + 10 * MiB - 1);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_HELD);
	/* in use shrank while free grew more than the class */
	b = point(1, a.private + 10 * MiB, a.in_use - 5 * MiB, a.free + 15 * MiB);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_KEPT);
	/* neither rose by RW_HEAP_GROWTH_MIN: the allocator's own */
	b = point(1, a.private + 4 * MiB, a.in_use + RW_HEAP_GROWTH_MIN - 1, a.free + RW_HEAP_GROWTH_MIN - 1);
	b.unknown = 0;
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_OVERHEAD);
	/* most of the growth unknown (a walk that did not check out) */
	b = point(1, a.private + 50 * MiB, a.in_use, a.free);
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_UNKNOWN);
	/* a census that read no allocator of the class: not known */
	b = point(1, a.private + 50 * MiB, a.in_use + 50 * MiB, a.free);
	b.known = false;
	assert_int_equal(heap_trend_growth(&a, &b), HEAP_GROWTH_UNKNOWN);
	assert_int_equal(heap_trend_growth(&b, &a), HEAP_GROWTH_NONE);
}

/* n points a span apart, in use rising by step at each but where fall[i]. */
static void series(struct heap_point *v, size_t n, int64_t span_ms, uint64_t step, const bool *fall)
{
	uint64_t in_use = 100 * MiB;
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			in_use = fall && fall[i] ? in_use - step / 2 : in_use + step;
		v[i] = point((int64_t)i * span_ms, in_use + 50 * MiB, in_use, 50 * MiB);
	}
}

static void test_slow_rise(void **state)
{
	(void)state;
	enum { M = RW_HEAP_RISE_CENSUSES };
	struct heap_point v[M + 4];
	struct heap_rise rise;
	/* the span of M censuses just long enough */
	int64_t gap = (RW_HEAP_RISE_SPAN_MS + M - 2) / (M - 1);
	uint64_t step = RW_HEAP_RISE_BYTES / (M - 1) + 1;

	/* rising at every census, over an hour and by enough: flagged, with
	 * its rate */
	series(v, M, gap, step, NULL);
	assert_true(heap_trend_slow_rise(v, M, &rise));
	assert_int_equal(rise.rises, M - 1);
	assert_int_equal(rise.steps, M - 1);
	assert_int_equal(rise.first, 0);
	assert_int_equal(rise.last, M - 1);
	assert_int_equal(rise.change, (int64_t)(step * (M - 1)));
	assert_true(rise.span_ms >= (int64_t)RW_HEAP_RISE_SPAN_MS);
	assert_true(rise.bytes_per_hour > 0 &&
		    rise.bytes_per_hour <= (double)rise.change * 3600000.0 / (double)RW_HEAP_RISE_SPAN_MS);

	/* one census fewer than RW_HEAP_RISE_CENSUSES: too few to tell */
	assert_false(heap_trend_slow_rise(v, M - 1, &rise));

	/* a span a millisecond short of RW_HEAP_RISE_SPAN_MS */
	series(v, M, gap, step, NULL);
	v[M - 1].time_ms = v[0].time_ms + RW_HEAP_RISE_SPAN_MS - 1;
	assert_false(heap_trend_slow_rise(v, M, &rise));

	/* a rise a byte short of RW_HEAP_RISE_BYTES */
	series(v, M, gap, step, NULL);
	v[M - 1].in_use = v[0].in_use + RW_HEAP_RISE_BYTES - 1;
	v[M - 1].private = v[M - 1].in_use + 50 * MiB;
	assert_false(heap_trend_slow_rise(v, M, &rise));
	v[M - 1].in_use++;
	assert_true(heap_trend_slow_rise(v, M, &rise));

	/* RW_HEAP_RISE_MIN rises of the steps are enough, one fewer is not */
	bool fall[M] = { false };
	size_t falls = (M - 1) - RW_HEAP_RISE_MIN;
	for (size_t i = 0; i < falls; i++)
		fall[1 + 2 * i] = true;
	series(v, M, gap, 4 * step, fall);
	assert_true(heap_trend_slow_rise(v, M, &rise));
	assert_int_equal(rise.rises, RW_HEAP_RISE_MIN);
	fall[M - 1] = true;
	series(v, M, gap, 4 * step, fall);
	assert_false(heap_trend_slow_rise(v, M, &rise));
	assert_int_equal(rise.rises, RW_HEAP_RISE_MIN - 1);

	/* a program that warmed up and then held: not flagged */
	series(v, M + 4, gap, step, NULL);
	for (size_t i = 4; i < M + 4; i++)
		v[i] = point(v[i].time_ms, v[3].private, v[3].in_use, v[3].free);
	assert_false(heap_trend_slow_rise(v, M + 4, &rise));
	assert_int_equal(rise.rises, 0);

	/* the censuses that read no figures are passed over: the last
	 * RW_HEAP_RISE_CENSUSES that did are looked at */
	struct heap_point w[2 * M];
	series(v, M, gap, step, NULL);
	for (size_t i = 0; i < M; i++) {
		w[2 * i] = v[i];
		w[2 * i + 1] = (struct heap_point){ .time_ms = v[i].time_ms + 1, .private = v[i].private };
	}
	assert_true(heap_trend_slow_rise(w, 2 * M, &rise));
	assert_int_equal(rise.first, 0);
	assert_int_equal(rise.last, 2 * M - 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_slow_rise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
