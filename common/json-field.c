/* Reading and writing members of JSON objects (json-field.h). */
#include "json-field.h"

#include <errno.h>

/* The member, or NULL when it is absent or null. */
static const json_t *member(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return v && !json_is_null(v) ? v : NULL;
}

int json_field_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *ret)
{
	const json_t *v = member(o, key);
	if (!v)
		return 0;
	if (!json_is_integer(v))
		return -EINVAL;
	json_int_t x = json_integer_value(v);
	*ret = (int64_t)x;
	return x < min || x > max ? -ERANGE : 1;
}

int json_field_bool(const json_t *o, const char *key, bool *ret)
{
	const json_t *v = member(o, key);
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return -EINVAL;
	*ret = json_is_true(v);
	return 1;
}

int json_field_string(const json_t *o, const char *key, const char **ret, size_t *ret_len)
{
	const json_t *v = member(o, key);
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -EINVAL;
	*ret = json_string_value(v);
	if (ret_len)
		*ret_len = json_string_length(v);
	return 1;
}

int64_t json_field_int_or(const json_t *o, const char *key, int64_t dflt)
{
	int64_t v = dflt;
	return json_field_int(o, key, INT64_MIN, INT64_MAX, &v) > 0 ? v : dflt;
}

json_t *json_field_int_or_null(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}
