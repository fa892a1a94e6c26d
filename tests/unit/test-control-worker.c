/* The control socket's worker thread with a real event loop: jobs run in
 * order and come back on the loop; a queued job cancelled is dropped, a
 * running one stops and is never answered; a job past its deadline does
 * not run; a store that cannot be read fails the jobs that need it. */
#include "testlib.h"

#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "control-worker.h"
#include "event-loop.h"
#include "util.h"

struct ctx {
	struct event_loop *e;
	struct control_job *done[16];
	int n_done;
	int order[16];
	int n_run;
	pthread_mutex_t lock;
	bool started_slow;
};

static struct ctx *the;

static int record(struct control_job *j, struct store_reader *reader)
{
	int id = (int)(intptr_t)j->data;
	(void)reader;
	pthread_mutex_lock(&the->lock);
	the->order[the->n_run++] = id;
	pthread_mutex_unlock(&the->lock);
	j->result = json_integer(id);
	return 0;
}

/* Runs until cancelled (or 5 s), as a scan checks between reads. */
static int slow(struct control_job *j, struct store_reader *reader)
{
	(void)reader;
	__atomic_store_n(&the->started_slow, true, __ATOMIC_RELEASE);
	uint64_t end = now_monotonic_us() + 5000000;
	while (!control_job_cancelled(j) && now_monotonic_us() < end)
		usleep(1000);
	return control_job_cancelled(j) ? -ECANCELED : 0;
}

static int without_store(struct control_job *j, struct store_reader *reader)
{
	j->result = json_boolean(reader == NULL);
	return 0;
}

static void on_done(struct control_job *j, void *userdata)
{
	struct ctx *c = userdata;
	c->done[c->n_done++] = j;
}

static void run_until(struct ctx *c, int n_done)
{
	uint64_t end = now_monotonic_us() + 5000000;
	while (c->n_done < n_done) {
		assert_true(now_monotonic_us() < end);
		assert_true(event_loop_run_once(c->e, 100000) >= 0);
	}
}

static struct control_job *job(control_job_run_t run, int id, bool needs_store, uint64_t deadline_us)
{
	struct control_job *j = control_job_new(run, needs_store, (void *)(intptr_t)id, NULL);
	assert_non_null(j);
	j->deadline_us = deadline_us ? deadline_us : now_monotonic_us() + 5000000;
	return j;
}

static void test_worker(void **state)
{
	(void)state;
	struct ctx c = { 0 };
	struct control_worker *w;
	pthread_mutex_init(&c.lock, NULL);
	the = &c;
	assert_int_equal(event_loop_new(&c.e), 0);
	assert_int_equal(control_worker_new(c.e, "/nonexistent/ramwatch/ramwatch.db", on_done, &c, &w), 0);

	/* in order, back on the loop */
	for (int i = 1; i <= 3; i++)
		control_worker_submit(w, job(record, i, false, 0));
	run_until(&c, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(c.order[i], i + 1);
		assert_int_equal(c.done[i]->error.code, 0);
		assert_int_equal(json_integer_value(c.done[i]->result), i + 1);
		control_job_free(c.done[i]);
	}
	c.n_done = 0;

	/* a running job cancelled stops; the one queued behind it, cancelled,
	 * never runs; neither is answered; the next one is */
	struct control_job *running = job(slow, 10, false, 0), *queued = job(record, 11, false, 0);
	control_worker_submit(w, running);
	control_worker_submit(w, queued);
	while (!__atomic_load_n(&c.started_slow, __ATOMIC_ACQUIRE))
		usleep(1000);
	control_worker_cancel(w, queued);
	uint64_t t = now_monotonic_us();
	control_worker_cancel(w, running);
	control_worker_submit(w, job(record, 12, false, 0));
	run_until(&c, 1);
	assert_true(now_monotonic_us() - t < 2000000);
	assert_int_equal(json_integer_value(c.done[0]->result), 12);
	assert_int_equal(c.order[c.n_run - 1], 12);
	for (int i = 0; i < c.n_run; i++)
		assert_int_not_equal(c.order[i], 11);
	control_job_free(c.done[0]);
	c.n_done = 0;

	/* past its deadline before it starts: not run, a timeout */
	int runs = c.n_run;
	control_worker_submit(w, job(record, 20, false, 1));
	run_until(&c, 1);
	assert_int_equal(c.done[0]->error.code, -ETIME);
	assert_non_null(strstr(c.done[0]->error.message, "time limit"));
	assert_int_equal(c.n_run, runs);
	control_job_free(c.done[0]);
	c.n_done = 0;

	/* a store that cannot be read: refused for who needs it, without it
	 * for who can do without */
	control_worker_submit(w, job(record, 30, true, 0));
	struct control_job *optional = job(without_store, 31, true, 0);
	optional->store_optional = true;
	control_worker_submit(w, optional);
	run_until(&c, 2);
	assert_int_equal(c.done[0]->error.code, -EIO);
	assert_non_null(strstr(c.done[0]->error.message, "cannot read the database /nonexistent/ramwatch/ramwatch.db"));
	assert_int_equal(c.done[1]->error.code, 0);
	assert_true(json_is_true(c.done[1]->result));
	control_job_free(c.done[0]);
	control_job_free(c.done[1]);
	c.n_done = 0;

	/* stopping with a job running and others queued: prompt, nothing leaks */
	__atomic_store_n(&c.started_slow, false, __ATOMIC_RELEASE);
	control_worker_submit(w, job(slow, 40, false, 0));
	control_worker_submit(w, job(record, 41, false, 0));
	while (!__atomic_load_n(&c.started_slow, __ATOMIC_ACQUIRE))
		usleep(1000);
	t = now_monotonic_us();
	control_worker_free(w);
	assert_true(now_monotonic_us() - t < 2000000);
	assert_int_equal(c.n_done, 0);
	event_loop_free(c.e);
	pthread_mutex_destroy(&c.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_worker) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
