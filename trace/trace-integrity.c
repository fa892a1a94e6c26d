/* The capture-integrity verdict, decided in the reference's order. */
#include "trace-integrity.h"

const char *const trace_integrity_limits[2] = {
	"sequence gaps are lower-bound missing-row evidence",
	"complete bounds do not prove whole-process coverage, low perturbation, or "
	"representative workload coverage",
};

static void set(struct trace_integrity *v, const char *status, const char *action, const char *message)
{
	v->status = status;
	v->action = action;
	v->message = message;
}

/* Equal when both are absent or both hold the same number. */
static bool same(bool has_a, uint64_t a, bool has_b, uint64_t b)
{
	return has_a == has_b && (!has_a || a == b);
}

static void classify(struct trace_integrity *v)
{
	if (v->event_count == 0)
		return set(v, "no_events", "capture_trace_events", "memtrace contains no events");
	if (v->sequence_regression_count != 0)
		return set(v, "non_monotonic_sequence", "inspect_trace_writer",
			   "memtrace sequence is non-monotonic; treat the summary as corrupt evidence");
	if (v->missing_sequence_event_count != 0)
		return set(v, "sequence_gaps", "inspect_recorder_capacity_or_writer_failures",
			   "memtrace sequence has gaps; treat the summary as partial evidence");
	if (v->unsequenced_event_count != 0)
		return set(v, "missing_sequence_metadata", "recapture_with_sequence_metadata",
			   "one or more memtrace events lack sequence metadata; completeness is unknown");
	if (v->start_event_count > 1 || v->stop_event_count > 1)
		return set(v, "multiple_trace_sessions", "capture_one_trace_session",
			   "memtrace mixes multiple trace lifecycles; completeness is ambiguous");
	if (v->start_event_count == 0)
		return set(v, "missing_start_event", "capture_complete_trace_lifecycle",
			   "memtrace does not contain its start event; treat it as partial evidence");
	if (v->stop_event_count == 0)
		return set(v, "missing_stop_event", "capture_complete_trace_lifecycle",
			   "memtrace does not contain its stop event; terminal state is partial evidence");
	if (!same(v->has_start_sequence, v->start_sequence, v->has_first_sequence, v->first_sequence) ||
	    !same(v->has_stop_sequence, v->stop_sequence, v->has_last_sequence, v->last_sequence))
		return set(v, "lifecycle_not_bounded", "capture_complete_trace_lifecycle",
			   "memtrace start and stop events do not bound the event sequence");
	if (v->unbalanced_event_count != 0)
		return set(v, "unbalanced_events", "inspect_allocation_and_scope_lifecycles",
			   "memtrace contains unmatched allocation or scope lifecycle events");
}

void trace_integrity_of(const struct trace_analyzer *a, struct trace_integrity *ret)
{
	const struct trace_sequence *s = &a->sequence;
	struct trace_integrity v = {
		.status = "complete",
		.action = "none",
		.message = NULL,
		.event_count = a->events,
		.sequenced_event_count = s->sequenced_events,
		.unsequenced_event_count = s->unsequenced_events,
		.has_first_sequence = s->has_first,
		.first_sequence = s->first,
		.has_last_sequence = s->has_last,
		.last_sequence = s->last,
		.has_start_sequence = s->has_start,
		.start_sequence = s->start,
		.has_stop_sequence = s->has_stop,
		.stop_sequence = s->stop,
		.sequence_gap_count = s->sequence_gaps,
		.missing_sequence_event_count = s->missing_sequence_events,
		.sequence_regression_count = s->sequence_regressions,
		.start_event_count = s->start_events,
		.stop_event_count = s->stop_events,
		.unbalanced_event_count = trace_analyzer_unbalanced(a),
	};
	classify(&v);
	*ret = v;
}
