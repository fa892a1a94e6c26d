/* The smaps parser's fast paths.
 *
 * The kernel prints every field line of a region the same way: the name
 * padded to 16 columns, the number right-aligned in 8, " kB\n" — 28 bytes
 * (fs/proc/task_mmu.c, SEQ_PUT_DEC) — in a fixed order.  These paths check
 * a line with three word compares, read its number eight digits at a time,
 * and expect the field after the previous one (the order is learnt from the
 * input, so a kernel that adds or moves a field only costs the first region
 * the general path).  Anything unexpected returns to the general path,
 * which accepts more and explains errors; both give the same regions. */
#include "smaps-internal.h"



#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Checks the 8 bytes at s: a number right-aligned with leading spaces, as
 * the kernel prints its sizes.  Returns false unless it is exactly that;
 * else *ret holds the digits, leading spaces read as '0', for
 * padded8_value.  Checking is cheap; the value costs three multiplies and is
 * only computed for the fields that are kept. */
static inline __attribute__((always_inline)) bool padded8_check(const char *s, uint64_t *ret)
{
	uint64_t x, spaces;
	memcpy(&x, s, 8);
	spaces = x ^ 0x2020202020202020ull; /* zero bytes where s has spaces */
	if (spaces == 0)
		return false;
	unsigned lead = (unsigned)__builtin_ctzll(spaces) / 8;
	if (lead) {
		uint64_t m = ~0ull >> (64 - 8 * lead);
		x = (x & ~m) | (0x3030303030303030ull & m);
	}
	/* every byte a digit: high nibble 3, and no carry out of the low one */
	if ((x & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull ||
	    ((x + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) != 0x3030303030303030ull)
		return false;
	*ret = x;
	return true;
}

/* Eight checked digits at once, the most significant first in memory. */
static inline uint64_t padded8_value(uint64_t x)
{
	x = (x & 0x0f0f0f0f0f0f0f0full) * 2561 >> 8;
	x = (x & 0x00ff00ff00ff00ffull) * 6553601 >> 16;
	return (x & 0x0000ffff0000ffffull) * 42949672960001ull >> 32;
}
#else
static inline bool padded8_check(const char *s, uint64_t *ret)
{
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
}

static inline uint64_t padded8_value(uint64_t x)
{
	return x;
}
#endif

static inline bool parse_padded8(const char *s, uint64_t *ret)
{
	uint64_t x;
	if (!padded8_check(s, &x))
		return false;
	*ret = padded8_value(x);
	return true;
}

/* A run of field lines in the kernel's layout, each the field after the
 * previous one; the state stays in registers for the whole run.  Returns
 * where the run stopped.  (Eight digits of kB never exceed the 40 bits a
 * count keeps: only Size needs a check, against the region's size.) */
static const char *kernel_layout_run(struct smaps_parser *p, struct region *r, const char *s, const char *end)
{
	const char *start = s;
	uint32_t present = r->present, kb_nl;
	uint64_t zero;
	int hint = p->field_hint;

	memcpy(&kb_nl, " kB\n", 4);
	memcpy(&zero, "       0", 8);
	while (end - s >= 28) {
		int f = p->next_field[hint + 1];
		uint64_t w0, w1, digits;
		uint32_t tail;
		if (f < 0)
			break;
		memcpy(&w0, s, 8);
		memcpy(&w1, s + 8, 8);
		memcpy(&tail, s + 24, 4);
		if (w0 != p->field_padded[f][0] || w1 != p->field_padded[f][1] || tail != kb_nl || ((present >> f) & 1u))
			break;
		int c = p->field_count[f];
		memcpy(&digits, s + 16, 8);
		if (digits == zero && f != SMAPS_SIZE) {
			/* most counts of most regions: the fields start at 0 */
		} else if (!padded8_check(s + 16, &digits)) {
			break;
		} else if (c >= 0) {
			region_set_kb(r, (enum region_count)c, padded8_value(digits));
		} else if (f == SMAPS_SIZE && padded8_value(digits) * 1024 != region_size(r)) {
			break;
		}
		present |= 1u << f;
		hint = f;
		s += 28;
	}
	r->present = present;
	p->field_hint = hint;
	p->line += (uint64_t)(s - start) / 28;
	return s;
}

/* One field line of the expected field in another spacing ("Rss: 4 kB"). */
static const char *spaced_field(struct smaps_parser *p, struct region *r, const char *s, const char *end)
{
	int f = p->next_field[p->field_hint + 1];
	uint64_t w[2], kb = 0;
	size_t digits = 0;
	const char *q;

	if (f < 0 || end - s < 16)
		return NULL;
	memcpy(w, s, 16);
	if ((w[0] & p->field_mask[f][0]) != p->field_word[f][0] || (w[1] & p->field_mask[f][1]) != p->field_word[f][1])
		return NULL;
	q = smaps_skip_spaces(s + p->field_len[f], end);
	for (; q < end && smaps_is_digit(*q) && digits < 19; q++, digits++)
		kb = kb * 10 + (uint64_t)(*q - '0');
	if (digits == 0 || end - q < 4 || memcmp(q, " kB\n", 4) != 0 || ((r->present >> f) & 1u) ||
	    !smaps_value_ok(p, r, f, kb))
		return NULL;
	smaps_store(p, r, f, kb);
	p->field_hint = f;
	p->line++;
	return q + 4;
}

/* The last lines of a region: "THPeligible:" and "ProtectionKey:" (a
 * padded number, no unit) and "VmFlags:". */
static const char *trailer(struct smaps_parser *p, struct region *r, const char *s, const char *end)
{
	uint64_t v;

	if (end - s >= 25 && s[24] == '\n' && parse_padded8(s + 16, &v) && v <= INT8_MAX) {
		if (memcmp(s, "THPeligible:    ", 16) == 0) {
			r->thp_eligible = (int8_t)v;
			p->line++;
			return s + 25;
		}
		if (memcmp(s, "ProtectionKey:  ", 16) == 0) {
			r->protection_key = (int8_t)v;
			p->line++;
			return s + 25;
		}
	}
	if (end - s >= 9 && memcmp(s, "VmFlags: ", 9) == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		uint64_t flags = 0;
		if (!nl || nl - s > 512)
			return NULL;
		for (const char *q = s + 8; q < nl; q += 3) {
			if (nl - q == 1 && q[0] == ' ')
				break; /* the kernel's trailing space */
			if (nl - q < 3 || q[0] != ' ' || q[1] < 'a' || q[1] > 'z' || q[2] < 'a' || q[2] > 'z')
				return NULL;
			int f = vmflag_from_code(q + 1);
			if (f >= 0)
				flags |= 1ull << f;
		}
		r->vmflags |= flags;
		p->line++;
		return nl + 1;
	}
	return NULL;
}

const char *smaps_fast_lines(struct smaps_parser *p, const char *s, const char *end)
{
	struct region *r = &p->regions[p->n_regions - 1];

	for (;;) {
		const char *next = kernel_layout_run(p, r, s, end);
		if (next == s && !(next = spaced_field(p, r, s, end)) && !(next = trailer(p, r, s, end)))
			return s;
		s = next;
		if (end - s < 16 || smaps_is_hex(*s))
			return s; /* near the end of the chunk, or the next header */
	}
}
