/* The binary trace codec (trace-binary.h).  Varints of 7 bits a byte,
 * signed values zigzag coded: addresses and sites of one program lie near
 * each other, so most fields take one to three bytes. */
#include "trace-binary.h"

#include <string.h>

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static unsigned char *put_signed(unsigned char *p, uint64_t to, uint64_t from)
{
	int64_t d = (int64_t)(to - from);
	return put_varint(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

static bool has_old_address(enum trace_bin_kind k)
{
	return trace_bin_has_old_address(k);
}

size_t trace_bin_encode(struct trace_bin_stream *s, const struct trace_bin_record *r, unsigned char *out)
{
	unsigned char *p = out;
	unsigned head = (unsigned)r->kind;

	if (r->gap) {
		*p++ = TRACE_BIN_GAP;
		p = put_varint(p, r->gap);
	}
	if (r->failed)
		head |= TRACE_BIN_FAILED;
	if (r->scope_id)
		head |= TRACE_BIN_SCOPE;
	if (r->stack_id)
		head |= TRACE_BIN_STACK;
	if (r->old_len)
		head |= TRACE_BIN_OLD_LEN;
	*p++ = (unsigned char)head;
	p = put_signed(p, r->address, s->address);
	if (has_old_address(r->kind))
		p = put_signed(p, r->old_address, r->address);
	if (r->kind != TRACE_BIN_FREE)
		p = put_varint(p, r->len);
	if (r->old_len)
		p = put_varint(p, r->old_len);
	p = put_signed(p, r->return_address, s->return_address);
	if (r->scope_id)
		p = put_varint(p, r->scope_id);
	if (r->stack_id)
		p = put_varint(p, r->stack_id);
	s->address = r->address;
	s->return_address = r->return_address;
	return (size_t)(p - out);
}

size_t trace_bin_segment(unsigned char *out, uint32_t stream, uint64_t first_seq, uint64_t len)
{
	unsigned char *p = out;

	*p++ = TRACE_BIN_SEGMENT;
	p = put_varint(p, stream);
	p = put_varint(p, first_seq);
	p = put_varint(p, len);
	return (size_t)(p - out);
}

/* A varint at *p before end: 1 with *v, 0 when it runs past end, -1 when
 * longer than 64 bits. */
static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0;; shift += 7) {
		if (*p == end)
			return 0;
		unsigned char c = *(*p)++;
		if (shift == 63 && c > 1)
			return -1;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		if (shift == 63)
			return -1;
	}
	*v = x;
	return 1;
}

static int get_signed(const unsigned char **p, const unsigned char *end, uint64_t from, uint64_t *v)
{
	uint64_t z;
	int r = get_varint(p, end, &z);

	if (r > 0)
		*v = from + ((z >> 1) ^ (0 - (z & 1)));
	return r;
}

#define GET(call)                                                   \
	do {                                                        \
		int r_ = (call);                                    \
		if (r_ < 0)                                         \
			*why = "a number longer than 64 bits";      \
		if (r_ <= 0)                                        \
			return r_;                                  \
	} while (0)

int trace_bin_decode(struct trace_bin_stream *s, const unsigned char *buf, size_t len, struct trace_bin_record *r,
		     const char **why)
{
	const unsigned char *p = buf, *end = buf + len;
	uint64_t v, gap = 0;

	*why = "";
	if (len >= TRACE_BIN_RECORD_MAX)
		return trace_bin_decode_whole(s, buf, r, why);
	if (len == 0)
		return 0;
	if (*p == TRACE_BIN_GAP) {
		p++;
		GET(get_varint(&p, end, &gap));
		if (p == end)
			return 0;
	}
	unsigned head = *p++;
	if ((head & 15) < TRACE_BIN_ALLOC || (head & 15) > TRACE_BIN_REMAP) {
		*why = "a byte that starts no record";
		return -1;
	}
	*r = (struct trace_bin_record){ .kind = (enum trace_bin_kind)(head & 15),
					.failed = head & TRACE_BIN_FAILED,
					.gap = gap };
	GET(get_signed(&p, end, s->address, &r->address));
	if (has_old_address(r->kind))
		GET(get_signed(&p, end, r->address, &r->old_address));
	if (r->kind != TRACE_BIN_FREE)
		GET(get_varint(&p, end, &r->len));
	if (head & TRACE_BIN_OLD_LEN)
		GET(get_varint(&p, end, &r->old_len));
	GET(get_signed(&p, end, s->return_address, &r->return_address));
	if (head & TRACE_BIN_SCOPE) {
		GET(get_varint(&p, end, &v));
		if (v > UINT32_MAX) {
			*why = "a scope_id above 2^32";
			return -1;
		}
		r->scope_id = (uint32_t)v;
	}
	if (head & TRACE_BIN_STACK) {
		GET(get_varint(&p, end, &v));
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

/* The head of the segment at p: 1 with its fields, 0 when len ends inside
 * it, -1 when it is wrong. */
static int segment_head(const unsigned char **p, const unsigned char *end, uint64_t *stream, uint64_t *first,
			uint64_t *len, const char **why)
{
	(*p)++;
	GET(get_varint(p, end, stream));
	GET(get_varint(p, end, first));
	GET(get_varint(p, end, len));
	if (*stream >= TRACE_BIN_STREAMS) {
		*why = "a segment of a stream past the last one a file may have";
		return -1;
	}
	if (*len == 0) {
		*why = "a segment without records";
		return -1;
	}
	return 1;
}

int trace_bin_next_frame(struct trace_bin_state *s, const char *buf, size_t len, struct trace_bin_frame *f,
			 const char **why)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;
	uint64_t stream = s->stream, seq = s->seq, remaining = s->remaining;
	const char *nl;
	int k;

	*why = "";
	if (len == 0)
		return 0;
	if (remaining == 0) {
		if (buf[0] == '{') {
			if (!(nl = memchr(buf, '\n', len)))
				return 0;
			f->line = buf;
			f->line_len = (size_t)(nl - buf);
			return (int)(f->line_len + 1);
		}
		if (buf[0] != TRACE_BIN_SEGMENT) {
			*why = "a byte that starts neither a segment nor a JSON line";
			return -1;
		}
		if ((k = segment_head(&p, end, &stream, &seq, &remaining, why)) <= 0)
			return k;
	}
	size_t avail = (size_t)(end - p);
	if (avail >= TRACE_BIN_RECORD_MAX && remaining >= TRACE_BIN_RECORD_MAX) {
		/* inside a segment with room for any record, as nearly every
		 * record is: decoded in place, its stream changed only when it
		 * is whole */
		if ((k = trace_bin_decode_whole(&s->streams[stream], p, &f->record, why)) < 0)
			return k;
		goto decoded;
	}
	struct trace_bin_stream st = s->streams[stream];
	if ((k = trace_bin_decode(&st, p, avail < remaining ? avail : (size_t)remaining, &f->record, why)) < 0)
		return k;
	if (k == 0) {
		if (avail < remaining)
			return 0;
		*why = "a record that runs past the end of its segment";
		return -1;
	}
	s->streams[stream] = st;
decoded:
	f->line = NULL;
	f->record.seq = seq + f->record.gap;
	s->stream = (uint32_t)stream;
	s->seq = f->record.seq + 1;
	s->remaining = remaining - (uint64_t)k;
	return (int)((const char *)p + k - buf);
}

/* Two digits at a time: the tracer's JSON writer formats a few numbers per
 * event, and its speed is the trace's at --min-bytes 0. */
size_t trace_bin_u64(char *out, uint64_t v)
{
	static const char digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
					"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
					"8081828384858687888990919293949596979899";
	char tmp[20], *p = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		*--p = digits[d + 1];
		*--p = digits[d];
	}
	if (v >= 10) {
		*--p = digits[v * 2 + 1];
		*--p = digits[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	return n;
}

#define OUT(lit) (memcpy(p, lit, sizeof(lit) - 1), p += sizeof(lit) - 1)
#define FIELD(name, v) (OUT(name), p += trace_bin_u64(p, v))

size_t trace_bin_json(const struct trace_bin_record *r, char *out)
{
	char *p = out;

	FIELD("{\"seq\":", r->seq);
	switch (r->kind) {
	case TRACE_BIN_ALLOC: OUT(",\"kind\":\"alloc\""); break;
	case TRACE_BIN_FREE: OUT(",\"kind\":\"free\""); break;
	case TRACE_BIN_RESIZE: OUT(",\"kind\":\"resize\""); break;
	case TRACE_BIN_MOVE:
	case TRACE_BIN_REMAP: OUT(",\"kind\":\"remap\""); break;
	case TRACE_BIN_MAP: OUT(",\"kind\":\"map\""); break;
	case TRACE_BIN_UNMAP: OUT(",\"kind\":\"unmap\""); break;
	}
	if (r->kind <= TRACE_BIN_MOVE)
		OUT(",\"layer\":\"logical_allocator\",\"allocator_id\":1");
	else
		OUT(",\"layer\":\"backing_boundary\",\"allocator_id\":2");
	if (has_old_address(r->kind))
		FIELD(",\"old_address\":", r->old_address);
	FIELD(",\"address\":", r->address);
	if (r->old_len)
		FIELD(",\"old_len\":", r->old_len);
	if (r->kind != TRACE_BIN_FREE)
		FIELD(",\"len\":", r->len);
	if (r->return_address)
		FIELD(",\"return_address\":", r->return_address);
	if (r->scope_id)
		FIELD(",\"scope_id\":", r->scope_id);
	if (r->stack_id)
		FIELD(",\"stack_id\":", r->stack_id);
	if (r->failed)
		OUT(",\"succeeded\":false");
	OUT("}\n");
	return (size_t)(p - out);
}
