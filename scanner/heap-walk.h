/* Heap walks: how much of an allocator's memory the program still uses,
 * and how much the allocator keeps free, read from outside the process.
 *
 * A census says, with evidence, whose memory a region is (evidence.h).
 * A heap walk then reads the allocator's own structures (glibc's arenas
 * and chunks, pymalloc's pools, jemalloc's extents, ...) through the same
 * memory source, only in pages already resident, and describes the heap
 * as spans: stretches of the address space the allocator has handed out
 * (in use), keeps for later (free), or spends on itself (its headers,
 * its arena structures).  Each walker is a module of its own
 * (heap-glibc.c, heap-pymalloc.c, ...) that only reads and reports
 * spans; heap-walk.c turns the spans into figures per class, at the page
 * level: a span counts only the bytes of its pages that are private
 * memory (resident or swapped), so that for each class
 *
 *     in_use + free + overhead + unknown = the class's private bytes
 *
 * to the byte, whatever the walks found (memory never touched is not
 * private memory and counts nowhere; private bytes no walk described are
 * overhead in a walked region, unknown in a region not walked).
 *
 * A walk that does not check out (the program moved its heap while it
 * was read: a size out of bounds, a chain that loops, a walk that does
 * not end where it must) is retried a bounded number of times, then the
 * regions it covers are unknown, with the reason; a figure is never
 * guessed.  Never a stop, never a ptrace attach, never a page faulted in
 * (memsource_read refuses pages not resident).
 *
 * The figures mean what the allocators' own statistics mean, so that a
 * user can check them: for glibc, in use is uordblks + hblkhd and free
 * fordblks of mallinfo2() (tcache chunks in use, fastbins free); for
 * pymalloc, the bytes in allocated and in available blocks of
 * sys._debugmallocstats(); for jemalloc, stats.allocated and
 * stats.active - stats.allocated plus its dirty pages. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classes.h"
#include "memsource.h"
#include "region.h"

/* The longest sentence a walk's how or why_not holds, and a class's how
 * (its walks' joined): room for the figures a walk read and, beside
 * them, why part of it is unknown. */
#define HEAP_HOW_MAX 320

/* One stretch of a heap, [start, end).  in_use and free are the bytes of
 * it the allocator counts so (in_use + free <= end - start; the rest is
 * overhead: headers, padding, the allocator's own structures).  A span
 * wholly in use is { in_use = end - start, free = 0 }; a pool or a slab
 * that holds both gives the two sums, and where some of its pages are not
 * private memory its figures are scaled by the private share.  Of the
 * free bytes, those in [ret_start, ret_end) (a subrange, or ret_end = 0
 * for none) are memory the allocator could give back: whole pages of it
 * that are private memory count as returnable (what malloc_trim(0) or an
 * emptied arena would release). */
struct heap_span {
	uint64_t start, end;
	uint64_t in_use, free;
	uint64_t ret_start, ret_end;
	bool unknown; /* not reached (heap_walk_add_unknown): its private bytes are unknown */
};

/* What one walker found for one class: its spans, sorted by start and not
 * overlapping; the regions it covers (the ones whose private bytes it
 * accounts for, walked or not); whether it checked out. */
struct heap_walk {
	enum class_id cls;          /* the class whose memory it describes */
	struct heap_span *spans;
	size_t n_spans, allocated;
	/* [start, end) ranges of the address space the walk is about: its
	 * regions (or parts); private bytes there that no span covers are
	 * overhead when the walk checked out, unknown when it did not */
	struct heap_range {
		uint64_t start, end;
	} *covers;
	size_t n_covers, covers_allocated;
	/* the residency of the covers (heap_walk_cover reads it): what the
	 * walker may read (memsource_read wants PAGE_RESIDENT) and what the
	 * figures count (resident and swapped pages are private memory) */
	struct page_runs runs;
	bool failed;                /* did not check out after its retries: all unknown */
	char how[HEAP_HOW_MAX];     /* what was read: "glibc 2.36: 3 arenas, 41,233 chunks, tcache in use" */
	char why_not[HEAP_HOW_MAX]; /* when failed: why ("a chunk size past the heap's end, 3 tries") */
	uint64_t bytes_read;        /* of the process's memory, for the cost and the limit */
};

/* Appends a span (it must start at or after the end of the last one).
 * Returns 0, -EINVAL for a span out of order or inconsistent, -ENOMEM. */
int heap_walk_add(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t in_use, uint64_t free);
/* The same with the returnable subrange of its free bytes. */
int heap_walk_add_free(struct heap_walk *w, uint64_t start, uint64_t end, uint64_t ret_start, uint64_t ret_end);
/* Says the walk did not reach [start, end), which it covers (a deadline,
 * the byte limit, a header in a swapped page): its private bytes are
 * unknown, not overhead, while the rest of the walk stands.  Ordered as
 * the other spans.  Returns 0, -EINVAL, -ENOMEM. */
int heap_walk_add_unknown(struct heap_walk *w, uint64_t start, uint64_t end);
/* Says the walk is about [start, end) (after any range it was given
 * before: covers come in address order) and reads its residency through
 * src into w->runs.  Returns 0, -EINVAL out of order, -ENOMEM, or the
 * source's error (-ESRCH: the process is gone). */
int heap_walk_cover(struct heap_walk *w, struct memsource *src, uint64_t start, uint64_t end);
/* The private bytes (resident or swapped pages) of [start, end) as the
 * walk's covers read them. */
uint64_t heap_walk_private(const struct heap_walk *w, uint64_t start, uint64_t end);
/* Frees what w holds and zeroes it; accepts NULL. */
void heap_walk_done(struct heap_walk *w);

/* The figures of one class, private bytes (in_use + free + overhead +
 * unknown = the class's private bytes); returnable is part of free. */
struct heap_figures {
	bool known;          /* some walk described this class */
	uint64_t in_use, free, overhead, unknown, returnable;
	char how[HEAP_HOW_MAX];
};

/* What a walker may spend: bytes of the process's memory read (per
 * process per census; RW_HEAP_READ_MAX by default), a deadline on the
 * monotonic clock (0: none), and retries of a walk that did not check
 * out. */
struct heap_limits {
	uint64_t max_bytes;
	uint64_t deadline_us;
	unsigned retries;
};

/* The walkers see the census's regions (classified, evidence applied)
 * and the process's memory.  Each returns 0 with what it found in *w
 * (w->n_spans 0 and no covers: nothing of its allocator here), or
 * -ESRCH when the process vanished, -ENOMEM; a walk that did not check
 * out is not an error (w->failed). */
struct heap_walk_input {
	struct memsource *src;
	const struct region *regions;
	size_t n_regions;
	const struct heap_limits *limits;
	const char *exe, *cmdline; /* for the runtime (runtimes.h); may be NULL */
	int pid;
};

/* The figures of each class from the walks of one census: for a class
 * some walk is about, in_use, free, overhead, unknown and returnable
 * adding up to class_private[k] (its private bytes as the census counted
 * them), and how, its walks' sentences joined; the other classes are not
 * known.  regions are the census's (sorted; a walk counts only the parts
 * of its covers in regions of its class).  A class's private bytes in
 * regions no walk covered are unknown, as are those of a walk that
 * failed; where the pages moved between the census's read and the walk's
 * (the counts of the walk exceed the class's), the walk's figures are
 * scaled down to fit, so the sum stays exact. */
void heap_figures_compute(const struct heap_walk *walks, size_t n_walks, const struct region *regions,
			  size_t n_regions, const uint64_t class_private[_CLASS_MAX], struct heap_figures ret[_CLASS_MAX]);
