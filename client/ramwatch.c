/* ramwatch: the client.  Dispatches to a command of command-table.c. */
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

/* Options given before the command, as `git -C` or `systemctl -H`: each is
 * handed to the command as the first of its own options, so both
 * placements mean the same (given in both, the one after the command
 * wins, as a later option does).  The commands that take one are those
 * whose options (command-table.c) include it; another is told so by name,
 * not left to guess. */
#define GLOBAL_OPTIONS_MAX 2
static const struct {
	const char *name;   /* as the commands' options name it */
	const char *help;   /* its line in ramwatch --help */
} global_options[GLOBAL_OPTIONS_MAX] = {
#ifdef _WIN32
	{ "pipe", "  --pipe NAME        ramwatchd's pipe, for the commands that ask it\n" },
#else
	{ "socket", "  --socket PATH      ramwatchd's socket, for the commands that ask it\n" },
#endif
	{ "db", "  --db PATH          the database, for sql\n" },
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
		if (!startswith(argv[*i], "--") || strncmp(argv[*i] + 2, global_options[k].name, len) != 0)
			continue;
		len += 2;
		if (argv[*i][len] == '=') {
			*ret = (struct global){ k, argv[*i] + len + 1 };
			*i += 1;
			return 1;
		}
		if (argv[*i][len] != '\0')
			continue;
		if (*i + 1 >= argc)
			return usage_error(NULL, "--%s needs a value", global_options[k].name);
		*ret = (struct global){ k, argv[*i + 1] };
		*i += 2;
		return 1;
	}
	return 0;
}

static void help(FILE *f)
{
	size_t n;
	const struct command *all = command_table_all(&n);

	fprintf(f, "Usage: ramwatch COMMAND [OPTIONS]\n\n"
		   "Where a process's memory goes: every region classified by its shape.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < n; i++)
		if (all[i].summary)
			fprintf(f, "  %-10s %s\n", all[i].name, all[i].summary);
	fprintf(f, "\nGlobal options, before the command or after it:\n");
	for (int k = 0; k < GLOBAL_OPTIONS_MAX; k++)
		fputs(global_options[k].help, f);
	fprintf(f, "\nramwatch COMMAND --help shows a command's options; man ramwatch tells the rest.\n");
}

/* The command c run with the global options before its own arguments
 * (argv[first + 1] on). */
static int run_command(const struct command *c, int argc, char **argv, int first, const struct global *g,
		       int n_globals)
{
	/* getopt names the program by argv[0] in its messages:
	 * "ramwatch scan: invalid option", not "scan: ..." */
	_cleanup_free_ char **args = calloc((size_t)argc + 2 * GLOBAL_OPTIONS_MAX + 1, sizeof(*args));
	char name[64], option[GLOBAL_OPTIONS_MAX][32];
	int n = 0;

	for (int k = 0; k < n_globals; k++)
		if (!command_option_find(c, global_options[g[k].option].name))
			return usage_error(c->name, "'%s' has no --%s option", c->name,
					   global_options[g[k].option].name);
	if (!args)
		return fail("%s", strerror(ENOMEM));
	snprintf(name, sizeof(name), "ramwatch %s", c->name);
	args[n++] = name;
	for (int k = 0; k < n_globals; k++) {
		snprintf(option[k], sizeof(option[k]), "--%s", global_options[g[k].option].name);
		args[n++] = option[k];
		args[n++] = (char *)g[k].value;
	}
	for (int i = first + 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	return command_run(c, n, args);
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
				return usage_error(NULL, "--%s is given twice", global_options[g[k].option].name);
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
	/* a command of the list, not a sub-command ("trace record" is one
	 * argument nobody types) */
	const struct command *c = command_table_find(argv[i]);
	if (c && c->summary)
		return run_command(c, argc, argv, i, g, n_globals);
	if (argv[i][0] == '-')
		return usage_error(NULL, "unknown option '%s' before the command", argv[i]);
	return usage_error(NULL, "unknown command '%s'", argv[i]);
}
