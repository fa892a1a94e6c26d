/* Building a report: rows, verdict, site and frame names. */
#include "trace-report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *trace_report_stack_status(const struct trace_stack *s)
{
	if (s->id == 0)
		return "none";
	return s->recorded ? "recorded" : "missing";
}

const struct trace_stack *trace_report_stack(const struct trace_analyzer *a, const struct trace_row *row)
{
	return hashtab_get(&a->stacks, row->key);
}

/* Room for the names of the stack rows' frames. */
static int frame_names_alloc(const struct trace_analyzer *a, struct trace_report *r)
{
	size_t n = 0;

	if (!(r->first_frame_name = calloc(r->stacks.n ? r->stacks.n : 1, sizeof(r->first_frame_name[0]))))
		return -ENOMEM;
	for (size_t i = 0; i < r->stacks.n; i++) {
		r->first_frame_name[i] = n;
		n += trace_report_stack(a, &r->stacks.v[i])->n_frames;
	}
	r->frame_names = calloc(n ? n : 1, sizeof(r->frame_names[0]));
	return r->frame_names ? 0 : -ENOMEM;
}

static void name(struct trace_symbols *s, uint64_t return_address, struct trace_site_name *n)
{
	n->found = trace_symbols_lookup_return(s, return_address, &n->function, &n->location, &n->object);
}

static void name_frames(const struct trace_analyzer *a, struct trace_report *r)
{
	for (size_t i = 0; i < r->stacks.n; i++) {
		const struct trace_stack *s = trace_report_stack(a, &r->stacks.v[i]);
		for (uint32_t k = 0; k < s->n_frames; k++)
			name(r->symbols, a->frames[s->first_frame + k], &r->frame_names[r->first_frame_name[i] + k]);
	}
}

int trace_report_build(const struct trace_analyzer *a, const struct trace_report_options *o,
		       struct trace_report *ret, struct error *err)
{
	struct trace_report r = { 0 };
	bool sites = o->include_sites, stacks = o->include_stacks;
	int k;

	/* a trace recorded without --stack N has nothing to rank by stack:
	 * its sites are what comes closest */
	if (stacks && a->stack_events == 0) {
		r.stacks_fell_back = true;
		sites = true;
		stacks = false;
	}
	trace_integrity_of(a, &r.integrity);
	if ((k = trace_rank_scopes(a, o->sort, &o->filter, o->top, &r.scopes)) < 0)
		goto fail;
	if (sites && (k = trace_rank_sites(a, o->sort, &o->filter, o->top, &r.sites)) < 0)
		goto fail;
	if (stacks && (k = trace_rank_stacks(a, o->sort, &o->filter, o->top, &r.stacks)) < 0)
		goto fail;
	if (o->has_site_detail && ((k = trace_rank_detail_sizes(a, o->sort, o->top, &r.sizes)) < 0 ||
				   (k = trace_rank_detail_scopes(a, o->sort, o->top, &r.site_scopes)) < 0))
		goto fail;
	k = -ENOMEM;
	if (!(r.names = calloc(r.sites.n ? r.sites.n : 1, sizeof(r.names[0]))) || frame_names_alloc(a, &r) < 0)
		goto fail;
	/* --symbols BINARY names by the binary's link-time addresses; without
	 * it, the objects the trace recorded name them at their load biases */
	if ((o->symbols_path || a->n_objects > 0) && (r.sites.n > 0 || r.stacks.n > 0)) {
		k = o->symbols_path ? trace_symbols_open(o->symbols_path, &r.symbols, err)
				    : trace_symbols_open_objects(a->objects, a->n_objects, &r.symbols, err);
		if (k < 0)
			goto fail;
		for (size_t i = 0; i < r.sites.n; i++)
			name(r.symbols, r.sites.v[i].key, &r.names[i]);
		name_frames(a, &r);
	}
	*ret = r;
	return 0;
fail:
	if (k == -ENOMEM)
		error_set(err, k, "%s", strerror(ENOMEM));
	trace_report_done(&r);
	return k;
}

void trace_report_done(struct trace_report *r)
{
	trace_rows_free(&r->scopes);
	trace_rows_free(&r->sites);
	trace_rows_free(&r->stacks);
	trace_rows_free(&r->sizes);
	trace_rows_free(&r->site_scopes);
	free(r->names);
	free(r->frame_names);
	free(r->first_frame_name);
	trace_symbols_free(r->symbols);
	*r = (struct trace_report){ 0 };
}
