/* The replay's rules, event by event (scopes, time, layers): scope ids
 * and their conflicts, lifetimes and byte-events, saturation, layers and
 * lifecycle coverage, sites and site detail, the physical counters.  Vectors are written from
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

#include "trace-testlib.h"

/* ---------------------------------------------------------- scopes */

static void test_scope_ids(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'scope.enter','scope_id':4,'scope':'root/load'}\n"
				 "{'kind':'alloc','address':16,'len':10,'scope_id':4}\n"
				 "{'kind':'alloc','address':32,'len':20}\n"
				 "{'kind':'alloc','address':48,'len':30,'scope':'root/named','scope_id':4}\n"
				 "{'kind':'scope.enter','scope_id':4,'scope':'root/load'}\n"
				 "{'kind':'scope.exit','scope_id':4}\n{'kind':'scope.exit','scope_id':4}\n"
				 "{'kind':'scope.exit','scope_id':4}\n");
	assert_int_equal(scope(run, "root/load")->live_bytes, 10);
	assert_int_equal(scope(run, "root")->live_bytes, 20);
	assert_int_equal(scope(run, "root/named")->live_bytes, 30);
	assert_int_equal(run->a.sequence.unmatched_scope_exits, 1);
	assert_int_equal(run->a.sequence.active_scope_events, 0);
	assert_int_equal(trace_analyzer_unbalanced(&run->a), 1);
	done(run);

	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	run = replay_with("{'kind':'alloc','address':16,'len':10}\n{'kind':'alloc','scope_id':9}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	assert_int_equal(run->err.line, 2);
	assert_string_equal(run->err.error.message, "scope_id 9 is used before a scope.enter gives it a path");
	done(run);

	/* even a scope.exit or an event of another layer needs it defined */
	run = replay_with("{'kind':'scope.exit','scope_id':3}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	done(run);
	run = replay_with("{'kind':'alloc','layer':'physical_page','scope_id':3}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	done(run);

	run = replay_with("{'kind':'scope.enter','scope_id':2,'scope':'a'}\n{'kind':'scope.enter','scope_id':2,'scope':'b'}\n",
			  &o);
	assert_int_equal(run->r, -EINVAL);
	assert_int_equal(run->err.line, 2);
	assert_string_equal(run->err.error.message, "scope_id 2 is redefined as \"b\" (it was \"a\")");
	done(run);

	/* scope_id 0 without a path is root, so binding 0 elsewhere conflicts
	 * with a later enter of 0 alone */
	run = replay_with("{'kind':'scope.enter','scope_id':0,'scope':'x'}\n{'kind':'scope.enter','scope_id':0}\n", &o);
	assert_int_equal(run->r, -EINVAL);
	assert_int_equal(run->err.line, 2);
	done(run);

	/* a scope only entered exists with zero counters */
	run = replay("{'kind':'scope.enter','scope_id':1,'scope':'idle'}\n");
	assert_int_equal(scope(run, "idle")->allocations, 0);
	assert_int_equal(run->a.sequence.active_scope_events, 1);
	done(run);
}

/* ---------------------------------------------------------- lifetimes */

static void test_lifetimes(void **state)
{
	(void)state;
	/* alloc at event 1 (100 bytes), resized at 3 to 300, freed at 6:
	 * 5 events; 100 x 2 + 300 x 3 = 1100 byte-events */
	struct run *run = replay("{'kind':'alloc','address':16,'len':100,'scope':'a','return_address':7}\n"
				 "{'kind':'census'}\n"
				 "{'kind':'resize','address':16,'len':300}\n"
				 "{'kind':'census'}\n{'kind':'census'}\n"
				 "{'kind':'free','address':16}\n"
				 "{'kind':'alloc','address':32,'len':10,'scope':'a'}\n"
				 "{'kind':'release','address':32}\n");
	const struct trace_counters *t = &run->a.totals.c;
	assert_int_equal(t->completed_lifetimes, 2);
	assert_int_equal(t->lifetime_total_events, 5 + 1);
	assert_int_equal(t->lifetime_max_events, 5);
	assert_int_equal(t->lifetime_total_byte_events, 1100 + 10);
	assert_int_equal(t->lifetime_max_byte_events, 1100);
	assert_int_equal(trace_counters_mean_events(t), 3);
	assert_int_equal(trace_counters_mean_byte_events(t), 555);
	assert_int_equal(scope(run, "a")->lifetime_total_byte_events, 1110);
	assert_int_equal(site(run, 7)->lifetime_total_byte_events, 1100);
	done(run);

	/* a remap accrues byte-events per segment too; live ones count none */
	run = replay("{'kind':'alloc','address':16,'len':10}\n"
		     "{'kind':'remap','old_address':16,'address':32,'len':20}\n"
		     "{'kind':'free','address':32}\n{'kind':'alloc','address':48,'len':99}\n");
	assert_int_equal(run->a.totals.c.lifetime_total_events, 2);
	assert_int_equal(run->a.totals.c.lifetime_total_byte_events, 10 + 20);
	assert_int_equal(run->a.totals.c.completed_lifetimes, 1);
	done(run);
}

static void test_saturation(void **state)
{
	(void)state;
	struct run *run = replay("{'kind':'alloc','address':16,'len':18446744073709551615}\n"
				 "{'kind':'alloc','address':32,'len':18446744073709551615}\n"
				 "{'kind':'census'}\n{'kind':'free','address':16}\n");
	const struct trace_counters *t = &run->a.totals.c;
	assert_true(t->allocated_bytes == UINT64_MAX);
	assert_true(t->high_water_live_bytes == UINT64_MAX);
	assert_true(t->lifetime_total_byte_events == UINT64_MAX);
	assert_int_equal(t->lifetime_total_events, 3);
	done(run);
}

/* ---------------------------------------------------------- layers */

static void test_layers(void **state)
{
	(void)state;
	static const char trace[] =
		"{'kind':'alloc','address':16,'len':100}\n"
		"{'kind':'alloc','address':16,'len':7,'layer':'logical_allocator'}\n"
		"{'kind':'map','address':4096,'len':8192,'layer':'physical_page'}\n"
		"{'kind':'scope.enter','scope_id':1,'scope':'s','layer':'physical_page'}\n";
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	struct run *run = replay_with(trace, &o);
	assert_int_equal(run->a.events, 4);
	assert_int_equal(run->a.totals.c.allocated_bytes, 100);
	assert_int_equal(run->a.physical.maps, 0);
	/* scope events count whatever their layer */
	assert_int_equal(run->a.sequence.active_scope_events, 1);
	done(run);

	o.layer = TRACE_LAYER_LOGICAL;
	run = replay_with(trace, &o);
	assert_int_equal(run->a.totals.c.allocated_bytes, 7);
	assert_int_equal(run->a.events, 4);
	done(run);

	o.layer = TRACE_LAYER_PHYSICAL;
	run = replay_with(trace, &o);
	assert_int_equal(run->a.totals.c.allocations, 0);
	assert_int_equal(run->a.physical.maps, 1);
	assert_int_equal(run->a.physical.live_mapped_bytes, 8192);
	done(run);
}

static void test_logical_retention_and_coverage(void **state)
{
	(void)state;
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
	/* a declared logical allocator's requests retain nothing; one never
	 * declared is taken as a backing allocator and does */
	struct run *run = replay_with(
		"{'kind':'allocator','allocator_id':1,'layer':'logical_allocator','retains_freed_memory':true,"
		"'lifecycle_instrumented':true}\n"
		"{'kind':'allocator','allocator_id':2,'layer':'logical_allocator','retains_freed_memory':true,"
		"'observation_prefix_complete':false}\n"
		"{'kind':'allocator','allocator_id':3,'layer':'logical_allocator'}\n"
		"{'kind':'allocator','allocator_id':4,'retains_freed_memory':true}\n"
		"{'kind':'alloc','allocator_id':1,'address':16,'len':100,'layer':'logical_allocator'}\n"
		"{'kind':'alloc','allocator_id':9,'address':32,'len':50,'layer':'logical_allocator'}\n",
		&o);
	assert_int_equal(run->r, 0);
	assert_int_equal(run->a.totals.c.retained_bytes, 50);
	assert_int_equal(run->a.totals.c.live_bytes, 150);
	struct trace_coverage c;
	trace_analyzer_coverage(&run->a, &c);
	assert_int_equal(c.instrumented, 1);
	assert_int_equal(c.uninstrumented, 1);
	assert_int_equal(c.not_required, 1);
	assert_int_equal(c.prefix_complete, 2);
	assert_int_equal(c.prefix_partial, 1);
	assert_string_equal(trace_coverage_status(&c), "partial");
	done(run);

	/* a lifecycle event completes the prefix of its allocator */
	run = replay_with("{'kind':'allocator','allocator_id':2,'layer':'logical_allocator','retains_freed_memory':true,"
			  "'lifecycle_instrumented':true,'observation_prefix_complete':false}\n"
			  "{'kind':'lifecycle','allocator_id':2,'layer':'logical_allocator'}\n"
			  "{'kind':'lifecycle','allocator_id':8,'layer':'logical_allocator'}\n",
			  &o);
	trace_analyzer_coverage(&run->a, &c);
	assert_int_equal(run->a.totals.lifecycle_events, 2);
	assert_int_equal(c.prefix_partial, 0);
	assert_string_equal(trace_coverage_status(&c), "complete");
	done(run);

	run = replay_with("{'kind':'alloc','layer':'logical_allocator','len':1}\n", &o);
	trace_analyzer_coverage(&run->a, &c);
	assert_string_equal(trace_coverage_status(&c), "none");
	done(run);
}

/* ---------------------------------------------------------- sites */

static void test_sites_only_when_asked(void **state)
{
	(void)state;
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	struct run *run = replay_with("{'kind':'alloc','address':16,'len':100,'return_address':7}\n", &o);
	assert_int_equal(run->a.sites.count, 0);
	done(run);
}

static void test_site_growth_always_retained(void **state)
{
	(void)state;
	/* a site's retained bytes grow with a resize even for a logical
	 * allocator (as the reference's applySiteResize does) */
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL, .track_sites = true };
	struct run *run = replay_with(
		"{'kind':'allocator','allocator_id':1,'layer':'logical_allocator'}\n"
		"{'kind':'alloc','allocator_id':1,'address':16,'len':100,'return_address':7,'layer':'logical_allocator'}\n"
		"{'kind':'resize','allocator_id':1,'address':16,'len':160,'layer':'logical_allocator'}\n",
		&o);
	assert_int_equal(run->r, 0);
	assert_int_equal(site(run, 7)->retained_bytes, 60);
	assert_int_equal(run->a.totals.c.retained_bytes, 0);
	done(run);
}

static void test_site_detail(void **state)
{
	(void)state;
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING, .has_site_detail = true, .site_detail = 7 };
	struct run *run = replay_with("{'kind':'alloc','address':16,'len':100,'return_address':7,'scope':'a'}\n"
				      "{'kind':'alloc','address':32,'len':100,'return_address':7,'scope':'b'}\n"
				      "{'kind':'alloc','address':48,'len':55,'return_address':8,'scope':'a'}\n"
				      "{'kind':'resize','address':32,'len':64}\n"
				      "{'kind':'free','address':16}\n",
				      &o);
	assert_int_equal(run->r, 0);
	/* sites themselves are not tracked without --sites */
	assert_int_equal(run->a.sites.count, 0);
	assert_int_equal(run->a.detail_sizes.count, 2);
	const struct trace_bucket *b100 = hashtab_get(&run->a.detail_sizes, 100);
	const struct trace_bucket *b64 = hashtab_get(&run->a.detail_sizes, 64);
	assert_non_null(b100);
	assert_non_null(b64);
	/* the resize moved one allocation from size 100 to size 64 */
	assert_int_equal(b100->counters.allocations, 2);
	assert_int_equal(b100->counters.frees, 2);
	assert_int_equal(b100->counters.live_bytes, 0);
	assert_int_equal(b100->counters.completed_lifetimes, 1);
	assert_int_equal(b64->counters.allocations, 1);
	assert_int_equal(b64->counters.live_bytes, 64);
	int64_t b = trace_scopes_find(&run->a.scopes, "b", 1);
	const struct trace_bucket *sb = hashtab_get(&run->a.detail_scopes, (uint64_t)b);
	assert_non_null(sb);
	assert_int_equal(sb->counters.allocations, 2);
	assert_int_equal(sb->counters.frees, 1);
	assert_int_equal(sb->counters.live_bytes, 64);
	assert_int_equal(run->a.detail_scopes.count, 2);
	done(run);
}

/* ---------------------------------------------------------- physical */

static void test_physical(void **state)
{
	(void)state;
	struct trace_replay_options o = { .layer = TRACE_LAYER_PHYSICAL };
	struct run *run = replay_with("{'kind':'map','address':4096,'len':16384,'layer':'physical_page'}\n"
				      "{'kind':'map','address':8192,'len':4096,'layer':'physical_page'}\n"
				      "{'kind':'unmap','address':16384,'len':8192,'layer':'physical_page'}\n"
				      "{'kind':'unmap','address':0,'len':4096,'layer':'physical_page'}\n"
				      "{'kind':'map','len':1,'succeeded':false,'layer':'physical_page'}\n"
				      "{'kind':'unmap','len':1,'succeeded':false,'layer':'physical_page'}\n"
				      "{'kind':'protect','layer':'physical_page'}\n"
				      "{'kind':'discard','layer':'physical_page','succeeded':false}\n"
				      "{'kind':'decommit','layer':'physical_page'}\n"
				      "{'kind':'advise','layer':'physical_page'}\n"
				      "{'kind':'advise','layer':'physical_page','succeeded':false}\n",
				      &o);
	const struct trace_physical *p = &run->a.physical;
	assert_int_equal(run->r, 0);
	assert_int_equal(p->maps, 2);
	assert_int_equal(p->mapped_bytes, 16384 + 4096);
	assert_int_equal(p->displaced_bytes, 4096);
	assert_int_equal(p->unmaps, 2);
	assert_int_equal(p->unmapped_bytes, 8192 + 4096);
	/* 16384..20479 was mapped, 20480..24575 and 0..4095 were not */
	assert_int_equal(p->untracked_unmap_bytes, 4096 + 4096);
	assert_int_equal(p->live_mapped_bytes, 12288);
	assert_int_equal(p->high_water_mapped_bytes, 16384);
	/* the second map split the first in three pieces; ranges never merge */
	assert_int_equal(trace_ledger_count(&run->a.ledger), 3);
	assert_int_equal(p->failed_maps, 1);
	assert_int_equal(p->failed_unmaps, 1);
	assert_int_equal(p->protects, 1);
	assert_int_equal(p->failed_discards, 1);
	assert_int_equal(p->decommits, 1);
	assert_int_equal(p->advises, 1);
	assert_int_equal(p->failed_advises, 1);
	done(run);

	run = replay_with("{'kind':'census'}\n"
			  "{'kind':'map','address':18446744073709547520,'len':8192,'layer':'physical_page'}\n",
			  &o);
	assert_int_equal(run->r, -EINVAL);
	assert_int_equal(run->err.line, 2);
	assert_string_equal(run->err.error.message,
			    "map of 8192 bytes at 0xfffffffffffff000 runs past the end of the address space");
	done(run);

	/* the last page of the address space can be mapped */
	run = replay_with("{'kind':'map','address':18446744073709547520,'len':4096,'layer':'physical_page'}\n", &o);
	assert_int_equal(run->r, 0);
	assert_int_equal(run->a.physical.live_mapped_bytes, 4096);
	done(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scope_ids),
		cmocka_unit_test(test_lifetimes),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_layers),
		cmocka_unit_test(test_logical_retention_and_coverage),
		cmocka_unit_test(test_sites_only_when_asked),
		cmocka_unit_test(test_site_growth_always_retained),
		cmocka_unit_test(test_site_detail),
		cmocka_unit_test(test_physical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
