/* The daemon's event loop on Windows (daemon/windows/event-loop.c) run for
 * real, each case printing one JSON line of what it measured, for
 * test_win_loop.py to judge:
 *
 *   timers     a one-shot timer's lateness; a periodic one re-armed from
 *              its callback; a disarmed one and one freed by another's
 *              callback, which must not fire
 *   wake       posts from another thread, counted on the loop
 *   defer      deferred work armed twice from a timer, run once, before
 *              the loop waits again
 *   handle     a waitable handle (an event set by another thread), paced
 *   pipe       an overlapped named pipe: connect, read, write back to a
 *              client thread; then a read cancelled by freeing its source
 *   request    a stop request made from another thread (event_loop_request)
 *   console    waits for the console's Ctrl-C (the test sends SIGINT to
 *              Wine, which turns it into one), printing "ready" first */
#include <windows.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-loop.h"
#include "log.h"
#include "util.h"

static struct event_loop *loop;

static void die(const char *what, int r)
{
	fprintf(stderr, "looptest: %s: %d\n", what, r);
	exit(1);
}

static void check(const char *what, int r)
{
	if (r < 0)
		die(what, r);
}

/* Runs the loop until *done or the time is up (µs). */
static void run_until(const volatile bool *done, uint64_t limit)
{
	uint64_t until = now_monotonic_us() + limit;
	while (!*done && now_monotonic_us() < until)
		check("run_once", event_loop_run_once(loop, 100 * 1000));
}

/* ------------------------------------------------------------ timers */

struct timers {
	uint64_t start, fired_at;
	unsigned periodic, disarmed, pair_ran;
	uint64_t periodic_last;
	struct event_source *pair[2];
	bool done;
};

static void on_once(struct event_source *s, void *u)
{
	struct timers *t = u;
	(void)s;
	t->fired_at = now_monotonic_us();
}

static void on_periodic(struct event_source *s, void *u)
{
	struct timers *t = u;
	t->periodic++;
	t->periodic_last = now_monotonic_us();
	if (t->periodic < 5)
		check("arm_after", event_timer_arm_after(s, 20 * 1000));
	else
		t->done = true;
}

static void on_disarmed(struct event_source *s, void *u)
{
	(void)s;
	((struct timers *)u)->disarmed++;
}

/* Two timers due together: whichever runs first frees the other. */
static void on_pair(struct event_source *s, void *u)
{
	struct timers *t = u;
	t->pair_ran++;
	if (s == t->pair[0])
		t->pair[1] = event_source_free(t->pair[1]);
	else
		t->pair[0] = event_source_free(t->pair[0]);
}

static void case_timers(void)
{
	struct timers t = { 0 };
	struct event_source *once, *periodic, *disarmed;

	t.start = now_monotonic_us();
	check("timer", event_loop_add_timer(loop, t.start + 50 * 1000, 1000, on_once, &t, "once", &once));
	check("timer", event_loop_add_timer(loop, t.start + 20 * 1000, 1000, on_periodic, &t, "periodic", &periodic));
	check("timer", event_loop_add_timer(loop, t.start + 30 * 1000, 1000, on_disarmed, &t, "disarmed", &disarmed));
	event_timer_disarm(disarmed);
	/* the one of the pair that runs first frees the other, which must
	 * then not run */
	check("timer", event_loop_add_timer(loop, t.start + 40 * 1000, 1000, on_pair, &t, "pair", &t.pair[0]));
	check("timer", event_loop_add_timer(loop, t.start + 40 * 1000, 1000, on_pair, &t, "pair", &t.pair[1]));
	run_until(&t.done, 5000 * 1000);
	/* the disarmed timer's time, long past */
	check("run_once", event_loop_run_once(loop, 50 * 1000));
	printf("{\"case\":\"timers\",\"once_late_us\":%" PRId64 ",\"periodic\":%u,\"periodic_us\":%" PRIu64
	       ",\"disarmed\":%u,\"pair\":%u}\n",
	       (int64_t)(t.fired_at - (t.start + 50 * 1000)), t.periodic, t.periodic_last - t.start, t.disarmed,
	       t.pair_ran);
	event_source_free(once);
	event_source_free(periodic);
	event_source_free(disarmed);
	event_source_free(t.pair[0]);
	event_source_free(t.pair[1]);
}

/* ------------------------------------------------------------ wake-ups */

#define POSTS 10000

struct wake {
	struct event_source *source;
	volatile LONG posted; /* by the thread */
	unsigned calls;
	LONG seen;
	bool done;
};

static void *poster(void *u)
{
	struct wake *w = u;
	for (int i = 0; i < POSTS; i++) {
		InterlockedIncrement(&w->posted);
		event_wake_post(w->source);
	}
	return NULL;
}

static void on_wake(struct event_source *s, void *u)
{
	struct wake *w = u;
	(void)s;
	w->calls++;
	w->seen = InterlockedCompareExchange(&w->posted, 0, 0);
	if (w->seen == POSTS)
		w->done = true;
}

static void case_wake(void)
{
	struct wake w = { 0 };
	pthread_t th;

	check("wake", event_loop_add_wake(loop, on_wake, &w, "wake", &w.source));
	check("thread", event_loop_start_thread(&th, poster, &w));
	run_until(&w.done, 10 * 1000 * 1000);
	pthread_join(th, NULL);
	printf("{\"case\":\"wake\",\"posts\":%d,\"seen\":%ld,\"calls\":%u}\n", POSTS, (long)w.seen, w.calls);
	event_source_free(w.source);
}

/* ------------------------------------------------------------ deferred work */

struct defer {
	struct event_source *work, *timer;
	unsigned runs;
	uint64_t armed_at, ran_at;
	bool done;
};

static void on_work(struct event_source *s, void *u)
{
	struct defer *d = u;
	(void)s;
	d->runs++;
	d->ran_at = now_monotonic_us();
	d->done = true;
}

static void on_arm(struct event_source *s, void *u)
{
	struct defer *d = u;
	(void)s;
	d->armed_at = now_monotonic_us();
	event_defer_arm(d->work);
	event_defer_arm(d->work);
}

static void case_defer(void)
{
	struct defer d = { 0 };

	check("defer", event_loop_add_defer(loop, on_work, &d, "work", &d.work));
	check("timer", event_loop_add_timer(loop, now_monotonic_us() + 10 * 1000, 1000, on_arm, &d, "arm", &d.timer));
	/* one step with a long wait: the work runs in the timer's iteration,
	 * not after the wait */
	run_until(&d.done, 5000 * 1000);
	check("run_once", event_loop_run_once(loop, 30 * 1000));
	printf("{\"case\":\"defer\",\"runs\":%u,\"after_us\":%" PRIu64 "}\n", d.runs, d.ran_at - d.armed_at);
	event_source_free(d.work);
	event_source_free(d.timer);
}

/* ------------------------------------------------------------ a waitable handle */

struct handle_case {
	HANDLE event;
	unsigned told;
	uint64_t first, last;
	bool done;
};

static void on_handle(struct event_source *s, uint32_t revents, void *u)
{
	struct handle_case *h = u;
	(void)s;
	if (!(revents & EVENT_IN))
		return;
	uint64_t now = now_monotonic_us();
	if (!h->told++)
		h->first = now;
	h->last = now;
	if (h->told == 5) {
		ResetEvent(h->event);
		h->done = true;
	}
}

static void *setter(void *u)
{
	Sleep(30);
	SetEvent(((struct handle_case *)u)->event);
	return NULL;
}

static void case_handle(void)
{
	struct handle_case h = { 0 };
	struct event_source *s;
	pthread_t th;

	h.event = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!h.event)
		die("CreateEvent", -(int)GetLastError());
	check("io", event_loop_add_io(loop, h.event, EVENT_IN, on_handle, &h, "event", &s));
	check("pace", event_io_pace(s, 20 * 1000));
	int out = event_loop_add_io(loop, h.event, EVENT_IN | EVENT_OUT, on_handle, &h, "out", &(struct event_source *){ 0 });
	check("thread", event_loop_start_thread(&th, setter, &h));
	run_until(&h.done, 5000 * 1000);
	pthread_join(th, NULL);
	/* reset: nothing more */
	unsigned told = h.told;
	check("run_once", event_loop_run_once(loop, 60 * 1000));
	printf("{\"case\":\"handle\",\"told\":%u,\"after_reset\":%u,\"span_us\":%" PRIu64 ",\"out\":%d}\n", told,
	       h.told - told, h.last - h.first, out);
	event_source_free(s);
	CloseHandle(h.event);
}

/* ------------------------------------------------------------ a named pipe */

enum { OP_CONNECT, OP_READ, OP_WRITE };

struct pipe_case {
	HANDLE pipe;
	struct event_source *s;
	char got[64];
	size_t n_got;
	char reply[64]; /* what the client read back */
	bool connected, written, done;
	uint32_t read_error;
};

static const wchar_t PIPE_NAME[] = L"\\\\.\\pipe\\ramwatch-looptest";

static void *pipe_client(void *u)
{
	struct pipe_case *p = u;
	HANDLE h;
	DWORD n = 0;

	for (int i = 0; i < 100; i++) {
		h = CreateFileW(PIPE_NAME, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_EXISTING, 0, NULL);
		if (h != INVALID_HANDLE_VALUE)
			break;
		Sleep(10);
	}
	if (h == INVALID_HANDLE_VALUE)
		return NULL;
	WriteFile(h, "hello\n", 6, &n, NULL);
	if (ReadFile(h, p->reply, sizeof(p->reply) - 1, &n, NULL))
		p->reply[n] = '\0';
	CloseHandle(h);
	return NULL;
}

static void start_read(struct pipe_case *p)
{
	void *ov, *buf;
	check("begin", event_overlapped_begin(p->s, OP_READ, 16, &ov, &buf));
	if (!ReadFile(p->pipe, buf, 16, NULL, ov) && GetLastError() != ERROR_IO_PENDING) {
		/* failed at once (the client already gone): no completion */
		p->read_error = GetLastError();
		p->done = true;
		event_overlapped_abandon(p->s, ov);
	}
}

static void on_pipe(struct event_source *s, unsigned tag, const void *data, size_t bytes, uint32_t error, void *u)
{
	struct pipe_case *p = u;
	void *ov, *buf;

	switch (tag) {
	case OP_CONNECT:
		p->connected = error == 0;
		start_read(p);
		return;
	case OP_READ:
		if (error) {
			p->read_error = error;
			p->done = true;
			return;
		}
		memcpy(p->got + p->n_got, data, bytes < sizeof(p->got) - 1 - p->n_got ? bytes : 0);
		p->n_got += bytes;
		if (!memchr(p->got, '\n', p->n_got)) {
			start_read(p);
			return;
		}
		check("begin", event_overlapped_begin(s, OP_WRITE, 6, &ov, &buf));
		memcpy(buf, "HELLO\n", 6);
		if (!WriteFile(p->pipe, buf, 6, NULL, ov) && GetLastError() != ERROR_IO_PENDING)
			event_overlapped_abandon(s, ov);
		return;
	case OP_WRITE:
		p->written = error == 0 && bytes == 6;
		/* the client reads, then closes: the next read ends broken */
		start_read(p);
		return;
	}
}

static HANDLE make_pipe(void)
{
	HANDLE h = CreateNamedPipeW(PIPE_NAME, PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED,
				    PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, PIPE_UNLIMITED_INSTANCES, 4096,
				    4096, 0, NULL);
	if (h == INVALID_HANDLE_VALUE)
		die("CreateNamedPipe", -(int)GetLastError());
	return h;
}

static void case_pipe(void)
{
	struct pipe_case p = { 0 };
	pthread_t th;
	void *ov;

	p.pipe = make_pipe();
	check("overlapped", event_loop_add_overlapped(loop, p.pipe, on_pipe, &p, "pipe", &p.s));
	check("begin", event_overlapped_begin(p.s, OP_CONNECT, 0, &ov, NULL));
	if (!ConnectNamedPipe(p.pipe, ov)) {
		DWORD e = GetLastError();
		if (e != ERROR_IO_PENDING)
			die("ConnectNamedPipe", -(int)e);
	}
	check("thread", event_loop_start_thread(&th, pipe_client, &p));
	run_until(&p.done, 10 * 1000 * 1000);
	pthread_join(th, NULL);
	p.got[p.n_got < sizeof(p.got) ? p.n_got : sizeof(p.got) - 1] = '\0';
	printf("{\"case\":\"pipe\",\"connected\":%s,\"got\":\"%.*s\",\"written\":%s,\"reply\":\"%.*s\","
	       "\"end_error\":%lu,\"pending\":%u}\n",
	       p.connected ? "true" : "false", (int)strcspn(p.got, "\n"), p.got, p.written ? "true" : "false",
	       (int)strcspn(p.reply, "\n"), p.reply, (unsigned long)p.read_error, event_overlapped_pending(p.s));
	event_source_free(p.s);
	CloseHandle(p.pipe);

	/* a read under way when its source is freed: cancelled, its memory
	 * collected by the loop when the cancellation completes */
	p = (struct pipe_case){ 0 };
	p.pipe = make_pipe();
	check("overlapped", event_loop_add_overlapped(loop, p.pipe, on_pipe, &p, "pipe", &p.s));
	check("begin", event_overlapped_begin(p.s, OP_CONNECT, 0, &ov, NULL));
	if (!ConnectNamedPipe(p.pipe, ov) && GetLastError() != ERROR_IO_PENDING)
		die("ConnectNamedPipe", -(int)GetLastError());
	unsigned pending = event_overlapped_pending(p.s);
	event_source_free(p.s);
	CloseHandle(p.pipe);
	check("run_once", event_loop_run_once(loop, 100 * 1000));
	printf("{\"case\":\"pipe-cancel\",\"pending_before\":%u,\"connected\":%s}\n", pending,
	       p.connected ? "true" : "false");
}

/* ------------------------------------------------------------ requests */

struct request_case {
	enum event_request what;
	char why[64];
	unsigned n;
	bool done;
};

static void on_request(enum event_request what, const char *why, void *u)
{
	struct request_case *r = u;
	r->what = what;
	snprintf(r->why, sizeof(r->why), "%s", why);
	r->n++;
	r->done = true;
}

static void *requester(void *u)
{
	(void)u;
	Sleep(20);
	(void)event_loop_request(EVENT_RELOAD, "test reload");
	return NULL;
}

static void case_request(void)
{
	struct request_case r = { 0 };
	pthread_t th;

	check("requests", event_loop_watch_requests(loop, on_request, &r));
	check("thread", event_loop_start_thread(&th, requester, NULL));
	run_until(&r.done, 5000 * 1000);
	pthread_join(th, NULL);
	printf("{\"case\":\"request\",\"n\":%u,\"what\":\"%s\",\"why\":\"%s\"}\n", r.n,
	       r.what == EVENT_RELOAD ? "reload" : "stop", r.why);
}

static void on_stop(enum event_request what, const char *why, void *u)
{
	(void)u;
	printf("{\"case\":\"console\",\"what\":\"%s\",\"why\":\"%s\"}\n", what == EVENT_RELOAD ? "reload" : "stop",
	       why);
	fflush(stdout);
	event_loop_exit(loop, 7);
}

static void case_console(void)
{
	check("requests", event_loop_watch_requests(loop, on_stop, NULL));
	printf("ready\n");
	fflush(stdout);
	int r = event_loop_run(loop);
	printf("{\"case\":\"console-exit\",\"code\":%d}\n", r);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	check("loop", event_loop_new(&loop));
	if (argc > 1 && !strcmp(argv[1], "console")) {
		case_console();
	} else {
		case_timers();
		case_wake();
		case_defer();
		case_handle();
		case_pipe();
		case_request();
	}
	event_loop_free(loop);
	return 0;
}
