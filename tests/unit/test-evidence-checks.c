/* Evidence: the checks of each allocator's structure (glibc's chunks and
 * heaps, pymalloc's pools, jemalloc's base, mimalloc's segments, tcmalloc's
 * spans) on headers whose bytes are known.  The pass over whole images is
 * in test-evidence.c. */
#include "testlib.h"

#include "evidence-internal.h"
#include "evidence.h"
#include "util.h"

#include "evidence-testlib.h"

#define PAGE 4096ull

static void test_glibc_chunk(void **state)
{
	(void)state;
	uint8_t b[16] = { 0 };
	const uint64_t a = 0x7f0000000000;

	put_u64(b, 8, 0x101000 | 2);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x101000), 0x101000);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0x101000);
	/* longer than what is left of the region */
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x100000), 0);
	/* not at a page start, too short a read */
	assert_int_equal(evidence_glibc_chunk(b, 16, a + 16, a + 0x200000), 0);
	assert_int_equal(evidence_glibc_chunk(b, 8, a, a + 0x200000), 0);
	/* PREV_INUSE or NON_MAIN_ARENA set: a chunk inside a heap, not a mapping */
	put_u64(b, 8, 0x101000 | 3);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0);
	put_u64(b, 8, 0x101000 | 6);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0);
	/* a size that is no multiple of the page */
	put_u64(b, 8, 0x100ff0 | 2);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0);
	/* prev_size set: what _int_memalign writes inside, not at the mapping's start */
	put_u64(b, 0, 0x30);
	put_u64(b, 8, 0x101000 | 2);
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0);
	/* zeros, as an untouched page or a zeroed buffer reads */
	memset(b, 0, sizeof(b));
	assert_int_equal(evidence_glibc_chunk(b, 16, a, a + 0x200000), 0);
}

static void test_glibc_heap_info(void **state)
{
	(void)state;
	uint8_t b[48] = { 0 };
	const uint64_t a = 0x7f0004000000; /* 64 MiB-aligned */

	put_u64(b, 0, a + 0x30);     /* ar_ptr: the arena right after the header */
	put_u64(b, 8, 0);            /* prev: the arena's first heap */
	put_u64(b, 16, 0x205000);    /* size */
	put_u64(b, 24, 0x205000);    /* mprotect_size */
	put_u64(b, 32, 4096);        /* pagesize */
	assert_int_equal(evidence_glibc_heap_info(b, 48, a, 0x205000), 0x205000);
	/* the read-write part the kernel shows must be what was mprotected */
	assert_int_equal(evidence_glibc_heap_info(b, 48, a, 0x206000), 0);
	/* not 64 MiB-aligned */
	assert_int_equal(evidence_glibc_heap_info(b, 48, a + 0x100000, 0x205000), 0);
	/* a later heap: prev set, ar_ptr elsewhere */
	put_u64(b, 0, 0x7f0000000030);
	put_u64(b, 8, 0x7f0000000000);
	assert_int_equal(evidence_glibc_heap_info(b, 48, a, 0x205000), 0x205000);
	/* a first heap whose arena is elsewhere is no heap */
	put_u64(b, 8, 0);
	assert_int_equal(evidence_glibc_heap_info(b, 48, a, 0x205000), 0);
	/* size past the reservation */
	put_u64(b, 0, a + 0x30);
	put_u64(b, 16, 65 * MiB);
	put_u64(b, 24, 65 * MiB);
	assert_int_equal(evidence_glibc_heap_info(b, 48, a, 65 * MiB), 0);
}


static void test_pymalloc_pool(void **state)
{
	(void)state;
	uint8_t b[64];
	uint32_t arena = 0;
	const uint64_t a = 0x7f0000004000;

	make_pool(b, a, 16 * KiB, 3, 71);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a, &arena), 16 * KiB);
	assert_int_equal(arena, 71);
	/* Python 3.8 and 3.9: 4 KiB pools */
	make_pool(b, a + PAGE, 4 * KiB, 31, 2);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a + PAGE, &arena), 4 * KiB);
	/* a 16 KiB pool's header at an address not 16 KiB-aligned */
	make_pool(b, a + PAGE, 16 * KiB, 3, 71);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a + PAGE, &arena), 0);
	/* maxnextoffset that does not match the size class */
	make_pool(b, a, 16 * KiB, 3, 71);
	put_u32(b, 44, 16 * 1024 - 80);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a, &arena), 0);
	/* nextoffset off the block grid */
	make_pool(b, a, 16 * KiB, 3, 71);
	put_u32(b, 40, 48 + 7 * 64 + 8);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a, &arena), 0);
	/* a free list outside the pool */
	make_pool(b, a, 16 * KiB, 3, 71);
	put_u64(b, 8, a + 16 * KiB);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a, &arena), 0);
	/* a size class past the last */
	make_pool(b, a, 16 * KiB, 32, 71);
	assert_int_equal(evidence_pymalloc_pool(b, 64, a, &arena), 0);
	/* too short a read */
	make_pool(b, a, 16 * KiB, 3, 71);
	assert_int_equal(evidence_pymalloc_pool(b, 40, a, &arena), 0);
}

static void test_jemalloc_base(void **state)
{
	(void)state;
	uint8_t b[40] = { 0 };
	const uint64_t a = 0x7f0000200000, size = 2 * MiB;

	put_u64(b, 0, size);
	put_u64(b, 8, 0);
	put_u64(b, 16, 0x0e80afff);
	put_u64(b, 24, a + 0xc0);
	put_u64(b, 32, size - 0xc0);
	assert_int_equal(evidence_jemalloc_base(b, 40, a, a + 4 * MiB), size);
	/* the block runs past the region */
	assert_int_equal(evidence_jemalloc_base(b, 40, a, a + MiB), 0);
	/* the unused tail must end where the block ends */
	put_u64(b, 32, size - 0x100);
	assert_int_equal(evidence_jemalloc_base(b, 40, a, a + 4 * MiB), 0);
	put_u64(b, 32, size - 0xc0);
	/* an arena index other than "none" */
	put_u64(b, 16, 0x0e80a003);
	assert_int_equal(evidence_jemalloc_base(b, 40, a, a + 4 * MiB), 0);
	put_u64(b, 16, 0x0e80afff);
	/* not 2 MiB-aligned */
	assert_int_equal(evidence_jemalloc_base(b, 40, a + PAGE, a + 4 * MiB), 0);
}

static void make_segment(uint8_t *b, uint64_t slices, uint32_t kind)
{
	memset(b, 0, 512);
	b[10] = 1;                      /* mem_is_committed */
	put_u64(b, 16, 32 * MiB);       /* mem_alignment */
	b[32] = 1;                      /* allow_decommit */
	put_u64(b, 208, 16);            /* used */
	put_u64(b, 216, 0x78d6e28609f2afdull);
	put_u64(b, 224, slices);
	put_u64(b, 232, 1);
	put_u32(b, 240, kind);
	put_u64(b, 248, slices < 512 ? slices : 512);
	put_u64(b, 256, 0x7f00deadbeef);
	put_u32(b, 264, 1);
	put_u32(b, 268, 0);
}

static void test_mimalloc_segment(void **state)
{
	(void)state;
	uint8_t b[512];
	uint64_t used = 0;
	const uint64_t a = 0x42000000000;

	make_segment(b, 512, 0);
	assert_int_equal(evidence_mimalloc_segment(b, 512, a, a + 64 * MiB, &used), 32 * MiB);
	assert_int_equal(used, 16);
	/* a thread's segment, committed in part: the region ends early */
	assert_int_equal(evidence_mimalloc_segment(b, 512, a, a + 3 * MiB, &used), 3 * MiB);
	/* a huge segment of its own size */
	make_segment(b, 385, 1);
	assert_int_equal(evidence_mimalloc_segment(b, 512, a, a + 64 * MiB, &used), 385 * 64 * KiB);
	/* a normal segment must have 512 slices */
	make_segment(b, 385, 0);
	assert_int_equal(evidence_mimalloc_segment(b, 512, a, a + 64 * MiB, &used), 0);
	/* a bool that is not one */
	make_segment(b, 512, 0);
	b[9] = 7;
	assert_int_equal(evidence_mimalloc_segment(b, 512, a, a + 64 * MiB, &used), 0);
	/* not 32 MiB-aligned, or too short a read */
	make_segment(b, 512, 0);
	assert_int_equal(evidence_mimalloc_segment(b, 512, a + 2 * MiB, a + 64 * MiB, &used), 0);
	assert_int_equal(evidence_mimalloc_segment(b, 256, a, a + 64 * MiB, &used), 0);
}

static void test_heap_starts(void **state)
{
	(void)state;
	uint8_t b[512] = { 0 };
	const uint64_t heap = 0x55ae08c00000, end = heap + 73 * MiB;

	put_u64(b, 8, 0x291);
	assert_true(evidence_glibc_tcache(b, 16));
	put_u64(b, 8, 0x251);
	assert_true(evidence_glibc_tcache(b, 16));
	put_u64(b, 8, 0x290);
	assert_false(evidence_glibc_tcache(b, 16));

	/* tcmalloc's span records at +0x60 */
	memset(b, 0, sizeof(b));
	for (int k = 0; k < 3; k++) {
		size_t at = 0x60 + (size_t)k * 48;
		put_u64(b, at, (heap >> 13) + 52 + (uint64_t)k * 9);
		put_u64(b, at + 8, 9);
		put_u64(b, at + 16, 0x7faf756555b0);
		put_u64(b, at + 24, 0x7faf756555b0);
	}
	assert_int_equal(evidence_tcmalloc_spans(b, sizeof(b), heap, end), 3);
	/* pages outside [heap]: not its spans */
	assert_int_equal(evidence_tcmalloc_spans(b, sizeof(b), heap + 80 * MiB, end + 80 * MiB), 0);
	/* glibc's heap is no tcmalloc heap */
	memset(b, 0, sizeof(b));
	put_u64(b, 8, 0x291);
	assert_int_equal(evidence_tcmalloc_spans(b, sizeof(b), heap, end), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glibc_chunk),
		cmocka_unit_test(test_glibc_heap_info),
		cmocka_unit_test(test_pymalloc_pool),
		cmocka_unit_test(test_jemalloc_base),
		cmocka_unit_test(test_mimalloc_segment),
		cmocka_unit_test(test_heap_starts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
