/* The client's commands, declared once (command-table.c): each command's
 * name, what it runs, what it needs that a platform may lack, its line in
 * `ramwatch --help`, and its own help: usage, what it does, and every
 * option with its argument, its help and the values a shell offers for it.
 *
 * From the table come `ramwatch --help`, the dispatch of commands and
 * sub-commands (ramwatch.c, cmd-trace.c), which commands take the global
 * options, each command's option parsing (command_getopt) and --help
 * (command_help), and the refusal of a command this build cannot run (the
 * Windows build's); test-command-table checks the shell completions and
 * ramwatch(1) against it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a command needs beyond this program, which a platform may lack. */
enum command_needs {
	COMMAND_NEEDS_NOTHING,
	COMMAND_NEEDS_DAEMON,   /* asks ramwatchd over its socket */
	COMMAND_NEEDS_DATABASE, /* reads the database ramwatchd writes */
	COMMAND_NEEDS_TRACER,   /* preloads the Linux allocation tracer */
};

/* What a shell offers for an option's value. */
enum command_complete {
	COMPLETE_NOTHING,
	COMPLETE_WORDS, /* the option's values */
	COMPLETE_FILE,
	COMPLETE_DIRECTORY,
	COMPLETE_PID,   /* the pids ramwatchd knows */
	COMPLETE_NAME,  /* the names ramwatchd knows */
	COMPLETE_CLASS, /* the class keys */
	COMPLETE_TIME,  /* a few times: now, 5min, 1h, 1d */
};

/* The options a command may have, --help not counted. */
#define COMMAND_OPTIONS_MAX 24

struct command_option {
	const char *name;    /* long, without "--"; NULL ends the list */
	char short_name;     /* -o, or 0 */
	const char *arg;     /* what it takes ("PID"); NULL: a flag */
	int val;             /* what command_getopt returns for it */
	/* Its help, one paragraph (command_help wraps it); a "%s" in it is
	 * what fill gives. */
	const char *help;
	const char *(*fill)(char *buf, size_t size);
	enum command_complete complete;
	const char *values;  /* COMPLETE_WORDS: the values, space-separated */
};

struct command {
	const char *name;       /* "history"; a sub-command: "trace record" */
	/* NULL where this build cannot run it: command_run says why */
	int (*run)(const struct command *self, int argc, char **argv);
	enum command_needs needs;
	const char *summary;    /* its line in ramwatch --help; NULL for a sub-command */
	const char *usage;      /* after "Usage: ", as printed */
	const char *about;      /* what it does, as printed */
	const struct command_option *options;
	const char *footer;     /* after the options, as printed; may be NULL */
	/* options end at the first operand, which begins another command
	 * line (trace record's COMMAND) */
	bool stop_at_operand;
};

/* The commands, in the order ramwatch --help lists them, then the
 * sub-commands; *ret_n is how many. */
const struct command *command_table_all(size_t *ret_n);
/* The command named name ("trace record" for a sub-command); NULL when
 * there is none. */
const struct command *command_table_find(const char *name);
/* The option of c named name; NULL when it has none. */
const struct command_option *command_option_find(const struct command *c, const char *name);

/* getopt_long over c's options (and --help, -h, whose value is 'h').
 * Call with optind = 0 first, as getopt_long. */
int command_getopt(const struct command *c, int argc, char **argv);

/* Writes c's help to f. */
void command_help(const struct command *c, FILE *f);

/* Runs c with its arguments (argv[0] its name), or, where this build
 * cannot, says why and returns 1. */
int command_run(const struct command *c, int argc, char **argv);
