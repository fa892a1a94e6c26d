/* The report of a replay: the rows it shows (ranked, cut to --top), the
 * integrity verdict, the site names, and the two ways it is written — text
 * lines and JSON Lines, each line for line as the reference writes them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace-analyzer.h"
#include "trace-integrity.h"
#include "trace-rank.h"
#include "trace-symbols.h"

struct trace_report_options {
	enum trace_sort sort;
	size_t top;
	struct trace_filter filter;
	bool include_sites;   /* site rows (the replay must have tracked sites) */
	/* stack rows (the replay must have tracked sites and stacks: a trace
	 * without stacks gets site rows instead) */
	bool include_stacks;
	bool has_site_detail; /* site_detail rows for this return address */
	uint64_t site_detail;
	const char *symbols_path; /* names for site rows, or NULL */
};

struct trace_site_name {
	bool found;
	const char *function;
	const char *location;
	const char *object;
};

struct trace_report {
	struct trace_integrity integrity;
	struct trace_rows scopes, sites, stacks, sizes, site_scopes;
	struct trace_site_name *names; /* one per site row */
	/* The frames of the stack rows, row after row: those of row i start
	 * at first_frame_name[i] and are its stack's n_frames. */
	struct trace_site_name *frame_names;
	size_t *first_frame_name;
	/* --stacks on a trace with no stack at all: site rows instead */
	bool stacks_fell_back;
	struct trace_symbols *symbols;
};

/* A stack row's status: "recorded" (a stack event defined its frames),
 * "missing" (events name its id, no stack event defines it: a trace cut
 * short) or "none" (the row of events without a stack_id). */
const char *trace_report_stack_status(const struct trace_stack *s);
/* The stack of a stack row. */
const struct trace_stack *trace_report_stack(const struct trace_analyzer *a, const struct trace_row *row);

/* Builds the report.  The binary of symbols_path is opened only when there
 * are site rows to name, and before anything is written, so a binary that
 * cannot be read fails the command without half a report.  Returns 0, or
 * a negative errno with a reason in err. */
int trace_report_build(const struct trace_analyzer *a, const struct trace_report_options *o,
		       struct trace_report *ret, struct error *err);
/* Whether the summary shows the mapped ranges' ledger: for the physical
 * layer, as the reference does, and for the backing layer when it saw
 * maps or unmaps (the tracer's mmap events, which the reference's
 * producers never wrote there). */
static inline bool trace_report_shows_mapped(const struct trace_analyzer *a)
{
	return a->options.layer == TRACE_LAYER_PHYSICAL ||
	       (a->options.layer == TRACE_LAYER_BACKING && (a->physical.maps || a->physical.unmaps ||
							     a->physical.failed_maps || a->physical.failed_unmaps));
}

void trace_report_done(struct trace_report *r);

/* Write the report; return 0 or -EIO when the stream failed. */
int trace_report_text(const struct trace_analyzer *a, const struct trace_report_options *o,
		      const struct trace_report *r, FILE *f);
int trace_report_jsonl(const struct trace_analyzer *a, const struct trace_report_options *o,
		       const struct trace_report *r, FILE *f);
