/* ramwatch report: what happened to a process's memory, as Markdown (or
 * the daemon's JSON): its peak, its phases, its last census, the trend,
 * and what is new since the census before. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "macro.h"
#include "render-answer.h"
#include "report-trace.h"
#include "util.h"

static int write_markdown(FILE *f, void *data)
{
	int r = render_report(data, f);
	return r < 0 ? r : render_report_trace(data, f);
}

static int write_json(FILE *f, void *data)
{
	return answer_print_json(data, f);
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		ASK_SOCKET_OPTION,
		{ "pid", required_argument, NULL, OPT_PID },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "trace", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "report"), *result = NULL;
	struct ask_args a = { 0 };
	const char *out = NULL, *trace = NULL;
	bool json = false;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case OPT_OUT: out = optarg; break;
		case 't': trace = optarg; break;
		case OPT_FORMAT:
			if (!streq(optarg, "markdown") && !streq(optarg, "json"))
				return usage_error("report", "--format takes markdown or json, not '%s'", optarg);
			json = streq(optarg, "json");
			break;
		case 'h':
			printf("Usage: ramwatch report --pid PID [--format markdown|json] [--out FILE] [--trace FILE]\n"
			       "                       [--socket PATH]\n\n"
			       "What ramwatchd recorded of a process, as Markdown: the peak and when, the peaks\n"
			       "of each phase (cut by marks), the classes, largest regions and mapped files of\n"
			       "the last census, the memory after each census, and what is new since the\n"
			       "census before the last (classes that grew, files newly mapped).\n\n"
			       "  --pid PID          the process (its latest instance)\n"
			       "  --format FORMAT    markdown (default) or json (times in unix seconds)\n"
			       "  --out FILE         write to FILE (atomically) instead of standard output\n"
			       "  --trace FILE       the process's allocation trace (ramwatch trace record): its\n"
			       "                     live bytes beside the census's malloc class\n" ASK_SOCKET_HELP);
			return 0;
		default:
			if (ask_take_option(&a, opt, optarg))
				break;
			return usage_error("report", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("report", "unexpected argument '%s'", argv[optind]);
	if ((r = ask_put_selection("report", request, &a, false, 0)) != 0)
		return r;
	if ((r = ask(a.socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (trace && (r = report_trace_attach(result, trace)) != 0)
		return r;
	return ask_output(out, json ? write_json : write_markdown, result);
}
