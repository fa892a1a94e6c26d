/* The compact binary trace file of ramwatch trace record (--format binary,
 * doc/memtrace-recording.md): the same memtrace v3 events, the frequent
 * ones (alloc, free, resize, remap, map, unmap) as a few bytes each.
 *
 * A file is TRACE_BIN_MAGIC, then frames to the end:
 *   - a byte '{' starts a JSON line, to its '\n' (trace.start, allocator,
 *     scope, object, stack, the untracked counts, trace.stop): read by the
 *     JSON Lines parser, so those events have one parser;
 *   - any other byte starts a record: its kind (1-7) in the low four bits,
 *     flags above; then varints (7 bits a byte, low first), signed ones
 *     zigzag coded:
 *       seq            signed, from the previous record's
 *       address        signed, from the previous record's
 *       old_address    signed, from address (remap kinds only)
 *       len            (all but free)
 *       old_len        (TRACE_BIN_OLD_LEN only)
 *       return_address signed, from the previous record's
 *       scope_id       (TRACE_BIN_SCOPE only)
 *       stack_id       (TRACE_BIN_STACK only)
 *
 * This codec is pure and allocates nothing: the tracer encodes with it
 * inside the program's malloc, the readers decode with it, and its JSON
 * form of a record is the line the tracer writes with --format json. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No NUL and no newline: the file's head still reads as a line with the
 * trace.start event in it. */
#define TRACE_BIN_MAGIC "\x89rwtrace1\x1a"
#define TRACE_BIN_MAGIC_LEN (sizeof(TRACE_BIN_MAGIC) - 1)

/* the most bytes one record takes, and its JSON line */
#define TRACE_BIN_RECORD_MAX 80u
#define TRACE_BIN_JSON_MAX 512u

enum trace_bin_kind {
	TRACE_BIN_ALLOC = 1,
	TRACE_BIN_FREE,
	TRACE_BIN_RESIZE,
	TRACE_BIN_MOVE,  /* realloc to another address: a logical remap */
	TRACE_BIN_MAP,
	TRACE_BIN_UNMAP,
	TRACE_BIN_REMAP, /* a backing remap */
};

#define TRACE_BIN_FAILED 0x10u  /* "succeeded": false */
#define TRACE_BIN_SCOPE 0x20u   /* scope_id follows */
#define TRACE_BIN_STACK 0x40u   /* stack_id follows */
#define TRACE_BIN_OLD_LEN 0x80u /* old_len follows */

struct trace_bin_record {
	enum trace_bin_kind kind;
	bool failed;
	uint64_t seq;
	uint64_t address;
	uint64_t old_address;
	uint64_t len;
	uint64_t old_len;
	uint64_t return_address;
	uint32_t scope_id;
	uint32_t stack_id;
};

/* What the deltas of the next record are from: zeroed at a file's start. */
struct trace_bin_state {
	uint64_t seq, address, return_address;
};

/* Encodes r into out (TRACE_BIN_RECORD_MAX bytes); returns the bytes. */
size_t trace_bin_encode(struct trace_bin_state *s, const struct trace_bin_record *r, unsigned char *out);

/* Decodes the record at buf.  Returns its bytes (> 0), 0 when len ends
 * inside it, or -1 when it is not a record; then why (static) says why. */
int trace_bin_decode(struct trace_bin_state *s, const unsigned char *buf, size_t len, struct trace_bin_record *r,
		     const char **why);

/* One frame of a binary file: a JSON line (line, without its newline) or
 * a record (line NULL). */
struct trace_bin_frame {
	const char *line;
	size_t line_len;
	struct trace_bin_record record;
};

/* Splits off the frame at buf, the one splitter of every reader.  Returns
 * its bytes (> 0), 0 when len ends inside it (a JSON line: before its
 * newline), or -1 when it is not a frame; then why says why. */
int trace_bin_next(struct trace_bin_state *s, const char *buf, size_t len, struct trace_bin_frame *f,
		   const char **why);

/* The decimal digits of v at out (20 bytes); returns how many. */
size_t trace_bin_u64(char *out, uint64_t v);

/* r as the memtrace JSON line the tracer writes, with its newline, into
 * out (TRACE_BIN_JSON_MAX bytes); returns the bytes. */
size_t trace_bin_json(const struct trace_bin_record *r, char *out);

static inline bool trace_bin_is(const void *buf, size_t len)
{
	const unsigned char *b = buf, *m = (const unsigned char *)TRACE_BIN_MAGIC;

	if (len < TRACE_BIN_MAGIC_LEN)
		return false;
	for (size_t i = 0; i < TRACE_BIN_MAGIC_LEN; i++)
		if (b[i] != m[i])
			return false;
	return true;
}
