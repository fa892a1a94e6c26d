/* Bytes of allocator structures, for the tests of evidence: little-endian
 * words put at an offset, and a pymalloc pool header. */
#pragma once

#include <stdint.h>
#include <string.h>

static inline void put_u64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static inline void put_u32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* A pool header of size class szidx in a pool of pool_size bytes. */
static inline void make_pool(uint8_t *b, uint64_t addr, uint64_t pool_size, uint32_t szidx, uint32_t arena)
{
	uint32_t size = (szidx + 1) * 16;
	memset(b, 0, 64);
	put_u32(b, 0, 7);                          /* blocks in use */
	put_u64(b, 8, addr + 48 + 2 * size);       /* freeblock */
	put_u64(b, 16, 0x959d40);                  /* nextpool: usedpools */
	put_u64(b, 24, 0x959d40);
	put_u32(b, 32, arena);
	put_u32(b, 36, szidx);
	put_u32(b, 40, 48 + 7 * size);             /* nextoffset */
	put_u32(b, 44, (uint32_t)pool_size - size); /* maxnextoffset */
}
