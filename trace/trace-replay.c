/* Line splitting and the replay loop. */
#include "trace-replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limits.h"
#include "macro.h"

/* Bytes per read(): large reads keep the system-call cost per event
 * negligible; more gains nothing measurable. */
#define READ_SIZE (256 * 1024u)

/* Events parsed but not yet replayed.  The lines of one block are parsed
 * a few events ahead of the replay, and each parsed event starts loading
 * its allocation's slot: with a live set larger than the caches those
 * loads then overlap with parsing (on the benchmark's trace, 50 000 live
 * allocations, this replays about a tenth faster than one event at a
 * time).  The events still go to the analyzer one by one, in order; their
 * scopes point into the block, which stays put until the batch is
 * drained. */
#define BATCH 16

struct batch {
	struct trace_event e[BATCH];
	uint64_t number[BATCH];
	size_t n;
};

static int drain(struct trace_analyzer *a, struct batch *b, struct trace_replay_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		int r = trace_analyzer_ingest(a, &b->e[i], &err->error);
		if (r < 0) {
			err->line = b->number[i];
			if (r == -ENOMEM)
				error_set(&err->error, r, "%s", strerror(ENOMEM));
			b->n = 0;
			return r;
		}
	}
	b->n = 0;
	return 0;
}

/* A line counts with its newline: the reference reads through a buffer of
 * RW_TRACE_LINE_MAX bytes and refuses a line whose newline does not fit in
 * it, while a last line without one may fill it.  len excludes the
 * newline; terminated says whether there was one. */
static bool too_long(size_t len, bool terminated)
{
	return len + terminated > RW_TRACE_LINE_MAX;
}

static int one_line(struct trace_analyzer *a, struct trace_parser *p, struct batch *b, const char *line,
		    size_t len, bool terminated, uint64_t number, struct trace_replay_error *err)
{
	struct trace_event *e = &b->e[b->n];
	uint64_t general = p->general_lines;
	int r;

	/* the reason goes straight to err: a struct copy per line would cost */
	if (too_long(len, terminated))
		r = error_set(&err->error, -EINVAL, "line is longer than %u bytes", RW_TRACE_LINE_MAX);
	else
		r = trace_parser_line(p, line, len, e, &err->error);
	if (r < 0) {
		/* the events before it come first: one of them may be wrong, and
		 * its reason then replaces this line's */
		int k = drain(a, b, err);
		if (k < 0)
			return k;
		err->line = number;
		err->error.code = r;
		return r;
	}
	if (r == 0)
		return 0;
	b->number[b->n++] = number;
	/* the general parser's events point into its own buffer, which its
	 * next line reuses: those are replayed at once */
	if (p->general_lines != general || b->n == BATCH)
		return drain(a, b, err);
	trace_analyzer_prefetch(a, e);
	return 0;
}

/* Replays the complete lines in buf[*start, end); leaves *start at the
 * first byte of an unfinished line. */
static int lines(struct trace_analyzer *a, struct trace_parser *p, const char *buf, size_t *start, size_t end,
		 uint64_t *number, struct trace_replay_error *err)
{
	struct batch b;
	const char *nl;
	int r;

	b.n = 0;
	while ((nl = memchr(buf + *start, '\n', end - *start))) {
		size_t len = (size_t)(nl - (buf + *start));
		if ((r = one_line(a, p, &b, buf + *start, len, true, ++*number, err)) < 0)
			return r;
		*start += len + 1;
	}
	return drain(a, &b, err);
}

/* The last line, without a newline. */
static int last_line(struct trace_analyzer *a, struct trace_parser *p, const char *line, size_t len,
		     uint64_t number, struct trace_replay_error *err)
{
	struct batch b;
	int r;

	b.n = 0;
	if ((r = one_line(a, p, &b, line, len, false, number, err)) < 0)
		return r;
	return drain(a, &b, err);
}

int trace_replay_buffer(struct trace_analyzer *a, struct trace_parser *p, const char *buf, size_t len,
			struct trace_replay_error *err)
{
	size_t start = 0;
	uint64_t number = 0;
	int r;

	err->line = 0;
	error_clear(&err->error);
	if ((r = lines(a, p, buf, &start, len, &number, err)) < 0)
		return r;
	if (start < len)
		return last_line(a, p, buf + start, len - start, number + 1, err);
	return 0;
}

int trace_replay_fd(struct trace_analyzer *a, struct trace_parser *p, int fd, struct trace_replay_error *err)
{
	/* room for a whole read after the longest unfinished line */
	const size_t cap = READ_SIZE + RW_TRACE_LINE_MAX + 1;
	_cleanup_free_ char *buf = malloc(cap);
	size_t start = 0, end = 0;
	uint64_t number = 0;
	int r;

	err->line = 0;
	error_clear(&err->error);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if ((r = lines(a, p, buf, &start, end, &number, err)) < 0)
			return r;
		/* an unfinished line past the room is too long, newline or not */
		if (end - start > RW_TRACE_LINE_MAX) {
			err->line = number + 1;
			return error_set(&err->error, -EINVAL, "line is longer than %u bytes", RW_TRACE_LINE_MAX);
		}
		memmove(buf, buf + start, end - start);
		end -= start;
		start = 0;
		ssize_t k = read(fd, buf + end, cap - end);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			err->line = 0;
			return err->error.code = negative_errno();
		}
		if (k == 0)
			break;
		end += (size_t)k;
	}
	if (end > 0)
		return last_line(a, p, buf, end, number + 1, err);
	return 0;
}
