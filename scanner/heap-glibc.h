/* The glibc heap walker's insides, shared by its files: heap-glibc-libc.c
 * finds libc (its version, its data), heap-glibc.c glibc's structures
 * (main_arena and mp_ in libc's data, the ring of arenas, each arena's
 * heaps) and heap-glibc-chunks.c reads the chunks (the fastbins, then each heap from end to end, a
 * window of resident pages at a time) into spans.  Not part of the
 * scanner's interface: heap_walk_glibc (heap-walkers.h) is. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap-walk.h"

#define GLIBC_PAGE UINT64_C(4096)
/* HEAP_MAX_SIZE on 64-bit (2 * DEFAULT_MMAP_THRESHOLD_MAX): a non-main
 * arena's heaps are reservations of this size, aligned to it */
#define GLIBC_HEAP_MAX (UINT64_C(64) << 20)
#define GLIBC_MINSIZE UINT64_C(32)
#define GLIBC_PREV_INUSE UINT64_C(1)
#define GLIBC_IS_MMAPPED UINT64_C(2)
#define GLIBC_NON_MAIN_ARENA UINT64_C(4)
#define GLIBC_SIZE_BITS UINT64_C(7)
#define GLIBC_NFASTBINS 10
#define GLIBC_NBINS 128

/* The bytes of a malloc_state, and where its fields are: the same from
 * 2.27 to 2.42 (malloc/malloc.c of each release: mutex, flags,
 * have_fastchunks, fastbinsY[10], top, last_remainder, bins[254],
 * binmap[4], next, next_free, attached_threads, system_mem,
 * max_system_mem). */
#define MS_MUTEX 0
#define MS_FLAGS 4
#define MS_HAVE_FASTCHUNKS 8
#define MS_FASTBINS 16
#define MS_TOP 96
#define MS_BINS 112
#define MS_NEXT 2160
#define MS_NEXT_FREE 2168
#define MS_ATTACHED 2176
#define MS_SYSTEM_MEM 2184
#define MS_MAX_SYSTEM_MEM 2192
#define MS_SIZE 2200
/* flags: the main arena got memory from mmap because brk failed */
#define MS_NONCONTIGUOUS 2u

/* What differs between the releases Debian and Fedora ship (glibc/malloc
 * of each tag, 2.31 to 2.41). */
struct glibc_layout {
	int first, last;      /* 2.FIRST to 2.LAST */
	bool safe_linking;    /* fastbin links stored as fd ^ (&fd >> 12) (2.32 on) */
	uint32_t heap_info;   /* sizeof (heap_info): 32, 48 with its pagesize (2.35 on) */
	uint32_t hi_pagesize; /* offset of heap_info.pagesize, 0: none */
	/* struct malloc_par: thp_pagesize, hp_pagesize and hp_flags came in
	 * 2.35, before the counts */
	uint32_t par_size, par_mmap_threshold, par_hp_pagesize, par_n_mmaps, par_n_mmaps_max, par_max_n_mmaps,
		par_no_dyn_threshold, par_mmapped_mem, par_max_mmapped_mem, par_sbrk_base, par_tcache_bins,
		par_tcache_max_bytes, par_tcache_count;
};

/* One stretch the walk reads or counts, in address order. */
enum glibc_item_kind {
	ITEM_MAIN_HEAP,   /* [heap]: the main arena, from sbrk_base */
	ITEM_ARENA_HEAP,  /* one heap of a non-main arena */
	ITEM_MMAPPED,     /* a region of blocks served by mmap (evidence read their headers) */
};

struct glibc_item {
	enum glibc_item_kind kind;
	uint64_t cover_start, cover_end; /* the region the item's private bytes are counted in */
	uint64_t first;                  /* the first chunk */
	uint64_t end;                    /* where the chunks end: the heap's end (top's end, or past its fenceposts) */
	uint64_t top;                    /* the arena's top chunk when it lies here, else 0 */
	size_t arena;                    /* index in glibc.arenas */
	size_t span_from, span_to;       /* its spans in glibc.spans, once walked */
};

struct glibc_arena {
	uint64_t addr;
	uint64_t fastbins[GLIBC_NFASTBINS];
	uint64_t top, system_mem;
	size_t heaps;
	bool failed; /* its chunks did not check out: its heaps are unknown */
};

/* A chunk in a fastbin. */
struct glibc_fast {
	uint64_t addr;
	uint32_t arena;
	uint32_t bin;
};

/* One walk's state (heap-glibc.c owns it; heap-glibc-chunks.c reads the
 * chunks of its items). */
struct glibc {
	const struct heap_walk_input *in;
	struct heap_walk *w;
	const struct glibc_layout *layout;
	int minor; /* 2.MINOR */

	struct glibc_arena *arenas;
	size_t n_arenas, arenas_allocated;
	struct glibc_item *items;
	size_t n_items, items_allocated;
	/* the chunks in fastbins, sorted by address */
	struct glibc_fast *fast;
	size_t n_fast, fast_allocated;
	/* the spans of the items, in address order, before they are added
	 * to the walk (those of an arena that does not check out are not) */
	struct heap_span *spans;
	size_t n_spans, spans_allocated;
	uint64_t mmapped_mem;
	int n_mmaps;

	/* the window of pages the chunk walk reads */
	uint8_t *win;
	uint64_t win_start, win_end;
	uint64_t avg_chunk; /* of the last chunks walked, about: how wide a window to read */
	uint64_t win_read[(1u << 20) / GLIBC_PAGE / 64]; /* bit per page: read */
	struct mem_probe *probes;
	struct page_runs scratch; /* the residency of a small read */

	/* what was found, for how */
	uint64_t chunks, fast_chunks, mmapped_regions;
	size_t arenas_failed;
	char arena_why[160]; /* why the first arena that failed did */
	uint64_t not_reached; /* bytes of heaps the limits kept the walk from */
	const char *cut;      /* why the walk stopped short: "the byte limit", "the deadline" */
	char why[160];        /* what did not check out */
};

/* glibc's minor version, from libc's name or its banner
 * (heap-glibc-libc.c).  Returns 0 with *minor, -ENOENT when libc is not
 * mapped (not glibc: nothing to walk), -EBADMSG when its version cannot
 * be read (g->why), or an error. */
int heap_glibc_version(struct glibc *g, int *minor);
/* libc's writable data: its read-write mappings and the anonymous one
 * right after the last (the rest of .bss).  Returns 0 with [*start, *end),
 * or -ENOENT. */
int heap_glibc_libc_data(const struct heap_walk_input *in, uint64_t *start, uint64_t *end);
/* The region holding addr, or NULL (regions are sorted). */
const struct region *heap_glibc_region_at(const struct heap_walk_input *in, uint64_t addr);

/* Sets g->why (printf-style) and returns -EBADMSG: the walk did not check
 * out (it may on another try). */
int heap_glibc_bad(struct glibc *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Says arena a did not check out (the first time, with why): its heaps
 * will be unknown, the rest of the walk stands. */
void heap_glibc_arena_fail(struct glibc *g, size_t a, const char *why);

/* Reads len bytes at addr, in pages the page tables show in memory
 * (file pages too: libc's text).  Returns 0, -ENODATA when a page is not
 * in memory, -ECANCELED at the byte limit, or the source's error. */
int heap_glibc_read(struct glibc *g, uint64_t addr, size_t len, void *buf);

/* Reads the fastbin chains of every arena into g->fast, then walks every
 * item in address order into spans of g->w (covered before).  An arena
 * whose chunks do not check out is failed (g->arenas_failed, its reason in
 * g->arena_why) and its heaps are unknown; the others stand.  Returns 0,
 * -ENOMEM, or the source's error. */
int heap_glibc_walk_chunks(struct glibc *g);

static inline uint64_t heap_glibc_u64(const uint8_t *b, size_t off)
{
	uint64_t v;
	__builtin_memcpy(&v, b + off, 8);
	return v;
}

static inline uint32_t heap_glibc_u32(const uint8_t *b, size_t off)
{
	uint32_t v;
	__builtin_memcpy(&v, b + off, 4);
	return v;
}
