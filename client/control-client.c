/* The client's end of the control socket.  The socket is non-blocking and
 * every wait is a poll() against one deadline per request, so a daemon that
 * stops answering costs the user the wait time and a message, never a hang.
 * An answer is read into a buffer that grows up to RW_ANSWER_MAX; bytes
 * after its newline stay for the next answer on the same connection, which
 * is how paged answers (history, events) are followed and merged. */
#include "control-client.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "render-answer.h"
#include "store-read-page.h"
#include "util.h"

struct control_client {
	int fd;
	char *path;
	char *buf; /* received bytes not yet consumed: [0, len) */
	size_t len, allocated;
};

/* Fills err (may be NULL) with r, the daemon's or the client's wire code
 * ("" for none) and the message.  Returns r. */
static int set_error(struct control_error *err, int r, const char *code, const char *fmt, ...) _printf_(4, 5);

static int set_error(struct control_error *err, int r, const char *code, const char *fmt, ...)
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

const char *control_client_socket_path(const char *option)
{
	const char *env = getenv(CONTROL_SOCKET_ENV);
	if (option)
		return option;
	return env && env[0] ? env : RW_SOCKET_DEFAULT;
}

struct control_client *control_client_close(struct control_client *c)
{
	if (!c)
		return NULL;
	if (c->fd >= 0)
		close(c->fd);
	free(c->path);
	free(c->buf);
	free(c);
	return NULL;
}

static int connect_error(const char *path, int e, struct control_error *err)
{
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		/* no socket file, or one nobody listens on any more */
		return set_error(err, -e, "",
				 "cannot connect to ramwatchd at %s: %s — is ramwatchd running? (systemctl status ramwatchd)",
				 path, strerror(e));
	case EACCES:
	case EPERM:
		return set_error(err, -e, "",
				 "cannot connect to ramwatchd at %s: %s — connecting needs write permission on the socket "
				 "and search permission on the directories above it",
				 path, strerror(e));
	case EAGAIN:
		/* a Unix socket whose listen queue is full (unix(7)) */
		return set_error(err, -e, "",
				 "ramwatchd at %s accepts no more connections now (its queue is full); try again", path);
	default: return set_error(err, -e, "", "cannot connect to ramwatchd at %s: %s", path, strerror(e));
	}
}

int control_client_connect(const char *path, struct control_client **ret, struct control_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control_client *c;
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(sa.sun_path))
		return set_error(err, -ENAMETOOLONG, "",
				 "the socket path %s%s%s does not fit a Unix socket address (1 to %zu bytes)",
				 n ? "'" : "", path, n ? "'" : "(empty)", sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, n + 1);
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		return set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0) {
		int e = errno;
		control_client_close(c);
		return set_error(err, -e, "", "cannot make a socket: %s", strerror(e));
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		control_client_close(c);
		return connect_error(path, e, err);
	}
	*ret = c;
	return 0;
}

/* Milliseconds left until deadline_us for poll(), at least 0. */
static int remaining_ms(uint64_t deadline_us)
{
	uint64_t now = now_monotonic_us();
	if (now >= deadline_us)
		return 0;
	uint64_t ms = (deadline_us - now + 999) / 1000;
	return ms > 60u * 60u * 1000u ? 60 * 60 * 1000 : (int)ms;
}

/* Waits until fd is ready for events; -ETIMEDOUT at the deadline. */
static int wait_fd(int fd, short events, uint64_t deadline_us)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int ms = remaining_ms(deadline_us);
		if (ms == 0)
			return -ETIMEDOUT;
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r > 0)
			return 0;
	}
}

static int send_line(struct control_client *c, const char *data, size_t len, uint64_t deadline_us)
{
	while (len > 0) {
		ssize_t k = send(c->fd, data, len, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int r = wait_fd(c->fd, POLLOUT, deadline_us);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		data += k;
		len -= (size_t)k;
	}
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
		ssize_t k = recv(c->fd, c->buf + c->len, c->allocated - c->len, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int r = wait_fd(c->fd, POLLIN, deadline_us);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ECONNRESET;
		c->len += (size_t)k;
	}
}

int control_client_parse_answer(const char *line, size_t len, json_t **ret_result, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *root = NULL;
	json_error_t jerr;
	const json_t *ok, *v;

	root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (not JSON: %s at byte %d)",
				 jerr.text, jerr.position);
	if (!json_is_object(root))
		return set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (not a JSON object)");
	ok = json_object_get(root, "ok");
	if (!json_is_boolean(ok))
		return set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (\"ok\" is %s)",
				 ok ? "not true or false" : "missing");
	if (json_is_true(ok)) {
		v = json_object_get(root, "result");
		if (!v)
			return set_error(err, -EBADMSG, "",
					 "ramwatchd sent a malformed answer (\"ok\": true without \"result\")");
		*ret_result = json_incref((json_t *)v);
		return 0;
	}
	v = json_object_get(root, "error");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return set_error(err, -EBADMSG, "",
				 "ramwatchd sent a malformed answer (\"ok\": false without an \"error\" message)");
	const json_t *code = json_object_get(root, "code");
	return set_error(err, -EREMOTEIO, json_is_string(code) ? json_string_value(code) : "", "%s",
			 json_string_value(v));
}

int control_client_call(struct control_client *c, json_t *request, uint64_t wait_us, json_t **ret_result,
		 struct control_error *err)
{
	uint64_t deadline = now_monotonic_us() + wait_us;
	_cleanup_free_ char *text = json_dumps(request, JSON_COMPACT);
	size_t end = 0;
	int r, sent;

	if (!text)
		return set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	size_t n = strlen(text);
	if (n + 1 > RW_REQUEST_MAX) {
		return set_error(err, -EMSGSIZE, "", "the request is %zu bytes; ramwatchd takes at most %u", n + 1,
				 RW_REQUEST_MAX);
	}
	text[n] = '\n'; /* compact JSON holds no newline: it is the line's end */
	sent = send_line(c, text, n + 1, deadline);
	text[n] = '\0';
	/* Even when sending failed the daemon may have answered first (a
	 * "busy" line before it closed): read what is there. */
	r = read_line(c, sent < 0 ? now_monotonic_us() + 200u * 1000u : deadline, &end);
	if (r < 0) {
		int e = sent < 0 ? sent : r;
		if (sent < 0 && sent != -ETIMEDOUT)
			set_error(err, e, "", "cannot send the request to ramwatchd at %s: %s", c->path, strerror(-sent));
		else if (r == -ETIMEDOUT || sent == -ETIMEDOUT)
			set_error(err, e, "timeout", "ramwatchd at %s did not answer within %" PRIu64 " s", c->path,
				  wait_us / 1000000u);
		else if (r == -ECONNRESET && c->len > 0)
			set_error(err, e, "", "ramwatchd at %s closed the connection in the middle of an answer", c->path);
		else if (r == -ECONNRESET)
			set_error(err, e, "", "ramwatchd at %s closed the connection without answering", c->path);
		else if (r == -EMSGSIZE)
			set_error(err, e, "too_large", "the answer of ramwatchd is longer than %u MiB: narrow the request",
				  RW_ANSWER_MAX >> 20);
		else
			set_error(err, e, "", "cannot read the answer of ramwatchd at %s: %s", c->path, strerror(-r));
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
		return set_error(err, -EBADMSG, "", "ramwatchd sent a malformed answer (the result is not an object)");
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
			return set_error(err, -EBADMSG, "", "ramwatchd sent the same page twice (its cursor did not move)");
		rows += (size_t)r;
	}
	next = json_object_get(all, "next");
	*ret_truncated = next && !json_is_null(next);
	json_object_del(all, "next");
	*ret_result = TAKE_PTR(all);
	return 0;
oom:
	return set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
}

int control_client_ask(const char *path, json_t *request, uint64_t wait_us, json_t **ret_result,
		struct control_error *err)
{
	_cleanup_(control_client_closep) struct control_client *c = NULL;
	int r = control_client_connect(path, &c, err);
	if (r < 0)
		return r;
	return control_client_call(c, request, wait_us, ret_result, err);
}
