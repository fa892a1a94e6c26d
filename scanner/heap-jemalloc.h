/* jemalloc's heap read from outside: the pure parts of the walker
 * heap_walk_jemalloc (heap-walkers.h, heap-jemalloc.c), exported for its
 * tests and the fuzzer.
 *
 * jemalloc says which version it is in a string of its own
 * ("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c", or "5.3.0-0-g0"
 * as redis builds it); its size classes follow from two settings of the
 * build, the quantum and the page size, by the rule its sources state
 * (src/sc.c): four classes in each doubling, small classes served from
 * slabs of whole pages that hold a whole number of regions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


/* A version string found in a library's image. */
struct jemalloc_version {
	unsigned major, minor, bugfix;
	char text[64]; /* as found, cut to fit */
};

/* Finds jemalloc's version string in len bytes: a NUL-terminated
 * "MAJOR.MINOR.BUGFIX-N-gHEX" (1 to 40 hex digits) standing alone (a NUL
 * or the start before it).  Returns 1 with *ret, 0 when none is there. */
int jemalloc_version_find(const uint8_t *b, size_t len, struct jemalloc_version *ret);

/* Size classes: every class jemalloc has on a 64-bit build, and of the
 * small ones (served from slabs) the slab's pages. */
#define JEMALLOC_CLASSES_MAX 256u
#define JEMALLOC_BINS_MAX 64u
struct jemalloc_classes {
	unsigned lg_quantum, lg_page;
	unsigned n;     /* classes in all: SC_NSIZES */
	unsigned nbins; /* small classes: SC_NBINS */
	uint64_t size[JEMALLOC_CLASSES_MAX];
	uint32_t slab_pages[JEMALLOC_BINS_MAX];
};

/* The size classes of a build with 2^lg_quantum-byte quantum (3 to 4)
 * and 2^lg_page-byte pages (12 to 16).  Returns 0, or -EINVAL for
 * settings out of that range. */
int jemalloc_size_classes(unsigned lg_quantum, unsigned lg_page, struct jemalloc_classes *ret);

/* One layout of jemalloc's structures on a 64-bit build, as the sources of
 * the versions it names define them (include/jemalloc/internal/rtree.h,
 * edata.h, bitmap.h, sc.h).  The build's settings a layout depends on are
 * the page size and the address bits, which fix the map's shape; the
 * quantum, which fixes the size classes, is confirmed by the extents
 * among those the table allows. */
struct jemalloc_layout {
	unsigned major, minor, bugfix;
	unsigned lg_page;
	unsigned lg_vaddr;
	unsigned root_bits, leaf_bits; /* address bits told by the root and by a leaf */
	unsigned leaf_align;           /* a leaf's alignment (base_alloc's CACHELINE) */
	/* a leaf's word: slab bit 0, head bit 1, the state from bit 2, the
	 * extent's record in the low lg_vaddr bits (aligned to
	 * edata_align), the size class above them */
	unsigned leaf_state_shift, leaf_state_width;
	/* edata_t */
	unsigned edata_size, edata_align;
	unsigned off_bits, off_addr, off_size, off_bitmap;
	unsigned bitmap_bits;
	unsigned slab_shift, pai_shift, state_shift, state_width;
	unsigned szind_shift, szind_width, nfree_shift, nfree_width;
	unsigned lg_quanta[2]; /* quanta builds use, in the order tried */
};

/* An extent's state (extent_state_t); from JEMALLOC_TRANSITION on, one
 * being changed. */
enum {
	JEMALLOC_ACTIVE,
	JEMALLOC_DIRTY,
	JEMALLOC_MUZZY,
	JEMALLOC_RETAINED,
	JEMALLOC_TRANSITION,
	JEMALLOC_MERGING,
};

/* The layout of a version, or NULL when none is known. */
const struct jemalloc_layout *jemalloc_layout_of(const struct jemalloc_version *v);
