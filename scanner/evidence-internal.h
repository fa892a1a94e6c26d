/* The evidence pass's insides, shared by its files: evidence.c (reading
 * and walking), evidence-checks.c (the structures recognised) and
 * evidence-split.c (what the walks found becoming rules, sentences and
 * parts).  Not part of the scanner's interface. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evidence.h"
#include "memsource.h"
#include "region.h"

struct strpool;

/* Who a stretch of a region belongs to, as read. */
enum owner {
	OWNER_NONE,             /* nothing recognised (the region's shape stands) */
	OWNER_GLIBC_CHUNKS,     /* glibc malloc blocks served by mmap */
	OWNER_GLIBC_HEAP,       /* a glibc non-main arena heap (heap_info) */
	OWNER_GLIBC_BRK,        /* [heap] holding glibc's main arena (its tcache chunk) */
	OWNER_PYMALLOC,         /* pymalloc arenas */
	OWNER_JEMALLOC_BASE,    /* jemalloc's metadata: base blocks */
	OWNER_JEMALLOC_EXTENTS, /* the rest of a jemalloc process's anonymous memory */
	OWNER_MIMALLOC,         /* mimalloc segments */
	OWNER_TCMALLOC,         /* [heap] holding tcmalloc's page heap (span records) */
	_OWNER_MAX
};

/* The classifier's rule (classify.h) that an owner's memory is given, or -1
 * for OWNER_NONE (the region's shape stands). */
int evidence_owner_rule(enum owner owner);

/* A stretch of a walk and its owner.  count is what was read there (1 per
 * glibc block or base block, pymalloc pool headers, the heap's size in use,
 * mimalloc's pages in use); unit the block, pool or segment size. */
struct segment {
	uint64_t start, end;
	enum owner owner;
	uint64_t count;
	uint64_t unit;
};

struct segments {
	struct segment *v;
	size_t n, allocated;
};

enum mode {
	M_START,  /* the walk's first page: a heap_info, [heap]'s first bytes, a block */
	M_WALK,   /* at a block boundary */
	M_SEARCH, /* page after resident page (or aligned address), for the next header */
	M_DONE,
};

/* Windows a walker keeps: one for each read a round takes ahead, and one
 * more. */
#define EVIDENCE_WINDOWS 9

/* Pages whose residency is known, [start, end), as runs; round is the
 * round of reads it was last used for (a window is refilled only when no
 * read of the current round depends on it). */
struct window {
	struct page_runs runs;
	uint64_t start, end;
	uint64_t round;
};

/* One walk: a run of neighbouring regions read as one, since an
 * allocation's mapping may be split by the kernel (numpy's madvise of a
 * large array's inside leaves its chunk header in a region of its own). */
struct walker {
	size_t first, last; /* the regions walked, [first, last] */
	uint64_t start, end;
	enum mode mode;
	bool brk;          /* [heap]: its first bytes tell whose heap it is */
	uint64_t pos;      /* the next address to look at */
	uint64_t gap;      /* start of the stretch nothing was found in yet */
	uint64_t searched; /* pages read in the current stretch */
	bool gave_up;      /* the search stopped: RW_EVIDENCE_SEARCH_PAGES + RW_EVIDENCE_SEARCH_RUNS */
	uint64_t last_len; /* the last block's or arena's length: the next ones are read ahead at it */
	bool last_arena;   /* ... and it was a pymalloc arena */
	bool same;         /* ... and the one before had the same length */
	uint64_t pos_next; /* where the search goes on when the round read the window's runs; 0: after the last read */
	bool cut;          /* the census's read limit stopped it */
	/* what the page tables said about the pages around this walker's
	 * reads: a few windows, so that the reads a round takes ahead each
	 * have theirs; the window of the current search */
	struct window win[EVIDENCE_WINDOWS];
	struct window *search;
	/* this round's probes */
	size_t first_probe, n_probes;
	struct segments segs;
};

/* Turns the walkers' segments into rules, sentences and parts (see
 * evidence_apply).  With jemalloc (a base block was read), what no header
 * was found in, in regions of no known shape, is jemalloc's extents.
 * Returns 0 or -errno. */
int evidence_conclude(struct memsource *src, struct region **regions, size_t *n, size_t max_regions,
		      const struct walker *w, size_t n_w, bool jemalloc, struct strpool *pool,
		      struct evidence_result *res);

/* Checks of evidence-checks.c not exported in evidence.h. */
bool evidence_glibc_tcache(const uint8_t *b, size_t len);
uint64_t evidence_jemalloc_base(const uint8_t *b, size_t len, uint64_t addr, uint64_t end);
uint64_t evidence_tcmalloc_spans(const uint8_t *b, size_t len, uint64_t heap_start, uint64_t heap_end);
