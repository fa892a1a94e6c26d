/* Text that comes from outside (/proc, files, the database, requests) on
 * its way out as JSON, CSV, HTML or a terminal's text.  Paths, command
 * lines and process names are bytes to the kernel, not text; this is the
 * one place that decides what a byte that is not UTF-8 becomes.
 *
 * The rule, the same for a live census and a stored one read back: every
 * byte that does not start a well-formed UTF-8 sequence becomes U+FFFD,
 * one U+FFFD per byte.  (A terminal's text and HTML show it escaped,
 * "\xff", since there the point is to show what the bytes are.) */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* U+FFFD in UTF-8, and its length. */
#define TEXT_REPLACEMENT "\xef\xbf\xbd"
#define TEXT_REPLACEMENT_LEN 3

/* Decodes one character of p[0, len) (len >= 1).  Returns its length in
 * bytes with the code point in *ret, or 0 when the bytes are not UTF-8
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF,
 * no sequence cut short). */
size_t text_utf8_next(const unsigned char *p, size_t len, uint32_t *ret);

/* Whether s[0, len) is well-formed UTF-8.  When not, *ret_offset (may be
 * NULL) is the offset of the first bad byte. */
bool text_utf8_valid(const char *s, size_t len, size_t *ret_offset);

/* s[0, len) made valid UTF-8 by the rule above, NUL-terminated, in a new
 * allocation the caller frees; *ret_len (may be NULL) is its length.
 * With nul_too, a NUL byte (valid UTF-8, but it would cut a C string) is
 * replaced as well.  NULL when out of memory. */
char *text_clean(const char *s, size_t len, bool nul_too, size_t *ret_len);

/* Copies s[0, len) into buf by the rule above, whole characters only, at
 * most max bytes and a NUL (buf holds max + 1).  Returns the length. */
size_t text_clean_into(char *buf, size_t max, const char *s, size_t len);

/* A JSON string of s[0, len) by the rule above.  A NULL s gives JSON null.
 * Returns a new reference, or NULL when out of memory. */
json_t *text_json_stringn(const char *s, size_t len);
json_t *text_json_string(const char *s);

/* Writes s[0, len) to f as a JSON string (RFC 8259): quote, backslash and
 * control characters escaped (\n, \r, \t, \b, \f, else \u00XX), bytes
 * that are not UTF-8 by the rule above, so the output is always UTF-8. */
void text_json_write(FILE *f, const char *s, size_t len);

/* Writes s[0, len) to f as a CSV field (RFC 4180): quoted, with quotes
 * doubled, when it holds a comma, a quote, CR or LF or starts or ends with
 * a space (which readers may trim); an empty text is "" so that it
 * differs from NULL (s NULL), which is an empty field.  The bytes are
 * written as they are. */
void text_csv_write(FILE *f, const char *s, size_t len);
/* The same for a NUL-terminated s, or NULL. */
void text_csv_write_cstr(FILE *f, const char *s);

/* s[0, len) for a person's terminal: control characters (C0, DEL, C1),
 * which would move the cursor or set colours, shown escaped ("\n", "\t",
 * "\r", "\x1b", "\u009b"), and each byte that is not UTF-8 as "\xNN".
 * Returns a new NUL-terminated string the caller frees, or NULL when out
 * of memory. */
char *text_visible(const char *s, size_t len);

/* Writes s[0, len) to f as the text of an HTML element or a quoted
 * attribute value (HTML5, also XML, so inline SVG takes it): "&", "<",
 * ">", '"' and "'" as character references, the rest as text_visible
 * shows it (control characters and bytes that are not UTF-8 escaped as
 * "\x1b", "\xff"), since the page is read by a person, as a terminal is. */
void text_html_write(FILE *f, const char *s, size_t len);
/* The same for a NUL-terminated s; nothing for NULL. */
void text_html_write_cstr(FILE *f, const char *s);
