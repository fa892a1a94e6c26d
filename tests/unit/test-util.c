/* Small helpers: strict number parsing, byte formatting, globs. */
#include "testlib.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "populate.h"
#include "util.h"

static void test_parse_u64(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(parse_u64("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("18446744073709551615", 10, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(parse_u64("18446744073709551616", 10, &v), -ERANGE);
	assert_int_equal(parse_u64("ffffffffffffffff", 16, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(parse_u64("10000000000000000", 16, &v), -ERANGE);
	assert_int_equal(parse_u64("7fAB", 16, &v), 0);
	assert_int_equal(v, 0x7fab);
	assert_int_equal(parse_u64("", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("12a", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64(" 1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("1", 8, &v), -EINVAL);
}

static void test_parse_pid(void **state)
{
	(void)state;
	int pid;
	assert_int_equal(parse_pid("4242", &pid), 0);
	assert_int_equal(pid, 4242);
	assert_int_equal(parse_pid("2147483647", &pid), 0);
	assert_int_equal(parse_pid("2147483648", &pid), -ERANGE);
	assert_int_equal(parse_pid("0", &pid), -ERANGE);
	assert_int_equal(parse_pid("x", &pid), -EINVAL);
}

static void test_format_bytes(void **state)
{
	(void)state;
	char b[FORMAT_BYTES_MAX];
	assert_string_equal(format_bytes(b, 0), "0 B");
	assert_string_equal(format_bytes(b, 1023), "1023 B");
	assert_string_equal(format_bytes(b, 1024), "1.00 KiB");
	assert_string_equal(format_bytes(b, 1536), "1.50 KiB");
	assert_string_equal(format_bytes(b, 10 * 1024), "10.0 KiB");
	assert_string_equal(format_bytes(b, 100 * 1024), "100 KiB");
	/* never "1024 KiB" after rounding */
	assert_string_equal(format_bytes(b, 1024 * 1024 - 1), "1.00 MiB");
	assert_string_equal(format_bytes(b, 3ull << 30), "3.00 GiB");
	assert_string_equal(format_bytes(b, UINT64_MAX), "16.0 EiB");
	assert_string_equal(format_bytes_delta(b, -2048), "-2.00 KiB");
	assert_string_equal(format_bytes_delta(b, 2048), "+2.00 KiB");
	assert_string_equal(format_bytes_delta(b, 0), "0 B");
	assert_string_equal(format_bytes_delta(b, INT64_MIN), "-8.00 EiB");
}

static void test_format_duration(void **state)
{
	(void)state;
	char b[FORMAT_DURATION_MAX];
	assert_string_equal(format_duration_us(b, 850), "850 us");
	assert_string_equal(format_duration_us(b, 12400), "12.4 ms");
	assert_string_equal(format_duration_us(b, 3200000), "3.20 s");
}

static void test_strings(void **state)
{
	(void)state;
	assert_true(endswith("libc.so.6", ".6"));
	assert_false(endswith("a", "abc"));
	assert_string_equal(startswith("[anon:x]", "[anon:"), "x]");
	assert_null(startswith("[heap]", "[anon:"));
	assert_true(glob_match(NULL, "anything"));
	assert_true(glob_match("py*", "python3"));
	assert_true(glob_match("*train.py*", "python3 train.py --lr 1"));
	assert_false(glob_match("java", "javac"));
	assert_true(streq_ptr(NULL, NULL));
	assert_false(streq_ptr("a", NULL));
}

/* The whole pages of the range are made present, and only they: a range
 * that starts or ends inside a page leaves that page as it was. */
static void test_populate(void **state)
{
	(void)state;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 16;
	unsigned char *map = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char in[16];
	assert_true(map != MAP_FAILED);
	assert_int_equal(mincore(map, n * page, in), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(in[i] & 1, 0);
	/* from the middle of page 2 to the middle of page 12 */
	memory_populate(map + 2 * page + page / 2, 10 * page);
	assert_int_equal(mincore(map, n * page, in), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(in[i] & 1, i >= 3 && i < 12);
	/* less than a whole page: nothing */
	memory_populate(map + 13 * page + 1, page - 2);
	assert_int_equal(mincore(map + 13 * page, page, in), 0);
	assert_int_equal(in[0] & 1, 0);
	/* written, the pages hold what was written; the others read as zero */
	map[5 * page] = 7;
	assert_int_equal(map[5 * page], 7);
	assert_int_equal(map[4 * page + 1], 0);
	assert_int_equal(munmap(map, n * page), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),     cmocka_unit_test(test_parse_pid),
		cmocka_unit_test(test_format_bytes),  cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_strings),       cmocka_unit_test(test_populate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
