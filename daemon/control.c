/* The control socket's server: the listening socket (made here, or passed
 * by systemd), accepting connections within RW_CLIENTS_MAX, and the
 * server's lifetime. */
#include "control.h"

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

#include "control-internal.h"
#include "limits.h"
#include "log.h"
#include "util.h"

/* After accept fails for lack of file descriptors or memory, listening
 * pauses this long (else the level-triggered source would spin). */
#define ACCEPT_PAUSE_US (1000u * 1000u)

static void on_accept(struct event_source *s, uint32_t revents, void *userdata);

/* The one line a connection past RW_CLIENTS_MAX gets. */
static void refuse_busy(int fd)
{
	char busy[160];
	int n = snprintf(busy, sizeof(busy),
			 "{\"ok\":false,\"error\":\"too many connections at once (at most %u): try again shortly\","
			 "\"code\":\"busy\"}\n",
			 RW_CLIENTS_MAX);
	/* best effort: a new socket has room for a line; a client that is
	 * gone or full does not get it */
	if (n > 0 && (size_t)n < sizeof(busy))
		(void)!send(fd, busy, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

static void on_accept_retry(struct event_source *s, void *userdata)
{
	struct control *c = userdata;
	(void)s;
	(void)event_io_set_enabled(c->listen_source, true);
}

/* accept failed for want of a resource: stop listening for a moment */
static void pause_accepting(struct control *c)
{
	int r;

	(void)event_io_set_enabled(c->listen_source, false);
	if (!c->listen_retry) {
		r = event_loop_add_timer(c->event, event_loop_now(c->event) + ACCEPT_PAUSE_US, 0, on_accept_retry, c,
					 "control-listen-retry", &c->listen_retry);
		if (r < 0)
			(void)event_io_set_enabled(c->listen_source, true);
		return;
	}
	(void)event_timer_arm_after(c->listen_retry, ACCEPT_PAUSE_US);
}

static void on_accept(struct event_source *s, uint32_t revents, void *userdata)
{
	struct control *c = userdata;
	(void)s;
	(void)revents;

	for (;;) {
		int cfd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				log_warning_errno(errno, "cannot accept a control connection: %m; pausing for 1 s");
				pause_accepting(c);
				break;
			}
			log_warning_errno(errno, "cannot accept a control connection: %m");
			break;
		}
		if (c->n_conns >= RW_CLIENTS_MAX) {
			log_debug("control: %u connections already, refusing one", c->n_conns);
			refuse_busy(cfd);
			continue;
		}
		struct control_peer peer;
		int r = control_peer_read(cfd, &peer);
		if (r < 0) {
			log_debug_errno(r, "control: cannot read the credentials of a peer, closing: %m");
			close(cfd);
			continue;
		}
		r = control_conn_new(c, cfd, &peer);
		if (r < 0)
			log_warning_errno(r, "cannot serve a control connection: %m");
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

static int listen_at(struct control *c, const char *path)
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

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return log_error_errno(errno, "cannot create the control socket: %m");
	if (bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
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
		if (bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return log_error_errno(errno, "cannot bind the control socket %s: %m", path);
	}
	c->path = strdup(path);
	if (!c->path)
		return log_error_errno(ENOMEM, "out of memory");
	if (lstat(path, &st) < 0)
		return log_error_errno(errno, "cannot stat %s: %m", path);
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	/* every user may ask (about their own processes): the daemon decides
	 * per request.  Until this chmod the umask keeps others out. */
	if (chmod(path, 0666) < 0)
		return log_error_errno(errno, "cannot open %s to all users: %m", path);
	if (listen(c->fd, SOMAXCONN) < 0)
		return log_error_errno(errno, "cannot listen on %s: %m", path);
	log_info("control socket %s", path);
	return 0;
}

/* The socket systemd passed (socket activation): the first one, which
 * must be a listening Unix stream socket. */
static int listen_passed(struct control *c, int n)
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
	c->fd = fd;
	log_info("control socket passed by systemd (fd %d)", fd);
	return 0;
}

int control_new(struct event_loop *event, const struct core_interface *core, const struct control_options *o,
		struct control **ret)
{
	struct control *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return log_error_errno(ENOMEM, "out of memory");
	c->fd = -1;
	c->core = *core;
	c->event = event;
	c->root_fd = o->root_fd;
	if (o->proc_root && !(c->proc_root = strdup(o->proc_root))) {
		control_free(c);
		return log_error_errno(ENOMEM, "out of memory");
	}

	int n = sd_listen_fds(true);
	if (n < 0) {
		control_free(c);
		return log_error_errno(n, "cannot read the sockets systemd passed: %m");
	}
	r = n > 0 ? listen_passed(c, n) : listen_at(c, o->socket_path ? o->socket_path : RW_SOCKET_DEFAULT);
	if (r < 0) {
		control_free(c);
		if (n > 0 || o->socket_path)
			return r;
		log_warning("running without a control socket: ramwatch status, history, report, scan and mark "
			    "cannot reach this daemon (give one with --socket)");
		*ret = NULL;
		return 0;
	}

	/* jansson seeds its hash function at the first object: here, on this
	 * thread, before the worker makes any */
	json_decref(json_object());
	r = control_worker_new(event, o->db_path, control_ops_job_done, c, &c->worker);
	if (r < 0) {
		control_free(c);
		return log_error_errno(r, "cannot start the control socket's worker thread: %m");
	}
	r = event_loop_add_io(event, c->fd, EVENT_IN, on_accept, c, "control-listen", &c->listen_source);
	if (r < 0) {
		control_free(c);
		return log_error_errno(r, "cannot watch the control socket: %m");
	}
	*ret = c;
	return 0;
}

struct control *control_free(struct control *c)
{
	struct stat st;

	if (!c)
		return NULL;
	/* connections first: their jobs are cancelled through the worker */
	while (c->conns)
		control_conn_free(c->conns);
	c->worker = control_worker_free(c->worker);
	event_source_free(c->listen_source);
	event_source_free(c->listen_retry);
	if (c->fd >= 0)
		close(c->fd);
	/* the file is removed only if it is still ours: a daemon started
	 * after this one may have replaced it */
	if (c->path && lstat(c->path, &st) == 0 && st.st_dev == c->dev && st.st_ino == c->ino)
		(void)unlink(c->path);
	free(c->path);
	free(c->proc_root);
	free(c);
	return NULL;
}

void control_store_replaced(struct control *c)
{
	if (c && c->worker)
		control_worker_reopen(c->worker);
}
