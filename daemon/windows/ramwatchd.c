/* ramwatchd.exe: the daemon's arguments and start on Windows, and the
 * hand-over to the manager, whose core is the Linux daemon's.
 *
 * What differs from Linux's ramwatchd.c is how the program lives, not what
 * it does: there is no fork to detach by, nor a descriptor limit to raise.
 * service.h's service_main decides how it runs (--install and --uninstall
 * register it with the service control manager; --foreground runs it in
 * the console, where Ctrl-C or closing the console stops it; anything else
 * is the service, started by the manager's dispatcher), then calls run
 * below with the arguments, on the console's thread or the service's.
 * Either way a stop request ends the event loop, the manager writes what
 * it gathered, and the database is closed before the program exits. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "daemon-args.h"
#include "log.h"
#include "macro.h"
#include "malloc-tuning.h"
#include "manager.h"
#include "paths.h"
#include "service.h"

static const struct service_def def = {
	.name = "ramwatchd",
	.display_name = "ramwatch memory watcher",
	.description = "Watches processes' memory and keeps their timelines in SQLite (ramwatchd(8))",
};

static void help(void)
{
	printf("Usage: ramwatchd.exe [OPTIONS]\n\n"
	       "Watches processes' memory and keeps their timelines in SQLite.\n\n"
	       "  --install [OPTIONS] register the service (started at boot, as LocalSystem),\n"
	       "                      run with the OPTIONS that follow; then: sc start ramwatchd\n"
	       "  --uninstall         remove the service\n"
	       "  --foreground        run in this console (Ctrl-C stops it)\n"
	       "  --config FILE       configuration file (default " RW_CONFIG_DEFAULT ";\n"
	       "                      drop-ins in FILE.d\\*.conf)\n"
	       "  --state-dir DIR     where the database lives (default " RW_STATE_DIR_DEFAULT ")\n"
	       "  --pipe NAME         the control pipe (default " RW_PIPE_DEFAULT ")\n"
	       "  --log-level LEVEL   debug, info (default), notice, warning, err\n"
	       "  --check-config      check the configuration, print it in full, and exit\n"
	       "  --version           print the version\n"
	       "  --help              this text\n\n"
	       "Without --foreground it runs as the service (the service control manager\n"
	       "starts it), logging to ramwatchd.log in " RW_STATE_DIR_DEFAULT ".\n"
	       "See ramwatchd(8) and ramwatchd.conf(5).\n");
}

/* The daemon, in the console or as the service.  Returns the exit code. */
static int run(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },   { "state-dir", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },     { "log-level", required_argument, NULL, 'l' },
		{ "check-config", no_argument, NULL, 'C' },   { "pipe", required_argument, NULL, 'P' },
		{ "version", no_argument, NULL, 'V' },        { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config_path = RW_CONFIG_DEFAULT, *state_dir = RW_STATE_DIR_DEFAULT, *pipe = NULL;
	bool check = false;
	int opt, code;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case 'c': config_path = optarg; break;
		case 's': state_dir = optarg; break;
		case 'f': break;
		case 'l':
			if ((code = daemon_args_log_level(optarg)) != 0)
				return code;
			break;
		case 'C': check = true; break;
		case 'P': pipe = optarg; break;
		case 'V': printf("ramwatchd %s\n", RAMWATCH_VERSION); return 0;
		case 'h': help(); return 0;
		default: return daemon_args_refuse("%s", "bad option");
		}
	}
	if (optind < argc)
		return daemon_args_refuse("unexpected argument '%s'", argv[optind]);
	if (check)
		return daemon_args_check_config(config_path);

	malloc_tuning_init();
	struct manager *m = NULL;
	struct manager_options o = { .config_path = config_path, .state_dir = state_dir, .socket_path = pipe };
	if (manager_new(&o, &m) < 0)
		return 1;
	int r = manager_run(m);
	manager_free(m);
	log_info("stopped");
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	/* stderr in the console; the service's log file replaces it there */
	log_open(true);
	return service_main(&def, argc, argv, run);
}
