/* One member of a JSON object, read or written the same way everywhere:
 * the control socket's requests and answers, saved censuses and region
 * lists.
 *
 * Reading follows one rule: a member that is absent and one that is null
 * are the same (the caller's default applies), and a member of the wrong
 * type or out of bounds is an error the caller words for its reader (a
 * protocol error, a file's line).  Nothing here allocates or logs. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The integer member key of o (o may be NULL or not an object).  Returns
 * 0 when it is absent or null (*ret untouched), 1 with *ret, -EINVAL when
 * it is not an integer, or -ERANGE when it is outside [min, max]; then
 * *ret holds it, so that the refusal can name the value. */
int json_field_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *ret);

/* The same for true or false: 0, 1 with *ret, or -EINVAL. */
int json_field_bool(const json_t *o, const char *key, bool *ret);

/* The same for a string: 0, 1 with *ret (borrowed from o) and its length
 * in *ret_len (may be NULL; a string may hold a NUL byte, which the
 * length shows), or -EINVAL. */
int json_field_string(const json_t *o, const char *key, const char **ret, size_t *ret_len);

/* A reading that forgives: the integer member key, or dflt when it is
 * absent, null or not an integer. */
int64_t json_field_int_or(const json_t *o, const char *key, int64_t dflt);

/* A count, size or time whose negative value means "not known": JSON
 * null for v < 0, else the integer.  A new reference, NULL when out of
 * memory. */
json_t *json_field_int_or_null(int64_t v);
