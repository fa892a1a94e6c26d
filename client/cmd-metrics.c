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

int cmd_metrics(int argc, char **argv)
{
	static const struct option options[] = {
		ASK_SOCKET_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	_cleanup_(json_decrefp) json_t *request = NULL, *result = NULL;
	const char *socket = NULL;
	int opt, r;

	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case 'h':
			printf("Usage: ramwatch metrics [--socket PATH]\n\n"
			       "ramwatchd's metrics in Prometheus's text format, as the textfile it writes for\n"
			       "node_exporter holds them (Export= in ramwatchd.conf): memory per group of\n"
			       "processes (ExportGroupBy=) and per class, and the daemon's own counters.\n"
			       "A user outside group ramwatch gets the groups of their own processes only.\n\n" ASK_SOCKET_HELP);
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
