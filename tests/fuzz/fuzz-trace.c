/* libFuzzer target for memtrace lines: the fast and the general parser must
 * agree on every line the fast one accepts, and the whole input, replayed
 * for each layer with sites, stacks and a site's detail and written as
 * text and JSON Lines, must never crash or read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-fast.h"
#include "trace-general.h"
#include "trace-replay.h"
#include "trace-report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_parsers(struct trace_fast *s, struct trace_general *g, const char *line, size_t len)
{
	struct trace_event fast, general;
	struct error reason;

	while (len > 0 && strchr(" \t\r\n", line[len - 1]) && line[len - 1])
		len--;
	while (len > 0 && strchr(" \t\r\n", line[0]) && line[0])
		line++, len--;
	if (len == 0)
		return;
	int rg = trace_general_parse(g, line, len, &general, &reason);
	/* with the keys predicted from the lines before, and without */
	struct trace_event plain;
	int rf = trace_fast_parse(s, line, len, &fast);
	if (trace_fast_parse(NULL, line, len, &plain) != rf || (rf == 0 && !trace_event_equal(&fast, &plain))) {
		fprintf(stderr, "predicted keys change the meaning of: %.*s\n", (int)len, line);
		abort();
	}
	if (rf != 0)
		return;
	if (rg != 0 || !trace_event_equal(&fast, &general)) {
		fprintf(stderr, "the parsers disagree on: %.*s\n", (int)len, line);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	const char *text = (const char *)data;
	struct trace_general g;
	struct trace_fast s;

	if (!null_out && !(null_out = fopen("/dev/null", "w")))
		abort();
	trace_general_init(&g);
	trace_fast_init(&s);
	for (size_t start = 0; start < size;) {
		const char *nl = memchr(text + start, '\n', size - start);
		size_t len = nl ? (size_t)(nl - (text + start)) : size - start;
		check_parsers(&s, &g, text + start, len);
		start += len + 1;
	}
	trace_general_done(&g);

	for (int layer = 0; layer < _TRACE_LAYER_MAX; layer++) {
		struct trace_replay_options ro = {
			.layer = (enum trace_layer)layer,
			.track_sites = true,
			.track_stacks = true,
			.has_site_detail = true,
			.site_detail = 0,
		};
		struct trace_report_options o = {
			.sort = (enum trace_sort)(layer % _TRACE_SORT_MAX),
			.top = 8,
			.filter = { .include_zero_live = layer == 0 },
			.include_sites = true,
			.include_stacks = true,
			.has_site_detail = true,
		};
		struct trace_analyzer a;
		struct trace_parser p;
		struct trace_replay_error err;
		struct trace_report r;
		struct error reason;

		trace_analyzer_init(&a, &ro);
		trace_parser_init(&p);
		if (trace_replay_buffer(&a, &p, text, size, &err) == 0 && trace_report_build(&a, &o, &r, &reason) == 0) {
			trace_report_text(&a, &o, &r, null_out);
			trace_report_jsonl(&a, &o, &r, null_out);
			trace_report_done(&r);
		}
		trace_parser_done(&p);
		trace_analyzer_done(&a);
	}
	return 0;
}
