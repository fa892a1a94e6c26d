/* The report as JSON Lines: one "summary" object, then "scope", "site",
 * "stack" (each with its "frames", an array of objects, caller first),
 * "site_detail", "site_size" and "site_scope" objects, each with the
 * reference's fields in the reference's order.  The logical layer names
 * its counters as requests (open_request_bytes, requested_bytes, ...). */
#include "trace-jsonw.h"
#include "trace-report.h"

#include <errno.h>
#include <string.h>

static void counter_fields(struct trace_jsonw *w, const struct trace_counters *c, bool logical)
{
	if (logical) {
		trace_jsonw_u64(w, "open_request_bytes", c->live_bytes);
		trace_jsonw_u64(w, "high_water_open_request_bytes", c->high_water_live_bytes);
		trace_jsonw_u64(w, "bulk_invalidated_requests", c->bulk_invalidated_requests);
		trace_jsonw_u64(w, "bulk_invalidated_bytes", c->bulk_invalidated_bytes);
		trace_jsonw_u64(w, "untracked_requests", c->untracked_requests);
		trace_jsonw_u64(w, "untracked_request_bytes", c->untracked_request_bytes);
	} else {
		trace_jsonw_u64(w, "retained_bytes", c->retained_bytes);
		trace_jsonw_u64(w, "high_water_retained_bytes", c->high_water_retained_bytes);
		trace_jsonw_u64(w, "live_bytes", c->live_bytes);
		trace_jsonw_u64(w, "high_water_live_bytes", c->high_water_live_bytes);
	}
	trace_jsonw_u64(w, "allocated_bytes", c->allocated_bytes);
	if (logical) {
		trace_jsonw_u64(w, "requested_bytes", c->allocated_bytes);
		trace_jsonw_u64(w, "explicitly_closed_bytes", c->freed_bytes);
	} else {
		trace_jsonw_u64(w, "freed_bytes", c->freed_bytes);
	}
	trace_jsonw_u64(w, "allocations", c->allocations);
	trace_jsonw_u64(w, "frees", c->frees);
	trace_jsonw_u64(w, logical ? "open_requests" : "live_allocations", c->live_allocations);
	trace_jsonw_u64(w, "completed_lifetimes", c->completed_lifetimes);
	trace_jsonw_u64(w, "lifetime_total_events", c->lifetime_total_events);
	trace_jsonw_u64(w, "lifetime_mean_events", trace_counters_mean_events(c));
	trace_jsonw_u64(w, "lifetime_max_events", c->lifetime_max_events);
	trace_jsonw_u64(w, "lifetime_total_byte_events", c->lifetime_total_byte_events);
	trace_jsonw_u64(w, "lifetime_mean_byte_events", trace_counters_mean_byte_events(c));
	trace_jsonw_u64(w, "lifetime_max_byte_events", c->lifetime_max_byte_events);
}

static void layer_fields(struct trace_jsonw *w, const struct trace_analyzer *a)
{
	const struct trace_counters *c = &a->totals.c;

	if (a->options.layer != TRACE_LAYER_LOGICAL) {
		trace_jsonw_u64(w, "live_allocations", c->live_allocations);
		trace_jsonw_u64(w, "freed_bytes", c->freed_bytes);
		trace_jsonw_u64(w, "live_bytes", c->live_bytes);
		trace_jsonw_u64(w, "high_water_live_bytes", c->high_water_live_bytes);
		trace_jsonw_u64(w, "retained_bytes", c->retained_bytes);
		trace_jsonw_u64(w, "high_water_retained_bytes", c->high_water_retained_bytes);
		return;
	}
	struct trace_coverage cov;
	trace_analyzer_coverage(a, &cov);
	trace_jsonw_u64(w, "open_requests", c->live_allocations);
	trace_jsonw_u64(w, "requested_bytes", c->allocated_bytes);
	trace_jsonw_u64(w, "explicitly_closed_bytes", c->freed_bytes);
	trace_jsonw_u64(w, "open_request_bytes", c->live_bytes);
	trace_jsonw_u64(w, "high_water_open_request_bytes", c->high_water_live_bytes);
	trace_jsonw_u64(w, "bulk_invalidated_requests", c->bulk_invalidated_requests);
	trace_jsonw_u64(w, "bulk_invalidated_bytes", c->bulk_invalidated_bytes);
	trace_jsonw_u64(w, "untracked_requests", c->untracked_requests);
	trace_jsonw_u64(w, "untracked_request_bytes", c->untracked_request_bytes);
	trace_jsonw_u64(w, "lifecycle_events", a->totals.lifecycle_events);
	trace_jsonw_cstr(w, "lifecycle_coverage", trace_coverage_status(&cov));
	trace_jsonw_u64(w, "lifecycle_instrumented_producers", cov.instrumented);
	trace_jsonw_u64(w, "lifecycle_uninstrumented_producers", cov.uninstrumented);
	trace_jsonw_u64(w, "lifecycle_not_required_producers", cov.not_required);
	trace_jsonw_u64(w, "prefix_complete_producers", cov.prefix_complete);
	trace_jsonw_u64(w, "prefix_partial_producers", cov.prefix_partial);
}

static void physical_object(struct trace_jsonw *w, const struct trace_analyzer *a)
{
	const struct trace_physical *p = &a->physical;

	trace_jsonw_object(w, "physical");
	trace_jsonw_u64(w, "maps", p->maps);
	trace_jsonw_u64(w, "unmaps", p->unmaps);
	trace_jsonw_u64(w, "protects", p->protects);
	trace_jsonw_u64(w, "discards", p->discards);
	trace_jsonw_u64(w, "decommits", p->decommits);
	trace_jsonw_u64(w, "advises", p->advises);
	trace_jsonw_u64(w, "failed_maps", p->failed_maps);
	trace_jsonw_u64(w, "failed_unmaps", p->failed_unmaps);
	trace_jsonw_u64(w, "failed_protects", p->failed_protects);
	trace_jsonw_u64(w, "failed_discards", p->failed_discards);
	trace_jsonw_u64(w, "failed_decommits", p->failed_decommits);
	trace_jsonw_u64(w, "failed_advises", p->failed_advises);
	trace_jsonw_u64(w, "mapped_bytes", p->mapped_bytes);
	trace_jsonw_u64(w, "unmapped_bytes", p->unmapped_bytes);
	trace_jsonw_u64(w, "displaced_bytes", p->displaced_bytes);
	trace_jsonw_u64(w, "untracked_unmap_bytes", p->untracked_unmap_bytes);
	trace_jsonw_u64(w, "live_mapped_bytes", p->live_mapped_bytes);
	trace_jsonw_u64(w, "high_water_mapped_bytes", p->high_water_mapped_bytes);
	trace_jsonw_u64(w, "live_ranges", trace_ledger_count(&a->ledger));
	trace_jsonw_close(w, '}');
}

static void integrity_object(struct trace_jsonw *w, const struct trace_integrity *v)
{
	trace_jsonw_object(w, "capture_integrity");
	trace_jsonw_cstr(w, "method", TRACE_INTEGRITY_METHOD);
	trace_jsonw_cstr(w, "status", v->status);
	trace_jsonw_cstr(w, "action", v->action);
	trace_jsonw_cstr(w, "message", v->message);
	trace_jsonw_u64(w, "event_count", v->event_count);
	trace_jsonw_u64(w, "sequenced_event_count", v->sequenced_event_count);
	trace_jsonw_u64(w, "unsequenced_event_count", v->unsequenced_event_count);
	trace_jsonw_opt_u64(w, "first_sequence", v->has_first_sequence, v->first_sequence);
	trace_jsonw_opt_u64(w, "last_sequence", v->has_last_sequence, v->last_sequence);
	trace_jsonw_u64(w, "sequence_gap_count", v->sequence_gap_count);
	trace_jsonw_u64(w, "missing_sequence_event_count", v->missing_sequence_event_count);
	trace_jsonw_u64(w, "sequence_regression_count", v->sequence_regression_count);
	trace_jsonw_u64(w, "start_event_count", v->start_event_count);
	trace_jsonw_u64(w, "stop_event_count", v->stop_event_count);
	trace_jsonw_u64(w, "unbalanced_event_count", v->unbalanced_event_count);
	trace_jsonw_opt_u64(w, "start_sequence", v->has_start_sequence, v->start_sequence);
	trace_jsonw_opt_u64(w, "stop_sequence", v->has_stop_sequence, v->stop_sequence);
	trace_jsonw_array(w, "limits");
	for (size_t i = 0; i < sizeof(trace_integrity_limits) / sizeof(trace_integrity_limits[0]); i++)
		trace_jsonw_element(w, trace_integrity_limits[i]);
	trace_jsonw_close(w, ']');
	trace_jsonw_close(w, '}');
}

static void summary_line(FILE *f, const struct trace_analyzer *a, const struct trace_report_options *o,
			 const struct trace_report *r)
{
	const struct trace_totals *t = &a->totals;
	const struct trace_counters *c = &t->c;
	struct trace_jsonw w;

	trace_jsonw_begin(&w, f);
	trace_jsonw_cstr(&w, "kind", "summary");
	trace_jsonw_cstr(&w, "layer", trace_layer_name(a->options.layer));
	trace_jsonw_cstr(&w, "sort", trace_sort_name(o->sort));
	trace_jsonw_u64(&w, "events", a->events);
	trace_jsonw_u64(&w, "allocations", c->allocations);
	trace_jsonw_u64(&w, "frees", c->frees);
	trace_jsonw_u64(&w, "resizes", t->resizes);
	trace_jsonw_u64(&w, "remaps", t->remaps);
	trace_jsonw_u64(&w, "allocated_bytes", c->allocated_bytes);
	layer_fields(&w, a);
	trace_jsonw_u64(&w, "completed_lifetimes", c->completed_lifetimes);
	trace_jsonw_u64(&w, "lifetime_total_events", c->lifetime_total_events);
	trace_jsonw_u64(&w, "lifetime_mean_events", trace_counters_mean_events(c));
	trace_jsonw_u64(&w, "lifetime_max_events", c->lifetime_max_events);
	trace_jsonw_u64(&w, "lifetime_total_byte_events", c->lifetime_total_byte_events);
	trace_jsonw_u64(&w, "lifetime_mean_byte_events", trace_counters_mean_byte_events(c));
	trace_jsonw_u64(&w, "lifetime_max_byte_events", c->lifetime_max_byte_events);
	trace_jsonw_u64(&w, "failed_allocations", t->failed_allocations);
	trace_jsonw_u64(&w, "failed_resizes", t->failed_resizes);
	trace_jsonw_u64(&w, "failed_remaps", t->failed_remaps);
	trace_jsonw_u64(&w, "unmatched_frees", t->unmatched_frees);
	trace_jsonw_u64(&w, "unmatched_resizes", t->unmatched_resizes);
	trace_jsonw_u64(&w, "unmatched_remaps", t->unmatched_remaps);
	if (trace_report_shows_mapped(a))
		physical_object(&w, a);
	integrity_object(&w, &r->integrity);
	trace_jsonw_end_line(&w);
}

static void stack_line(FILE *f, const struct trace_analyzer *a, const struct trace_report *r, size_t i,
		       const char *sort, bool logical)
{
	const struct trace_stack *s = trace_report_stack(a, &r->stacks.v[i]);
	struct trace_jsonw w;

	trace_jsonw_begin(&w, f);
	trace_jsonw_cstr(&w, "kind", "stack");
	trace_jsonw_cstr(&w, "sort", sort);
	trace_jsonw_opt_u64(&w, "stack_id", s->id != 0, s->id);
	trace_jsonw_cstr(&w, "status", trace_report_stack_status(s));
	trace_jsonw_array(&w, "frames");
	for (uint32_t k = 0; k < s->n_frames; k++) {
		const struct trace_site_name *n = &r->frame_names[r->first_frame_name[i] + k];
		trace_jsonw_object(&w, NULL);
		trace_jsonw_u64(&w, "return_address", a->frames[s->first_frame + k]);
		if (n->found) {
			trace_jsonw_cstr(&w, "symbol", n->function);
			trace_jsonw_cstr(&w, "location", n->location);
			trace_jsonw_cstr(&w, "object", n->object);
		}
		trace_jsonw_close(&w, '}');
	}
	trace_jsonw_close(&w, ']');
	counter_fields(&w, r->stacks.v[i].counters, logical);
	trace_jsonw_end_line(&w);
}

int trace_report_jsonl(const struct trace_analyzer *a, const struct trace_report_options *o,
		       const struct trace_report *r, FILE *f)
{
	bool logical = a->options.layer == TRACE_LAYER_LOGICAL;
	const char *sort = trace_sort_name(o->sort);
	struct trace_jsonw w;

	summary_line(f, a, o, r);
	for (size_t i = 0; i < r->scopes.n; i++) {
		trace_jsonw_begin(&w, f);
		trace_jsonw_cstr(&w, "kind", "scope");
		trace_jsonw_cstr(&w, "sort", sort);
		trace_jsonw_str(&w, "scope", r->scopes.v[i].name, r->scopes.v[i].name_len);
		counter_fields(&w, r->scopes.v[i].counters, logical);
		trace_jsonw_end_line(&w);
	}
	for (size_t i = 0; i < r->sites.n; i++) {
		trace_jsonw_begin(&w, f);
		trace_jsonw_cstr(&w, "kind", "site");
		trace_jsonw_cstr(&w, "sort", sort);
		trace_jsonw_u64(&w, "return_address", r->sites.v[i].key);
		if (r->names[i].found) {
			trace_jsonw_cstr(&w, "symbol", r->names[i].function);
			trace_jsonw_cstr(&w, "location", r->names[i].location);
		}
		counter_fields(&w, r->sites.v[i].counters, logical);
		trace_jsonw_end_line(&w);
	}
	for (size_t i = 0; i < r->stacks.n; i++)
		stack_line(f, a, r, i, sort, logical);
	if (o->has_site_detail) {
		trace_jsonw_begin(&w, f);
		trace_jsonw_cstr(&w, "kind", "site_detail");
		trace_jsonw_cstr(&w, "sort", sort);
		trace_jsonw_u64(&w, "return_address", o->site_detail);
		trace_jsonw_end_line(&w);
		for (size_t i = 0; i < r->sizes.n; i++) {
			trace_jsonw_begin(&w, f);
			trace_jsonw_cstr(&w, "kind", "site_size");
			trace_jsonw_cstr(&w, "sort", sort);
			trace_jsonw_u64(&w, "return_address", o->site_detail);
			trace_jsonw_u64(&w, "len", r->sizes.v[i].key);
			counter_fields(&w, r->sizes.v[i].counters, logical);
			trace_jsonw_end_line(&w);
		}
		for (size_t i = 0; i < r->site_scopes.n; i++) {
			trace_jsonw_begin(&w, f);
			trace_jsonw_cstr(&w, "kind", "site_scope");
			trace_jsonw_cstr(&w, "sort", sort);
			trace_jsonw_u64(&w, "return_address", o->site_detail);
			trace_jsonw_str(&w, "scope", r->site_scopes.v[i].name, r->site_scopes.v[i].name_len);
			counter_fields(&w, r->site_scopes.v[i].counters, logical);
			trace_jsonw_end_line(&w);
		}
	}
	return ferror(f) ? -EIO : 0;
}
