/* The classifier's insides, shared by its two files: classify.c (the rule
 * table, the rules that read paths and names, the passes) and
 * classify-shapes.c (the rules that recognise anonymous memory by its
 * shape: runtime heaps, allocators' arenas, thread stacks).  Not part of
 * the scanner's interface. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classify.h"
#include "region.h"
#include "runtimes.h"
#include "units.h"
#include "util.h"

/* glibc: HEAP_MAX_SIZE = 2 * DEFAULT_MMAP_THRESHOLD_MAX = 64 MiB on 64-bit;
 * every non-main arena heap is a reservation of exactly that, aligned to it. */
#define GLIBC_HEAP_MAX (64 * MiB)
/* The largest guard below a thread stack we accept: glibc's default is one
 * page (64 KiB with 64 KiB pages), the JVM adds its yellow/red zones (16 KiB
 * on x86-64).  Larger inaccessible regions below writable memory are
 * reserves, such as the Go runtime's 512 KiB ones. */
#define STACK_GUARD_MAX (256 * KiB)
/* The smallest thread stack: PTHREAD_STACK_MIN is 16 KiB on Linux, and
 * glibc adds the guard on top of what was asked for.  A single writable
 * page between guards (V8 and PartitionAlloc make such) is no stack. */
#define STACK_MIN (16 * KiB)
/* The JVM places a compressed-oops heap so that it ends at or below 32 GiB. */
#define JVM_COMPRESSED_OOPS_LIMIT (32 * GiB)
/* The smallest reservation of the JVM's class metadata: metaspace's nodes
 * are 64 MiB, the compressed class space 1 GiB; a thread stack with its
 * guard is a few MiB at most. */
#define JVM_METADATA_RESERVE_MIN (16 * MiB)
/* V8 allocates its heap pages with 256 KiB alignment at random hint
 * addresses below 2^46 (64 TiB), well away from mmap's usual area. */
#define V8_PAGE_ALIGNMENT (256 * KiB)
#define V8_HINT_LIMIT (64 * TiB)
/* PartitionAlloc (Chromium's malloc and Blink's heaps, in Chrome, Chromium,
 * Electron) carves its pools into 2 MiB super pages.  The first 16 KiB
 * partition page of each is inaccessible but for one system page at 8 KiB,
 * its metadata; the slot spans start at 16 KiB.  A large allocation is a
 * direct map laid out the same way: its data at 16 KiB past a 2 MiB
 * boundary, inaccessible below. */
#define PA_SUPER_PAGE (2 * MiB)
#define PA_METADATA_OFFSET (8 * KiB)
#define PA_METADATA_SIZE (4 * KiB)
#define PA_PAYLOAD_OFFSET (16 * KiB)
/* The CUDA driver reserves its unified address space in this window (maps
 * of CUDA processes in public bug reports: ---p runs from 0x200000000 to
 * past 0x300000000 between its /dev/nvidiactl chunks, and one at 1 TiB);
 * mmap's own placements are far above it. */
#define CUDA_WINDOW_START 0x200000000ull
#define CUDA_WINDOW_END (0x10000000000ull + 4 * GiB)
/* jemalloc maps its memory a huge page (2 MiB) at a time or more: its
 * base blocks (metadata) 2 MiB-aligned, its extents in mappings of 2 MiB
 * and more that mmap places top-down below them, so that the kernel's
 * merged regions end on a 2 MiB boundary (jemalloc 5.x on Linux: base.c
 * maps HUGEPAGE-aligned, pac.c grows by HUGEPAGE and up). */
#define JEMALLOC_HUGEPAGE (2 * MiB)

struct ctx {
	struct region *r;
	size_t n;
	const struct classify_hints *h;

	/* what the process runs and maps, found once */
	struct runtimes rt;
	bool partition_alloc; /* a PartitionAlloc super page is mapped */
	uint64_t python_arena;

	/* paths mapped executable somewhere: sorted interned pointers */
	const char **exec_paths;
	size_t n_exec_paths;

	/* whether the run of contiguous anonymous private regions starting at
	 * an index holds an inaccessible part; runs are in region.run_first
	 * and run_last */
	bool *run_has_reserve;
};

/* ------------------------------------------------------------ helpers */

static inline bool is_anonymous(const struct region *r)
{
	return r->path == NULL;
}

static inline bool is_anon_private(const struct region *r)
{
	return is_anonymous(r) && !region_shared(r);
}

/* Anonymous private memory, named or not: [anon:NAME] (Linux 5.17+), and
 * [stack:TID], how kernels before 4.5 named thread stacks. */
static inline bool is_anon_or_named_private(const struct region *r)
{
	return (r->path == NULL || startswith(r->path, "[anon:") || startswith(r->path, "[stack:")) &&
	       !region_shared(r);
}

static inline bool is_rw(const struct region *r)
{
	return region_readable(r) && region_writable(r);
}

static inline bool contiguous(const struct region *low, const struct region *high)
{
	return low->end == high->start;
}

static inline const struct region *group_head(const struct ctx *c, size_t i)
{
	return &c->r[c->r[i].run_first];
}

static inline uint64_t group_span(const struct ctx *c, size_t i)
{
	const struct region *first = group_head(c, i);
	return c->r[first->run_last].end - first->start;
}

/* --------------------------------------- rules that read shapes (classify-shapes.c) */

/* Each says whether region i of the context is of its shape. */
bool shape_cuda_reservation(const struct ctx *c, size_t i);
bool shape_jit(const struct ctx *c, size_t i);
bool shape_jvm_heap(const struct ctx *c, size_t i);
bool shape_jvm_reserved(const struct ctx *c, size_t i);
bool shape_go_arena(const struct ctx *c, size_t i);
bool shape_v8_page(const struct ctx *c, size_t i);
bool shape_mmgp_reservation(const struct ctx *c, size_t i);
bool shape_stack_pointer(const struct ctx *c, size_t i);
bool shape_partition_alloc(const struct ctx *c, size_t i);
bool shape_glibc_arena(const struct ctx *c, size_t i);
bool shape_jemalloc(const struct ctx *c, size_t i);
bool shape_stack_guard(const struct ctx *c, size_t i);
bool shape_python_arena(const struct ctx *c, size_t i);
bool shape_openblas_buffer(const struct ctx *c, size_t i);
/* Region j is a PartitionAlloc super page's metadata page (the index looks
 * for one to know whether the process uses PartitionAlloc at all). */
bool shape_pa_metadata_page(const struct ctx *c, size_t j);
