/* The line front end: trims, skips blank lines, picks a parser. */
#include "trace-parse.h"

#include <errno.h>


void trace_parser_init(struct trace_parser *p)
{
	*p = (struct trace_parser){ 0 };
	trace_fast_init(&p->fast);
	trace_general_init(&p->general);
}

void trace_parser_done(struct trace_parser *p)
{
	trace_general_done(&p->general);
}

static bool trimmed(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int trace_parser_line(struct trace_parser *p, const char *line, size_t len, struct trace_event *e, struct error *err)
{
	int r;

	while (len > 0 && trimmed(line[len - 1]))
		len--;
	while (len > 0 && trimmed(line[0]))
		line++, len--;
	if (len == 0)
		return 0;
	if (trace_fast_parse(&p->fast, line, len, e) == 0) {
		p->fast_lines++;
		return 1;
	}
	p->general_lines++;
	if ((r = trace_general_parse(&p->general, line, len, e, err)) < 0)
		return r;
	return 1;
}
