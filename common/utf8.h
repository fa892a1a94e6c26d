/* UTF-8: checking text that comes from outside (/proc, files, requests)
 * before it goes into JSON, which must be UTF-8.  Paths, command lines and
 * process names are bytes to the kernel, not text. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes one character of p[0, len) (len >= 1).  Returns its length in
 * bytes with the code point in *ret, or 0 when the bytes are not UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
size_t utf8_next(const unsigned char *p, size_t len, uint32_t *ret);

/* Whether s[0, len) is well-formed UTF-8.  When not, *ret_offset (may be
 * NULL) is the offset of the first bad byte. */
bool utf8_valid(const char *s, size_t len, size_t *ret_offset);

/* A JSON string of s[0, len), bytes that are not UTF-8 replaced by U+FFFD
 * (so a file name in another encoding still shows, and the JSON stays
 * valid).  A NULL s gives JSON null.  Returns a new reference, or NULL
 * when out of memory. */
json_t *json_stringn_lossy(const char *s, size_t len);
json_t *json_string_lossy(const char *s);
