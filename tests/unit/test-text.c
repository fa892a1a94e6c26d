/* Text on its way out: the UTF-8 decoder, the one rule for bytes that are
 * not UTF-8 (U+FFFD, one per byte), JSON strings, CSV fields, HTML and
 * terminal text. */
#include "testlib.h"

#include "text.h"

#define FFFD TEXT_REPLACEMENT

/* What f received, as a string the caller frees. */
struct out {
	char *buf;
	size_t len;
	FILE *f;
};

static void out_open(struct out *o)
{
	*o = (struct out){ 0 };
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
}

static char *out_close(struct out *o)
{
	assert_int_equal(fclose(o->f), 0);
	return o->buf;
}

static char *json_of(const char *s, size_t len)
{
	struct out o;
	out_open(&o);
	text_json_write(o.f, s, len);
	return out_close(&o);
}

static char *csv_of(const char *s, size_t len)
{
	struct out o;
	out_open(&o);
	text_csv_write(o.f, s, len);
	return out_close(&o);
}

static void test_decode(void **state)
{
	uint32_t cp = 0;
	size_t off = 99;

	(void)state;
	assert_int_equal(text_utf8_next((const unsigned char *)"A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(text_utf8_next((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3);
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xf4\x8f\xbf\xbf", 4, &cp), 4);
	assert_int_equal(cp, 0x10ffff);
	/* overlong forms of '/' and of U+0800's neighbour */
	assert_int_equal(text_utf8_next((const unsigned char *)"\xc0\xaf", 2, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xe0\x80\xaf", 3, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xf0\x80\x80\xaf", 4, &cp), 0);
	/* surrogates: U+D800 and U+DFFF */
	assert_int_equal(text_utf8_next((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xed\xbf\xbf", 3, &cp), 0);
	/* past U+10FFFF, five bytes, a lone continuation */
	assert_int_equal(text_utf8_next((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xf8\x88\x80\x80\x80", 5, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\x80", 1, &cp), 0);
	/* cut short: by the length, or by a byte that continues nothing */
	assert_int_equal(text_utf8_next((const unsigned char *)"\xe2\x82\xac", 2, &cp), 0);
	assert_int_equal(text_utf8_next((const unsigned char *)"\xe2\x82x", 3, &cp), 0);

	assert_true(text_utf8_valid("", 0, &off));
	assert_true(text_utf8_valid("caf\xc3\xa9", 5, &off));
	assert_int_equal(off, 99);
	assert_false(text_utf8_valid("ab\xc3", 3, &off));
	assert_int_equal(off, 2);
	assert_false(text_utf8_valid("abc\xed\xa0\x80", 6, NULL));
}

static void test_clean(void **state)
{
	size_t n = 0;
	char buf[8];

	(void)state;
	/* one U+FFFD per bad byte; a cut sequence's lead byte is one bad byte
	 * and what follows is read again */
	char *c = text_clean("a\xff" "b\xe2\x82" "c", 6, false, &n);
	assert_string_equal(c, "a" FFFD "b" FFFD FFFD "c");
	assert_int_equal(n, strlen(c));
	free(c);
	c = text_clean("a\0b", 3, true, &n);
	assert_int_equal(n, 5);
	assert_memory_equal(c, "a" FFFD "b", 5);
	free(c);
	c = text_clean("a\0b", 3, false, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(c, "a\0b", 3);
	free(c);
	c = text_clean("\xe2\x82\xac", 3, true, NULL);
	assert_string_equal(c, "\xe2\x82\xac");
	free(c);

	/* into a bounded buffer, whole characters only: past the limit stops */
	assert_int_equal(text_clean_into(buf, 7, "ab\xe2\x82\xac\xe2\x82\xac", 8), 5);
	assert_string_equal(buf, "ab\xe2\x82\xac");
	assert_int_equal(text_clean_into(buf, 7, "abcd\xff", 5), 7);
	assert_string_equal(buf, "abcd" FFFD);
	assert_int_equal(text_clean_into(buf, 7, "abcde\xff", 6), 5);
	assert_string_equal(buf, "abcde");
	assert_int_equal(text_clean_into(buf, 7, "", 0), 0);
	assert_string_equal(buf, "");
}

static void test_json_value(void **state)
{
	(void)state;
	json_t *j = text_json_string("/data/caf\xe9.bin");
	assert_string_equal(json_string_value(j), "/data/caf" FFFD ".bin");
	json_decref(j);
	j = text_json_stringn("a\0b", 3);
	assert_string_equal(json_string_value(j), "a" FFFD "b");
	json_decref(j);
	j = text_json_stringn("caf\xc3\xa9", 5);
	assert_string_equal(json_string_value(j), "caf\xc3\xa9");
	json_decref(j);
	j = text_json_string(NULL);
	assert_true(json_is_null(j));
	assert_true(json_is_null(text_json_stringn(NULL, 3)));
}

static void test_json_write(void **state)
{
	char *s;

	(void)state;
	s = json_of("plain", 5);
	assert_string_equal(s, "\"plain\"");
	free(s);
	s = json_of("q\"b\\n\nr\rt\tb\bf\f\x01\x1f\x7f", 17);
	assert_string_equal(s, "\"q\\\"b\\\\n\\nr\\rt\\tb\\bf\\f\\u0001\\u001f\x7f\"");
	free(s);
	/* NUL is a control character, escaped like the others */
	s = json_of("a\0b", 3);
	assert_string_equal(s, "\"a\\u0000b\"");
	free(s);
	/* valid multi-byte text passes as it is */
	s = json_of("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
	assert_string_equal(s, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"");
	free(s);
	/* overlong, surrogate, cut short, a lone continuation: U+FFFD per byte */
	s = json_of("\xc0\xaf", 2);
	assert_string_equal(s, "\"" FFFD FFFD "\"");
	free(s);
	s = json_of("\xed\xa0\x80", 3);
	assert_string_equal(s, "\"" FFFD FFFD FFFD "\"");
	free(s);
	s = json_of("ab\xe2\x82", 4);
	assert_string_equal(s, "\"ab" FFFD FFFD "\"");
	free(s);
	s = json_of("\x80x", 2);
	assert_string_equal(s, "\"" FFFD "x\"");
	free(s);
	s = json_of("", 0);
	assert_string_equal(s, "\"\"");
	free(s);
}

static void test_csv(void **state)
{
	struct out o;
	char *s;

	(void)state;
	s = csv_of("plain", 5);
	assert_string_equal(s, "plain");
	free(s);
	s = csv_of("a,b", 3);
	assert_string_equal(s, "\"a,b\"");
	free(s);
	s = csv_of("say \"hi\"", 8);
	assert_string_equal(s, "\"say \"\"hi\"\"\"");
	free(s);
	s = csv_of("cr\rlf\n", 6);
	assert_string_equal(s, "\"cr\rlf\n\"");
	free(s);
	/* spaces at either end, which readers may trim, are kept by quoting;
	 * one inside is not a reason to quote */
	s = csv_of(" lead", 5);
	assert_string_equal(s, "\" lead\"");
	free(s);
	s = csv_of("trail ", 6);
	assert_string_equal(s, "\"trail \"");
	free(s);
	s = csv_of("in side", 7);
	assert_string_equal(s, "in side");
	free(s);
	/* the empty text differs from NULL */
	s = csv_of("", 0);
	assert_string_equal(s, "\"\"");
	free(s);
	s = csv_of(NULL, 0);
	assert_string_equal(s, "");
	free(s);
	/* only len bytes count */
	s = csv_of("ab,c", 2);
	assert_string_equal(s, "ab");
	free(s);
	out_open(&o);
	text_csv_write_cstr(o.f, "x\"");
	text_csv_write_cstr(o.f, NULL);
	text_csv_write_cstr(o.f, "");
	s = out_close(&o);
	assert_string_equal(s, "\"x\"\"\"\"\"");
	free(s);
}

static void test_visible(void **state)
{
	char *s;

	(void)state;
	s = text_visible("\x1b[31mred\n\t\r\x7f", 12);
	assert_string_equal(s, "\\x1b[31mred\\n\\t\\r\\x7f");
	free(s);
	/* C1 (U+009B, a CSI of its own) escaped; other text as it is */
	s = text_visible("\xc2\x9b" "caf\xc3\xa9", 7);
	assert_string_equal(s, "\\u009bcaf\xc3\xa9");
	free(s);
	/* bytes that are not UTF-8 show what they are */
	s = text_visible("a\xff\xe2\x82", 4);
	assert_string_equal(s, "a\\xff\\xe2\\x82");
	free(s);
	s = text_visible("a\0b", 3);
	assert_string_equal(s, "a\\x00b");
	free(s);
	/* the most a byte can grow: four times, and nothing lost */
	s = text_visible("\x01\x02\x03\xff", 4);
	assert_string_equal(s, "\\x01\\x02\\x03\\xff");
	free(s);
	s = text_visible("", 0);
	assert_string_equal(s, "");
	free(s);
}

static char *html_of(const char *s, size_t len)
{
	struct out o;
	out_open(&o);
	text_html_write(o.f, s, len);
	return out_close(&o);
}

static void test_html(void **state)
{
	struct out o;
	char *s;

	(void)state;
	/* markup and both quotes become references, so the text can stand
	 * in an element or in an attribute quoted either way */
	s = html_of("<script>alert('x&y')</script>", 29);
	assert_string_equal(s, "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt;");
	free(s);
	s = html_of("a=\"b\" c>d", 9);
	assert_string_equal(s, "a=&quot;b&quot; c&gt;d");
	free(s);
	/* UTF-8 passes as it is; what a person cannot see is shown escaped,
	 * as on a terminal */
	s = html_of("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d", 14);
	assert_string_equal(s, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d");
	free(s);
	s = html_of("\x1b[31m\n\x7f\xc2\x9b", 9);
	assert_string_equal(s, "\\x1b[31m\\n\\x7f\\u009b");
	free(s);
	/* bytes that are not UTF-8, a NUL, a sequence cut short by len */
	s = html_of("/tmp/\xff<\0\xe2\x82", 10);
	assert_string_equal(s, "/tmp/\\xff&lt;\\x00\\xe2\\x82");
	free(s);
	/* only len bytes count; the empty text is empty */
	s = html_of("ab<c", 2);
	assert_string_equal(s, "ab");
	free(s);
	s = html_of("", 0);
	assert_string_equal(s, "");
	free(s);
	out_open(&o);
	text_html_write_cstr(o.f, "1 < 2");
	text_html_write_cstr(o.f, NULL);
	text_html_write_cstr(o.f, "&");
	s = out_close(&o);
	assert_string_equal(s, "1 &lt; 2&amp;");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),	   cmocka_unit_test(test_clean), cmocka_unit_test(test_json_value),
		cmocka_unit_test(test_json_write), cmocka_unit_test(test_csv),	 cmocka_unit_test(test_visible),
		cmocka_unit_test(test_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
