/* ramwatch top's terminal, through curses (ncursesw: its UTF-8 glyphs
 * need the wide library and a UTF-8 locale).  Colours are used only where
 * the terminal has them and NO_COLOR (no-color.org) is not set; the
 * frame's letters tell classes apart without them. */
#include "top-screen.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static bool open_now, colours;

int top_screen_open(bool colour)
{
	/* newterm, not initscr: initscr exits the program on a terminal it
	 * cannot use, newterm returns NULL */
	if (!newterm(NULL, stdout, stdin))
		return -ENOTTY;
	open_now = true;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	(void)curs_set(0);
	/* Esc alone is a key here: wait 25 ms, not a second, for the rest
	 * of an escape sequence */
	set_escdelay(25);
	colours = colour && has_colors() && start_color() == OK;
	if (colours) {
		(void)use_default_colors();
		static const short map[8] = { -1, COLOR_RED, COLOR_GREEN, COLOR_YELLOW, COLOR_BLUE, COLOR_MAGENTA, COLOR_CYAN, COLOR_WHITE };
		for (short i = 1; i < 8; i++)
			(void)init_pair(i, COLOR_BLACK, map[i]);
	}
	return 0;
}

void top_screen_close(void)
{
	if (!open_now)
		return;
	endwin();
	open_now = false;
}

void top_screen_size(unsigned *ret_lines, unsigned *ret_cols)
{
	*ret_lines = LINES > 0 ? (unsigned)LINES : 24;
	*ret_cols = COLS > 0 ? (unsigned)COLS : 80;
}

static attr_t attrs_of(const struct top_cell *c)
{
	attr_t a = A_NORMAL;
	if (c->attr & TOP_ATTR_BOLD)
		a |= A_BOLD;
	if (c->attr & TOP_ATTR_REVERSE)
		a |= A_REVERSE;
	if ((c->attr & TOP_ATTR_BAR) && c->colour > 0 && c->colour < 8 && colours)
		a |= COLOR_PAIR(c->colour);
	else if (c->attr & TOP_ATTR_BAR)
		a |= A_BOLD;
	return a;
}

void top_screen_paint(const struct top_frame *f)
{
	unsigned lines, cols;

	top_screen_size(&lines, &cols);
	erase();
	for (unsigned y = 0; y < f->lines && y < lines; y++)
		for (unsigned x = 0; x < f->cols && x < cols; x++) {
			const struct top_cell *c = &f->cells[(size_t)y * f->cols + x];
			/* the last cell of the screen: writing it would scroll */
			if (y == lines - 1 && x == cols - 1)
				break;
			attrset(attrs_of(c));
			mvaddstr((int)y, (int)x, c->glyph);
		}
	attrset(A_NORMAL);
	refresh();
}

int top_screen_key(int timeout_ms)
{
	timeout(timeout_ms < 0 ? 0 : timeout_ms);
	int k = getch();
	switch (k) {
	case ERR: return TOP_KEY_NONE;
	case KEY_UP: return TOP_KEY_UP;
	case KEY_DOWN: return TOP_KEY_DOWN;
	case KEY_PPAGE: return TOP_KEY_PAGE_UP;
	case KEY_NPAGE: return TOP_KEY_PAGE_DOWN;
	case KEY_HOME: return TOP_KEY_HOME;
	case KEY_END: return TOP_KEY_END;
	case KEY_ENTER: case '\r': case '\n': return TOP_KEY_ENTER;
	case 27: return TOP_KEY_ESCAPE;
	case KEY_BACKSPACE: case 127: case 8: return TOP_KEY_BACKSPACE;
	case KEY_RESIZE: return TOP_KEY_RESIZE;
	default: return k >= 0 && k < 256 ? k : TOP_KEY_NONE;
	}
}
