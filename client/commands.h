/* The client's subcommands.  Each takes argc/argv starting at its own name
 * and returns the process exit status: 0 ok, 1 failure, 2 usage. */
#pragma once

#define EXIT_USAGE 2

struct census;

int cmd_scan(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_trace_record(int argc, char **argv);
int cmd_sql(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_processes(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_mark(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* Prints "ramwatch: <message>" to stderr; returns 1 (failure). */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "ramwatch: <message>" and a hint to run --help; returns 2 (usage). */
int usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads a saved census (JSON, '-': standard input) for summary and diff,
 * printing why it cannot be read.  Returns 0 with *ret (census_free), or
 * the exit status 1. */
int load_census_file(const char *path, struct census **ret);
