/* ramwatch top's model: the rows it shows and how they are ordered,
 * filtered, drawn as a bar split by class and a sparkline.  Pure: the
 * daemon's answers (doc/protocol.md) in, plain values out, so the unit
 * tests feed it canned answers; top-layout.c turns it into a screen and
 * cmd-top.c asks the daemon and reads the keys. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classes.h"

/* Points of a sparkline: the window is cut into this many buckets (the
 * history op's step_ms), one glyph each. */
#define TOP_SPARK_POINTS 20u
/* Classes kept per process, largest first; a census has at most one of
 * each class (scanner/classes.h), and this leaves room for classes a newer
 * daemon knows. */
#define TOP_CLASSES_MAX 32u
/* Processes whose history (sparkline, growth) is asked for per refresh:
 * the largest by private memory, then those of the current order on the
 * screen.  Each is one small read of the store; past this, a process's
 * sparkline and growth are those of its last read, or unknown. */
#define TOP_HISTORY_MAX 200u
/* Bytes kept of a user's name, a command name and a command line (as
 * text_visible shows them), cut at a character boundary. */
#define TOP_NAME_MAX 32u
#define TOP_COMMAND_MAX 256u
/* Bytes kept of a process's cgroup and unit (as text_visible shows them),
 * cut at a character boundary: processes whose names agree in these bytes
 * are one group. */
#define TOP_GROUP_NAME_MAX 512u

enum top_sort {
	TOP_SORT_PRIVATE,
	TOP_SORT_RESIDENT,
	TOP_SORT_PEAK,   /* peak private */
	TOP_SORT_GROWTH, /* private now less private at the window's start */
	TOP_SORT_VRAM,
	_TOP_SORT_MAX,
};

/* "private", "resident", "peak", "growth", "vram" → the key, or -1. */
int top_sort_from_name(const char *name);
const char *top_sort_name(enum top_sort s);

/* What the list groups its processes by. */
enum top_group_by {
	TOP_GROUP_NONE,
	TOP_GROUP_CGROUP, /* the process's memory cgroup */
	TOP_GROUP_UNIT,   /* its systemd unit */
	_TOP_GROUP_MAX,
};

/* "none", "cgroup", "unit" → the grouping, or -1. */
int top_group_from_name(const char *name);
const char *top_group_name(enum top_group_by by);

struct top_class_share {
	char key[CLASS_KEY_MAX + 1]; /* the class's key ("malloc") */
	uint64_t private; /* bytes, at the census */
	/* of it, in use by the program and kept free by its allocator, as the
	 * last census that read them said (a heap walk: the daemon reads them
	 * at some censuses only); have_in_use false where none did */
	bool have_in_use;
	uint64_t in_use, free;
};

/* How a class is drawn: its letter (the bar holds it, so a terminal
 * without colours tells the classes apart too) and its colour (1 to 7:
 * the curses colours red to white), both from the class registry
 * (classes.h). */
struct top_class_look {
	char glyph;
	int colour;
};

/* Every known class has a letter of its own; a class this client does
 * not know is '?' in white. */
struct top_class_look top_class_look(const char *key);

struct top_row {
	int64_t process_id;
	int pid;
	int64_t uid;
	char user[TOP_NAME_MAX + 1];       /* "" when the system has no name for uid */
	char comm[TOP_NAME_MAX + 1];
	char command[TOP_COMMAND_MAX + 1]; /* the command line, or comm without one */
	/* its memory cgroup and unit; have_* false where the daemon does not
	 * know them (null in the answer) */
	bool have_cgroup, have_unit;
	char cgroup[TOP_GROUP_NAME_MAX + 1], unit[TOP_GROUP_NAME_MAX + 1];
	int64_t first_seen;                /* unix ms, -1 unknown */
	uint64_t private, resident, peak_private;
	bool have_vram;
	uint64_t vram;

	/* the newest census of any status, as the processes answer tells it
	 * (census_id 0: none yet) */
	int64_t census_id, census_time;
	char census_trigger[16], census_status[16];

	/* the classes of the newest ok census read so far (classes_census_id
	 * 0: none), largest first */
	int64_t classes_census_id, classes_time;
	size_t n_classes;
	struct top_class_share classes[TOP_CLASSES_MAX];
	/* the sums of the classes' in use and free (have_in_use: some class
	 * has them), and the time of the census that read them */
	bool have_in_use;
	uint64_t in_use, free;
	int64_t in_use_time;

	/* private memory over the window, a point per bucket, oldest first
	 * (spark_known false where the bucket has no sample) */
	uint64_t spark[TOP_SPARK_POINTS];
	bool spark_known[TOP_SPARK_POINTS];
	/* private at the window's start (its first sample in the window) */
	bool have_start;
	uint64_t start_private;
	bool have_growth;
	int64_t growth; /* private now less start_private, else less the first known point */
};

/* The rows of a processes answer (its watched processes, in its order).
 * Returns 0 with *ret (free()) and *ret_n, -EBADMSG when the answer is not
 * a processes answer (a process without pid or private size), -ENOMEM. */
int top_rows_parse(const json_t *answer, struct top_row **ret, size_t *ret_n);

/* Carries what the previous refresh read (classes, sparkline, growth) to
 * the rows of the same instance (process_id) in rows. */
void top_rows_carry(struct top_row *rows, size_t n, const struct top_row *old, size_t n_old);

/* The sparkline and growth of row from a history answer of its instance
 * over (since, since + TOP_SPARK_POINTS * step_ms], asked with that
 * step_ms.  A sample belongs to the bucket its time falls in; a bucket
 * without one stays unknown. */
void top_row_take_history(struct top_row *row, const json_t *history, int64_t since, int64_t step_ms);

/* The window's first sample from a history answer of its instance over
 * the window asked without step_ms and with a limit of 1 (rows come
 * oldest first; a coalesced row that began before the window is given at
 * its start): private at the start, and the growth since. */
void top_row_take_start(struct top_row *row, const json_t *history);

/* The classes of the newest ok census of a history answer into row.  A
 * class's in use and free are that census's, or, where it read none (the
 * daemon reads them at some censuses only), those the row had from an
 * earlier census.  Returns 0, or -ENOENT when the answer holds no ok
 * census (row untouched). */
int top_row_take_census(struct top_row *row, const json_t *history);

/* Whether row passes the filters: name (NULL or "": any) is a part of its
 * command name or command line, case ignored; user (NULL or "": any) is
 * its user's name or its uid. */
bool top_row_matches(const struct top_row *row, const char *name, const char *user);

/* The rows that pass the filters, in the order of key, largest first (an
 * unknown growth or VRAM last; equal ones by pid), as indexes into rows in
 * ret_order (n entries).  Returns how many. */
size_t top_order(const struct top_row *rows, size_t n, enum top_sort key, const char *name, const char *user,
		 size_t *ret_order);

/* A group of the list: the processes of one cgroup or unit that pass the
 * filters, and their sums. */
struct top_group {
	const char *name; /* the rows' cgroup or unit (in the rows), NULL: unknown */
	size_t processes;
	uint64_t private, resident;
	bool have_vram; /* some process of it has VRAM: vram is their sum */
	uint64_t vram;
	/* the sum of the order's key over its processes that have a value
	 * (have_key false: none has one) */
	bool have_key;
	int64_t key;
};

/* A line of the list: a group's header or a process. */
struct top_line {
	bool header;
	size_t at; /* header: an index into the groups; a process: into the order */
};

/* Groups the processes of order (n_order indexes into rows, as top_order
 * gives them) by by: the groups largest first by the sum of key (a group
 * without any value of it last; equal ones by name, the unknown last),
 * each group's processes in the order they had.  Rewrites order in the
 * grouped order; writes the groups into ret_groups (n_order entries at
 * most) and the lines, each group's header then its processes, into
 * ret_lines (2 * n_order at most).  With TOP_GROUP_NONE: no groups, a
 * line per process, the order untouched.  Returns 0, or -ENOMEM (order
 * untouched, and the lines those of TOP_GROUP_NONE). */
int top_group_order(const struct top_row *rows, size_t *order, size_t n_order, enum top_group_by by, enum top_sort key,
		    struct top_group *ret_groups, size_t *ret_n_groups, struct top_line *ret_lines, size_t *ret_n_lines);

/* The line of the process at pos of the order, or n when none is. */
size_t top_line_of(const struct top_line *lines, size_t n, size_t pos);

/* Which rows to ask the history of: the TOP_HISTORY_MAX largest by
 * private, and those of order (the screen's, first shown first) among
 * them first.  Writes at most max indexes into ret and returns how many. */
size_t top_history_pick(const struct top_row *rows, size_t n, const size_t *order, size_t n_order, size_t *ret,
			size_t max);

/* The cells of a bar of the row's private memory, as long as its share of
 * biggest (the largest private on the screen) of width cells (at least
 * one for any memory, none for none).  Returns the length. */
unsigned top_bar_length(uint64_t private, uint64_t biggest, unsigned width);

/* Splits length cells among the n classes by their private memory
 * (largest remainder: the cells add up to length when any class holds
 * memory; a class too small for a cell gets none).  Writes ret_cells[i]
 * for each class.  Returns the cells given out. */
unsigned top_bar_split(const struct top_class_share *classes, size_t n, unsigned length, unsigned *ret_cells);

/* The sparkline of n points: each known point one of eight levels from
 * the lowest to the highest known point ("▁" to "█", or with ascii
 * "_.-~=+*#"), an unknown one a space; all equal points are the lowest
 * level.  Writes a NUL-terminated text into buf (at least n * 3 + 1
 * bytes) and returns its length in bytes. */
size_t top_sparkline(const uint64_t *points, const bool *known, size_t n, bool ascii, char *buf, size_t size);

/* The machine's line from a status answer's "system": total, available
 * (and its share), swap, and pressure where the kernel has PSI.  Writes
 * into buf; returns false when the answer has no system (then buf says
 * so). */
bool top_system_line(const json_t *status, char *buf, size_t size);
