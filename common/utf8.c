/* UTF-8 checks and lossy conversion to JSON strings. */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

size_t utf8_next(const unsigned char *p, size_t len, uint32_t *ret)
{
	uint32_t cp, min;
	size_t n;

	if (p[0] < 0x80) {
		*ret = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		n = 2, cp = p[0] & 0x1fu, min = 0x80;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0fu, min = 0x800;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, cp = p[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (len < n)
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[k] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*ret = cp;
	return n;
}

bool utf8_valid(const char *s, size_t len, size_t *ret_offset)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_next(p + i, len - i, &cp);
		if (n == 0) {
			if (ret_offset)
				*ret_offset = i;
			return false;
		}
		i += n;
	}
	return true;
}

json_t *json_stringn_lossy(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t o = 0;

	if (!s)
		return json_null();
	if (utf8_valid(s, len, NULL))
		return json_stringn(s, len);
	char *buf = malloc(len * 3 + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_next(p + i, len - i, &cp);
		if (n == 0) {
			memcpy(buf + o, "\xef\xbf\xbd", 3); /* U+FFFD */
			o += 3;
			i++;
			continue;
		}
		memcpy(buf + o, p + i, n);
		o += n;
		i += n;
	}
	json_t *j = json_stringn(buf, o);
	free(buf);
	return j;
}

json_t *json_string_lossy(const char *s)
{
	return s ? json_stringn_lossy(s, strlen(s)) : json_null();
}
