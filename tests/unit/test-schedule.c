/* Census triggers, their order, the budget, and the fast tier's min/max/last. */
#include "testlib.h"

#include "config.h"
#include "sample.h"
#include "schedule.h"

#define SEC 1000000ull

static struct daemon_config defaults(void)
{
	struct daemon_config c;
	config_defaults(&c);
	return c;
}

static void test_first_interval_growth(void **state)
{
	(void)state;
	struct daemon_config c = defaults(); /* 5 min, 256M/5%, spacing 10 s */
	struct census_plan p = { 0 };
	uint64_t t = 1000 * SEC;

	/* first sight */
	assert_true(schedule_update(&p, &c, t, 100 * MiB));
	assert_int_equal(schedule_trigger(&p), TRIGGER_FIRST);
	schedule_done(&p, t, CENSUS_OK, 100 * MiB);
	assert_false(schedule_update(&p, &c, t + SEC, 100 * MiB));

	/* growth: max(256 MiB, 5 %) above the last census */
	assert_int_equal(schedule_growth_threshold(&c, 100 * MiB), 356 * MiB);
	assert_int_equal(schedule_growth_threshold(&c, 10 * GiB), 10 * GiB + 512 * MiB);
	assert_false(schedule_update(&p, &c, t + 20 * SEC, 355 * MiB));
	assert_true(schedule_update(&p, &c, t + 20 * SEC, 356 * MiB));
	assert_int_equal(schedule_trigger(&p), TRIGGER_GROWTH);
	schedule_done(&p, t + 20 * SEC, CENSUS_OK, 356 * MiB);

	/* ... but not twice within CensusMinSpacing */
	assert_false(schedule_update(&p, &c, t + 25 * SEC, 2 * GiB));
	assert_true(schedule_update(&p, &c, t + 30 * SEC, 2 * GiB));
	schedule_done(&p, t + 30 * SEC, CENSUS_OK, 2 * GiB);

	/* the interval, from the last census */
	assert_false(schedule_update(&p, &c, t + 30 * SEC + 299 * SEC, 2 * GiB));
	assert_true(schedule_update(&p, &c, t + 30 * SEC + 300 * SEC, 2 * GiB));
	assert_int_equal(schedule_trigger(&p), TRIGGER_INTERVAL);

	/* CensusOnGrowth=no */
	struct census_plan q = { 0 };
	c.census_on_growth = false;
	schedule_done(&q, t, CENSUS_OK, 0);
	assert_false(schedule_update(&q, &c, t + 60 * SEC, 100 * GiB));
	config_done(&c);
}

/* GPU memory grows: the growth trigger, with CensusOnGrowth's thresholds,
 * measured from the GPU memory at the last ok census. */
static void test_vram_growth(void **state)
{
	(void)state;
	struct daemon_config c = defaults(); /* 256M/5%, spacing 10 s */
	struct census_plan p = { 0 };
	uint64_t t = 1000 * SEC;

	/* no baseline before an ok census */
	assert_true(schedule_update(&p, &c, t, 100 * MiB));
	schedule_update_vram(&p, &c, t, 8 * GiB);
	schedule_done(&p, t, CENSUS_OK, 100 * MiB);
	assert_int_equal(p.last_vram, 8 * GiB);
	assert_false(schedule_update_vram(&p, &c, t + SEC, 8 * GiB));

	/* 5 % of 8 GiB is 409.6 MiB, above 256 MiB */
	assert_false(schedule_update_vram(&p, &c, t + 20 * SEC, 8 * GiB + 409 * MiB));
	assert_true(schedule_update_vram(&p, &c, t + 20 * SEC, 8 * GiB + 410 * MiB));
	assert_int_equal(schedule_trigger(&p), TRIGGER_GROWTH);
	assert_true(p.vram_growth);
	/* the census takes the GPU memory last told as its baseline */
	schedule_done(&p, t + 20 * SEC, CENSUS_OK, 100 * MiB);
	assert_false(p.vram_growth);
	assert_int_equal(p.last_vram, 8 * GiB + 410 * MiB);

	/* not twice within CensusMinSpacing; shrinking is no trigger */
	assert_false(schedule_update_vram(&p, &c, t + 25 * SEC, 20 * GiB));
	assert_false(schedule_update_vram(&p, &c, t + 40 * SEC, 0));
	assert_false(schedule_update(&p, &c, t + 40 * SEC, 100 * MiB));

	/* from nothing: at least 256 MiB */
	schedule_done(&p, t + 40 * SEC, CENSUS_OK, 100 * MiB);
	assert_int_equal(p.last_vram, 0);
	assert_false(schedule_update_vram(&p, &c, t + 60 * SEC, 255 * MiB));
	assert_true(schedule_update_vram(&p, &c, t + 60 * SEC, 256 * MiB));

	/* a growth of private memory pending: not counted as the GPU's */
	struct census_plan q = { 0 };
	schedule_done(&q, t, CENSUS_OK, 100 * MiB);
	assert_true(schedule_update(&q, &c, t + 20 * SEC, GiB));
	assert_true(schedule_update_vram(&q, &c, t + 20 * SEC, GiB));
	assert_false(q.vram_growth);

	/* a ratio alone: a process holding no GPU memory is no growth */
	struct census_plan r = { 0 };
	c.growth_bytes = 0;
	schedule_done(&r, t, CENSUS_OK, 100 * MiB);
	assert_false(schedule_update_vram(&r, &c, t + 20 * SEC, 0));
	assert_true(schedule_update_vram(&r, &c, t + 20 * SEC, 1));

	/* CensusOnGrowth=no */
	struct census_plan n = { 0 };
	c.census_on_growth = false;
	schedule_done(&n, t, CENSUS_OK, 0);
	assert_false(schedule_update_vram(&n, &c, t + 60 * SEC, 100 * GiB));
	config_done(&c);
}

static void test_denied_is_not_retried_at_once(void **state)
{
	(void)state;
	struct daemon_config c = defaults();
	struct census_plan p = { 0 };
	assert_true(schedule_update(&p, &c, SEC, 0));
	schedule_done(&p, SEC, CENSUS_DENIED, 0);
	/* no first-sight retry and no growth baseline without an ok census */
	assert_false(schedule_update(&p, &c, 2 * SEC, 10 * GiB));
	assert_true(schedule_update(&p, &c, SEC + 300 * SEC, 10 * GiB));
	assert_int_equal(schedule_trigger(&p), TRIGGER_INTERVAL);
	config_done(&c);
}

static void test_order(void **state)
{
	(void)state;
	struct census_plan a = { 0 }, b = { 0 };
	schedule_add(&a, TRIGGER_INTERVAL, 10);
	schedule_add(&b, TRIGGER_GROWTH, 20);
	assert_true(schedule_compare(&b, &a) < 0); /* growth before interval */
	schedule_add(&a, TRIGGER_MARK, 30);
	assert_int_equal(schedule_trigger(&a), TRIGGER_MARK);
	assert_true(schedule_compare(&a, &b) < 0);
	/* the same rank: who waited longer */
	struct census_plan c = { 0 }, d = { 0 };
	schedule_add(&c, TRIGGER_INTERVAL, 50);
	schedule_add(&d, TRIGGER_INTERVAL, 40);
	assert_true(schedule_compare(&d, &c) < 0);
	assert_int_equal(schedule_compare(&c, &c), 0);
	/* requests and marks do not wait for budget */
	assert_true(schedule_needs_budget(&c));
	assert_false(schedule_needs_budget(&a));
	schedule_add(&d, TRIGGER_REQUEST, 60);
	assert_int_equal(schedule_trigger(&d), TRIGGER_REQUEST);
	assert_false(schedule_needs_budget(&d));
	assert_int_equal(d.due_since, 40); /* the oldest trigger's time stays */
}

/* The census before death runs first, outside the budget, without the
 * heap walks, recorded as limit, even with a request or a growth pending
 * too; once taken, the plan is as before. */
static void test_near_limit(void **state)
{
	(void)state;
	struct daemon_config c;
	config_defaults(&c);
	struct census_plan a = { 0 }, b = { 0 };
	schedule_add(&a, TRIGGER_REQUEST, 10);
	schedule_near_limit(&b, 20);
	assert_true(schedule_compare(&b, &a) < 0); /* ahead of a client's request */
	assert_false(schedule_needs_budget(&b));
	assert_int_equal(schedule_trigger(&b), TRIGGER_LIMIT);
	assert_string_equal(store_trigger_name(schedule_trigger(&b)), "limit");
	assert_false(schedule_heap_due(&b, &c, TRIGGER_LIMIT, 20));
	schedule_near_limit(&a, 25);
	assert_int_equal(schedule_trigger(&a), TRIGGER_LIMIT);
	schedule_add(&b, TRIGGER_GROWTH, 25);
	assert_int_equal(schedule_trigger(&b), TRIGGER_LIMIT);
	schedule_done(&b, 30, CENSUS_OK, 100);
	assert_false(b.near_limit);
	schedule_add(&b, TRIGGER_GROWTH, 40);
	assert_true(schedule_needs_budget(&b));
	assert_true(schedule_heap_due(&b, &c, TRIGGER_GROWTH, 40));
	config_done(&c);
}

static void test_budget(void **state)
{
	(void)state;
	struct budget b;
	uint64_t t = 0;
	budget_init(&b, 0.02, t); /* 2 %: a full window's credit to start */
	assert_true(budget_allows(&b));
	assert_true(b.credit == 0.02 * 60 * SEC);

	/* a census's heap walks may take the credit, or the cap outside the
	 * budget */
	assert_int_equal(budget_heap_allowance(&b, true), 1200000);
	assert_int_equal(budget_heap_allowance(&b, false), 1200000);

	/* one census may overdraw; then nothing until it is paid back */
	budget_charge(&b, 2 * SEC);
	assert_false(budget_allows(&b));
	/* overdrawn: nothing within the budget, the cap outside it */
	assert_int_equal(budget_heap_allowance(&b, true), 0);
	assert_int_equal(budget_heap_allowance(&b, false), 1200000);
	budget_refill(&b, t += 30 * SEC); /* +0.6 s: still short by 0.2 s */
	assert_false(budget_allows(&b));
	budget_refill(&b, t += 11 * SEC);
	assert_true(budget_allows(&b));

	/* over a long run the spending stays within the share */
	uint64_t spent = 0;
	for (int i = 0; i < 100000; i++) {
		budget_refill(&b, t += 100000); /* every 100 ms */
		while (budget_allows(&b)) {
			budget_charge(&b, 5000); /* 5 ms censuses */
			spent += 5000;
		}
	}
	double span = 100000 * 0.1 * SEC;
	assert_true((double)spent <= 0.02 * span + 0.02 * 60 * SEC + 5000);
	assert_true((double)spent >= 0.019 * span);
	assert_int_equal(b.spent, spent + 2 * SEC);

	/* the credit is capped: an idle day buys one window, not a day */
	budget_refill(&b, t += 24 * 3600 * SEC);
	assert_true(b.credit <= 0.02 * 60 * SEC);
	budget_set_share(&b, 0.01);
	assert_true(b.credit <= 0.01 * 60 * SEC);
}

/* An interval census reads in use and free when none did yet, or
 * InUseInterval after the last that did; every other trigger reads them. */
static void test_heap_due(void **state)
{
	(void)state;
	struct daemon_config c = defaults(); /* InUseInterval 15 min */
	struct census_plan p = { 0 };
	uint64_t t = 1000 * SEC;

	for (int tr = 0; tr < _TRIGGER_MAX; tr++)
		assert_true(schedule_heap_due(&p, &c, (enum store_trigger)tr, t));
	schedule_heap_done(&p, t);
	assert_false(schedule_heap_due(&p, &c, TRIGGER_INTERVAL, t + 15 * 60 * SEC - 1));
	assert_true(schedule_heap_due(&p, &c, TRIGGER_INTERVAL, t + 15 * 60 * SEC));
	for (int tr = 0; tr < _TRIGGER_MAX; tr++)
		if (tr != TRIGGER_INTERVAL)
			assert_true(schedule_heap_due(&p, &c, (enum store_trigger)tr, t + 1));
}

/* schedule_quiet_until is exact: before it, a sample with the same private
 * memory sets no trigger; at it, one does.  Over random histories of
 * samples and censuses, with growth on and off. */
static void test_quiet_until(void **state)
{
	(void)state;
	struct daemon_config c = defaults();
	unsigned seed = 12345;

	for (int round = 0; round < 2000; round++) {
		struct census_plan p = { 0 };
		uint64_t now = 1000 * SEC, private = 100 * MiB;
		c.census_on_growth = round % 3 != 0;

		assert_int_equal(schedule_quiet_until(&p, &c, private), 0); /* never tried: look */
		for (int step = 0; step < 8; step++) {
			now += (uint64_t)(rand_r(&seed) % 400) * SEC;
			private = (uint64_t)(rand_r(&seed) % 1024) * MiB;
			schedule_update(&p, &c, now, private);
			if (p.pending && rand_r(&seed) % 4 != 0)
				schedule_done(&p, now, rand_r(&seed) % 5 ? CENSUS_OK : CENSUS_ERROR, private);
			uint64_t until = schedule_quiet_until(&p, &c, private);
			if (p.pending) {
				assert_int_equal(until, 0);
				continue;
			}
			assert_true(until > now);
			for (uint64_t at = now; at < until; at += (until - now) / 7 + 1) {
				struct census_plan q = p;
				assert_false(schedule_update(&q, &c, at, private));
			}
			struct census_plan q = p;
			assert_false(schedule_update(&q, &c, until - 1, private));
			assert_true(schedule_update(&q, &c, until, private));
		}
	}
	config_done(&c);
}

/* One sample of private, resident and swap, count times. */
static void add(struct sample_acc *a, uint64_t private, uint64_t resident, uint64_t swap, uint32_t count)
{
	sample_acc_add(a, &(struct sample_figures){ .private = private, .resident = resident, .swap = swap }, count);
}

static void test_sample_acc(void **state)
{
	(void)state;
	struct sample_acc a = { 0 };
	struct store_sample x = { 0 };
	assert_false(sample_acc_take(&a, 5, &x));
	add(&a, 100, 200, 0, 1);
	add(&a, 900, 950, 1, 1); /* a spike between two rows */
	add(&a, 50, 300, 2, 1);
	assert_true(sample_acc_take(&a, 10, &x));
	assert_int_equal(x.time, 10);
	assert_int_equal(x.private_min, 50);
	assert_int_equal(x.private_max, 900);
	assert_int_equal(x.private_last, 50);
	assert_int_equal(x.resident_min, 200);
	assert_int_equal(x.resident_max, 950);
	assert_int_equal(x.resident_last, 300);
	assert_int_equal(x.swap_last, 2);
	assert_int_equal(x.samples, 3);
	/* taken: the next row starts over */
	assert_false(sample_acc_take(&a, 20, &x));
	add(&a, 7, 8, 0, 1);
	assert_true(sample_acc_take(&a, 30, &x));
	assert_int_equal(x.private_min, 7);
	assert_int_equal(x.private_max, 7);
	assert_int_equal(x.samples, 1);
	/* samples of the same figures added at once count each, and start a
	 * row as one sample does */
	add(&a, 9, 10, 0, 4);
	add(&a, 3, 10, 0, 1);
	assert_true(sample_acc_take(&a, 40, &x));
	assert_int_equal(x.private_min, 3);
	assert_int_equal(x.private_max, 9);
	assert_int_equal(x.samples, 5);
	add(&a, 1, 1, 0, UINT32_MAX - 1);
	add(&a, 1, 1, 0, 5);
	assert_true(sample_acc_take(&a, 50, &x));
	assert_int_equal(x.samples, UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_interval_growth), cmocka_unit_test(test_quiet_until), cmocka_unit_test(test_vram_growth),
		cmocka_unit_test(test_denied_is_not_retried_at_once),
		cmocka_unit_test(test_order),		      cmocka_unit_test(test_near_limit),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_heap_due),
		cmocka_unit_test(test_sample_acc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
