/* The report answer read from a real store: the peaks, growth, marks and
 * classes of a process over its life, and for each class whose allocator
 * a census read whether its growth is held by the program or kept by the
 * allocator. */
#include "test-store-read-lib.h"

#include <pthread.h>
#include <pwd.h>
#include <time.h>

#include "census-json.h"
#include "limits.h"
#include "store-migrations.h"
#include "store-read-internal.h"
#include "util.h"

/* Gives class k of c these figures (the rest of its private bytes
 * overhead), as a heap walk would. */
static void heap_of(struct census *c, enum class_id k, uint64_t private, uint64_t in_use, uint64_t free_kept,
		    uint64_t returnable)
{
	c->classes[k].private = private;
	assert_true(in_use + free_kept <= private);
	assert_int_equal(census_set_heap(c, k, in_use, free_kept, private - in_use - free_kept, 0, returnable,
					 k == CLASS_MALLOC ? "glibc 2.36: 1 arena" : "JVM (hsperfdata): G1"),
			 0);
}

/* The report's in_use_or_kept: malloc's memory in use rises at every
 * census that reads it (held, a slow rise, the censuses that show it cut
 * at RW_REPORT_HEAP_CENSUSES), the JVM heap grows once by memory it keeps
 * committed and unused (kept, with its returnable part), an interval
 * census between them read no allocator ("-" in the trend, no step), and
 * a class no census read the allocator of has no entry. */
static void test_report_in_use_or_kept(void **state)
{
	struct tmp *t = *state;
	struct store_reader *r = reader_of(t);
	struct store_select sel = by_pid(4242, -1);
	struct error err;
	json_t *o = NULL;
	const unsigned n = RW_REPORT_HEAP_CENSUSES + 3;
	int64_t ids[RW_REPORT_HEAP_CENSUSES + 3], unread = 0;

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
						     .last_seen = H0 + DAY, .exited_at = -1 });
	for (unsigned i = 0; i < n; i++) {
		struct census *c = java_census();
		heap_of(c, CLASS_MALLOC, 100 * MiB + i * 4 * MiB, 60 * MiB + i * 4 * MiB, 30 * MiB, 8 * MiB);
		bool grown = i >= n / 2;
		heap_of(c, CLASS_RUNTIME_HEAP, grown ? 400 * MiB : 300 * MiB, 200 * MiB, grown ? 190 * MiB : 90 * MiB,
			grown ? 150 * MiB : 50 * MiB);
		ids[i] = put_census(t, p, H0 + i * 15 * MINUTE, i ? TRIGGER_INTERVAL : TRIGGER_FIRST, CENSUS_OK, c);
		census_free(c);
		if (i == 2) {
			/* between two that read them, one that did not */
			c = java_census();
			unread = put_census(t, p, H0 + i * 15 * MINUTE + MINUTE, TRIGGER_INTERVAL, CENSUS_OK, c);
			census_free(c);
		}
	}
	commit(t);
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);

	/* the trend: in use and free of each census, null where it read none */
	const json_t *trend = jget(o, "trend"), *x;
	assert_int_equal(json_array_size(trend), n + 1);
	assert_int_equal(jint(jat(trend, 0), "in_use"), 60 * MiB + 200 * MiB);
	assert_int_equal(jint(jat(trend, 3), "census_id"), unread);
	assert_true(jnull(jat(trend, 3), "in_use"));
	assert_true(jnull(jat(trend, 3), "free"));

	const json_t *list = jget(o, "in_use_or_kept");
	assert_int_equal(json_array_size(list), 2); /* by class: malloc, runtime_heap */
	x = jat(list, 0);
	assert_string_equal(jstr(x, "class"), "malloc");
	assert_int_equal(jint(x, "censuses"), n);
	assert_string_equal(jstr(x, "growth"), "held");
	assert_int_equal(jint(jget(x, "first"), "census_id"), ids[0]);
	assert_int_equal(jint(jget(x, "last"), "census_id"), ids[n - 1]);
	assert_int_equal(jint(jget(x, "last"), "in_use"), 60 * MiB + (n - 1) * 4 * MiB);
	assert_string_equal(jstr(x, "how"), "glibc 2.36: 1 arena");
	/* every step after the first shows it: the last RW_REPORT_HEAP_CENSUSES */
	assert_int_equal(jint(x, "shown_by_count"), n - 1);
	const json_t *shown = jget(x, "shown_by");
	assert_int_equal(json_array_size(shown), RW_REPORT_HEAP_CENSUSES);
	assert_int_equal(jint(jat(shown, 0), "census_id"), ids[n - RW_REPORT_HEAP_CENSUSES]);
	assert_int_equal(jint(jat(shown, RW_REPORT_HEAP_CENSUSES - 1), "census_id"), ids[n - 1]);
	/* a slow rise: the last RW_HEAP_RISE_CENSUSES that read it */
	const json_t *rise = jget(x, "slow_rise");
	assert_true(json_is_true(jget(rise, "flagged")));
	assert_int_equal(jint(rise, "rises"), RW_HEAP_RISE_CENSUSES - 1);
	assert_int_equal(jint(jget(rise, "first"), "census_id"), ids[n - RW_HEAP_RISE_CENSUSES]);
	assert_int_equal(jint(rise, "change"), (RW_HEAP_RISE_CENSUSES - 1) * 4 * MiB);
	assert_int_equal(jint(rise, "span_ms"), (RW_HEAP_RISE_CENSUSES - 1) * 15 * MINUTE);
	assert_int_equal(jint(rise, "bytes_per_hour"), 16 * MiB);

	x = jat(list, 1);
	assert_string_equal(jstr(x, "class"), "runtime_heap");
	assert_string_equal(jstr(x, "growth"), "kept");
	assert_int_equal(jint(jget(x, "last"), "returnable"), 150 * MiB);
	assert_int_equal(jint(x, "shown_by_count"), 1);
	assert_int_equal(jint(jat(jget(x, "shown_by"), 0), "census_id"), ids[n / 2]);
	assert_true(jnull(x, "slow_rise"));
	json_decref(o);
}

/* ------------------------------------------------------------ opening */

/* Two ok censuses of one process: the second with more malloc, a file
 * gone and one new, and region events between them. */
static void test_report(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_reader *r;
	struct store_select sel = { .process_id = 0, .only_uid = -1 };
	json_t *o = NULL;
	const json_t *x, *phases, *since, *classes;
	struct error err;
	int64_t id, c1, c2, failed;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
					       .first_seen = H0, .last_seen = H0 + 10 * MINUTE, .exited_at = -1,
					       .peak_private = 2000, .peak_resident = 5000 });
	/* a row a minute; private_max peaks at 5 and 8 minutes */
	static const uint64_t maxes[] = { 100, 200, 300, 250, 900, 400, 500, 1000, 600, 700 };
	for (int i = 0; i < 10; i++)
		put_sample(t, id, H0 + (i + 1) * MINUTE, 10 * (uint64_t)i, maxes[i], 50 + (uint64_t)i, 1000 + (uint64_t)i);
	assert_int_equal(store_put_mark(t->s, id, H0 + 3 * MINUTE, "load", 1000), 0);
	assert_int_equal(store_put_mark(t->s, id, H0 + 6 * MINUTE + 30 * SECOND, "train", 1000), 0);
	c1 = put_census(t, id, H0 + 30 * SECOND, TRIGGER_FIRST, CENSUS_OK, c);
	failed = put_census(t, id, H0 + 4 * MINUTE, TRIGGER_GROWTH, CENSUS_DENIED, NULL);
	/* the second census: malloc +64 MiB, the first file gone, a new one */
	uint64_t malloc_before = c->classes[CLASS_MALLOC].private;
	assert_true(c->n_files >= 2);
	const char *gone = c->files[0].path;
	c->classes[CLASS_MALLOC].private += 64 * MiB;
	c->classes[CLASS_MALLOC].count = c->classes[CLASS_MALLOC].count ? c->classes[CLASS_MALLOC].count : 1;
	c->classes[CLASS_STACKS].private += 1 * MiB;
	c->files[0].path = "/data/model.bin";
	c->files[0].kind = FILE_DATA;
	c->files[0].size = 100 * MiB;
	c2 = put_census(t, id, H0 + 9 * MINUTE, TRIGGER_MARK, CENSUS_OK, c);
	struct region_event ev[] = {
		{ .kind = REGION_APPEARED, .start = 0x7f0000000000, .cls = CLASS_OTHER, .size = 64 * MiB },
		{ .kind = REGION_APPEARED, .start = 0x7f1000000000, .cls = CLASS_OTHER, .size = 64 * MiB },
		{ .kind = REGION_GREW, .start = 0x7f2000000000, .cls = CLASS_MALLOC, .size = 1 * MiB },
	};
	assert_int_equal(store_put_region_events(t->s, id, c2, H0 + 9 * MINUTE, ev, 3), 0);
	commit(t);
	r = reader_of(t);

	sel.process_id = id;
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	x = jget(o, "process");
	assert_int_equal(jint(x, "process_id"), id);
	assert_int_equal(jint(x, "private"), 59);
	assert_int_equal(jint(jget(x, "last_census"), "census_id"), c2);

	/* the peak over every row */
	x = jget(o, "peak");
	assert_int_equal(jint(x, "private"), 1000);
	assert_int_equal(jint(x, "time"), H0 + 8 * MINUTE);
	assert_int_equal(jint(x, "resident"), 2 * 1009);
	assert_int_equal(jint(x, "resident_time"), H0 + 10 * MINUTE);

	/* phases: (start) to the first mark, then each mark; the last ends at
	 * the last row */
	phases = jget(o, "phases");
	assert_int_equal(json_array_size(phases), 3);
	x = jat(phases, 0);
	assert_string_equal(jstr(x, "name"), "(start)");
	assert_int_equal(jint(x, "start"), H0);
	assert_int_equal(jint(x, "end"), H0 + 3 * MINUTE);
	assert_int_equal(jint(x, "peak_private"), 200);
	assert_int_equal(jint(x, "peak_time"), H0 + 2 * MINUTE);
	assert_int_equal(jint(x, "private_at_start"), 50);
	assert_int_equal(jint(x, "private_at_end"), 51);
	x = jat(phases, 1);
	assert_string_equal(jstr(x, "name"), "load");
	assert_int_equal(jint(x, "start"), H0 + 3 * MINUTE);
	assert_int_equal(jint(x, "end"), H0 + 6 * MINUTE + 30 * SECOND);
	assert_int_equal(jint(x, "peak_private"), 900);
	assert_int_equal(jint(x, "peak_time"), H0 + 5 * MINUTE);
	assert_int_equal(jint(x, "peak_resident"), 2 * 1005);
	assert_int_equal(jint(x, "private_at_start"), 52);
	assert_int_equal(jint(x, "private_at_end"), 55);
	x = jat(phases, 2);
	assert_string_equal(jstr(x, "name"), "train");
	assert_int_equal(jint(x, "end"), H0 + 10 * MINUTE);
	assert_int_equal(jint(x, "peak_private"), 1000);
	assert_int_equal(jint(x, "private_at_start"), 56);
	assert_int_equal(jint(x, "private_at_end"), 59);

	/* the last ok census in full; every census in the trend */
	x = jget(o, "last_census");
	assert_int_equal(jint(x, "census_id"), c2);
	assert_string_equal(jstr(x, "trigger"), "mark");
	assert_int_equal(jint(jget(x, "totals"), "private"), c->totals.private);
	x = jget(o, "trend");
	assert_int_equal(json_array_size(x), 3);
	assert_int_equal(jint(jat(x, 0), "census_id"), c1);
	assert_int_equal(jint(jat(x, 1), "census_id"), failed);
	assert_string_equal(jstr(jat(x, 1), "status"), "denied");
	assert_true(jnull(jat(x, 1), "private"));
	assert_int_equal(jint(jat(x, 2), "time"), H0 + 9 * MINUTE);
	assert_int_equal(jint(jat(x, 2), "resident"), c->totals.resident);

	/* since the ok census before: the failed one is skipped */
	since = jget(o, "since_previous");
	assert_int_equal(jint(since, "previous_census_id"), c1);
	assert_int_equal(jint(since, "previous_time"), H0 + 30 * SECOND);
	classes = jget(since, "classes");
	assert_string_equal(jstr(jat(classes, 0), "class"), "malloc");
	assert_int_equal(jint(jat(classes, 0), "private_before"), malloc_before);
	assert_int_equal(jint(jat(classes, 0), "private"), malloc_before + 64 * MiB);
	assert_int_equal(jint(jat(classes, 0), "change"), 64 * MiB);
	assert_string_equal(jstr(jat(classes, 1), "class"), "stacks");
	assert_int_equal(jint(jat(classes, 1), "change"), 1 * MiB);
	assert_int_equal(jint(jat(classes, 2), "change"), 0);
	x = jget(since, "new_files");
	assert_int_equal(json_array_size(x), 1);
	assert_string_equal(jstr(jat(x, 0), "path"), "/data/model.bin");
	assert_string_equal(jstr(jat(x, 0), "kind"), "data");
	assert_int_equal(jint(jat(x, 0), "size"), 100 * MiB);
	x = jget(since, "gone_files");
	assert_int_equal(json_array_size(x), 1);
	assert_string_equal(jstr(jat(x, 0), "path"), gone);
	x = jget(since, "region_events");
	assert_int_equal(jint(x, "appeared"), 2);
	assert_int_equal(jint(x, "grew"), 1);
	assert_int_equal(jint(x, "disappeared"), 0);
	assert_int_equal(jint(x, "shrank"), 0);
	json_decref(o);

	/* a process with nothing stored but itself */
	begin(t);
	int64_t bare = put_proc(t, &(struct proc_spec){ .pid = 7, .uid = 1000, .comm = "idle", .first_seen = H0,
							 .last_seen = H0 + MINUTE, .exited_at = H0 + MINUTE });
	commit(t);
	sel.process_id = bare;
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	assert_true(jnull(jget(o, "peak"), "private"));
	assert_int_equal(json_array_size(jget(o, "phases")), 1);
	assert_int_equal(jint(jat(jget(o, "phases"), 0), "end"), H0 + MINUTE);
	assert_true(jnull(jat(jget(o, "phases"), 0), "peak_private"));
	assert_true(jnull(o, "last_census"));
	assert_true(jnull(o, "since_previous"));
	assert_int_equal(json_array_size(jget(o, "trend")), 0);
	json_decref(o);

	sel = by_pid(4242, 0);
	assert_int_equal(store_read_report(r, &sel, &o, &err), -EACCES);
	sel = by_pid(4243, -1);
	assert_int_equal(store_read_report(r, &sel, &o, &err), -ENOENT);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_report, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_report_in_use_or_kept, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
