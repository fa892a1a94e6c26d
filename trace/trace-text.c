/* The report as text lines: "memtrace ..." summary lines, then one line
 * per scope, site, stack (and one per frame of it) and --site detail
 * bucket, each a list of name=value
 * fields in the reference's order.  Scope paths in scope lines are written
 * as they are; where a line quotes a string (site_scope, symbols, the
 * caveat message) it is a JSON string. */
#include "trace-jsonw.h"
#include "trace-report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "text.h"

#define U PRIu64

static void optional(FILE *f, const char *name, bool has, uint64_t v)
{
	if (has)
		fprintf(f, " %s=%" U, name, v);
	else
		fprintf(f, " %s=none", name);
}

static void integrity_lines(FILE *f, const struct trace_integrity *v)
{
	fprintf(f,
		"memtrace capture_integrity=%s events=%" U " sequenced_events=%" U " unsequenced_events=%" U
		" sequence_gaps=%" U " missing_sequence_events=%" U " sequence_regressions=%" U
		" start_events=%" U " stop_events=%" U " unbalanced_events=%" U,
		v->status, v->event_count, v->sequenced_event_count, v->unsequenced_event_count,
		v->sequence_gap_count, v->missing_sequence_event_count, v->sequence_regression_count,
		v->start_event_count, v->stop_event_count, v->unbalanced_event_count);
	optional(f, "first_sequence", v->has_first_sequence, v->first_sequence);
	optional(f, "last_sequence", v->has_last_sequence, v->last_sequence);
	optional(f, "start_sequence", v->has_start_sequence, v->start_sequence);
	optional(f, "stop_sequence", v->has_stop_sequence, v->stop_sequence);
	fputc('\n', f);
	if (!v->message)
		return;
	fprintf(f, "memtrace capture caveat=%s action=%s message=", v->status, v->action);
	text_json_write(f, v->message, strlen(v->message));
	fputc('\n', f);
}

static void layer_lines(FILE *f, const struct trace_analyzer *a, const struct trace_report_options *o)
{
	const struct trace_counters *c = &a->totals.c;
	const char *layer = trace_layer_name(a->options.layer), *sort = trace_sort_name(o->sort);

	if (a->options.layer == TRACE_LAYER_LOGICAL) {
		struct trace_coverage cov;
		fprintf(f,
			"memtrace layer=%s sort=%s events=%" U " allocations=%" U " frees=%" U " open_requests=%" U
			" requested_bytes=%" U " explicitly_closed_bytes=%" U " open_request_bytes=%" U
			" high_water_open_request_bytes=%" U " bulk_invalidated_requests=%" U
			" bulk_invalidated_bytes=%" U " untracked_requests=%" U " untracked_request_bytes=%" U "\n",
			layer, sort, a->events, c->allocations, c->frees, c->live_allocations, c->allocated_bytes,
			c->freed_bytes, c->live_bytes, c->high_water_live_bytes, c->bulk_invalidated_requests,
			c->bulk_invalidated_bytes, c->untracked_requests, c->untracked_request_bytes);
		trace_analyzer_coverage(a, &cov);
		fprintf(f,
			"memtrace lifecycle_coverage=%s instrumented_producers=%" U " uninstrumented_producers=%" U
			" lifecycle_not_required_producers=%" U " prefix_complete_producers=%" U
			" prefix_partial_producers=%" U " lifecycle_events=%" U "\n",
			trace_coverage_status(&cov), cov.instrumented, cov.uninstrumented, cov.not_required,
			cov.prefix_complete, cov.prefix_partial, a->totals.lifecycle_events);
		return;
	}
	fprintf(f,
		"memtrace layer=%s sort=%s events=%" U " allocations=%" U " frees=%" U " live_allocations=%" U
		" allocated_bytes=%" U " freed_bytes=%" U " live_bytes=%" U " high_water_live_bytes=%" U "\n",
		layer, sort, a->events, c->allocations, c->frees, c->live_allocations, c->allocated_bytes,
		c->freed_bytes, c->live_bytes, c->high_water_live_bytes);
	fprintf(f, "memtrace retained_bytes=%" U " high_water_retained_bytes=%" U "\n", c->retained_bytes,
		c->high_water_retained_bytes);
}

static void lifetime_and_anomaly_lines(FILE *f, const struct trace_totals *t)
{
	const struct trace_counters *c = &t->c;

	fprintf(f,
		"memtrace lifetimes completed=%" U " total_events=%" U " mean_events=%" U " max_events=%" U
		" total_byte_events=%" U " mean_byte_events=%" U " max_byte_events=%" U "\n",
		c->completed_lifetimes, c->lifetime_total_events, trace_counters_mean_events(c),
		c->lifetime_max_events, c->lifetime_total_byte_events, trace_counters_mean_byte_events(c),
		c->lifetime_max_byte_events);
	if (t->failed_allocations || t->failed_resizes || t->failed_remaps || t->unmatched_frees ||
	    t->unmatched_resizes || t->unmatched_remaps)
		fprintf(f,
			"memtrace anomalies failed_allocations=%" U " failed_resizes=%" U " failed_remaps=%" U
			" unmatched_frees=%" U " unmatched_resizes=%" U " unmatched_remaps=%" U "\n",
			t->failed_allocations, t->failed_resizes, t->failed_remaps, t->unmatched_frees,
			t->unmatched_resizes, t->unmatched_remaps);
}

static void physical_lines(FILE *f, const struct trace_analyzer *a)
{
	const struct trace_physical *p = &a->physical;

	fprintf(f,
		"memtrace physical maps=%" U " unmaps=%" U " protects=%" U " discards=%" U " decommits=%" U
		" advises=%" U " mapped_bytes=%" U " unmapped_bytes=%" U " displaced_bytes=%" U
		" untracked_unmap_bytes=%" U " live_mapped_bytes=%" U " high_water_mapped_bytes=%" U
		" live_ranges=%" U "\n",
		p->maps, p->unmaps, p->protects, p->discards, p->decommits, p->advises, p->mapped_bytes,
		p->unmapped_bytes, p->displaced_bytes, p->untracked_unmap_bytes, p->live_mapped_bytes,
		p->high_water_mapped_bytes, trace_ledger_count(&a->ledger));
	if (p->failed_maps || p->failed_unmaps || p->failed_protects || p->failed_discards || p->failed_decommits ||
	    p->failed_advises)
		fprintf(f,
			"memtrace physical_failures maps=%" U " unmaps=%" U " protects=%" U " discards=%" U
			" decommits=%" U " advises=%" U "\n",
			p->failed_maps, p->failed_unmaps, p->failed_protects, p->failed_discards,
			p->failed_decommits, p->failed_advises);
}

/* The counter fields of scope, site and detail lines (a leading space,
 * the newline). */
static void counter_fields(FILE *f, const struct trace_counters *c)
{
	fprintf(f,
		" retained_bytes=%" U " high_water_retained_bytes=%" U " live_bytes=%" U
		" high_water_live_bytes=%" U " allocated_bytes=%" U " freed_bytes=%" U " allocations=%" U
		" frees=%" U " live_allocations=%" U " completed_lifetimes=%" U " lifetime_total_events=%" U
		" lifetime_mean_events=%" U " lifetime_max_events=%" U " lifetime_total_byte_events=%" U
		" lifetime_mean_byte_events=%" U " lifetime_max_byte_events=%" U "\n",
		c->retained_bytes, c->high_water_retained_bytes, c->live_bytes, c->high_water_live_bytes,
		c->allocated_bytes, c->freed_bytes, c->allocations, c->frees, c->live_allocations,
		c->completed_lifetimes, c->lifetime_total_events, trace_counters_mean_events(c),
		c->lifetime_max_events, c->lifetime_total_byte_events, trace_counters_mean_byte_events(c),
		c->lifetime_max_byte_events);
}

static void scope_line(FILE *f, const struct trace_analyzer *a, const struct trace_row *row)
{
	const struct trace_counters *c = row->counters;

	fwrite(row->name, 1, row->name_len, f);
	if (a->options.layer != TRACE_LAYER_LOGICAL)
		return counter_fields(f, c);
	fprintf(f,
		" open_request_bytes=%" U " high_water_open_request_bytes=%" U " requested_bytes=%" U
		" explicitly_closed_bytes=%" U " allocations=%" U " frees=%" U " open_requests=%" U
		" bulk_invalidated_requests=%" U " bulk_invalidated_bytes=%" U " untracked_requests=%" U
		" untracked_request_bytes=%" U "\n",
		c->live_bytes, c->high_water_live_bytes, c->allocated_bytes, c->freed_bytes, c->allocations,
		c->frees, c->live_allocations, c->bulk_invalidated_requests, c->bulk_invalidated_bytes,
		c->untracked_requests, c->untracked_request_bytes);
}

static void quoted(FILE *f, const char *field, const char *s)
{
	fprintf(f, " %s=", field);
	text_json_write(f, s, strlen(s));
}

/* A stack line, then a stack_frame line per frame, its caller first. */
static void stack_lines(FILE *f, const struct trace_analyzer *a, const struct trace_report *r, size_t i)
{
	const struct trace_stack *s = trace_report_stack(a, &r->stacks.v[i]);

	fputs("stack stack_id=", f);
	if (s->id)
		fprintf(f, "%" U, s->id);
	else
		fputs("none", f);
	fprintf(f, " status=%s frames=%" PRIu32, trace_report_stack_status(s), s->n_frames);
	counter_fields(f, r->stacks.v[i].counters);
	for (uint32_t k = 0; k < s->n_frames; k++) {
		const struct trace_site_name *n = &r->frame_names[r->first_frame_name[i] + k];
		fprintf(f, "stack_frame stack_id=%" U " frame=%" PRIu32 " return_address=0x%" PRIx64, s->id, k,
			a->frames[s->first_frame + k]);
		if (n->found) {
			quoted(f, "symbol", n->function);
			quoted(f, "location", n->location);
			quoted(f, "object", n->object);
		}
		fputc('\n', f);
	}
}

int trace_report_text(const struct trace_analyzer *a, const struct trace_report_options *o,
		      const struct trace_report *r, FILE *f)
{
	integrity_lines(f, &r->integrity);
	layer_lines(f, a, o);
	lifetime_and_anomaly_lines(f, &a->totals);
	if (trace_report_shows_mapped(a))
		physical_lines(f, a);
	for (size_t i = 0; i < r->scopes.n; i++)
		scope_line(f, a, &r->scopes.v[i]);
	for (size_t i = 0; i < r->sites.n; i++) {
		const struct trace_site_name *n = &r->names[i];
		fprintf(f, "site return_address=0x%" PRIx64, r->sites.v[i].key);
		if (n->found) {
			quoted(f, "symbol", n->function);
			quoted(f, "location", n->location);
		}
		counter_fields(f, r->sites.v[i].counters);
	}
	for (size_t i = 0; i < r->stacks.n; i++)
		stack_lines(f, a, r, i);
	if (o->has_site_detail) {
		fprintf(f, "site_detail return_address=0x%" PRIx64 "\n", o->site_detail);
		for (size_t i = 0; i < r->sizes.n; i++) {
			fprintf(f, "site_size len=%" U, r->sizes.v[i].key);
			counter_fields(f, r->sizes.v[i].counters);
		}
		for (size_t i = 0; i < r->site_scopes.n; i++) {
			fputs("site_scope scope=", f);
			text_json_write(f, r->site_scopes.v[i].name, r->site_scopes.v[i].name_len);
			counter_fields(f, r->site_scopes.v[i].counters);
		}
	}
	return ferror(f) ? -EIO : 0;
}
