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

/* Each command only says where it runs. */
#define DAEMON_COMMAND(name)                         \
	int cmd_##name(int argc, char **argv)        \
	{                                            \
		(void)argc, (void)argv;              \
		return needs_daemon(#name);          \
	}

DAEMON_COMMAND(sql)
DAEMON_COMMAND(status)
DAEMON_COMMAND(processes)
DAEMON_COMMAND(history)
DAEMON_COMMAND(report)
DAEMON_COMMAND(mark)
DAEMON_COMMAND(events)
DAEMON_COMMAND(metrics)
DAEMON_COMMAND(top)

/* trace record preloads a library into a Linux program */
int cmd_trace_record(int argc, char **argv)
{
	(void)argc, (void)argv;
	return fail("'trace record' runs a program under the Linux allocation tracer (LD_PRELOAD); on Windows, "
		    "ramwatch summarises traces recorded elsewhere (trace summary)");
}
