/* gperftools tcmalloc's heap walk (heap-tcmalloc.c): in use and free from
 * the globals its own statistics are summed from, read from outside.  The
 * parts are exported for the tests and the fuzzer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap-walk.h"

/* A build of the library whose layout the walker knows: the addresses,
 * from the library's load address, of its globals. */
struct tcmalloc_build {
	const char *name; /* "gperftools 2.10 (libtcmalloc_minimal.so.4)" */
	uint8_t build_id[20];
	uint64_t pageheap, central_cache, sizemap, thread_heaps, thread_heap_count;
};

/* The build with that GNU build-id, or NULL. */
const struct tcmalloc_build *heap_tcmalloc_build(const uint8_t *build_id, size_t len);

/* The bytes of the globals as read from the process. */
#define TCMALLOC_SIZEMAP_BYTES 4232u            /* tcmalloc::SizeMap */
#define TCMALLOC_CENTRAL_BYTES 1216u            /* one CentralFreeListPadded */
#define TCMALLOC_FREE_LISTS_OFFSET 1572968u     /* PageHeap::free_ */
#define TCMALLOC_FREE_LISTS_BYTES (128u * 96u + 88u) /* free_[128], then its Stats */

struct tcmalloc_globals {
	const uint8_t *sizemap;       /* TCMALLOC_SIZEMAP_BYTES */
	const uint8_t *central;       /* classes x TCMALLOC_CENTRAL_BYTES, read at central_addr */
	uint64_t central_addr;
	const uint8_t *free_lists;    /* TCMALLOC_FREE_LISTS_BYTES, read at free_lists_addr */
	uint64_t free_lists_addr;
	uint64_t globals_start, globals_end; /* where the library's globals lie */
	uint64_t thread_bytes;        /* the thread caches' size_, summed */
	unsigned threads;
};

/* What tcmalloc's statistics are made of, as MallocExtension sums them. */
struct tcmalloc_figures {
	uint64_t system, pageheap_free, unmapped; /* the page heap's Stats */
	uint64_t central, transfer, thread;       /* bytes free in its caches */
	uint64_t in_use;                          /* generic.current_allocated_bytes */
	unsigned classes, threads;
};

/* The number of size classes a SizeMap's bytes hold, or 0 when they do
 * not check out (sizes increasing from 8, pages and batch sizes in range). */
unsigned heap_tcmalloc_classes(const uint8_t *sizemap);

/* Sums the globals as tcmalloc's ExtractStats does, each checked against
 * the others (list heads that point at themselves or outside the globals,
 * counts within what their spans hold, the caches within what the page
 * heap holds).  Pure.  Returns 0 with *ret, or -EBADMSG with why set. */
int heap_tcmalloc_sum(const struct tcmalloc_globals *g, struct tcmalloc_figures *ret, char *why, size_t why_size);

/* The walk with the globals of build at the load address base, without
 * reading the library.  Returns as every walker (heap-walk.h). */
int heap_tcmalloc_walk_build(const struct heap_walk_input *in, const struct tcmalloc_build *build, uint64_t base,
			     struct heap_walk *w);

/* The walk with the proc root at proc_root ("/proc" live): the build read
 * from the libtcmalloc the process maps (mapping-file.h). */
int heap_tcmalloc_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w);
