/* What the subcommands that ask ramwatchd share: the --socket option,
 * asking and printing why it failed, following paged answers, reading the
 * process and time options.  Each function that can fail prints
 * "ramwatch: <message>" and returns the exit status (1, or 2 for bad
 * arguments), else 0. */
#pragma once

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "paths.h"

/* The values command_getopt returns for the options these commands share
 * (command-table.c gives them to the options). */
enum {
	OPT_SOCKET = 0x100,
	OPT_PID,
	OPT_NAME,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_FORMAT,
	OPT_OUT,
};

/* The options the commands that ask ramwatchd share, as given. */
struct ask_args {
	const char *socket, *pid, *name, *since, *until;
};

/* Keeps arg in a when opt is --socket, --pid, --name, --since or --until;
 * false for any other option. */
bool ask_take_option(struct ask_args *a, int opt, const char *arg);

/* Puts a's process (--pid or --name, as ask_select) and its window (--since
 * and --until where given, as ask_time) into request. */
int ask_put_selection(const char *command, json_t *request, const struct ask_args *a, bool name_allowed,
		      int64_t now_ms);

/* Asks once: 0 with *ret_result (json_decref), or 1 after printing the
 * daemon's error or why it could not be asked. */
int ask(const char *socket, json_t *request, uint64_t wait_us, json_t **ret_result);

/* Asks a paged op (history, events) with a page size, then follows
 * "next" on the same connection until the answer is whole or
 * CONTROL_ROWS_MAX rows have come (then says so on stderr and keeps what
 * came).  The result holds every page (store_read_merge_page). */
int ask_all_pages(const char *socket, json_t *request, json_t **ret_result);

/* Puts the process of --pid (a number) or --name (a glob, where the op
 * takes one) into request.  Exactly one is needed. */
int ask_select(const char *command, json_t *request, const char *pid, const char *name, bool name_allowed);

/* Puts the time of option (--since, --until, --from, ...) into request at
 * key, parsed by timeparse_time relative to now_ms. */
int ask_time(const char *command, const char *option, const char *arg, int64_t now_ms, json_t *request,
	     const char *key);
/* The same into *ret_ms. */
int ask_parse_time(const char *command, const char *option, const char *arg, int64_t now_ms, int64_t *ret_ms);

/* Writes what write_to printed into a memory buffer to path atomically
 * (--out), or to standard output when path is NULL. */
int ask_output(const char *path, int (*write_to)(FILE *f, void *data), void *data);

/* Says on stderr that an answer holds only the asker's own WHAT (its
 * "filtered_to_owner", the Windows account, else its "filtered_to_uid"),
 * with verb "listed" or "included", and who sees all; nothing when the
 * answer is not filtered.  Then the answer's "why" (what the daemon
 * cannot follow on its platform), when it has one and empty is true. */
void ask_say_filtered(const json_t *result, const char *what, const char *verb, bool empty);
