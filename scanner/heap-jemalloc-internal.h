/* The jemalloc walker's own parts (heap-jemalloc.c walks the extent map,
 * heap-jemalloc-find.c finds what it walks: jemalloc's image, version and
 * the map's root), and how they read the process's memory.  Not for other
 * modules: heap-jemalloc.h is the walker's face. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "classify.h"
#include "heap-jemalloc.h"
#include "heap-walk.h"
#include "macro.h"
#include "util.h"

#define JEMALLOC_PAGE 4096ull
/* pages read at once */
#define JEMALLOC_BATCH_PAGES 32u

/* What a step found: it checked out, it did not (the map moved, or the
 * bytes are not what the layout says: read again), or the walk cannot be
 * done (no layout, a limit): negative values are errors. */
enum {
	WALK_OK = 0,
	WALK_MOVED = 1,
	WALK_NO = 2,
};

/* One word of a leaf: the page it is about and the word. */
struct entry {
	uint64_t key, bits;
};

/* One extent record read: where it was and its bytes' fields. */
struct record {
	uint64_t at;
	uint64_t bits, addr, size;
	uint64_t bitmap[8];
	bool head_seen;
};

/* A stretch the walk describes, in address order. */
struct piece {
	uint64_t start, end, in_use, free;
	bool returnable;
};

struct counts {
	uint64_t extents, slabs, large, dirty, muzzy, retained;
	uint64_t in_use, free;
};

/* One walk of one process: what it found, what it read, and why not. */
struct jemalloc_walk {
	const struct heap_walk_input *in;
	struct heap_walk *w;
	const struct jemalloc_layout *lay;
	struct jemalloc_version ver;
	uint64_t max_bytes;
	char why[160];
	/* the image */
	const struct region *image; /* a region of its file */
	uint64_t data_start, data_end;
	/* 1 GiB chunks of the address space where jemalloc's extents are */
	uint64_t *chunks;
	size_t n_chunks;
	/* candidate roots, and the nonzero words of the data */
	uint64_t *roots;
	size_t n_roots;
	struct entry *words; /* key: the word's address, bits: its value */
	size_t n_words;
	/* one walk */
	struct entry *entries;
	size_t n_entries, entries_allocated;
	struct record *records;
	size_t n_records;
	struct piece *pieces;
	size_t n_pieces, pieces_allocated;
	uint8_t *batch; /* pages read at once */
	uint64_t *leaf_hash; /* of each leaf read, to tell a map that moved */
	size_t n_leaves;
	struct counts counts;
	unsigned lg_quantum;
	uint64_t pad;
};

static inline uint64_t jemalloc_bits(uint64_t x, unsigned shift, unsigned width)
{
	return (x >> shift) & ((1ull << width) - 1);
}

static inline uint64_t jemalloc_get64(const uint8_t *b)
{
	uint64_t v;
	memcpy(&v, b, 8);
	return v;
}

/* The bytes of a leaf of the extent map, and of its root. */
static inline uint64_t jemalloc_leaf_bytes(const struct jemalloc_layout *l)
{
	return 8ull << l->leaf_bits;
}

static inline uint64_t jemalloc_root_bytes(const struct jemalloc_layout *l)
{
	return 8ull << l->root_bits;
}

/* A region of the malloc class the evidence pass gave to jemalloc, or
 * that is jemalloc's by its shape (where evidence did not reach it). */
static inline bool jemalloc_rule(const struct region *r)
{
	return r->cls == CLASS_MALLOC && (r->rule == RULE_JEMALLOC_BASE || r->rule == RULE_JEMALLOC_EXTENTS ||
					  streq(classify_rule(r->rule)->key, "jemalloc_shape"));
}

/* Says why the walk stopped (j->why) and returns code. */
int jemalloc_fail(struct jemalloc_walk *j, int code, const char *fmt, ...) _printf_(3, 4);
/* Sorts v and leaves each value once; returns how many. */
size_t jemalloc_unique(uint64_t *v, size_t n);
/* The end of the stretch of contiguous anonymous read-write private
 * regions holding addr (where jemalloc's metadata can be), or 0. */
uint64_t jemalloc_anon_end(const struct heap_walk_input *in, uint64_t addr);
const char *jemalloc_file_name(const char *path);

/* Reads a batch of probes, counted against the walk's limits.  Returns
 * WALK_OK, WALK_NO (a limit: j->why says which) or -errno. */
int jemalloc_read_probes(struct jemalloc_walk *j, struct mem_probe *probes, size_t n);
/* Calls fn with the bytes of each resident page that meets [start, end)
 * (with file_pages, also each page of a file the page tables map), in
 * address order, read batch pages at a time (at most JEMALLOC_BATCH_PAGES;
 * fn clips to the range).  *swapped says whether a page there is in swap
 * (never read); a resident page that could not be read is WALK_MOVED.  fn
 * returns WALK_OK to go on; anything else stops the reading and is
 * returned. */
typedef int (*jemalloc_page_fn)(struct jemalloc_walk *j, uint64_t addr, const uint8_t *page, void *arg);
int jemalloc_each_page(struct jemalloc_walk *j, uint64_t start, uint64_t end, unsigned batch, bool file_pages,
		       bool *swapped, jemalloc_page_fn fn, void *arg);

/* Finds jemalloc's image: libjemalloc.so, or the program itself where
 * jemalloc's base blocks were read and no library serves malloc.
 * Returns whether there is one (j->image). */
bool jemalloc_find_image(struct jemalloc_walk *j);
/* Finds the image's version string (j->ver): in the process's memory, or
 * in the file it maps.  Returns WALK_OK with *found, or -errno. */
int jemalloc_find_version(struct jemalloc_walk *j, bool *found);
/* Reads the image's data and lists where the map's root may be (j->roots,
 * with j->words the data's nonzero words).  Returns WALK_OK, WALK_NO
 * with j->why, or -errno. */
int jemalloc_find_roots(struct jemalloc_walk *j);
/* The index of the first of j->words at or after addr. */
size_t jemalloc_words_from(const struct jemalloc_walk *j, uint64_t addr);
