/* The event loop (event-loop.h) over sd-event.
 *
 * Each source is a small wrapper around an sd-event source, which it is
 * the userdata of: the wrapper holds the caller's callback and userdata,
 * and the trampolines below turn sd-event's callbacks (which return an int
 * and pass what the caller does not need) into the interface's.  sd-event
 * keeps a source it is dispatching alive when its callback drops it, and
 * the trampolines touch nothing after the callback returns, so a callback
 * may free its own source.
 *
 * Requests from outside are signals, read from a signalfd (sd-event's
 * signal sources): SIGTERM and SIGINT stop, SIGHUP reloads.  They are
 * blocked first, so they reach the loop only; a signal handler of our own
 * would only have set a flag.  A wake-up is an eventfd, written by the
 * posting thread and drained on the loop before the callback runs. */
#include "event-loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "log.h"
#include "util.h"

_Static_assert(EVENT_IN == EPOLLIN && EVENT_OUT == EPOLLOUT && EVENT_ERR == EPOLLERR && EVENT_HUP == EPOLLHUP,
	       "an io source's events are epoll's");

struct event_source {
	struct event_loop *loop;
	sd_event_source *sd;
	event_handler_t handler;       /* timer, defer, wake */
	event_io_handler_t io_handler; /* io */
	void *userdata;
	int wake_fd;                   /* wake: the eventfd; else -1 */
};

/* The signals that stop (the first two) or reload the daemon. */
static const int request_signals[] = { SIGTERM, SIGINT, SIGHUP };
#define N_REQUEST_SIGNALS (sizeof(request_signals) / sizeof(request_signals[0]))

struct event_loop {
	sd_event *sd;
	sd_event_source *signals[N_REQUEST_SIGNALS];
	event_request_handler_t request;
	void *request_userdata;
};

/* ------------------------------------------------------------ the loop */

int event_loop_new(struct event_loop **ret)
{
	struct event_loop *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	int r = sd_event_new(&e->sd);
	if (r < 0) {
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

struct event_loop *event_loop_free(struct event_loop *e)
{
	if (!e)
		return NULL;
	for (size_t i = 0; i < N_REQUEST_SIGNALS; i++)
		sd_event_source_disable_unref(e->signals[i]);
	sd_event_unref(e->sd);
	free(e);
	return NULL;
}

static int on_signal(sd_event_source *sd, const struct signalfd_siginfo *si, void *userdata)
{
	struct event_loop *e = userdata;
	int signo = (int)si->ssi_signo;
	(void)sd;

	e->request(signo == SIGHUP ? EVENT_RELOAD : EVENT_STOP, strsignal(signo), e->request_userdata);
	return 0;
}

int event_loop_watch_requests(struct event_loop *e, event_request_handler_t handler, void *userdata)
{
	sigset_t mask;
	int r;

	e->request = handler;
	e->request_userdata = userdata;
	sigemptyset(&mask);
	for (size_t i = 0; i < N_REQUEST_SIGNALS; i++)
		sigaddset(&mask, request_signals[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return log_error_errno(errno, "cannot block signals: %m");
	for (size_t i = 0; i < N_REQUEST_SIGNALS; i++) {
		r = sd_event_add_signal(e->sd, &e->signals[i], request_signals[i], on_signal, e);
		if (r < 0)
			return log_error_errno(r, "cannot watch signals: %m");
	}
	return 0;
}

int event_loop_request(enum event_request what, const char *why)
{
	(void)why; /* the signal names itself (strsignal) */
	return kill(getpid(), what == EVENT_RELOAD ? SIGHUP : SIGTERM) < 0 ? -errno : 0;
}

int event_loop_keep_watchdog(struct event_loop *e)
{
	/* sd-event reads WATCHDOG_USEC itself: without it, this does nothing */
	int r = sd_event_set_watchdog(e->sd, true);
	return r < 0 ? r : 0;
}

int event_loop_run(struct event_loop *e)
{
	return sd_event_loop(e->sd);
}

int event_loop_run_once(struct event_loop *e, uint64_t timeout)
{
	return sd_event_run(e->sd, timeout);
}

void event_loop_exit(struct event_loop *e, int code)
{
	/* fails only for a loop already finished: nothing more to do then */
	(void)sd_event_exit(e->sd, code);
}

uint64_t event_loop_now(struct event_loop *e)
{
	uint64_t now;
	/* before the first iteration sd-event reads the clock (and says so
	 * with a positive return) */
	if (sd_event_now(e->sd, CLOCK_MONOTONIC, &now) < 0)
		return now_monotonic_us();
	return now;
}

int event_loop_start_thread(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	sigset_t all, saved;

	/* blocked before the thread exists, so that no signal reaches it even
	 * in its first instant; the thread starts with the mask in force here */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	int r = pthread_create(ret, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return -r;
}

/* ------------------------------------------------------------ sources */

static struct event_source *source_new(struct event_loop *e, void *userdata)
{
	struct event_source *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->loop = e;
	s->userdata = userdata;
	s->wake_fd = -1;
	return s;
}

/* The end of an adder: the description set, or the wrapper freed. */
static int source_added(struct event_source *s, int r, const char *name, struct event_source **ret)
{
	if (r < 0) {
		event_source_free(s);
		return r;
	}
	(void)sd_event_source_set_description(s->sd, name);
	*ret = s;
	return 0;
}

static int on_time(sd_event_source *sd, uint64_t usec, void *userdata)
{
	struct event_source *s = userdata;
	(void)sd;
	(void)usec;
	s->handler(s, s->userdata);
	return 0;
}

int event_loop_add_timer(struct event_loop *e, uint64_t due, uint64_t accuracy, event_handler_t handler,
			 void *userdata, const char *name, struct event_source **ret)
{
	struct event_source *s = source_new(e, userdata);
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	int r = sd_event_add_time(e->sd, &s->sd, CLOCK_MONOTONIC, due, accuracy, on_time, s);
	return source_added(s, r, name, ret);
}

int event_timer_arm_at(struct event_source *s, uint64_t due, uint64_t accuracy)
{
	int r;
	if ((r = sd_event_source_set_time(s->sd, due)) < 0 ||
	    (r = sd_event_source_set_time_accuracy(s->sd, accuracy)) < 0)
		return r;
	return sd_event_source_set_enabled(s->sd, SD_EVENT_ONESHOT);
}

int event_timer_arm_after(struct event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time_relative(s->sd, usec);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(s->sd, SD_EVENT_ONESHOT);
}

uint64_t event_timer_due(struct event_source *s)
{
	uint64_t due = 0;
	(void)sd_event_source_get_time(s->sd, &due);
	return due;
}

void event_timer_disarm(struct event_source *s)
{
	(void)sd_event_source_set_enabled(s->sd, SD_EVENT_OFF);
}

static int on_io(sd_event_source *sd, int fd, uint32_t revents, void *userdata)
{
	struct event_source *s = userdata;
	(void)sd;
	(void)fd;
	s->io_handler(s, revents, s->userdata);
	return 0;
}

int event_loop_add_io(struct event_loop *e, event_fd_t fd, uint32_t events, event_io_handler_t handler,
		      void *userdata, const char *name, struct event_source **ret)
{
	struct event_source *s = source_new(e, userdata);
	if (!s)
		return -ENOMEM;
	s->io_handler = handler;
	int r = sd_event_add_io(e->sd, &s->sd, fd, events, on_io, s);
	return source_added(s, r, name, ret);
}

int event_io_set_events(struct event_source *s, uint32_t events)
{
	return sd_event_source_set_io_events(s->sd, events);
}

int event_io_set_enabled(struct event_source *s, bool on)
{
	return sd_event_source_set_enabled(s->sd, on ? SD_EVENT_ON : SD_EVENT_OFF);
}

int event_io_pace(struct event_source *s, uint64_t every)
{
	/* a burst of one per interval: sd-event turns the source off until
	 * the interval ends, then on again */
	return sd_event_source_set_ratelimit(s->sd, every, 1);
}

/* Overlapped I/O is Windows's: a descriptor here tells its readiness
 * (event_loop_add_io) instead. */
int event_loop_add_overlapped(struct event_loop *e, event_fd_t handle, event_overlapped_handler_t handler,
			      void *userdata, const char *name, struct event_source **ret)
{
	(void)e, (void)handle, (void)handler, (void)userdata, (void)name, (void)ret;
	return -EOPNOTSUPP;
}

int event_overlapped_begin(struct event_source *s, unsigned tag, size_t size, void **ret_overlapped,
			   void **ret_buffer)
{
	(void)s, (void)tag, (void)size, (void)ret_overlapped, (void)ret_buffer;
	return -EOPNOTSUPP;
}

void event_overlapped_abandon(struct event_source *s, void *overlapped)
{
	(void)s, (void)overlapped;
}

unsigned event_overlapped_pending(struct event_source *s)
{
	(void)s;
	return 0;
}

static int on_defer(sd_event_source *sd, void *userdata)
{
	struct event_source *s = userdata;
	(void)sd;
	s->handler(s, s->userdata);
	return 0;
}

int event_loop_add_defer(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			 struct event_source **ret)
{
	struct event_source *s = source_new(e, userdata);
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	int r = sd_event_add_defer(e->sd, &s->sd, on_defer, s);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->sd, SD_EVENT_OFF);
	return source_added(s, r, name, ret);
}

void event_defer_arm(struct event_source *s)
{
	(void)sd_event_source_set_enabled(s->sd, SD_EVENT_ONESHOT);
}

static int on_wake(sd_event_source *sd, int fd, uint32_t revents, void *userdata)
{
	struct event_source *s = userdata;
	uint64_t n;
	(void)sd;
	(void)revents;

	/* the counter back to zero: the posts so far are answered by this
	 * one call (a post after the read makes it readable again) */
	(void)!read(fd, &n, sizeof(n));
	s->handler(s, s->userdata);
	return 0;
}

int event_loop_add_wake(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			struct event_source **ret)
{
	struct event_source *s = source_new(e, userdata);
	int r;

	if (!s)
		return -ENOMEM;
	s->handler = handler;
	s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->wake_fd < 0)
		r = -errno;
	else
		r = sd_event_add_io(e->sd, &s->sd, s->wake_fd, EPOLLIN, on_wake, s);
	return source_added(s, r, name, ret);
}

void event_wake_post(struct event_source *s)
{
	uint64_t one = 1;
	/* an eventfd write fails only when the counter would overflow, and
	 * then it is readable anyway */
	(void)!write(s->wake_fd, &one, sizeof(one));
}

void *event_source_userdata(struct event_source *s)
{
	return s->userdata;
}

struct event_loop *event_source_loop(struct event_source *s)
{
	return s->loop;
}

struct event_source *event_source_free(struct event_source *s)
{
	if (!s)
		return NULL;
	sd_event_source_disable_unref(s->sd);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	free(s);
	return NULL;
}
