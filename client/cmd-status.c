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

int cmd_status(int argc, char **argv)
{
	static const struct option options[] = {
		ASK_SOCKET_OPTION,
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	_cleanup_(json_decrefp) json_t *request = NULL, *result = NULL;
	const char *socket = NULL;
	bool json = false;
	int opt, r;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case OPT_FORMAT:
			if (!streq(optarg, "text") && !streq(optarg, "json"))
				return usage_error("status", "--format takes text or json, not '%s'", optarg);
			json = streq(optarg, "json");
			break;
		case 'h':
			printf("Usage: ramwatch status [--format text|json] [--socket PATH]\n\n"
			       "How ramwatchd is doing: its version and uptime, configuration file, database\n"
			       "and its size, the processes it watches, censuses per minute, the census\n"
			       "budget used, censuses waiting for it, and the last errors it logged.\n\n"
			       "  --format FORMAT    text (default) or json\n" ASK_SOCKET_HELP);
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
