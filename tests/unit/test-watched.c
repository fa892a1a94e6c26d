/* The watched set: add, find, remove, a pid reused by a new instance, and
 * MaxProcesses, gone past. */
#include "testlib.h"

#include <errno.h>

#include "target-testlib.h"
#include "watched.h"

static void test_add_find_remove(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct target *a = test_target(100, 1, 1000, "a"), *b = test_target(200, 2, 1000, "b"),
		      *c = test_target(300, 3, 0, "c");
	struct watched_counts n;

	assert_non_null(w);
	assert_null(watched_first(w));
	assert_null(watched_find(w, 100));
	assert_int_equal(watched_add(w, a, 10), 0);
	assert_int_equal(watched_add(w, b, 10), 0);
	assert_int_equal(watched_add(w, c, 10), 0);
	assert_int_equal(watched_count(w), 3);
	assert_ptr_equal(watched_find(w, 100), a);
	assert_ptr_equal(watched_find(w, 200), b);
	assert_ptr_equal(watched_find(w, 300), c);
	assert_null(watched_find(w, 400));

	/* the walk sees each once, the newest first */
	struct target *seen[3];
	unsigned k = 0;
	for (struct target *t = watched_first(w); t; t = watched_next(t)) {
		assert_true(k < 3);
		seen[k++] = t;
	}
	assert_int_equal(k, 3);
	assert_ptr_equal(seen[0], c);
	assert_ptr_equal(seen[1], b);
	assert_ptr_equal(seen[2], a);

	/* the middle one goes: the others are still found and walked */
	watched_remove(w, b, true);
	assert_null(watched_find(w, 200));
	assert_ptr_equal(watched_find(w, 100), a);
	assert_ptr_equal(watched_first(w), c);
	assert_ptr_equal(watched_next(c), a);
	assert_null(watched_next(a));
	/* the first goes, as a process no longer selected */
	watched_remove(w, c, false);
	assert_ptr_equal(watched_first(w), a);
	assert_null(watched_find(w, 300));

	watched_get_counts(w, &n);
	assert_int_equal(n.now, 1);
	assert_int_equal(n.followed, 3);
	assert_int_equal(n.exited, 1);
	assert_int_equal(n.stopped, 1);

	/* removal while walking, taking the next one first */
	assert_int_equal(watched_add(w, b, 10), 0);
	for (struct target *t = watched_first(w), *next; t; t = next) {
		next = watched_next(t);
		watched_remove(w, t, false);
	}
	assert_null(watched_first(w));
	assert_int_equal(watched_count(w), 0);
	target_free(a);
	target_free(b);
	target_free(c);
	watched_free(w);
}

/* A pid is reused: the new process is a new target, followed only once
 * the old instance is let go; never two under one pid. */
static void test_pid_reused(void **state)
{
	(void)state;
	struct watched *w = watched_new();
	struct target *old = test_target(4242, 1000, 1000, "old"), *fresh = test_target(4242, 2000, 1000, "new");

	assert_int_equal(watched_add(w, old, 10), 0);
	assert_int_equal(watched_add(w, fresh, 10), -EEXIST);
	assert_ptr_equal(watched_find(w, 4242), old);
	assert_int_equal(watched_count(w), 1);

	watched_remove(w, old, true);
	assert_null(watched_find(w, 4242));
	assert_int_equal(watched_add(w, fresh, 10), 0);
	struct target *t = watched_find(w, 4242);
	assert_ptr_equal(t, fresh);
	assert_int_equal(t->start_time, 2000);
	assert_int_equal(watched_count(w), 1);

	struct watched_counts n;
	watched_get_counts(w, &n);
	assert_int_equal(n.followed, 2);
	assert_int_equal(n.exited, 1);
	watched_remove(w, fresh, false);
	target_free(old);
	target_free(fresh);
	watched_free(w);
}

/* MaxProcesses: the one past it is refused, and there is room again once
 * one goes. */
static void test_max_processes(void **state)
{
	(void)state;
	enum { MAX = 3 };
	struct watched *w = watched_new();
	struct target *t[MAX + 1];

	for (int i = 0; i <= MAX; i++)
		t[i] = test_target(1000 + i, 1, 1000, "worker");
	for (int i = 0; i < MAX; i++) {
		assert_true(watched_has_room(w, MAX));
		assert_int_equal(watched_add(w, t[i], MAX), 0);
	}
	assert_false(watched_has_room(w, MAX));
	assert_int_equal(watched_add(w, t[MAX], MAX), -ENOSPC);
	assert_null(watched_find(w, 1000 + MAX));
	assert_int_equal(watched_count(w), MAX);

	watched_remove(w, t[0], true);
	assert_true(watched_has_room(w, MAX));
	assert_int_equal(watched_add(w, t[MAX], MAX), 0);
	assert_ptr_equal(watched_find(w, 1000 + MAX), t[MAX]);
	assert_int_equal(watched_add(w, t[0], MAX), -ENOSPC);

	for (int i = 1; i <= MAX; i++)
		watched_remove(w, t[i], false);
	for (int i = 0; i <= MAX; i++)
		target_free(t[i]);
	watched_free(w);
}

/* Many processes, half of them gone: the map and the list agree. */
static void test_many(void **state)
{
	(void)state;
	enum { N = 2000 };
	struct watched *w = watched_new();
	struct target **t = calloc(N, sizeof(*t));

	for (int i = 0; i < N; i++) {
		t[i] = test_target(7 * i + 2, 1, 1000, "worker");
		assert_int_equal(watched_add(w, t[i], N), 0);
	}
	for (int i = 0; i < N; i += 2)
		watched_remove(w, t[i], true);
	assert_int_equal(watched_count(w), N / 2);
	for (int i = 0; i < N; i++)
		if (i % 2)
			assert_ptr_equal(watched_find(w, 7 * i + 2), t[i]);
		else
			assert_null(watched_find(w, 7 * i + 2));
	unsigned walked = 0;
	for (struct target *x = watched_first(w); x; x = watched_next(x))
		walked++;
	assert_int_equal(walked, N / 2);

	for (int i = 1; i < N; i += 2)
		watched_remove(w, t[i], false);
	for (int i = 0; i < N; i++)
		target_free(t[i]);
	free(t);
	watched_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_remove),
		cmocka_unit_test(test_pid_reused),
		cmocka_unit_test(test_max_processes),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
