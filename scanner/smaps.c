/* The smaps parser.
 *
 * Workload: the text of /proc/PID/smaps, about 25 lines and 1 KiB per region,
 * from a handful of regions to tens of thousands; the kernel needs about
 * 1.3 us to print a region, and parsing it must cost a small fraction of
 * that.  So lines are parsed in place with hand-written scanning (no scanf,
 * no copies but the path), the next field is predicted from the kernel's
 * fixed order, and paths are interned.
 *
 * Input is untrusted (saved files from bug reports, fuzzing): every line is
 * bounded, every number checked for overflow, and anything that is neither a
 * region header nor a field line is an error naming the line. */
#include "smaps.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"

static int fail(struct smaps_parser *p, int error, const char *fmt, ...) _printf_(3, 4);

static int fail(struct smaps_parser *p, int error, const char *fmt, ...)
{
	char reason[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	snprintf(p->message, sizeof(p->message), "line %llu: %s", (unsigned long long)p->line, reason);
	p->error = error;
	return error;
}

int smaps_parser_init(struct smaps_parser *p, size_t max_regions, struct strpool *paths)
{
	*p = (struct smaps_parser){
		.max_regions = max_regions ? max_regions : RW_REGIONS_MAX,
		.paths = paths,
		.field_hint = -1,
	};
	for (int f = 0; f < _SMAPS_FIELD_MAX; f++) {
		char word[16] = { 0 }, mask[16] = { 0 };
		size_t len = strlen(smaps_field_kernel_name((enum smaps_field)f));
		memcpy(word, smaps_field_kernel_name((enum smaps_field)f), len);
		word[len] = ':'; /* every name is at most 15 bytes: "Private_Hugetlb" */
		memset(mask, 0xff, len + 1);
		memcpy(p->field_word[f], word, 16);
		memcpy(p->field_mask[f], mask, 16);
		memset(word + len + 1, ' ', 16 - (len + 1));
		memcpy(p->field_padded[f], word, 16);
		p->field_len[f] = (uint8_t)(len + 1);
		p->next_field[f] = (int8_t)f;
	}
	p->next_field[_SMAPS_FIELD_MAX] = -1;
	return 0;
}

void smaps_parser_done(struct smaps_parser *p)
{
	free(p->regions);
	free(p->carry);
	p->regions = NULL;
	p->carry = NULL;
	p->n_regions = p->allocated = p->carry_len = p->carry_allocated = 0;
}

struct region *smaps_parser_take(struct smaps_parser *p, size_t *ret_n)
{
	*ret_n = p->n_regions;
	p->n_regions = p->allocated = 0;
	return TAKE_PTR(p->regions);
}

static inline bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One more than the value of a lowercase hexadecimal digit, 0 for any other
 * byte (the kernel prints lowercase only). */
static const uint8_t hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* Scans hexadecimal digits at *s (stopping before end); returns the number
 * of digits, 0 if none or on overflow. */
static size_t scan_hex(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0, max = (size_t)(end - s);
	for (; n < max; n++) {
		uint8_t d = hex_value[(unsigned char)s[n]];
		if (!d)
			break;
		v = (v << 4) | (uint64_t)(d - 1);
	}
	if (n > 16)
		return 0;
	*ret = v;
	return n;
}

static size_t scan_dec(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s + n < end && is_digit(s[n]); n++) {
		unsigned d = (unsigned)(s[n] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*ret = v;
	return n;
}

static const char *skip_spaces(const char *s, const char *end)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* headers pad paths to a column: skip the spaces 8 at a time */
	while (end - s >= 8) {
		uint64_t x;
		memcpy(&x, s, 8);
		x ^= 0x2020202020202020ull;
		if (x)
			return s + __builtin_ctzll(x) / 8;
		s += 8;
	}
#endif
	while (s < end && *s == ' ')
		s++;
	return s;
}

static int grow_regions(struct smaps_parser *p)
{
	size_t want = p->allocated ? p->allocated * 2 : 256;
	struct region *nr = realloc(p->regions, want * sizeof(*nr));
	if (!nr)
		return fail(p, -ENOMEM, "out of memory");
	p->regions = nr;
	p->allocated = want;
	return 0;
}

/* "7f00c0000000-7f00c0021000 rw-p 00000000 00:00 0          [anon:name]"
 * The region is built in place in the next free slot and counted only once
 * the whole line is good. */
static int parse_header(struct smaps_parser *p, const char *s, const char *end)
{
	uint64_t major, minor;
	size_t n;
	int r;

	if (p->n_regions >= p->max_regions)
		return fail(p, -E2BIG, "more than %zu regions", p->max_regions);
	if (p->n_regions == p->allocated && (r = grow_regions(p)) < 0)
		return r;
	struct region *reg = &p->regions[p->n_regions];
	memset(reg, 0, sizeof(*reg));
	reg->thp_eligible = -1;
	reg->protection_key = -1;

	if (!(n = scan_hex(s, end, &reg->start)) || (s += n) >= end || *s++ != '-')
		return fail(p, -EBADMSG, "malformed region header: bad start address");
	if (!(n = scan_hex(s, end, &reg->end)) || (s += n) >= end || *s++ != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad end address");
	if (reg->end <= reg->start)
		return fail(p, -EBADMSG, "malformed region header: end address not above start");
	if (end - s < 5 || s[4] != ' ' || (s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return fail(p, -EBADMSG, "malformed region header: bad permissions");
	memcpy(reg->perms, s, 4);
	s += 5;
	if (!(n = scan_hex(s, end, &reg->offset)) || (s += n) >= end || *s++ != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad offset");
	if (!(n = scan_hex(s, end, &major)) || (s += n) >= end || *s++ != ':' || major > UINT32_MAX)
		return fail(p, -EBADMSG, "malformed region header: bad device");
	if (!(n = scan_hex(s, end, &minor)) || minor > UINT32_MAX)
		return fail(p, -EBADMSG, "malformed region header: bad device");
	s += n;
	if (s >= end || *s++ != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad device");
	if (!(n = scan_dec(s, end, &reg->inode)))
		return fail(p, -EBADMSG, "malformed region header: bad inode");
	s += n;
	if (s < end && *s != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad inode");
	reg->dev_major = (uint32_t)major;
	reg->dev_minor = (uint32_t)minor;

	s = skip_spaces(s, end);
	if (s < end && memchr(s, '\0', (size_t)(end - s)))
		return fail(p, -EBADMSG, "binary data (NUL byte)");
	if (s < end) {
		reg->path = strpool_intern(p->paths, s, (size_t)(end - s));
		if (!reg->path)
			return fail(p, -ENOMEM, "out of memory");
	}

	if (p->n_regions > 0) {
		const struct region *prev = &p->regions[p->n_regions - 1];
		if (reg->start < prev->end)
			return fail(p, -EBADMSG, "region overlaps or precedes the previous one (not one smaps file?)");
	}
	p->n_regions++;
	p->field_hint = -1;
	return 0;
}

/* Finds the field named by the len bytes at name, and learns that it
 * follows the previous one. */
static int lookup_field(struct smaps_parser *p, const char *name, size_t len)
{
	for (int f = 0; f < _SMAPS_FIELD_MAX; f++) {
		if (p->field_len[f] != len + 1 || memcmp(smaps_field_kernel_name((enum smaps_field)f), name, len) != 0)
			continue;
		p->next_field[p->field_hint + 1] = (int8_t)f;
		p->field_hint = f;
		return f;
	}
	return -1;
}

static int parse_vmflags(struct smaps_parser *p, struct region *r, const char *s, const char *end)
{
	for (;;) {
		s = skip_spaces(s, end);
		if (s >= end)
			return 0;
		const char *t = s;
		while (t < end && *t != ' ')
			t++;
		if (t - s != 2 || s[0] < 'a' || s[0] > 'z' || s[1] < 'a' || s[1] > 'z')
			return fail(p, -EBADMSG, "malformed VmFlags: \"%.*s\"", (int)(t - s > 16 ? 16 : t - s), s);
		int f = vmflag_from_code(s);
		if (f >= 0)
			r->vmflags |= 1ull << f;
		s = t;
	}
}

static int parse_int_field(struct smaps_parser *p, const char *name, const char *s, const char *end, int32_t *ret)
{
	uint64_t v;
	size_t n;
	bool negative = false;

	s = skip_spaces(s, end);
	if (s < end && *s == '-') {
		negative = true;
		s++;
	}
	if (!(n = scan_dec(s, end, &v)) || skip_spaces(s + n, end) != end || v > INT32_MAX)
		return fail(p, -EBADMSG, "%s: not a number", name);
	*ret = negative ? -(int32_t)v : (int32_t)v;
	return 0;
}

static int parse_field(struct smaps_parser *p, const char *s, const char *end)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	struct region *r;
	size_t name_len;

	if (!colon)
		return fail(p, -EBADMSG, "neither a region header nor a field");
	name_len = (size_t)(colon - s);
	for (size_t i = 0; i < name_len; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_'))
			return fail(p, -EBADMSG, "neither a region header nor a field");
	}
	if (p->n_regions == 0)
		return fail(p, -EBADMSG, "field before the first region header");
	r = &p->regions[p->n_regions - 1];

	int f = lookup_field(p, s, name_len);
	if (f < 0) {
		if (name_len == 7 && memcmp(s, "VmFlags", 7) == 0)
			return parse_vmflags(p, r, colon + 1, end);
		if (name_len == 11 && memcmp(s, "THPeligible", 11) == 0)
			return parse_int_field(p, "THPeligible", colon + 1, end, &r->thp_eligible);
		if (name_len == 13 && memcmp(s, "ProtectionKey", 13) == 0)
			return parse_int_field(p, "ProtectionKey", colon + 1, end, &r->protection_key);
		if (memchr(colon, '\0', (size_t)(end - colon)))
			return fail(p, -EBADMSG, "binary data (NUL byte)");
		return 0; /* a field this version does not know: newer kernels add some */
	}

	const char *v = skip_spaces(colon + 1, end);
	uint64_t kb;
	size_t n = scan_dec(v, end, &kb);
	if (!n)
		return fail(p, -EBADMSG, "%s: not a number", smaps_field_kernel_name((enum smaps_field)f));
	v = skip_spaces(v + n, end);
	if (end - v < 2 || v[0] != 'k' || v[1] != 'B' || skip_spaces(v + 2, end) != end)
		return fail(p, -EBADMSG, "%s: expected a size in kB", smaps_field_kernel_name((enum smaps_field)f));
	if (r->present & (1u << f))
		return fail(p, -EBADMSG, "%s: repeated in one region", smaps_field_kernel_name((enum smaps_field)f));
	if (f == SMAPS_SIZE) {
		if (kb > UINT64_MAX / 1024 || kb * 1024 != region_size(r))
			return fail(p, -EBADMSG, "Size %llu kB does not match the region's %llu kB", (unsigned long long)kb,
				    (unsigned long long)(region_size(r) / 1024));
	} else if (kb > REGION_FIELD_KB_MAX)
		return fail(p, -EBADMSG, "%s: %llu kB is more than this version keeps (1 PiB)",
			    smaps_field_kernel_name((enum smaps_field)f), (unsigned long long)kb);
	r->present |= 1u << f;
	region_set_kb(r, (enum smaps_field)f, kb);
	return 0;
}

/* Parses the 8 bytes at s, a number right-aligned with leading spaces, as
 * the kernel prints its sizes.  Returns false unless it is exactly that. */
static inline __attribute__((always_inline)) bool parse_padded8(const char *s, uint64_t *ret)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x, spaces;
	memcpy(&x, s, 8);
	spaces = x ^ 0x2020202020202020ull; /* zero bytes where s has spaces */
	if (spaces == 0)
		return false;
	unsigned lead = (unsigned)__builtin_ctzll(spaces) / 8; /* leading spaces */
	if (lead) {
		uint64_t m = ~0ull >> (64 - 8 * lead);
		x = (x & ~m) | (0x3030303030303030ull & m); /* leading spaces read as '0' */
	}
	/* every byte a digit: high nibble 3, and no carry out of the low one */
	if ((x & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull ||
	    ((x + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull)
		return false;
	/* eight digits at once, most significant first in memory */
	x = (x & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
	x = (x & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
	*ret = (x & 0x0000ffff0000ffffull) * 42949672960001ull >> 32;
	return true;
#else
	uint64_t v = 0;
	int i = 0;
	while (i < 8 && s[i] == ' ')
		i++;
	if (i == 8)
		return false;
	for (; i < 8; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*ret = v;
	return true;
#endif
}

/* The fastest path: a run of field lines in the kernel's own layout, the
 * name padded to 16 columns, the number right-aligned in 8, " kB\n"
 * (fs/proc/task_mmu.c, SEQ_PUT_DEC), each the field after the previous
 * one.  State stays in registers for the whole run.  Returns where the run
 * stopped (s itself when it did not start). */
static const char *fast_block(struct smaps_parser *p, const char *s, const char *end)
{
	struct region *r = &p->regions[p->n_regions - 1];
	const int8_t *next = p->next_field;
	uint32_t present = r->present, kb_nl;
	int hint = p->field_hint;
	uint64_t lines = 0;

	memcpy(&kb_nl, " kB\n", 4);
	while (end - s >= 28) {
		int f = next[hint + 1];
		uint64_t w0, w1, kb;
		uint32_t tail;
		if (f < 0)
			break;
		memcpy(&w0, s, 8);
		memcpy(&w1, s + 8, 8);
		memcpy(&tail, s + 24, 4);
		if (w0 != p->field_padded[f][0] || w1 != p->field_padded[f][1] || tail != kb_nl ||
		    ((present >> f) & 1u) || !parse_padded8(s + 16, &kb))
			break;
		/* anything to complain about is left to the general path */
		if (f == SMAPS_SIZE ? kb * 1024 != region_size(r) : kb > REGION_FIELD_KB_MAX)
			break;
		present |= 1u << f;
		region_set_kb(r, (enum smaps_field)f, kb);
		hint = f;
		s += 28;
		lines++;
	}
	r->present = present;
	p->field_hint = hint;
	p->line += lines;
	return s;
}

/* The fast path, for the lines the kernel prints for every region:
 * "Name:", spaces, a number, " kB\n", with Name the field after the previous
 * one.  Two masked word compares find the name, no line scan is needed, and
 * anything unexpected (an unknown field, another order, a short buffer, a
 * repeated field) returns NULL and takes the general path.  Needs at least
 * 16 readable bytes at s.  Returns the start of the next line. */
static const char *fast_field(struct smaps_parser *p, const char *s, const char *end)
{
	int f = p->next_field[p->field_hint + 1];
	uint64_t w[2];
	uint64_t kb = 0;
	const char *q;
	size_t digits = 0;

	if (f < 0)
		return NULL;
	memcpy(w, s, 16);
	/* the kernel's layout: the name padded to 16 columns, the number
	 * right-aligned in 8, " kB\n" (fs/proc/task_mmu.c, SEQ_PUT_DEC) */
	if (end - s >= 28 && w[0] == p->field_padded[f][0] && w[1] == p->field_padded[f][1] &&
	    memcmp(s + 24, " kB\n", 4) == 0 && parse_padded8(s + 16, &kb)) {
		q = s + 24;
		goto found;
	}
	if (((w[0] & p->field_mask[f][0]) != p->field_word[f][0]) ||
	    ((w[1] & p->field_mask[f][1]) != p->field_word[f][1]))
		return NULL;
	q = skip_spaces(s + p->field_len[f], end);
	for (; q < end && is_digit(*q) && digits < 19; q++, digits++)
		kb = kb * 10 + (uint64_t)(*q - '0');
	if (digits == 0 || end - q < 4 || memcmp(q, " kB\n", 4) != 0)
		return NULL;
found:;
	struct region *r = &p->regions[p->n_regions - 1];
	if ((r->present & (1u << f)) || (f == SMAPS_SIZE ? kb * 1024 != region_size(r) : kb > REGION_FIELD_KB_MAX))
		return NULL;
	r->present |= 1u << f;
	region_set_kb(r, (enum smaps_field)f, kb);
	p->field_hint = f;
	return q + 4;
}

/* The fast path for the last lines of a region: "THPeligible:" and
 * "ProtectionKey:" (a padded number, no unit) and "VmFlags:".  Returns the
 * start of the next line, or NULL for the general path. */
static const char *fast_trailer(struct smaps_parser *p, const char *s, const char *end)
{
	struct region *r = &p->regions[p->n_regions - 1];
	uint64_t v;

	if (end - s >= 25 && s[24] == '\n' && parse_padded8(s + 16, &v) && v <= INT32_MAX) {
		if (memcmp(s, "THPeligible:    ", 16) == 0) {
			r->thp_eligible = (int32_t)v;
			return s + 25;
		}
		if (memcmp(s, "ProtectionKey:  ", 16) == 0) {
			r->protection_key = (int32_t)v;
			return s + 25;
		}
	}
	if (end - s >= 9 && memcmp(s, "VmFlags: ", 9) == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl || nl - s > 512)
			return NULL;
		for (const char *q = s + 8; q < nl; q += 3) {
			if (nl - q < 3 || q[0] != ' ') {
				if (nl - q == 1 && q[0] == ' ') /* the kernel's trailing space */
					break;
				return NULL;
			}
			int f = vmflag_from_code(q + 1);
			if (f >= 0)
				r->vmflags |= 1ull << f;
			else if (q[1] < 'a' || q[1] > 'z' || q[2] < 'a' || q[2] > 'z')
				return NULL;
		}
		return nl + 1;
	}
	return NULL;
}

int smaps_parse_line(struct smaps_parser *p, const char *line, size_t len)
{
	const char *end = line + len;

	if (p->error)
		return p->error;
	p->line++;
	if (len > RW_SMAPS_LINE_MAX)
		return fail(p, -EBADMSG, "longer than %u bytes", RW_SMAPS_LINE_MAX);
	if (len > 0 && end[-1] == '\r') /* a file saved with CRLF line ends */
		end--;
	if (end == line)
		return 0; /* blank lines: tolerated in saved files */
	if (is_hex(line[0]))
		return parse_header(p, line, end);
	return parse_field(p, line, end);
}

static int carry_append(struct smaps_parser *p, const char *data, size_t len)
{
	if (p->carry_len + len > RW_SMAPS_LINE_MAX + 1) {
		p->line++;
		return fail(p, -EBADMSG, "longer than %u bytes", RW_SMAPS_LINE_MAX);
	}
	if (p->carry_len + len > p->carry_allocated) {
		size_t want = (p->carry_len + len) * 2;
		char *c = realloc(p->carry, want);
		if (!c)
			return fail(p, -ENOMEM, "out of memory");
		p->carry = c;
		p->carry_allocated = want;
	}
	memcpy(p->carry + p->carry_len, data, len);
	p->carry_len += len;
	return 0;
}

int smaps_parser_feed(struct smaps_parser *p, const char *data, size_t len)
{
	const char *s = data, *end = data + len;
	int r;

	if (p->error)
		return p->error;
	p->bytes += len;

	if (p->carry_len > 0) {
		const char *nl = memchr(s, '\n', len);
		if (!nl)
			return carry_append(p, s, len);
		r = carry_append(p, s, (size_t)(nl - s));
		if (r < 0)
			return r;
		r = smaps_parse_line(p, p->carry, p->carry_len);
		p->carry_len = 0;
		if (r < 0)
			return r;
		s = nl + 1;
	}
	while (s < end) {
		if (p->n_regions > 0 && end - s >= 16) {
			s = fast_block(p, s, end);
			if (end - s < 16)
				continue;
			const char *next = fast_field(p, s, end);
			if (!next)
				next = fast_trailer(p, s, end);
			if (next) {
				p->line++;
				s = next;
				continue;
			}
		}
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			return carry_append(p, s, (size_t)(end - s));
		r = smaps_parse_line(p, s, (size_t)(nl - s));
		if (r < 0)
			return r;
		s = nl + 1;
	}
	return 0;
}

int smaps_parser_finish(struct smaps_parser *p)
{
	int r;

	if (p->error)
		return p->error;
	if (p->carry_len > 0) {
		r = smaps_parse_line(p, p->carry, p->carry_len);
		p->carry_len = 0;
		if (r < 0)
			return r;
	}
	return 0;
}
