/* The words a person reads about a class's in use and free memory (the
 * heap walks' figures, heap-walk.h): which allocator keeps the free part,
 * what would give its returnable part back, and what a class's growth
 * was made of.  Shared by ramwatch scan and summary, diff, report (text
 * and HTML), so that the same figures read the same everywhere.
 *
 * The allocator is told by the walk's own sentence (a census's "how":
 * "glibc 2.36: 3 arenas, ..."), or for the python class by the class;
 * an allocator this table does not name is "the allocator", with no
 * advice. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "classes.h"
#include "heap-trend.h"

struct census;
struct census_totals;

/* Class k of census c as heap-trend.h compares it: known when a heap walk
 * read the class's allocator (its in use and free are known). */
struct heap_point heap_words_point(const struct census *c, enum class_id k);

struct heap_allocator {
	const char *name;        /* "glibc", "pymalloc", ...; "the allocator" */
	/* the free bytes in words: kept_before, the bytes, kept_after
	 * ("" "312 MiB" " free inside glibc's arenas") */
	const char *kept_before, *kept_after;
	/* what gives free memory back, for a person to act on; NULL: none known */
	const char *give_back;
};

/* The allocator of class cls whose walks said how (may be NULL).  Never
 * NULL. */
const struct heap_allocator *heap_words_allocator(enum class_id cls, const char *how);

/* One sentence on the figures of class cls (t: its counters, which must
 * know in_use to returnable), ending with what the walk read (how), as a
 * line: led by "- " in Markdown (md), by two spaces in text. */
void heap_words_class(FILE *f, enum class_id cls, const struct census_totals *t, const char *how, bool md);

/* What a class that grew from a to b grew by and of what ("grew by
 * 300 MiB (in use +20.0 MiB, free +280 MiB): kept by ..."): what the growth
 * was made of (g, heap_trend_growth) and, when the allocator kept it, the
 * returnable part and what gives it back.  Nothing for
 * HEAP_GROWTH_NONE.  The caller names the class before, and ends the
 * sentence. */
void heap_words_growth(FILE *f, enum class_id cls, enum heap_growth g, const struct heap_point *a,
		       const struct heap_point *b, const char *how);
