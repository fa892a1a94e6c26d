/* The control server's transport on Linux (control-transport.h): a Unix
 * stream socket, made at its path or passed by systemd (socket
 * activation), accepted connections non-blocking, the peer's credentials
 * from the kernel (SO_PEERCRED) at accept. */
#include "control-transport.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "control-buffer.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "util.h"

/* After accept fails for lack of file descriptors or memory, listening
 * pauses this long (else the level-triggered source would spin). */
#define ACCEPT_PAUSE_US (1000u * 1000u)

struct control_listener {
	struct event_loop *event;
	int fd;
	struct event_source *source, *retry;
	char *path; /* the socket file made here, removed at exit */
	dev_t dev;  /* ... and which file it is */
	ino_t ino;
	control_accept_handler_t on_accept;
	void *userdata;
};

struct control_link {
	struct event_loop *event;
	int fd;
	struct event_source *io;
	control_link_handler_t handler;
	void *userdata;
};

/* ------------------------------------------------------------ a connection */

static void on_link_io(struct event_source *s, uint32_t revents, void *userdata)
{
	struct control_link *link = userdata;
	(void)s;
	link->handler(link, revents, link->userdata);
}

int control_link_watch(struct control_link *link, uint32_t events, control_link_handler_t handler,
		       void *userdata)
{
	link->handler = handler;
	link->userdata = userdata;
	return event_loop_add_io(link->event, link->fd, events, on_link_io, link, "control-connection", &link->io);
}

int control_link_set_events(struct control_link *link, uint32_t events)
{
	return event_io_set_events(link->io, events);
}

int control_link_read(struct control_link *link, void *buf, size_t size, size_t *ret_n)
{
	for (;;) {
		ssize_t k = recv(link->fd, buf, size, MSG_DONTWAIT);
		if (k >= 0) {
			*ret_n = (size_t)k;
			return 0;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
}

/* A non-blocking send: *ret_n bytes went, or -EAGAIN, or -errno. */
static int send_some(int fd, const void *data, size_t n, size_t *ret_n)
{
	for (;;) {
		/* MSG_NOSIGNAL: a client that went away is EPIPE, not SIGPIPE */
		ssize_t k = send(fd, data, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k >= 0) {
			*ret_n = (size_t)k;
			return 0;
		}
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	}
}

int control_link_write(struct control_link *link, const void *data, size_t n, size_t *ret_n)
{
	return send_some(link->fd, data, n, ret_n);
}

struct control_link *control_link_free(struct control_link *link)
{
	if (!link)
		return NULL;
	event_source_free(link->io);
	/* what the kernel holds of the answer still goes */
	if (link->fd >= 0)
		close(link->fd);
	free(link);
	return NULL;
}

void control_link_refuse(struct control_link *link, const char *line, size_t n)
{
	size_t sent;
	/* best effort: a new socket has room for a line; a client that is
	 * gone or full does not get it */
	(void)send_some(link->fd, line, n, &sent);
	control_link_free(link);
}

static int write_socket(void *ctx, const void *data, size_t n, size_t *ret_n)
{
	return send_some(*(const int *)ctx, data, n, ret_n);
}

int control_outbuf_flush(struct control_outbuf *b, int fd, size_t *ret_written)
{
	return control_outbuf_write(b, write_socket, &fd, ret_written);
}

/* ------------------------------------------------------------ listening */

static void on_listen(struct event_source *s, uint32_t revents, void *userdata);

static void on_accept_retry(struct event_source *s, void *userdata)
{
	struct control_listener *l = userdata;
	(void)s;
	(void)event_io_set_enabled(l->source, true);
}

/* accept failed for want of a resource: stop listening for a moment */
static void pause_accepting(struct control_listener *l)
{
	int r;

	(void)event_io_set_enabled(l->source, false);
	if (!l->retry) {
		r = event_loop_add_timer(l->event, event_loop_now(l->event) + ACCEPT_PAUSE_US, 0, on_accept_retry, l,
					 "control-listen-retry", &l->retry);
		if (r < 0)
			(void)event_io_set_enabled(l->source, true);
		return;
	}
	(void)event_timer_arm_after(l->retry, ACCEPT_PAUSE_US);
}

static void on_listen(struct event_source *s, uint32_t revents, void *userdata)
{
	struct control_listener *l = userdata;
	(void)s;
	(void)revents;

	for (;;) {
		int cfd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				log_warning_errno(errno, "cannot accept a control connection: %m; pausing for 1 s");
				pause_accepting(l);
				break;
			}
			log_warning_errno(errno, "cannot accept a control connection: %m");
			break;
		}
		struct control_peer peer;
		int r = control_peer_read(cfd, &peer);
		if (r < 0) {
			log_debug_errno(r, "control: cannot read the credentials of a peer, closing: %m");
			close(cfd);
			continue;
		}
		struct control_link *link = calloc(1, sizeof(*link));
		if (!link) {
			log_warning_errno(ENOMEM, "cannot serve a control connection: %m");
			close(cfd);
			continue;
		}
		link->event = l->event;
		link->fd = cfd;
		l->on_accept(link, &peer, l->userdata);
	}
}

/* Whether someone listens on the socket at path: 1 yes, 0 no (a stale
 * file left by a daemon that did not stop cleanly), or -errno. */
static int socket_in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	int r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa));
	int e = errno;
	close(fd);
	if (r == 0 || e == EAGAIN)
		return 1; /* EAGAIN: listening, its backlog full */
	if (e == ECONNREFUSED)
		return 0;
	return -e;
}

/* The socket's directory: made when missing, readable by all so every
 * user reaches the socket. */
static int make_parent(const char *path)
{
	_cleanup_free_ char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	const char *dir = dirname(copy);
	if (mkdir(dir, 0755) < 0)
		return errno == EEXIST ? 0 : log_error_errno(errno, "cannot create %s: %m", dir);
	/* mkdir's mode is cut by the daemon's umask (0027) */
	if (chmod(dir, 0755) < 0)
		return log_error_errno(errno, "cannot make %s readable by all: %m", dir);
	return 0;
}

static int listen_at(struct control_listener *l, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int r;

	if (path[0] != '/' || strlen(path) >= sizeof(sa.sun_path))
		return log_error_errno(EINVAL, "socket path %s: an absolute path of at most %zu bytes is needed", path,
				       sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((r = make_parent(path)) < 0)
		return r;

	l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0)
		return log_error_errno(errno, "cannot create the control socket: %m");
	if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EADDRINUSE)
			return log_error_errno(errno, "cannot bind the control socket %s: %m", path);
		/* never remove what is not a socket, nor a socket in use */
		if (lstat(path, &st) < 0)
			return log_error_errno(errno, "cannot bind the control socket %s: %m", path);
		if (!S_ISSOCK(st.st_mode))
			return log_error_errno(EEXIST, "%s exists and is not a socket: not replacing it", path);
		r = socket_in_use(&sa);
		if (r > 0)
			return log_error_errno(EADDRINUSE, "another process listens on %s (another ramwatchd?)", path);
		if (r < 0)
			return log_error_errno(r, "cannot tell whether %s is in use: %m", path);
		log_info("removing the stale control socket %s", path);
		if (unlink(path) < 0 && errno != ENOENT)
			return log_error_errno(errno, "cannot remove the stale socket %s: %m", path);
		if (bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return log_error_errno(errno, "cannot bind the control socket %s: %m", path);
	}
	l->path = strdup(path);
	if (!l->path)
		return log_error_errno(ENOMEM, "out of memory");
	if (lstat(path, &st) < 0)
		return log_error_errno(errno, "cannot stat %s: %m", path);
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	/* every user may ask (about their own processes): the daemon decides
	 * per request.  Until this chmod the umask keeps others out. */
	if (chmod(path, 0666) < 0)
		return log_error_errno(errno, "cannot open %s to all users: %m", path);
	if (listen(l->fd, SOMAXCONN) < 0)
		return log_error_errno(errno, "cannot listen on %s: %m", path);
	log_info("control socket %s", path);
	return 0;
}

/* The socket systemd passed (socket activation): the first one, which
 * must be a listening Unix stream socket. */
static int listen_passed(struct control_listener *l, int n)
{
	int fd = SD_LISTEN_FDS_START;

	if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0)
		return log_error_errno(EBADF, "the socket systemd passed (fd %d) is not a listening Unix stream socket",
				       fd);
	for (int i = 1; i < n; i++) {
		log_warning("systemd passed %d sockets: using the first, closing fd %d", n, fd + i);
		close(fd + i);
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return log_error_errno(errno, "cannot set up the socket systemd passed: %m");
	l->fd = fd;
	log_info("control socket passed by systemd (fd %d)", fd);
	return 0;
}

int control_listener_new(struct event_loop *e, const char *address, control_accept_handler_t on_accept,
			 void *userdata, struct control_listener **ret, bool *ret_optional)
{
	struct control_listener *l = calloc(1, sizeof(*l));
	int r;

	*ret_optional = false;
	if (!l)
		return log_error_errno(ENOMEM, "out of memory");
	l->fd = -1;
	l->event = e;
	l->on_accept = on_accept;
	l->userdata = userdata;

	int n = sd_listen_fds(true);
	if (n < 0) {
		control_listener_free(l);
		return log_error_errno(n, "cannot read the sockets systemd passed: %m");
	}
	r = n > 0 ? listen_passed(l, n) : listen_at(l, address ? address : RW_SOCKET_DEFAULT);
	if (r < 0) {
		control_listener_free(l);
		*ret_optional = n == 0 && !address;
		return r;
	}
	r = event_loop_add_io(e, l->fd, EVENT_IN, on_listen, l, "control-listen", &l->source);
	if (r < 0) {
		control_listener_free(l);
		return log_error_errno(r, "cannot watch the control socket: %m");
	}
	*ret = l;
	return 0;
}

struct control_listener *control_listener_free(struct control_listener *l)
{
	struct stat st;

	if (!l)
		return NULL;
	event_source_free(l->source);
	event_source_free(l->retry);
	if (l->fd >= 0)
		close(l->fd);
	/* the file is removed only if it is still ours: a daemon started
	 * after this one may have replaced it */
	if (l->path && lstat(l->path, &st) == 0 && st.st_dev == l->dev && st.st_ino == l->ino)
		(void)unlink(l->path);
	free(l->path);
	free(l);
	return NULL;
}
