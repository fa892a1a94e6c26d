/* The control socket's worker thread: a queue in, a queue out, a wake-up
 * of the event loop.  One lock guards both queues, the job running and the
 * reader pointer (so an interrupt never reaches a reader being closed, nor
 * the job after the one it was meant for). */
#include "control-worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "store-read.h"
#include "util.h"

struct control_worker {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct control_job *queue, *queue_tail; /* waiting, oldest first */
	struct control_job *running;
	struct control_job *finished, *finished_tail;
	bool stop;

	struct event_source *loop_wake; /* the loop's, posted for each finished job */
	control_job_done_t done;
	void *userdata;

	char *db_path;
	struct store_reader *reader; /* the worker's; the pointer under lock */
	/* the database file's: control_worker_reopen counts one more; the
	 * reader's is the one it was opened at (both under lock) */
	unsigned generation, reader_generation;
};

bool control_job_cancelled(const struct control_job *j)
{
	return __atomic_load_n(&j->cancelled, __ATOMIC_RELAXED);
}

struct control_job *control_job_new(control_job_run_t run, bool needs_store, void *data,
				    void (*free_data)(void *data))
{
	struct control_job *j = calloc(1, sizeof(*j));
	if (!j) {
		if (data && free_data)
			free_data(data);
		return NULL;
	}
	j->run = run;
	j->needs_store = needs_store;
	j->data = data;
	j->free_data = free_data;
	return j;
}

struct control_job *control_job_free(struct control_job *j)
{
	if (!j)
		return NULL;
	if (j->data && j->free_data)
		j->free_data(j->data);
	json_decref(j->result);
	free(j);
	return NULL;
}

static void append(struct control_job **head, struct control_job **tail, struct control_job *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

/* Errors after which the connection is opened anew for the next job: the
 * file may have been replaced, migrated or repaired meanwhile. */
static bool reopen_after(int error)
{
	return error == -EIO || error == -EBADMSG || error == -EUCLEAN || error == -EPROTO;
}

/* A reader of a file that is no longer the database's is closed. */
static void drop_stale_reader(struct control_worker *w)
{
	struct store_reader *stale = NULL;

	pthread_mutex_lock(&w->lock);
	if (w->reader && w->reader_generation != w->generation) {
		stale = w->reader;
		w->reader = NULL;
	}
	pthread_mutex_unlock(&w->lock);
	store_reader_close(stale);
}

static void run_job(struct control_worker *w, struct control_job *j)
{
	int r;

	drop_stale_reader(w);
	if (control_job_cancelled(j))
		return; /* nobody waits for it: freed unanswered */
	if (now_monotonic_us() >= j->deadline_us) {
		error_set(&j->error, -ETIME, "the request waited for others longer than its time limit");
		return;
	}
	if (j->needs_store && !w->reader) {
		struct store_reader *reader = NULL;
		struct error err = { 0 };
		unsigned generation = __atomic_load_n(&w->generation, __ATOMIC_RELAXED);
		r = store_reader_open(w->db_path, &reader, &err);
		if (r < 0) {
			/* the database cannot be read now, whatever the request */
			error_set(&j->error, r == -ENOMEM ? r : -EIO, "cannot read the database %s: %s", w->db_path,
				  error_message_or_strerror(&err, r));
			if (!j->store_optional)
				return;
		} else {
			pthread_mutex_lock(&w->lock);
			w->reader = reader;
			w->reader_generation = generation;
			pthread_mutex_unlock(&w->lock);
		}
	}
	struct store_reader *reader = j->needs_store ? w->reader : NULL;
	if (reader)
		store_reader_set_deadline(reader, j->deadline_us);
	r = j->run(j, reader);
	if (r == -EINTR && !control_job_cancelled(j)) {
		/* an interrupt meant for the job before this one that came as
		 * it ended: this one was not cancelled, so it runs again */
		r = j->run(j, reader);
	}
	j->error.code = r < 0 ? r : 0;
	if (reader && j->error.code == -EUCLEAN) {
		pthread_mutex_lock(&w->lock);
		j->store_damaged = true;
		j->store_generation = w->reader_generation;
		pthread_mutex_unlock(&w->lock);
	}
	if (reader) {
		store_reader_set_deadline(reader, 0);
		if (reopen_after(j->error.code)) {
			pthread_mutex_lock(&w->lock);
			w->reader = NULL;
			pthread_mutex_unlock(&w->lock);
			store_reader_close(reader);
		}
	}
}

static void *worker_main(void *userdata)
{
	struct control_worker *w = userdata;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->stop && !w->queue)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		struct control_job *j = w->queue;
		w->queue = j->next;
		if (!w->queue)
			w->queue_tail = NULL;
		w->running = j;
		pthread_mutex_unlock(&w->lock);

		run_job(w, j);

		pthread_mutex_lock(&w->lock);
		w->running = NULL;
		append(&w->finished, &w->finished_tail, j);
		event_wake_post(w->loop_wake);
	}
	struct store_reader *reader = w->reader;
	w->reader = NULL;
	pthread_mutex_unlock(&w->lock);
	store_reader_close(reader);
	return NULL;
}

static void on_finished(struct event_source *s, void *userdata)
{
	struct control_worker *w = userdata;
	(void)s;

	pthread_mutex_lock(&w->lock);
	struct control_job *j = w->finished;
	w->finished = w->finished_tail = NULL;
	pthread_mutex_unlock(&w->lock);
	while (j) {
		struct control_job *next = j->next;
		j->next = NULL;
		/* cancelled is set from the loop only (and at the end): it
		 * cannot change under us */
		/* the loop is what replaces the file: compared here, a damage
		 * found in a file already replaced is told as no damage */
		if (j->store_damaged && j->store_generation != w->generation)
			j->store_damaged = false;
		if (control_job_cancelled(j))
			control_job_free(j);
		else
			w->done(j, w->userdata);
		j = next;
	}
}

int control_worker_new(struct event_loop *e, const char *db_path, control_job_done_t done, void *userdata,
		       struct control_worker **ret)
{
	struct control_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->done = done;
	w->userdata = userdata;
	w->db_path = strdup(db_path);
	if (!w->db_path) {
		control_worker_free(w);
		return -ENOMEM;
	}
	r = event_loop_add_wake(e, on_finished, w, "control-worker", &w->loop_wake);
	if (r < 0) {
		control_worker_free(w);
		return r;
	}

	/* the thread takes none of the loop's requests (signals, on Linux) */
	r = event_loop_start_thread(&w->thread, worker_main, w);
	if (r < 0) {
		control_worker_free(w);
		return r;
	}
	w->started = true;
	*ret = w;
	return 0;
}

struct control_worker *control_worker_free(struct control_worker *w)
{
	if (!w)
		return NULL;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		if (w->running) {
			__atomic_store_n(&w->running->cancelled, true, __ATOMIC_RELAXED);
			if (w->reader)
				store_reader_interrupt(w->reader);
		}
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	for (struct control_job *lists[2] = { w->queue, w->finished }, **l = lists; l < lists + 2; l++)
		while (*l) {
			struct control_job *next = (*l)->next;
			control_job_free(*l);
			*l = next;
		}
	event_source_free(w->loop_wake);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w->db_path);
	free(w);
	return NULL;
}

void control_worker_reopen(struct control_worker *w)
{
	pthread_mutex_lock(&w->lock);
	__atomic_store_n(&w->generation, w->generation + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->lock);
}

int control_worker_submit(struct control_worker *w, struct control_job *j)
{
	pthread_mutex_lock(&w->lock);
	append(&w->queue, &w->queue_tail, j);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

void control_worker_cancel(struct control_worker *w, struct control_job *j)
{
	pthread_mutex_lock(&w->lock);
	for (struct control_job **p = &w->queue, *prev = NULL; *p; prev = *p, p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			if (w->queue_tail == j)
				w->queue_tail = prev;
			pthread_mutex_unlock(&w->lock);
			control_job_free(j);
			return;
		}
	/* running, or finished and not yet handed back: freed there */
	__atomic_store_n(&j->cancelled, true, __ATOMIC_RELAXED);
	if (w->running == j && w->reader)
		store_reader_interrupt(w->reader);
	pthread_mutex_unlock(&w->lock);
}
