/* The daemon's event loop: the one thread that runs the core dispatches
 * one callback at a time from here.  Everything the daemon waits for goes
 * through this header, so that the code above it is the same on every
 * platform: timers, a descriptor (a handle, on Windows) turning readable,
 * work deferred to the next iteration, a wake-up posted from another
 * thread, and the requests to stop or reload that come from outside.
 *
 * linux/event-loop.c implements it over sd-event (signals through a
 * signalfd, systemd's watchdog fed from the loop).  Windows has none yet:
 * its implementation is to wait on an I/O completion port, to which the
 * other sources post.
 *
 * Times are microseconds of the monotonic clock.  Sources belong to their
 * creator, who frees them (event_source_free) before the loop; a callback
 * may free its own source, or any other, and the loop does not touch a
 * source after its callback freed it.  Nothing here is thread-safe except
 * event_wake_post. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
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
 * and SIGHUP (reload); on Windows the service control manager's stop and
 * the console's Ctrl-C. */
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
 * descriptor stays the caller's. */
int event_loop_add_io(struct event_loop *e, event_fd_t fd, uint32_t events, event_io_handler_t handler,
		      void *userdata, const char *name, struct event_source **ret);
/* What io source s waits for from now on (0: only a hang-up or an error). */
int event_io_set_events(struct event_source *s, uint32_t events);
/* Turns io source s off (nothing is dispatched) or on again. */
int event_io_set_enabled(struct event_source *s, bool on);
/* Dispatches io source s at most once per every µs: what comes meanwhile
 * waits for the end of the period. */
int event_io_pace(struct event_source *s, uint64_t every);

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
