/* The decoration rule (style.h). */
#include "style.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool style_decorate(bool terminal, const char *no_color, const char *term)
{
	if (!terminal)
		return false;
	/* no-color.org: set and not empty, whatever its value */
	if (no_color && no_color[0])
		return false;
	return !(term && strcmp(term, "dumb") == 0);
}

bool style_decorate_stdout(void)
{
	return style_decorate(isatty(STDOUT_FILENO) == 1, getenv("NO_COLOR"), getenv("TERM"));
}
