/* The interning pool: one copy per distinct string, stable pointers. */
#include "testlib.h"

static void test_intern(void **state)
{
	(void)state;
	struct strpool *pool = strpool_new();
	const char *a = strpool_intern(pool, "/lib/libc.so.6", 14);
	const char *b = strpool_intern(pool, "/lib/libc.so.6xyz", 14); /* only the first 14 bytes */
	const char *c = strpool_intern(pool, "/lib/libm.so.6", 14);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_string_equal(a, "/lib/libc.so.6");
	assert_string_equal(strpool_intern(pool, "", 0), "");
	assert_null(strpool_free(pool));
	assert_null(strpool_free(NULL));
}

/* Many strings, longer than a block, after many table growths: every
 * pointer handed out still holds its string, and repeats find it. */
static void test_many(void **state)
{
	(void)state;
	struct strpool *pool = strpool_new();
	enum { N = 50000 };
	const char **seen = calloc(N, sizeof(*seen));
	char buf[64];
	for (int i = 0; i < N; i++) {
		int len = snprintf(buf, sizeof(buf), "/data/file-%d", i);
		seen[i] = strpool_intern(pool, buf, (size_t)len);
	}
	char *huge = malloc(200000);
	memset(huge, 'x', 199999);
	huge[199999] = '\0';
	const char *h = strpool_intern(pool, huge, 199999);
	assert_string_equal(h, huge);
	for (int i = 0; i < N; i++) {
		int len = snprintf(buf, sizeof(buf), "/data/file-%d", i);
		assert_string_equal(seen[i], buf);
		assert_ptr_equal(strpool_intern(pool, buf, (size_t)len), seen[i]);
	}
	assert_true(strpool_bytes(pool) > 200000);
	free(huge);
	free(seen);
	strpool_free(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
