/* A control connection's input and output buffers.
 *
 * Requests are small (a few hundred bytes) and come one at a time, so the
 * input buffer starts small and grows only for a long line; a consumed
 * line is moved out with memmove, which costs at most the bytes of the
 * lines a client pipelined behind it. */
#include "control-buffer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INBUF_FIRST 4096u

void control_inbuf_init(struct control_inbuf *b, size_t max)
{
	*b = (struct control_inbuf){ .max = max };
}

void control_inbuf_done(struct control_inbuf *b)
{
	free(b->data);
	*b = (struct control_inbuf){ .max = b->max };
}

int control_inbuf_space(struct control_inbuf *b, char **ret, size_t *ret_n)
{
	if (b->len >= b->max) {
		*ret = b->data + b->len;
		*ret_n = 0;
		return 0;
	}
	if (b->len == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : INBUF_FIRST;
		if (cap > b->max)
			cap = b->max;
		char *p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	*ret = b->data + b->len;
	*ret_n = b->cap - b->len;
	return 0;
}

void control_inbuf_filled(struct control_inbuf *b, size_t n)
{
	b->len += n;
}

int control_inbuf_line(struct control_inbuf *b, const char **ret_line, size_t *ret_len)
{
	control_inbuf_consume(b);
	char *nl = b->len > b->scanned ? memchr(b->data + b->scanned, '\n', b->len - b->scanned) : NULL;
	if (!nl) {
		b->scanned = b->len;
		return b->len >= b->max ? -E2BIG : 0;
	}
	size_t n = (size_t)(nl - b->data);
	b->taken = n + 1;
	/* a client typing into a terminal tool may send "\r\n" */
	if (n > 0 && b->data[n - 1] == '\r')
		n--;
	*ret_line = b->data;
	*ret_len = n;
	return 1;
}

void control_inbuf_consume(struct control_inbuf *b)
{
	if (b->taken == 0)
		return;
	memmove(b->data, b->data + b->taken, b->len - b->taken);
	b->len -= b->taken;
	b->taken = 0;
	b->scanned = 0;
}

void control_outbuf_init(struct control_outbuf *b, size_t max)
{
	*b = (struct control_outbuf){ .max = max };
}

void control_outbuf_done(struct control_outbuf *b)
{
	free(b->data);
	*b = (struct control_outbuf){ .max = b->max };
}

int control_outbuf_put(struct control_outbuf *b, char *text, size_t n)
{
	if (n > b->max || b->len > b->max - n) {
		free(text);
		return -ENOBUFS;
	}
	if (b->len == 0) {
		/* the usual case, one answer at a time: no copy */
		free(b->data);
		b->data = text;
		b->start = 0;
		b->len = n;
		return 0;
	}
	char *p = malloc(b->len + n);
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	memcpy(p, b->data + b->start, b->len);
	memcpy(p + b->len, text, n);
	free(text);
	free(b->data);
	b->data = p;
	b->start = 0;
	b->len += n;
	return 0;
}

int control_outbuf_write(struct control_outbuf *b, control_outbuf_writer_t write, void *ctx, size_t *ret_written)
{
	size_t written = 0;
	int r = 0;

	while (b->len > 0) {
		size_t k = 0;
		r = write(ctx, b->data + b->start, b->len, &k);
		if (r < 0)
			break;
		b->start += k;
		b->len -= k;
		written += k;
	}
	if (b->len == 0) {
		free(b->data);
		b->data = NULL;
		b->start = 0;
	}
	if (ret_written)
		*ret_written = written;
	return r;
}
