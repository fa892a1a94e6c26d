/* The fast tier's stored row, declared once.
 *
 * A sample reads a few figures of a process (SAMPLE_FIGURES).  The fast
 * tier sums up the samples of one StoreInterval into one row of the table
 * samples, each of whose counters (SAMPLE_COLUMNS) keeps the lowest, the
 * highest or the last value of one figure, or, for samples, how many
 * samples the row holds.  Everything that handles a row follows these two
 * lists: the row structs (struct store_sample, the fast tier's accumulator
 * struct sample_acc, the store's runs, the reader's struct read_sample),
 * the statements that insert, merge, cut and roll up rows with their
 * binding and reading, the check that tells whether two rows may coalesce,
 * the history answer's keys and its CSV columns, and the metrics of the
 * last sample.  What cannot follow them, the CREATE TABLE of a migration
 * and the views, tests/unit/test-sample-row.c checks against them.
 *
 * A counter more over a figure there is already (say the highest swap):
 * one line in SAMPLE_COLUMNS, and a migration that adds its column
 * (ALTER TABLE samples ADD COLUMN name INTEGER NOT NULL DEFAULT 0, the
 * value rows written before it read back as).  A figure more: a line in
 * SAMPLE_FIGURES, at least its LAST counter in SAMPLE_COLUMNS, and the
 * code that reads it (daemon/fast-tier.c reads the figures into the
 * target's fast part and hands them over as struct sample_figures).
 *
 * Header only, with no SQLite in it: the daemon, the client and the store
 * all expand the lists. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The figures of one sample: X(name, metric, help).
 *   name    the member of struct sample_figures; a counter's figure
 *   metric  yes: the metrics give its last sample, summed over a group, as
 *           ramwatch_process_memory_bytes{kind="name"}; no: they do not */
#define SAMPLE_FIGURES(X)                                                                                     \
	X(private, yes, "private memory: anonymous memory resident or swapped, RssAnon + VmSwap of status")   \
	X(resident, yes, "resident memory: VmRSS of status (statm's resident between two reads of status)") \
	X(swap, yes, "swapped memory: VmSwap of status")

/* The counters of a row: X(name, ctype, sqltype, figure, how, unit, key, csv, views, help).
 *   name     the column of samples, and the member of every row struct
 *   ctype    its type in struct store_sample
 *   sqltype  its type in the table (PRAGMA table_info)
 *   figure   the SAMPLE_FIGURES figure it sums up; none for samples (the
 *            run-time table says "none" too)
 *   how      MIN, MAX or LAST: the lowest, highest or last value of the
 *            figure over the row's samples; SUM: added up (samples, which
 *            a coalesced row's parts share out by time, is the only one)
 *            Rows merge (a second row of the same time, a rollup, a
 *            bucket of history) the same way.
 *   unit     what it counts
 *   key      its key in the history answer's sample rows, and the name
 *            of its column in ramwatch history --format csv
 *   csv      yes: a column of ramwatch history --format csv; no: not
 *   views    the views that show it, as "VIEW.COLUMN", or
 *            "VIEW.COLUMN/FILTER=VALUE" for a long-format view whose rows
 *            a column tells apart (tests/unit/test-sample-row.c reads
 *            each); "" for none
 * The order is the order of the answer's keys and of the CSV columns. */
#define SAMPLE_COLUMNS(X)                                                                                          \
	X(private_last, uint64_t, "INTEGER", private, LAST, "bytes", "private", yes, "memory_timeline.private",       \
	  "private memory at the last sample of the row")                                                           \
	X(private_min, uint64_t, "INTEGER", private, MIN, "bytes", "private_min", yes, "",                            \
	  "the lowest private memory of the row's samples")                                                          \
	X(private_max, uint64_t, "INTEGER", private, MAX, "bytes", "private_max", yes,                                \
	  "memory_timeline.private_max samples_ends.private_max grafana_process_memory.value/kind=private",          \
	  "the highest private memory of the row's samples")                                                         \
	X(resident_last, uint64_t, "INTEGER", resident, LAST, "bytes", "resident", yes, "memory_timeline.resident",   \
	  "resident memory at the last sample of the row")                                                          \
	X(resident_min, uint64_t, "INTEGER", resident, MIN, "bytes", "resident_min", yes, "",                         \
	  "the lowest resident memory of the row's samples")                                                         \
	X(resident_max, uint64_t, "INTEGER", resident, MAX, "bytes", "resident_max", yes,                             \
	  "memory_timeline.resident_max samples_ends.resident_max grafana_process_memory.value/kind=resident",      \
	  "the highest resident memory of the row's samples")                                                        \
	X(swap_last, uint64_t, "INTEGER", swap, LAST, "bytes", "swap", yes, "memory_timeline.swap",                   \
	  "swapped memory at the last sample of the row")                                                           \
	X(samples, uint32_t, "INTEGER", none, SUM, "samples", "samples", no, "",                                      \
	  "how many samples the row sums up")

/* ------------------------------------------------------------ expansions */

/* A member of a row struct, of the column's own type or of one for all. */
#define SAMPLE_MEMBER(name, ctype, ...) ctype name;
#define SAMPLE_MEMBER_INT64(name, ...) int64_t name;
#define SAMPLE_FIGURE_MEMBER(name, ...) uint64_t name;

/* The figures of one sample (the fast tier fills them in). */
struct sample_figures {
	SAMPLE_FIGURES(SAMPLE_FIGURE_MEMBER)
};

/* Each column's place in the lists, from 0. */
#define SAMPLE_ENUM_(name, ...) SAMPLE_COLUMN_##name,
enum sample_column {
	SAMPLE_COLUMNS(SAMPLE_ENUM_) _SAMPLE_N_COLUMNS
};
#define SAMPLE_FIGURE_ENUM_(name, ...) SAMPLE_FIGURE_##name,
enum sample_figure {
	SAMPLE_FIGURES(SAMPLE_FIGURE_ENUM_) _SAMPLE_N_FIGURES
};

/* SQL text, each piece led by a comma, to follow the columns before them:
 *   SAMPLE_SQL_NAMES       ", private_last, private_min, ..."
 *   SAMPLE_SQL_PREFIXED(P) the same, each name after the prefix P ("s.")
 *   SAMPLE_SQL_PARAMS      ", ?, ?, ..." (SQLite numbers each ? after the
 *                          highest parameter before it)
 *   SAMPLE_SQL_MERGE       ", name = min(name, excluded.name), ...": an
 *                          upsert's merge of a row into one of the same
 *                          key, by each column's how */
#define SAMPLE_SQL_NAME_(name, ...) ", " #name
#define SAMPLE_SQL_NAMES SAMPLE_COLUMNS(SAMPLE_SQL_NAME_)
#define SAMPLE_SQL_PARAM_(name, ...) ", ?"
#define SAMPLE_SQL_PARAMS SAMPLE_COLUMNS(SAMPLE_SQL_PARAM_)
#define SAMPLE_SQL_MERGE_MIN(n) ", " #n " = min(" #n ", excluded." #n ")"
#define SAMPLE_SQL_MERGE_MAX(n) ", " #n " = max(" #n ", excluded." #n ")"
#define SAMPLE_SQL_MERGE_LAST(n) ", " #n " = excluded." #n
#define SAMPLE_SQL_MERGE_SUM(n) ", " #n " = " #n " + excluded." #n
#define SAMPLE_SQL_MERGE_(name, ctype, sqltype, figure, how, ...) SAMPLE_SQL_MERGE_##how(name)
#define SAMPLE_SQL_MERGE SAMPLE_COLUMNS(SAMPLE_SQL_MERGE_)

/* Whether one row, a, may stand for another, b, in a coalesced row:
 * every counter but the SUM one the same. */
#define SAMPLE_SAME_MIN(a, b, n) && (a)->n == (b)->n
#define SAMPLE_SAME_MAX SAMPLE_SAME_MIN
#define SAMPLE_SAME_LAST SAMPLE_SAME_MIN
#define SAMPLE_SAME_SUM(a, b, n)
#define SAMPLE_SAME_(name, ctype, sqltype, figure, how, ...) SAMPLE_SAME_##how(a_, b_, name)

/* Whether row x is steady: every counter of a figure equal to the
 * figure's last value, so that the figure held still over the row's
 * samples (each figure has a LAST counter). */
#define SAMPLE_STEADY_MIN(x, n, figure) && (x)->n == (x)->figure##_last
#define SAMPLE_STEADY_MAX SAMPLE_STEADY_MIN
#define SAMPLE_STEADY_LAST(x, n, figure)
#define SAMPLE_STEADY_SUM(x, n, figure)
#define SAMPLE_STEADY_(name, ctype, sqltype, figure, how, ...) SAMPLE_STEADY_##how(x_, name, figure)

/* Merges row x into a, where x comes after a (history's buckets, the
 * fast tier's accumulator): a's fields and x's, by each column's how. */
#define SAMPLE_MERGE_MIN(a, x, n) (a)->n = (x)->n < (a)->n ? (x)->n : (a)->n;
#define SAMPLE_MERGE_MAX(a, x, n) (a)->n = (x)->n > (a)->n ? (x)->n : (a)->n;
#define SAMPLE_MERGE_LAST(a, x, n) (a)->n = (x)->n;
#define SAMPLE_MERGE_SUM(a, x, n) (a)->n += (x)->n;
#define SAMPLE_MERGE_(name, ctype, sqltype, figure, how, ...) SAMPLE_MERGE_##how(a_, x_, name)

/* For a row struct T that has every column as a member, these define
 * static functions: void fn(T *a, const T *x), which merges x into a;
 * bool fn(const T *a, const T *b), the coalescing check; bool fn(const T
 * *x), whether x is steady. */
#define SAMPLE_DEFINE_MERGE(fn, T)                           \
	static inline void fn(T *a_, const T *x_)            \
	{                                                    \
		SAMPLE_COLUMNS(SAMPLE_MERGE_)                \
	}
#define SAMPLE_DEFINE_SAME(fn, T)                            \
	static inline bool fn(const T *a_, const T *b_)      \
	{                                                    \
		return true SAMPLE_COLUMNS(SAMPLE_SAME_);    \
	}
#define SAMPLE_DEFINE_STEADY(fn, T)                          \
	static inline bool fn(const T *x_)                   \
	{                                                    \
		return true SAMPLE_COLUMNS(SAMPLE_STEADY_);  \
	}

/* ------------------------------------------------------------ the table, at run time */

enum sample_how { SAMPLE_MIN, SAMPLE_MAX, SAMPLE_LAST, SAMPLE_SUM };

struct sample_column_info {
	const char *name, *ctype, *sqltype;
	const char *figure; /* "none" for samples */
	enum sample_how how;
	const char *unit, *key;
	bool csv;
	const char *views;
	const char *help;
};

struct sample_figure_info {
	const char *name;
	bool metric;
	const char *help;
};

/* SAMPLE_COLUMNS and SAMPLE_FIGURES as arrays, in their order
 * (schema/sample-row.c), for code and tests that walk them. */
extern const struct sample_column_info sample_columns[_SAMPLE_N_COLUMNS];
extern const struct sample_figure_info sample_figures[_SAMPLE_N_FIGURES];
