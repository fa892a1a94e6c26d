/* Requests of the control socket (doc/protocol.md): a request line
 * checked and turned into a struct.
 *
 * Everything here is pure: a line in, a struct or a message for the client
 * out.  A request comes from any local user, so nothing of it is trusted:
 * its bytes must be UTF-8, it must be a JSON object, every argument must be
 * one the op takes, of the right type and within its bounds, as the op's
 * entry in request-table.def declares, and the message of a refusal names
 * what was wrong. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control-answer.h"
#include "request-table.h"
#include "store-read.h"

/* How long op may take: its entry's time limit (request-table.def). */
uint64_t control_op_timeout_us(enum control_op op);

struct control_request {
	json_t *root; /* the request; the strings below live in it */
	json_t *id;   /* borrowed from root, NULL when none was given */
	enum control_op op;

	/* the process(es) an op is about; sel.only_uid is the caller's to set */
	struct store_select sel;
	int64_t since, until; /* history, events: unix ms, defaults filled */
	int64_t at;           /* census: INT64_MAX for the last, STORE_CENSUS_FIRST the first */
	const char **classes; /* history: class keys (own array, strings in root) */
	size_t n_classes;
	int64_t step_ms;
	unsigned limit;       /* rows (history, events) or processes */
	const char *cursor;   /* NULL: from the start */
	bool all;             /* processes */
	const char *sort;     /* processes: "private", "resident", "peak" or "vram" */
	bool full, light;     /* scan */
	const char *mark;     /* mark: the phase's name */
	const char *cgroup;   /* oom, cgroup_history: a cgroup's path; NULL: none */
	const char *unit;     /* cgroup_history: a systemd unit; NULL: none */
	char *only_owner;     /* sel.only_owner's text, the caller's to set; freed with the request */
};

/* Parses and checks one request line (without its newline).  now_ms fills
 * the default times.  Returns 0 with *ret (control_request_free), or
 * -EINVAL with the reason for the client in err (and, when the line was an
 * object with an "id", a new reference to it in *ret_id, else NULL there),
 * or -ENOMEM. */
int control_request_parse(const char *line, size_t len, int64_t now_ms, struct control_request **ret,
			  json_t **ret_id, struct error *err);

/* Accepts NULL, returns NULL. */
struct control_request *control_request_free(struct control_request *req);
