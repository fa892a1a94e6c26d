/* ramwatch report --trace FILE: the census's malloc class beside the live
 * bytes of the process's allocation trace. */
#pragma once

#include <jansson.h>
#include <stdio.h>

/* Replays the trace at path (logical layer) and puts its figures, with the
 * last census's malloc resident, in report's "trace" object.  Returns 0,
 * or the exit status 1 after saying why. */
int report_trace_attach(json_t *report, const char *path);
/* The Markdown section of report's "trace", when it has one.  Returns 0 or
 * -EIO. */
int render_report_trace(const json_t *report, FILE *f);
