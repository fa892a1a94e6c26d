/* Whether the client's output may be decorated: colour, and line drawing
 * such as the "── mark: NAME ──" of history.  The one rule for every
 * command (ramwatch(1), ENVIRONMENT): only on a terminal, and neither when
 * NO_COLOR is set to a value that is not empty (no-color.org) nor when
 * TERM is "dumb".  Output to a pipe or a file is plain ASCII around the
 * data, so that scripts and non-UTF-8 terminals read it unchanged. */
#pragma once

#include <stdbool.h>

/* The rule itself, from its inputs: whether the output is a terminal, and
 * the values of NO_COLOR and TERM (NULL: not set). */
bool style_decorate(bool terminal, const char *no_color, const char *term);

/* The rule for standard output, as this process sees it. */
bool style_decorate_stdout(void);
