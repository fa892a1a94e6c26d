/* The JSON accessors every reader and writer shares: absent and null are
 * the default, a wrong type and a value out of bounds are refused (one
 * past each bound), the forgiving reader's default, and null for an
 * unknown count. */
#include "testlib.h"

#include <errno.h>

#include "json-field.h"

static json_t *object(const char *text)
{
	json_error_t e;
	json_t *o = json_loads(text, JSON_ALLOW_NUL, &e);
	if (!o)
		fail_msg("%s: %s", text, e.text);
	return o;
}

static void test_int(void **state)
{
	(void)state;
	json_t *o = object("{\"n\": 7, \"zero\": 0, \"null\": null, \"s\": \"7\", \"f\": 7.5, \"b\": true, "
			   "\"big\": 9223372036854775807, \"neg\": -9223372036854775808}");
	int64_t v = 42;

	/* absent and null: the default, untouched */
	assert_int_equal(json_field_int(o, "missing", 0, 10, &v), 0);
	assert_int_equal(json_field_int(o, "null", 0, 10, &v), 0);
	assert_int_equal(v, 42);
	/* not an integer, whatever else it is */
	assert_int_equal(json_field_int(o, "s", 0, 10, &v), -EINVAL);
	assert_int_equal(json_field_int(o, "f", 0, 10, &v), -EINVAL);
	assert_int_equal(json_field_int(o, "b", 0, 10, &v), -EINVAL);
	assert_int_equal(v, 42);
	/* both bounds are included; one past each is refused, and named */
	assert_int_equal(json_field_int(o, "n", 7, 7, &v), 1);
	assert_int_equal(v, 7);
	assert_int_equal(json_field_int(o, "n", 8, 100, &v), -ERANGE);
	assert_int_equal(v, 7);
	v = 0;
	assert_int_equal(json_field_int(o, "n", 0, 6, &v), -ERANGE);
	assert_int_equal(v, 7);
	assert_int_equal(json_field_int(o, "zero", 1, 10, &v), -ERANGE);
	assert_int_equal(v, 0);
	/* the ends of 64 bits */
	assert_int_equal(json_field_int(o, "big", INT64_MIN, INT64_MAX, &v), 1);
	assert_true(v == INT64_MAX);
	assert_int_equal(json_field_int(o, "big", 0, INT64_MAX - 1, &v), -ERANGE);
	assert_int_equal(json_field_int(o, "neg", INT64_MIN, 0, &v), 1);
	assert_true(v == INT64_MIN);
	/* not an object at all: nothing there */
	json_t *a = json_array();
	assert_int_equal(json_field_int(a, "n", 0, 10, &v), 0);
	assert_int_equal(json_field_int(NULL, "n", 0, 10, &v), 0);
	json_decref(a);

	/* the forgiving reader */
	assert_int_equal(json_field_int_or(o, "n", -1), 7);
	assert_int_equal(json_field_int_or(o, "s", -1), -1);
	assert_int_equal(json_field_int_or(o, "null", -1), -1);
	assert_int_equal(json_field_int_or(o, "missing", 3), 3);
	assert_true(json_field_int_or(o, "neg", 0) == INT64_MIN);
	json_decref(o);
}

static void test_bool_and_string(void **state)
{
	(void)state;
	json_t *o = object("{\"t\": true, \"f\": false, \"one\": 1, \"null\": null, \"s\": \"ab\\u0000c\", \"e\": \"\"}");
	bool b = true;
	const char *s = "default";
	size_t len = 99;

	assert_int_equal(json_field_bool(o, "t", &b), 1);
	assert_true(b);
	assert_int_equal(json_field_bool(o, "f", &b), 1);
	assert_false(b);
	b = true;
	assert_int_equal(json_field_bool(o, "null", &b), 0);
	assert_int_equal(json_field_bool(o, "missing", &b), 0);
	assert_int_equal(json_field_bool(o, "one", &b), -EINVAL);
	assert_int_equal(json_field_bool(o, "s", &b), -EINVAL);
	assert_true(b);

	assert_int_equal(json_field_string(o, "missing", &s, &len), 0);
	assert_int_equal(json_field_string(o, "null", &s, &len), 0);
	assert_string_equal(s, "default");
	assert_int_equal(len, 99);
	assert_int_equal(json_field_string(o, "t", &s, &len), -EINVAL);
	assert_int_equal(json_field_string(o, "one", &s, NULL), -EINVAL);
	/* a NUL inside shows in the length, which a check can compare */
	assert_int_equal(json_field_string(o, "s", &s, &len), 1);
	assert_int_equal(len, 4);
	assert_int_equal(strlen(s), 2);
	assert_int_equal(json_field_string(o, "e", &s, NULL), 1);
	assert_string_equal(s, "");
	json_decref(o);
}

static void test_int_or_null(void **state)
{
	(void)state;
	json_t *v = json_field_int_or_null(-1);
	assert_true(json_is_null(v));
	json_decref(v);
	v = json_field_int_or_null(INT64_MIN);
	assert_true(json_is_null(v));
	json_decref(v);
	v = json_field_int_or_null(0);
	assert_true(json_is_integer(v) && json_integer_value(v) == 0);
	json_decref(v);
	v = json_field_int_or_null(INT64_MAX);
	assert_true(json_is_integer(v) && json_integer_value(v) == INT64_MAX);
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_bool_and_string),
		cmocka_unit_test(test_int_or_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
