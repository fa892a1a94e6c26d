/* A control connection's buffers: the requests read so far, cut into
 * lines, and the answer not yet taken by the socket.
 *
 * Both are bounded: a client holds at most one request line (RW_REQUEST_MAX
 * bytes, newline included) and one answer of the daemon's memory, whatever
 * it sends and however slowly it reads.  The input side is pure (it never
 * reads a socket itself) so the framing is tested by feeding it pieces. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct control_inbuf {
	char *data;
	size_t len;     /* bytes held */
	size_t cap;     /* allocated; grows up to max */
	size_t max;     /* the longest line, newline included */
	size_t scanned; /* bytes already searched for a newline */
	size_t taken;   /* the line handed out, newline included: dropped by consume */
};

void control_inbuf_init(struct control_inbuf *b, size_t max);
void control_inbuf_done(struct control_inbuf *b);

/* Room for the next read: *ret points at it and *ret_n says how much
 * (0 when the buffer holds max bytes).  Returns 0 or -ENOMEM. */
int control_inbuf_space(struct control_inbuf *b, char **ret, size_t *ret_n);
/* n bytes were read into the room that control_inbuf_space gave. */
void control_inbuf_filled(struct control_inbuf *b, size_t n);

/* The first complete line: returns 1 with *ret_line (without its newline
 * and a "\r" before it; not NUL-terminated, valid until the next call on
 * b) and its length; 0 when no line is complete yet; -E2BIG when the
 * buffer is full without a newline (the line is longer than max).  The
 * line stays until control_inbuf_consume. */
int control_inbuf_line(struct control_inbuf *b, const char **ret_line, size_t *ret_len);
/* Drops the line control_inbuf_line handed out. */
void control_inbuf_consume(struct control_inbuf *b);

static inline bool control_inbuf_full(const struct control_inbuf *b)
{
	return b->len >= b->max;
}

static inline size_t control_inbuf_pending(const struct control_inbuf *b)
{
	return b->len;
}

struct control_outbuf {
	char *data;
	size_t start, len; /* data[start, start + len) is still to be written */
	size_t max;        /* bytes held at most */
};

void control_outbuf_init(struct control_outbuf *b, size_t max);
void control_outbuf_done(struct control_outbuf *b);

/* Queues n bytes of text (a malloc()ed buffer).  The buffer is taken over
 * (freed by b) whatever the result.  Returns 0, or -ENOBUFS when what is
 * queued would pass max (the client does not read: the caller closes),
 * -ENOMEM. */
int control_outbuf_put(struct control_outbuf *b, char *text, size_t n);

/* Writes some of data[0, n): 0 with *ret_n (> 0) bytes taken, -EAGAIN
 * when none is taken now, or -errno. */
typedef int (*control_outbuf_writer_t)(void *ctx, const void *data, size_t n, size_t *ret_n);

/* Writes what is queued through write until it is all written or write
 * takes no more; *ret_written (may be NULL) says how many bytes went.
 * Returns 0 when everything went, -EAGAIN when some is left (wait until
 * more is taken), or write's -errno (-EPIPE, -ECONNRESET: the client is
 * gone). */
int control_outbuf_write(struct control_outbuf *b, control_outbuf_writer_t write, void *ctx, size_t *ret_written);

/* The same to fd, a non-blocking socket (linux/control-transport.c):
 * -EAGAIN means wait for EPOLLOUT. */
int control_outbuf_flush(struct control_outbuf *b, int fd, size_t *ret_written);

static inline size_t control_outbuf_pending(const struct control_outbuf *b)
{
	return b->len;
}
