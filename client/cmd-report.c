/* ramwatch report: what happened to a process's memory, as Markdown (or
 * the daemon's JSON): its peak, its phases, its last census, the trend,
 * and what is new since the census before; or, with --html, as a page
 * with charts, for which the history of the same instance is asked too. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "chart.h"
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

struct html_answers {
	const json_t *report, *history;
};

static int write_html(FILE *f, void *data)
{
	const struct html_answers *a = data;
	return render_report_html(a->report, a->history, f);
}

/* Asks for the history of the report's instance over its whole life, the
 * fast tier in at most CHART_POINTS buckets, and writes the page to path
 * (atomically: a temporary file beside it, renamed). */
static int report_html(const char *socket, const json_t *report, const char *path)
{
	_cleanup_(json_decrefp) json_t *request = NULL, *history = NULL;
	const json_t *p = json_object_get(report, "process");
	int64_t id, since, until, now = now_realtime_ms();
	int r;

	if (!answer_int(p, "process_id", &id) || !answer_int(p, "first_seen", &since))
		return fail("ramwatchd sent an answer this client cannot read (a newer protocol?)");
	if (!answer_int(p, "exited_at", &until) || until < since)
		until = now > since ? now : since;
	request = json_pack("{s:s, s:I, s:I, s:I, s:I}", "op", "history", "process_id", (json_int_t)id, "since",
			    (json_int_t)since, "until", (json_int_t)until, "step_ms",
			    (json_int_t)chart_bucket_ms(since, until, CHART_POINTS));
	if (!request)
		return fail("%s", strerror(ENOMEM));
	if ((r = ask_all_pages(socket, request, &history)) != 0)
		return r;
	return ask_output(path, write_html, &(struct html_answers){ report, history });
}

int cmd_report(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "report"), *result = NULL;
	struct ask_args a = { 0 };
	const char *out = NULL, *html = NULL, *trace = NULL;
	bool json = false, format = false;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_OUT: out = optarg; break;
		case 'H': html = optarg; break;
		case 't': trace = optarg; break;
		case OPT_FORMAT:
			format = true;
			if (!streq(optarg, "markdown") && !streq(optarg, "json"))
				return usage_error("report", "--format takes markdown or json, not '%s'", optarg);
			json = streq(optarg, "json");
			break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default:
			if (ask_take_option(&a, opt, optarg))
				break;
			return usage_error("report", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("report", "unexpected argument '%s'", argv[optind]);
	if (html && (format || out))
		return usage_error("report", "--html writes the page to its FILE; it takes neither --format nor --out");
	if (html && trace)
		return usage_error("report", "--trace is shown in the Markdown and JSON reports, not in the --html page");
	if (html && !html[0])
		return usage_error("report", "--html takes a file name");
	if ((r = ask_put_selection("report", request, &a, false, 0)) != 0)
		return r;
	if ((r = ask(a.socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (trace && (r = report_trace_attach(result, trace)) != 0)
		return r;
	if (html)
		return report_html(a.socket, result, html);
	return ask_output(out, json ? write_json : write_markdown, result);
}
