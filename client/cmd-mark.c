/* ramwatch mark: a named phase of a process starts now. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "limits.h"
#include "macro.h"
#include "mark-trace.h"
#include "render-answer.h"
#include "timeparse.h"
#include "util.h"

int cmd_mark(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "mark"), *result = NULL;
	struct ask_args a = { 0 };
	const char *name;
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t time;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'h':
			command_help(self, stdout);
			return 0;
		default:
			if (ask_take_option(&a, opt, optarg))
				break;
			return usage_error("mark", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("mark", "give one NAME for the phase");
	name = argv[optind];
	if (name[0] == '\0' || strlen(name) > RW_MARK_NAME_MAX)
		return usage_error("mark", "a mark's name has 1 to %u bytes", RW_MARK_NAME_MAX);
	if ((r = ask_put_selection("mark", request, &a, false, 0)) != 0)
		return r;
	json_t *text = json_string(name);
	if (!text)
		return usage_error("mark", "a mark's name is UTF-8 text");
	if (json_object_set_new(request, "name", text) < 0)
		return fail("%s", strerror(ENOMEM));
	/* the trace's phase first: it holds even when the daemon does not run */
	char mark_file[4200];
	int traced = a.pid ? mark_trace(strtol(a.pid, NULL, 10), name, mark_file, sizeof(mark_file)) : 0;
	if (traced > 0)
		printf("mark '%s' set in the allocation trace of pid %s (%s)\n", name, a.pid, mark_file);
	else if (traced < 0)
		fprintf(stderr, "ramwatch: the mark is not in pid %s's allocation trace: %s\n", a.pid,
			strerror(-traced));
	if ((r = ask(a.socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	if (answer_int(result, "time", &time))
		printf("mark '%s' set on pid %s at %s\n", name, a.pid, timeparse_format_local(when, time));
	else
		printf("mark '%s' set on pid %s\n", name, a.pid);
	return fflush(stdout) == 0 ? 0 : fail("cannot write the output: %s", strerror(errno));
}
