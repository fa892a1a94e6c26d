/* ramwatch oom and ramwatch cgroups: the processes the kernel killed for
 * memory, with the census before each death, and the memory cgroups of
 * the watched processes with their limits and headroom. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "macro.h"
#include "render-answer.h"
#include "util.h"

struct output {
	const json_t *answer;
	enum answer_format format;
	int (*render)(const json_t *answer, enum answer_format format, FILE *f);
};

static int write_answer(FILE *f, void *data)
{
	const struct output *o = data;
	return o->render(o->answer, o->format, f);
}

/* --format's value for these commands: table, csv or json. */
static int take_format(const char *command, const char *arg, enum answer_format *ret)
{
	int r = answer_format_from_name(arg);
	if (r != ANSWER_TABLE && r != ANSWER_CSV && r != ANSWER_JSON)
		return usage_error(command, "--format takes table, csv or json, not '%s'", arg);
	*ret = (enum answer_format)r;
	return 0;
}

int cmd_oom(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "oom"), *result = NULL;
	struct ask_args a = { 0 };
	enum answer_format format = ANSWER_TABLE;
	const char *cgroup = NULL;
	int64_t now = now_realtime_ms(), since, until;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'g':
			if (optarg[0] != '/')
				return usage_error("oom", "--cgroup takes a path that starts with /, not '%s'", optarg);
			cgroup = optarg;
			break;
		case OPT_FORMAT:
			if ((r = take_format("oom", optarg, &format)) != 0)
				return r;
			break;
		case 'h': command_help(self, stdout); return 0;
		default:
			if (opt != OPT_PID && opt != OPT_NAME && ask_take_option(&a, opt, optarg))
				break;
			return usage_error("oom", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("oom", "unexpected argument '%s'", argv[optind]);
	if ((a.since && (r = ask_time("oom", "--since", a.since, now, request, "since")) != 0) ||
	    (a.until && (r = ask_time("oom", "--until", a.until, now, request, "until")) != 0))
		return r;
	if (answer_int(request, "since", &since) && answer_int(request, "until", &until) && since > until)
		return usage_error("oom", "--since is after --until");
	if (cgroup && json_object_set_new(request, "cgroup", json_string(cgroup)) < 0)
		return usage_error("oom", "--cgroup takes UTF-8 text");
	if ((r = ask(a.socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (format == ANSWER_TABLE)
		ask_say_filtered(result, "the kills of your own processes", "listed",
				 json_array_size(json_object_get(result, "kills")) == 0);
	if (json_is_true(json_object_get(result, "truncated")))
		fputs("ramwatch: only the newest kills are listed: narrow the time range\n", stderr);
	struct output o = { result, format, render_oom };
	return ask_output(NULL, write_answer, &o);
}

int cmd_cgroups(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "cgroups"), *result = NULL;
	enum answer_format format = ANSWER_TABLE;
	const char *socket = NULL;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case OPT_FORMAT:
			if ((r = take_format("cgroups", optarg, &format)) != 0)
				return r;
			break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("cgroups", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("cgroups", "unexpected argument '%s'", argv[optind]);
	if ((r = ask(socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (format == ANSWER_TABLE)
		ask_say_filtered(result, "the sums of your own processes", "given",
				 json_array_size(json_object_get(result, "cgroups")) == 0);
	struct output o = { result, format, render_cgroups };
	return ask_output(NULL, write_answer, &o);
}
