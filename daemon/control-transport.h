/* The control server's transport: where clients connect, each
 * connection's bytes, and who is at the other end.  The protocol above it
 * (control.c, control-conn.c: lines of JSON, limits, timers) is the same
 * on every platform.
 *
 * linux/control-transport.c: a Unix stream socket (made at a path, or
 * passed by systemd), non-blocking, the peer's credentials from the
 * kernel (SO_PEERCRED).  windows/control-transport.c: a named pipe
 * (\\.\pipe\ramwatch), instances waiting for clients with overlapped
 * ConnectNamedPipe on the event loop's completion port, the peer's
 * account from its process's token (GetNamedPipeClientProcessId): a
 * security descriptor lets authenticated users connect, and the daemon
 * decides per request what each may see (control-access.h).
 *
 * A connection tells its readiness the way a non-blocking socket does on
 * Linux (event-loop.h's EVENT_*), level-triggered: EVENT_IN while there
 * are bytes to read or the client's end is reached, EVENT_OUT while a
 * write would be taken, EVENT_HUP once the client is gone.  Everything
 * runs on the event loop's thread. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control-access.h"
#include "event-loop.h"

struct control_listener;
struct control_link;

/* A client connected: link is the handler's from now on (free it with
 * control_link_free or control_link_refuse); peer is who it is. */
typedef void (*control_accept_handler_t)(struct control_link *link, const struct control_peer *peer,
					 void *userdata);
/* A connection's readiness (EVENT_IN, EVENT_OUT, EVENT_HUP, EVENT_ERR). */
typedef void (*control_link_handler_t)(struct control_link *link, uint32_t revents, void *userdata);

/* Listens at address: a socket path on Linux, a pipe name on Windows;
 * NULL for the platform's own (the socket systemd passed, else
 * RW_SOCKET_DEFAULT; RW_PIPE_DEFAULT).  Returns 0 with *ret, or a negative
 * errno after logging why, with *ret_optional telling whether the failure
 * was on the default address with nothing given or passed (a daemon that
 * is not root, another daemon there): the daemon may then run without. */
int control_listener_new(struct event_loop *e, const char *address, control_accept_handler_t on_accept,
			 void *userdata, struct control_listener **ret, bool *ret_optional);
/* Stops listening; connections handed out stay their owners'.  Removes
 * the socket file it made, if it is still the one it made.  Accepts
 * NULL, returns NULL. */
struct control_listener *control_listener_free(struct control_listener *l);

/* Starts telling link's readiness to handler, for events (EVENT_IN,
 * EVENT_OUT; hang-ups and errors always).  Returns 0 or -errno. */
int control_link_watch(struct control_link *link, uint32_t events, control_link_handler_t handler,
		       void *userdata);
/* What link tells from now on.  Returns 0 or -errno. */
int control_link_set_events(struct control_link *link, uint32_t events);
/* Reads at most size bytes: 0 with *ret_n (0: the client's end), -EAGAIN
 * when nothing is there now, or -errno. */
int control_link_read(struct control_link *link, void *buf, size_t size, size_t *ret_n);
/* Writes at most n bytes: 0 with *ret_n (> 0), -EAGAIN when no more is
 * taken now (wait for EVENT_OUT), -EPIPE or another -errno when the client
 * is gone. */
int control_link_write(struct control_link *link, const void *data, size_t n, size_t *ret_n);
/* Closes the connection; what was written still goes to the client (for
 * a little while: a client that does not read loses it).  Accepts NULL,
 * returns NULL. */
struct control_link *control_link_free(struct control_link *link);
/* Writes line to the client as best it can and closes (the refusal of a
 * connection past RW_CLIENTS_MAX). */
void control_link_refuse(struct control_link *link, const char *line, size_t n);
