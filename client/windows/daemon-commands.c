/* The commands that read what ramwatchd stored: on Windows there is no
 * daemon (it runs on Linux), so each says so plainly. */
#include <stdio.h>

#include "commands.h"

static int needs_daemon(const char *command)
{
	return fail("'%s' reads what ramwatchd stored, and ramwatchd runs on Linux; on Windows, ramwatch takes "
		    "censuses itself (scan), reads saved ones (summary, diff) and summarises traces (trace summary)",
		    command);
}

int cmd_sql(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("sql");
}

int cmd_status(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("status");
}

int cmd_processes(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("processes");
}

int cmd_history(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("history");
}

int cmd_report(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("report");
}

int cmd_mark(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("mark");
}

int cmd_events(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("events");
}

int cmd_metrics(int argc, char **argv)
{
	(void)argc, (void)argv;
	return needs_daemon("metrics");
}
