/* The capture-integrity verdict: how far a trace can be trusted as a record
 * of what happened, from its sequence numbers, its trace.start/trace.stop
 * bounds and its unbalanced events.  The first rule that holds decides:
 * no_events, non_monotonic_sequence, sequence_gaps,
 * missing_sequence_metadata, multiple_trace_sessions, missing_start_event,
 * missing_stop_event, lifecycle_not_bounded, unbalanced_events, else
 * complete. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "trace-analyzer.h"

#define TRACE_INTEGRITY_METHOD "memtrace_event_sequence_and_lifecycle_v1"

struct trace_integrity {
	const char *status;
	const char *action;
	const char *message; /* NULL when complete */
	uint64_t event_count;
	uint64_t sequenced_event_count;
	uint64_t unsequenced_event_count;
	bool has_first_sequence, has_last_sequence, has_start_sequence, has_stop_sequence;
	uint64_t first_sequence, last_sequence, start_sequence, stop_sequence;
	uint64_t sequence_gap_count;
	uint64_t missing_sequence_event_count;
	uint64_t sequence_regression_count;
	uint64_t start_event_count;
	uint64_t stop_event_count;
	uint64_t unbalanced_event_count;
};

/* What a complete verdict still does not prove (the JSON "limits"). */
extern const char *const trace_integrity_limits[2];

void trace_integrity_of(const struct trace_analyzer *a, struct trace_integrity *ret);
