/* The store's read side, continued (test-store-read.c): the region events
 * answer on known rows, and the deadline and the interrupt that bound a
 * long query. */
#include "test-store-read-lib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "limits.h"
#include "util.h"

/* ------------------------------------------------------------ events */

static void test_events(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_reader *r;
	struct store_select sel = by_pid(4242, -1);
	json_t *o = NULL;
	const json_t *x;
	struct error err;
	int64_t id, census_id[5];
	int64_t seen[64];
	size_t n_seen = 0;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
					       .last_seen = H0 + HOUR, .exited_at = -1 });
	/* 5 censuses of 5 events each: a page boundary falls inside a census */
	for (int k = 0; k < 5; k++) {
		struct region_event ev[5];
		census_id[k] = put_census(t, id, H0 + k * MINUTE, TRIGGER_INTERVAL, CENSUS_OK, c);
		for (int i = 0; i < 5; i++)
			ev[i] = (struct region_event){ .kind = (enum region_event_kind)(i % 4),
						       .start = 0x7f0000000000ull + (uint64_t)(10 * k + i) * 4096,
						       .cls = CLASS_OTHER, .size = (uint64_t)(10 * k + i),
						       .private = 4096, .resident = 8192, .private_before = 1,
						       .resident_before = 2, .size_before = 3 };
		if (k == 4) {
			ev[0].start = 0xffffffffff600000ull; /* above 2^63: stored negative */
			ev[0].path = "[vsyscall]";
			ev[0].inode = 99;
		}
		assert_int_equal(store_put_region_events(t->s, id, census_id[k], H0 + k * MINUTE, ev, 5), 0);
	}
	commit(t);
	r = reader_of(t);

	/* everything at once */
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 0, NULL, &o, &err), 0);
	assert_int_equal(jint(jget(o, "instance"), "process_id"), id);
	assert_true(jnull(o, "next"));
	x = jget(o, "events");
	assert_int_equal(json_array_size(x), 25);
	const json_t *e0 = jat(x, 0);
	assert_int_equal(jint(e0, "time"), H0);
	assert_int_equal(jint(e0, "census_id"), census_id[0]);
	assert_string_equal(jstr(e0, "kind"), "appeared");
	assert_string_equal(jstr(e0, "start"), "0x7f0000000000");
	assert_string_equal(jstr(e0, "class"), "other");
	assert_true(jnull(e0, "path"));
	assert_int_equal(jint(e0, "inode"), 0);
	assert_int_equal(jint(e0, "size"), 0);
	assert_int_equal(jint(e0, "size_before"), 3);
	assert_int_equal(jint(e0, "private"), 4096);
	assert_int_equal(jint(e0, "private_before"), 1);
	assert_int_equal(jint(e0, "resident"), 8192);
	assert_int_equal(jint(e0, "resident_before"), 2);
	const json_t *e20 = jat(x, 20);
	assert_string_equal(jstr(e20, "start"), "0xffffffffff600000");
	assert_string_equal(jstr(e20, "path"), "[vsyscall]");
	assert_int_equal(jint(e20, "inode"), 99);
	json_decref(o);

	/* pages of 7: 4 pages, every event once, in order */
	char cursor[128] = "";
	int pages = 0;
	do {
		assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, pages ? cursor : NULL, &o, &err),
				 0);
		x = jget(o, "events");
		assert_true(json_array_size(x) <= 7);
		for (size_t i = 0; i < json_array_size(x); i++) {
			assert_true(n_seen < ELEMENTSOF(seen));
			seen[n_seen++] = jint(jat(x, i), "size");
		}
		pages++;
		if (!jnull(o, "next"))
			snprintf(cursor, sizeof(cursor), "%s", jstr(o, "next"));
		else
			cursor[0] = '\0';
		json_decref(o);
	} while (cursor[0]);
	assert_int_equal(pages, 4);
	assert_int_equal(n_seen, 25);
	for (size_t i = 0; i < n_seen; i++)
		assert_int_equal(seen[i], (int64_t)(10 * (i / 5) + i % 5));

	/* a window */
	assert_int_equal(store_read_events(r, &sel, H0 + MINUTE, H0 + 2 * MINUTE, 0, NULL, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "events")), 10);
	json_decref(o);

	/* what is refused */
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, "x:1:2", &o, &err), -EINVAL);
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, "e:1", &o, &err), -EINVAL);
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, "e:1:2:3", &o, &err), -EINVAL);
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, "e: 1:2", &o, &err), -EINVAL);
	assert_int_equal(store_read_events(r, &sel, H0 + 1, H0, 7, NULL, &o, &err), -EINVAL);
	sel.only_uid = 0;
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 7, NULL, &o, &err), -EACCES);
	census_free(c);
}

/* ------------------------------------------------------------ deadline and interrupt */

/* A process with n raw rows, for queries that take a while. */
static int64_t put_many(struct tmp *t, int n)
{
	int64_t id;
	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "big", .first_seen = H0,
					       .last_seen = H0 + (int64_t)n * SECOND, .exited_at = -1 });
	for (int i = 0; i < n; i++)
		put_sample(t, id, H0 + (int64_t)i * SECOND, 1, 2 + (uint64_t)i, 3, 4);
	commit(t);
	return id;
}

static void test_deadline(void **state)
{
	struct tmp *t = *state;
	struct store_reader *r;
	struct store_history_query q = { .sel = by_pid(4242, -1), .since = H0, .until = H0 + DAY,
					  .limit = RW_ANSWER_ROWS_MAX };
	json_t *o = NULL;
	struct error err;

	put_many(t, 50000);
	r = reader_of(t);

	/* a deadline already passed: nothing runs */
	store_reader_set_deadline(r, now_monotonic_us() - 1);
	assert_int_equal(store_read_history(r, &q, &o, &err), -ETIME);
	assert_non_null(strstr(err.message, "the query took longer than its time limit"));
	assert_null(o);

	/* one that passes while the query runs (it takes tens of ms) */
	uint64_t start = now_monotonic_us();
	store_reader_set_deadline(r, start + 2000);
	assert_int_equal(store_read_history(r, &q, &o, &err), -ETIME);
	assert_true(now_monotonic_us() - start < 1000000);

	/* and the reader goes on working */
	store_reader_set_deadline(r, 0);
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "samples")), 50000);
	json_decref(o);
	store_reader_set_deadline(r, now_monotonic_us() + 60 * 1000000ull);
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
}

struct interrupter {
	struct store_reader *r;
	atomic_bool done;
	int sent;
};

static void *interrupt_loop(void *userdata)
{
	struct interrupter *x = userdata;
	while (!atomic_load(&x->done)) {
		store_reader_interrupt(x->r);
		x->sent++;
		struct timespec ts = { 0, 500 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void test_interrupt(void **state)
{
	struct tmp *t = *state;
	struct store_reader *r;
	struct store_history_query q = { .sel = by_pid(4242, -1), .since = H0, .until = H0 + DAY,
					  .limit = RW_ANSWER_ROWS_MAX };
	json_t *o = NULL;
	struct error err;
	pthread_t thread;

	put_many(t, 50000);
	r = reader_of(t);

	/* an interrupt before the query is not this query's */
	store_reader_interrupt(r);
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
	o = NULL;

	/* from another thread, while it runs */
	struct interrupter x = { .r = r };
	atomic_init(&x.done, false);
	assert_int_equal(pthread_create(&thread, NULL, interrupt_loop, &x), 0);
	int e = 0;
	for (int i = 0; i < 100 && e == 0; i++) {
		e = store_read_history(r, &q, &o, &err);
		if (e == 0)
			json_decref(o);
	}
	atomic_store(&x.done, true);
	pthread_join(thread, NULL);
	assert_int_equal(e, -EINTR);
	assert_non_null(strstr(err.message, "interrupted"));

	/* and the next query is not */
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_deadline, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_interrupt, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
