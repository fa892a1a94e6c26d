/* ramwatch top's screen as values: a grid of cells (a character, its
 * colour and attribute) laid out from the model (top-model.h) and the
 * view's state.  Pure: top-screen.c paints a frame with curses, --once
 * prints it as text, the unit tests read it. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "macro.h"
#include "top-model.h"

/* A frame at most this large; a larger terminal shows this much. */
#define TOP_COLS_MAX 512u
#define TOP_LINES_MAX 1000u
/* Cells of each process's bar. */
#define TOP_BAR_CELLS 20u
/* Marks and censuses listed in the detail view, the newest. */
#define TOP_DETAIL_MARKS_MAX 10u

enum top_attr {
	TOP_ATTR_NONE = 0,
	TOP_ATTR_BOLD = 1,
	TOP_ATTR_REVERSE = 2, /* the picked row, the title */
	TOP_ATTR_BAR = 4,     /* a bar's cell: drawn in its colour as a block */
};

struct top_cell {
	char glyph[5]; /* one character, UTF-8, NUL-terminated */
	uint8_t colour; /* 0: the terminal's; 1..7: red .. white */
	uint8_t attr;   /* enum top_attr */
};

struct top_frame {
	unsigned lines, cols;
	struct top_cell *cells; /* lines * cols */
};

/* A blank frame of lines x cols (each at least 1, at most the limits
 * above).  Returns NULL when out of memory. */
struct top_frame *top_frame_new(unsigned lines, unsigned cols);
struct top_frame *top_frame_free(struct top_frame *f);
DEFINE_CLEANUP(struct top_frame *, top_frame_free)

/* Writes text (UTF-8, one column per character) at line y from column x,
 * cut at the frame's edge.  Returns the column after the last written. */
unsigned top_frame_put(struct top_frame *f, unsigned y, unsigned x, const char *text, uint8_t colour, uint8_t attr);

/* Prints the frame as text lines, without trailing blanks (--once). */
int top_frame_print(const struct top_frame *f, FILE *out);

/* What the screen shows around the rows. */
struct top_view {
	enum top_sort sort;
	const char *name_filter, *user_filter;  /* NULL or "": none */
	size_t selected;                        /* in the order */
	size_t first;                           /* the first line shown (scrolling) */
	bool detail;                            /* the picked process alone */
	bool ascii;                             /* no UTF-8 glyphs */
	const char *message;                    /* the last line: what happened, or NULL for the keys */
	const char *prompt;                     /* a line being typed ("mark name: ..."), or NULL */
	int64_t window_ms;                      /* the sparkline's window */
	int64_t interval_ms;
	int64_t only_uid;                       /* -1, or the uid the daemon filtered to */
	const char *system_line;                /* top_system_line's */
	/* the list's lines and groups as top_group_order gives them; lines
	 * NULL: a line per process of the order, no groups */
	enum top_group_by by;
	const struct top_line *lines;
	size_t n_lines;
	const struct top_group *groups;
	size_t n_groups;
};

/* How many lines (processes and groups' headers) fit a frame of lines
 * lines in the list view. */
unsigned top_layout_rows(unsigned lines);

/* Lays out the list view of the rows in order (n_order of them) into f.
 * detail (a history answer of the picked process over its life, or NULL)
 * is used in the detail view for its marks and censuses. */
void top_layout(struct top_frame *f, const struct top_view *v, const struct top_row *rows, const size_t *order,
		size_t n_order, const json_t *detail);
