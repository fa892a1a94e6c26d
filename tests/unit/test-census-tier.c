/* The census tier's decisions, without an event loop: first sight, the
 * interval, growth (max(256 MiB, 5 %) past the last census, at most once
 * per CensusMinSpacing), the budget (a census that waits is deferred,
 * counted once, and runs later: none is skipped), and requests and marks,
 * which run at once. */
#include "testlib.h"

#include <errno.h>

#include "census-tier.h"
#include "limits.h"
#include "config.h"
#include "schedule.h"
#include "target-testlib.h"
#include "watched.h"
#include "writer.h"

#define SEC 1000000ull

static struct daemon_config config;

static int setup(void **state)
{
	(void)state;
	config_defaults(&config);
	/* the defaults, spelt out: what the tests below count on */
	config.census_interval = 300 * SEC;
	config.census_on_growth = true;
	config.growth_bytes = 256 * MiB;
	config.growth_ratio = 0.05;
	config.census_min_spacing = 10 * SEC;
	config.scan_budget = 0.02; /* 1.2 s of credit at most */
	config.huge_process = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	config_done(&config);
	return 0;
}

/* A census of t that came back with status, having cost cpu_us, and what
 * the tier makes of it at now; it read in use and free when the tier's
 * plan said it would (census_take does as told). */
static void census_done(struct census_tier *ct, struct target *t, enum census_status status, uint64_t cpu_us,
			uint64_t now)
{
	struct census_result res = {
		.meta = { .trigger = schedule_trigger(&t->census.plan), .status = status, .cpu_us = (int64_t)cpu_us,
			  .wall_us = (int64_t)cpu_us, .bytes_read = -1 },
		.heap_read = status == CENSUS_OK && census_tier_heap_plan(ct, t, false, now).walk,
	};
	snprintf(res.message, sizeof(res.message), "%s", store_census_status_name(status));
	res.meta.message = res.message;
	census_tier_record(ct, t, &res, now);
}

static void test_first_sight_and_interval(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(100, 1, 1000, "a");

	assert_int_equal(watched_add(w, a, 10), 0);
	assert_null(census_tier_next(ct, w));
	census_tier_first_sight(ct, a, 0);
	assert_ptr_equal(census_tier_next(ct, w), a);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_FIRST);

	a->fast.private = 100 * MiB;
	census_done(ct, a, CENSUS_OK, 1000, 1 * SEC);
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_get_stats(ct)->censuses[CENSUS_OK], 1);

	/* samples within CensusInterval of it: nothing due */
	census_tier_sampled(ct, a, 2 * SEC);
	census_tier_sampled(ct, a, 301 * SEC - 1);
	assert_null(census_tier_next(ct, w));
	/* CensusInterval after it: the interval census */
	census_tier_sampled(ct, a, 301 * SEC);
	assert_ptr_equal(census_tier_next(ct, w), a);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_INTERVAL);

	/* a census that failed is tried again at the next interval, not at
	 * once */
	census_done(ct, a, CENSUS_DENIED, 1000, 302 * SEC);
	census_tier_sampled(ct, a, 303 * SEC);
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_get_stats(ct)->censuses[CENSUS_DENIED], 1);

	watched_remove(w, a, false);
	target_free(a);
	census_tier_free(ct);
	watched_free(w);
}

/* Growth: max(256 MiB, 5 % of the last census's private), not within
 * CensusMinSpacing of the last census. */
static void test_growth(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *small = test_target(100, 1, 1000, "small"), *big = test_target(200, 1, 1000, "big");

	assert_int_equal(watched_add(w, small, 10), 0);
	assert_int_equal(watched_add(w, big, 10), 0);
	census_tier_first_sight(ct, small, 0);
	census_tier_first_sight(ct, big, 0);
	small->fast.private = 1 * GiB;
	big->fast.private = 10 * GiB;
	census_done(ct, small, CENSUS_OK, 10, 1 * SEC);
	census_done(ct, big, CENSUS_OK, 10, 1 * SEC);
	assert_null(census_tier_next(ct, w));

	/* 1 GiB: 5 % is 51 MiB, so 256 MiB it is */
	small->fast.private = 1 * GiB + 256 * MiB - 1;
	census_tier_sampled(ct, small, 20 * SEC);
	assert_null(census_tier_next(ct, w));
	small->fast.private = 1 * GiB + 256 * MiB;
	census_tier_sampled(ct, small, 21 * SEC);
	assert_ptr_equal(census_tier_next(ct, w), small);
	assert_int_equal(schedule_trigger(&small->census.plan), TRIGGER_GROWTH);
	census_done(ct, small, CENSUS_OK, 10, 22 * SEC);

	/* 10 GiB: 5 % is 512 MiB, more than 256 MiB */
	big->fast.private = 10 * GiB + 300 * MiB;
	census_tier_sampled(ct, big, 30 * SEC);
	assert_null(census_tier_next(ct, w));
	big->fast.private = 10 * GiB + 513 * MiB;
	census_tier_sampled(ct, big, 31 * SEC);
	assert_ptr_equal(census_tier_next(ct, w), big);
	census_done(ct, big, CENSUS_OK, 10, 32 * SEC);

	/* grown again at once: not before CensusMinSpacing has passed */
	big->fast.private = 12 * GiB;
	census_tier_sampled(ct, big, 32 * SEC + 10 * SEC - 1);
	assert_null(census_tier_next(ct, w));
	census_tier_sampled(ct, big, 32 * SEC + 10 * SEC);
	assert_ptr_equal(census_tier_next(ct, w), big);
	assert_int_equal(schedule_trigger(&big->census.plan), TRIGGER_GROWTH);

	watched_remove(w, small, false);
	watched_remove(w, big, false);
	target_free(small);
	target_free(big);
	census_tier_free(ct);
	watched_free(w);
}

/* The budget: past it, censuses wait (deferred, counted once each), and
 * run when the credit is back; none is skipped. */
static void test_budget_defers(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(100, 1, 1000, "a"), *b = test_target(200, 1, 1000, "b");

	assert_int_equal(watched_add(w, a, 10), 0);
	assert_int_equal(watched_add(w, b, 10), 0);
	census_tier_first_sight(ct, a, 0);
	census_tier_first_sight(ct, b, 1);
	/* the one due first goes first */
	assert_ptr_equal(census_tier_next(ct, w), a);
	/* 2 s of CPU against 1.2 s of credit: 0.8 s overdrawn */
	census_done(ct, a, CENSUS_OK, 2 * SEC, 0);

	assert_null(census_tier_next(ct, w));
	assert_true(b->census.plan.deferred);
	assert_int_equal(census_tier_get_stats(ct)->deferred, 1);
	/* asked again while it waits: counted once */
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_get_stats(ct)->deferred, 1);
	/* 30 s at 2 % pay back 0.6 s: still overdrawn */
	census_tier_refill(ct, 30 * SEC);
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_get_stats(ct)->deferred, 1);
	/* 41 s pay it all back: b runs, late, not skipped */
	census_tier_refill(ct, 41 * SEC);
	assert_ptr_equal(census_tier_next(ct, w), b);
	assert_int_equal(schedule_trigger(&b->census.plan), TRIGGER_FIRST);
	census_done(ct, b, CENSUS_OK, 2 * SEC, 41 * SEC);
	assert_false(b->census.plan.deferred);
	assert_int_equal(census_tier_get_stats(ct)->censuses[CENSUS_OK], 2);
	assert_int_equal(census_tier_get_stats(ct)->census_cpu_us, 4 * SEC);

	/* the next census that waits is counted again */
	census_tier_sampled(ct, a, 400 * SEC);
	census_tier_refill(ct, 41 * SEC); /* time stands: no credit */
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_get_stats(ct)->deferred, 2);

	watched_remove(w, a, false);
	watched_remove(w, b, false);
	target_free(a);
	target_free(b);
	census_tier_free(ct);
	watched_free(w);
}

/* In use and free (the heap walks): read at first sight, growth, a mark
 * and a request, and by an interval census at most every InUseInterval;
 * never by a light census nor without Evidence=.  Their deadline is what
 * the budget holds: the credit left within it, its cap for a request or a
 * mark, at most RW_HEAP_WALK_MAX_US. */
static void test_heap_plan(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(100, 1, 1000, "a");
	struct census_heap_plan h;

	assert_int_equal(config.in_use_interval, 15 * 60 * SEC); /* the default */
	assert_int_equal(watched_add(w, a, 10), 0);
	census_tier_first_sight(ct, a, 0);
	h = census_tier_heap_plan(ct, a, false, 0);
	assert_true(h.walk);
	/* the whole credit: 2 % of a minute */
	assert_int_equal(h.allowance_us, 1200000);
	/* never a light census */
	assert_false(census_tier_heap_plan(ct, a, true, 0).walk);
	a->fast.private = 1 * GiB;
	census_done(ct, a, CENSUS_OK, 200000, 1 * SEC);
	assert_true(a->census.plan.heap_read);

	/* the credit left after a census of 0.2 s */
	census_tier_sampled(ct, a, 301 * SEC);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_INTERVAL);
	census_tier_refill(ct, 1 * SEC);
	/* interval censuses within InUseInterval of the last that read
	 * them: none read in use */
	assert_false(census_tier_heap_plan(ct, a, false, 301 * SEC).walk);
	census_done(ct, a, CENSUS_OK, 1000, 301 * SEC);
	census_tier_sampled(ct, a, 601 * SEC);
	assert_false(census_tier_heap_plan(ct, a, false, 601 * SEC).walk);
	census_done(ct, a, CENSUS_OK, 1000, 601 * SEC);
	/* a growth census does */
	a->fast.private = 2 * GiB;
	census_tier_sampled(ct, a, 700 * SEC);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_GROWTH);
	assert_true(census_tier_heap_plan(ct, a, false, 700 * SEC).walk);
	census_done(ct, a, CENSUS_OK, 1000, 700 * SEC);
	/* InUseInterval is counted from it: a microsecond short, then at it */
	census_tier_sampled(ct, a, 1000 * SEC);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_INTERVAL);
	assert_false(census_tier_heap_plan(ct, a, false, 1600 * SEC - 1).walk);
	assert_true(census_tier_heap_plan(ct, a, false, 1600 * SEC).walk);

	/* the credit spent: the walk gets what is left, then nothing; a
	 * request gets the budget's cap all the same */
	census_tier_refill(ct, 1600 * SEC);
	census_done(ct, a, CENSUS_OK, 1100000, 1600 * SEC);
	census_tier_sampled(ct, a, 1900 * SEC);
	census_tier_refill(ct, 1600 * SEC);
	a->census.plan.heap_read = false; /* due whatever the interval */
	assert_int_equal(census_tier_heap_plan(ct, a, false, 1600 * SEC).allowance_us, 100000);
	schedule_add(&a->census.plan, TRIGGER_MARK, 1600 * SEC);
	h = census_tier_heap_plan(ct, a, false, 1600 * SEC);
	assert_true(h.walk);
	assert_int_equal(h.allowance_us, 1200000);

	/* at 100 % the cap is a minute: RW_HEAP_WALK_MAX_US bounds it */
	config.scan_budget = 1.0;
	census_tier_reload(ct);
	census_tier_refill(ct, 3600 * SEC);
	assert_int_equal(census_tier_heap_plan(ct, a, false, 3600 * SEC).allowance_us, RW_HEAP_WALK_MAX_US);
	config.scan_budget = 0.02;

	/* InUseInterval=0: every census reads them */
	config.in_use_interval = 0;
	census_done(ct, a, CENSUS_OK, 1000, 3600 * SEC);
	census_tier_sampled(ct, a, 3900 * SEC);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_INTERVAL);
	assert_true(census_tier_heap_plan(ct, a, false, 3900 * SEC).walk);
	/* Evidence=no: none */
	config.evidence = false;
	assert_false(census_tier_heap_plan(ct, a, false, 3900 * SEC).walk);
	config.evidence = true;
	config.in_use_interval = 15 * 60 * SEC;

	watched_remove(w, a, false);
	target_free(a);
	census_tier_free(ct);
	watched_free(w);
}

struct told {
	unsigned calls;
	enum census_status status;
	char message[256];
};

static void on_done(void *userdata, const struct census_result *res)
{
	struct told *x = userdata;
	x->calls++;
	x->status = res->meta.status;
	snprintf(x->message, sizeof(x->message), "%s", res->meta.message ? res->meta.message : "");
}

/* Overdraws the budget of ct with one census of t. */
static void overdraw(struct census_tier *ct, struct watched *w, struct target *t)
{
	census_tier_first_sight(ct, t, 0);
	assert_ptr_equal(census_tier_next(ct, w), t);
	census_done(ct, t, CENSUS_OK, 5 * SEC, 0);
}

/* A client's request runs at once, outside the budget, and its client is
 * told once. */
static void test_request_runs_at_once(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(100, 1, 1000, "a");
	struct census_waiter *waiter = NULL;
	struct told x = { 0 };

	assert_int_equal(watched_add(w, a, 10), 0);
	overdraw(ct, w, a);
	census_tier_sampled(ct, a, 300 * SEC);
	assert_null(census_tier_next(ct, w)); /* the interval census waits */

	assert_int_equal(census_tier_request(ct, a, false, true, 300 * SEC, on_done, &x, &waiter), 0);
	assert_non_null(waiter);
	assert_ptr_equal(census_tier_next(ct, w), a);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_REQUEST);
	assert_true(census_tier_light(ct, a));
	assert_int_equal(x.calls, 0);
	census_done(ct, a, CENSUS_OK, 1000, 300 * SEC);
	assert_int_equal(x.calls, 1);
	assert_int_equal(x.status, CENSUS_OK);
	/* the next census tells nobody */
	assert_int_equal(census_tier_request(ct, a, true, false, 301 * SEC, on_done, &x, NULL), 0);
	assert_false(census_tier_light(ct, a));
	census_done(ct, a, CENSUS_OK, 1000, 301 * SEC);
	assert_int_equal(x.calls, 2);
	census_done(ct, a, CENSUS_OK, 1000, 302 * SEC);
	assert_int_equal(x.calls, 2);

	watched_remove(w, a, false);
	target_free(a);
	census_tier_free(ct);
	watched_free(w);
}

/* A mark is queued for the store, and its census runs at once. */
static void test_mark_runs_at_once(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct census_tier *ct = census_tier_new(&config, 0);
	struct writer *writer = writer_new(NULL); /* queued, never written */
	struct target *a = test_target(100, 1, 1000, "a");
	struct writer_stats ws;

	assert_int_equal(watched_add(w, a, 10), 0);
	overdraw(ct, w, a);
	assert_null(census_tier_next(ct, w));
	assert_int_equal(census_tier_mark(ct, a, writer, 1700000000000, "warm-up", 1000, 5 * SEC), 0);
	writer_get_stats(writer, &ws);
	assert_int_equal(ws.queued, 1);
	assert_ptr_equal(census_tier_next(ct, w), a);
	assert_int_equal(schedule_trigger(&a->census.plan), TRIGGER_MARK);
	/* a light census was not asked for */
	assert_false(census_tier_light(ct, a));

	watched_remove(w, a, false);
	target_free(a);
	writer_free(writer);
	census_tier_free(ct);
	watched_free(w);
}

/* A process let go tells its waiting clients why; a cancelled one is
 * not told. */
static void test_forget(void **state)
{
	(void)state;
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(4242, 1, 1000, "a"), *b = test_target(4343, 1, 1000, "b");
	struct census_waiter *gone = NULL;
	struct told x = { 0 }, y = { 0 }, z = { 0 };

	assert_int_equal(census_tier_request(ct, a, false, false, 0, on_done, &x, NULL), 0);
	assert_int_equal(census_tier_request(ct, a, false, false, 0, on_done, &y, &gone), 0);
	census_tier_waiter_cancel(gone);
	census_tier_forget(ct, a, true, 1700000000000);
	assert_int_equal(x.calls, 1);
	assert_int_equal(x.status, CENSUS_EXITED);
	assert_string_equal(x.message, "process 4242 exited");
	assert_int_equal(y.calls, 0);

	assert_int_equal(census_tier_request(ct, b, false, false, 0, on_done, &z, NULL), 0);
	census_tier_forget(ct, b, false, 1700000000000);
	assert_int_equal(z.calls, 1);
	assert_int_equal(z.status, CENSUS_ERROR);
	assert_string_equal(z.message, "process 4343 is no longer watched");
	/* none is counted as a census */
	assert_int_equal(census_tier_get_stats(ct)->censuses[CENSUS_EXITED], 0);

	target_free(a);
	target_free(b);
	census_tier_free(ct);
}

/* HugeProcess: above it, a light census unless a full one is asked for. */
static void test_huge_process(void **state)
{
	(void)state;
	config.huge_process = 8 * GiB;
	struct census_tier *ct = census_tier_new(&config, 0);
	struct target *a = test_target(100, 1, 1000, "a");

	a->fast.resident = 8 * GiB;
	assert_false(census_tier_light(ct, a));
	a->fast.resident = 8 * GiB + 1;
	assert_true(census_tier_light(ct, a));
	assert_int_equal(census_tier_request(ct, a, true, false, 0, on_done, &(struct told){ 0 }, NULL), 0);
	assert_false(census_tier_light(ct, a));
	census_tier_forget(ct, a, false, 0);

	config.huge_process = 0;
	target_free(a);
	census_tier_free(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sight_and_interval),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_budget_defers),
		cmocka_unit_test(test_heap_plan),
		cmocka_unit_test(test_request_runs_at_once),
		cmocka_unit_test(test_mark_runs_at_once),
		cmocka_unit_test(test_forget),
		cmocka_unit_test(test_huge_process),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
