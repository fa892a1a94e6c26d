/* A control connection's framing: lines cut across reads at every byte,
 * several lines in one read, the line limit exactly and one past it; the
 * output buffer against a real socket that fills up, a client that went
 * away, and its cap. */
#include "testlib.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control-buffer.h"

/* Feeds text into b in pieces of at most step bytes, collecting every
 * complete line into out (joined by '|').  Returns the last result of
 * control_inbuf_line. */
static int feed(struct control_inbuf *b, const char *text, size_t len, size_t step, char *out, size_t out_size)
{
	size_t o = strlen(out);
	int r = 0;
	for (size_t i = 0; i < len;) {
		char *p;
		size_t room;
		assert_int_equal(control_inbuf_space(b, &p, &room), 0);
		if (room == 0)
			break;
		size_t n = len - i < step ? len - i : step;
		if (n > room)
			n = room;
		memcpy(p, text + i, n);
		control_inbuf_filled(b, n);
		i += n;
		const char *line;
		size_t line_len;
		while ((r = control_inbuf_line(b, &line, &line_len)) == 1) {
			assert_true(o + line_len + 2 < out_size);
			memcpy(out + o, line, line_len);
			o += line_len;
			out[o++] = '|';
			out[o] = '\0';
			control_inbuf_consume(b);
		}
	}
	return r;
}

static void test_lines_across_reads(void **state)
{
	(void)state;
	static const char text[] = "{\"op\":\"status\"}\n\n{\"op\":\"processes\"}\r\nx\ny";
	for (size_t step = 1; step <= sizeof(text); step++) {
		struct control_inbuf b;
		char out[256] = "";
		control_inbuf_init(&b, 64);
		assert_int_equal(feed(&b, text, sizeof(text) - 1, step, out, sizeof(out)), 0);
		/* an empty line is a line; "\r\n" ends one; "y" waits */
		assert_string_equal(out, "{\"op\":\"status\"}||{\"op\":\"processes\"}|x|");
		assert_int_equal(control_inbuf_pending(&b), 1);
		control_inbuf_done(&b);
	}
}

static void test_the_limit(void **state)
{
	(void)state;
	enum { MAX = 100 };
	char text[MAX + 2], out[512] = "";
	struct control_inbuf b;
	const char *line;
	size_t len;

	/* MAX bytes with the newline: a line */
	memset(text, 'a', sizeof(text));
	text[MAX - 1] = '\n';
	control_inbuf_init(&b, MAX);
	assert_int_equal(feed(&b, text, MAX, 7, out, sizeof(out)), 0);
	assert_int_equal(strlen(out), MAX);
	assert_int_equal(control_inbuf_pending(&b), 0);
	control_inbuf_done(&b);

	/* MAX bytes and no newline: too long, and no more is read */
	control_inbuf_init(&b, MAX);
	memset(text, 'a', sizeof(text));
	out[0] = '\0';
	assert_int_equal(feed(&b, text, MAX + 2, 7, out, sizeof(out)), -E2BIG);
	assert_true(control_inbuf_full(&b));
	char *p;
	size_t room = 99;
	assert_int_equal(control_inbuf_space(&b, &p, &room), 0);
	assert_int_equal(room, 0);
	assert_int_equal(control_inbuf_line(&b, &line, &len), -E2BIG);
	assert_string_equal(out, "");
	control_inbuf_done(&b);

	/* a full buffer of complete lines is not "too long" */
	control_inbuf_init(&b, 8);
	out[0] = '\0';
	assert_int_equal(feed(&b, "ab\ncd\nef", 8, 8, out, sizeof(out)), 0);
	assert_string_equal(out, "ab|cd|");
	assert_int_equal(control_inbuf_line(&b, &line, &len), 0); /* "ef" waits: no newline yet */
	assert_int_equal(control_inbuf_pending(&b), 2);
	control_inbuf_done(&b);
}

static void test_a_line_stays_until_consumed(void **state)
{
	(void)state;
	struct control_inbuf b;
	const char *line;
	size_t len;
	char *p;
	size_t room;

	control_inbuf_init(&b, 64);
	assert_int_equal(control_inbuf_space(&b, &p, &room), 0);
	memcpy(p, "one\ntwo\n", 8);
	control_inbuf_filled(&b, 8);
	assert_int_equal(control_inbuf_line(&b, &line, &len), 1);
	assert_int_equal(len, 3);
	assert_memory_equal(line, "one", 3);
	/* the next call drops it itself */
	assert_int_equal(control_inbuf_line(&b, &line, &len), 1);
	assert_memory_equal(line, "two", 3);
	control_inbuf_consume(&b);
	control_inbuf_consume(&b);
	assert_int_equal(control_inbuf_pending(&b), 0);
	assert_int_equal(control_inbuf_line(&b, &line, &len), 0);
	control_inbuf_done(&b);
}

static char *dup_text(const char *s, size_t n)
{
	char *p = malloc(n);
	assert_non_null(p);
	memcpy(p, s, n);
	return p;
}

static void test_output_to_a_full_socket(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	int small = 4096;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));

	struct control_outbuf b;
	control_outbuf_init(&b, 8 * 1024 * 1024);
	size_t n = 4 * 1024 * 1024, written = 0, got = 0;
	char *big = malloc(n);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	assert_int_equal(control_outbuf_put(&b, big, n), 0);

	/* the socket takes some, then says it is full */
	assert_int_equal(control_outbuf_flush(&b, sv[0], &written), -EAGAIN);
	assert_true(written > 0 && written < n);
	assert_int_equal(control_outbuf_pending(&b), n - written);
	/* a second answer queued behind the rest goes after it */
	assert_int_equal(control_outbuf_put(&b, dup_text("END\n", 4), 4), 0);

	/* the client reads; everything comes, in order */
	char buf[65536];
	size_t total = 0;
	int flushed = -EAGAIN;
	while (total < n + 4) {
		ssize_t k = read(sv[1], buf, sizeof(buf));
		if (k > 0) {
			for (ssize_t i = 0; i < k; i++) {
				size_t at = total + (size_t)i;
				char want = at < n ? (char)('a' + at % 26) : "END\n"[at - n];
				if (buf[i] != want)
					fail_msg("byte %zu: %c, expected %c", at, buf[i], want);
			}
			total += (size_t)k;
		}
		if (flushed == -EAGAIN)
			flushed = control_outbuf_flush(&b, sv[0], &got);
	}
	assert_int_equal(flushed, 0);
	assert_int_equal(control_outbuf_pending(&b), 0);

	/* the client goes away: EPIPE, not SIGPIPE */
	close(sv[1]);
	assert_int_equal(control_outbuf_put(&b, dup_text("late\n", 5), 5), 0);
	assert_int_equal(control_outbuf_flush(&b, sv[0], &got), -EPIPE);
	close(sv[0]);
	control_outbuf_done(&b);
}

static void test_output_cap(void **state)
{
	(void)state;
	struct control_outbuf b;
	control_outbuf_init(&b, 10);
	assert_int_equal(control_outbuf_put(&b, dup_text("0123456789", 10), 10), 0);
	/* one byte past the cap: refused (the caller closes) */
	assert_int_equal(control_outbuf_put(&b, dup_text("x", 1), 1), -ENOBUFS);
	assert_int_equal(control_outbuf_pending(&b), 10);
	control_outbuf_done(&b);
	control_outbuf_init(&b, 10);
	assert_int_equal(control_outbuf_put(&b, dup_text("0123456789a", 11), 11), -ENOBUFS);
	control_outbuf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_across_reads),	cmocka_unit_test(test_the_limit),
		cmocka_unit_test(test_a_line_stays_until_consumed), cmocka_unit_test(test_output_to_a_full_socket),
		cmocka_unit_test(test_output_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
