/* The client's channel on Windows (control-channel.h): ramwatchd's named
 * pipe, \\.\pipe\ramwatch unless --pipe or $RAMWATCH_PIPE names another.
 *
 * The pipe is opened for overlapped I/O, so that every read and write
 * waits at most until the request's deadline and is cancelled then (a
 * synchronous pipe read cannot be given a time limit).  All the pipe's
 * instances being busy (ERROR_PIPE_BUSY: the daemon is between two
 * clients) is waited out with WaitNamedPipe, within the deadline of the
 * first request.  Access asks for reading and writing data only: the
 * pipe's security descriptor gives users no more (writing its
 * attributes aside), and GENERIC_WRITE would ask for the right to make
 * instances of the pipe, which is refused. */
#include "control-channel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "util.h"

/* how long connecting waits for an instance when all are busy */
#define BUSY_WAIT_MS 5000u

struct control_channel {
	HANDLE pipe;
	HANDLE event; /* the overlapped operations' */
};

const char *control_client_socket_path(const char *option)
{
	const char *env = getenv(CONTROL_PIPE_ENV);
	if (option)
		return option;
	return env && env[0] ? env : RW_PIPE_DEFAULT;
}

static wchar_t *wide(const char *text)
{
	int n = MultiByteToWideChar(CP_UTF8, 0, text, -1, NULL, 0);
	if (n <= 0)
		return NULL;
	wchar_t *w = calloc((size_t)n, sizeof(wchar_t));
	if (w && MultiByteToWideChar(CP_UTF8, 0, text, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

static int open_error(const char *name, DWORD e, struct control_error *err)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
		return control_client_set_error(err, -ENOENT, "",
						"cannot connect to ramwatchd at %s: no such pipe — is ramwatchd running? "
						"(sc query ramwatchd)",
						name);
	case ERROR_ACCESS_DENIED:
		return control_client_set_error(err, -EACCES, "",
						"cannot connect to ramwatchd at %s: access denied — the pipe lets "
						"authenticated users connect",
						name);
	case ERROR_PIPE_BUSY:
		return control_client_set_error(err, -EAGAIN, "",
						"ramwatchd at %s accepts no more connections now (every instance of its "
						"pipe is busy); try again",
						name);
	default:
		return control_client_set_error(err, -posix_errno_of(e), "", "cannot connect to ramwatchd at %s: %s",
						name, strerror(posix_errno_of(e)));
	}
}

int control_channel_open(const char *name, struct control_channel **ret, struct control_error *err)
{
	wchar_t *w = wide(name);
	HANDLE h = INVALID_HANDLE_VALUE;
	DWORD e = 0;

	if (!w)
		return control_client_set_error(err, -EINVAL, "", "the pipe name %s is not UTF-8", name);
	for (int tries = 0; tries < 2; tries++) {
		h = CreateFileW(w, GENERIC_READ | FILE_WRITE_DATA, 0, NULL, OPEN_EXISTING, FILE_FLAG_OVERLAPPED, NULL);
		if (h != INVALID_HANDLE_VALUE)
			break;
		e = GetLastError();
		if (e != ERROR_PIPE_BUSY || !WaitNamedPipeW(w, BUSY_WAIT_MS))
			break;
	}
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return open_error(name, e, err);
	struct control_channel *ch = calloc(1, sizeof(*ch));
	if (!ch || !(ch->event = CreateEventW(NULL, TRUE, FALSE, NULL))) {
		free(ch);
		CloseHandle(h);
		return control_client_set_error(err, -ENOMEM, "", "%s", strerror(ENOMEM));
	}
	ch->pipe = h;
	*ret = ch;
	return 0;
}

void control_channel_close(struct control_channel *ch)
{
	if (!ch)
		return;
	CloseHandle(ch->pipe);
	CloseHandle(ch->event);
	free(ch);
}

/* Waits for the operation started on ov until the deadline, cancelling it
 * then.  Returns 0 with *ret_n, -ETIMEDOUT, or -errno (-EPIPE when the
 * daemon closed its end). */
static int finish(struct control_channel *ch, OVERLAPPED *ov, BOOL started, uint64_t deadline_us, DWORD *ret_n)
{
	DWORD e = started ? 0 : GetLastError();

	if (!started && e != ERROR_IO_PENDING)
		goto failed;
	uint64_t now = now_monotonic_us();
	DWORD ms = now >= deadline_us ? 0 : (DWORD)((deadline_us - now + 999) / 1000);
	if (WaitForSingleObject(ch->event, ms) == WAIT_TIMEOUT) {
		CancelIoEx(ch->pipe, ov);
		/* the cancellation completes the operation: wait for it */
		if (GetOverlappedResult(ch->pipe, ov, ret_n, TRUE))
			return 0; /* it completed just before */
		return -ETIMEDOUT;
	}
	if (GetOverlappedResult(ch->pipe, ov, ret_n, FALSE))
		return 0;
	e = GetLastError();
failed:
	if (e == ERROR_BROKEN_PIPE || e == ERROR_PIPE_NOT_CONNECTED || e == ERROR_NO_DATA)
		return -EPIPE;
	return -posix_errno_of(e);
}

int control_channel_send(struct control_channel *ch, const char *data, size_t len, uint64_t deadline_us)
{
	while (len > 0) {
		OVERLAPPED ov = { .hEvent = ch->event };
		DWORD n = 0, chunk = len > 65536 ? 65536 : (DWORD)len;
		ResetEvent(ch->event);
		int r = finish(ch, &ov, WriteFile(ch->pipe, data, chunk, NULL, &ov), deadline_us, &n);
		if (r < 0)
			return r;
		data += n;
		len -= n;
	}
	return 0;
}

int control_channel_recv(struct control_channel *ch, char *buf, size_t size, uint64_t deadline_us, size_t *ret_n)
{
	OVERLAPPED ov = { .hEvent = ch->event };
	DWORD n = 0, want = size > 65536 ? 65536 : (DWORD)size;

	ResetEvent(ch->event);
	int r = finish(ch, &ov, ReadFile(ch->pipe, buf, want, NULL, &ov), deadline_us, &n);
	if (r == -EPIPE) {
		/* the daemon closed its end: as a socket's end of file */
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	*ret_n = n;
	return 0;
}
