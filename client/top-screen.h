/* ramwatch top's terminal: curses set up and restored, a frame
 * (top-layout.h) painted, keys read.  The only file that includes
 * curses. */
#pragma once

#include <stdbool.h>

#include "top-layout.h"

/* Keys as cmd-top.c reads them: a character, or one of these. */
enum {
	TOP_KEY_NONE = -1, /* no key within the time asked */
	TOP_KEY_UP = 0x110000,
	TOP_KEY_DOWN,
	TOP_KEY_PAGE_UP,
	TOP_KEY_PAGE_DOWN,
	TOP_KEY_HOME,
	TOP_KEY_END,
	TOP_KEY_ENTER,
	TOP_KEY_ESCAPE,
	TOP_KEY_BACKSPACE,
	TOP_KEY_RESIZE,
};

/* Takes the terminal (full screen, keys one at a time, no echo, no
 * cursor).  colour: use the terminal's colours where it has them.
 * Returns 0, or -ENOTTY when the terminal cannot be used. */
int top_screen_open(bool colour);
/* Gives the terminal back as it was.  Safe to call when not open. */
void top_screen_close(void);
/* The terminal's size now. */
void top_screen_size(unsigned *ret_lines, unsigned *ret_cols);
/* Paints f over the whole screen. */
void top_screen_paint(const struct top_frame *f);
/* The next key, waiting at most timeout_ms (TOP_KEY_NONE after). */
int top_screen_key(int timeout_ms);
