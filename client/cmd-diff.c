/* ramwatch diff: two censuses compared class by class — two saved files,
 * or two censuses ramwatchd stored for a process (--pid, --from, --to). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "census-json.h"
#include "census.h"
#include "commands.h"
#include "control-client.h"
#include "limits.h"
#include "macro.h"
#include "render-answer.h"
#include "render-census.h"
#include "timeparse.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

int load_census_file(const char *path, struct census **ret)
{
	struct error err = { 0 };
	int r = census_load_file(path, ret, &err);
	if (r < 0)
		return fail("%s: %s", path, err.message);
	return 0;
}

/* The stored census of pid at or before at; *ret_what names it for people
 * ("census #98 (first) at 2026-11-29 14:00:01"). */
static int stored(const char *socket, const json_t *pid, int64_t at, struct census **ret, int64_t *ret_id,
		  char *ret_what, size_t what_size)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s, s:O, s:I}", "op", "census", "pid", pid, "at",
							    (json_int_t)at);
	_cleanup_(json_decrefp) json_t *result = NULL;
	struct error err = { 0 };
	int r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	if ((r = ask(socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (census_from_json(result, ret, &err) < 0)
		return fail("ramwatchd sent a census this client cannot read: %s", err.message);
	if (!answer_int(result, "census_id", ret_id))
		*ret_id = -1;
	const char *trigger = answer_str(result, "trigger");
	char when[TIMEPARSE_FORMAT_MAX];
	snprintf(ret_what, what_size, "census #%" PRId64 " (%s) at %s", *ret_id, trigger ? trigger : "?",
		 timeparse_format_local(when, (*ret)->taken_at_ms));
	return 0;
}

static void diff_help(void)
{
	printf("Usage: ramwatch diff BEFORE.json AFTER.json [--markdown]\n"
	       "       ramwatch diff --pid PID --from TIME [--to TIME] [--markdown] [--socket PATH]\n\n"
	       "Compares two censuses class by class (private and resident before, after and\n"
	       "change), largest changes first, then the files that came or went: two saved\n"
	       "census files, or the censuses ramwatchd stored for a process at or before\n"
	       "--from and --to (default: now, the last census).\n\n"
	       "  --markdown         print Markdown tables\n"
	       "  --pid PID          the process (its latest instance)\n"
	       "  --from TIME        the census taken at or before TIME\n"
	       "  --to TIME          the census taken at or before TIME (default now)\n" ASK_SOCKET_HELP
	       "\nTIME is 30s, 5min, 2h, 7d or 1h30min ago, now, 2026-11-29T14:00 (local time;\n"
	       "or with Z or +01:00), or @UNIXSECONDS.\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option options[] = {
		ASK_SOCKET_OPTION,
		{ "markdown", no_argument, NULL, 'm' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	_cleanup_(census_freep) struct census *a = NULL, *b = NULL;
	_cleanup_(json_decrefp) json_t *select = json_object();
	struct render_options o = { .format = RENDER_TEXT, .top = RW_TOP_DEFAULT };
	const char *socket = NULL, *pid = NULL, *from = NULL, *to = "now";
	int64_t now = now_realtime_ms(), t_from, t_to, id_a, id_b;
	char what_a[128] = "", what_b[128] = "";
	int opt, r;

	if (!select)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case 'm': o.format = RENDER_MARKDOWN; break;
		case OPT_PID: pid = optarg; break;
		case 'f': from = optarg; break;
		case 't': to = optarg; break;
		case 'h': diff_help(); return 0;
		default: return usage_error("diff", "bad option");
		}
	}
	if (!pid) {
		if (from || socket)
			return usage_error("diff", "--from and --socket go with --pid");
		if (argc - optind != 2)
			return usage_error("diff", "give two census files, or --pid PID --from TIME");
		if ((r = load_census_file(argv[optind], &a)) != 0 || (r = load_census_file(argv[optind + 1], &b)) != 0)
			return r;
	} else {
		if (optind < argc)
			return usage_error("diff", "with --pid, give no census files ('%s')", argv[optind]);
		if (!from)
			return usage_error("diff", "--pid needs --from TIME");
		if ((r = ask_select("diff", select, pid, NULL, false)) != 0 ||
		    (r = ask_parse_time("diff", "--from", from, now, &t_from)) != 0 ||
		    (r = ask_parse_time("diff", "--to", to, now, &t_to)) != 0)
			return r;
		if (t_from > t_to)
			return usage_error("diff", "--from is after --to");
		const json_t *p = json_object_get(select, "pid");
		if ((r = stored(socket, p, t_from, &a, &id_a, what_a, sizeof(what_a))) != 0 ||
		    (r = stored(socket, p, t_to, &b, &id_b, what_b, sizeof(what_b))) != 0)
			return r;
		if (id_a >= 0 && id_a == id_b) {
			char when[TIMEPARSE_FORMAT_MAX];
			return fail("--from and --to fall on the same census #%" PRId64 " (taken %s): no census was stored "
				    "between them",
				    id_a, timeparse_format_local(when, a->taken_at_ms));
		}
	}
	if (what_a[0])
		printf("%s -> %s\n%s", what_a, what_b, o.format == RENDER_MARKDOWN ? "\n" : "");
	render_diff(a, b, &o, stdout);
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail("cannot write the output: %s", strerror(errno));
	return 0;
}
