/* Event lines to events: blank lines skipped, the fast parser first, the
 * general one for what it leaves. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-event.h"
#include "trace-fast.h"
#include "trace-general.h"

struct trace_parser {
	struct trace_fast fast;
	struct trace_general general;
	uint64_t fast_lines;    /* lines the fast parser read */
	uint64_t general_lines; /* lines left to the general one */
};

void trace_parser_init(struct trace_parser *p);
void trace_parser_done(struct trace_parser *p);

/* Parses one line (without its newline).  Returns 1 with *e filled (valid
 * until the next call: its scope may point into line or the parser), 0
 * for a line with only spaces, tabs and carriage returns, -EINVAL with a
 * reason in err or -ENOMEM. */
int trace_parser_line(struct trace_parser *p, const char *line, size_t len, struct trace_event *e, struct error *err);
