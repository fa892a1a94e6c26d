/* Talking to ramwatchd over its control socket (doc/protocol.md): connect,
 * send one request line, read one answer line, with a size limit and a
 * time limit, and turn every way this can fail into a message a person can
 * act on.  One connection may carry several requests (answers come back in
 * order), which is how paged answers are followed. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "limits.h"
#include "macro.h"
#include "paths.h"

#define CONTROL_SOCKET_ENV "RAMWATCH_SOCKET"
/* Windows's: the pipe to use instead of RW_PIPE_DEFAULT */
#define CONTROL_PIPE_ENV "RAMWATCH_PIPE"

/* How long the client waits for an answer: the daemon's own limit for the
 * request (common/limits.h) and some slack, so that the daemon's "timeout"
 * answer, which says what took long, arrives before the client gives up. */
#define CONTROL_WAIT_US (RW_REQUEST_TIMEOUT_US + 5u * 1000u * 1000u)
#define CONTROL_SCAN_WAIT_US (RW_SCAN_TIMEOUT_US + 5u * 1000u * 1000u)

/* Paged answers (history samples, events) are followed page after page up
 * to this many rows in all; past it the client stops and says so, rather
 * than hold an unbounded answer in memory. */
#define CONTROL_ROWS_MAX 2000000u
/* Rows asked for per page: well below the daemon's answer size limit even
 * for wide rows. */
#define CONTROL_PAGE_ROWS 20000u

/* Why a call failed: the error (the call's negative errno and what to tell
 * the user), and the protocol's word for it, which a script may test. */
struct control_error {
	struct error error;
	/* The daemon's "code" when it answered with "ok": false ("denied",
	 * "not_found", ...); "timeout" or "too_large" when the client gave up
	 * waiting or refused a long answer; else "". */
	char code[32];
};

/* The socket to use: option when given, else $RAMWATCH_SOCKET when set and
 * not empty, else RW_SOCKET_DEFAULT.  On Windows the pipe: option (--pipe),
 * else $RAMWATCH_PIPE, else RW_PIPE_DEFAULT. */
const char *control_client_socket_path(const char *option);

struct control_client;

/* Connects to the daemon's socket at path.  Returns 0 with *ret, or a
 * negative errno with the message in err: a missing socket or a refused
 * connection asks whether ramwatchd runs, a permission error says what is
 * needed. */
int control_client_connect(const char *path, struct control_client **ret, struct control_error *err);
/* Accepts NULL, returns NULL. */
struct control_client *control_client_close(struct control_client *c);
DEFINE_CLEANUP(struct control_client *, control_client_close)

/* Sends request as one line and waits at most wait_us for its answer.
 * Returns 0 with *ret_result (a new reference to the answer's "result");
 * -EREMOTEIO when the daemon answered with an error (err holds its
 * message and code); -ETIMEDOUT, -ECONNRESET (closed without an answer),
 * -EMSGSIZE (an answer longer than RW_ANSWER_MAX), -EBADMSG (not an answer
 * of this protocol) or another -errno, with the message in err. */
int control_client_call(struct control_client *c, json_t *request, uint64_t wait_us, json_t **ret_result,
		 struct control_error *err);

/* Pure: the answer line (len bytes, no newline) as control_client_call reads it:
 * 0 with *ret_result, -EREMOTEIO with the daemon's message, -EBADMSG with
 * what is wrong. */
int control_client_parse_answer(const char *line, size_t len, json_t **ret_result, struct control_error *err);

/* Calls a paged op, then follows "next" (passed back as "cursor") on the
 * same connection until the answer is whole or at least max_rows rows
 * (samples and events) have come.  Returns 0 with every page merged in
 * *ret_result (store_read_merge_page; without "next") and *ret_truncated
 * telling whether rows were left; else as control_client_call. */
int control_client_call_all(struct control_client *c, json_t *request, size_t max_rows, uint64_t wait_us, json_t **ret_result,
		     bool *ret_truncated, struct control_error *err);

/* Connects, calls once, closes. */
int control_client_ask(const char *path, json_t *request, uint64_t wait_us, json_t **ret_result,
		struct control_error *err);
