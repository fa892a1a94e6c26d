/* Small pieces of the read side's answers: columns as JSON values, the
 * opaque cursors that continue a paged answer, and user names. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store-read-internal.h"
#include "text.h"

/* The longest cursor this program writes: a tag and four 64-bit numbers,
 * each with its colon and sign. */
#define READ_CURSOR_MAX (1 + 4 * 21)

json_t *read_column_int(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return json_null();
	return json_integer(sqlite3_column_int64(st, i));
}

bool read_utf8_valid(const char *s, size_t len)
{
	/* a NUL inside a column's text would cut it in C */
	return memchr(s, '\0', len) == NULL && text_utf8_valid(s, len, NULL);
}

json_t *read_column_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	if (!s)
		return json_null();
	return text_json_stringn((const char *)s, (size_t)sqlite3_column_bytes(st, i));
}

int read_set(json_t *o, const char *key, json_t *v)
{
	/* takes v's reference even when it fails, and a NULL v is a failure */
	return json_object_set_new_nocheck(o, key, v) < 0 ? -ENOMEM : 0;
}

int read_cursor_parse(const char *cursor, char tag, int64_t *v, size_t n)
{
	const char *p = cursor;

	if (!cursor || strlen(cursor) > READ_CURSOR_MAX || p[0] != tag)
		return -EINVAL;
	p++;
	for (size_t i = 0; i < n; i++) {
		char *end;
		long long x;

		if (*p != ':')
			return -EINVAL;
		p++;
		/* digits only (and a sign): strtoll alone would take spaces */
		if (!((*p >= '0' && *p <= '9') || (*p == '-' && p[1] >= '0' && p[1] <= '9')))
			return -EINVAL;
		errno = 0;
		x = strtoll(p, &end, 10);
		if (errno != 0)
			return -EINVAL;
		v[i] = x;
		p = end;
	}
	return *p == '\0' ? 0 : -EINVAL;
}

json_t *read_cursor_json(char tag, const int64_t *v, size_t n)
{
	char buf[READ_CURSOR_MAX + 1];
	size_t len = 0;

	buf[len++] = tag;
	for (size_t i = 0; i < n && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ":%" PRId64, v[i]);
	if (len >= sizeof(buf))
		return NULL;
	return json_string_nocheck(buf);
}

const char *read_user_name(int64_t uid, char *buf, size_t size)
{
	struct passwd pw, *found = NULL;
	char scratch[4096];

	if (uid < 0 || uid > UINT32_MAX)
		return NULL;
	if (getpwuid_r((uid_t)uid, &pw, scratch, sizeof(scratch), &found) != 0 || !found || !found->pw_name)
		return NULL;
	snprintf(buf, size, "%s", found->pw_name);
	return buf;
}
