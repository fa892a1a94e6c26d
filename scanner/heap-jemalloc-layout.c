/* jemalloc's layouts and size classes (heap-jemalloc.h): the table of
 * the versions whose structures the walker reads, and the pure parts that
 * tell a version and a build's size classes. */
#include "heap-jemalloc.h"

#include <errno.h>
#include <string.h>

#include "macro.h"

static const struct jemalloc_layout layouts[] = {
	{
		/* 5.3.0: Debian 12, Fedora 38 to 42, redis 7's bundled copy */
		.major = 5, .minor = 3, .bugfix = 0,
		.lg_page = 12, .lg_vaddr = 48,
		.root_bits = 18, .leaf_bits = 18, .leaf_align = 64,
		.leaf_state_shift = 2, .leaf_state_width = 3,
		.edata_size = 128, .edata_align = 128,
		.off_bits = 0, .off_addr = 8, .off_size = 16, .off_bitmap = 64,
		.bitmap_bits = 512,
		/* e_bits: arena 0-11, slab 12, committed 13, pai 14, zeroed 15,
		 * guarded 16, state 17-19, szind 20-27, nfree 28-37 */
		.slab_shift = 12, .pai_shift = 14, .state_shift = 17, .state_width = 3,
		.szind_shift = 20, .szind_width = 8, .nfree_shift = 28, .nfree_width = 10,
		/* 16 bytes is the default on x86-64; redis builds its own with 8 */
		.lg_quanta = { 4, 3 },
	},
};

const struct jemalloc_layout *jemalloc_layout_of(const struct jemalloc_version *v)
{
	for (size_t i = 0; i < ELEMENTSOF(layouts); i++)
		if (layouts[i].major == v->major && layouts[i].minor == v->minor && layouts[i].bugfix == v->bugfix)
			return &layouts[i];
	return NULL;
}

static bool is_hex(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Parses "MAJOR.MINOR.BUGFIX-N-gHEX" ending at a NUL at s[len].  Returns
 * whether it is one. */
static bool parse_version(const uint8_t *s, size_t len, struct jemalloc_version *ret)
{
	unsigned v[4] = { 0 }, k = 0;
	size_t i = 0;
	static const char seps[] = ".." "-" "-";

	for (k = 0; k < 4; k++) {
		size_t digits = 0;
		while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 6)
			v[k] = v[k] * 10 + (unsigned)(s[i++] - '0'), digits++;
		if (digits == 0 || i >= len || s[i] != (uint8_t)seps[k])
			return false;
		i++;
	}
	if (i >= len || s[i] != 'g')
		return false;
	size_t hex = len - i - 1;
	if (hex < 1 || hex > 40)
		return false;
	for (size_t j = i + 1; j < len; j++)
		if (!is_hex(s[j]))
			return false;
	ret->major = v[0];
	ret->minor = v[1];
	ret->bugfix = v[2];
	size_t n = len < sizeof(ret->text) - 1 ? len : sizeof(ret->text) - 1;
	memcpy(ret->text, s, n);
	ret->text[n] = '\0';
	return true;
}

int jemalloc_version_find(const uint8_t *b, size_t len, struct jemalloc_version *ret)
{
	/* "-g" then hex digits then NUL: look for each "-g" */
	for (const uint8_t *p = b; len >= 2 && (p = memmem(p, len - (size_t)(p - b), "-g", 2));) {
		size_t at = (size_t)(p - b);
		size_t end = at + 2;
		while (end < len && end - at - 2 <= 40 && is_hex(b[end]))
			end++;
		if (end < len && b[end] == 0 && end > at + 2) {
			/* the string's start: after the NUL before it, at most 64 back */
			size_t start = at;
			while (start > 0 && b[start - 1] != 0 && at - start < 64)
				start--;
			if ((start == 0 || b[start - 1] == 0) && parse_version(b + start, end - start, ret))
				return 1;
		}
		p += 2;
		if ((size_t)(p - b) >= len)
			break;
	}
	return 0;
}

int jemalloc_size_classes(unsigned lg_quantum, unsigned lg_page, struct jemalloc_classes *ret)
{
	const unsigned lg_tiny_min = 3, lg_ngroup = 2, ptr_bits = 64;
	unsigned n = 0;

	if (lg_quantum < 3 || lg_quantum > 4 || lg_page < 12 || lg_page > 16)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	ret->lg_quantum = lg_quantum;
	ret->lg_page = lg_page;
	/* tiny classes below the quantum: 8 with a 16-byte quantum */
	for (unsigned lg = lg_tiny_min; lg < lg_quantum; lg++)
		ret->size[n++] = 1ull << lg;
	/* the first group: multiples of the quantum up to four of them */
	for (unsigned k = 0; k < 4; k++)
		ret->size[n++] = (1ull << lg_quantum) + ((uint64_t)k << lg_quantum);
	/* then four classes in each doubling, to 2^62 + 3 * 2^60 */
	for (unsigned lg_base = lg_quantum + lg_ngroup; lg_base < ptr_bits - 1; lg_base++)
		for (unsigned k = 1; k <= (lg_base == ptr_bits - 2 ? 3u : 4u); k++) {
			if (n == JEMALLOC_CLASSES_MAX)
				return -EINVAL;
			ret->size[n++] = (1ull << lg_base) + ((uint64_t)k << (lg_base - lg_ngroup));
		}
	ret->n = n;
	/* small classes: below four pages' worth of the group, from slabs
	 * of the fewest pages that hold a whole number of regions */
	for (unsigned i = 0; i < n && ret->size[i] < (1ull << (lg_page + lg_ngroup)); i++) {
		if (i == JEMALLOC_BINS_MAX)
			return -EINVAL;
		uint32_t pages = 1;
		while (((uint64_t)pages << lg_page) % ret->size[i])
			pages++;
		ret->slab_pages[i] = pages;
		ret->nbins = i + 1;
	}
	return 0;
}

