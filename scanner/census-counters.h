/* The counters of a census's summary, declared once: what struct
 * census_totals holds for the whole process and for each class.
 *
 * Everything that carries the summary follows this list: the struct, the
 * census JSON's totals and class objects (written and read,
 * scanner/census-json.c), the stored totals of a census (columns of
 * censuses) and its class rows (census_class_rows), read back the same
 * way (schema/store-census.c, schema/store-read-census-load.c), the class
 * objects of the history answer's censuses (schema/store-read-window.c)
 * and the metrics per class (daemon/export-text.c).  What cannot follow
 * it, the migrations' CREATE TABLE and ALTER TABLE, the views,
 * tests/unit/test-census-counters.c checks against it, with every place
 * each counter reaches or is listed as not reaching.
 *
 * A counter more: one line here, a migration that adds its columns (to
 * censuses, and to census_class_rows when it is stored per class, with the
 * census_classes view and the censuses_rekey trigger made again to name
 * it), and the scanner code that counts it, setting its bit in struct
 * census's unknown_classes[class] for a class that does not know it.
 *
 * The counters of a heap walk (in_use to returnable) are not sums over
 * regions: census_summarise leaves them unknown in every class and in the
 * totals, and census_set_heap (census.h) gives a class the figures its
 * walks found (heap-walk.h), and the totals their sum over the classes
 * that know them.  Header only. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* X(name, class_key, total_key, per_class, light_class, light_total, optional, history, metric, unit, help)
 *   name         the member of struct census_totals
 *   class_key    its key in a class object of the census JSON, and its
 *                column of census_class_rows (and census_classes)
 *   total_key    its key in the census JSON's totals, and its column of
 *                censuses
 *   per_class    yes: the class objects and class rows carry it; no: the
 *                totals alone (a census read back knows it per class as
 *                unknown)
 *   light_class  yes: a light census keeps it (per class, in its totals)
 *   light_total  as it has it, a value or unknown; no: a light census did
 *                not read it and has 0: its column is NULL, its JSON 0,
 *                and it reads back as 0, so a counter a census may leave
 *                unknown is yes
 *   optional     yes: the census JSON may lack it or say null (it came
 *                after the format's first version): unknown; no: required
 *   history      yes: the class objects of the history answer's censuses
 *                carry it (light: null where light_class is no)
 *   metric       yes: ramwatch_memory_bytes{class="...", kind="name"}
 *   unit, help   for people
 * The order is the order of the JSON objects' keys. */
#define CENSUS_COUNTERS(X)                                                                                         \
	X(private, private, private, yes, no, yes, no, yes, yes, "bytes",                                            \
	  "anonymous memory, resident or swapped: Anonymous + Swap")                                                  \
	X(resident, resident, resident, yes, no, yes, no, yes, yes, "bytes", "resident memory: Rss")                  \
	X(pss, pss, pss, yes, no, yes, no, no, no, "bytes", "the proportional share of resident memory: Pss")        \
	X(swap, swap, swap, yes, no, yes, no, no, no, "bytes", "swapped memory: Swap")                                \
	X(size, size, size, yes, yes, yes, no, yes, no, "bytes", "address space")                                     \
	X(count, count, regions, yes, yes, yes, no, yes, no, "regions", "regions (kernel mappings, or their parts)") \
	X(locked, locked, locked, no, no, yes, yes, no, no, "bytes", "locked memory: Locked")                         \
	X(hugetlb, hugetlb, hugetlb, no, no, yes, yes, no, no, "bytes",                                               \
	  "huge pages of hugetlbfs: Shared_Hugetlb + Private_Hugetlb")                                               \
	X(confirmed, confirmed, confirmed, yes, no, no, yes, no, no, "bytes",                                         \
	  "private bytes whose class is known from a name the kernel shows or from evidence read in the process, "     \
	  "not from a shape")                                                                                         \
	X(in_use, in_use, in_use, yes, yes, yes, yes, yes, no, "bytes",                                               \
	  "private bytes in blocks an allocator handed out and did not get back (heap-walk.h); unknown in a class "   \
	  "no allocator was asked about")                                                                             \
	X(free_kept, free, free, yes, yes, yes, yes, yes, no, "bytes",                                                \
	  "private bytes an allocator keeps free for later: freed blocks it did not give back to the kernel")         \
	X(overhead, overhead, overhead, yes, yes, yes, yes, no, no, "bytes",                                          \
	  "private bytes of an allocator's regions neither in use nor free: its headers and own structures")         \
	X(unknown, unknown, unknown, yes, yes, yes, yes, no, no, "bytes",                                             \
	  "private bytes of a class an allocator accounts for that no walk could tell (a walk that did not check "    \
	  "out, a read limit reached)")                                                                               \
	X(returnable, returnable, returnable, yes, yes, yes, yes, yes, no, "bytes",                                   \
	  "of the free bytes, whole pages the allocator could give back to the kernel (malloc_trim(0), an emptied "   \
	  "arena)")

/* A counter's bit in masks of counters (struct census's unknowns). */
#define CENSUS_COUNTER_ENUM_(name, ...) CENSUS_COUNTER_##name,
enum census_counter {
	CENSUS_COUNTERS(CENSUS_COUNTER_ENUM_) _CENSUS_N_COUNTERS
};
#define CENSUS_COUNTER_BIT(name) (1u << CENSUS_COUNTER_##name)

/* CENSUS_IF_yes(x...) is x, CENSUS_IF_no(x...) nothing: a column of the
 * list chooses what an expansion writes. */
#define CENSUS_IF_yes(...) __VA_ARGS__
#define CENSUS_IF_no(...)

/* SQL text, each piece led by a comma:
 *   CENSUS_SQL_TOTAL_NAMES   the totals' columns of censuses
 *   CENSUS_SQL_TOTAL_PARAMS  a "?" for each
 *   CENSUS_SQL_CLASS_NAMES   the columns of census_class_rows (per_class)
 *   CENSUS_SQL_CLASS_PARAMS  a "?" for each */
#define CENSUS_SQL_TOTAL_NAME_(name, class_key, total_key, ...) ", " #total_key
#define CENSUS_SQL_TOTAL_NAMES CENSUS_COUNTERS(CENSUS_SQL_TOTAL_NAME_)
#define CENSUS_SQL_TOTAL_PARAM_(...) ", ?"
#define CENSUS_SQL_TOTAL_PARAMS CENSUS_COUNTERS(CENSUS_SQL_TOTAL_PARAM_)
#define CENSUS_SQL_CLASS_NAME_(name, class_key, total_key, per_class, ...) CENSUS_IF_##per_class(", " #class_key)
#define CENSUS_SQL_CLASS_NAMES CENSUS_COUNTERS(CENSUS_SQL_CLASS_NAME_)
#define CENSUS_SQL_CLASS_PARAM_(name, class_key, total_key, per_class, ...) CENSUS_IF_##per_class(", ?")
#define CENSUS_SQL_CLASS_PARAMS CENSUS_COUNTERS(CENSUS_SQL_CLASS_PARAM_)

/* The list at run time (scanner/census.c), for code and tests that walk
 * it. */
struct census_counter_info {
	const char *name, *class_key, *total_key;
	bool per_class, light_class, light_total, optional, history, metric;
	const char *unit, *help;
	size_t offset; /* of its member in struct census_totals (census_counter()) */
};
extern const struct census_counter_info census_counters[_CENSUS_N_COUNTERS];
