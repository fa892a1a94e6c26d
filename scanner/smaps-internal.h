/* What the smaps parser's two halves share: the general path (smaps.c) and
 * the fast paths for the kernel's own layout (smaps-fast.c).  Not for use
 * outside the parser. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "smaps.h"

static inline bool smaps_is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static inline bool smaps_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *smaps_skip_spaces(const char *s, const char *end)
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

/* Whether a field value (in kB) can be stored: Size must match the region,
 * kept counts fit in 40 bits.  The fast paths leave what fails this to the
 * general path, which says what is wrong. */
static inline bool smaps_value_ok(const struct smaps_parser *p, const struct region *r, int f, uint64_t kb)
{
	if (f == SMAPS_SIZE)
		return kb <= UINT64_MAX / 1024 && kb * 1024 == region_size(r);
	return p->field_count[f] < 0 || kb <= REGION_FIELD_KB_MAX;
}

/* Stores a checked field value in the current region. */
static inline void smaps_store(const struct smaps_parser *p, struct region *r, int f, uint64_t kb)
{
	r->present |= 1u << f;
	if (p->field_count[f] >= 0)
		region_set_kb(r, (enum region_count)p->field_count[f], kb);
}

/* Parses the lines at s the fast way while they are in the kernel's own
 * layout (smaps-fast.c).  Returns where it stopped: s itself when the first
 * line needs the general path. */
const char *smaps_fast_lines(struct smaps_parser *p, const char *s, const char *end);
