/* The general parser of event lines: any JSON the format allows (escapes,
 * any Unicode, nested values in fields it does not define), read with
 * jansson, with the reason a line is refused.
 *
 * jansson keeps integers as signed 64-bit numbers and refuses larger ones,
 * but event fields go up to 2^64-1 (and a field this format does not
 * define may hold any number).  So numbers are taken out before jansson
 * sees the line: every integer from 2^63 up becomes a negative placeholder
 * that indexes a side table, every negative integer becomes -1 and every
 * number with a fraction or exponent becomes 0.5.  None of these rewrites
 * changes whether a line is valid or what a field of this format means:
 * negative and fractional numbers are refused in every field of it all
 * the same. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "limits.h"
#include "trace-event.h"

struct trace_general {
	char *text; /* the line with its numbers rewritten */
	size_t text_size;
	struct trace_big {
		uint64_t value;
		bool too_large; /* above 2^64-1 */
	} *bigs;
	size_t bigs_size;
	json_t *json; /* the last line's, which its event's scope points into */
	uint64_t frames[RW_TRACE_STACK_FRAMES_MAX]; /* the last line's "frames" */
};

void trace_general_init(struct trace_general *g);
void trace_general_done(struct trace_general *g);

/* Parses one trimmed line.  Returns 0 with *e filled (its scope valid
 * until the next call), -EINVAL with a reason in err or
 * -ENOMEM. */
int trace_general_parse(struct trace_general *g, const char *line, size_t len, struct trace_event *e,
			struct error *err);
