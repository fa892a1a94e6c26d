/* The classifier: gives every region of a process one class, by its shape,
 * with an ordered rule table (first match wins).  Each region keeps the rule
 * that decided it, so "why is this region malloc?" has an answer. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "classes.h"
#include "region.h"

/* Hints: what is known about the process beyond its regions, read from
 * /proc before classifying (not the evidence pass's reads of its memory,
 * which come after: evidence.h).  Everything is optional: a saved smaps
 * file comes with none of it. */
struct classify_hints {
	/* Stack pointers of the process's threads, sorted ascending
	 * (/proc/PID/task/TID/syscall); NULL when they could not be read. */
	const uint64_t *stack_pointers;
	size_t n_stack_pointers;
	const char *exe;     /* the executable's path, or NULL */
	const char *cmdline; /* arguments joined by spaces, or NULL (JVM -Xmx) */
};

/* Sets cls and rule of each of the n regions, which must be sorted by
 * address and not overlap (as the parser delivers them).  Never fails:
 * the last rules catch everything.  Returns 0, or -ENOMEM. */
int classify_regions(struct region *regions, size_t n, const struct classify_hints *hints);

/* What a rule decides by: a name the kernel shows (a path, [heap],
 * [anon:NAME]), something read from the process (its threads' stack
 * pointers among the hints, what its allocators wrote as the evidence pass
 * reads it), or a shape (size, alignment, neighbours: a guess, however
 * good).  The first two confirm a region's class. */
enum rule_basis {
	BASIS_NAME,
	BASIS_READ,
	BASIS_SHAPE,
};

struct classify_rule_info {
	const char *key; /* "glibc_arena" */
	const char *why; /* a sentence for people */
	int cls;         /* enum class_id, or -1 when it takes its neighbour's */
	enum rule_basis basis;
};

/* Rules at fixed places of the table: those decided after the rule lists
 * ran, by the reserves' neighbours (classify.c) or by evidence read from
 * the process (evidence.c). */
enum classify_fixed_rule {
	RULE_GUARD_OF_STACK,
	RULE_RESERVE_OF_BELOW,
	RULE_RESERVATION,
	RULE_GLIBC_CHUNKS,
	RULE_GLIBC_HEAP_INFO,
	RULE_GLIBC_BRK,
	RULE_PYMALLOC_POOLS,
	RULE_JEMALLOC_BASE,
	RULE_JEMALLOC_EXTENTS,
	RULE_MIMALLOC,
	RULE_TCMALLOC,
	/* a Windows reservation's rules, decided by win-census.c */
	RULE_WIN_IMAGE,
	RULE_WIN_MAPPED_FILE,
	RULE_WIN_SECTION,
	RULE_WIN_PINNED_CUDA,
	RULE_WIN_WRITE_COMBINE,
	RULE_WIN_NT_HEAP,
	RULE_WIN_SEGMENT_HEAP,
	RULE_WIN_HEAP_LIST,
	RULE_WIN_HEAP_BLOCK,
	RULE_WIN_THREAD_STACK,
	RULE_WIN_GUARD_STACK,
	RULE_WIN_MMGP,
	RULE_WIN_MIMALLOC,
	RULE_WIN_JVM_HEAP,
	RULE_WIN_CLR_HEAP,
	RULE_WIN_V8_PAGE,
	RULE_WIN_JIT,
	RULE_WIN_OPENBLAS,
	RULE_WIN_PYTHON,
	RULE_WIN_RESERVED,
	RULE_WIN_PRIVATE,
	_RULE_FIXED_MAX
};

/* Gives every inaccessible region that continues its neighbour below
 * (reserve_tail) that neighbour's class again, after evidence changed it. */
void classify_follow_reserves(struct region *regions, size_t n);

size_t classify_rule_count(void);
const struct classify_rule_info *classify_rule(size_t index);
/* Returns the index of the rule with that key, or -1. */
int classify_rule_from_key(const char *key);
