/* The fast parser of event lines: one pass over the bytes, no JSON tree,
 * for the lines producers write — one flat object of plain ASCII strings,
 * unsigned integers and booleans.  It accepts only lines it is sure of and
 * leaves every other line, valid or not, to the general parser, so the two
 * never disagree and every error message comes from one place. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "trace-event.h"

/* The most fields not of this format a line may carry and still be read
 * here (beyond that the general parser reads it). */
#define TRACE_FAST_UNKNOWN_MAX 8

/* The longest key, with its quotes and colon, that is predicted. */
#define TRACE_FAST_TOKEN_MAX 32

/* What the parser learned from earlier lines: producers write the fields
 * of an event in a fixed order, so after a given field the next key is
 * nearly always the one seen there last time.  A predicted key is checked
 * with a few word compares instead of being scanned and looked up; a wrong
 * prediction costs one compare and the key is read the usual way.  What
 * a line means never depends on this. */
struct trace_fast {
	struct {
		uint8_t len; /* 0: no prediction */
		uint8_t field;
		char token[TRACE_FAST_TOKEN_MAX]; /* "key": */
	} next[_TRACE_FIELD_MAX + 1]; /* after each field, and at the start */
};

void trace_fast_init(struct trace_fast *s);

/* Parses one trimmed, non-empty line.  Returns 0 with *e filled (its scope
 * points into line), or -EAGAIN for a line the general parser must read.
 * Reads only line[0..len); s (may be NULL) only speeds it up. */
int trace_fast_parse(struct trace_fast *s, const char *line, size_t len, struct trace_event *e);
