/* mimalloc's heap walk (heap-mimalloc.c): in use and free from its
 * segments' and pages' headers, for the layouts of the versions it
 * knows.  The parts are exported for the tests and the fuzzer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap-walk.h"

/* The header bytes of a segment a walk reads: mi_segment_t up to its
 * slices, and one 80-byte page header per slice (512 at most). */
#define HEAP_MIMALLOC_HEADER_BYTES (264u + 512u * 80u)

/* The version mi_version() returns (209 for 2.0.9), read from its code
 * in the len bytes of the library's ELF file.  Returns it, -EBADMSG for a
 * file that is not ELF64 little-endian, -ENOENT without the symbol,
 * -ENOTSUP for code that is not a constant returned (x86-64: mov eax,
 * imm32; ret, after an optional endbr64; aarch64: mov w0, #imm; ret). */
int heap_mimalloc_version(const uint8_t *elf, size_t len);

/* Whether this walker knows the layout of that version; its name for
 * people ("2.0.9") or NULL. */
const char *heap_mimalloc_layout(int version);

/* A segment as its header describes it: its runs of slices, each a page
 * (with its blocks' counts) or free. */
struct mimalloc_run {
	uint32_t first, count; /* slices */
	bool page;
	uint64_t blocks, bsize, capacity, reserved, used; /* a page's */
};

struct mimalloc_segment {
	uint64_t addr, length;
	uint64_t end;       /* of what is walked: the segment's, or its region's when sooner */
	uint64_t pages;     /* pages in use */
	bool cached;        /* freed, kept by mimalloc for reuse: all its slices free */
	uint32_t n_runs;    /* runs[0] is the segment's own header */
	struct mimalloc_run runs[512];
};

/* Checks the segment header read at addr (len bytes of b, at least
 * HEAP_MIMALLOC_HEADER_BYTES, absent pages as zeros) in a region ending
 * at limit (a tail never committed may lie past it): the slices must tile the segment, each page's counts
 * must fit it, its free lists point at block boundaries inside it, the
 * pages in use be as many as the segment counts.  Pure.  Returns 0 with
 * *ret, or -EBADMSG with why set. */
int heap_mimalloc_check(const uint8_t *b, size_t len, uint64_t addr, uint64_t limit, struct mimalloc_segment *ret,
			char *why, size_t why_size);

/* Appends the spans of a checked segment to w, whose covers must hold it
 * (their residency says what is private): each page's carved blocks (in
 * use: used x block size, laid first over the private pages; free: the
 * rest, heap-private.h), its blocks not yet carved (free), its free runs
 * of slices (free, returnable, as are pages holding no block in use and a
 * cached segment); the segment's own header is overhead.  Returns 0,
 * -EINVAL (out of order), -ENOMEM. */
int heap_mimalloc_add(struct heap_walk *w, const struct mimalloc_segment *seg);

/* The walk with the layout of version (as heap_mimalloc_version reads
 * it), without reading the library: the regions evidence confirmed as
 * mimalloc's segments.  Returns as every walker (heap-walk.h). */
int heap_mimalloc_walk_version(const struct heap_walk_input *in, int version, struct heap_walk *w);

/* The walk with the proc root at proc_root ("/proc" live): the version
 * read from the libmimalloc the process maps (mapping-file.h). */
int heap_mimalloc_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w);
