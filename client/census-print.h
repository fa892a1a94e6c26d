/* What scan and summary share on every platform: printing a census as a
 * table, Markdown or JSON, saving it, and ramwatch summary itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct census;

enum output { OUT_TABLE, OUT_MARKDOWN, OUT_JSON };

/* --top N of command: 0 with *ret, else the usage exit status. */
int parse_top(const char *command, const char *arg, size_t *ret);
/* Prints c to standard output: 0, or the exit status 1 after saying why. */
int print_census(const struct census *c, enum output out, size_t top, bool regions, bool gpu_asked);
/* Saves c as JSON with every region it holds: 0, or the exit status 1. */
int save_census(const struct census *c, const char *path);
