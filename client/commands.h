/* The client's commands, as command-table.c declares them.  Each takes
 * its own entry (its options, its help) and argc/argv starting at its own
 * name, and returns the process exit status: 0 ok, 1 failure, 2 usage. */
#pragma once

#include "command-table.h"

#define EXIT_USAGE 2

/* trace summary: the scopes and sites shown when --top does not say */
#define TRACE_SUMMARY_TOP_DEFAULT 24u

struct census;

int cmd_scan(const struct command *self, int argc, char **argv);
int cmd_summary(const struct command *self, int argc, char **argv);
int cmd_diff(const struct command *self, int argc, char **argv);
int cmd_trace(const struct command *self, int argc, char **argv);
int cmd_trace_summary(const struct command *self, int argc, char **argv);
int cmd_trace_record(const struct command *self, int argc, char **argv);
int cmd_trace_export(const struct command *self, int argc, char **argv);
int cmd_sql(const struct command *self, int argc, char **argv);
int cmd_status(const struct command *self, int argc, char **argv);
int cmd_processes(const struct command *self, int argc, char **argv);
int cmd_history(const struct command *self, int argc, char **argv);
int cmd_report(const struct command *self, int argc, char **argv);
int cmd_mark(const struct command *self, int argc, char **argv);
int cmd_events(const struct command *self, int argc, char **argv);
int cmd_metrics(const struct command *self, int argc, char **argv);
int cmd_top(const struct command *self, int argc, char **argv);
int cmd_oom(const struct command *self, int argc, char **argv);
int cmd_cgroups(const struct command *self, int argc, char **argv);

/* Prints "ramwatch: <message>" to stderr; returns 1 (failure). */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "ramwatch: <message>" and a hint to run --help; returns 2 (usage). */
int usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads a saved census (JSON, '-': standard input) for summary and diff,
 * printing why it cannot be read.  Returns 0 with *ret (census_free), or
 * the exit status 1. */
int load_census_file(const char *path, struct census **ret);
