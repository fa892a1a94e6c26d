/* Event lines: the fast parser and the general one agree on every line the
 * fast one takes, the general one reads what the fast one leaves, and every
 * invalid line is refused with a reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "limits.h"
#include "trace-fast.h"
#include "trace-general.h"
#include "trace-parse.h"

/* Parses line with both parsers: the general one must accept it, and when
 * the fast one does too, give the same event.  Returns whether the fast
 * parser took it; *ret gets the general parser's event (its scope valid
 * until g is used again). */
static bool both(struct trace_general *g, const char *line, struct trace_event *ret)
{
	struct trace_event fast;
	struct error reason = { 0 };
	size_t len = strlen(line);
	int r = trace_general_parse(g, line, len, ret, &reason);
	if (r != 0)
		fail_msg("general parser refused %s: %s", line, reason.message);
	/* without predictions, then twice with (learning, then using them) */
	struct trace_fast s;
	trace_fast_init(&s);
	int rf = trace_fast_parse(NULL, line, len, &fast);
	for (int i = 0; i < 2; i++) {
		struct trace_event again;
		assert_int_equal(trace_fast_parse(&s, line, len, &again), rf);
		if (rf == 0 && !trace_event_equal(&fast, &again))
			fail_msg("predicted keys change the meaning of %s", line);
	}
	if (rf != 0)
		return false;
	if (!trace_event_equal(&fast, ret))
		fail_msg("the parsers disagree on %s", line);
	return true;
}

/* A line the general parser refuses: the fast one must not take it.
 * Returns whether the fast one did (false when all is well). */
static bool both_refused(struct trace_general *g, const char *line)
{
	struct trace_event e;
	struct error reason;
	assert_int_equal(trace_general_parse(g, line, strlen(line), &e, &reason), -EINVAL);
	return trace_fast_parse(NULL, line, strlen(line), &e) == 0;
}

static void test_common_lines_take_the_fast_path(void **state)
{
	(void)state;
	struct trace_general g;
	struct trace_event e;
	trace_general_init(&g);

	assert_true(both(&g,
			 "{\"v\":3,\"seq\":7,\"kind\":\"alloc\",\"allocator_id\":2,\"address\":140737488355328,"
			 "\"len\":4096,\"return_address\":4198400,\"scope_id\":3,\"producer\":\"hook\"}",
			 &e));
	assert_int_equal(e.kind, TRACE_KIND_ALLOC);
	assert_true(e.has_seq);
	assert_int_equal(e.seq, 7);
	assert_int_equal(e.allocator_id, 2);
	assert_true(e.address == 140737488355328ull);
	assert_int_equal(e.len, 4096);
	assert_int_equal(e.return_address, 4198400);
	assert_int_equal(e.scope_id, 3);
	assert_null(e.scope);
	/* defaults */
	assert_int_equal(e.layer, TRACE_LAYER_BACKING);
	assert_true(e.succeeded && e.tracked && e.observation_prefix_complete);
	assert_false(e.retains_freed_memory || e.lifecycle_instrumented);

	assert_true(both(&g,
			 "{ \"kind\" : \"remap\" ,\"allocation_id\":9,\"old_address\":16,\"address\":32,\"old_len\":1,"
			 "\"len\":2,\"layer\":\"logical_allocator\",\"succeeded\":false,\"tracked\":false,"
			 "\"scope\":\"root/a b\" }",
			 &e));
	assert_int_equal(e.kind, TRACE_KIND_REMAP);
	assert_int_equal(e.allocation_id, 9);
	assert_int_equal(e.old_address, 16);
	assert_int_equal(e.old_len, 1);
	assert_int_equal(e.layer, TRACE_LAYER_LOGICAL);
	assert_false(e.succeeded || e.tracked);
	assert_int_equal(e.scope_len, 8);
	assert_memory_equal(e.scope, "root/a b", 8);

	assert_true(both(&g,
			 "{\"kind\":\"allocator\",\"retains_freed_memory\":true,\"lifecycle_instrumented\":true,"
			 "\"observation_prefix_complete\":false,\"layer\":\"physical_page\"}",
			 &e));
	assert_true(e.retains_freed_memory && e.lifecycle_instrumented);
	assert_false(e.observation_prefix_complete);
	assert_int_equal(e.layer, TRACE_LAYER_PHYSICAL);

	/* fields this format does not define are skipped, scalars of any kind */
	assert_true(both(&g, "{\"ts\":1.5e3,\"tid\":-4,\"name\":\"x\",\"ok\":null,\"kind\":\"free\",\"b\":true}", &e));
	assert_int_equal(e.kind, TRACE_KIND_FREE);

	/* an empty scope is no scope */
	assert_true(both(&g, "{\"kind\":\"free\",\"scope\":\"\"}", &e));
	assert_null(e.scope);
	trace_general_done(&g);
}

static void test_every_kind(void **state)
{
	(void)state;
	static const char *const kinds[] = { "trace.start", "trace.stop", "allocator", "alloc", "free",
					     "release", "resize", "remap", "lifecycle", "scope.enter",
					     "scope.exit", "map", "unmap", "protect", "discard",
					     "decommit", "advise", "snapshot", "census", "object", "stack" };
	struct trace_general g;
	struct trace_event e;
	char line[128];
	trace_general_init(&g);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(line, sizeof(line), "{\"kind\":\"%s\"}", kinds[i]);
		assert_true(both(&g, line, &e));
		assert_int_equal(e.kind, i);
		assert_string_equal(trace_kind_name(e.kind), kinds[i]);
	}
	trace_general_done(&g);
}

/* Lines only the general parser reads, and what they mean. */
static void test_general_path(void **state)
{
	(void)state;
	struct trace_general g;
	struct trace_event e, plain;
	trace_general_init(&g);

	/* escapes in keys and values mean what they spell */
	assert_false(both(&g, "{\"\\u006bind\":\"\\u0061lloc\",\"len\":5,\"scope\":\"root\\/\\\"q\\\"\"}", &e));
	assert_int_equal(e.kind, TRACE_KIND_ALLOC);
	assert_int_equal(e.len, 5);
	assert_int_equal(e.scope_len, 8);
	assert_memory_equal(e.scope, "root/\"q\"", 8);

	/* UTF-8 and a NUL inside a scope are kept byte for byte */
	assert_false(both(&g, "{\"kind\":\"alloc\",\"scope\":\"r\xc3\xa9/\\u0000x\"}", &e));
	assert_int_equal(e.scope_len, 6);
	assert_memory_equal(e.scope, "r\xc3\xa9/\0x", 6);

	/* nested values in fields this format does not define */
	assert_false(both(&g, "{\"kind\":\"free\",\"stack\":[1,[2,{\"a\":null}]],\"m\":{\"len\":\"x\"},\"len\":3}", &e));
	assert_int_equal(e.len, 3);

	/* integers above 2^63 (which jansson cannot hold) in a line that also
	 * needs the general parser */
	assert_false(both(&g, "{\"kind\":\"alloc\",\"address\":18446744073709551615,\"len\":9223372036854775808,"
			      "\"scope\":\"\\u0061\",\"extra\":123456789012345678901234567890}",
			  &e));
	assert_true(e.address == UINT64_MAX);
	assert_true(e.len == 9223372036854775808ull);

	/* the same event written plainly takes the fast path: same event */
	struct trace_general g2;
	trace_general_init(&g2);
	assert_true(both(&g2, "{\"kind\":\"alloc\",\"address\":18446744073709551615,\"len\":9223372036854775808,"
			      "\"scope\":\"a\",\"extra\":123456789012345678901234567890}",
			 &plain));
	assert_true(trace_event_equal(&plain, &e));
	trace_general_done(&g2);

	/* more fields of other formats than the fast parser keeps apart */
	char line[512] = "{\"kind\":\"free\"";
	for (int i = 0; i <= TRACE_FAST_UNKNOWN_MAX; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ",\"x%d\":%d", i, i);
	strcat(line, ",\"len\":4}");
	assert_false(both(&g, line, &e));
	assert_int_equal(e.len, 4);
	/* one fewer is still read fast */
	strcpy(line, "{\"kind\":\"free\"");
	for (int i = 0; i < TRACE_FAST_UNKNOWN_MAX; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), ",\"x%d\":%d", i, i);
	strcat(line, ",\"len\":4}");
	assert_true(both(&g, line, &e));
	trace_general_done(&g);
}

static void test_numbers(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint64_t value;
	} ok[] = {
		{ "0", 0 },
		{ "7", 7 },
		{ "1234567890123456789", 1234567890123456789ull },
		{ "9223372036854775807", 9223372036854775807ull },
		{ "9223372036854775808", 9223372036854775808ull },
		{ "10000000000000000000", 10000000000000000000ull },
		{ "18446744073709551614", 18446744073709551614ull },
		{ "18446744073709551615", 18446744073709551615ull },
	};
	struct trace_general g;
	struct trace_event e;
	char line[160];
	trace_general_init(&g);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(line, sizeof(line), "{\"kind\":\"alloc\",\"len\":%s}", ok[i].text);
		assert_true(both(&g, line, &e));
		assert_true(e.len == ok[i].value);
	}
	/* every length, at every alignment within a word, and then followed
	 * by each byte that may end a number */
	for (int digits = 1; digits <= 20; digits++) {
		char num[32];
		uint64_t want = 0;
		for (int i = 0; i < digits; i++) {
			num[i] = (char)('1' + (i * 7 + digits) % 9);
			want = want * 10 + (uint64_t)(num[i] - '0');
		}
		num[digits] = '\0';
		if (digits == 20)
			strcpy(num, "18446744073709551615"), want = UINT64_MAX;
		for (int pad = 0; pad < 8; pad++) {
			snprintf(line, sizeof(line), "{\"kind\":\"alloc\",\"%.*sx\":0,\"len\":%s}", pad, "pppppppp", num);
			assert_true(both(&g, line, &e));
			assert_true(e.len == want);
			snprintf(line, sizeof(line), "{\"kind\":\"alloc\",\"%.*sx\":0,\"len\":%s ,\"v\":3}", pad,
				 "pppppppp", num);
			assert_true(both(&g, line, &e));
			assert_true(e.len == want);
		}
	}
	/* 2^64 and a digit glued to the 19th or 20th: not read fast */
	assert_false(both_refused(&g, "{\"kind\":\"alloc\",\"len\":18446744073709551616}"));
	assert_false(both_refused(&g, "{\"kind\":\"alloc\",\"len\":184467440737095516150}"));
	assert_false(both_refused(&g, "{\"kind\":\"alloc\",\"len\":12345678901234567890123}"));
	assert_false(both_refused(&g, "{\"kind\":\"alloc\",\"len\":123456789x}"));
	/* 32-bit fields: 2^32-1 is the largest */
	assert_true(both(&g, "{\"kind\":\"alloc\",\"allocator_id\":4294967295,\"scope_id\":4294967295}", &e));
	assert_true(e.allocator_id == UINT32_MAX && e.scope_id == UINT32_MAX);
	trace_general_done(&g);
}

/* line refused with reason, by the general parser; the fast one leaves it */
static void refused(struct trace_parser *p, const char *line, const char *reason)
{
	struct trace_event e, fast;
	struct error got = { 0 };
	int r = trace_parser_line(p, line, strlen(line), &e, &got);
	if (r != -EINVAL)
		fail_msg("%s: accepted (%d)", line, r);
	if (strcmp(got.message, reason) != 0)
		fail_msg("%s: reason \"%s\", expected \"%s\"", line, got.message, reason);
	assert_int_equal(trace_fast_parse(NULL, line, strlen(line), &fast), -EAGAIN);
}

static void test_invalid_lines(void **state)
{
	(void)state;
	struct trace_parser p;
	trace_parser_init(&p);

	refused(&p, "{\"kind\":\"alloc\"", "not valid JSON: '}' expected near end of file");
	refused(&p, "[1,2]", "an event must be a JSON object");
	refused(&p, "\"alloc\"", "an event must be a JSON object");
	refused(&p, "{}", "no \"kind\" field");
	refused(&p, "{\"len\":5}", "no \"kind\" field");
	refused(&p, "{\"kind\":\"malloc\"}", "unknown kind \"malloc\"");
	refused(&p, "{\"kind\":\"alloc\\nx\"}", "unknown kind \"alloc\\u000ax\"");
	refused(&p, "{\"kind\":5}", "field \"kind\" must be a string");
	refused(&p, "{\"kind\":\"alloc\",\"layer\":\"gpu\"}",
		"unknown layer \"gpu\" (backing_boundary, logical_allocator or physical_page)");
	refused(&p, "{\"kind\":\"alloc\",\"len\":\"5\"}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":-5}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":-0}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":5.0}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":5e2}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":null}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":[5]}", "field \"len\" must be an unsigned integer");
	refused(&p, "{\"kind\":\"alloc\",\"len\":18446744073709551616}",
		"field \"len\" is larger than 18446744073709551615");
	refused(&p, "{\"kind\":\"alloc\",\"seq\":99999999999999999999999}",
		"field \"seq\" is larger than 18446744073709551615");
	refused(&p, "{\"kind\":\"alloc\",\"allocator_id\":4294967296}",
		"field \"allocator_id\" is larger than 4294967295");
	refused(&p, "{\"kind\":\"alloc\",\"scope_id\":-1}", "field \"scope_id\" must be an unsigned integer below 2^32");
	refused(&p, "{\"kind\":\"alloc\",\"tracked\":1}", "field \"tracked\" must be true or false");
	refused(&p, "{\"kind\":\"alloc\",\"succeeded\":\"true\"}", "field \"succeeded\" must be true or false");
	refused(&p, "{\"kind\":\"alloc\",\"scope\":7}", "field \"scope\" must be a string");
	refused(&p, "{\"kind\":\"alloc\",\"producer\":{}}", "field \"producer\" must be a string");
	refused(&p, "{\"v\":2,\"kind\":\"alloc\"}", "format version 2 is not supported (this reads version 3)");
	refused(&p, "{\"v\":\"3\",\"kind\":\"alloc\"}", "field \"v\" must be the integer 3");
	refused(&p, "{\"v\":3.0,\"kind\":\"alloc\"}", "field \"v\" must be the integer 3");
	refused(&p, "{\"kind\":\"alloc\",\"len\":1,\"len\":2}", "not valid JSON: duplicate object key near '\"len\"'");
	refused(&p, "{\"kind\":\"alloc\",\"x\":1,\"x\":1}", "not valid JSON: duplicate object key near '\"x\"'");
	refused(&p, "{\"kind\":\"alloc\",\"len\":01}", "not valid JSON: invalid token near '0'");
	refused(&p, "{\"kind\":\"alloc\"} {", "not valid JSON: end of file expected near '{'");
	refused(&p, "{\"kind\":\"alloc\",\"scope\":\"\xff\"}", "not valid JSON: unable to decode byte 0xff near '\"'");
	refused(&p, "{\"kind\":\"alloc\",\"scope\":\"\\ud800\"}",
		"not valid JSON: invalid Unicode '\\uD800' near '\"\\ud800\"'");
	refused(&p, "{\"kind\":\"alloc\",\"scope\":\"a\tb\"}", "not valid JSON: control character 0x9 near '\"a'");
	trace_parser_done(&p);
}

static void test_blank_and_trimmed(void **state)
{
	(void)state;
	struct trace_parser p;
	struct trace_event e;
	struct error reason;
	trace_parser_init(&p);
	assert_int_equal(trace_parser_line(&p, "", 0, &e, &reason), 0);
	assert_int_equal(trace_parser_line(&p, " \t\r ", 4, &e, &reason), 0);
	assert_int_equal(trace_parser_line(&p, "\t{\"kind\":\"free\"}\r", 17, &e, &reason), 1);
	assert_int_equal(e.kind, TRACE_KIND_FREE);
	assert_int_equal(p.fast_lines, 1);
	assert_int_equal(p.general_lines, 0);
	trace_parser_done(&p);
}

/* jansson refuses JSON nested deeper than 2048 levels: such a line is
 * refused as invalid, never a crash. */
static void test_nesting_past_the_limit(void **state)
{
	(void)state;
	enum { DEPTH = 3000 };
	struct trace_parser p;
	struct trace_event e;
	struct error reason;
	char *line = malloc(2 * DEPTH + 64);
	size_t n = (size_t)sprintf(line, "{\"kind\":\"free\",\"x\":");
	memset(line + n, '[', DEPTH);
	n += DEPTH;
	memset(line + n, ']', DEPTH);
	n += DEPTH;
	line[n++] = '}';
	trace_parser_init(&p);
	assert_int_equal(trace_parser_line(&p, line, n, &e, &reason), -EINVAL);
	assert_string_equal(reason.message, "not valid JSON: maximum parsing depth reached near '['");
	/* within the limit it is read */
	n = (size_t)sprintf(line, "{\"kind\":\"free\",\"x\":[[[[[[[[[[]]]]]]]]]]}");
	assert_int_equal(trace_parser_line(&p, line, n, &e, &reason), 1);
	trace_parser_done(&p);
	free(line);
}

/* Every prefix of valid lines: refused or read, never read out of
 * bounds (run under AddressSanitizer), and never read differently. */
static void test_prefixes(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"{\"v\":3,\"seq\":18446744073709551615,\"kind\":\"alloc\",\"address\":1,\"len\":2,\"scope\":\"a\"}",
		"{\"kind\":\"free\",\"x\":[1,{\"y\":\"\\u00e9\"}],\"tracked\":false,\"n\":-1.5e-3}",
	};
	struct trace_general g;
	trace_general_init(&g);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		size_t len = strlen(lines[i]);
		for (size_t n = 0; n <= len; n++) {
			char *copy = malloc(n ? n : 1);
			struct trace_event fast, general;
			struct error reason;
			memcpy(copy, lines[i], n);
			int rf = trace_fast_parse(NULL, copy, n, &fast);
			int rg = trace_general_parse(&g, copy, n, &general, &reason);
			if (rf == 0) {
				assert_int_equal(rg, 0);
				assert_true(trace_event_equal(&fast, &general));
			}
			assert_int_equal(rg == 0, n == len);
			free(copy);
		}
	}
	trace_general_done(&g);
}

/* Keys predicted from one line are checked, not trusted, on the next:
 * lines whose keys differ, are spaced, escaped or reordered still read
 * right. */
static void test_predicted_keys(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"{\"v\":3,\"seq\":1,\"kind\":\"alloc\",\"address\":16,\"len\":8,\"scope_id\":2}",
		"{\"v\":3,\"seq\":2,\"kind\":\"alloc\",\"address\":16,\"len\":8,\"scope_id\":2}",
		"{\"v\":3,\"seq\":3,\"kind\":\"resize\",\"address\":16,\"old_len\":8,\"len\":9}",
		"{\"v\" :3,\"seq\": 4,\"kind\":\"free\",\"len\":9 ,\"address\":16}",
		"{\"v\":3,\"sequence\":5,\"kind\":\"free\",\"address\":16}",
		"{\"v\":3,\"se\":5,\"kind\":\"free\",\"address\":16}",
		"{\"v\":3,\"seq\":6,\"kind\":\"free\",\"address\":16,\"address\":17}",
		"{\"v\":3,\"seq\":7,\"kind\":\"free\",\"addresses\":16}",
		"{\"v\":3,\"seq\":8,\"kind\":\"free\",\"address\":16}",
	};
	struct trace_fast s;
	struct trace_general g;
	trace_fast_init(&s);
	trace_general_init(&g);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct trace_event fast, plain, general;
		struct error reason;
		size_t len = strlen(lines[i]);
		int rp = trace_fast_parse(NULL, lines[i], len, &plain);
		assert_int_equal(trace_fast_parse(&s, lines[i], len, &fast), rp);
		int rg = trace_general_parse(&g, lines[i], len, &general, &reason);
		if (rp == 0) {
			assert_int_equal(rg, 0);
			assert_true(trace_event_equal(&fast, &plain));
			assert_true(trace_event_equal(&fast, &general));
		}
	}
	/* the duplicate address is left to the general parser, which refuses it */
	struct trace_event e;
	assert_int_equal(trace_fast_parse(&s, lines[6], strlen(lines[6]), &e), -EAGAIN);
	trace_general_done(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_common_lines_take_the_fast_path),
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_general_path),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_invalid_lines),
		cmocka_unit_test(test_blank_and_trimmed),
		cmocka_unit_test(test_nesting_past_the_limit),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_predicted_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
