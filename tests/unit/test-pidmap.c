/* The pid map against a plain array, through growth and deletions that
 * move entries back. */
#include "testlib.h"

#include "pidmap.h"

static void test_against_array(void **state)
{
	(void)state;
	enum { N = 20000 };
	static void *truth[N + 1];
	struct pidmap m = { 0 };
	unsigned seed = 12345;

	for (int round = 0; round < 200000; round++) {
		seed = seed * 1103515245u + 12345u;
		int pid = (int)((seed >> 8) % N) + 1;
		void *v = (void *)(uintptr_t)(round + 1);
		if ((seed >> 4) % 3 == 0) {
			assert_ptr_equal(pidmap_remove(&m, pid), truth[pid]);
			truth[pid] = NULL;
		} else {
			assert_int_equal(pidmap_put(&m, pid, v), 0);
			truth[pid] = v;
		}
	}
	size_t n = 0;
	for (int pid = 1; pid <= N; pid++) {
		assert_ptr_equal(pidmap_get(&m, pid), truth[pid]);
		n += truth[pid] != NULL;
	}
	assert_int_equal(m.table.count, n);
	size_t walked = 0;
	void *v;
	for (size_t i = 0; pidmap_next(&m, &i, &v);)
		walked++;
	assert_int_equal(walked, n);
	assert_null(pidmap_get(&m, 0));
	assert_int_equal(pidmap_put(&m, 0, v), -EINVAL);
	assert_int_equal(pidmap_put(&m, -5, v), -EINVAL);
	pidmap_done(&m);
	assert_null(pidmap_get(&m, 1));
	assert_null(pidmap_remove(&m, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_against_array) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
