/* One control connection: reading request lines, one request at a time,
 * writing answers as the socket takes them.
 *
 * Nothing here blocks: the socket is non-blocking, reads stop when the
 * input buffer holds a full line's worth (a client can make the daemon hold
 * no more than RW_REQUEST_MAX of its input), the next request is taken only
 * when the previous answer has gone to the kernel (so no more than one
 * answer waits in memory for a client that does not read), and a timer
 * closes a connection with nothing to do for RW_IDLE_TIMEOUT_US.
 *
 * Work is never done inside a callback that may be re-entered: an answer
 * is queued and the connection "kicked" (a deferred source, armed), and the
 * next loop iteration writes it, frees the connection or takes the next
 * line.  So an answer given from the census tier's callback, or from a
 * timer, never frees the connection under its caller. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control-internal.h"
#include "control-transport.h"
#include "daemon-clock.h"
#include "limits.h"
#include "log.h"
#include "util.h"

#define IDLE_ACCURACY_US (1000u * 1000u)
#define DEADLINE_ACCURACY_US (10u * 1000u)

static void conn_process(struct control_conn *c);

static void conn_kick(struct control_conn *c)
{
	event_defer_arm(c->again);
}

/* Something happened that keeps the connection alive: a complete request
 * came, or the client took some of its answer. */
static void conn_touch(struct control_conn *c)
{
	(void)event_timer_arm_after(c->idle, RW_IDLE_TIMEOUT_US);
}

static void conn_update_events(struct control_conn *c)
{
	uint32_t events = 0;
	if (!c->eof && !c->closing && !control_inbuf_full(&c->in))
		events |= EVENT_IN;
	if (control_outbuf_pending(&c->out) > 0)
		events |= EVENT_OUT;
	/* with no events, a hang-up is still told: a client that goes away
	 * while its request runs is noticed */
	(void)control_link_set_events(c->link, events);
}

static void end_request(struct control_conn *c)
{
	c->busy = false;
	c->req = control_request_free(c->req);
	json_decref(c->id);
	c->id = NULL;
	c->job = NULL;
	c->waiter = NULL;
	if (c->deadline)
		event_timer_disarm(c->deadline);
}

/* The debug line of a request: what, for whom, how it ended. */
static void log_answer(struct control_conn *c, const json_t *answer)
{
	if (log_get_max_level() < LOG_DEBUG)
		return;
	const char *code = json_string_value(json_object_get(answer, "code"));
	const char *op = request_table_name(c->op);
	char who[CONTROL_ACCOUNT_TEXT_MAX];
	log_debug("control #%" PRIu64 ": %s from %s (pid %d): %s in %.1f ms", c->serial, op ? op : "(none)",
		  control_peer_account(&c->peer, who, sizeof(who)), (int)c->peer.pid, code ? code : "ok",
		  (double)(now_monotonic_us() - c->started_us) / 1000.0);
}

void control_conn_answer(struct control_conn *c, json_t *answer)
{
	char *line = NULL;
	size_t n = 0;
	int r;

	if (!answer)
		answer = control_answer_error(c->id, CONTROL_INTERNAL, "out of memory while answering");
	r = answer ? control_answer_line(answer, RW_ANSWER_MAX, &line, &n) : -ENOMEM;
	if (r == -E2BIG) {
		json_decref(answer);
		answer = control_answer_error(c->id, CONTROL_TOO_LARGE,
					      "the answer would be longer than the 64 MiB an answer may be: ask for "
					      "less (a shorter since/until, a smaller limit, fewer classes)");
		r = answer ? control_answer_line(answer, RW_ANSWER_MAX, &line, &n) : -ENOMEM;
	}
	if (answer)
		log_answer(c, answer);
	json_decref(answer);
	end_request(c);
	if (r >= 0)
		r = control_outbuf_put(&c->out, line, n);
	if (r < 0) {
		/* nothing can be said: the client learns it from the close */
		log_debug_errno(r, "control #%" PRIu64 ": cannot queue the answer, closing: %m", c->serial);
		control_outbuf_done(&c->out);
		c->closing = true;
	}
	conn_kick(c);
}

void control_conn_result(struct control_conn *c, json_t *result)
{
	control_conn_answer(c, result ? control_answer_ok(c->id, result) : NULL);
}

void control_conn_error(struct control_conn *c, enum control_code code, const char *message)
{
	control_conn_answer(c, control_answer_error(c->id, code, message));
}

void control_conn_errorf(struct control_conn *c, enum control_code code, const char *fmt, ...)
{
	char message[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	control_conn_error(c, code, message);
}

static void on_deadline(struct event_source *s, void *userdata)
{
	struct control_conn *c = userdata;
	(void)s;
	if (!c->busy)
		return;
	control_ops_stop(c);
	control_conn_errorf(c, CONTROL_TIMEOUT, "the request took longer than its limit of %u s",
			    (unsigned)(control_op_timeout_us(c->op) / 1000000u));
}

static int arm_deadline(struct control_conn *c, uint64_t usec)
{
	struct event_loop *e = c->server->event;
	if (!c->deadline)
		return event_loop_add_timer(e, event_loop_now(e) + usec, DEADLINE_ACCURACY_US, on_deadline, c,
					    "control-deadline", &c->deadline);
	return event_timer_arm_after(c->deadline, usec);
}

/* Takes the request line in, answers a bad one, starts a good one. */
static void start_request(struct control_conn *c, const char *line, size_t len)
{
	struct error err = { 0 };
	json_t *id = NULL;
	struct control_request *req = NULL;

	int r = control_request_parse(line, len, daemon_clock_now_ms(), &req, &id, &err);
	control_inbuf_consume(&c->in);
	c->busy = true;
	c->started_us = now_monotonic_us();
	if (r < 0) {
		c->op = _CONTROL_OP_MAX;
		c->id = id;
		if (r == -EINVAL)
			control_conn_error(c, CONTROL_BAD_REQUEST, err.message);
		else
			control_conn_error(c, CONTROL_INTERNAL, "out of memory while reading the request");
		return;
	}
	c->req = req;
	c->op = req->op;
	c->id = json_incref(req->id);
	r = arm_deadline(c, control_op_timeout_us(c->op));
	if (r < 0) {
		control_conn_errorf(c, CONTROL_INTERNAL, "cannot set the request's time limit: %s", strerror(-r));
		return;
	}
	control_ops_start(c);
}

/* Reads what the socket has, up to a full buffer.  Returns 0, or a
 * negative errno when the connection is broken. */
static int conn_read(struct control_conn *c)
{
	for (;;) {
		char *p;
		size_t n;
		int r = control_inbuf_space(&c->in, &p, &n);
		if (r < 0)
			return r;
		if (n == 0)
			return 0;
		size_t k = 0;
		r = control_link_read(c->link, p, n, &k);
		if (r == -EAGAIN)
			return 0;
		if (r < 0)
			return r;
		if (k == 0) {
			c->eof = true;
			return 0;
		}
		control_inbuf_filled(&c->in, k);
	}
}

static int write_link(void *ctx, const void *data, size_t n, size_t *ret_n)
{
	return control_link_write(ctx, data, n, ret_n);
}

static void conn_process(struct control_conn *c)
{
	const char *line;
	size_t len, written = 0;
	int r;

	if (control_outbuf_pending(&c->out) > 0) {
		r = control_outbuf_write(&c->out, write_link, c->link, &written);
		if (written > 0)
			conn_touch(c);
		if (r < 0 && r != -EAGAIN) {
			log_debug_errno(r, "control #%" PRIu64 ": the client went away before its answer: %m", c->serial);
			control_conn_free(c);
			return;
		}
	}
	if (c->closing && control_outbuf_pending(&c->out) == 0) {
		control_conn_free(c);
		return;
	}
	/* one request per loop iteration: a client that pipelines many takes
	 * turns with the others and with sampling */
	if (!c->busy && !c->closing && control_outbuf_pending(&c->out) == 0) {
		for (;;) {
			r = control_inbuf_line(&c->in, &line, &len);
			if (r == 1 && len == 0) {
				/* an empty line: nothing asked */
				control_inbuf_consume(&c->in);
				continue;
			}
			break;
		}
		if (r == 1) {
			conn_touch(c);
			start_request(c, line, len);
		} else if (r == -E2BIG) {
			c->busy = true;
			c->started_us = now_monotonic_us();
			c->op = _CONTROL_OP_MAX;
			control_conn_errorf(c, CONTROL_TOO_LARGE,
					    "the request is longer than %u bytes; the connection is closed",
					    RW_REQUEST_MAX);
			c->closing = true;
		} else if (c->eof) {
			size_t rest = control_inbuf_pending(&c->in);
			if (rest > 0)
				log_debug("control #%" PRIu64 ": %zu bytes without a newline at the end ignored", c->serial,
					  rest);
			control_conn_free(c);
			return;
		}
	}
	conn_update_events(c);
}

static void on_io(struct control_link *link, uint32_t revents, void *userdata)
{
	struct control_conn *c = userdata;
	(void)link;

	if (revents & (EVENT_HUP | EVENT_ERR)) {
		/* the client closed its end: nobody is there to answer */
		log_debug("control #%" PRIu64 ": closed by the client%s", c->serial,
			  c->busy ? " while its request was in progress" : "");
		control_conn_free(c);
		return;
	}
	if (revents & EVENT_IN) {
		int r = conn_read(c);
		if (r < 0) {
			log_debug_errno(r, "control #%" PRIu64 ": read failed: %m", c->serial);
			control_conn_free(c);
			return;
		}
	}
	conn_process(c);
}

static void on_again(struct event_source *s, void *userdata)
{
	(void)s;
	conn_process(userdata);
}

static void on_idle(struct event_source *s, void *userdata)
{
	struct control_conn *c = userdata;
	(void)s;
	if (c->busy) {
		/* a request in progress has a time limit of its own */
		conn_touch(c);
		return;
	}
	log_debug("control #%" PRIu64 ": %s for %u s, closing", c->serial,
		  control_outbuf_pending(&c->out) > 0 ? "the client did not read its answer" : "idle",
		  (unsigned)(RW_IDLE_TIMEOUT_US / 1000000u));
	control_conn_free(c);
}

int control_conn_new(struct control *s, struct control_link *link, const struct control_peer *peer)
{
	struct control_conn *c = calloc(1, sizeof(*c));
	int r;

	if (!c) {
		control_link_free(link);
		return -ENOMEM;
	}
	c->server = s;
	c->link = link;
	c->peer = *peer;
	c->serial = ++s->serial;
	c->op = _CONTROL_OP_MAX;
	control_inbuf_init(&c->in, RW_REQUEST_MAX);
	control_outbuf_init(&c->out, RW_ANSWER_MAX);
	c->next = s->conns;
	if (s->conns)
		s->conns->prev = c;
	s->conns = c;
	s->n_conns++;

	if ((r = control_link_watch(link, EVENT_IN, on_io, c)) < 0 ||
	    (r = event_loop_add_timer(s->event, event_loop_now(s->event) + RW_IDLE_TIMEOUT_US, IDLE_ACCURACY_US,
				      on_idle, c, "control-idle", &c->idle)) < 0 ||
	    (r = event_loop_add_defer(s->event, on_again, c, "control-again", &c->again)) < 0) {
		control_conn_free(c);
		return r;
	}
	char who[CONTROL_ACCOUNT_TEXT_MAX];
	log_debug("control #%" PRIu64 ": connection from %s (pid %d)%s", c->serial,
		  control_peer_account(peer, who, sizeof(who)), (int)peer->pid, peer->privileged ? ", privileged" : "");
	return 0;
}

struct control_conn *control_conn_free(struct control_conn *c)
{
	if (!c)
		return NULL;
	if (c->busy)
		control_ops_stop(c);
	end_request(c);
	if (c->prev)
		c->prev->next = c->next;
	else
		c->server->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->server->n_conns--;
	event_source_free(c->idle);
	event_source_free(c->deadline);
	event_source_free(c->again);
	control_link_free(c->link);
	control_inbuf_done(&c->in);
	control_outbuf_done(&c->out);
	free(c);
	return NULL;
}
