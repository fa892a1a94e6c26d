/* A single-pass scanner for flat event objects.  Anything unusual — an
 * escape, a byte outside printable ASCII inside a string, a nested value,
 * a sign, a fraction, a repeated key, a value the field's rules refuse —
 * returns -EAGAIN, and the general parser decides. */
#include "trace-fast.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

/* Each scanner takes the position p and the end of the line, and returns
 * the position after what it read, or NULL when it cannot read it.  The
 * position is a local variable of the parser, so it stays in a register
 * (a cursor struct behind a pointer would be reloaded after every byte
 * read, since a char may alias it). */

static inline const char *skip_ws(const char *p, const char *end)
{
	/* nearly always there is none: one compare decides that */
	while (p < end && (unsigned char)*p <= ' ' && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* Bytes that end a plain string: the quote, and what the fast parser
 * leaves to the general one (a backslash, control bytes, DEL and every
 * non-ASCII byte, whose UTF-8 it does not check). */
static const bool string_stop[256] = {
	[0 ... 0x1f] = true, ['"'] = true, ['\\'] = true, [0x7f ... 0xff] = true,
};

/* The first byte of x (in memory order) that string_stop holds, as a
 * mask with that byte's top bit set (0 for none): bytes below 0x20, the
 * quote, the backslash, DEL and every byte from 0x80.  Bytes after the
 * first may be flagged wrongly (a borrow runs on); the first never is. */
static inline uint64_t stop_bytes(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\'), del = x ^ (ones * 0x7f);

	/* (v - 1) & ~v has the top bit of each zero byte of v, and
	 * (x - 0x20) & ~x that of each byte below 0x20 (SWAR: the lowest
	 * such byte is exact, as no byte below it borrows) */
	return (((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
		((del - ones) & ~del) | x) & high;
}

/* A string of printable ASCII without escapes; p is on the quote. */
static inline const char *plain_string(const char *p, const char *end, const char **ret, size_t *ret_len)
{
	const char *s = p + 1, *q = s;
	uint64_t x, stops;

	/* eight bytes at a time while the line has them */
	while (end - q >= 8) {
		memcpy(&x, q, sizeof(x));
		if ((stops = stop_bytes(x))) {
			q += __builtin_ctzll(stops) / 8;
			goto found;
		}
		q += 8;
	}
	while (q < end && !string_stop[(unsigned char)*q])
		q++;
found:
	if (q >= end || *q != '"')
		return NULL;
	*ret = s;
	*ret_len = (size_t)(q - s);
	return q + 1;
}

static inline bool is_digit(char c)
{
	return (unsigned)(unsigned char)c - '0' < 10;
}

/* Digits eight bytes at a time (SWAR): an address has 12 to 15 digits,
 * and a byte-by-byte loop is a chain of dependent multiply-adds.  The
 * bytes of x are taken in memory order (little-endian). */

/* How many of the first bytes of x are digits: the lowest non-digit byte
 * gets its top bit set (digits neither borrow nor carry into it). */
static inline unsigned digit_run(uint64_t x)
{
	uint64_t t = ((x + 0x4646464646464646ull) | (x - 0x3030303030303030ull)) & 0x8080808080808080ull;
	return t ? (unsigned)__builtin_ctzll(t) / 8 : 8;
}

/* The value of the first k digits (1 <= k <= 8) of x. */
static inline uint64_t digits_value(uint64_t x, unsigned k)
{
	if (k < 8)
		x = (x << (8 - k) * 8) | (0x3030303030303030ull >> k * 8);
	x -= 0x3030303030303030ull;
	x = x * 10 + (x >> 8);
	return (((x & 0x000000ff000000ffull) * 0x000f424000000064ull) +
		(((x >> 16) & 0x000000ff000000ffull) * 0x0000271000000001ull)) >> 32;
}

static const uint64_t power_of_ten[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000 };

/* An unsigned integer in JSON's form (no leading zeros) that fits 64
 * bits, followed by something that cannot continue a number.  Nineteen
 * digits always fit; only a twentieth needs the overflow check. */
static inline const char *unsigned_integer(const char *p, const char *end, uint64_t *ret)
{
	uint64_t v = 0, x;
	unsigned n = 0, k;

	if (p >= end || !is_digit(*p))
		return NULL;
	if (*p == '0') {
		p++;
	} else {
		while (end - p >= 8) {
			memcpy(&x, p, sizeof(x));
			k = digit_run(x);
			if (k == 0 || n + k > 19)
				break;
			v = v * power_of_ten[k] + digits_value(x, k);
			p += k;
			n += k;
			if (k < 8)
				goto digits_done;
		}
		/* near the end of the line, or a twentieth digit */
		for (; p < end && n < 19 && is_digit(*p); p++, n++)
			v = v * 10 + (unsigned)(*p - '0');
		if (p < end && is_digit(*p)) {
			unsigned d = (unsigned)(*p - '0');
			if (v > (UINT64_MAX - d) / 10)
				return NULL;
			v = v * 10 + d;
			p++;
		}
	}
digits_done:
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E' || is_digit(*p)))
		return NULL;
	*ret = v;
	return p;
}

static inline const char *literal(const char *p, const char *end, const char *word, size_t n)
{
	if ((size_t)(end - p) < n || memcmp(p, word, n) != 0)
		return NULL;
	return p + n;
}

static inline const char *digits(const char *p, const char *end)
{
	const char *start = p;
	while (p < end && is_digit(*p))
		p++;
	return p > start ? p : NULL;
}

/* Skips any JSON number (the value of a field this format does not
 * define): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *skip_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p >= end)
		return NULL;
	if (*p == '0')
		p++;
	else if (!(p = digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = digits(p, end)))
			return NULL;
	}
	return p;
}

static const char *skip_scalar(const char *p, const char *end)
{
	const char *s;
	size_t n;

	if (p >= end)
		return NULL;
	switch (*p) {
	case '"': return plain_string(p, end, &s, &n);
	case 't': return literal(p, end, "true", 4);
	case 'f': return literal(p, end, "false", 5);
	case 'n': return literal(p, end, "null", 4);
	default: return skip_number(p, end);
	}
}

static inline const char *known_value(const char *p, const char *end, struct trace_event *e, enum trace_field f)
{
	const char *s, *q;
	size_t n;
	uint64_t v;

	if (p >= end)
		return NULL;
	switch (f) {
	case TRACE_FIELD_KIND:
	case TRACE_FIELD_SCOPE:
	case TRACE_FIELD_LAYER:
	case TRACE_FIELD_PRODUCER:
	case TRACE_FIELD_PATH:
		if (*p != '"' || !(q = plain_string(p, end, &s, &n)))
			return NULL;
		return trace_event_set_string(e, f, s, n, NULL) == 0 ? q : NULL;
	case TRACE_FIELD_RETAINS_FREED_MEMORY:
	case TRACE_FIELD_LIFECYCLE_INSTRUMENTED:
	case TRACE_FIELD_OBSERVATION_PREFIX_COMPLETE:
	case TRACE_FIELD_SUCCEEDED:
	case TRACE_FIELD_TRACKED:
		if ((q = literal(p, end, "true", 4)))
			return trace_event_set_bool(e, f, true, NULL) == 0 ? q : NULL;
		if ((q = literal(p, end, "false", 5)))
			return trace_event_set_bool(e, f, false, NULL) == 0 ? q : NULL;
		return NULL;
	case TRACE_FIELD_FRAMES: return NULL; /* an array: the general parser reads it */
	default:
		if (!(q = unsigned_integer(p, end, &v)))
			return NULL;
		return trace_event_set_u64(e, f, v, NULL) == 0 ? q : NULL;
	}
}

void trace_fast_init(struct trace_fast *s)
{
	memset(s, 0, sizeof(*s));
}

/* Whether the n bytes (4 <= n <= TRACE_FAST_TOKEN_MAX) at a and b are the
 * same: word loads, the last one overlapping, no call. */
static inline bool same_token(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

	if (n < 8) {
		memcpy(&u, a, 4), memcpy(&v, b, 4);
		if (u != v)
			return false;
		memcpy(&u, a + n - 4, 4), memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8), memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	memcpy(&x, a + n - 8, 8), memcpy(&y, b + n - 8, 8);
	return x == y;
}

int trace_fast_parse(struct trace_fast *s, const char *line, size_t len, struct trace_event *e)
{
	const char *p = line, *end = line + len;
	struct {
		const char *key;
		size_t len;
	} unknown[TRACE_FAST_UNKNOWN_MAX];
	size_t n_unknown = 0;
	unsigned prev = _TRACE_FIELD_MAX; /* the field before this key; at first none */

	trace_event_init(e);
	if (p >= end || *p != '{')
		return -EAGAIN;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return -EAGAIN; /* {}: no kind, an error the general parser words */
	for (;;) {
		const char *key = NULL, *token = p;
		size_t key_len = 0;
		int f;

		if (s && s->next[prev].len && (size_t)(end - p) >= s->next[prev].len &&
		    same_token(p, s->next[prev].token, s->next[prev].len)) {
			/* "key": as predicted */
			f = s->next[prev].field;
			p += s->next[prev].len;
		} else {
			if (p >= end || *p != '"' || !(p = plain_string(p, end, &key, &key_len)))
				return -EAGAIN;
			f = trace_event_field(key, key_len);
			if (s && f >= 0 && p < end && *p == ':' && (size_t)(p + 1 - token) <= TRACE_FAST_TOKEN_MAX) {
				/* remember "key": (no spaces) for the next line */
				s->next[prev].len = (uint8_t)(p + 1 - token);
				s->next[prev].field = (uint8_t)f;
				memcpy(s->next[prev].token, token, s->next[prev].len);
			}
			p = skip_ws(p, end);
			if (p >= end || *p != ':')
				return -EAGAIN;
			p++;
		}
		p = skip_ws(p, end);
		if (f >= 0) {
			if (!(p = known_value(p, end, e, (enum trace_field)f)))
				return -EAGAIN;
			prev = (unsigned)f;
		} else {
			/* a repeated unknown key is refused too (by the general
			 * parser): remember a few to notice */
			if (n_unknown == TRACE_FAST_UNKNOWN_MAX)
				return -EAGAIN;
			for (size_t i = 0; i < n_unknown; i++)
				if (unknown[i].len == key_len && memcmp(unknown[i].key, key, key_len) == 0)
					return -EAGAIN;
			unknown[n_unknown].key = key;
			unknown[n_unknown++].len = key_len;
			if (!(p = skip_scalar(p, end)))
				return -EAGAIN;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}') {
			p++;
			break;
		}
		return -EAGAIN;
	}
	p = skip_ws(p, end);
	if (p != end || trace_event_finish(e, NULL) < 0)
		return -EAGAIN;
	return 0;
}
