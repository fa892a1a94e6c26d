/* Evidence: what the allocators wrote in the process's own memory, read
 * from outside to tell whose anonymous memory is whose
 * (doc/design.md#evidence).  A census classifies regions by their shape first; this
 * pass then reads a few bytes at chosen addresses of the regions that
 * shapes leave uncertain, only in pages already resident, and
 *   - confirms an owner: glibc's mmapped chunks (walked block by block),
 *     a glibc arena's heap_info, pymalloc's pool headers, the structures
 *     of jemalloc, mimalloc and tcmalloc where they can be confirmed;
 *   - splits a kernel region that holds several owners into parts, whose
 *     resident, anonymous and swap bytes come from the page tables, so
 *     the parts add up to the region to the byte.
 * Every region it looked at keeps a sentence saying what was read and what
 * it showed (region.evidence). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memsource.h"
#include "region.h"

struct strpool;

/* What the evidence pass did, for the census. */
struct evidence_result {
	bool taken;          /* memory was read */
	char why_not[256];   /* when not taken, or cut short: why */
	uint64_t regions;    /* regions looked at */
	uint64_t confirmed;  /* regions and parts whose owner was confirmed */
	uint64_t split;      /* kernel regions split into parts */
	uint64_t reads, bytes, calls, pages; /* from the source: probes, bytes, batches, pages looked up */
	uint64_t questions;  /* from the source: questions to the page tables */
	bool exhausted;      /* the read limit was reached: later regions kept their shape */
};

/* Reads evidence through src for the n classified regions of *regions
 * (sorted, as the parser gives them) and applies it.  *regions may be
 * replaced by a larger array holding parts (the old one is freed); *n is
 * updated.  max_regions bounds the array (past it, regions are not split).
 * Texts are interned in pool.  Returns 0 or -errno: -ENOMEM, or the
 * source's error when the process vanished (-ESRCH) or refused every read
 * (-EPERM, -EACCES; res->why_not says so and the regions are unchanged). */
int evidence_apply(struct memsource *src, struct region **regions, size_t *n, size_t max_regions,
		   struct strpool *pool, struct evidence_result *res);

/* The pure checks, one per structure, exported for tests and the fuzzer:
 * each is given the bytes read at addr. */

/* A glibc mmapped chunk header at addr (16 bytes: prev_size, size), in a
 * region ending at end: returns the block's length, or 0. */
uint64_t evidence_glibc_chunk(const uint8_t *b, size_t len, uint64_t addr, uint64_t end);
/* A glibc non-main arena's heap_info at addr (32 bytes), the start of a
 * region of rw_len read-write bytes: returns the heap's size, or 0. */
uint64_t evidence_glibc_heap_info(const uint8_t *b, size_t len, uint64_t addr, uint64_t rw_len);
/* A pymalloc pool header at addr (48 bytes): returns the pool size (4 or
 * 16 KiB) with its arena index in *arena, or 0. */
uint64_t evidence_pymalloc_pool(const uint8_t *b, size_t len, uint64_t addr, uint32_t *arena);
/* A mimalloc 2.0 segment header at addr (272 bytes: mi_segment_t and its
 * first slice), in a region ending at end: returns the segment's length
 * within the region, with its pages in use in *used, or 0.  The heap
 * walk (heap-mimalloc.c) checks the same header before it reads the
 * rest. */
uint64_t evidence_mimalloc_segment(const uint8_t *b, size_t len, uint64_t addr, uint64_t end, uint64_t *used);
