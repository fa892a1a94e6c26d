/* The daemon's event loop: the one thread that runs the core dispatches
 * one callback at a time from here.  Everything the daemon waits for goes
 * through this header, so that the code above it is the same on every
 * platform: timers, a descriptor (a handle, on Windows) turning readable,
 * an overlapped operation's completion (Windows), work deferred to the
 * next iteration, a wake-up posted from another thread, and the requests
 * to stop or reload that come from outside.
 *
 * linux/event-loop.c implements it over sd-event (signals through a
 * signalfd, systemd's watchdog fed from the loop).  windows/event-loop.c
 * waits on an I/O completion port: overlapped handles complete to it, and
 * wake-ups, signalled handles and the console's and the service control
 * manager's requests are posted to it; timers are the wait's time limit.
 *
 * Times are microseconds of the monotonic clock.  Sources belong to their
 * creator, who frees them (event_source_free) before the loop; a callback
 * may free its own source, or any other, and the loop does not touch a
 * source after its callback freed it.  Nothing here is thread-safe except
 * event_wake_post and event_loop_request. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_loop;
struct event_source;

/* What an io source waits for and what it was told (the values are
 * epoll's, so the Linux implementation passes them as they are).  HUP and
 * ERR are told whether asked for or not. */
#define EVENT_IN 0x001u
#define EVENT_OUT 0x004u
#define EVENT_ERR 0x008u
#define EVENT_HUP 0x010u

#ifdef _WIN32
typedef void *event_fd_t; /* a HANDLE the loop can wait for */
#else
typedef int event_fd_t;   /* a file descriptor */
#endif

/* A timer's, a deferred source's or a wake-up's callback. */
typedef void (*event_handler_t)(struct event_source *s, void *userdata);
/* An io source's: revents is what happened (EVENT_*). */
typedef void (*event_io_handler_t)(struct event_source *s, uint32_t revents, void *userdata);

/* What comes from outside: on Linux the signals SIGTERM and SIGINT (stop)
 * and SIGHUP (reload); on Windows the console's Ctrl-C, Ctrl-Break and
 * closing (stop), and the service control manager's stop, shutdown (stop)
 * and parameter change (reload), which windows/service.c passes on with
 * event_loop_request. */
enum event_request {
	EVENT_STOP,
	EVENT_RELOAD,
};
/* why names what asked, for the log ("Terminated", "Hangup"). */
typedef void (*event_request_handler_t)(enum event_request what, const char *why, void *userdata);

/* ------------------------------------------------------------ the loop */

/* A new loop.  Returns 0 with *ret, or a negative errno. */
int event_loop_new(struct event_loop **ret);
/* Frees the loop and what event_loop_watch_requests added; the caller's
 * sources must be gone.  Accepts NULL, returns NULL. */
struct event_loop *event_loop_free(struct event_loop *e);

/* From now on, stop and reload requests call handler on the loop, between
 * two callbacks (never in the middle of one).  On Linux the three signals
 * are blocked in the calling thread, and so in every thread started after
 * it.  Returns 0, or a negative errno after logging why. */
int event_loop_watch_requests(struct event_loop *e, event_request_handler_t handler, void *userdata);

/* Makes a request as if it came from outside, from any thread: on Linux
 * the signal is raised (SIGTERM for stop, SIGHUP for reload); on Windows
 * it is posted to the loop that watches requests, why (a literal) naming
 * it in the log.  Returns 0, -ESRCH on Windows when no loop watches
 * requests, or another negative errno. */
int event_loop_request(enum event_request what, const char *why);

/* Where a service manager checks that the daemon is alive (systemd's
 * WatchdogSec=, which sets WATCHDOG_USEC), the loop tells it so itself at
 * half that period: a loop stuck in a callback stops telling.  Elsewhere,
 * nothing.  Returns 0 or a negative errno. */
int event_loop_keep_watchdog(struct event_loop *e);

/* Dispatches until event_loop_exit.  Returns the code given to it, or a
 * negative errno when the loop failed. */
int event_loop_run(struct event_loop *e);
/* Waits at most timeout µs for something to happen and dispatches it (the
 * tests' step).  Returns >= 0, or a negative errno. */
int event_loop_run_once(struct event_loop *e, uint64_t timeout);
/* Asks the loop to return code from event_loop_run once the current
 * callback returns. */
void event_loop_exit(struct event_loop *e, int code);

/* The monotonic time at which the current iteration woke (so that every
 * callback of one iteration sees the same now), or the time now outside
 * the loop. */
uint64_t event_loop_now(struct event_loop *e);

/* Starts a thread (pthread_create) that takes none of the loop's requests:
 * on Linux every signal is blocked in it, so that the ones the loop reads
 * reach the loop.  Returns 0 or a negative errno. */
int event_loop_start_thread(pthread_t *ret, void *(*fn)(void *), void *arg);

/* ------------------------------------------------------------ sources
 *
 * Each adder returns 0 with *ret, or a negative errno; name is for the
 * loop's debug messages (a literal: it is not copied). */

/* A timer that fires once, at due (monotonic µs) or up to accuracy µs
 * later (so that wake-ups coalesce; 0: the loop's default, 250 ms on
 * sd-event).  Armed again with event_timer_arm_at or _after. */
int event_loop_add_timer(struct event_loop *e, uint64_t due, uint64_t accuracy, event_handler_t handler,
			 void *userdata, const char *name, struct event_source **ret);
/* Arms timer s to fire once at due, with accuracy.  Returns 0 or -errno. */
int event_timer_arm_at(struct event_source *s, uint64_t due, uint64_t accuracy);
/* Arms timer s to fire once usec after the loop's now (event_loop_now),
 * with the accuracy it has.  Returns 0 or -errno. */
int event_timer_arm_after(struct event_source *s, uint64_t usec);
/* The time timer s was last armed for. */
uint64_t event_timer_due(struct event_source *s);
/* The timer does not fire until armed again. */
void event_timer_disarm(struct event_source *s);

/* Calls handler whenever fd has one of events (EVENT_IN, EVENT_OUT), or a
 * hang-up or an error, while enabled (as it is when added).  The
 * descriptor stays the caller's.
 *
 * On Windows fd is a waitable handle (a process, an event) and EVENT_IN is
 * its being signalled, told as long as it is (like a readable descriptor);
 * EVENT_OUT is refused (-EOPNOTSUPP): a handle's I/O is overlapped, its
 * completions told by an overlapped source (below). */
int event_loop_add_io(struct event_loop *e, event_fd_t fd, uint32_t events, event_io_handler_t handler,
		      void *userdata, const char *name, struct event_source **ret);
/* What io source s waits for from now on (0: only a hang-up or an error). */
int event_io_set_events(struct event_source *s, uint32_t events);
/* Turns io source s off (nothing is dispatched) or on again. */
int event_io_set_enabled(struct event_source *s, bool on);
/* Dispatches io source s at most once per every µs: what comes meanwhile
 * waits for the end of the period. */
int event_io_pace(struct event_source *s, uint64_t every);

/* Overlapped operations on a handle (Windows): the handle (opened with
 * FILE_FLAG_OVERLAPPED, and not yet tied to a completion port) completes
 * to the loop, and each operation started with event_overlapped_begin is
 * told to handler once, when it completes, failed or was cancelled:
 * tag is what the caller gave at the start, data and bytes what was
 * transferred (into the operation's buffer), error the Windows error
 * (0: success; ERROR_OPERATION_ABORTED when cancelled, ERROR_BROKEN_PIPE,
 * ERROR_MORE_DATA).  The loop owns each operation and its buffer until
 * the system is done with them, so that a source freed (its operations
 * cancelled) while the system still writes a buffer frees nothing under
 * it.  Linux has no such thing: its implementation refuses with
 * -EOPNOTSUPP, and readiness (event_loop_add_io) is what it has. */
typedef void (*event_overlapped_handler_t)(struct event_source *s, unsigned tag, const void *data, size_t bytes,
					   uint32_t error, void *userdata);
int event_loop_add_overlapped(struct event_loop *e, event_fd_t handle, event_overlapped_handler_t handler,
			      void *userdata, const char *name, struct event_source **ret);
/* Starts an operation on overlapped source s: returns 0 with the
 * OVERLAPPED to give to the call (ReadFile, WriteFile, ConnectNamedPipe)
 * in *ret_overlapped and a buffer of size bytes in *ret_buffer (for a
 * write, what to write is copied there first), or -ENOMEM.  When the call
 * fails without starting (neither success nor ERROR_IO_PENDING), the
 * caller gives the operation back with event_overlapped_abandon: no
 * completion will come. */
int event_overlapped_begin(struct event_source *s, unsigned tag, size_t size, void **ret_overlapped,
			   void **ret_buffer);
void event_overlapped_abandon(struct event_source *s, void *overlapped);
/* How many operations of s are under way. */
unsigned event_overlapped_pending(struct event_source *s);

/* Work for the next iteration: once armed, handler runs once after the
 * current callback returns and before the loop waits again.  Added
 * unarmed. */
int event_loop_add_defer(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			 struct event_source **ret);
/* Arms deferred source s; arming it again before it ran changes nothing. */
void event_defer_arm(struct event_source *s);

/* A wake-up that other threads post: handler runs on the loop once after
 * one or more posts (posts coalesce: whoever posts has left its work where
 * handler looks for it, under a lock of its own). */
int event_loop_add_wake(struct event_loop *e, event_handler_t handler, void *userdata, const char *name,
			struct event_source **ret);
/* Posts the wake-up; from any thread, while the source exists. */
void event_wake_post(struct event_source *s);

/* The userdata s was added with, and the loop it was added to. */
void *event_source_userdata(struct event_source *s);
struct event_loop *event_source_loop(struct event_source *s);
/* Stops and frees a source; accepts NULL, returns NULL. */
struct event_source *event_source_free(struct event_source *s);
