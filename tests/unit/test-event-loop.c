/* The event loop (event-loop.h) and the periodic timers over it (timer.c),
 * on a real loop: a timer never fires before its time and fires once per
 * arming; a periodic timer keeps its pace, and starts again from now when
 * it fell behind; a descriptor's source follows what is asked of it, tells
 * a hang-up unasked, and may free itself; deferred work runs once however
 * often armed; wake-ups posted from another thread coalesce and lose
 * nothing; pacing holds a busy descriptor to its rate; exit's code comes
 * back from run; the signals become stop and reload requests and reach no
 * thread the loop started. */
#include "testlib.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "event-loop.h"
#include "timer.h"
#include "util.h"

#define MS 1000u

/* Runs the loop until *count reaches n, for at most 5 s. */
static void run_until(struct event_loop *e, const int *count, int n)
{
	uint64_t end = now_monotonic_us() + 5000 * MS;
	while (*count < n) {
		assert_true(now_monotonic_us() < end);
		assert_true(event_loop_run_once(e, 100 * MS) >= 0);
	}
}

/* Runs the loop for usec, whatever happens. */
static void run_for(struct event_loop *e, uint64_t usec)
{
	uint64_t end = now_monotonic_us() + usec;
	for (uint64_t now; (now = now_monotonic_us()) < end;)
		assert_true(event_loop_run_once(e, end - now) >= 0);
}

struct timer_ctx {
	int fired;
	uint64_t fired_at, due;
};

static void on_timer(struct event_source *s, void *userdata)
{
	struct timer_ctx *t = userdata;
	(void)s;
	t->fired++;
	t->fired_at = now_monotonic_us();
}

static void test_timer_once(void **state)
{
	(void)state;
	struct event_loop *e;
	struct event_source *s;
	struct timer_ctx t = { 0 };
	assert_int_equal(event_loop_new(&e), 0);

	uint64_t due = event_loop_now(e) + 200 * MS;
	assert_int_equal(event_loop_add_timer(e, due, 1, on_timer, &t, "test", &s), 0);
	assert_true(event_timer_due(s) == due);
	run_until(e, &t.fired, 1);
	assert_true(t.fired_at >= due);
	/* once: nothing more without arming it again */
	run_for(e, 100 * MS);
	assert_int_equal(t.fired, 1);

	uint64_t armed = now_monotonic_us();
	assert_int_equal(event_timer_arm_after(s, 50 * MS), 0);
	run_until(e, &t.fired, 2);
	assert_true(t.fired_at >= armed + 50 * MS);

	/* disarmed: it does not fire */
	assert_int_equal(event_timer_arm_after(s, 20 * MS), 0);
	event_timer_disarm(s);
	run_for(e, 100 * MS);
	assert_int_equal(t.fired, 2);

	/* armed at a time: then */
	due = event_loop_now(e) + 30 * MS;
	assert_int_equal(event_timer_arm_at(s, due, 1), 0);
	run_until(e, &t.fired, 3);
	assert_true(t.fired_at >= due);

	event_source_free(s);
	event_loop_free(e);
}

#define PACE (200 * MS)

struct pace_ctx {
	struct event_loop *e;
	int fired;
	uint64_t due_before, due_after, now;
};

static void on_periodic(struct event_source *s, void *userdata)
{
	struct pace_ctx *p = userdata;
	p->fired++;
	p->now = event_loop_now(p->e);
	p->due_before = event_timer_due(s);
	timer_rearm(s, PACE);
	p->due_after = event_timer_due(s);
}

static void test_timer_pace(void **state)
{
	(void)state;
	struct pace_ctx p = { 0 };
	struct event_source *s;
	assert_int_equal(event_loop_new(&p.e), 0);
	assert_int_equal(timer_add(p.e, &s, 0, PACE, on_periodic, &p, "test-periodic"), 0);

	/* the loop did not run for longer than the interval: the timer starts
	 * again from now, not with a burst of the runs it missed */
	usleep(2 * PACE + PACE / 2);
	run_until(p.e, &p.fired, 1);
	assert_true(p.now >= p.due_before + 2 * PACE + PACE / 2);
	assert_true(p.due_after == p.now + PACE);

	/* on time: each run is an interval after the last due time, however
	 * late within its accuracy the loop ran it, so the work done in
	 * between does not make the pace drift */
	for (int n = 2; n <= 3; n++) {
		uint64_t armed = p.due_after;
		run_until(p.e, &p.fired, n);
		assert_true(p.due_before == armed);
		assert_true(p.now >= armed);
		assert_true(p.due_after == armed + PACE);
	}

	event_source_free(s);
	event_loop_free(p.e);
}

struct io_ctx {
	int fired;
	uint32_t revents;
	int fd;
	struct event_source *s;
};

static void on_readable(struct event_source *s, uint32_t revents, void *userdata)
{
	struct io_ctx *io = userdata;
	char buf[64];
	io->fired++;
	io->revents = revents;
	while (read(io->fd, buf, sizeof(buf)) > 0)
		;
	/* at the hang-up the source goes, from its own callback */
	if (revents & EVENT_HUP)
		io->s = event_source_free(s);
}

static void test_io(void **state)
{
	(void)state;
	struct event_loop *e;
	struct io_ctx io = { 0 };
	int p[2];
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	io.fd = p[0];
	assert_int_equal(event_loop_add_io(e, p[0], EVENT_IN, on_readable, &io, "test-io", &io.s), 0);
	assert_true(event_source_userdata(io.s) == &io);

	/* nothing to read: no call */
	run_for(e, 50 * MS);
	assert_int_equal(io.fired, 0);
	assert_int_equal(write(p[1], "x", 1), 1);
	run_until(e, &io.fired, 1);
	assert_true(io.revents & EVENT_IN);

	/* off: what comes waits */
	assert_int_equal(event_io_set_enabled(io.s, false), 0);
	assert_int_equal(write(p[1], "y", 1), 1);
	run_for(e, 50 * MS);
	assert_int_equal(io.fired, 1);
	assert_int_equal(event_io_set_enabled(io.s, true), 0);
	run_until(e, &io.fired, 2);

	/* nothing asked, and the writer gone: the hang-up is told all the same */
	assert_int_equal(event_io_set_events(io.s, 0), 0);
	close(p[1]);
	run_until(e, &io.fired, 3);
	assert_true(io.revents & EVENT_HUP);
	assert_null(io.s);
	run_for(e, 50 * MS);
	assert_int_equal(io.fired, 3);

	close(p[0]);
	event_loop_free(e);
}

static void on_count(struct event_source *s, void *userdata)
{
	(void)s;
	(*(int *)userdata)++;
}

static void test_defer(void **state)
{
	(void)state;
	struct event_loop *e;
	struct event_source *s;
	int ran = 0;
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(event_loop_add_defer(e, on_count, &ran, "test-defer", &s), 0);

	/* added unarmed */
	run_for(e, 50 * MS);
	assert_int_equal(ran, 0);
	/* armed twice before it ran: it runs once, without the loop waiting */
	event_defer_arm(s);
	event_defer_arm(s);
	assert_true(event_loop_run_once(e, 0) >= 0);
	assert_int_equal(ran, 1);
	run_for(e, 50 * MS);
	assert_int_equal(ran, 1);
	event_defer_arm(s);
	run_until(e, &ran, 2);

	event_source_free(s);
	event_loop_free(e);
}

#define POSTS 1000

struct wake_ctx {
	pthread_mutex_t lock;
	int posted;    /* under lock */
	int seen;      /* on the loop: posted as of the last call */
	int calls;
	bool term_blocked, usr1_blocked;
	struct event_source *s;
};

static void on_wake(struct event_source *s, void *userdata)
{
	struct wake_ctx *w = userdata;
	(void)s;
	w->calls++;
	pthread_mutex_lock(&w->lock);
	w->seen = w->posted;
	pthread_mutex_unlock(&w->lock);
}

static void *poster(void *userdata)
{
	struct wake_ctx *w = userdata;
	sigset_t mask;

	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	w->term_blocked = sigismember(&mask, SIGTERM) == 1;
	w->usr1_blocked = sigismember(&mask, SIGUSR1) == 1;
	for (int i = 0; i < POSTS; i++) {
		pthread_mutex_lock(&w->lock);
		w->posted++;
		pthread_mutex_unlock(&w->lock);
		event_wake_post(w->s);
	}
	return NULL;
}

static void test_wake(void **state)
{
	(void)state;
	struct event_loop *e;
	struct wake_ctx w = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t thread;
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(event_loop_add_wake(e, on_wake, &w, "test-wake", &w.s), 0);

	assert_int_equal(event_loop_start_thread(&thread, poster, &w), 0);
	run_until(e, &w.seen, POSTS);
	assert_int_equal(pthread_join(thread, NULL), 0);
	/* every post seen, in fewer calls than posts or as many, never more */
	assert_true(w.calls >= 1 && w.calls <= POSTS);
	/* the loop's thread takes the signals, not the one it started */
	assert_true(w.term_blocked);
	assert_true(w.usr1_blocked);

	/* nothing posted since: no call */
	int calls = w.calls;
	run_for(e, 50 * MS);
	assert_int_equal(w.calls, calls);

	event_source_free(w.s);
	event_loop_free(e);
}

static void on_busy(struct event_source *s, uint32_t revents, void *userdata)
{
	(void)s;
	(void)revents;
	(*(int *)userdata)++;
}

static void test_pace(void **state)
{
	(void)state;
	struct event_loop *e;
	struct event_source *s;
	int fired = 0, p[2];
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	/* readable all along (never read): unpaced, it would be called at
	 * every iteration */
	assert_int_equal(write(p[1], "x", 1), 1);
	assert_int_equal(event_loop_add_io(e, p[0], EVENT_IN, on_busy, &fired, "test-paced", &s), 0);
	assert_int_equal(event_io_pace(s, 100 * MS), 0);
	run_for(e, 550 * MS);
	/* once per 100 ms: 6 periods began in 550 ms */
	assert_true(fired >= 2);
	assert_true(fired <= 6);

	event_source_free(s);
	close(p[0]);
	close(p[1]);
	event_loop_free(e);
}

static void on_exit_timer(struct event_source *s, void *userdata)
{
	(void)s;
	event_loop_exit(userdata, 7);
}

static void test_exit(void **state)
{
	(void)state;
	struct event_loop *e;
	struct event_source *s;
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(event_loop_add_timer(e, event_loop_now(e) + 10 * MS, 1, on_exit_timer, e, "test-exit", &s),
			 0);
	assert_int_equal(event_loop_run(e), 7);
	event_source_free(s);
	event_loop_free(e);
}

struct request_ctx {
	int n;
	enum event_request what;
	char why[64];
};

static void on_request(enum event_request what, const char *why, void *userdata)
{
	struct request_ctx *r = userdata;
	r->n++;
	r->what = what;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static void test_requests(void **state)
{
	(void)state;
	struct event_loop *e;
	struct request_ctx r = { 0 };
	assert_int_equal(event_loop_new(&e), 0);
	assert_int_equal(event_loop_watch_requests(e, on_request, &r), 0);

	assert_int_equal(kill(getpid(), SIGHUP), 0);
	run_until(e, &r.n, 1);
	assert_int_equal(r.what, EVENT_RELOAD);
	assert_string_equal(r.why, strsignal(SIGHUP));

	assert_int_equal(kill(getpid(), SIGTERM), 0);
	run_until(e, &r.n, 2);
	assert_int_equal(r.what, EVENT_STOP);
	assert_string_equal(r.why, strsignal(SIGTERM));

	assert_int_equal(kill(getpid(), SIGINT), 0);
	run_until(e, &r.n, 3);
	assert_int_equal(r.what, EVENT_STOP);
	assert_string_equal(r.why, strsignal(SIGINT));

	event_loop_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_once), cmocka_unit_test(test_timer_pace), cmocka_unit_test(test_io),
		cmocka_unit_test(test_defer),	   cmocka_unit_test(test_wake),	      cmocka_unit_test(test_pace),
		cmocka_unit_test(test_exit),	   cmocka_unit_test(test_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
