/* The structures allocators write at the start of what they hand out,
 * checked from the bytes read at an address.  Pure: bytes in, a verdict
 * out.  Each check accepts only what the allocator itself writes, with
 * every field that has a fixed relation to the others tested, so that
 * arbitrary data (a bytearray full of numbers) is not taken for one.
 *
 * Layouts are those of 64-bit Linux (x86-64, aarch64), little-endian. */
#include "evidence.h"
#include "evidence-internal.h"

#include <string.h>

#include "bytes.h"
#include "units.h"

#define PAGE (4 * KiB)

/* glibc malloc/malloc.c, sysmalloc_mmap (2.26 to 2.40, as Debian and
 * Fedora ship them): a chunk served by mmap starts its mapping with
 * prev_size 0 and size = the mapping's length (a multiple of the page
 * size, header included) | IS_MMAPPED (2); PREV_INUSE and NON_MAIN_ARENA
 * are never set on it.  _int_memalign moves the user's chunk up inside
 * the mapping and writes a second header there, leaving the first as it
 * was, so an aligned block (posix_memalign) is walked the same way.  With
 * glibc.malloc.hugetlb the length is a multiple of the huge page size,
 * which is a multiple of the page size too. */
uint64_t evidence_glibc_chunk(const uint8_t *b, size_t len, uint64_t addr, uint64_t end)
{
	if (len < 16 || (addr & (PAGE - 1)) || addr >= end)
		return 0;
	uint64_t prev_size = bytes_u64(b, 0), size = bytes_u64(b, 8);
	if (prev_size != 0 || (size & (PAGE - 1)) != 2)
		return 0;
	size &= ~(uint64_t)7;
	if (size < PAGE || size > end - addr)
		return 0;
	return size;
}

/* glibc malloc/arena.c: every heap of a non-main arena is a 64 MiB-aligned
 * reservation starting with heap_info { ar_ptr, prev, size, mprotect_size,
 * pagesize (2.35+) }: size bytes in use, mprotect_size of them made
 * read-write (the rest of the reservation is PROT_NONE), prev the arena's
 * previous heap (NULL for its first, whose malloc_state follows the
 * header).  shrink_heap may lower size below what stays read-write. */
uint64_t evidence_glibc_heap_info(const uint8_t *b, size_t len, uint64_t addr, uint64_t rw_len)
{
	const uint64_t heap_max = 64 * MiB;

	if (len < 32 || (addr & (heap_max - 1)))
		return 0;
	uint64_t ar_ptr = bytes_u64(b, 0), prev = bytes_u64(b, 8), size = bytes_u64(b, 16), mprotect = bytes_u64(b, 24);
	if (ar_ptr == 0 || (ar_ptr & 7) || (prev & (heap_max - 1)) || prev == addr)
		return 0;
	if (size == 0 || size > heap_max || (size & (PAGE - 1)) || mprotect < size || mprotect > heap_max ||
	    (mprotect & (PAGE - 1)))
		return 0;
	/* the read-write part the kernel shows is what was mprotected */
	if (rw_len != mprotect)
		return 0;
	/* the first heap holds its arena right after the header */
	if (prev == 0 && (ar_ptr <= addr || ar_ptr >= addr + 4 * KiB))
		return 0;
	return size;
}

/* CPython Objects/obmalloc.c (3.8 to 3.13, 64-bit, ALIGNMENT 16): a pool
 * starts with pool_header { ref.count, freeblock, nextpool, prevpool,
 * arenaindex, szidx, nextoffset, maxnextoffset } (48 bytes).  The size
 * class fixes two fields: blocks are (szidx + 1) * 16 bytes, maxnextoffset
 * is the pool size less one block, and nextoffset steps by whole blocks
 * from the header's end.  Pools are 4 KiB before 3.10 and 16 KiB since
 * (with the radix tree, on 64-bit), always aligned to their size. */
uint64_t evidence_pymalloc_pool(const uint8_t *b, size_t len, uint64_t addr, uint32_t *arena)
{
	static const uint64_t pool_sizes[] = { 16 * KiB, 4 * KiB };
	const uint32_t overhead = 48, classes = 32;

	if (len < 48)
		return 0;
	uint32_t count = bytes_u32(b, 0), arenaindex = bytes_u32(b, 32), szidx = bytes_u32(b, 36);
	uint32_t nextoffset = bytes_u32(b, 40), maxnextoffset = bytes_u32(b, 44);
	uint64_t freeblock = bytes_u64(b, 8);
	if (szidx >= classes || arenaindex >= (1u << 24))
		return 0;
	uint32_t size = (szidx + 1) * 16;
	for (size_t i = 0; i < sizeof(pool_sizes) / sizeof(pool_sizes[0]); i++) {
		uint64_t pool = pool_sizes[i];
		if ((addr & (pool - 1)) || maxnextoffset != pool - size)
			continue;
		if (nextoffset < overhead || nextoffset > maxnextoffset + size || (nextoffset - overhead) % size)
			return 0;
		if (count > (pool - overhead) / size)
			return 0;
		if (freeblock && (freeblock < addr + overhead || freeblock >= addr + pool))
			return 0;
		*arena = arenaindex;
		return pool;
	}
	return 0;
}

/* glibc malloc/malloc.c, tcache_init: the first chunk of the main arena
 * (the start of [heap]) holds the thread cache of the first thread that
 * called malloc: prev_size 0, size 0x290 | PREV_INUSE (glibc 2.30 on:
 * 64 bins of 2-byte counts and 64 pointers) or 0x250 | PREV_INUSE (2.26
 * to 2.29: 1-byte counts).  Another allocator that took brk first (tcmalloc,
 * a program's own sbrk) leaves something else there. */
bool evidence_glibc_tcache(const uint8_t *b, size_t len)
{
	if (len < 16)
		return false;
	uint64_t size = bytes_u64(b, 8);
	return bytes_u64(b, 0) == 0 && (size == 0x291 || size == 0x251);
}

/* jemalloc 5.x src/base.c: metadata comes from base blocks, mapped at a
 * 2 MiB (huge page) alignment, each starting with base_block_t { size,
 * next, edata }; the edata describes the block's unused tail: e_addr is its
 * first free byte and e_addr + e_bsize the block's end.  e_bits carries
 * the arena index 0xfff ("none") in its low 12 bits for a base's own
 * extent.  Returns the block's length, or 0. */
uint64_t evidence_jemalloc_base(const uint8_t *b, size_t len, uint64_t addr, uint64_t end)
{
	const uint64_t align = 2 * MiB;

	if (len < 40 || (addr & (align - 1)) || addr >= end)
		return 0;
	uint64_t size = bytes_u64(b, 0), next = bytes_u64(b, 8), e_bits = bytes_u64(b, 16);
	uint64_t e_addr = bytes_u64(b, 24), e_bsize = bytes_u64(b, 32);
	if (size == 0 || (size & (align - 1)) || size > end - addr || (next & (align - 1)) || next == addr)
		return 0;
	if ((e_bits & 0xfff) != 0xfff || e_addr <= addr || e_addr > addr + size || e_bsize > size ||
	    e_addr + e_bsize != addr + size)
		return 0;
	return size;
}

/* mimalloc 2.0 (Debian 12 ships 2.0.9) include/mimalloc-types.h: a segment
 * is 32 MiB-aligned and starts with mi_segment_t.  Its cookie is keyed by a
 * random secret, so it is checked by the fields that relate to each other:
 * the OS allocation's flags (bools) and alignment (the segment size or a
 * larger power of two), the slice counts (one info slice; a normal
 * segment has 512 slices of 64 KiB, a huge one its own count, and
 * slice_entries is the smaller of that and 512), the kind (normal or huge)
 * and the first slice entry, which describes the info slices.  Returns the
 * segment's length within [addr, end), with its pages in use in *used. */
uint64_t evidence_mimalloc_segment(const uint8_t *b, size_t len, uint64_t addr, uint64_t end, uint64_t *used)
{
	const uint64_t segment = 32 * MiB, slice = 64 * KiB, slices_max = 512;

	if (len < 272 || (addr & (segment - 1)) || addr >= end)
		return 0;
	for (size_t i = 8; i < 11; i++)
		if (b[i] > 1)
			return 0;
	for (size_t i = 11; i < 16; i++)
		if (b[i] != 0)
			return 0;
	uint64_t alignment = bytes_u64(b, 16), align_offset = bytes_u64(b, 24);
	if (alignment < segment || (alignment & (alignment - 1)) || align_offset >= alignment || b[32] > 1)
		return 0;
	uint64_t pages_used = bytes_u64(b, 208), slices = bytes_u64(b, 224), info_slices = bytes_u64(b, 232);
	uint32_t kind = bytes_u32(b, 240);
	uint64_t entries = bytes_u64(b, 248);
	if (pages_used > slices_max || info_slices != 1 || kind > 1 || slices == 0 || slices > (1ull << 40) / slice)
		return 0;
	if ((kind == 0 && slices != slices_max) || entries != (slices < slices_max ? slices : slices_max))
		return 0;
	if (bytes_u32(b, 264) != info_slices || bytes_u32(b, 268) != 0)
		return 0;
	uint64_t length = slices * slice;
	*used = pages_used;
	return length < end - addr ? length : end - addr;
}

/* gperftools tcmalloc (2.x) takes its memory with sbrk first, so its page
 * heap is [heap], whose start holds its metadata: Span records of 48 bytes
 * { start (page number, 8 KiB pages), length (pages), next, prev, objects,
 * bit fields }.  Records whose pages lie in [heap] and whose list pointers
 * are set, two or more in a row, are tcmalloc's.  Returns how many were
 * read, or 0. */
uint64_t evidence_tcmalloc_spans(const uint8_t *b, size_t len, uint64_t heap_start, uint64_t heap_end)
{
	const unsigned shift = 13, record = 48;
	uint64_t best = 0;

	for (size_t off = 0; off + record <= len; off += 16) {
		uint64_t run = 0;
		for (size_t at = off; at + record <= len; at += record) {
			uint64_t start = bytes_u64(b, at), pages = bytes_u64(b, at + 8);
			uint64_t next = bytes_u64(b, at + 16), prev = bytes_u64(b, at + 24);
			if (start == 0 || start > (heap_end >> shift) || (start << shift) < heap_start || pages == 0 ||
			    pages >= (1u << 20) || ((start + pages) << shift) > heap_end || !next || !prev || (next & 7) ||
			    (prev & 7))
				break;
			run++;
		}
		if (run > best)
			best = run;
	}
	return best >= 2 ? best : 0;
}
