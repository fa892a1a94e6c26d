/* Line splitting, the binary format's frames and the replay loop.
 *
 * A file that starts with TRACE_BIN_MAGIC is the binary format
 * (trace-binary.h): its JSON lines go to the same parser as a JSON Lines
 * file's, its records become events here; err->line then counts frames,
 * records and lines both. */
#include "trace-replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "limits.h"
#include "populate.h"
#include "trace-binary.h"
#include "trace-run.h"
#include "macro.h"

/* Bytes per read(): large reads keep the system-call cost per event
 * negligible; more gains nothing measurable. */
#define READ_SIZE (256 * 1024u)

/* Events parsed but not yet replayed.  The lines (or records) of one
 * block are parsed a few events ahead of the replay, and each parsed event
 * starts loading its allocation's slot: with a live set larger than the
 * caches those loads then overlap with parsing (on the benchmark's trace,
 * 50 000 live allocations, the binary replay takes a quarter less CPU time
 * and the JSON Lines one an eighth less than without the prefetch; 32 or
 * 64 events ahead gain nothing more).  The events still go to the analyzer
 * one by one, in order; their scopes point into the block, which stays put
 * until the batch is drained. */
#define BATCH 16

struct batch {
	struct trace_event e[BATCH];
	/* a binary record of the logical kinds goes to the analyzer as it is
	 * (trace_analyzer_ingest_records), in f[i].record, without an event */
	struct trace_bin_frame f[BATCH];
	bool is_record[BATCH];
	uint64_t number[BATCH];
	size_t n;
};

static int drain(struct trace_analyzer *a, struct batch *b, struct trace_replay_error *err)
{
	for (size_t i = 0; i < b->n; i++) {
		int r;
		if (b->is_record[i]) {
			/* the records up to the next event, in one call */
			size_t j = i + 1, done;
			while (j < b->n && b->is_record[j])
				j++;
			r = trace_analyzer_ingest_records(a, &b->f[i], j - i, &done, &err->error);
			i += done - (r == 0);
		} else {
			r = trace_analyzer_ingest(a, &b->e[i], &err->error);
		}
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
	b->is_record[b->n] = false;
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

/* The event of a binary record of the backing kinds (map, unmap, remap;
 * the logical ones go to the analyzer as records), written directly:
 * every value a record can carry is one the setters accept (the decoder
 * refuses other kinds and ids above 2^32), so the event is the one the
 * record's JSON line parses into, without a setter's checks for each
 * field of every record. */
static void record_event(const struct trace_bin_record *rec, struct trace_event *e)
{
	static const enum trace_kind kinds[] = {
		[TRACE_BIN_ALLOC] = TRACE_KIND_ALLOC, [TRACE_BIN_FREE] = TRACE_KIND_FREE,
		[TRACE_BIN_RESIZE] = TRACE_KIND_RESIZE, [TRACE_BIN_MOVE] = TRACE_KIND_REMAP,
		[TRACE_BIN_MAP] = TRACE_KIND_MAP,     [TRACE_BIN_UNMAP] = TRACE_KIND_UNMAP,
		[TRACE_BIN_REMAP] = TRACE_KIND_REMAP,
	};
	bool logical = rec->kind <= TRACE_BIN_MOVE;
	uint32_t seen = 1u << TRACE_FIELD_SEQ | 1u << TRACE_FIELD_KIND | 1u << TRACE_FIELD_LAYER |
			1u << TRACE_FIELD_ALLOCATOR_ID | 1u << TRACE_FIELD_ADDRESS;

	trace_event_init(e);
	e->kind = kinds[rec->kind];
	e->layer = logical ? TRACE_LAYER_LOGICAL : TRACE_LAYER_BACKING;
	e->has_seq = true;
	e->seq = rec->seq;
	e->allocator_id = logical ? TRACE_BIN_LOGICAL_ALLOCATOR : TRACE_BIN_BACKING_ALLOCATOR;
	e->address = rec->address;
	if (rec->kind == TRACE_BIN_MOVE || rec->kind == TRACE_BIN_REMAP) {
		e->old_address = rec->old_address;
		seen |= 1u << TRACE_FIELD_OLD_ADDRESS;
	}
	if (rec->old_len) {
		e->old_len = rec->old_len;
		seen |= 1u << TRACE_FIELD_OLD_LEN;
	}
	if (rec->kind != TRACE_BIN_FREE) {
		e->len = rec->len;
		seen |= 1u << TRACE_FIELD_LEN;
	}
	if (rec->return_address) {
		e->return_address = rec->return_address;
		seen |= 1u << TRACE_FIELD_RETURN_ADDRESS;
	}
	if (rec->scope_id) {
		e->scope_id = rec->scope_id;
		seen |= 1u << TRACE_FIELD_SCOPE_ID;
	}
	if (rec->stack_id) {
		e->stack_id = rec->stack_id;
		seen |= 1u << TRACE_FIELD_STACK_ID;
	}
	if (rec->failed) {
		e->succeeded = false;
		seen |= 1u << TRACE_FIELD_SUCCEEDED;
	}
	e->seen = seen;
}

/* Where a binary file is: its deltas' base, and the file offset of the
 * buffer's first byte, for messages. */
struct frames_state {
	struct trace_bin_state bin;
	uint64_t offset;
	bool format1; /* the magic of the earlier format */
};

/* A file of the earlier binary format is named, not misread. */
static int refuse_format1(const struct frames_state *fs, struct trace_replay_error *err)
{
	if (!fs->format1)
		return 0;
	err->line = 0;
	return error_set(&err->error, -EINVAL,
			 "a binary trace of format 1 (rwtrace1), which this version does not read: record it again");
}

/* Replays the whole frames of a binary file in buf[*start, end); leaves
 * *start at the first byte of an unfinished one. */
static int frames(struct trace_analyzer *a, struct trace_parser *p, struct frames_state *fs, const char *buf,
		  size_t *start, size_t end, uint64_t *number, struct trace_replay_error *err)
{
	struct batch b;
	const char *why;
	bool run = trace_run_usable(a);
	int r;

	b.n = 0;
	if ((r = refuse_format1(fs, err)) < 0)
		return r;
	while (*start < end) {
		if (run && end - *start >= TRACE_RUN_LOOKAHEAD) {
			/* the events before the run come first */
			size_t used;
			uint64_t done;
			if ((r = drain(a, &b, err)) < 0)
				return r;
			r = trace_run_records(a, &fs->bin, buf + *start, end - *start, &used, &done);
			*start += used;
			if (r < 0) {
				err->line = *number + done + 1;
				return error_set(&err->error, r, "%s", strerror(-r));
			}
			*number += done;
			if (*start >= end)
				break;
		}
		/* decoded in place: the frame is the batch's next entry */
		struct trace_bin_frame *f = &b.f[b.n];
		int k = trace_bin_next(&fs->bin, buf + *start, end - *start, f, &why);
		if (k == 0)
			break;
		if (k < 0) {
			if ((r = drain(a, &b, err)) < 0)
				return r;
			err->line = ++*number;
			return error_set(&err->error, -EINVAL, "%s, at byte %" PRIu64 " of the binary trace", why,
					 fs->offset + *start);
		}
		*start += (size_t)k;
		if (f->line) {
			if ((r = one_line(a, p, &b, f->line, f->line_len, true, ++*number, err)) < 0)
				return r;
			continue;
		}
		if (f->record.kind <= TRACE_BIN_MOVE) {
			trace_analyzer_prefetch_record(a, &f->record);
			b.is_record[b.n] = true;
		} else {
			record_event(&f->record, &b.e[b.n]);
			trace_analyzer_prefetch(a, &b.e[b.n]);
			b.is_record[b.n] = false;
		}
		b.number[b.n++] = ++*number;
		if (b.n == BATCH && (r = drain(a, &b, err)) < 0)
			return r;
	}
	return drain(a, &b, err);
}

/* The end of a binary file: a last JSON line without its newline, or a
 * record cut short, which is refused after every whole one was replayed. */
static int last_frame(struct trace_analyzer *a, struct trace_parser *p, uint64_t offset, const char *buf,
		      size_t len, uint64_t number, struct trace_replay_error *err)
{
	if (buf[0] == '{')
		return last_line(a, p, buf, len, number, err);
	err->line = number;
	return error_set(&err->error, -EINVAL, "the binary trace ends inside a record, at byte %" PRIu64, offset);
}

int trace_replay_buffer(struct trace_analyzer *a, struct trace_parser *p, const char *buf, size_t len,
			struct trace_replay_error *err)
{
	size_t start = 0;
	uint64_t number = 0;
	int r;

	err->line = 0;
	error_clear(&err->error);
	err->binary = trace_bin_is(buf, len);
	if (err->binary) {
		struct frames_state fs = { .format1 = trace_bin_has_magic(buf, len, TRACE_BIN_MAGIC_V1) };
		start = TRACE_BIN_MAGIC_LEN;
		if ((r = frames(a, p, &fs, buf, &start, len, &number, err)) < 0)
			return r;
		if (start < len)
			return last_frame(a, p, start, buf + start, len - start, number + 1, err);
		return 0;
	}
	if ((r = lines(a, p, buf, &start, len, &number, err)) < 0)
		return r;
	if (start < len)
		return last_line(a, p, buf + start, len - start, number + 1, err);
	return 0;
}

/* A file read in large blocks: buf[start, end) not consumed yet, the
 * format known once its head was read (or the file ended shorter). */
struct reader {
	char *buf;
	size_t cap, start, end;
	bool known;
	uint64_t number;
	struct frames_state fs;
};

static void reader_detect(struct reader *rd, bool at_end, struct trace_replay_error *err)
{
	if (rd->known || (!at_end && rd->end < TRACE_BIN_MAGIC_LEN))
		return;
	rd->known = true;
	if ((err->binary = trace_bin_is(rd->buf, rd->end))) {
		rd->start = TRACE_BIN_MAGIC_LEN;
		rd->fs.format1 = trace_bin_has_magic(rd->buf, rd->end, TRACE_BIN_MAGIC_V1);
	}
}

/* Moves the unconsumed bytes to the front and reads after them.  Returns
 * 1 after a read, 0 at the end of the file, or a negative errno. */
static int reader_fill(struct reader *rd, int fd, struct trace_replay_error *err)
{
	/* an unfinished line past the room is too long, newline or not */
	if (rd->end - rd->start > RW_TRACE_LINE_MAX) {
		err->line = rd->number + 1;
		return error_set(&err->error, -EINVAL, "line is longer than %u bytes", RW_TRACE_LINE_MAX);
	}
	memmove(rd->buf, rd->buf + rd->start, rd->end - rd->start);
	rd->end -= rd->start;
	rd->fs.offset += rd->start;
	rd->start = 0;
	for (;;) {
		ssize_t k = read(fd, rd->buf + rd->end, rd->cap - rd->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			err->line = 0;
			return err->error.code = negative_errno();
		}
		rd->end += (size_t)k;
		return k > 0;
	}
}

static int reader_init(struct reader *rd, struct trace_replay_error *err)
{
	/* room for a whole read after the longest unfinished line */
	*rd = (struct reader){ .cap = READ_SIZE + RW_TRACE_LINE_MAX + 1 };
	err->line = 0;
	err->binary = false;
	error_clear(&err->error);
	rd->buf = malloc(rd->cap);
	return rd->buf ? 0 : -ENOMEM;
}

int trace_replay_fd(struct trace_analyzer *a, struct trace_parser *p, int fd, struct trace_replay_error *err)
{
	return trace_replay_follow(a, p, fd, NULL, NULL, err);
}

int trace_replay_follow(struct trace_analyzer *a, struct trace_parser *p, int fd, bool (*more)(void *data),
			void *data, struct trace_replay_error *err)
{
	struct reader rd;
	int r;

	if ((r = reader_init(&rd, err)) < 0)
		return r;
	_cleanup_free_ char *buf = rd.buf;
	/* the reads of a file fill the buffer up to its size */
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		memory_populate(buf, (uint64_t)st.st_size < rd.cap ? (size_t)st.st_size : rd.cap);
	for (bool at_end = false;;) {
		reader_detect(&rd, at_end, err);
		if (!rd.known)
			r = 0;
		else if (err->binary)
			r = frames(a, p, &rd.fs, buf, &rd.start, rd.end, &rd.number, err);
		else
			r = lines(a, p, buf, &rd.start, rd.end, &rd.number, err);
		if (r < 0 || at_end)
			break;
		if ((r = reader_fill(&rd, fd, err)) < 0)
			return r;
		at_end = r == 0;
		if (at_end && more) {
			/* the writer may still append; once it surely will not,
			 * one more read takes what it wrote since this one */
			if (!more(data))
				more = NULL;
			at_end = false;
		}
	}
	if (r < 0)
		return r;
	if (rd.start < rd.end && err->binary)
		return last_frame(a, p, rd.fs.offset + rd.start, buf + rd.start, rd.end - rd.start, rd.number + 1,
				  err);
	if (rd.start < rd.end)
		return last_line(a, p, buf + rd.start, rd.end - rd.start, rd.number + 1, err);
	return 0;
}

/* Writes the frames of buf[*start, end) as JSON lines to out. */
static int export_frames(struct frames_state *fs, const char *buf, size_t *start, size_t end, uint64_t *number,
			 FILE *out, struct trace_replay_error *err)
{
	char json[TRACE_BIN_JSON_MAX];
	struct trace_bin_frame f;
	const char *why;
	int r;

	if ((r = refuse_format1(fs, err)) < 0)
		return r;
	while (*start < end) {
		int k = trace_bin_next(&fs->bin, buf + *start, end - *start, &f, &why);
		if (k == 0)
			return 0;
		++*number;
		if (k < 0) {
			err->line = *number;
			return error_set(&err->error, -EINVAL, "%s, at byte %" PRIu64 " of the binary trace", why,
					 fs->offset + *start);
		}
		*start += (size_t)k;
		if (f.line)
			fwrite(f.line, 1, f.line_len + 1, out);
		else
			fwrite(json, 1, trace_bin_json(&f.record, json), out);
	}
	return 0;
}

int trace_replay_export(int fd, FILE *out, struct trace_replay_error *err)
{
	struct reader rd;
	int r;

	if ((r = reader_init(&rd, err)) < 0)
		return r;
	_cleanup_free_ char *buf = rd.buf;
	/* the reads of a file fill the buffer up to its size */
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		memory_populate(buf, (uint64_t)st.st_size < rd.cap ? (size_t)st.st_size : rd.cap);
	for (bool at_end = false;;) {
		reader_detect(&rd, at_end, err);
		if (rd.known && !err->binary) {
			/* JSON Lines already: copied as they are */
			fwrite(buf + rd.start, 1, rd.end - rd.start, out);
			rd.start = rd.end;
		} else if (rd.known && (r = export_frames(&rd.fs, buf, &rd.start, rd.end, &rd.number, out, err)) < 0) {
			return r;
		}
		if (at_end)
			break;
		if ((r = reader_fill(&rd, fd, err)) < 0)
			return r;
		at_end = r == 0;
	}
	if (rd.start == rd.end)
		return 0;
	if (buf[rd.start] == '{') {
		/* a last line without its newline */
		fwrite(buf + rd.start, 1, rd.end - rd.start, out);
		return 0;
	}
	err->line = rd.number + 1;
	return error_set(&err->error, -EINVAL, "the binary trace ends inside a record, at byte %" PRIu64,
			 rd.fs.offset + rd.start);
}
