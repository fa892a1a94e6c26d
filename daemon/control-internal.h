/* What the parts of the control socket share: the server, a connection,
 * and the calls between them.  Everything here runs on the event loop's
 * thread, except the jobs' run functions (control-queries.c), which run on
 * the worker and see only their job. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "control-access.h"
#include "control-buffer.h"
#include "control-processes.h"
#include "control-request.h"
#include "control-worker.h"
#include "control.h"
#include "event-loop.h"
#include "status-line.h"

struct census_waiter;
struct control_link;
struct control_listener;
struct census_result;

struct control {
	struct core_interface core; /* the daemon, as it lets the socket see it */
	struct event_loop *event;
	struct control_listener *listener;
	char *proc_root;
	int root_fd;               /* proc_root open (the daemon's) */
	struct control_worker *worker;

	struct control_conn *conns;
	unsigned n_conns;
	uint64_t serial;

	/* status: rates over the last minute or more (control-ops.c) */
	struct status_rate_point rate_old, rate_new;
	/* the store could not be read, as last logged (logged once per reason) */
	char unavailable[1024];
};

struct control_conn {
	struct control_conn *prev, *next;
	struct control *server;
	uint64_t serial;   /* for the logs */
	struct control_link *link;
	struct control_peer peer;
	struct event_source *idle, *deadline, *again;
	struct control_inbuf in;
	struct control_outbuf out;
	bool eof;          /* the client shut its side: no more requests */
	bool closing;      /* close once the answer is written */

	/* the request in progress (one at a time: answers are in order) */
	bool busy;
	enum control_op op;
	json_t *id;                       /* echoed in the answer */
	struct control_request *req;      /* while on the loop; a job takes it */
	uint64_t started_us;
	struct control_job *job;          /* on the worker */
	struct census_waiter *waiter;     /* waiting for a census */
};

/* control-conn.c */

/* A new connection on link (taken over, closed on failure).  Returns 0 or
 * a negative errno. */
int control_conn_new(struct control *s, struct control_link *link, const struct control_peer *peer);
/* Closes the connection, cancelling what its request waits for.  Returns
 * NULL. */
struct control_conn *control_conn_free(struct control_conn *c);

/* Ends the request in progress with an answer (taken over; NULL when out
 * of memory, which answers "internal"), logs it, and goes on with the
 * next request. */
void control_conn_answer(struct control_conn *c, json_t *answer);
/* The same with a result, or an error (the message for the client). */
void control_conn_result(struct control_conn *c, json_t *result);
void control_conn_error(struct control_conn *c, enum control_code code, const char *message);
void control_conn_errorf(struct control_conn *c, enum control_code code, const char *fmt, ...) _printf_(3, 4);

/* control-ops.c */

/* A request's handlers, as its entry in request-table.def names them:
 * start on the loop when it comes (NULL: query goes to the worker as it
 * is), query on the worker, finish on the loop with what query found
 * (NULL: the result is the answer).  finish returns 0 or -ENOMEM. */
struct control_handlers {
	void (*start)(struct control_conn *c);
	int (*query)(struct control_job *j, struct store_reader *reader);
	int (*finish)(struct control_conn *c, json_t *result);
};

/* op's handlers; NULL out of range. */
const struct control_handlers *control_handlers_get(enum control_op op);

/* Starts a request: answers at once, or hands it to the worker or the
 * census tier, which answer later. */
void control_ops_start(struct control_conn *c);
/* The request's time is up: stops what it waits for; the caller answers. */
void control_ops_stop(struct control_conn *c);
/* A job came back from the worker. */
void control_ops_job_done(struct control_job *j, void *userdata);

/* control-queries.c: the jobs run on the worker */

/* What a job needs: the request (the job's: a job cancelled while it runs
 * still reads it), and who asks. */
struct control_query {
	struct control_request *req; /* owned by the job */
	int64_t only_uid;            /* -1: every process */
	const char *only_owner;      /* with it, the account's (req's text); NULL: none */
	uid_t peer_uid;
	struct control_live_set *live; /* processes: the watched ones */
	char *why; /* oom, cgroups: why the platform has none to record (owned); NULL */
	/* scan of an unwatched process */
	const char *proc_root;
	bool light;
	bool evidence; /* Evidence= */
};

void control_query_free(void *q);
/* Says in an answer (an object) that it holds only the asker's processes:
 * "filtered_to_uid" (unless the store set it) and, for a Windows asker,
 * "filtered_to_owner", its account.  Returns 0 or -ENOMEM. */
int control_set_filtered(json_t *result, int64_t only_uid, const char *only_owner);
/* Runs the query of the job's request (control_handlers_get(op)->query):
 * fills j->result, or returns a negative errno with the reason in
 * j->error. */
int control_query_run(struct control_job *j, struct store_reader *reader);

/* The queries of request-table.def, each a control_job_run_t. */
int control_query_processes(struct control_job *j, struct store_reader *reader);
int control_query_history(struct control_job *j, struct store_reader *reader);
int control_query_report(struct control_job *j, struct store_reader *reader);
int control_query_census(struct control_job *j, struct store_reader *reader);
int control_query_events(struct control_job *j, struct store_reader *reader);
int control_query_scan(struct control_job *j, struct store_reader *reader);
int control_query_oom(struct control_job *j, struct store_reader *reader);
int control_query_cgroups(struct control_job *j, struct store_reader *reader);
int control_query_cgroup_history(struct control_job *j, struct store_reader *reader);
