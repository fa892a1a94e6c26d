/* ramwatch events: the region events ramwatchd recorded for a process
 * (regions that appeared, disappeared, grew or shrank between censuses),
 * as JSON or as a memtrace stream for `ramwatch trace summary`. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "macro.h"
#include "render-answer.h"
#include "trace-export.h"
#include "util.h"

static int write_json(FILE *f, void *data)
{
	return answer_print_json(data, f);
}

struct memtrace {
	const struct trace_region_event *v;
	size_t n;
};

static int write_memtrace(FILE *f, void *data)
{
	const struct memtrace *m = data;
	return trace_export_region_events(m->v, m->n, f);
}

int cmd_events(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "events"), *result = NULL;
	_cleanup_free_ struct trace_region_event *events = NULL;
	struct ask_args a = { 0 };
	enum answer_format format = ANSWER_JSON;
	int64_t now = now_realtime_ms();
	struct error err = { 0 };
	size_t n;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_FORMAT:
			r = answer_format_from_name(optarg);
			if (r != ANSWER_JSON && r != ANSWER_MEMTRACE)
				return usage_error("events", "--format takes json or memtrace, not '%s'", optarg);
			format = (enum answer_format)r;
			break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default:
			if (ask_take_option(&a, opt, optarg))
				break;
			return usage_error("events", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("events", "unexpected argument '%s'", argv[optind]);
	if ((r = ask_put_selection("events", request, &a, false, now)) != 0)
		return r;
	if ((r = ask_all_pages(a.socket, request, &result)) != 0)
		return r;
	if (format == ANSWER_JSON)
		return ask_output(NULL, write_json, result);
	r = answer_region_events(result, &events, &n, &err);
	if (r == -ENOMEM)
		return fail("%s", strerror(ENOMEM));
	if (r < 0)
		return fail("ramwatchd sent a malformed answer (%s)", err.message);
	struct memtrace m = { events, n };
	return ask_output(NULL, write_memtrace, &m);
}
