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

/* --from and --to: "first", "last", or a time (ask_parse_time). */
#define AT_FIRST INT64_C(-1)
#define AT_LAST INT64_MAX

static int parse_at(const char *option, const char *arg, int64_t now_ms, int64_t *ret)
{
	if (streq(arg, "first"))
		*ret = AT_FIRST;
	else if (streq(arg, "last"))
		*ret = AT_LAST;
	else
		return ask_parse_time("diff", option, arg, now_ms, ret);
	return 0;
}

/* The census request's "at": the daemon knows "first" and "last" too. */
static json_t *at_json(int64_t at)
{
	return at == AT_FIRST ? json_string("first") : at == AT_LAST ? json_string("last") : json_integer(at);
}

static int ask_census(const char *socket, const json_t *pid, int64_t at, json_t **ret, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s, s:O, s:o}", "op", "census", "pid", pid, "at",
							    at_json(at));
	if (!request)
		return error_set(&err->error, -ENOMEM, "%s", strerror(ENOMEM));
	return control_client_ask(control_client_socket_path(socket), request, CONTROL_WAIT_US, ret, err);
}

/* No census at or before a time: say so in the time format of this
 * client, and what there is instead. */
static int no_census_before(const char *socket, const json_t *pid, int64_t at, const struct control_error *first_err)
{
	_cleanup_(json_decrefp) json_t *result = NULL;
	_cleanup_(census_freep) struct census *c = NULL;
	struct control_error err = { 0 };
	struct error parse = { 0 };
	char when[TIMEPARSE_FORMAT_MAX], first[TIMEPARSE_FORMAT_MAX];
	int64_t id;

	if (ask_census(socket, pid, AT_FIRST, &result, &err) < 0 || census_from_json(result, &c, &parse) < 0)
		return fail("%s", first_err->error.message);
	if (!answer_int(result, "census_id", &id))
		id = -1;
	return fail("no census of process %d (%s) at or before %s: the first is census #%" PRId64
		    " at %s (--from first)",
		    c->pid, c->comm ? c->comm : "?", timeparse_format_local(when, at), id,
		    timeparse_format_local(first, c->taken_at_ms));
}

/* The stored census of pid at at; *ret_what names it for people
 * ("census #98 (first) at 2026-11-29 14:00:01"). */
static int stored(const char *socket, const json_t *pid, int64_t at, struct census **ret, int64_t *ret_id,
		  char *ret_what, size_t what_size)
{
	_cleanup_(json_decrefp) json_t *result = NULL;
	struct control_error cerr = { 0 };
	struct error err = { 0 };

	if (ask_census(socket, pid, at, &result, &cerr) < 0) {
		if (streq(cerr.code, "not_found") && at != AT_FIRST && at != AT_LAST)
			return no_census_before(socket, pid, at, &cerr);
		return fail("%s", cerr.error.message);
	}
	if (census_from_json(result, ret, &err) < 0)
		return fail("ramwatchd sent a census this client cannot read: %s", err.message);
	if (!answer_int(result, "census_id", ret_id))
		*ret_id = -1;
	const char *trigger = answer_str(result, "trigger");
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t repeats;
	int n = snprintf(ret_what, what_size, "census #%" PRId64 " (%s) at %s", *ret_id, trigger ? trigger : "?",
			 timeparse_format_local(when, (*ret)->taken_at_ms));
	if (answer_int(result, "repeats", &repeats) && n > 0 && (size_t)n < what_size)
		snprintf(ret_what + n, what_size - (size_t)n, ", unchanged since census #%" PRId64, repeats);
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
	       "  --from TIME        the census taken at or before TIME; first: the first\n"
	       "  --to TIME          the census taken at or before TIME (default now); last\n" ASK_SOCKET_HELP
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
		    (r = parse_at("--from", from, now, &t_from)) != 0 || (r = parse_at("--to", to, now, &t_to)) != 0)
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
