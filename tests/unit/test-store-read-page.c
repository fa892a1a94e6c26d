/* Paged answers put back together (store_read_merge_page): a history read
 * a few rows a page, its pages merged, is the history read in one answer,
 * whatever instances share a time and wherever a page ends; and the rule
 * of what two pages may both hold, on pages written by hand. */
#include "test-store-read-lib.h"

#include "limits.h"
#include "store-read-page.h"
#include "util.h"

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("canned JSON: %s at %d", e.text, e.position);
	return j;
}

/* Two instances of "worker" with a raw row each second for ten seconds,
 * both at the same times, a third only for the first four; censuses of
 * each at three seconds and a mark of each at the same time. */
static void fill(struct tmp *t, int64_t id[3])
{
	struct census *c = java_census();

	begin(t);
	for (int i = 0; i < 3; i++)
		id[i] = put_proc(t, &(struct proc_spec){ .boot = "boot-a", .pid = 700 + i, .start_time = 10 + i,
							 .uid = 1000, .comm = "worker", .cmdline = "worker --serve",
							 .first_seen = H0, .last_seen = H0 + (10 - i) * SECOND,
							 .exited_at = -1 });
	for (int64_t s = 1; s <= 10; s++)
		for (int i = 0; i < 3; i++)
			if (i < 2 || s <= 4)
				put_sample(t, id[i], H0 + s * SECOND, 100 * s + i, 200 * s + i, 150 * s + i, 300 * s);
	for (int i = 0; i < 3; i++) {
		put_census(t, id[i], H0 + 3 * SECOND, TRIGGER_FIRST, CENSUS_OK, c);
		put_census(t, id[i], H0 + 7 * SECOND + i, TRIGGER_GROWTH, CENSUS_OK, c);
		assert_int_equal(store_put_mark(t->s, id[i], H0 + 3 * SECOND, "warm", 1000), 0);
	}
	commit(t);
	census_free(c);
}

/* The answer to q followed page after page, merged; the number of pages
 * into *ret_pages. */
static json_t *all_pages(struct tmp *t, struct store_history_query q, size_t *ret_pages)
{
	json_t *all = NULL, *page = NULL;
	_cleanup_free_ char *cursor = NULL;
	struct error err;
	size_t pages = 0;

	for (;;) {
		q.cursor = cursor;
		if (store_read_history(reader_of(t), &q, &page, &err) < 0)
			fail_msg("history, page %zu: %s", pages + 1, err.message);
		pages++;
		if (!all)
			all = json_incref(page);
		else
			assert_true(store_read_merge_page(all, page) >= 0);
		const json_t *next = jget(page, "next");
		free(cursor);
		cursor = json_is_null(next) ? NULL : strdup(json_string_value(next));
		json_decref(page);
		if (!cursor)
			break;
		assert_true(pages < 100);
	}
	*ret_pages = pages;
	return all;
}

static void assert_same_answer(json_t *whole, json_t *merged)
{
	if (!json_equal(whole, merged)) {
		_cleanup_free_ char *a = json_dumps(whole, JSON_COMPACT), *b = json_dumps(merged, JSON_COMPACT);
		fail_msg("one answer:\n%s\npages merged:\n%s", a, b);
	}
}

static void test_history_pages(void **state)
{
	struct tmp *t = *state;
	struct store_history_query q = { .sel = { .name = "worker", .only_uid = -1 }, .since = H0,
					 .until = H0 + 10 * SECOND, .limit = RW_ANSWER_ROWS_MAX };
	int64_t id[3];
	json_t *whole, *merged;
	struct error err;
	size_t pages;

	fill(t, id);
	assert_int_equal(store_read_history(reader_of(t), &q, &whole, &err), 0);
	assert_int_equal(json_array_size(jget(whole, "instances")), 3);
	assert_int_equal(json_array_size(jget(whole, "samples")), 24);
	assert_int_equal(json_array_size(jget(whole, "censuses")), 6);
	assert_int_equal(json_array_size(jget(whole, "marks")), 3);

	/* every page size: pages end between instances at one time and
	 * inside the run of one instance's rows */
	for (unsigned limit = 1; limit <= 25; limit++) {
		q.limit = limit;
		merged = all_pages(t, q, &pages);
		assert_int_equal(pages, (24 + limit - 1) / limit);
		assert_same_answer(whole, merged);
		json_decref(merged);
	}
	json_decref(whole);

	/* buckets of two seconds, a bucket or two a page */
	q.step_ms = 2 * SECOND;
	q.limit = RW_ANSWER_ROWS_MAX;
	assert_int_equal(store_read_history(reader_of(t), &q, &whole, &err), 0);
	assert_int_equal(json_array_size(jget(whole, "samples")), 2 * 5 + 2);
	for (unsigned limit = 1; limit <= 3; limit++) {
		q.limit = limit;
		merged = all_pages(t, q, &pages);
		assert_true(pages > 1);
		assert_same_answer(whole, merged);
		json_decref(merged);
	}
	json_decref(whole);
}

static void test_repeats(void **state)
{
	(void)state;
	json_t *all = parse("{\"instances\": [{\"process_id\": 17}], \"samples\": [{\"time\": 1}, {\"time\": 2}],"
			    " \"censuses\": [{\"census_id\": 98, \"time\": 1}],"
			    " \"marks\": [{\"process_id\": 17, \"time\": 1, \"name\": \"a\"}], \"next\": \"c1\"}");
	json_t *page = parse("{\"instances\": [{\"process_id\": 17}, {\"process_id\": 18}],"
			     " \"samples\": [{\"time\": 3}],"
			     " \"censuses\": [{\"census_id\": 98, \"time\": 1}, {\"census_id\": 99, \"time\": 3}],"
			     " \"marks\": [{\"process_id\": 17, \"time\": 1, \"name\": \"a\"},"
			     "             {\"process_id\": 17, \"time\": 1, \"name\": \"b\"},"
			     "             {\"process_id\": 18, \"time\": 1, \"name\": \"a\"},"
			     "             {\"process_id\": 17, \"time\": 2, \"name\": \"a\"}], \"next\": null}");

	/* rows are each in one page; instances, censuses and marks may be in two */
	assert_int_equal(store_read_merge_page(all, page), 1);
	assert_int_equal(json_array_size(jget(all, "samples")), 3);
	assert_int_equal(jint(jat(jget(all, "samples"), 2), "time"), 3);
	assert_int_equal(json_array_size(jget(all, "censuses")), 2);
	assert_int_equal(jint(jat(jget(all, "censuses"), 1), "census_id"), 99);
	/* a mark is the same one only by process, time and name */
	assert_int_equal(json_array_size(jget(all, "marks")), 4);
	assert_int_equal(json_array_size(jget(all, "instances")), 2);
	assert_int_equal(jint(jat(jget(all, "instances"), 1), "process_id"), 18);
	assert_true(jnull(all, "next"));
	json_decref(page);

	/* events: appended, the page's cursor kept */
	page = parse("{\"events\": [{\"time\": 5}, {\"time\": 6}], \"next\": \"e:6:2\"}");
	assert_int_equal(store_read_merge_page(all, page), 2);
	assert_string_equal(jstr(all, "next"), "e:6:2");
	assert_int_equal(json_array_size(jget(all, "events")), 2);
	json_decref(page);
	page = parse("{\"events\": [{\"time\": 7}]}");
	assert_int_equal(store_read_merge_page(all, page), 1);
	assert_int_equal(json_array_size(jget(all, "events")), 3);
	assert_true(jnull(all, "next"));
	json_decref(page);
	json_decref(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_history_pages, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
