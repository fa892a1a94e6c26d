/* The client's channel on Linux (control-channel.h): ramwatchd's Unix
 * socket.  The socket is non-blocking and every wait is a poll() against
 * the request's deadline. */
#include "control-channel.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

struct control_channel {
	int fd;
};

const char *control_client_socket_path(const char *option)
{
	const char *env = getenv(CONTROL_SOCKET_ENV);
	if (option)
		return option;
	return env && env[0] ? env : RW_SOCKET_DEFAULT;
}

static int connect_error(const char *path, int e, struct control_error *err)
{
	switch (e) {
	case ENOENT:
	case ECONNREFUSED:
		/* no socket file, or one nobody listens on any more */
		return control_client_set_error(
			err, -e, "", "cannot connect to ramwatchd at %s: %s — is ramwatchd running? (systemctl status ramwatchd)",
			path, strerror(e));
	case EACCES:
	case EPERM:
		return control_client_set_error(err, -e, "",
						"cannot connect to ramwatchd at %s: %s — connecting needs write permission on the socket "
						"and search permission on the directories above it",
						path, strerror(e));
	case EAGAIN:
		/* a Unix socket whose listen queue is full (unix(7)) */
		return control_client_set_error(
			err, -e, "", "ramwatchd at %s accepts no more connections now (its queue is full); try again", path);
	default: return control_client_set_error(err, -e, "", "cannot connect to ramwatchd at %s: %s", path, strerror(e));
	}
}

int control_channel_open(const char *path, struct control_channel **ret, struct control_error *err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(sa.sun_path))
		return control_client_set_error(err, -ENAMETOOLONG, "",
						"the socket path %s%s%s does not fit a Unix socket address (1 to %zu bytes)",
						n ? "'" : "", path, n ? "'" : "(empty)", sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, n + 1);
	struct control_channel *ch = calloc(1, sizeof(*ch));
	if (!ch)
		return control_client_set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	ch->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ch->fd < 0) {
		int e = errno;
		free(ch);
		return control_client_set_error(err, -e, "", "cannot make a socket: %s", strerror(e));
	}
	if (connect(ch->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;
		control_channel_close(ch);
		return connect_error(path, e, err);
	}
	*ret = ch;
	return 0;
}

void control_channel_close(struct control_channel *ch)
{
	if (!ch)
		return;
	if (ch->fd >= 0)
		close(ch->fd);
	free(ch);
}

/* Milliseconds left until deadline_us for poll(), at least 0. */
static int remaining_ms(uint64_t deadline_us)
{
	uint64_t now = now_monotonic_us();
	if (now >= deadline_us)
		return 0;
	uint64_t ms = (deadline_us - now + 999) / 1000;
	return ms > 60u * 60u * 1000u ? 60 * 60 * 1000 : (int)ms;
}

/* Waits until fd is ready for events; -ETIMEDOUT at the deadline. */
static int wait_fd(int fd, short events, uint64_t deadline_us)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int ms = remaining_ms(deadline_us);
		if (ms == 0)
			return -ETIMEDOUT;
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r > 0)
			return 0;
	}
}

int control_channel_send(struct control_channel *ch, const char *data, size_t len, uint64_t deadline_us)
{
	while (len > 0) {
		ssize_t k = send(ch->fd, data, len, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int r = wait_fd(ch->fd, POLLOUT, deadline_us);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		data += k;
		len -= (size_t)k;
	}
	return 0;
}

int control_channel_recv(struct control_channel *ch, char *buf, size_t size, uint64_t deadline_us, size_t *ret_n)
{
	for (;;) {
		ssize_t k = recv(ch->fd, buf, size, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			int r = wait_fd(ch->fd, POLLIN, deadline_us);
			if (r < 0)
				return r;
			continue;
		}
		if (k < 0)
			return -errno;
		*ret_n = (size_t)k;
		return 0;
	}
}
