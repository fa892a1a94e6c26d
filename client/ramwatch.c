/* ramwatch: the client.  Dispatches to a subcommand. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
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
	fprintf(f, "\nramwatch COMMAND --help shows a command's options; man ramwatch tells the rest.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return help(stderr), EXIT_USAGE;
	if (streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
		help(stdout);
		return 0;
	}
	if (streq(argv[1], "--version")) {
		printf("ramwatch %s\n", RAMWATCH_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (streq(argv[1], commands[i].name)) {
			/* getopt names the program by argv[0] in its messages:
			 * "ramwatch scan: invalid option", not "scan: ..." */
			char name[64];
			snprintf(name, sizeof(name), "ramwatch %s", commands[i].name);
			argv[1] = name;
			return commands[i].run(argc - 1, argv + 1);
		}
	return usage_error(NULL, "unknown command '%s'", argv[1]);
}
