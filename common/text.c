/* The one UTF-8 decoder, and the writers of JSON strings, CSV fields,
 * HTML text and terminal text built on it.  Inputs are short (names, paths, command
 * lines, a query's cells), so clarity wins over speed, except that text
 * already valid is passed on without a copy where a caller allows. */
#include "text.h"

#include <stdlib.h>
#include <string.h>

size_t text_utf8_next(const unsigned char *p, size_t len, uint32_t *ret)
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

bool text_utf8_valid(const char *s, size_t len, size_t *ret_offset)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_next(p + i, len - i, &cp);
		if (n == 0) {
			if (ret_offset)
				*ret_offset = i;
			return false;
		}
		i += n;
	}
	return true;
}

/* One step of cleaning p[0, len): returns the input bytes it takes, with
 * in *ret_from and *ret_out what to write and its length (a bad byte is
 * one byte in, U+FFFD out). */
static size_t clean_step(const unsigned char *p, size_t len, bool nul_too, const void **ret_from, size_t *ret_out)
{
	uint32_t cp;
	size_t n = text_utf8_next(p, len, &cp);

	if (n == 0 || (nul_too && cp == 0)) {
		*ret_from = TEXT_REPLACEMENT;
		*ret_out = TEXT_REPLACEMENT_LEN;
		return 1;
	}
	*ret_from = p;
	*ret_out = n;
	return n;
}

char *text_clean(const char *s, size_t len, bool nul_too, size_t *ret_len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	char *buf;

	/* at most three bytes out for each byte in */
	if (len > (SIZE_MAX - 1) / TEXT_REPLACEMENT_LEN || !(buf = malloc(len * TEXT_REPLACEMENT_LEN + 1)))
		return NULL;
	for (size_t i = 0; i < len;) {
		const void *from;
		size_t out;
		i += clean_step(p + i, len - i, nul_too, &from, &out);
		memcpy(buf + o, from, out);
		o += out;
	}
	buf[o] = '\0';
	if (ret_len)
		*ret_len = o;
	return buf;
}

size_t text_clean_into(char *buf, size_t max, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < len;) {
		const void *from;
		size_t out;
		i += clean_step(p + i, len - i, false, &from, &out);
		if (o + out > max)
			break;
		memcpy(buf + o, from, out);
		o += out;
	}
	buf[o] = '\0';
	return o;
}

json_t *text_json_stringn(const char *s, size_t len)
{
	size_t n;
	char *clean;
	json_t *j;

	if (!s)
		return json_null();
	/* checked here, so jansson need not check again; a NUL inside is
	 * replaced too, since readers of the JSON are often C */
	if (!memchr(s, '\0', len) && text_utf8_valid(s, len, NULL))
		return json_stringn_nocheck(s, len);
	if (!(clean = text_clean(s, len, true, &n)))
		return NULL;
	j = json_stringn_nocheck(clean, n);
	free(clean);
	return j;
}

json_t *text_json_string(const char *s)
{
	return s ? text_json_stringn(s, strlen(s)) : json_null();
}

void text_json_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = text_utf8_next(p + i, len - i, &cp);

		if (n == 0) {
			fputs(TEXT_REPLACEMENT, f);
			i++;
			continue;
		}
		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (cp < 0x20)
				fprintf(f, "\\u%04x", (unsigned)cp);
			else
				fwrite(p + i, 1, n, f);
		}
		i += n;
	}
	fputc('"', f);
}

void text_csv_write(FILE *f, const char *s, size_t len)
{
	bool quote;

	if (!s)
		return;
	quote = len == 0 || s[0] == ' ' || s[len - 1] == ' ';
	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		fwrite(s, 1, len, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

void text_csv_write_cstr(FILE *f, const char *s)
{
	text_csv_write(f, s, s ? strlen(s) : 0);
}

/* One character of p[0, len) for a person: writes its visible form into
 * out (at most TEXT_VISIBLE_STEP_MAX bytes, not NUL-terminated), or points
 * *ret_from at the bytes themselves.  Returns the input bytes it takes,
 * with the output's length in *ret_out. */
#define TEXT_VISIBLE_STEP_MAX 6
static size_t visible_step(const unsigned char *p, size_t len, char *out, const void **ret_from, size_t *ret_out)
{
	uint32_t cp;
	size_t n = text_utf8_next(p, len, &cp);
	int k = -1;

	*ret_from = out;
	if (n == 0)
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\x%02x", p[0]), n = 1;
	else if (cp == '\n')
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\n");
	else if (cp == '\t')
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\t");
	else if (cp == '\r')
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\r");
	else if (cp < 0x20 || cp == 0x7f)
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\x%02x", (unsigned)cp);
	else if (cp >= 0x80 && cp < 0xa0)
		k = snprintf(out, TEXT_VISIBLE_STEP_MAX + 1, "\\u%04x", (unsigned)cp);
	if (k < 0) {
		*ret_from = p;
		*ret_out = n;
	} else
		*ret_out = (size_t)k;
	return n;
}

char *text_visible(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;
	char *buf;

	/* "\u009b" is the longest, six bytes for a two-byte character; a
	 * bad byte is four ("\xff") */
	if (len > (SIZE_MAX - 1) / 4 || !(buf = malloc(len * 4 + 1)))
		return NULL;
	for (size_t i = 0; i < len;) {
		char step[TEXT_VISIBLE_STEP_MAX + 1];
		const void *from;
		size_t out;
		i += visible_step(p + i, len - i, step, &from, &out);
		memcpy(buf + o, from, out);
		o += out;
	}
	buf[o] = '\0';
	return buf;
}

void text_html_write(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		char step[TEXT_VISIBLE_STEP_MAX + 1];
		const void *from;
		size_t out;

		switch (p[i]) {
		case '&': fputs("&amp;", f); i++; continue;
		case '<': fputs("&lt;", f); i++; continue;
		case '>': fputs("&gt;", f); i++; continue;
		case '"': fputs("&quot;", f); i++; continue;
		case '\'': fputs("&#39;", f); i++; continue;
		default: break;
		}
		i += visible_step(p + i, len - i, step, &from, &out);
		fwrite(from, 1, out, f);
	}
}

void text_html_write_cstr(FILE *f, const char *s)
{
	if (s)
		text_html_write(f, s, strlen(s));
}
