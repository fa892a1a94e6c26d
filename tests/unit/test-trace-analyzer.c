/* The replay's rules, event by event (allocations): integrity verdicts,
 * retention, release, resize, remap and lost tracking, failed and
 * unmatched operations.  Vectors are written from
 * doc/trace-format.md and the reference analyzer's semantics; in them ' stands for
 * " to keep the JSON readable. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "limits.h"
#include "trace-integrity.h"
#include "trace-testlib.h"

static const char *status(const struct run *run)
{
	struct trace_integrity v;
	trace_integrity_of(&run->a, &v);
	return v.status;
}

#define START "{'seq':1,'kind':'trace.start'}\n"

/* ---------------------------------------------------------- integrity */

static void test_integrity_statuses(void **state)
{
	(void)state;
	static const struct {
		const char *trace, *status;
	} cases[] = {
		{ "", "no_events" },
		{ "\n  \n", "no_events" },
		/* a regression wins over gaps, gaps over missing numbers */
		{ START "{'seq':5,'kind':'alloc'}\n{'seq':3,'kind':'free'}\n{'kind':'trace.stop'}\n",
		  "non_monotonic_sequence" },
		{ START "{'seq':3,'kind':'trace.stop'}\n{'kind':'census'}\n", "sequence_gaps" },
		/* the first number above 1 is a gap: events before it are lost */
		{ "{'seq':2,'kind':'trace.start'}\n{'seq':3,'kind':'trace.stop'}\n", "sequence_gaps" },
		{ START "{'kind':'snapshot'}\n{'seq':2,'kind':'trace.stop'}\n", "missing_sequence_metadata" },
		/* seq 0 is unsequenced too */
		{ START "{'seq':0,'kind':'snapshot'}\n{'seq':2,'kind':'trace.stop'}\n", "missing_sequence_metadata" },
		{ START "{'seq':2,'kind':'trace.start'}\n{'seq':3,'kind':'trace.stop'}\n", "multiple_trace_sessions" },
		{ START "{'seq':2,'kind':'trace.stop'}\n{'seq':3,'kind':'trace.stop'}\n", "multiple_trace_sessions" },
		{ "{'seq':1,'kind':'census'}\n{'seq':2,'kind':'trace.stop'}\n", "missing_start_event" },
		{ START "{'seq':2,'kind':'census'}\n", "missing_stop_event" },
		{ START "{'seq':2,'kind':'trace.stop'}\n{'seq':3,'kind':'census'}\n", "lifecycle_not_bounded" },
		{ "{'seq':1,'kind':'census'}\n{'seq':2,'kind':'trace.start'}\n{'seq':3,'kind':'trace.stop'}\n",
		  "lifecycle_not_bounded" },
		{ START "{'seq':2,'kind':'free','address':16}\n{'seq':3,'kind':'trace.stop'}\n", "unbalanced_events" },
		{ START "{'seq':2,'kind':'scope.enter','scope_id':1,'scope':'a'}\n{'seq':3,'kind':'trace.stop'}\n",
		  "unbalanced_events" },
		{ START "{'seq':2,'kind':'scope.exit','scope':'a'}\n{'seq':3,'kind':'trace.stop'}\n",
		  "unbalanced_events" },
		{ START "{'seq':2,'kind':'alloc','address':16,'len':8}\n{'seq':3,'kind':'trace.stop'}\n", "complete" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run *run = replay(cases[i].trace);
		if (strcmp(status(run), cases[i].status) != 0)
			fail_msg("case %zu: %s, expected %s", i, status(run), cases[i].status);
		done(run);
	}
}

static void test_integrity_counts(void **state)
{
	(void)state;
	struct run *run = replay("{'seq':3,'kind':'trace.start'}\n{'seq':7,'kind':'alloc'}\n{'seq':6,'kind':'census'}\n"
				 "{'kind':'census'}\n{'seq':9,'kind':'trace.stop'}\n{'seq':0,'kind':'trace.stop'}\n");
	struct trace_integrity v;
	trace_integrity_of(&run->a, &v);
	assert_string_equal(v.status, "non_monotonic_sequence");
	assert_string_equal(v.action, "inspect_trace_writer");
	assert_int_equal(v.event_count, 6);
	assert_int_equal(v.sequenced_event_count, 4);
	assert_int_equal(v.unsequenced_event_count, 2);
	/* 1-2 before the first, 4-6, then 7-8 (counted from the 6 that
	 * regressed, which becomes the last number) */
	assert_int_equal(v.sequence_gap_count, 3);
	assert_int_equal(v.missing_sequence_event_count, 2 + 3 + 2);
	assert_int_equal(v.sequence_regression_count, 1);
	assert_true(v.has_first_sequence && v.first_sequence == 3);
	assert_true(v.has_last_sequence && v.last_sequence == 9);
	assert_true(v.has_start_sequence && v.start_sequence == 3);
	/* the last stop counts, and it said 0 */
	assert_true(v.has_stop_sequence && v.stop_sequence == 0);
	assert_int_equal(v.start_event_count, 1);
	assert_int_equal(v.stop_event_count, 2);
	done(run);

	/* a stop without a number leaves no stop sequence */
	run = replay(START "{'kind':'trace.stop'}\n");
	trace_integrity_of(&run->a, &v);
	assert_false(v.has_stop_sequence);
	assert_string_equal(v.status, "missing_sequence_metadata");
	done(run);
}

/* ---------------------------------------------------------- retention */

static void test_retention(void **state)
{
	(void)state;
	/* allocator 1 keeps what is freed, allocator 2 gives it back, an
	 * unknown allocator (3) gives it back */
	struct run *run = replay("{'kind':'allocator','allocator_id':1,'retains_freed_memory':true}\n"
				 "{'kind':'allocator','allocator_id':2,'retains_freed_memory':false}\n"
				 "{'kind':'alloc','allocator_id':1,'address':16,'len':100,'scope':'a'}\n"
				 "{'kind':'alloc','allocator_id':2,'address':32,'len':40,'scope':'b'}\n"
				 "{'kind':'alloc','allocator_id':3,'address':48,'len':7,'scope':'c'}\n"
				 "{'kind':'free','address':16}\n{'kind':'free','address':32}\n{'kind':'free','address':48}\n");
	const struct trace_counters *t = &run->a.totals.c;
	assert_int_equal(t->live_bytes, 0);
	assert_int_equal(t->high_water_live_bytes, 147);
	assert_int_equal(t->retained_bytes, 100);
	assert_int_equal(t->high_water_retained_bytes, 147);
	assert_int_equal(scope(run, "a")->retained_bytes, 100);
	assert_int_equal(scope(run, "b")->retained_bytes, 0);
	assert_int_equal(scope(run, "c")->retained_bytes, 0);
	assert_int_equal(t->freed_bytes, 147);
	assert_int_equal(t->frees, 3);
	done(run);

	/* a later allocator event replaces the earlier one */
	run = replay("{'kind':'allocator','allocator_id':1,'retains_freed_memory':true}\n"
		     "{'kind':'allocator','allocator_id':1,'retains_freed_memory':false}\n"
		     "{'kind':'alloc','allocator_id':1,'address':16,'len':100}\n{'kind':'free','address':16}\n");
	assert_int_equal(run->a.totals.c.retained_bytes, 0);
	done(run);
}

/* The tracer's lines: an untracked alloc standing for count calls, and the
 * loaded objects, each kept once. */
static void test_counts_and_objects(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','tracked':false,'len':100000,'count':1000,'return_address':64}\n"
				 "{'kind':'alloc','tracked':false,'len':7,'return_address':64}\n"
				 "{'kind':'object','address':4096,'len':8192,'path':'/usr/bin/prog'}\n"
				 "{'kind':'object','address':4096,'len':8192,'path':'/usr/bin/prog'}\n"
				 "{'kind':'object','address':0,'len':4096,'path':'/lib/libc.so.6'}\n");
	const struct trace_counters *t = &run->a.totals.c;
	assert_int_equal(t->untracked_requests, 1001);
	assert_int_equal(t->untracked_request_bytes, 100007);
	assert_int_equal(t->allocations, 1001);
	assert_int_equal(t->live_bytes, 0);
	assert_int_equal(run->a.n_objects, 2);
	assert_string_equal(run->a.objects[0].path, "/usr/bin/prog");
	assert_int_equal(run->a.objects[0].bias, 4096);
	assert_int_equal(run->a.objects[0].len, 8192);
	assert_string_equal(run->a.objects[1].path, "/lib/libc.so.6");
	done(run);

	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	run = replay_with("{'kind':'object','address':4096}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	assert_string_equal(run->err.error.message, "an object event needs a \"path\"");
	done(run);
	run = replay_with("{'kind':'object','path':'a\\u0000b'}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	assert_string_equal(run->err.error.message, "an object's \"path\" holds a NUL byte");
	done(run);
}

/* Past RW_TRACE_OBJECTS_MAX distinct objects the event is invalid. */
static void test_objects_past_the_limit(void **state)
{
	(void)state;
	size_t size = (RW_TRACE_OBJECTS_MAX + 1) * 64 + 1, n = 0;
	char *text = malloc(size);
	assert_non_null(text);
	for (unsigned i = 0; i <= RW_TRACE_OBJECTS_MAX; i++)
		n += (size_t)snprintf(text + n, size - n, "{'kind':'object','address':%u,'path':'/o'}\n", i);
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	struct run *run = replay_with(text, &o);
	free(text);
	assert_int_equal(run->r, -EINVAL);
	assert_int_equal(run->err.line, RW_TRACE_OBJECTS_MAX + 1);
	assert_int_equal(run->a.n_objects, RW_TRACE_OBJECTS_MAX);
	done(run);
}

static void test_release(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','address':16,'len':100,'scope':'a','return_address':7}\n"
				 "{'kind':'alloc','address':32,'len':50,'scope':'a','return_address':7}\n"
				 "{'kind':'release','address':16}\n{'kind':'release','address':999}\n");
	const struct trace_counters *t = &run->a.totals.c;
	/* a release is neither a free nor freed bytes, and keeps retained */
	assert_int_equal(t->frees, 0);
	assert_int_equal(t->freed_bytes, 0);
	assert_int_equal(t->bulk_invalidated_requests, 1);
	assert_int_equal(t->bulk_invalidated_bytes, 100);
	assert_int_equal(t->live_bytes, 50);
	assert_int_equal(t->live_allocations, 1);
	assert_int_equal(t->retained_bytes, 150);
	assert_int_equal(t->completed_lifetimes, 1);
	assert_int_equal(scope(run, "a")->bulk_invalidated_bytes, 100);
	assert_int_equal(site(run, 7)->bulk_invalidated_requests, 1);
	assert_int_equal(site(run, 7)->live_bytes, 50);
	/* a release of nothing live is an unmatched free */
	assert_int_equal(run->a.totals.unmatched_frees, 1);
	done(run);
}

/* ---------------------------------------------------------- resize, remap */

static void test_resize(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','address':16,'len':100,'scope':'a','return_address':7}\n"
				 "{'kind':'resize','address':16,'old_len':100,'len':300}\n"
				 "{'kind':'resize','address':16,'old_len':300,'len':120}\n"
				 "{'kind':'resize','address':99,'len':5}\n"
				 "{'kind':'resize','address':16,'len':5000,'succeeded':false}\n"
				 "{'kind':'resize','address':16,'len':6000,'succeeded':false,'tracked':false}\n"
				 "{'kind':'resize','address':16,'len':7000,'tracked':false}\n");
	const struct trace_totals *t = &run->a.totals;
	assert_int_equal(t->c.allocated_bytes, 300);
	assert_int_equal(t->c.freed_bytes, 180);
	assert_int_equal(t->c.live_bytes, 120);
	assert_int_equal(t->c.high_water_live_bytes, 300);
	assert_int_equal(t->c.retained_bytes, 120);
	assert_int_equal(t->c.allocations, 1);
	/* succeeded tracked resizes count, matched or not */
	assert_int_equal(t->resizes, 3);
	assert_int_equal(t->failed_resizes, 2);
	assert_int_equal(t->unmatched_resizes, 3);
	assert_int_equal(scope(run, "a")->live_bytes, 120);
	assert_int_equal(site(run, 7)->high_water_live_bytes, 300);
	done(run);
}

static void test_remap(void **state)
{
	(void)state;
	/* by address: the allocation moves from 16 to 64 */
	struct run *run = replay("{'kind':'alloc','address':16,'len':100,'scope':'a'}\n"
				 "{'kind':'remap','old_address':16,'address':64,'old_len':100,'len':200}\n"
				 "{'kind':'free','address':16}\n{'kind':'free','address':64}\n");
	const struct trace_totals *t = &run->a.totals;
	assert_int_equal(t->remaps, 1);
	assert_int_equal(t->resizes, 0);
	assert_int_equal(t->unmatched_frees, 1);
	assert_int_equal(t->c.frees, 2);
	/* the matched free frees 200, the unmatched one its own len (0) */
	assert_int_equal(t->c.freed_bytes, 200);
	assert_int_equal(t->c.live_bytes, 0);
	assert_int_equal(t->c.completed_lifetimes, 1);
	done(run);

	/* by allocation id: the key does not change, the length does */
	run = replay("{'kind':'alloc','allocation_id':5,'address':16,'len':100}\n"
		     "{'kind':'remap','allocation_id':5,'old_address':16,'address':64,'len':40}\n"
		     "{'kind':'remap','allocation_id':6,'len':40}\n"
		     "{'kind':'remap','old_address':1000,'address':2000,'len':40}\n"
		     "{'kind':'remap','allocation_id':5,'len':1,'succeeded':false}\n"
		     "{'kind':'remap','allocation_id':5,'len':1,'succeeded':false,'tracked':false}\n");
	t = &run->a.totals;
	assert_int_equal(t->remaps, 3);
	assert_int_equal(t->c.live_bytes, 40);
	assert_int_equal(t->c.freed_bytes, 60);
	assert_int_equal(t->unmatched_remaps, 3);
	assert_int_equal(t->failed_remaps, 2);
	done(run);
}

static void test_lost_tracking(void **state)
{
	(void)state;
	/* an untracked remap of a known allocation: counted as a resize to
	 * its new length, then out of the live set as an untracked request */
	struct run *run = replay("{'kind':'alloc','allocation_id':5,'len':100,'scope':'a','return_address':7}\n"
				 "{'kind':'remap','allocation_id':5,'len':250,'tracked':false}\n"
				 "{'kind':'remap','allocation_id':5,'len':250,'tracked':false}\n"
				 "{'kind':'remap','address':16,'len':250,'tracked':false}\n"
				 "{'kind':'free','allocation_id':5}\n");
	const struct trace_totals *t = &run->a.totals;
	assert_int_equal(t->resizes, 1);
	assert_int_equal(t->remaps, 0);
	assert_int_equal(t->c.allocated_bytes, 250);
	assert_int_equal(t->c.live_bytes, 0);
	assert_int_equal(t->c.live_allocations, 0);
	assert_int_equal(t->c.high_water_live_bytes, 250);
	assert_int_equal(t->c.retained_bytes, 250);
	assert_int_equal(t->c.untracked_requests, 1);
	assert_int_equal(t->c.untracked_request_bytes, 250);
	assert_int_equal(t->c.completed_lifetimes, 0);
	/* the second lost remap and the one without id find nothing */
	assert_int_equal(t->unmatched_remaps, 2);
	assert_int_equal(t->unmatched_frees, 1);
	assert_int_equal(scope(run, "a")->untracked_request_bytes, 250);
	assert_int_equal(site(run, 7)->untracked_requests, 1);
	assert_int_equal(site(run, 7)->live_bytes, 0);
	done(run);
}

/* ---------------------------------------------------------- failures */

static void test_failed_and_unmatched(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','address':16,'len':100,'succeeded':false,'scope':'f'}\n"
				 "{'kind':'alloc','address':32,'len':30,'tracked':false,'scope':'u','return_address':9}\n"
				 "{'kind':'alloc','address':48,'len':10,'scope':'a'}\n"
				 "{'kind':'free','address':777,'len':25,'scope':'a'}\n"
				 "{'kind':'free','address':48,'tracked':false}\n");
	const struct trace_totals *t = &run->a.totals;
	assert_int_equal(t->failed_allocations, 1);
	/* a failed allocation leaves no scope behind */
	assert_int_equal(trace_scopes_find(&run->a.scopes, "f", 1), -1);
	/* an untracked allocation is traffic, never live */
	assert_int_equal(t->c.allocations, 2);
	assert_int_equal(t->c.allocated_bytes, 40);
	assert_int_equal(t->c.untracked_requests, 1);
	assert_int_equal(t->c.untracked_request_bytes, 30);
	assert_int_equal(scope(run, "u")->live_bytes, 0);
	assert_int_equal(site(run, 9)->untracked_request_bytes, 30);
	/* the unmatched free still frees its 25 bytes from its scope, floored */
	assert_int_equal(t->unmatched_frees, 2);
	assert_int_equal(t->c.frees, 1);
	assert_int_equal(t->c.freed_bytes, 25);
	assert_int_equal(t->c.live_bytes, 0);
	assert_int_equal(t->c.live_allocations, 0);
	assert_int_equal(scope(run, "a")->live_bytes, 0);
	/* retained drops only when at least the freed bytes are retained */
	assert_int_equal(t->c.retained_bytes, 10);
	done(run);
}

static void test_duplicate_key_replaces(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','address':16,'len':100}\n{'kind':'alloc','address':16,'len':30}\n"
				 "{'kind':'free','address':16}\n{'kind':'free','address':16}\n");
	const struct trace_totals *t = &run->a.totals;
	assert_int_equal(t->c.allocations, 2);
	assert_int_equal(t->c.freed_bytes, 30);
	assert_int_equal(t->c.live_allocations, 0);
	assert_int_equal(t->c.live_bytes, 100);
	assert_int_equal(t->unmatched_frees, 1);
	done(run);
}

/* ---------------------------------------------------------- totals only */

/* The file's bytes under RAMWATCH_TEST_DATA, or NULL when absent. */
static char *read_data(const char *name, size_t *ret_len)
{
	const char *dir = getenv("RAMWATCH_TEST_DATA");
	char path[4096];
	FILE *f;
	char *buf = NULL;
	size_t cap = 0, len = 0, k;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			assert_non_null(buf = realloc(buf, cap));
		}
		k = fread(buf + len, 1, cap - len, f);
		len += k;
	} while (k > 0);
	fclose(f);
	*ret_len = len;
	return buf;
}

/* trace record's closing line replays with totals_only: the totals, the
 * events, the verdict and any refusal are those of the whole replay, on
 * every trace of tests/data, at every layer. */
static void test_totals_only_keeps_the_totals(void **state)
{
	(void)state;
	static const char *const names[] = {
		"trace/tracer-mix.bin",	    "trace/gen-mix.jsonl",	"trace/layers.jsonl",
		"trace/phases.jsonl",	    "trace/stacks.jsonl",	"trace/escapes.jsonl",
		"trace/bad-kind.jsonl",	    "trace/undefined-scope.jsonl", "fuzz/trace-binary/realloc",
		"fuzz/trace-binary/threads",
	};
	size_t files = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len;
		char *buf = read_data(names[i], &len);
		if (!buf)
			continue;
		files++;
		for (int layer = 0; layer < _TRACE_LAYER_MAX; layer++) {
			struct trace_replay_options o = { .layer = (enum trace_layer)layer };
			struct trace_analyzer a[2];
			struct trace_replay_error err[2];
			struct trace_integrity v[2];
			int r[2];

			for (int k = 0; k < 2; k++) {
				struct trace_parser p;
				o.totals_only = k == 1;
				trace_analyzer_init(&a[k], &o);
				trace_parser_init(&p);
				r[k] = trace_replay_buffer(&a[k], &p, buf, len, &err[k]);
				trace_parser_done(&p);
				trace_integrity_of(&a[k], &v[k]);
			}
			assert_int_equal(r[0], r[1]);
			assert_int_equal(err[0].line, err[1].line);
			assert_string_equal(err[0].error.message, err[1].error.message);
			assert_int_equal(a[0].events, a[1].events);
			assert_string_equal(v[0].status, v[1].status);
			assert_int_equal(v[0].unbalanced_event_count, v[1].unbalanced_event_count);
			assert_int_equal(v[0].missing_sequence_event_count, v[1].missing_sequence_event_count);
			/* the lifetimes are the whole replay's only */
			struct trace_totals t0 = a[0].totals, t1 = a[1].totals;
			t0.c.completed_lifetimes = t0.c.lifetime_total_events = t0.c.lifetime_max_events = 0;
			t0.c.lifetime_total_byte_events = t0.c.lifetime_max_byte_events = 0;
			assert_memory_equal(&t0, &t1, sizeof(t0));
			assert_memory_equal(&a[0].physical, &a[1].physical, sizeof(a[0].physical));
			trace_analyzer_done(&a[0]);
			trace_analyzer_done(&a[1]);
		}
		free(buf);
	}
	if (files == 0)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integrity_statuses),
		cmocka_unit_test(test_counts_and_objects),
		cmocka_unit_test(test_objects_past_the_limit),
		cmocka_unit_test(test_integrity_counts),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_remap),
		cmocka_unit_test(test_lost_tracking),
		cmocka_unit_test(test_failed_and_unmatched),
		cmocka_unit_test(test_duplicate_key_replaces),
		cmocka_unit_test(test_totals_only_keeps_the_totals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
