/* OOM kills put together from their sources: the watch and the log of one
 * kill made one record with both's figures, given as soon as every active
 * source told it; a source that never comes waited for one grace period;
 * a victim marked without a kill dropped; a burst past the pending limit
 * given whole; kills no source told found by the counter, those waiting
 * not counted as missed, and a counter that goes back starting again. */
#include "testlib.h"

#include <errno.h>

#include "oom-kills.h"
#include "oom-watch-event.h"

#define PAGE 4096ull

static struct oom_watch_event watch_event(int pid, bool killed)
{
	struct oom_watch_event e = {
		.kind = OOM_WATCH_VICTIM,
		.pid = (uint32_t)pid,
		.uid = 1000,
		.killed = killed,
		.memcg_id = 4242,
		.limit_id = 4200,
		.limit_usage = 51200 / 4,
		.limit_max = 51200 / 4,
		.levels = 3,
	};
	memcpy(e.comm, "python3", 8);
	return e;
}

static struct oom_kmsg_kill kmsg_kill(int pid)
{
	struct oom_kmsg_kill k = {
		.pid = pid,
		.memcg = true,
		.total_vm_kb = 62264,
		.anon_rss_kb = 50944,
		.file_rss_kb = 5452,
		.have_uid = true,
		.uid = 1000,
		.have_pgtables = true,
		.pgtables_kb = 160,
		.have_oom_score_adj = true,
		.constraint = OOM_CONSTRAINT_MEMCG,
		.have_oom_memcg = true,
		.have_task_memcg = true,
		.have_usage = true,
		.usage_kb = 51200,
		.limit_kb = 51200,
	};
	snprintf(k.comm, sizeof(k.comm), "python3");
	snprintf(k.oom_memcg, sizeof(k.oom_memcg), "/limited");
	snprintf(k.task_memcg, sizeof(k.task_memcg), "/limited/job");
	return k;
}

static void test_both_sources(void **state)
{
	(void)state;
	struct oom_kills *k;
	struct oom_kill out[4];

	assert_int_equal(oom_kills_new(&k), 0);
	struct oom_watch_event w = watch_event(77, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 1000, PAGE), 0);
	/* the log has not told it yet: it waits */
	assert_int_equal(oom_kills_take(k, 1100, true, true, out, 4), 0);
	struct oom_kmsg_kill m = kmsg_kill(77);
	assert_int_equal(oom_kills_add_kmsg(k, &m, 1003), 0);
	assert_int_equal(oom_kills_take(k, 1100, true, true, out, 4), 1);
	const struct oom_kill *o = &out[0];
	assert_int_equal(o->time_ms, 1000);
	assert_int_equal(o->sources, OOM_SOURCE_WATCH | OOM_SOURCE_KMSG);
	assert_int_equal(o->pid, 77);
	assert_string_equal(o->comm, "python3");
	assert_int_equal(o->uid, 1000);
	assert_int_equal(o->constraint, OOM_CONSTRAINT_MEMCG);
	assert_int_equal(o->cgroup_id, 4242);
	assert_int_equal(o->limit_cgroup_id, 4200);
	assert_string_equal(o->cgroup, "/limited/job");
	assert_string_equal(o->limit_cgroup, "/limited");
	assert_true(o->have_limit);
	assert_int_equal(o->limit, 51200 * 1024ull);
	assert_true(o->have_kernel);
	assert_int_equal(o->anon_rss, 50944 * 1024ull);
	assert_int_equal(o->pgtables, 160 * 1024);
	/* given once */
	assert_int_equal(oom_kills_take(k, 9999, true, true, out, 4), 0);

	/* the log first, then the watch: the same */
	m = kmsg_kill(78);
	assert_int_equal(oom_kills_add_kmsg(k, &m, 2000), 0);
	w = watch_event(78, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 1999, PAGE), 0);
	assert_int_equal(oom_kills_take(k, 2000, true, true, out, 4), 1);
	assert_int_equal(out[0].time_ms, 1999);
	assert_int_equal(out[0].sources, OOM_SOURCE_WATCH | OOM_SOURCE_KMSG);

	/* the same pid much later is another kill */
	w = watch_event(78, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 2000 + OOM_KILLS_PAIR_MS + 1, PAGE), 0);
	m = kmsg_kill(78);
	assert_int_equal(oom_kills_add_kmsg(k, &m, 2000), 0);
	assert_int_equal(oom_kills_take(k, 2000 + OOM_KILLS_PAIR_MS + 1 + OOM_KILLS_GRACE_MS, true, true, out, 4), 2);
	oom_kills_free(k);
}

static void test_one_source(void **state)
{
	(void)state;
	struct oom_kills *k;
	struct oom_kill out[4];

	assert_int_equal(oom_kills_new(&k), 0);
	/* only the log is active: given at once, ids unknown */
	struct oom_kmsg_kill m = kmsg_kill(5);
	assert_int_equal(oom_kills_add_kmsg(k, &m, 10), 0);
	assert_int_equal(oom_kills_take(k, 10, false, true, out, 4), 1);
	assert_int_equal(out[0].sources, OOM_SOURCE_KMSG);
	assert_int_equal(out[0].cgroup_id, 0);

	/* both active, the log's line lost: given after the grace, with the
	 * watch's figures and no kernel figures */
	struct oom_watch_event w = watch_event(6, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 100, PAGE), 0);
	assert_int_equal(oom_kills_take(k, 100 + OOM_KILLS_GRACE_MS - 1, true, true, out, 4), 0);
	assert_int_equal(oom_kills_take(k, 100 + OOM_KILLS_GRACE_MS, true, true, out, 4), 1);
	assert_int_equal(out[0].sources, OOM_SOURCE_WATCH);
	assert_false(out[0].have_kernel);
	assert_true(out[0].have_limit);
	assert_int_equal(out[0].usage, 51200 * 1024ull);
	assert_int_equal(out[0].constraint, OOM_CONSTRAINT_UNKNOWN);

	/* marked, not killed (already exiting): nothing, unless the log
	 * says it was killed */
	w = watch_event(7, false);
	assert_int_equal(oom_kills_add_watch(k, &w, 200, PAGE), 0);
	assert_int_equal(oom_kills_take(k, 200 + OOM_KILLS_GRACE_MS, true, true, out, 4), 0);
	w = watch_event(8, false);
	assert_int_equal(oom_kills_add_watch(k, &w, 300, PAGE), 0);
	m = kmsg_kill(8);
	assert_int_equal(oom_kills_add_kmsg(k, &m, 301), 0);
	assert_int_equal(oom_kills_take(k, 301, true, true, out, 4), 1);
	assert_int_equal(out[0].pid, 8);

	/* no limit up the tree: the machine ran out, no limit told */
	w = watch_event(9, true);
	w.limit_max = ~0ull / PAGE;
	assert_int_equal(oom_kills_add_watch(k, &w, 400, PAGE), 0);
	assert_int_equal(oom_kills_take(k, 400, true, false, out, 4), 1);
	assert_false(out[0].have_limit);
	oom_kills_free(k);
}

static void test_burst(void **state)
{
	(void)state;
	struct oom_kills *k;
	static struct oom_kill out[OOM_KILLS_PENDING_MAX + 8];

	assert_int_equal(oom_kills_new(&k), 0);
	int added = 0, given = 0;
	for (int pid = 1; pid <= OOM_KILLS_PENDING_MAX + 5; pid++) {
		struct oom_watch_event w = watch_event(pid, true);
		int r = oom_kills_add_watch(k, &w, 1000, PAGE);
		if (r == -ENOBUFS) {
			/* full: all are given, then there is room */
			size_t n = oom_kills_take(k, 1000, true, true, out, ELEMENTSOF(out));
			assert_int_equal(n, OOM_KILLS_PENDING_MAX);
			given += (int)n;
			r = oom_kills_add_watch(k, &w, 1000, PAGE);
		}
		assert_int_equal(r, 0);
		added++;
	}
	given += (int)oom_kills_take(k, 1000 + OOM_KILLS_GRACE_MS, true, true, out, ELEMENTSOF(out));
	assert_int_equal(given, added);
	oom_kills_free(k);
}

static void test_counter(void **state)
{
	(void)state;
	struct oom_kills *k;
	struct oom_kill out[8];

	assert_int_equal(oom_kills_new(&k), 0);
	/* a kill waiting when counting starts is in the first count */
	struct oom_watch_event w = watch_event(1, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 0, PAGE), 0);
	assert_int_equal(oom_kills_count(k, 10, 0, out, 8), 0);
	assert_int_equal(oom_kills_take(k, OOM_KILLS_GRACE_MS, true, true, out, 8), 1);
	assert_int_equal(oom_kills_count(k, 10, OOM_KILLS_GRACE_MS, out, 8), 0);

	/* two told, three counted: one missed */
	for (int pid = 2; pid <= 3; pid++) {
		struct oom_kmsg_kill m = kmsg_kill(pid);
		assert_int_equal(oom_kills_add_kmsg(k, &m, 5000), 0);
	}
	assert_int_equal(oom_kills_take(k, 5000, false, true, out, 8), 2);
	assert_int_equal(oom_kills_count(k, 13, 6000, out, 8), 1);
	assert_int_equal(out[0].sources, OOM_SOURCE_COUNTER);
	assert_int_equal(out[0].pid, 0);
	assert_int_equal(out[0].time_ms, 6000);
	assert_int_equal(oom_kills_count(k, 13, 7000, out, 8), 0);

	/* one waiting for its other source is not missed */
	w = watch_event(4, true);
	assert_int_equal(oom_kills_add_watch(k, &w, 8000, PAGE), 0);
	assert_int_equal(oom_kills_count(k, 14, 8000, out, 8), 0);

	/* more missed than out holds: the rest on the next call */
	assert_int_equal(oom_kills_count(k, 24, 9000, out, 8), 8);
	assert_int_equal(oom_kills_count(k, 24, 9000, out, 8), 2);

	/* a counter that went back starts counting again */
	assert_int_equal(oom_kills_count(k, 3, 10000, out, 8), 0);
	assert_int_equal(oom_kills_count(k, 3, 10001, out, 8), 0);
	oom_kills_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_sources),
		cmocka_unit_test(test_one_source),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_counter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
