/* ramwatch metrics: the daemon's metrics in Prometheus's text format, as
 * its textfile for node_exporter holds them (Export=). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "macro.h"

int cmd_metrics(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = NULL, *result = NULL;
	const char *socket = NULL;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case 'h':
			command_help(self, stdout);
			return 0;
		default: return usage_error("metrics", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("metrics", "unexpected argument '%s'", argv[optind]);
	if (!(request = json_pack("{s:s}", "op", "metrics")))
		return fail("%s", strerror(ENOMEM));
	if ((r = ask(socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	const json_t *text = json_object_get(result, "text");
	if (!json_is_string(text))
		return fail("the daemon's answer has no metrics text");
	fwrite(json_string_value(text), 1, json_string_length(text), stdout);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : fail("cannot write the output: %s", strerror(errno));
}
