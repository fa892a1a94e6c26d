/* ramwatch status: how ramwatchd is doing. */
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

static int write_text(FILE *f, void *data)
{
	return render_status(data, f);
}

static int write_json(FILE *f, void *data)
{
	return answer_print_json(data, f);
}

int cmd_status(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = NULL, *result = NULL;
	const char *socket = NULL;
	bool json = false;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case OPT_FORMAT:
			if (!streq(optarg, "text") && !streq(optarg, "json"))
				return usage_error("status", "--format takes text or json, not '%s'", optarg);
			json = streq(optarg, "json");
			break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default: return usage_error("status", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("status", "unexpected argument '%s'", argv[optind]);
	if (!(request = json_pack("{s:s}", "op", "status")))
		return fail("%s", strerror(ENOMEM));
	if ((r = ask(socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	return ask_output(NULL, json ? write_json : write_text, result);
}
