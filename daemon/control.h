/* The control socket (doc/protocol.md): where `ramwatch` asks the daemon
 * about processes.
 *
 * A Unix stream socket, one JSON object per line each way.  It is open to
 * every local user (mode 0666): the daemon decides per request, from the
 * peer's credentials, what the asker may see (control-access.h).  Every
 * connection is non-blocking and bounded (control-conn.c): a client that
 * sends nothing, sends too much or never reads holds only its own
 * connection.  Requests that read the store or scan an unwatched process
 * run on a worker thread (control-worker.c), so the sampling loop never
 * waits for them.
 *
 *   control.c            listening, accepting, the server's lifetime
 *   control-conn.c       one connection: buffers, framing, timers, answers
 *   control-ops.c        the ops run on the loop: status, mark, scan (through
 *                        the daemon's core interface: core-interface.h)
 *   control-queries.c    the ops run on the worker: store reads, scans
 *   control-request.c    parsing and checking requests (pure)
 *   control-answer.c     answer lines, UTF-8 and name checks (pure)
 *   control-access.c     peer credentials, group membership
 *   control-processes.c  the "processes" merge (pure)
 *   control-buffer.c     input framing and output buffering (pure) */
#pragma once

#include "paths.h"
#include "core-interface.h"

struct control;
struct event_loop;


struct control_options {
	/* NULL: the socket systemd passes (socket activation), else
	 * RW_SOCKET_DEFAULT */
	const char *socket_path;
	/* where processes are read from for scans (NULL: /proc) */
	const char *proc_root;
	/* ... and that root, open (borrowed): owners of unwatched processes */
	int root_fd;
	/* the database, which the worker opens read-only on its own */
	const char *db_path;
};

/* Starts serving the control socket on event, answering from what core
 * (copied) tells of the daemon, and from the database.  With
 * socket activation the socket systemd passed is used as it is; else the
 * socket is created at the path: its directory made (0755) when missing, a
 * stale socket file (one nobody listens on) replaced, mode 0666.
 *
 * Returns 0 with *ret, or a negative errno after logging why.  When no
 * path was given and the default one cannot be used (not root, another
 * daemon listening there), that is logged and 0 is returned with *ret
 * NULL: the daemon samples without a control socket.  A path given
 * explicitly, or a bad socket from systemd, is an error. */
int control_new(struct event_loop *event, const struct core_interface *core, const struct control_options *o,
		struct control **ret);

/* The database at db_path is a new file (the old one was found damaged
 * and moved aside): the worker reads the new one from its next request.
 * Accepts NULL. */
void control_store_replaced(struct control *c);

/* Closes every connection (cancelling what they wait for), stops the
 * worker, removes the socket file it created.  Accepts NULL, returns
 * NULL. */
struct control *control_free(struct control *c);
