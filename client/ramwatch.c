/* ramwatch: the client.  Dispatches to a subcommand. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "macro.h"
#include "util.h"

#ifndef RAMWATCH_VERSION
#define RAMWATCH_VERSION "0"
#endif

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "scan", cmd_scan, "take a census of one process's memory (or of a saved smaps file)" },
	{ "summary", cmd_summary, "print a saved census (JSON)" },
	{ "diff", cmd_diff, "compare two censuses (saved, or stored by ramwatchd), class by class" },
	{ "trace", cmd_trace, "replay an allocation event trace: what was kept, churned, and for how long" },
	{ "sql", cmd_sql, "run one read-only SQL query on the database (table, CSV or JSON)" },
	{ "status", cmd_status, "how ramwatchd is doing" },
	{ "processes", cmd_processes, "the processes ramwatchd watches, with their memory" },
	{ "history", cmd_history, "a process's memory timeline: samples, censuses, marks" },
	{ "report", cmd_report, "what happened to a process's memory, as Markdown" },
	{ "mark", cmd_mark, "start a named phase of a process" },
	{ "events", cmd_events, "a process's region events (JSON, or memtrace for trace summary)" },
	{ "metrics", cmd_metrics, "ramwatchd's metrics in Prometheus's text format" },
	{ "top", cmd_top, "a live view of the watched processes: memory, classes, history" },
};

/* Options given before the command, as `git -C` or `systemctl -H`: each is
 * handed to the command as the first of its own options, so both
 * placements mean the same (given in both, the one after the command
 * wins, as a later option does).  A command that has no such option is
 * told so by name, not left to guess. */
#define GLOBAL_OPTIONS_MAX 2
static const struct {
	const char *name;
	const char *const *commands; /* that take it, NULL-terminated */
} global_options[GLOBAL_OPTIONS_MAX] = {
	{ "--socket", (const char *const[]){ "scan", "diff", "status", "processes", "history", "report", "mark",
					     "events", "metrics", "top", NULL } },
	{ "--db", (const char *const[]){ "sql", NULL } },
};

struct global {
	int option; /* into global_options */
	const char *value;
};

/* The global option at argv[*i] (--NAME VALUE or --NAME=VALUE) into *ret,
 * *i moved past it.  Returns 1, 0 when argv[*i] is not one, or
 * EXIT_USAGE after saying why. */
static int take_global(int argc, char **argv, int *i, struct global *ret)
{
	for (int k = 0; k < GLOBAL_OPTIONS_MAX; k++) {
		size_t len = strlen(global_options[k].name);
		if (strncmp(argv[*i], global_options[k].name, len) != 0)
			continue;
		if (argv[*i][len] == '=') {
			*ret = (struct global){ k, argv[*i] + len + 1 };
			*i += 1;
			return 1;
		}
		if (argv[*i][len] != '\0')
			continue;
		if (*i + 1 >= argc)
			return usage_error(NULL, "%s needs a value", global_options[k].name);
		*ret = (struct global){ k, argv[*i + 1] };
		*i += 2;
		return 1;
	}
	return 0;
}

static bool takes(int option, const char *command)
{
	for (const char *const *c = global_options[option].commands; *c; c++)
		if (streq(*c, command))
			return true;
	return false;
}

int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("ramwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	fputs("ramwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ramwatch %s%s--help'.\n", command ? command : "", command ? " " : "");
	return EXIT_USAGE;
}

static void help(FILE *f)
{
	fprintf(f, "Usage: ramwatch COMMAND [OPTIONS]\n\n"
		   "Where a process's memory goes: every region classified by its shape.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nGlobal options, before the command or after it:\n"
		   "  --socket PATH      ramwatchd's socket, for the commands that ask it\n"
		   "  --db PATH          the database, for sql\n"
		   "\nramwatch COMMAND --help shows a command's options; man ramwatch tells the rest.\n");
}

/* The command at argv[first] run with the global options before its own
 * arguments. */
static int run_command(size_t c, int argc, char **argv, int first, const struct global *g, int n_globals)
{
	/* getopt names the program by argv[0] in its messages:
	 * "ramwatch scan: invalid option", not "scan: ..." */
	_cleanup_free_ char **args = calloc((size_t)argc + 2 * GLOBAL_OPTIONS_MAX + 1, sizeof(*args));
	char name[64];
	int n = 0;

	for (int k = 0; k < n_globals; k++)
		if (!takes(g[k].option, commands[c].name))
			return usage_error(commands[c].name, "'%s' has no %s option", commands[c].name,
					   global_options[g[k].option].name);
	if (!args)
		return fail("%s", strerror(ENOMEM));
	snprintf(name, sizeof(name), "ramwatch %s", commands[c].name);
	args[n++] = name;
	for (int k = 0; k < n_globals; k++) {
		args[n++] = (char *)global_options[g[k].option].name;
		args[n++] = (char *)g[k].value;
	}
	for (int i = first + 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	return commands[c].run(n, args);
}

int main(int argc, char **argv)
{
	struct global g[GLOBAL_OPTIONS_MAX];
	int i = 1, n_globals = 0, r;

	while (i < argc && (r = take_global(argc, argv, &i, &g[n_globals])) != 0) {
		if (r != 1)
			return r;
		for (int k = 0; k < n_globals; k++)
			if (g[k].option == g[n_globals].option)
				return usage_error(NULL, "%s is given twice", global_options[g[k].option].name);
		n_globals++;
	}
	if (i >= argc)
		return help(stderr), EXIT_USAGE;
	if (streq(argv[i], "--help") || streq(argv[i], "-h") || streq(argv[i], "help")) {
		help(stdout);
		return 0;
	}
	if (streq(argv[i], "--version")) {
		printf("ramwatch %s\n", RAMWATCH_VERSION);
		return 0;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (streq(argv[i], commands[c].name))
			return run_command(c, argc, argv, i, g, n_globals);
	if (argv[i][0] == '-')
		return usage_error(NULL, "unknown option '%s' before the command", argv[i]);
	return usage_error(NULL, "unknown command '%s'", argv[i]);
}
