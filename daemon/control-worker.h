/* The control socket's worker: one thread that runs the requests which may
 * take long (reading the store, scanning a process the daemon does not
 * watch), so that the event loop, which samples, never waits for them.
 *
 * Jobs are queued by the loop and run one at a time, in order.  The worker
 * has its own read-only connection to the database (opened at its first
 * job that needs one, and again after a failure), bounded by each job's
 * deadline.  A finished job goes back to the loop through a wake-up
 * (event-loop.h), whose callback calls the done callback there.  The worker never logs
 * (the log's record of recent errors is the loop's) and never touches a
 * connection: what it needs is in the job. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "event-loop.h"

struct store_reader;
struct control_job;

/* Runs on the worker thread: fills j->result, or returns a negative errno
 * with its reason in j->error for the client.  reader is NULL for a job
 * that does not need the store (or, store_optional, when it cannot be
 * read: the reason is in j->error's message). */
typedef int (*control_job_run_t)(struct control_job *j, struct store_reader *reader);

struct control_job {
	struct control_job *next;

	/* set by the loop before control_worker_submit, then read-only */
	control_job_run_t run;
	bool needs_store;
	bool store_optional;  /* run without the store when it cannot be read */
	uint64_t deadline_us; /* monotonic; past it the job stops with -ETIME */
	void *data;           /* what run needs, owned by the job */
	void (*free_data)(void *data);
	void *owner;          /* the loop's: whom the answer is for */

	/* set by the worker */
	struct error error; /* code 0 when the job succeeded */
	bool store_damaged;   /* -EUCLEAN from the database file in use now (as of done) */
	unsigned store_generation; /* the file it read (control_worker_reopen) */
	json_t *result;

	/* set by the loop, read by run (a scan checks it between reads) */
	bool cancelled;
};

/* Whether the job was cancelled, from run. */
bool control_job_cancelled(const struct control_job *j);

/* A job with run and data (taken over, freed with free_data).  Returns
 * NULL when out of memory (data is then freed). */
struct control_job *control_job_new(control_job_run_t run, bool needs_store, void *data,
				    void (*free_data)(void *data));
/* Accepts NULL, returns NULL. */
struct control_job *control_job_free(struct control_job *j);

struct control_worker;
typedef void (*control_job_done_t)(struct control_job *j, void *userdata);

/* Starts the thread.  done is called from the loop for each finished job
 * that was not cancelled; the job is then the callee's.  Returns 0 with
 * *ret, or a negative errno. */
int control_worker_new(struct event_loop *e, const char *db_path, control_job_done_t done, void *userdata,
		       struct control_worker **ret);
/* Stops the thread (interrupting the job it runs), frees what is queued.
 * Accepts NULL, returns NULL. */
struct control_worker *control_worker_free(struct control_worker *w);

/* The database at the path was replaced by a new file: the connection to
 * the old one is closed before the next job, and a job that found the old
 * one damaged does not say store_damaged. */
void control_worker_reopen(struct control_worker *w);

/* Queues a job; it is the worker's until done.  Returns 0. */
int control_worker_submit(struct control_worker *w, struct control_job *j);
/* The client is gone: a queued job is dropped, a running one interrupted;
 * either way done is not called for it and the worker frees it. */
void control_worker_cancel(struct control_worker *w, struct control_job *j);
