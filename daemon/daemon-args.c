/* The answers both of ramwatchd's mains give the same way (daemon-args.h). */
#include "daemon-args.h"

#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "error.h"
#include "log.h"
#include "macro.h"

int daemon_args_refuse(const char *fmt, const char *arg)
{
	fprintf(stderr, "ramwatchd: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'ramwatchd --help'.\n");
	return 2;
}

int daemon_args_log_level(const char *name)
{
	int level = log_level_from_string(name);
	if (level < 0)
		return daemon_args_refuse("unknown log level '%s' (debug, info, notice, warning, err)", name);
	log_set_max_level(level);
	return 0;
}

int daemon_args_check_config(const char *path)
{
	struct daemon_config c;
	struct error err = { 0 };
	int r = config_load(path, &c, &err);
	if (r < 0) {
		fprintf(stderr, "ramwatchd: bad configuration: %s\n", err.message);
		return 1;
	}
	size_t n = config_format(&c, NULL, 0);
	_cleanup_free_ char *text = malloc(n + 1);
	if (!text) {
		fprintf(stderr, "ramwatchd: out of memory\n");
		config_done(&c);
		return 1;
	}
	config_format(&c, text, n + 1);
	fputs(text, stdout);
	config_done(&c);
	return 0;
}
