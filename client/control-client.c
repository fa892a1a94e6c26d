/* The client's end of the control protocol, the same on every platform:
 * a request line out, an answer line in, over the channel
 * (control-channel.h: the Unix socket on Linux, the named pipe on
 * Windows).  Every wait has one deadline per request, so a daemon that
 * stops answering costs the user the wait time and a message, never a
 * hang.  An answer is read into a buffer that grows up to RW_ANSWER_MAX;
 * bytes after its newline stay for the next answer on the same connection,
 * which is how paged answers (history, events) are followed and merged. */
#include "control-client.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-channel.h"
#include "macro.h"
#include "request-table.h"
#include "store-read-page.h"
#include "util.h"

/* What a user is told of a request not served here. */
#define NOT_SERVED_HERE "ramwatchd serves it on Linux"

struct control_client {
	struct control_channel *channel;
	char *path;
	char *buf; /* received bytes not yet consumed: [0, len) */
	size_t len, allocated;
};

int control_client_set_error(struct control_error *err, int r, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return r;
	snprintf(err->code, sizeof(err->code), "%s", code);
	va_start(ap, fmt);
	error_setv(&err->error, r, fmt, ap);
	va_end(ap);
	return r;
}

struct control_client *control_client_close(struct control_client *c)
{
	if (!c)
		return NULL;
	control_channel_close(c->channel);
	free(c->path);
	free(c->buf);
	free(c);
	return NULL;
}

int control_client_connect(const char *path, struct control_client **ret, struct control_error *err)
{
	struct control_client *c = calloc(1, sizeof(*c));

	if (!c || !(c->path = strdup(path))) {
		free(c);
		return control_client_set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	}
	int r = control_channel_open(path, &c->channel, err);
	if (r < 0) {
		control_client_close(c);
		return r;
	}
	*ret = c;
	return 0;
}

/* Reads until the buffer holds a newline; returns its offset. */
static int read_line(struct control_client *c, uint64_t deadline_us, size_t *ret_end)
{
	size_t scanned = 0;

	for (;;) {
		char *nl = c->len > scanned ? memchr(c->buf + scanned, '\n', c->len - scanned) : NULL;
		if (nl) {
			*ret_end = (size_t)(nl - c->buf);
			return 0;
		}
		scanned = c->len;
		if (c->len > RW_ANSWER_MAX)
			return -EMSGSIZE;
		if (c->allocated - c->len < 4096) {
			size_t want = c->allocated ? c->allocated * 2 : 64 * 1024;
			if (want > RW_ANSWER_MAX + 4096u)
				want = RW_ANSWER_MAX + 4096u;
			char *b = realloc(c->buf, want);
			if (!b)
				return -ENOMEM;
			c->buf = b;
			c->allocated = want;
		}
		size_t k = 0;
		int r = control_channel_recv(c->channel, c->buf + c->len, c->allocated - c->len, deadline_us, &k);
		if (r < 0)
			return r;
		if (k == 0)
			return -ECONNRESET;
		c->len += k;
	}
}

int control_client_parse_answer(const char *line, size_t len, json_t **ret_result, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *root = NULL;
	json_error_t jerr;
	const json_t *ok, *v;

	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return control_client_set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (not JSON: %s at byte %d)",
				 jerr.text, jerr.position);
	if (!json_is_object(root))
		return control_client_set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (not a JSON object)");
	ok = json_object_get(root, "ok");
	if (!json_is_boolean(ok))
		return control_client_set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (\"ok\" is %s)",
				 ok ? "not true or false" : "missing");
	if (json_is_true(ok)) {
		v = json_object_get(root, "result");
		if (!v)
			return control_client_set_error(err, -EBADMSG, "",
					 "ramwatchd sent a malformed answer (\"ok\": true without \"result\")");
		*ret_result = json_incref((json_t *)v);
		return 0;
	}
	v = json_object_get(root, "error");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return control_client_set_error(err, -EBADMSG, "",
				 "ramwatchd sent a malformed answer (\"ok\": false without an \"error\" message)");
	const json_t *code = json_object_get(root, "code");
	return control_client_set_error(err, -EREMOTEIO, json_is_string(code) ? json_string_value(code) : "", "%s",
			 json_string_value(v));
}

/* A request this platform's daemon does not serve is refused here, by
 * name (request-table.def says which platforms serve each).  Returns 0 or
 * -EOPNOTSUPP. */
static int refuse_not_served(const json_t *request, struct control_error *err)
{
	const char *op = json_string_value(json_object_get(request, "op"));
	int k = op ? request_table_find(op) : -1;
	if (k >= 0 && !request_table_served_here((enum control_op)k))
		return control_client_set_error(err, -EOPNOTSUPP, "",
						"the request '%s' is not served on this platform: " NOT_SERVED_HERE, op);
	return 0;
}

int control_client_call(struct control_client *c, json_t *request, uint64_t wait_us, json_t **ret_result,
		 struct control_error *err)
{
	uint64_t deadline = now_monotonic_us() + wait_us;
	_cleanup_free_ char *text = json_dumps(request, JSON_COMPACT);
	size_t end = 0;
	int r, sent;

	if (!text)
		return control_client_set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	if ((r = refuse_not_served(request, err)) < 0)
		return r;
	size_t n = strlen(text);
	if (n + 1 > RW_REQUEST_MAX) {
		return control_client_set_error(err, -EMSGSIZE, "", "the request is %zu bytes; ramwatchd takes at most %u", n + 1,
				 RW_REQUEST_MAX);
	}
	text[n] = '\n'; /* compact JSON holds no newline: it is the line's end */
	sent = control_channel_send(c->channel, text, n + 1, deadline);
	text[n] = '\0';
	/* Even when sending failed the daemon may have answered first (a
	 * "busy" line before it closed): read what is there. */
	r = read_line(c, sent < 0 ? now_monotonic_us() + 200u * 1000u : deadline, &end);
	if (r < 0) {
		int e = sent < 0 ? sent : r;
		if (sent < 0 && sent != -ETIMEDOUT)
			control_client_set_error(err, e, "", "cannot send the request to ramwatchd at %s: %s", c->path, strerror(-sent));
		else if (r == -ETIMEDOUT || sent == -ETIMEDOUT)
			control_client_set_error(err, e, "timeout", "ramwatchd at %s did not answer within %" PRIu64 " s", c->path,
				  wait_us / 1000000u);
		else if (r == -ECONNRESET && c->len > 0)
			control_client_set_error(err, e, "", "ramwatchd at %s closed the connection in the middle of an answer", c->path);
		else if (r == -ECONNRESET)
			control_client_set_error(err, e, "", "ramwatchd at %s closed the connection without answering", c->path);
		else if (r == -EMSGSIZE)
			control_client_set_error(err, e, "too_large", "the answer of ramwatchd is longer than %u MiB: narrow the request",
				  RW_ANSWER_MAX >> 20);
		else
			control_client_set_error(err, e, "", "cannot read the answer of ramwatchd at %s: %s", c->path, strerror(-r));
		return e;
	}
	r = control_client_parse_answer(c->buf, end, ret_result, err);
	memmove(c->buf, c->buf + end + 1, c->len - end - 1);
	c->len -= end + 1;
	return r;
}

/* ---------------------------------------------------------------- paged answers */

int control_client_call_all(struct control_client *c, json_t *request, size_t max_rows, uint64_t wait_us, json_t **ret_result,
		     bool *ret_truncated, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *all = NULL;
	const json_t *next;
	size_t rows;
	int r;

	if ((r = control_client_call(c, request, wait_us, &all, err)) < 0)
		return r;
	if (!json_is_object(all))
		return control_client_set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (the result is not an object)");
	rows = json_array_size(json_object_get(all, "samples")) + json_array_size(json_object_get(all, "events"));
	while ((next = json_object_get(all, "next")) && !json_is_null(next) && rows < max_rows) {
		/* the page replaces "next": hold the cursor it came with */
		_cleanup_(json_decrefp) json_t *cursor = json_incref((json_t *)next);
		_cleanup_(json_decrefp) json_t *page = NULL;
		if (json_object_set(request, "cursor", cursor) < 0)
			goto oom;
		if ((r = control_client_call(c, request, wait_us, &page, err)) < 0)
			return r;
		if ((r = store_read_merge_page(all, page)) < 0)
			goto oom;
		if (r == 0 && json_equal(json_object_get(all, "next"), cursor))
			return control_client_set_error(err, -EBADMSG, "", "ramwatchd sent the same page twice (its cursor did not move)");
		rows += (size_t)r;
	}
	next = json_object_get(all, "next");
	*ret_truncated = next && !json_is_null(next);
	json_object_del(all, "next");
	*ret_result = TAKE_PTR(all);
	return 0;
oom:
	return control_client_set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
}

int control_client_ask(const char *path, json_t *request, uint64_t wait_us, json_t **ret_result,
		struct control_error *err)
{
	_cleanup_(control_client_closep) struct control_client *c = NULL;
	int r = refuse_not_served(request, err);
	if (r < 0)
		return r;
	r = control_client_connect(path, &c, err);
	if (r < 0)
		return r;
	return control_client_call(c, request, wait_us, ret_result, err);
}
