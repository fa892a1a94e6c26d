/* The control server's transport on Windows (control-transport.h): a
 * named pipe, \\.\pipe\ramwatch unless another is given.
 *
 * LISTEN_INSTANCES instances of the pipe wait for clients at a time, each
 * with an overlapped ConnectNamedPipe on the event loop's completion port;
 * one that connects becomes a connection, and a new instance takes its
 * place.  A name already served (another daemon, or anyone) is an error
 * rather than a server that some clients reach: a client's open tells,
 * and the first instance is made with FILE_FLAG_FIRST_PIPE_INSTANCE.  The pipe's
 * security descriptor lets authenticated users read and write it, but not
 * make instances of their own (which would let one pose as the daemon),
 * and gives Administrators and LocalSystem full control; remote clients
 * are refused.  The daemon decides per request what each peer may see
 * (control-access.h), from the account of the client's process.
 *
 * A connection gives the control protocol the readiness it has on Linux
 * (level-triggered EVENT_IN and EVENT_OUT) over completions: one read is
 * kept under way into a buffer of the operation's own, and what it brought
 * is readable until taken; a write takes what fits one operation and
 * says -EAGAIN until it completed.  Readiness is told from a deferred
 * source, never from inside the completion, so the handler may free the
 * connection.  A connection closed with a write still under way lingers
 * (at most LINGER_US) so that its last answer (a "too large" error, the
 * refusal of a busy daemon) reaches the client before the handle closes. */
#include "control-transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <sddl.h>

#include "control-peer.h"
#include "log.h"
#include "paths.h"
#include "util.h"

#define LISTEN_INSTANCES 4
/* the pipe's buffers (a hint to the system), and the most one read or one
 * write operation moves */
#define PIPE_BUFFER (64u * 1024u)
#define LINGER_US (5u * 1000u * 1000u)
/* Authenticated users: read, write data and attributes (not
 * FILE_CREATE_PIPE_INSTANCE, which GENERIC_WRITE would give);
 * Administrators and LocalSystem: all */
#define PIPE_SDDL L"D:P(A;;0x0012018b;;;AU)(A;;FA;;;BA)(A;;FA;;;SY)"

enum { OP_CONNECT, OP_READ, OP_WRITE };

struct control_listener {
	struct event_loop *event;
	wchar_t *name;
	char *name_text;
	PSECURITY_DESCRIPTOR sd;
	struct control_link *waiting[LISTEN_INSTANCES];
	struct control_link *lingering; /* closed, a write still under way */
	struct event_source *again;     /* instances that connected at once */
	control_accept_handler_t on_accept;
	void *userdata;
};

struct control_link {
	struct control_listener *listener;
	struct control_link *prev, *next; /* among the lingering */
	HANDLE pipe;
	struct event_source *ops, *tell, *linger;
	bool connected, connected_at_once;
	control_link_handler_t handler;
	void *userdata;
	uint32_t events;
	/* what the last read brought and is not yet taken */
	unsigned char *in;
	size_t in_start, in_len;
	bool reading, writing;
	bool eof;     /* the client's end: no more to read */
	bool gone;    /* the pipe is broken: no more to write */
	bool closing; /* freed by its owner, lingering */
};

static void link_destroy(struct control_link *link);

/* ------------------------------------------------------------ a connection */

static uint32_t link_ready(const struct control_link *link)
{
	uint32_t r = 0;
	if ((link->events & EVENT_IN) && (link->in_len > 0 || link->eof))
		r |= EVENT_IN;
	if ((link->events & EVENT_OUT) && !link->writing && !link->gone)
		r |= EVENT_OUT;
	/* the client is gone and nothing is left to read: as a socket whose
	 * peer closed (EPOLLHUP) */
	if (link->gone && link->in_len == 0)
		r |= EVENT_HUP;
	return r;
}

/* Tells the owner on the next iteration, if there is something to tell. */
static void link_kick(struct control_link *link)
{
	if (link->tell && link->handler && !link->closing && link_ready(link))
		event_defer_arm(link->tell);
}

static void on_tell(struct event_source *s, void *userdata)
{
	struct control_link *link = userdata;
	(void)s;
	uint32_t r = link_ready(link);
	if (r && link->handler)
		link->handler(link, r, link->userdata); /* may free link */
}

/* Keeps a read under way while nothing read waits to be taken. */
static void start_read(struct control_link *link)
{
	void *ov, *buf;

	if (link->reading || link->eof || link->gone || link->in_len > 0 || link->closing)
		return;
	if (event_overlapped_begin(link->ops, OP_READ, PIPE_BUFFER, &ov, &buf) < 0)
		return; /* out of memory: tried again at the next take */
	if (!ReadFile(link->pipe, buf, PIPE_BUFFER, NULL, ov)) {
		DWORD e = GetLastError();
		if (e != ERROR_IO_PENDING) {
			event_overlapped_abandon(link->ops, ov);
			link->eof = true;
			if (e == ERROR_BROKEN_PIPE || e == ERROR_PIPE_NOT_CONNECTED || e == ERROR_NO_DATA)
				link->gone = true;
			link_kick(link);
			return;
		}
	}
	link->reading = true;
}

static void on_read(struct control_link *link, const void *data, size_t bytes, uint32_t error)
{
	link->reading = false;
	if (error && error != ERROR_MORE_DATA) {
		link->eof = true;
		if (error != ERROR_OPERATION_ABORTED)
			link->gone = true;
	} else if (bytes == 0) {
		/* a zero-byte message: nothing, read on */
	} else {
		unsigned char *copy = malloc(bytes);
		if (!copy) {
			link->eof = link->gone = true;
		} else {
			free(link->in);
			memcpy(copy, data, bytes);
			link->in = copy;
			link->in_start = 0;
			link->in_len = bytes;
		}
	}
	start_read(link);
	link_kick(link);
}

static void link_accepted(struct control_link *link);

static void on_op(struct event_source *s, unsigned tag, const void *data, size_t bytes, uint32_t error,
		  void *userdata)
{
	struct control_link *link = userdata;
	(void)s;

	switch (tag) {
	case OP_CONNECT:
		if (error) {
			log_debug("control: a pipe instance failed to connect (Windows error %lu)", (unsigned long)error);
			link->gone = true;
		}
		link_accepted(link);
		return;
	case OP_READ:
		on_read(link, data, bytes, error);
		return;
	case OP_WRITE:
		link->writing = false;
		if (error)
			link->gone = true;
		if (link->closing) {
			link_destroy(link);
			return;
		}
		link_kick(link);
		return;
	}
}

int control_link_watch(struct control_link *link, uint32_t events, control_link_handler_t handler,
		       void *userdata)
{
	int r = event_loop_add_defer(link->listener->event, on_tell, link, "control-connection", &link->tell);
	if (r < 0)
		return r;
	link->handler = handler;
	link->userdata = userdata;
	link->events = events;
	start_read(link);
	link_kick(link);
	return 0;
}

int control_link_set_events(struct control_link *link, uint32_t events)
{
	link->events = events;
	link_kick(link);
	return 0;
}

int control_link_read(struct control_link *link, void *buf, size_t size, size_t *ret_n)
{
	if (link->in_len == 0) {
		if (link->eof) {
			*ret_n = 0;
			return 0;
		}
		start_read(link);
		return -EAGAIN;
	}
	size_t n = size < link->in_len ? size : link->in_len;
	memcpy(buf, link->in + link->in_start, n);
	link->in_start += n;
	link->in_len -= n;
	if (link->in_len == 0) {
		free(link->in);
		link->in = NULL;
		link->in_start = 0;
		start_read(link);
	}
	*ret_n = n;
	return 0;
}

int control_link_write(struct control_link *link, const void *data, size_t n, size_t *ret_n)
{
	void *ov, *buf;

	if (link->gone)
		return -EPIPE;
	if (link->writing)
		return -EAGAIN;
	if (n > PIPE_BUFFER)
		n = PIPE_BUFFER;
	int r = event_overlapped_begin(link->ops, OP_WRITE, n, &ov, &buf);
	if (r < 0)
		return r;
	memcpy(buf, data, n);
	if (!WriteFile(link->pipe, buf, (DWORD)n, NULL, ov)) {
		DWORD e = GetLastError();
		if (e != ERROR_IO_PENDING) {
			event_overlapped_abandon(link->ops, ov);
			link->gone = true;
			return e == ERROR_NO_DATA || e == ERROR_BROKEN_PIPE || e == ERROR_PIPE_NOT_CONNECTED
				       ? -EPIPE
				       : -posix_errno_of(e);
		}
	}
	link->writing = true;
	*ret_n = n;
	return 0;
}

/* Closes the pipe and frees the link, now. */
static void link_destroy(struct control_link *link)
{
	struct control_listener *l = link->listener;

	if (link->closing) {
		if (link->prev)
			link->prev->next = link->next;
		else
			l->lingering = link->next;
		if (link->next)
			link->next->prev = link->prev;
	}
	/* the operations under way are cancelled, their memory the loop's */
	event_source_free(link->ops);
	event_source_free(link->tell);
	event_source_free(link->linger);
	CloseHandle(link->pipe);
	free(link->in);
	free(link);
}

static void on_linger(struct event_source *s, void *userdata)
{
	struct control_link *link = userdata;
	(void)s;
	log_debug("control: a client did not read its last answer, closing");
	link_destroy(link);
}

struct control_link *control_link_free(struct control_link *link)
{
	if (!link)
		return NULL;
	if (link->writing && !link->gone && !link->closing) {
		struct control_listener *l = link->listener;
		link->closing = true;
		link->handler = NULL;
		link->tell = event_source_free(link->tell);
		if (event_loop_add_timer(l->event, event_loop_now(l->event) + LINGER_US, 0, on_linger, link,
					 "control-linger", &link->linger) >= 0) {
			link->next = l->lingering;
			if (l->lingering)
				l->lingering->prev = link;
			l->lingering = link;
			return NULL;
		}
		link->closing = false;
	}
	link_destroy(link);
	return NULL;
}

void control_link_refuse(struct control_link *link, const char *line, size_t n)
{
	size_t sent;
	(void)control_link_write(link, line, n, &sent);
	control_link_free(link);
}

/* ------------------------------------------------------------ listening */

/* A new instance of the pipe, waiting for a client in slot i.  Returns 0
 * or -errno after logging why. */
static int instance_new(struct control_listener *l, unsigned i, bool first)
{
	SECURITY_ATTRIBUTES sa = { .nLength = sizeof(sa), .lpSecurityDescriptor = l->sd };
	struct control_link *link = calloc(1, sizeof(*link));
	void *ov;
	int r;

	if (!link)
		return log_error_errno(ENOMEM, "out of memory");
	link->listener = l;
	link->pipe = CreateNamedPipeW(l->name,
				      PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED |
					      (first ? FILE_FLAG_FIRST_PIPE_INSTANCE : 0),
				      PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS,
				      PIPE_UNLIMITED_INSTANCES, PIPE_BUFFER, PIPE_BUFFER, 0, &sa);
	if (link->pipe == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		free(link);
		if (first && (e == ERROR_ACCESS_DENIED || e == ERROR_PIPE_BUSY))
			return log_error_errno(EADDRINUSE, "another process serves the pipe %s (another ramwatchd?)",
					       l->name_text);
		return log_error_errno(posix_errno_of(e), "cannot make the pipe %s: %m", l->name_text);
	}
	r = event_loop_add_overlapped(l->event, link->pipe, on_op, link, "control-pipe", &link->ops);
	if (r < 0) {
		CloseHandle(link->pipe);
		free(link);
		return log_error_errno(r, "cannot watch the pipe %s: %m", l->name_text);
	}
	l->waiting[i] = link;
	r = event_overlapped_begin(link->ops, OP_CONNECT, 0, &ov, NULL);
	if (r < 0)
		return log_error_errno(r, "cannot wait for clients on %s: %m", l->name_text);
	if (!ConnectNamedPipe(link->pipe, ov)) {
		DWORD e = GetLastError();
		if (e == ERROR_PIPE_CONNECTED || e == ERROR_NO_DATA) {
			/* a client came (and, for ERROR_NO_DATA, left) between
			 * the two calls: no completion is queued for it */
			event_overlapped_abandon(link->ops, ov);
			link->connected_at_once = true;
			link->gone = e == ERROR_NO_DATA;
			event_defer_arm(l->again);
		} else if (e != ERROR_IO_PENDING) {
			event_overlapped_abandon(link->ops, ov);
			return log_error_errno(posix_errno_of(e), "cannot wait for clients on %s: %m", l->name_text);
		}
	}
	return 0;
}

/* Waiting instance link has a client (or failed): it is handed out, and
 * a new instance waits in its place. */
static void link_accepted(struct control_link *link)
{
	struct control_listener *l = link->listener;
	struct control_peer peer;
	ULONG pid = 0;
	unsigned i;
	int r;

	for (i = 0; i < LISTEN_INSTANCES && l->waiting[i] != link; i++)
		;
	if (i < LISTEN_INSTANCES) {
		l->waiting[i] = NULL;
		(void)instance_new(l, i, false);
	}
	link->connected = true;
	link->connected_at_once = false;
	if (link->gone) {
		link_destroy(link);
		return;
	}
	if (!GetNamedPipeClientProcessId(link->pipe, &pid)) {
		log_debug("control: cannot tell which process connected (Windows error %lu), closing",
			  (unsigned long)GetLastError());
		link_destroy(link);
		return;
	}
	r = control_peer_of_process(pid, &peer);
	if (r < 0) {
		log_debug_errno(r, "control: cannot read the account of process %lu, closing: %m", (unsigned long)pid);
		link_destroy(link);
		return;
	}
	l->on_accept(link, &peer, l->userdata);
}

static void on_again(struct event_source *s, void *userdata)
{
	struct control_listener *l = userdata;
	(void)s;
	for (unsigned i = 0; i < LISTEN_INSTANCES; i++)
		if (l->waiting[i] && l->waiting[i]->connected_at_once)
			link_accepted(l->waiting[i]);
}

/* Whether a server answers at name already: FILE_FLAG_FIRST_PIPE_INSTANCE
 * says so on Windows, but Wine lets a second server make the first
 * instance of a name in use, so a client's open asks first. */
static bool pipe_served(const wchar_t *name)
{
	HANDLE h = CreateFileW(name, GENERIC_READ | FILE_WRITE_DATA, 0, NULL, OPEN_EXISTING, 0, NULL);
	if (h != INVALID_HANDLE_VALUE) {
		CloseHandle(h);
		return true;
	}
	DWORD e = GetLastError();
	return e == ERROR_PIPE_BUSY || e == ERROR_ACCESS_DENIED;
}

static wchar_t *wide(const char *text)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	wchar_t *w = calloc((size_t)n, sizeof(wchar_t));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

int control_listener_new(struct event_loop *e, const char *address, control_accept_handler_t on_accept,
			 void *userdata, struct control_listener **ret, bool *ret_optional)
{
	struct control_listener *l = calloc(1, sizeof(*l));
	int r;

	*ret_optional = false;
	if (!l)
		return log_error_errno(ENOMEM, "out of memory");
	l->event = e;
	l->on_accept = on_accept;
	l->userdata = userdata;
	bool given = address != NULL;
	if (!given)
		address = RW_PIPE_DEFAULT;
	if (strncmp(address, "\\\\.\\pipe\\", 9) != 0 || strlen(address) > 256) {
		control_listener_free(l);
		return log_error_errno(EINVAL, "pipe name %s: \\\\.\\pipe\\NAME of at most 256 characters is needed",
				       address);
	}
	if (!(l->name_text = strdup(address)) || !(l->name = wide(address))) {
		control_listener_free(l);
		return log_error_errno(ENOMEM, "out of memory");
	}
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(PIPE_SDDL, SDDL_REVISION_1, &l->sd, NULL)) {
		r = -posix_errno_of(GetLastError());
		control_listener_free(l);
		return log_error_errno(r, "cannot make the pipe's security descriptor: %m");
	}
	if (pipe_served(l->name)) {
		*ret_optional = !given;
		control_listener_free(l);
		return log_error_errno(EADDRINUSE, "another process serves the pipe %s (another ramwatchd?)", address);
	}
	r = event_loop_add_defer(e, on_again, l, "control-listen-again", &l->again);
	for (unsigned i = 0; r >= 0 && i < LISTEN_INSTANCES; i++)
		r = instance_new(l, i, i == 0);
	if (r < 0) {
		/* the default name taken: the daemon may run without */
		*ret_optional = !given;
		control_listener_free(l);
		return r;
	}
	log_info("control pipe %s", address);
	*ret = l;
	return 0;
}

struct control_listener *control_listener_free(struct control_listener *l)
{
	if (!l)
		return NULL;
	for (unsigned i = 0; i < LISTEN_INSTANCES; i++)
		if (l->waiting[i])
			link_destroy(l->waiting[i]);
	while (l->lingering)
		link_destroy(l->lingering);
	event_source_free(l->again);
	if (l->sd)
		LocalFree(l->sd);
	free(l->name);
	free(l->name_text);
	free(l);
	return NULL;
}
