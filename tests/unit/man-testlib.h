/* Checking the manual pages against a table of the code: whether a
 * section of a page names a word as a macro's argument (".Li private_max",
 * ".Cm swap ,"), so that a column or key the table gains and the page does
 * not document fails a test. */
#pragma once

#include "testlib.h"

#include <ctype.h>

/* The text of man/NAME from the line that starts with from up to the next
 * line that starts with to (NULL: the end); newly allocated.  Fails the
 * test when the page or the start is not there. */
static inline char *man_section(const char *name, const char *from, const char *to)
{
	char path[4200], *text = NULL, *start, *end;
	size_t len = 0;
	FILE *f;

	/* the pages are beside tests/data, in the repository's man/ */
	snprintf(path, sizeof(path), "%s/../../man/%s", fixture(""), name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot read it", path);
	if (getdelim(&text, &len, '\0', f) < 0)
		fail_msg("%s: empty", path);
	fclose(f);
	start = strstr(text, from);
	while (start && start != text && start[-1] != '\n')
		start = strstr(start + 1, from);
	if (!start) {
		fail_msg("%s: no line starting with \"%s\"", path, from);
		return text; /* (fail_msg does not return) */
	}
	end = to ? strstr(start + strlen(from), to) : NULL;
	while (end && end[-1] != '\n')
		end = strstr(end + 1, to);
	char *section = strndup(start, end ? (size_t)(end - start) : strlen(start));
	free(text);
	return section;
}

/* Whether a macro line of section (".Li", ".Cm", ".It Li", ...) has word
 * as an argument of its own. */
static inline bool man_names(const char *section, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(section, word); p; p = strstr(p + 1, word)) {
		const char *line = p;
		while (line > section && line[-1] != '\n')
			line--;
		bool starts = p == section || isspace((unsigned char)p[-1]);
		bool ends = !p[n] || isspace((unsigned char)p[n]) || p[n] == ',';
		if (*line == '.' && starts && ends)
			return true;
	}
	return false;
}
