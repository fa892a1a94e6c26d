/* The one error type (common/error.c): the code is returned and kept,
 * NULL is accepted, a prefix goes before the message, and a message past
 * ERROR_MESSAGE_MAX is cut whole characters at a time. */
#include "testlib.h"

#include <errno.h>

#include "error.h"
#include "text.h"

static void test_set_returns_code(void **state)
{
	(void)state;
	struct error e = { 0 };

	assert_int_equal(error_set(&e, -EINVAL, "line %u: unknown key %s", 7u, "colour"), -EINVAL);
	assert_int_equal(e.code, -EINVAL);
	assert_string_equal(e.message, "line 7: unknown key colour");
	assert_true(error_has_message(&e));

	error_clear(&e);
	assert_int_equal(e.code, 0);
	assert_string_equal(e.message, "");
	assert_false(error_has_message(&e));
}

static void test_null(void **state)
{
	(void)state;
	assert_int_equal(error_set(NULL, -ENOENT, "%s", "gone"), -ENOENT);
	assert_int_equal(error_prefix(NULL, "x: "), 0);
	error_clear(NULL);
	assert_false(error_has_message(NULL));
	assert_string_equal(error_message_or_strerror(NULL, -ENOENT), strerror(ENOENT));
}

static void test_prefix(void **state)
{
	(void)state;
	struct error e = { 0 };

	error_set(&e, -EINVAL, "unknown key colour");
	assert_int_equal(error_prefix(&e, "%s:%u: ", "/etc/ramwatchd.conf", 3u), -EINVAL);
	assert_string_equal(e.message, "/etc/ramwatchd.conf:3: unknown key colour");
	assert_string_equal(error_message_or_strerror(&e, -EIO), e.message);
	error_clear(&e);
	assert_string_equal(error_message_or_strerror(&e, -EIO), strerror(EIO));
}

/* A message of n copies of ch (a UTF-8 character of len bytes). */
static char *repeat(const char *ch, size_t n)
{
	size_t len = strlen(ch);
	char *s = malloc(n * len + 1);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		memcpy(s + i * len, ch, len);
	s[n * len] = '\0';
	return s;
}

static void test_cut_at_limit(void **state)
{
	(void)state;
	struct error e;
	/* the limit fits a message of ERROR_MESSAGE_MAX - 1 bytes exactly */
	char *exact = repeat("a", ERROR_MESSAGE_MAX - 1);
	error_set(&e, -EINVAL, "%s", exact);
	assert_string_equal(e.message, exact);
	free(exact);

	/* one byte past: the last is cut */
	char *over = repeat("a", ERROR_MESSAGE_MAX);
	error_set(&e, -EINVAL, "%s", over);
	assert_int_equal(strlen(e.message), ERROR_MESSAGE_MAX - 1);
	assert_memory_equal(e.message, over, ERROR_MESSAGE_MAX - 1);
	assert_int_equal(e.code, -EINVAL);
	free(over);
}

static void test_cut_utf8(void **state)
{
	(void)state;
	/* 2-, 3- and 4-byte characters, each shifted by a leading ASCII byte
	 * or two so the limit falls inside a character at every offset */
	static const char *const chars[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
	for (size_t c = 0; c < ELEMENTSOF(chars); c++)
		for (size_t shift = 0; shift < 4; shift++) {
			struct error e;
			char *body = repeat(chars[c], ERROR_MESSAGE_MAX);
			error_set(&e, -EINVAL, "%.*s%s", (int)shift, "xxx", body);
			size_t len = strlen(e.message);
			assert_true(len <= ERROR_MESSAGE_MAX - 1);
			assert_true(len > ERROR_MESSAGE_MAX - 1 - strlen(chars[c]));
			assert_true(text_utf8_valid(e.message, len, NULL));
			assert_int_equal((len - shift) % strlen(chars[c]), 0);
			free(body);
		}
}

static void test_prefix_past_limit(void **state)
{
	(void)state;
	struct error e;
	char *body = repeat("\xe2\x82\xac", ERROR_MESSAGE_MAX / 3);
	error_set(&e, -EINVAL, "%s", body);
	error_prefix(&e, "file:1: ");
	size_t len = strlen(e.message);
	assert_true(len <= ERROR_MESSAGE_MAX - 1);
	assert_true(text_utf8_valid(e.message, len, NULL));
	assert_memory_equal(e.message, "file:1: \xe2\x82\xac", strlen("file:1: \xe2\x82\xac"));
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_returns_code), cmocka_unit_test(test_null),
		cmocka_unit_test(test_prefix),		 cmocka_unit_test(test_cut_at_limit),
		cmocka_unit_test(test_cut_utf8),	 cmocka_unit_test(test_prefix_past_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
