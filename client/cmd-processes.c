/* ramwatch processes: the processes ramwatchd watches (and, with --all,
 * those it watched), with their memory. */
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
	const char *by; /* "cgroup", "unit", or NULL: one row per process */
};

static int write_processes(FILE *f, void *data)
{
	const struct output *o = data;
	return o->by ? render_process_groups(o->answer, o->by, o->format, f) : render_processes(o->answer, o->format, f);
}

int cmd_processes(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = NULL, *result = NULL;
	const char *socket = NULL, *sort = "private", *by = NULL;
	enum answer_format format = ANSWER_TABLE;
	bool all = false;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case 'a': all = true; break;
		case 's':
			if (!streq(optarg, "private") && !streq(optarg, "resident") && !streq(optarg, "peak") &&
			    !streq(optarg, "vram"))
				return usage_error("processes", "--sort takes private, resident, peak or vram, not '%s'",
						   optarg);
			sort = optarg;
			break;
		case 'b':
			if (!streq(optarg, "cgroup") && !streq(optarg, "unit"))
				return usage_error("processes", "--by takes cgroup or unit, not '%s'", optarg);
			by = optarg;
			break;
		case OPT_FORMAT:
			r = answer_format_from_name(optarg);
			if (r != ANSWER_TABLE && r != ANSWER_CSV && r != ANSWER_JSON)
				return usage_error("processes", "--format takes table, csv or json, not '%s'", optarg);
			format = (enum answer_format)r;
			break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default: return usage_error("processes", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("processes", "unexpected argument '%s'", argv[optind]);
	if (!(request = json_pack("{s:s, s:b, s:s}", "op", "processes", "all", all, "sort", sort)))
		return fail("%s", strerror(ENOMEM));
	if ((r = ask(socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (format == ANSWER_TABLE)
		ask_say_filtered(result, "your own processes", "listed", false);
	struct output o = { result, format, by };
	return ask_output(NULL, write_processes, &o);
}
