/* The compact binary trace file of ramwatch trace record (--format binary,
 * doc/memtrace-recording.md): the same memtrace v3 events, the frequent
 * ones (alloc, free, resize, remap, map, unmap) as a few bytes each.
 *
 * A file is TRACE_BIN_MAGIC, then frames to the end:
 *   - a byte '{' starts a JSON line, to its '\n' (trace.start, allocator,
 *     scope, object, stack, the untracked counts, trace.stop): read by the
 *     JSON Lines parser, so those events have one parser;
 *   - a byte 'S' starts a segment: varints stream, first seq and length,
 *     then that many bytes of records of one stream (one of the program's
 *     threads), numbered first seq, first seq + 1, ... in the order they
 *     are in.  The tracer's threads encode their own records and the writer
 *     copies them to the file as they are: a record's deltas are from the
 *     previous record of its stream, wherever that stood in the file.
 *   - a record is a byte with its kind (1-7) in the low four bits and flags
 *     above, then varints (7 bits a byte, low first), signed ones zigzag
 *     coded:
 *       address        signed, from the stream's previous record's
 *       old_address    signed, from address (remap kinds only)
 *       len            (all but free)
 *       old_len        (TRACE_BIN_OLD_LEN only)
 *       return_address signed, from the stream's previous record's
 *       scope_id       (TRACE_BIN_SCOPE only)
 *       stack_id       (TRACE_BIN_STACK only)
 *     A record may be led by a gap, the byte TRACE_BIN_GAP and a varint: as
 *     many events of the stream were dropped just before it, and their
 *     numbers are left out.
 *
 * This codec is pure and allocates nothing: the tracer encodes with it
 * inside the program's malloc, the readers decode with it, and its JSON
 * form of a record is the line the tracer writes with --format json. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* No NUL and no newline: the file's head still reads as a line with the
 * trace.start event in it.  Format 1 (records numbered one by one, no
 * segments) is refused by name. */
#define TRACE_BIN_MAGIC "\x89rwtrace2\x1a"
#define TRACE_BIN_MAGIC_V1 "\x89rwtrace1\x1a"
#define TRACE_BIN_MAGIC_LEN (sizeof(TRACE_BIN_MAGIC) - 1)

/* the most bytes one record takes (with its gap), a segment's head, and a
 * record's JSON line */
#define TRACE_BIN_RECORD_MAX 96u
#define TRACE_BIN_SEGMENT_HEAD_MAX 32u
#define TRACE_BIN_JSON_MAX 512u

/* streams a file may have: a program's threads at once */
#define TRACE_BIN_STREAMS 4096u

#define TRACE_BIN_SEGMENT 'S'
#define TRACE_BIN_GAP 0x08u

enum trace_bin_kind {
	TRACE_BIN_ALLOC = 1,
	TRACE_BIN_FREE,
	TRACE_BIN_RESIZE,
	TRACE_BIN_MOVE,  /* realloc to another address: a logical remap */
	TRACE_BIN_MAP,
	TRACE_BIN_UNMAP,
	TRACE_BIN_REMAP, /* a backing remap */
};

/* The allocator_id of the events of the logical kinds (alloc to move) and
 * of the backing ones (map, unmap, remap), as trace_bin_json writes them. */
#define TRACE_BIN_LOGICAL_ALLOCATOR 1u
#define TRACE_BIN_BACKING_ALLOCATOR 2u

#define TRACE_BIN_FAILED 0x10u  /* "succeeded": false */
#define TRACE_BIN_SCOPE 0x20u   /* scope_id follows */
#define TRACE_BIN_STACK 0x40u   /* stack_id follows */
#define TRACE_BIN_OLD_LEN 0x80u /* old_len follows */

struct trace_bin_record {
	enum trace_bin_kind kind;
	bool failed;
	uint64_t seq;  /* decoded: given by the segment; not encoded */
	uint64_t gap;  /* events of the stream dropped just before this one */
	uint64_t address;
	uint64_t old_address;
	uint64_t len;
	uint64_t old_len;
	uint64_t return_address;
	uint32_t scope_id;
	uint32_t stack_id;
};

/* What one stream's deltas are from: zeroed at a file's start. */
struct trace_bin_stream {
	uint64_t address, return_address;
};

/* A reader's place in a file: the streams, and the segment it is in. */
struct trace_bin_state {
	uint64_t seq;       /* the number of the next record of the segment */
	uint64_t remaining; /* bytes of the segment not read yet */
	uint32_t stream;
	struct trace_bin_stream streams[TRACE_BIN_STREAMS];
};

/* Encodes r (its gap first, when there is one) into out
 * (TRACE_BIN_RECORD_MAX bytes) against its stream; returns the bytes. */
size_t trace_bin_encode(struct trace_bin_stream *s, const struct trace_bin_record *r, unsigned char *out);

/* A segment's head into out (TRACE_BIN_SEGMENT_HEAD_MAX bytes); returns
 * the bytes. */
size_t trace_bin_segment(unsigned char *out, uint32_t stream, uint64_t first_seq, uint64_t len);

/* Decodes the record at buf (its gap too) against its stream; r->seq is
 * left 0.  Returns its bytes (> 0), 0 when len ends inside it, or -1 when
 * it is not a record; then why (static) says why. */
int trace_bin_decode(struct trace_bin_stream *s, const unsigned char *buf, size_t len, struct trace_bin_record *r,
		     const char **why);

/* One frame of a binary file: a JSON line (line, without its newline) or
 * a record (line NULL), numbered. */
struct trace_bin_frame {
	const char *line;
	size_t line_len;
	struct trace_bin_record record;
};

static inline bool trace_bin_has_old_address(enum trace_bin_kind k)
{
	return k == TRACE_BIN_MOVE || k == TRACE_BIN_REMAP;
}

/* The varint at p, known to be followed by at least ten bytes: the
 * position after it, or NULL when it is longer than 64 bits.  The
 * position stays in a register. */
__attribute__((always_inline)) static inline const unsigned char *trace_bin_varint_whole(const unsigned char *p,
											   uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Up to eight bytes, nearly every varint of a trace, without a branch
	 * on each byte (their lengths vary from record to record, and a
	 * mispredicted branch costs more than these steps): the byte that
	 * ends it is the first with its top bit clear, and the seven-bit
	 * groups below it are packed together in three steps. */
	uint64_t w, stop;
	memcpy(&w, p, sizeof(w));
	stop = ~w & 0x8080808080808080ull;
	if (stop) {
		unsigned end = (unsigned)__builtin_ctzll(stop); /* 8 * bytes - 1 */
		uint64_t x = w & (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
		x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
		x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
		x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
		*v = x;
		return p + (end + 1) / 8;
	}
#endif
	uint64_t x = *p & 0x7f;

	if (*p++ < 0x80) {
		*v = x;
		return p;
	}
	for (unsigned shift = 7; shift < 63; shift += 7) {
		unsigned char c = *p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80) {
			*v = x;
			return p;
		}
	}
	if (*p > 1)
		return NULL;
	*v = x | (uint64_t)*p << 63;
	return p + 1;
}

/* trace_bin_varint_whole for a varint that is nearly always four bytes or
 * fewer (a length, an id, a count): those in 32-bit steps whose masks fit
 * in the instructions, the rest as trace_bin_varint_whole reads them.  Not
 * for addresses' deltas, whose lengths vary across four bytes at random,
 * so the branch between the two would be mispredicted. */
__attribute__((always_inline)) static inline const unsigned char *trace_bin_varint_small(const unsigned char *p,
											   uint64_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t h, stop;
	memcpy(&h, p, sizeof(h));
	stop = ~h & 0x80808080u;
	if (stop) {
		/* the bits up to the stop bit: stop ^ (stop - 1) */
		uint32_t x = h & (stop ^ (stop - 1)) & 0x7f7f7f7fu;
		x = (x & 0x007f007fu) | (x & 0x7f007f00u) >> 1;
		x = (x & 0x00003fffu) | (x & 0x3fff0000u) >> 2;
		*v = x;
		return p + __builtin_ctz(stop) / 8 + 1;
	}
#endif
	return trace_bin_varint_whole(p, v);
}

/* The position after the varint at p, known to be followed by at least
 * ten bytes, without its value: NULL when it is longer than 64 bits, as
 * trace_bin_varint_whole says. */
__attribute__((always_inline)) static inline const unsigned char *trace_bin_varint_skip(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, stop;
	memcpy(&w, p, sizeof(w));
	stop = ~w & 0x8080808080808080ull;
	if (stop)
		return p + __builtin_ctzll(stop) / 8 + 1;
#endif
	uint64_t v;
	return trace_bin_varint_whole(p, &v);
}

#define TRACE_BIN_READ_(read, dst)                                         \
	do {                                                              \
		if (!(p = read(p, &(dst)))) {                             \
			*why = "a number longer than 64 bits";            \
			return -1;                                        \
		}                                                         \
	} while (0)
#define TRACE_BIN_WHOLE_(dst) TRACE_BIN_READ_(trace_bin_varint_whole, dst)
#define TRACE_BIN_SMALL_(dst) TRACE_BIN_READ_(trace_bin_varint_small, dst)

/* trace_bin_decode where the longest record fits in the bytes at buf: the
 * same reading without a bound check at each byte (every varint reads at
 * most ten bytes, and a record's at most TRACE_BIN_RECORD_MAX).  Inline:
 * the readers decode every record of a file through it. */
__attribute__((always_inline)) static inline int trace_bin_decode_whole(struct trace_bin_stream *s,
									const unsigned char *buf,
									struct trace_bin_record *r, const char **why)
{
	const unsigned char *p = buf;
	uint64_t v, gap = 0;

	if (*p == TRACE_BIN_GAP) {
		p++;
		TRACE_BIN_SMALL_(gap);
	}
	unsigned head = *p++;
	if ((head & 15) < TRACE_BIN_ALLOC || (head & 15) > TRACE_BIN_REMAP) {
		*why = "a byte that starts no record";
		return -1;
	}
	r->kind = (enum trace_bin_kind)(head & 15);
	r->failed = head & TRACE_BIN_FAILED;
	r->gap = gap;
	r->seq = 0;
	TRACE_BIN_WHOLE_(v);
	r->address = s->address + ((v >> 1) ^ (0 - (v & 1)));
	r->old_address = 0;
	if (trace_bin_has_old_address(r->kind)) {
		TRACE_BIN_WHOLE_(v);
		r->old_address = r->address + ((v >> 1) ^ (0 - (v & 1)));
	}
	r->len = 0;
	if (r->kind != TRACE_BIN_FREE)
		TRACE_BIN_SMALL_(r->len);
	r->old_len = 0;
	if (head & TRACE_BIN_OLD_LEN)
		TRACE_BIN_SMALL_(r->old_len);
	TRACE_BIN_WHOLE_(v);
	r->return_address = s->return_address + ((v >> 1) ^ (0 - (v & 1)));
	r->scope_id = r->stack_id = 0;
	if (head & TRACE_BIN_SCOPE) {
		TRACE_BIN_SMALL_(v);
		if (v > UINT32_MAX) {
			*why = "a scope_id above 2^32";
			return -1;
		}
		r->scope_id = (uint32_t)v;
	}
	if (head & TRACE_BIN_STACK) {
		TRACE_BIN_SMALL_(v);
		if (v > UINT32_MAX) {
			*why = "a stack_id above 2^32";
			return -1;
		}
		r->stack_id = (uint32_t)v;
	}
	s->address = r->address;
	s->return_address = r->return_address;
	return (int)(p - buf);
}

#undef TRACE_BIN_WHOLE_
#undef TRACE_BIN_SMALL_
#undef TRACE_BIN_READ_

/* trace_bin_next for every frame (out of line). */
int trace_bin_next_frame(struct trace_bin_state *s, const char *buf, size_t len, struct trace_bin_frame *f,
			 const char **why);

/* Splits off the frame at buf, the one splitter of every reader: a JSON
 * line, or the next record (with the head of its segment when it is the
 * segment's first).  Returns its bytes (> 0), 0 when len ends inside it
 * (a JSON line: before its newline), or -1 when it is not a frame; then
 * why says why.  s is changed only when it returns > 0.  A record inside a
 * segment with room for the longest one, as nearly every record is, is
 * decoded here, inline, and changes its stream only when it is whole. */
__attribute__((always_inline)) static inline int trace_bin_next(struct trace_bin_state *s, const char *buf,
								 size_t len, struct trace_bin_frame *f, const char **why)
{
	if (s->remaining >= TRACE_BIN_RECORD_MAX && len >= TRACE_BIN_RECORD_MAX) {
		int k = trace_bin_decode_whole(&s->streams[s->stream], (const unsigned char *)buf, &f->record, why);
		if (k < 0)
			return k;
		f->line = NULL;
		f->record.seq = s->seq + f->record.gap;
		s->seq = f->record.seq + 1;
		s->remaining -= (uint64_t)k;
		return k;
	}
	return trace_bin_next_frame(s, buf, len, f, why);
}

/* The decimal digits of v at out (20 bytes); returns how many. */
size_t trace_bin_u64(char *out, uint64_t v);

/* r as the memtrace JSON line the tracer writes, with its newline, into
 * out (TRACE_BIN_JSON_MAX bytes); returns the bytes. */
size_t trace_bin_json(const struct trace_bin_record *r, char *out);

static inline bool trace_bin_has_magic(const void *buf, size_t len, const char *magic)
{
	const unsigned char *b = buf, *m = (const unsigned char *)magic;

	if (len < TRACE_BIN_MAGIC_LEN)
		return false;
	for (size_t i = 0; i < TRACE_BIN_MAGIC_LEN; i++)
		if (b[i] != m[i])
			return false;
	return true;
}

/* whether buf starts a binary trace, of this format or the earlier one */
static inline bool trace_bin_is(const void *buf, size_t len)
{
	return trace_bin_has_magic(buf, len, TRACE_BIN_MAGIC) || trace_bin_has_magic(buf, len, TRACE_BIN_MAGIC_V1);
}
