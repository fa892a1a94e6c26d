/* The smaps parser.
 *
 * Workload: the text of /proc/PID/smaps, about 25 lines and 700 bytes per
 * region, from a handful of regions to tens of thousands; the kernel needs
 * about 1.1 us to print a region, and parsing it must cost a small fraction
 * of that.  So lines are parsed in place with hand-written scanning (no
 * scanf, no copies but the path), paths are interned, and the lines in the
 * kernel's own layout take the fast paths of smaps-fast.c; this file is the
 * general path, which accepts any spacing and explains every error.
 *
 * Input is untrusted (saved files from bug reports, fuzzing): every line is
 * bounded, every number checked for overflow, and anything that is neither a
 * region header nor a field line is an error naming the line. */
#include "smaps-internal.h"

#include <errno.h>
#include <stddef.h>
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
		p->field_count[f] = (int8_t)region_count_of_field((enum smaps_field)f);
	}
	p->next_field[_SMAPS_FIELD_MAX] = -1;
	return 0;
}

void smaps_parser_done(struct smaps_parser *p)
{
	regions_free(p->regions);
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

/* One more than the value of a lowercase hexadecimal digit, 0 for any other
 * byte (the kernel prints lowercase only). */
static const uint8_t hex_value[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* Scans hexadecimal digits at *s (stopping before end); returns the number
 * of digits, 0 if none, and more than 16 when the number does not fit in 64
 * bits (then *ret is not set). */
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
	if (n <= 16)
		*ret = v;
	return n;
}

static bool hex_ok(size_t n)
{
	return n > 0 && n <= 16;
}

static size_t scan_dec(const char *s, const char *end, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0;
	for (; s + n < end && smaps_is_digit(s[n]); n++) {
		unsigned d = (unsigned)(s[n] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*ret = v;
	return n;
}

/* "7f00c0000000-7f00c0021000 rw-p 00000000 00:00 0          [anon:name]"
 * The region is built in place in the next free slot and counted only once
 * the whole line is good.  Returns 0, a negative errno, or 1 when the line
 * does not start like a header (hex digits and '-'): not one at all. */
static int parse_header(struct smaps_parser *p, const char *s, const char *end)
{
	static const struct region empty = { .thp_eligible = -1, .protection_key = -1 };
	uint64_t start = 0, major, minor;
	size_t n;
	int r;

	n = scan_hex(s, end, &start);
	if (n == 0 || s + n >= end || s[n] != '-')
		return 1;
	if (!hex_ok(n))
		return fail(p, -EBADMSG, "malformed region header: bad start address");
	s += n + 1;
	if (p->n_regions >= p->max_regions)
		return fail(p, -E2BIG, "more than %zu regions", p->max_regions);
	if (p->n_regions == p->allocated &&
	    (r = regions_grow(&p->regions, p->n_regions, &p->allocated, p->max_regions)) < 0)
		return fail(p, r, r == -ENOMEM ? "out of memory" : "more than %zu regions", p->max_regions);
	struct region *reg = &p->regions[p->n_regions];
	*reg = empty;
	reg->start = start;
	if (!hex_ok(n = scan_hex(s, end, &reg->end)) || (s += n) >= end || *s++ != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad end address");
	if (reg->end <= reg->start)
		return fail(p, -EBADMSG, "malformed region header: end address not above start");
	if (end - s < 5 || s[4] != ' ' || (s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's'))
		return fail(p, -EBADMSG, "malformed region header: bad permissions");
	memcpy(reg->perms, s, 4);
	s += 5;
	/* anonymous memory, most regions of a large process: no offset,
	 * device nor inode to scan */
	if (end - s >= 16 && memcmp(s, "00000000 00:00 0", 16) == 0 && (end - s == 16 || s[16] == ' ')) {
		s += 16;
		goto path;
	}
	if (!hex_ok(n = scan_hex(s, end, &reg->offset)) || (s += n) >= end || *s++ != ' ')
		return fail(p, -EBADMSG, "malformed region header: bad offset");
	if (!hex_ok(n = scan_hex(s, end, &major)) || (s += n) >= end || *s++ != ':' || major > UINT32_MAX)
		return fail(p, -EBADMSG, "malformed region header: bad device");
	if (!hex_ok(n = scan_hex(s, end, &minor)) || minor > UINT32_MAX)
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
path:
	s = smaps_skip_spaces(s, end);
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
		s = smaps_skip_spaces(s, end);
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

static int parse_int_field(struct smaps_parser *p, const char *name, const char *s, const char *end, int8_t *ret)
{
	uint64_t v;
	size_t n;
	bool negative = false;

	s = smaps_skip_spaces(s, end);
	if (s < end && *s == '-') {
		negative = true;
		s++;
	}
	if (!(n = scan_dec(s, end, &v)) || smaps_skip_spaces(s + n, end) != end)
		return fail(p, -EBADMSG, "%s: not a number", name);
	if (v > INT8_MAX)
		return fail(p, -EBADMSG, "%s: %llu is out of range", name, (unsigned long long)v);
	*ret = negative ? -(int8_t)v : (int8_t)v;
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
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || smaps_is_digit(c) || c == '_'))
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

	const char *v = smaps_skip_spaces(colon + 1, end);
	uint64_t kb;
	size_t n = scan_dec(v, end, &kb);
	if (!n)
		return fail(p, -EBADMSG, "%s: not a number", smaps_field_kernel_name((enum smaps_field)f));
	v = smaps_skip_spaces(v + n, end);
	if (end - v < 2 || v[0] != 'k' || v[1] != 'B' || smaps_skip_spaces(v + 2, end) != end)
		return fail(p, -EBADMSG, "%s: expected a size in kB", smaps_field_kernel_name((enum smaps_field)f));
	if (r->present & (1u << f))
		return fail(p, -EBADMSG, "%s: repeated in one region", smaps_field_kernel_name((enum smaps_field)f));
	if (!smaps_value_ok(p, r, f, kb)) {
		if (f == SMAPS_SIZE)
			return fail(p, -EBADMSG, "Size %llu kB does not match the region's %llu kB", (unsigned long long)kb,
				    (unsigned long long)(region_size(r) / 1024));
		return fail(p, -EBADMSG, "%s: %llu kB is more than this version keeps (1 PiB)",
			    smaps_field_kernel_name((enum smaps_field)f), (unsigned long long)kb);
	}
	smaps_store(p, r, f, kb);
	return 0;
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
	/* a header starts with hex digits and a '-'; anything else is a field */
	if (smaps_is_hex(line[0])) {
		int r = parse_header(p, line, end);
		if (r <= 0)
			return r;
	}
	return parse_field(p, line, end);
}

static int carry_append(struct smaps_parser *p, const char *data, size_t len)
{
	if (len == 0)
		return 0;
	/* Text holds no NUL byte: a line cut by the chunk's end that has one
	 * (a sparse file, a device: NULs without a newline) is refused now,
	 * rather than carried to RW_SMAPS_LINE_MAX. */
	if (memchr(data, '\0', len)) {
		p->line++;
		return fail(p, -EBADMSG, "binary data (NUL byte)");
	}
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
		/* field names start with a capital; headers with a hex digit */
		if (p->n_regions > 0 && end - s >= 16 && !smaps_is_hex(*s)) {
			const char *next = smaps_fast_lines(p, s, end);
			if (next != s) {
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
