/* Replaying files: line numbers in errors, blank lines and CRLF, a last
 * line without newline, the longest line accepted and one byte more,
 * lines across read blocks, and read errors. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "limits.h"
#include "trace-replay.h"

struct result {
	int r;
	struct trace_replay_error err;
	uint64_t events, allocated_bytes, fast_lines, general_lines;
};

/* Replays text from a file (through read()) or from memory. */
static struct result run(const char *text, size_t len, bool from_file)
{
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	struct trace_analyzer a;
	struct trace_parser p;
	struct result res;

	trace_analyzer_init(&a, &o);
	trace_parser_init(&p);
	if (from_file) {
		FILE *f = tmpfile();
		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, len, f), len);
		fflush(f);
		int fd = dup(fileno(f));
		lseek(fd, 0, SEEK_SET);
		res.r = trace_replay_fd(&a, &p, fd, &res.err);
		close(fd);
		fclose(f);
	} else {
		res.r = trace_replay_buffer(&a, &p, text, len, &res.err);
	}
	res.events = a.events;
	res.allocated_bytes = a.totals.c.allocated_bytes;
	res.fast_lines = p.fast_lines;
	res.general_lines = p.general_lines;
	trace_parser_done(&p);
	trace_analyzer_done(&a);
	return res;
}

static void both_ways(const char *text, int r, uint64_t line, const char *reason, uint64_t events)
{
	for (int from_file = 0; from_file <= 1; from_file++) {
		struct result res = run(text, strlen(text), from_file);
		assert_int_equal(res.r, r);
		if (r) {
			assert_int_equal(res.err.line, line);
			assert_string_equal(res.err.error.message, reason);
		}
		assert_int_equal(res.events, events);
	}
}

static void test_line_numbers(void **state)
{
	(void)state;
	/* blank lines, CRLF and spaces count as lines but hold no event */
	both_ways("{\"kind\":\"alloc\",\"len\":1}\r\n\n   \r\n\t\n{\"kind\":\"alloc\",\"len\":2}\n{\"kind\":\"alok\"}\n"
		  "{\"kind\":\"alloc\"}\n",
		  -EINVAL, 6, "unknown kind \"alok\"", 2);
	/* the last line needs no newline */
	both_ways("{\"kind\":\"alloc\",\"len\":1}\n{\"kind\":\"free\"}", 0, 0, NULL, 2);
	both_ways("{\"kind\":\"alloc\",\"len\":1}\n{\"kind\":\"free\"", -EINVAL, 2,
		  "not valid JSON: '}' expected near end of file", 1);
	both_ways("", 0, 0, NULL, 0);
	both_ways("\n\n", 0, 0, NULL, 0);
}

/* A NUL byte inside a line is invalid, not the end of it. */
static void test_nul_byte(void **state)
{
	(void)state;
	static const char text[] = "{\"kind\":\"free\"}\n{\"kind\":\"free\"}\0\n";
	for (int from_file = 0; from_file <= 1; from_file++) {
		struct result res = run(text, sizeof(text) - 1, from_file);
		assert_int_equal(res.r, -EINVAL);
		assert_int_equal(res.err.line, 2);
	}
}

/* Events replay in order: an error of an earlier event is reported before
 * a parse error of a later line (the parser runs a few lines ahead). */
static void test_first_error_wins(void **state)
{
	(void)state;
	both_ways("{\"kind\":\"alloc\",\"len\":1}\n{\"kind\":\"alloc\",\"scope_id\":4}\n{\"kind\":\"alloc\",\"len\":2}\n"
		  "not json\n",
		  -EINVAL, 2, "scope_id 4 is used before a scope.enter gives it a path", 1);
	/* and after a line only the general parser reads */
	both_ways("{\"kind\":\"alloc\",\"len\":1,\"scope\":\"\\u0061\"}\n{\"kind\":\"alloc\",\"scope_id\":4}\n", -EINVAL,
		  2, "scope_id 4 is used before a scope.enter gives it a path", 1);
}

static char *line_of(size_t len)
{
	/* {"kind":"alloc","len":1,"p":"xxxx...x"} of exactly len bytes */
	static const char head[] = "{\"kind\":\"alloc\",\"len\":1,\"p\":\"";
	char *line = malloc(len + 2);
	size_t h = sizeof(head) - 1;
	memcpy(line, head, h);
	memset(line + h, 'x', len - h - 2);
	memcpy(line + len - 2, "\"}", 2);
	line[len] = '\n';
	line[len + 1] = '\0';
	return line;
}

static void test_line_limit(void **state)
{
	(void)state;
	/* a line counts with its newline, as the reference reads lines
	 * through a buffer of RW_TRACE_LINE_MAX bytes */
	char *longest = line_of(RW_TRACE_LINE_MAX - 1), *longer = line_of(RW_TRACE_LINE_MAX);
	char *last = line_of(RW_TRACE_LINE_MAX + 1);
	size_t n = strlen(longer);
	char *text = malloc(2 * n + 64);

	snprintf(text, 2 * n + 64, "%s%s", longest, longest);
	both_ways(text, 0, 0, NULL, 2);
	snprintf(text, 2 * n + 64, "%s%s", longest, longer);
	both_ways(text, -EINVAL, 2, "line is longer than 65536 bytes", 1);
	/* without its newline, at the end of the file, a line may fill the
	 * whole room, and not one byte more */
	longer[RW_TRACE_LINE_MAX] = '\0';
	snprintf(text, 2 * n + 64, "{\"kind\":\"free\"}\n%s", longer);
	both_ways(text, 0, 0, NULL, 2);
	last[RW_TRACE_LINE_MAX + 1] = '\0';
	snprintf(text, 2 * n + 64, "{\"kind\":\"free\"}\n%s", last);
	both_ways(text, -EINVAL, 2, "line is longer than 65536 bytes", 1);
	/* blank padding counts: the limit is on the line as read */
	memset(text, ' ', RW_TRACE_LINE_MAX);
	strcpy(text + RW_TRACE_LINE_MAX, "\n");
	both_ways(text, -EINVAL, 1, "line is longer than 65536 bytes", 0);
	free(text);
	free(longest);
	free(longer);
	free(last);
}

/* Several read blocks (1 MiB each) with lines across their edges give
 * the same replay as the whole text at once. */
static void test_across_blocks(void **state)
{
	(void)state;
	size_t cap = 5u << 20, len = 0;
	char *text = malloc(cap);
	uint64_t expected = 0, lines = 0;
	while (len < cap - 200) {
		uint64_t n = (lines * 7919) % 100000;
		len += (size_t)snprintf(text + len, cap - len, "{\"kind\":\"alloc\",\"address\":%llu,\"len\":%llu%s}\n",
					(unsigned long long)lines, (unsigned long long)n,
					lines % 1000 == 0 ? ",\"scope\":\"\\u0061\"" : "");
		expected += n;
		lines++;
	}
	struct result f = run(text, len, true), m = run(text, len, false);
	assert_int_equal(f.r, 0);
	assert_int_equal(m.r, 0);
	assert_int_equal(f.events, lines);
	assert_int_equal(f.allocated_bytes, expected);
	assert_int_equal(m.allocated_bytes, expected);
	/* most lines take the fast path, the escaped ones the general one */
	assert_int_equal(f.general_lines, (lines + 999) / 1000);
	assert_int_equal(f.fast_lines + f.general_lines, lines);
	free(text);
}

static void test_read_error(void **state)
{
	(void)state;
	struct trace_replay_options o = { .layer = TRACE_LAYER_BACKING };
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	int fd = open(".", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	trace_analyzer_init(&a, &o);
	trace_parser_init(&p);
	assert_int_equal(trace_replay_fd(&a, &p, fd, &err), -EISDIR);
	assert_int_equal(err.line, 0);
	close(fd);
	trace_parser_done(&p);
	trace_analyzer_done(&a);
}

/* ---------------------------------------------------------- a file being written */

/* A writer appending a file in pieces of odd sizes, one a call of more(),
 * the last one with the answer that it is done. */
struct writer {
	FILE *f;
	const char *text;
	size_t len, at, calls;
};

static bool append_more(void *data)
{
	static const size_t pieces[] = { 1, 7, 333, 2, 4096, 90, 65536, 3 };
	struct writer *w = data;
	size_t n = pieces[w->calls++ % 8];

	if (n > w->len - w->at)
		n = w->len - w->at;
	assert_int_equal(fwrite(w->text + w->at, 1, n, w->f), n);
	fflush(w->f);
	w->at += n;
	return w->at < w->len;
}

static struct result follow(const char *text, size_t len, size_t *ret_calls)
{
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
	struct writer w = { .f = tmpfile(), .text = text, .len = len };
	struct trace_analyzer a;
	struct trace_parser p;
	struct result res;

	char path[64];
	int fd;

	assert_non_null(w.f);
	/* a descriptor of its own, reading where the writer appends */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fileno(w.f));
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	trace_analyzer_init(&a, &o);
	trace_parser_init(&p);
	res.r = trace_replay_follow(&a, &p, fd, append_more, &w, &res.err);
	res.events = a.events;
	res.allocated_bytes = a.totals.c.allocated_bytes;
	trace_parser_done(&p);
	trace_analyzer_done(&a);
	close(fd);
	fclose(w.f);
	*ret_calls = w.calls;
	return res;
}

static char *read_data(const char *name, size_t *ret_len)
{
	const char *dir = getenv("RAMWATCH_TEST_DATA");
	char path[4096];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	assert_non_null(buf = malloc((size_t)n + 1));
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

/* A trace replayed while it is written, in pieces that cut lines and
 * records anywhere, is the trace replayed once written; cut short by its
 * writer, it is refused at its end as it is then. */
static void test_follow_a_file_being_written(void **state)
{
	static const char *const names[] = { "trace/tracer-mix.bin", "trace/gen-mix.jsonl", "trace/bad-kind.jsonl" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len = 0, calls;
		char *text = read_data(names[i], &len);
		if (!text)
			skip();
		for (size_t cut = 0; cut < 2; cut++) {
			size_t n = cut ? len * 2 / 3 : len;
			struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
			struct trace_analyzer a;
			struct trace_parser p;
			struct result whole;

			trace_analyzer_init(&a, &o);
			trace_parser_init(&p);
			whole.r = trace_replay_buffer(&a, &p, text, n, &whole.err);
			whole.events = a.events;
			whole.allocated_bytes = a.totals.c.allocated_bytes;
			trace_parser_done(&p);
			trace_analyzer_done(&a);

			struct result res = follow(text, n, &calls);
			assert_true(calls > 2);
			assert_int_equal(res.r, whole.r);
			assert_int_equal(res.err.line, whole.err.line);
			assert_string_equal(res.err.error.message, whole.err.error.message);
			assert_int_equal(res.events, whole.events);
			assert_int_equal(res.allocated_bytes, whole.allocated_bytes);
		}
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_first_error_wins),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_across_blocks),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_follow_a_file_being_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
