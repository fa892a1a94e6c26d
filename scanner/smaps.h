/* The smaps parser: turns the text of /proc/PID/smaps (or smaps_rollup, or
 * maps) into regions.  Pure: it is fed bytes and never opens anything, so
 * the same code parses a live process, a saved file and fuzz input. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "region.h"

struct strpool;

struct smaps_parser {
	struct region *regions;
	size_t n_regions, allocated;
	size_t max_regions;
	struct strpool *paths; /* interned paths of the regions, shared with the census */

	uint64_t line;  /* lines seen so far; the number of the line in error */
	uint64_t bytes; /* bytes fed */
	char *carry;    /* a line cut by the end of a chunk */
	size_t carry_len, carry_allocated;
	int field_hint; /* the last field seen: the next is likely the one after */
	/* "Name:" of each field as two masked 8-byte words, for the fast path */
	uint64_t field_word[_SMAPS_FIELD_MAX][2], field_mask[_SMAPS_FIELD_MAX][2];
	uint64_t field_padded[_SMAPS_FIELD_MAX][2]; /* "Rss:" and spaces to 16 columns */
	uint8_t field_len[_SMAPS_FIELD_MAX];
	/* the field that followed each field (index + 1; [0]: after a header)
	 * the last time: the kernel's order, learnt, whatever its version */
	int8_t next_field[_SMAPS_FIELD_MAX + 1];
	int8_t field_count[_SMAPS_FIELD_MAX]; /* enum region_count kept, or -1 */
	int error;      /* first error, sticky */
	char message[160];
};

/* Prepares a parser that accepts at most max_regions regions (0: the
 * default RW_REGIONS_MAX).  paths is where region paths are interned; the
 * caller keeps ownership.  Returns 0 or -ENOMEM. */
int smaps_parser_init(struct smaps_parser *p, size_t max_regions, struct strpool *paths);
/* Frees what the parser holds, including regions not taken. */
void smaps_parser_done(struct smaps_parser *p);

/* Feeds the next len bytes of input; lines may be cut anywhere.  Returns 0,
 * or a negative errno with the reason in p->message (with its line number):
 * -EBADMSG for malformed input, -E2BIG past max_regions, -ENOMEM.  After an
 * error every call returns it again. */
int smaps_parser_feed(struct smaps_parser *p, const char *data, size_t len);
/* Ends the input: parses a last line without its newline.  Returns as feed. */
int smaps_parser_finish(struct smaps_parser *p);

/* Parses one complete line (without its newline).  Returns as feed. */
int smaps_parse_line(struct smaps_parser *p, const char *line, size_t len);

/* Hands the regions to the caller, who frees them with regions_free(). */
struct region *smaps_parser_take(struct smaps_parser *p, size_t *ret_n);
