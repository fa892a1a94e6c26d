/* The event loop (event-loop.h) on Windows: one I/O completion port.
 *
 * Everything the loop waits for arrives as a packet on the port: the
 * completions of overlapped handles tied to it (the control pipe's
 * instances), and the packets posted by other threads: a wake-up, a
 * handle signalled (a thread pool wait, RegisterWaitForSingleObject, posts
 * it), a request to stop or reload (the console's handler and the service
 * control manager's run on threads of their own).  Timers are the wait's
 * time limit: the earliest due timer (plus its accuracy, so that timers
 * close together fire in one wake-up) bounds GetQueuedCompletionStatusEx.
 *
 * A posted packet names its source by a serial number, never a pointer:
 * a source freed while its packet waits in the port is then simply not
 * found.  An overlapped operation is memory of the loop's (struct op,
 * with its buffer) that lives until its completion comes, whatever
 * happened to the source meanwhile; freeing a source cancels its
 * operations (CancelIoEx) and leaves them to be collected.
 *
 * Sources freed while the loop dispatches are only marked dead and
 * unlinked when the iteration ends, so that walking the list of sources
 * survives any callback. */
#include "event-loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "log.h"
#include "util.h"

/* The packets posted to the port, by completion key; handles tied to the
 * port complete with KEY_OVERLAPPED. */
enum {
	KEY_OVERLAPPED = 1,
	KEY_WAKE,     /* lpOverlapped: the source's serial */
	KEY_SIGNALLED, /* lpOverlapped: the source's serial */
	KEY_REQUEST,  /* bytes: the request; lpOverlapped: why, a literal */
};

/* sd-event's default accuracy, so that timers coalesce alike */
#define DEFAULT_ACCURACY_US (250u * 1000u)
/* packets taken from the port per wait */
#define PACKETS_PER_WAIT 64
/* how long freeing the loop waits for cancelled operations to complete */
#define DRAIN_MS 1000u

enum source_kind {
	SOURCE_TIMER,
	SOURCE_IO,         /* a waitable handle */
	SOURCE_OVERLAPPED, /* a handle tied to the port */
	SOURCE_DEFER,
	SOURCE_WAKE,
};

struct op {
	OVERLAPPED ov; /* first: the port gives back its address */
	struct event_source *source; /* NULL once the source is gone */
	struct op *prev, *next;      /* the source's operations, or the orphans */
	unsigned tag;
	size_t size;
	unsigned char buf[];
};

struct event_source {
	struct event_loop *loop;
	struct event_source *prev, *next; /* every source of the loop */
	struct event_source *dead_next;   /* freed during dispatch */
	enum source_kind kind;
	uint64_t serial;
	const char *name;
	bool dead;
	event_handler_t handler;
	event_io_handler_t io_handler;
	event_overlapped_handler_t overlapped_handler;
	void *userdata;
	uint64_t fired; /* the iteration that last dispatched it */

	/* timer */
	bool armed;
	uint64_t due, accuracy;
	/* io: a waitable handle */
	HANDLE handle;
	HANDLE wait;      /* the thread pool's wait while registered */
	bool enabled;
	uint64_t pace, resume_at; /* event_io_pace: at most one per pace µs */
	bool signalled;   /* told while paced: dispatched at resume_at */
	/* overlapped */
	struct op *ops;
	unsigned n_ops;
	/* wake */
	volatile LONG posted;
};

struct event_loop {
	HANDLE port;
	struct event_source *sources;
	struct event_source *dead;
	struct op *orphans; /* cancelled operations not yet completed */
	uint64_t serial;
	uint64_t iteration;
	unsigned depth;     /* > 0 while dispatching */
	bool exiting;
	int exit_code;
	bool have_now;
	uint64_t now;
	event_request_handler_t request;
	void *request_userdata;
};

/* The loop that takes requests: the console's handler has no userdata,
 * and a process has one daemon loop. */
static struct event_loop *volatile request_loop;
/* Set when that loop is gone, for the console's closing handler, which
 * must not return (Windows then ends the process) before the daemon has
 * written what it gathered. */
static HANDLE request_loop_done;

/* ------------------------------------------------------------ the loop */

int event_loop_new(struct event_loop **ret)
{
	struct event_loop *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE, NULL, 0, 1);
	if (!e->port) {
		int r = -posix_errno_of(GetLastError());
		free(e);
		return r;
	}
	*ret = e;
	return 0;
}

static void op_free(struct op *op)
{
	free(op);
}

static void op_unlink(struct op **list, struct op *op)
{
	if (op->prev)
		op->prev->next = op->next;
	else
		*list = op->next;
	if (op->next)
		op->next->prev = op->prev;
	op->prev = op->next = NULL;
}

static void op_link(struct op **list, struct op *op)
{
	op->prev = NULL;
	op->next = *list;
	if (*list)
		(*list)->prev = op;
	*list = op;
}

/* Takes what the port holds until no cancelled operation is left, or the
 * time is up: the system writes their memory until then. */
static void drain_orphans(struct event_loop *e)
{
	uint64_t until = now_monotonic_us() + DRAIN_MS * 1000u;

	while (e->orphans) {
		OVERLAPPED_ENTRY got[PACKETS_PER_WAIT];
		ULONG n = 0;
		uint64_t now = now_monotonic_us();
		if (now >= until)
			break;
		if (!GetQueuedCompletionStatusEx(e->port, got, PACKETS_PER_WAIT, &n,
						 (DWORD)((until - now + 999) / 1000), FALSE))
			break;
		for (ULONG i = 0; i < n; i++) {
			if (got[i].lpCompletionKey != KEY_OVERLAPPED || !got[i].lpOverlapped)
				continue;
			struct op *op = (struct op *)got[i].lpOverlapped;
			if (!op->source) {
				op_unlink(&e->orphans, op);
				op_free(op);
			}
		}
	}
	/* what is left the system may still write: it is left to it */
	if (e->orphans)
		log_debug("event loop: cancelled operations still under way at exit, left to the system");
}

struct event_loop *event_loop_free(struct event_loop *e)
{
	if (!e)
		return NULL;
	drain_orphans(e);
	if (request_loop == e) {
		request_loop = NULL;
		if (request_loop_done)
			SetEvent(request_loop_done);
	}
	CloseHandle(e->port);
	free(e);
	return NULL;
}

/* Posts a request to the loop that takes them: from any thread. */
static int post_request(enum event_request what, const char *why)
{
	struct event_loop *e = request_loop;
	if (!e)
		return -ESRCH;
	if (!PostQueuedCompletionStatus(e->port, (DWORD)what, KEY_REQUEST, (LPOVERLAPPED)(void *)why))
		return -posix_errno_of(GetLastError());
	return 0;
}

int event_loop_request(enum event_request what, const char *why)
{
	return post_request(what, why);
}

/* The console's handler, on a thread Windows starts for it. */
static BOOL WINAPI on_console(DWORD type)
{
	switch (type) {
	case CTRL_C_EVENT:
		return post_request(EVENT_STOP, "Ctrl-C") == 0;
	case CTRL_BREAK_EVENT:
		return post_request(EVENT_STOP, "Ctrl-Break") == 0;
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		if (post_request(EVENT_STOP, type == CTRL_CLOSE_EVENT ? "console closed" : "logoff or shutdown") < 0)
			return FALSE;
		/* returning ends the process: wait (Windows gives 5 s) for the
		 * loop to end first */
		WaitForSingleObject(request_loop_done, 4500);
		return TRUE;
	default: return FALSE;
	}
}

int event_loop_watch_requests(struct event_loop *e, event_request_handler_t handler, void *userdata)
{
	e->request = handler;
	e->request_userdata = userdata;
	if (!request_loop_done && !(request_loop_done = CreateEventW(NULL, TRUE, FALSE, NULL)))
		return log_error_errno(posix_errno_of(GetLastError()), "cannot watch the console's requests: %m");
	ResetEvent(request_loop_done);
	request_loop = e;
	/* a service has no console: the call fails there, harmlessly, and its
	 * requests come from the service control manager (service.c) */
	(void)SetConsoleCtrlHandler(on_console, TRUE);
	return 0;
}

int event_loop_keep_watchdog(struct event_loop *e)
{
	/* the service control manager has no watchdog to feed */
	(void)e;
	return 0;
}

void event_loop_exit(struct event_loop *e, int code)
{
	if (e->exiting)
		return;
	e->exiting = true;
	e->exit_code = code;
}

uint64_t event_loop_now(struct event_loop *e)
{
	return e->have_now ? e->now : now_monotonic_us();
}

int event_loop_start_thread(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	/* no signals to keep from it: requests come as packets */
	return -pthread_create(ret, NULL, fn, arg);
}

/* ------------------------------------------------------------ sources */

static struct event_source *source_lookup(struct event_loop *e, uint64_t serial)
{
	for (struct event_source *s = e->sources; s; s = s->next)
		if (s->serial == serial)
			return s->dead ? NULL : s;
	return NULL;
}

static void source_unlink(struct event_source *s)
{
	struct event_loop *e = s->loop;
	if (s->prev)
		s->prev->next = s->next;
	else
		e->sources = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

static struct event_source *source_new(struct event_loop *e, enum source_kind kind, void *userdata,
				       const char *name)
{
	struct event_source *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->loop = e;
	s->kind = kind;
	s->serial = ++e->serial;
	s->userdata = userdata;
	s->name = name;
	s->next = e->sources;
	if (e->sources)
		e->sources->prev = s;
	e->sources = s;
	return s;
}

static void CALLBACK on_signalled(void *context, BOOLEAN timed_out)
{
	struct event_source *s = context;
	(void)timed_out;
	/* a thread pool thread: only the port is touched; the source's
	 * serial and loop do not change while the wait is registered */
	(void)PostQueuedCompletionStatus(s->loop->port, 0, KEY_SIGNALLED, (LPOVERLAPPED)(uintptr_t)s->serial);
}

/* The thread pool waits for the handle once; the packet it posts is the
 * source's next dispatch.  Returns 0 or -errno. */
static int io_register(struct event_source *s)
{
	if (s->wait)
		return 0;
	if (!RegisterWaitForSingleObject(&s->wait, s->handle, on_signalled, s, INFINITE,
					 WT_EXECUTEONLYONCE | WT_EXECUTEINWAITTHREAD)) {
		s->wait = NULL;
		return -posix_errno_of(GetLastError());
	}
	return 0;
}

/* Ends the wait; blocking until a callback under way has posted, so that
 * nothing touches the source after. */
static void io_unregister(struct event_source *s)
{
	if (!s->wait)
		return;
	(void)UnregisterWaitEx(s->wait, INVALID_HANDLE_VALUE);
	s->wait = NULL;
}

struct event_source *event_source_free(struct event_source *s)
{
	if (!s)
		return NULL;
	struct event_loop *e = s->loop;
	if (s->dead)
		return NULL;
	s->dead = true;
	s->armed = false;
	io_unregister(s);
	/* the operations stay until the system is done with them */
	while (s->ops) {
		struct op *op = s->ops;
		op_unlink(&s->ops, op);
		op->source = NULL;
		(void)CancelIoEx(s->handle, &op->ov);
		op_link(&e->orphans, op);
	}
	if (e->depth > 0) {
		s->dead_next = e->dead;
		e->dead = s;
		return NULL;
	}
	source_unlink(s);
	free(s);
	return NULL;
}

/* The sources freed during the iteration, now unlinked and freed. */
static void collect_dead(struct event_loop *e)
{
	while (e->dead) {
		struct event_source *s = e->dead;
		e->dead = s->dead_next;
		source_unlink(s);
		free(s);
	}
}

int event_loop_add_timer(struct event_loop *e, uint64_t due, uint64_t accuracy, event_handler_t handler,
			 void *userdata, const char *name, struct event_source **ret)
{
	struct event_source *s = source_new(e, SOURCE_TIMER, userdata, name);
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	s->armed = true;
	s->due = due;
	s->accuracy = accuracy ? accuracy : DEFAULT_ACCURACY_US;
	*ret = s;
	return 0;
}

int event_timer_arm_at(struct event_source *s, uint64_t due, uint64_t accuracy)
{
	if (s->kind != SOURCE_TIMER)
		return -EINVAL;
	s->due = due;
	s->accuracy = accuracy ? accuracy : DEFAULT_ACCURACY_US;
	s->armed = true;
	return 0;
}

int event_timer_arm_after(struct event_source *s, uint64_t usec)
{
	if (s->kind != SOURCE_TIMER)
		return -EINVAL;
	s->due = event_loop_now(s->loop) + usec;
	s->armed = true;
	return 0;
}

uint64_t event_timer_due(struct event_source *s)
{
	return s->due;
}

void event_timer_disarm(struct event_source *s)
{
	s->armed = false;
}

int event_loop_add_io(struct event_loop *e, event_fd_t fd, uint32_t events, event_io_handler_t handler,
		      void *userdata, const char *name, struct event_source **ret)
{
	if (events & EVENT_OUT)
		return -EOPNOTSUPP;
	struct event_source *s = source_new(e, SOURCE_IO, userdata, name);
	if (!s)
		return -ENOMEM;
	s->io_handler = handler;
	s->handle = fd;
	s->enabled = true;
	int r = io_register(s);
	if (r < 0) {
		event_source_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int event_io_set_events(struct event_source *s, uint32_t events)
{
	if (s->kind != SOURCE_IO)
		return -EINVAL;
	return events & EVENT_OUT ? -EOPNOTSUPP : 0;
}

int event_io_set_enabled(struct event_source *s, bool on)
{
	if (s->kind != SOURCE_IO)
		return -EINVAL;
	s->enabled = on;
	if (!on) {
		io_unregister(s);
		s->signalled = false;
		return 0;
	}
	return s->resume_at ? 0 : io_register(s);
}

int event_io_pace(struct event_source *s, uint64_t every)
{
	if (s->kind != SOURCE_IO)
		return -EINVAL;
	s->pace = every;
	return 0;
}

int event_loop_add_overlapped(struct event_loop *e, event_fd_t handle, event_overlapped_handler_t handler,
			      void *userdata, const char *name, struct event_source **ret)
{
	struct event_source *s = source_new(e, SOURCE_OVERLAPPED, userdata, name);
	if (!s)
		return -ENOMEM;
	s->overlapped_handler = handler;
	s->handle = handle;
	if (!CreateIoCompletionPort(handle, e->port, KEY_OVERLAPPED, 0)) {
		int r = -posix_errno_of(GetLastError());
		event_source_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int event_overlapped_begin(struct event_source *s, unsigned tag, size_t size, void **ret_overlapped,
			   void **ret_buffer)
{
	if (s->kind != SOURCE_OVERLAPPED || s->dead)
		return -EINVAL;
	struct op *op = calloc(1, sizeof(*op) + size);
	if (!op)
		return -ENOMEM;
	op->source = s;
	op->tag = tag;
	op->size = size;
	op_link(&s->ops, op);
	s->n_ops++;
	*ret_overlapped = &op->ov;
	if (ret_buffer)
		*ret_buffer = op->buf;
	return 0;
}

void event_overlapped_abandon(struct event_source *s, void *overlapped)
{
	struct op *op = overlapped;
	if (!op)
		return;
	op_unlink(&s->ops, op);
	s->n_ops--;
	op_free(op);
}

unsigned event_overlapped_pending(struct event_source *s)
{
	return s->n_ops;
}

int event_loop_add_defer(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			 struct event_source **ret)
{
	struct event_source *s = source_new(e, SOURCE_DEFER, userdata, name);
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	*ret = s;
	return 0;
}

void event_defer_arm(struct event_source *s)
{
	s->armed = true;
}

int event_loop_add_wake(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			struct event_source **ret)
{
	struct event_source *s = source_new(e, SOURCE_WAKE, userdata, name);
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	*ret = s;
	return 0;
}

void event_wake_post(struct event_source *s)
{
	/* one packet for any number of posts until the loop takes it; the
	 * port's post fails only for want of memory, and then the flag is
	 * let go so that the next post tries again */
	if (InterlockedExchange(&s->posted, 1) == 0 &&
	    !PostQueuedCompletionStatus(s->loop->port, 0, KEY_WAKE, (LPOVERLAPPED)(uintptr_t)s->serial))
		InterlockedExchange(&s->posted, 0);
}

void *event_source_userdata(struct event_source *s)
{
	return s->userdata;
}

struct event_loop *event_source_loop(struct event_source *s)
{
	return s->loop;
}

/* ------------------------------------------------------------ dispatching */

static bool alive(struct event_source *s)
{
	return s && !s->dead;
}

static void dispatch_io(struct event_source *s)
{
	s->signalled = false;
	s->fired = s->loop->iteration;
	if (s->pace)
		s->resume_at = s->loop->now + s->pace;
	s->io_handler(s, EVENT_IN, s->userdata);
	/* as long as the handle is signalled it is told again (the loop
	 * level-triggered, as epoll is for a descriptor) */
	if (alive(s) && s->enabled && !s->resume_at)
		(void)io_register(s);
}

static void dispatch_packet(struct event_loop *e, const OVERLAPPED_ENTRY *p)
{
	struct event_source *s;

	switch (p->lpCompletionKey) {
	case KEY_OVERLAPPED: {
		struct op *op = (struct op *)p->lpOverlapped;
		if (!op)
			return;
		s = op->source;
		if (!s) {
			op_unlink(&e->orphans, op);
			op_free(op);
			return;
		}
		DWORD bytes = 0;
		uint32_t error = 0;
		/* the entry has the byte count but not the status: ask for it */
		if (!GetOverlappedResult(s->handle, &op->ov, &bytes, FALSE))
			error = GetLastError();
		op_unlink(&s->ops, op);
		s->n_ops--;
		s->fired = e->iteration;
		s->overlapped_handler(s, op->tag, op->buf, bytes, error, s->userdata);
		op_free(op);
		return;
	}
	case KEY_WAKE:
		s = source_lookup(e, (uint64_t)(uintptr_t)p->lpOverlapped);
		if (!s)
			return;
		InterlockedExchange(&s->posted, 0);
		s->fired = e->iteration;
		s->handler(s, s->userdata);
		return;
	case KEY_SIGNALLED:
		s = source_lookup(e, (uint64_t)(uintptr_t)p->lpOverlapped);
		if (!s || s->kind != SOURCE_IO)
			return;
		/* the one-shot wait is over: its handle is let go here, off
		 * the thread pool's thread */
		if (s->wait) {
			(void)UnregisterWaitEx(s->wait, NULL);
			s->wait = NULL;
		}
		if (!s->enabled)
			return;
		if (s->resume_at) {
			s->signalled = true;
			return;
		}
		dispatch_io(s);
		return;
	case KEY_REQUEST:
		if (e->request)
			e->request((enum event_request)p->dwNumberOfBytesTransferred,
				   p->lpOverlapped ? (const char *)p->lpOverlapped : "request", e->request_userdata);
		return;
	default: return;
	}
}

/* A packet taken after the loop was asked to exit: nothing is dispatched
 * any more, but an operation that completed is done with. */
static void drop_packet(struct event_loop *e, const OVERLAPPED_ENTRY *p)
{
	struct op *op = (struct op *)p->lpOverlapped;
	struct event_source *s;

	if (p->lpCompletionKey == KEY_WAKE && (s = source_lookup(e, (uint64_t)(uintptr_t)p->lpOverlapped)))
		InterlockedExchange(&s->posted, 0);
	if (p->lpCompletionKey != KEY_OVERLAPPED || !op)
		return;
	if (op->source) {
		op_unlink(&op->source->ops, op);
		op->source->n_ops--;
	} else
		op_unlink(&e->orphans, op);
	op_free(op);
}

/* The timers due by now, and the paced io sources whose time has come. */
static void dispatch_due(struct event_loop *e)
{
	for (struct event_source *s = e->sources; s && !e->exiting; s = s->next) {
		if (s->dead || s->fired == e->iteration)
			continue;
		if (s->kind == SOURCE_TIMER && s->armed && s->due <= e->now) {
			s->armed = false;
			s->fired = e->iteration;
			s->handler(s, s->userdata);
		} else if (s->kind == SOURCE_IO && s->resume_at && s->resume_at <= e->now) {
			s->resume_at = 0;
			if (!s->enabled)
				continue;
			if (s->signalled)
				dispatch_io(s);
			else
				(void)io_register(s);
		}
	}
}

/* The armed deferred sources, each once. */
static void dispatch_deferred(struct event_loop *e)
{
	for (struct event_source *s = e->sources; s && !e->exiting; s = s->next) {
		if (s->dead || s->kind != SOURCE_DEFER || !s->armed || s->fired == e->iteration)
			continue;
		s->armed = false;
		s->fired = e->iteration;
		s->handler(s, s->userdata);
	}
}

/* How long the wait may be, in ms (INFINITE for ever), from timeout (µs,
 * UINT64_MAX: none), the timers and the deferred sources. */
static DWORD wait_ms(struct event_loop *e, uint64_t timeout)
{
	uint64_t now = now_monotonic_us();
	uint64_t until = timeout == UINT64_MAX ? UINT64_MAX : now + timeout;

	for (struct event_source *s = e->sources; s; s = s->next) {
		if (s->dead)
			continue;
		if (s->kind == SOURCE_DEFER && s->armed)
			return 0;
		if (s->kind == SOURCE_TIMER && s->armed) {
			uint64_t latest = s->due + s->accuracy;
			if (latest < s->due)
				latest = UINT64_MAX;
			if (latest < until)
				until = latest;
		}
		if (s->kind == SOURCE_IO && s->resume_at && s->resume_at < until)
			until = s->resume_at;
	}
	if (until == UINT64_MAX)
		return INFINITE;
	if (until <= now)
		return 0;
	uint64_t ms = (until - now + 999) / 1000;
	return ms >= INFINITE ? INFINITE - 1 : (DWORD)ms;
}

/* One iteration: waits (at most timeout µs), then dispatches the packets,
 * the due timers and the deferred work.  Returns >= 0 or -errno. */
static int iterate(struct event_loop *e, uint64_t timeout)
{
	OVERLAPPED_ENTRY got[PACKETS_PER_WAIT];
	ULONG n = 0;

	DWORD ms = wait_ms(e, timeout);
	if (!GetQueuedCompletionStatusEx(e->port, got, PACKETS_PER_WAIT, &n, ms, FALSE)) {
		DWORD err = GetLastError();
		if (err != WAIT_TIMEOUT)
			return -posix_errno_of(err);
		n = 0;
	}
	e->iteration++;
	e->now = now_monotonic_us();
	e->have_now = true;
	e->depth++;
	for (ULONG i = 0; i < n; i++) {
		if (e->exiting)
			drop_packet(e, &got[i]);
		else
			dispatch_packet(e, &got[i]);
	}
	if (!e->exiting)
		dispatch_due(e);
	if (!e->exiting)
		dispatch_deferred(e);
	e->depth--;
	e->have_now = false;
	collect_dead(e);
	return (int)n;
}

int event_loop_run(struct event_loop *e)
{
	while (!e->exiting) {
		int r = iterate(e, UINT64_MAX);
		if (r < 0)
			return log_error_errno(r, "the event loop failed: %m");
	}
	return e->exit_code;
}

int event_loop_run_once(struct event_loop *e, uint64_t timeout)
{
	if (e->exiting)
		return 0;
	return iterate(e, timeout);
}
