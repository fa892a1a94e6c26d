/* Building a report: rows, verdict, site names. */
#include "trace-report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int trace_report_build(const struct trace_analyzer *a, const struct trace_report_options *o,
		       struct trace_report *ret, struct error *err)
{
	struct trace_report r = { 0 };
	int k;

	trace_integrity_of(a, &r.integrity);
	if ((k = trace_rank_scopes(a, o->sort, &o->filter, o->top, &r.scopes)) < 0)
		goto fail;
	if (o->include_sites && (k = trace_rank_sites(a, o->sort, &o->filter, o->top, &r.sites)) < 0)
		goto fail;
	if (o->has_site_detail && ((k = trace_rank_detail_sizes(a, o->sort, o->top, &r.sizes)) < 0 ||
				   (k = trace_rank_detail_scopes(a, o->sort, o->top, &r.site_scopes)) < 0))
		goto fail;
	k = -ENOMEM;
	if (!(r.names = calloc(r.sites.n ? r.sites.n : 1, sizeof(r.names[0]))))
		goto fail;
	/* --symbols BINARY names by the binary's link-time addresses; without
	 * it, the objects the trace recorded name them at their load biases */
	if ((o->symbols_path || a->n_objects > 0) && r.sites.n > 0) {
		k = o->symbols_path ? trace_symbols_open(o->symbols_path, &r.symbols, err)
				    : trace_symbols_open_objects(a->objects, a->n_objects, &r.symbols, err);
		if (k < 0)
			goto fail;
		for (size_t i = 0; i < r.sites.n; i++) {
			struct trace_site_name *n = &r.names[i];
			n->found = trace_symbols_lookup(r.symbols, r.sites.v[i].key, &n->function, &n->location);
		}
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
	trace_rows_free(&r->sizes);
	trace_rows_free(&r->site_scopes);
	free(r->names);
	trace_symbols_free(r->symbols);
	*r = (struct trace_report){ 0 };
}
