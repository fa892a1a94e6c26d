/* The client's table of commands (client/command-table.c) against what
 * follows from it: every entry whole and each command's help naming
 * every option; the shell completions (completions/_ramwatch,
 * completions/ramwatch.bash) offering every command's options with the
 * table's values, and no option a command lacks; ramwatch(1) describing
 * every command and every option, and listing every command that asks
 * the daemon. */
#include "testlib.h"

#include <ctype.h>

#include "command-table.h"
#include "util.h"

#define ZSH_COMPLETION "completions/_ramwatch"
#define BASH_COMPLETION "completions/ramwatch.bash"
#define CLIENT_MAN "man/ramwatch.1"

static size_t n_commands;
static const struct command *commands;

/* A problem found: said, counted, and the test fails at its end with
 * every one listed. */
static unsigned problems;
#define problem(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), problems++)
#define no_problems()                                                        \
	do {                                                                 \
		if (problems > 0)                                            \
			fail_msg("%u problems (above)", problems);           \
	} while (0)

static int setup(void **state)
{
	(void)state;
	commands = command_table_all(&n_commands);
	return 0;
}

/* Whether the words of list (space-separated) are those of want, in the
 * same order. */
static bool same_words(const char *list, size_t len, const char *want)
{
	char a[512], b[512];
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < sizeof(a); i++)
		if (!isspace((unsigned char)list[i]) || (n > 0 && a[n - 1] != ' '))
			a[n++] = isspace((unsigned char)list[i]) ? ' ' : list[i];
	while (n > 0 && a[n - 1] == ' ')
		n--;
	a[n] = '\0';
	snprintf(b, sizeof(b), "%s", want);
	return streq(a, b);
}

/* Whether text[0, len) holds "--name" not followed by another letter of a
 * longer option's name. */
static bool has_option(const char *text, size_t len, const char *name)
{
	char want[64];
	size_t n = (size_t)snprintf(want, sizeof(want), "--%s", name);

	for (const char *p = text; p && p + n <= text + len; p++) {
		p = memmem(p, (size_t)(text + len - p), want, n);
		if (!p)
			return false;
		char after = p + n < text + len ? p[n] : '\0';
		if (!isalnum((unsigned char)after) && after != '-' && after != '_')
			return true;
	}
	return false;
}

/* Whether man text holds "Fl -name" (how mdoc writes --name), not the
 * start of a longer option's name. */
static bool has_fl(const char *text, const char *name)
{
	char want[64];
	size_t n = (size_t)snprintf(want, sizeof(want), "Fl -%s", name);

	for (const char *p = text; (p = strstr(p, want)); p++) {
		char after = p[n];
		if (!isalnum((unsigned char)after) && after != '-' && after != '_')
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ the table */

static void test_entries_are_whole(void **state)
{
	(void)state;
	for (size_t i = 0; i < n_commands; i++) {
		const struct command *c = &commands[i];
		if (!c->name || !c->usage || !c->about || !startswith(c->usage, "ramwatch "))
			fail_msg("command %zu has no name, usage or about", i);
		if (!c->run)
			fail_msg("%s: this build cannot run it", c->name);
		assert_ptr_equal(command_table_find(c->name), c);
		const char *space = strchr(c->name, ' ');
		if (space) {
			/* a sub-command: of a command of the list, and not in it */
			char parent[32];
			snprintf(parent, sizeof(parent), "%.*s", (int)(space - c->name), c->name);
			const struct command *p = command_table_find(parent);
			if (!p || !p->summary || c->summary)
				fail_msg("%s: a sub-command of no command of the list", c->name);
		} else if (!c->summary) {
			fail_msg("%s: no line in ramwatch --help", c->name);
		}
		size_t n = 0;
		for (const struct command_option *o = c->options; o && o->name; o++, n++) {
			if (!o->help || !*o->help || streq(o->name, "help") || o->val == 'h')
				fail_msg("%s --%s: no help, or help's name or value", c->name, o->name);
			for (const struct command_option *k = c->options; k < o; k++)
				if (streq(k->name, o->name) || k->val == o->val ||
				    (o->short_name && k->short_name == o->short_name))
					fail_msg("%s: --%s and --%s share a name or a value", c->name, k->name, o->name);
			const char *pct = strchr(o->help, '%');
			bool one_fill = pct && strncmp(pct, "%s", 2) == 0 && !strchr(pct + 1, '%');
			if (o->fill ? !one_fill : pct != NULL)
				fail_msg("%s --%s: its help's %% is not its fill's one %%s", c->name, o->name);
			if ((o->complete == COMPLETE_WORDS) != (o->values != NULL))
				fail_msg("%s --%s: values without COMPLETE_WORDS, or the reverse", c->name, o->name);
			if (o->complete != COMPLETE_NOTHING && !o->arg)
				fail_msg("%s --%s: a flag with values to complete", c->name, o->name);
		}
		assert_true(n <= COMMAND_OPTIONS_MAX);

		/* the help names every option, with what fill gives */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		command_help(c, f);
		fclose(f);
		if (!startswith(text, "Usage: ramwatch ") || strstr(text, "%s") || strstr(text, "(null)"))
			fail_msg("%s: its help is not whole:\n%s", c->name, text);
		for (const struct command_option *o = c->options; o && o->name; o++)
			if (!has_option(text, len, o->name))
				fail_msg("%s: its help does not name --%s", c->name, o->name);
		free(text);
	}
	assert_null(command_table_find("frobnicate"));
}

/* ------------------------------------------------------------ zsh */

static bool has_subcommands(const struct command *c)
{
	size_t len = strlen(c->name);
	for (size_t i = 0; i < n_commands; i++)
		if (strncmp(commands[i].name, c->name, len) == 0 && commands[i].name[len] == ' ')
			return true;
	return false;
}

/* Whether c, or one of its sub-commands, takes --name. */
static bool takes(const struct command *c, const char *name)
{
	size_t len = strlen(c->name);

	if (command_option_find(c, name))
		return true;
	for (size_t i = 0; i < n_commands; i++)
		if (strncmp(commands[i].name, c->name, len) == 0 && commands[i].name[len] == ' ' &&
		    command_option_find(&commands[i], name))
			return true;
	return false;
}

/* The case of completions/_ramwatch for command (a line "    NAME)"),
 * or for a sub-command the case inside its command's; NULL when there is
 * none.  Its text ends at the case's ";;" (the one at its own indent). */
static char *zsh_case(const char *file, const char *name)
{
	char word[32], head[48];
	const char *at = file, *end = file + strlen(file);
	int indent = 4;

	for (const char *w = name; *w;) {
		size_t n = strcspn(w, " ");
		snprintf(word, sizeof(word), "%.*s", (int)n, w);
		snprintf(head, sizeof(head), "\n%*s%s)\n", indent, "", word);
		const char *h = strstr(at, head);
		if (!h || h > end)
			return NULL;
		at = h + strlen(head);
		/* the case ends where a line is indented no more than its
		 * label: the next label, or the esac */
		const char *e = NULL;
		for (const char *l = strchr(at, '\n'); l && l < end; l = strchr(l + 1, '\n')) {
			size_t spaces = strspn(l + 1, " ");
			if ((int)spaces <= indent && l[1 + spaces] != '\n' && l[1 + spaces] != '\0') {
				e = l;
				break;
			}
		}
		end = e ? e : end;
		w += n;
		w += *w == ' ';
		indent += 2;
	}
	return strndup(at, (size_t)(end - at));
}

/* The value of each local NAME='...' the file defines for the cases
 * ($socket, $pid, ...), put in place of $NAME in text. */
static char *zsh_expand(const char *file, const char *text)
{
	char *out = strdup(text);
	for (const char *p = file; (p = strstr(p, "local ")); p++) {
		const char *line_end = strchr(p, '\n');
		for (const char *q = p + 6; q < line_end;) {
			const char *eq = strstr(q, "='");
			if (!eq || eq > line_end)
				break;
			const char *name = eq;
			while (name > q && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
				name--;
			const char *val = eq + 2, *close = strchr(val, '\'');
			/* a value with '"'"' inside runs on */
			while (close && startswith(close, "'\"'\"'"))
				close = strchr(close + 5, '\'');
			if (!close)
				break;
			char var[64];
			snprintf(var, sizeof(var), "$%.*s", (int)(eq - name), name);
			for (char *at; (at = strstr(out, var)) && !isalnum((unsigned char)at[strlen(var)]);) {
				char *grown = NULL;
				if (asprintf(&grown, "%.*s%.*s%s", (int)(at - out), out, (int)(close - val), val,
					     at + strlen(var)) < 0)
					abort();
				free(out);
				out = grown;
			}
			q = close + 1;
		}
	}
	return out;
}

static void test_zsh_completion(void **state)
{
	(void)state;
	problems = 0;
	size_t len;
	char *file = slurp(ZSH_COMPLETION, &len);

	for (size_t i = 0; i < n_commands; i++) {
		const struct command *c = &commands[i];
		char *raw = zsh_case(file, c->name);
		if (!raw) {
			problem(ZSH_COMPLETION ": no case for %s", c->name);
			continue;
		}
		char *text = zsh_expand(file, raw);
		size_t n = strlen(text);
		for (const struct command_option *o = c->options; o && o->name; o++) {
			if (!has_option(text, n, o->name))
				problem(ZSH_COMPLETION ", %s: --%s is not offered", c->name, o->name);
			if (o->complete != COMPLETE_WORDS)
				continue;
			/* '--format=[...]:format:(a b c)', or {-s+,--sort=}'[...]:...:(a b)' */
			char spec[64];
			snprintf(spec, sizeof(spec), "--%s=", o->name);
			const char *s = strstr(text, spec);
			if (s && startswith(s + strlen(spec), "}'"))
				s += 2;
			const char *end = s ? strchr(s + strlen(spec), '\'') : NULL;
			/* (a quote inside the spec is '"'"') */
			while (end && startswith(end, "'\"'\"'"))
				end = strchr(end + 5, '\'');
			const char *open = s ? strchr(s, '(') : NULL, *close = open ? strchr(open, ')') : NULL;
			if (!end || !close || close > end || !same_words(open + 1, (size_t)(close - open - 1), o->values))
				problem(ZSH_COMPLETION ", %s --%s: its values are not \"%s\"", c->name, o->name,
					o->values);
		}
		/* and nothing the command does not take */
		for (const char *p = text; (p = strstr(p, "--"));) {
			char name[64];
			size_t k = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
			snprintf(name, sizeof(name), "%.*s", (int)k, p + 2);
			while (k > 0 && name[k - 1] == '-')
				name[--k] = '\0';
			if (k > 0 && !streq(name, "help") && !takes(c, name))
				problem(ZSH_COMPLETION ", %s: offers --%s, which it does not take", c->name, name);
			p += 2 + (k ? k : 0);
		}
		free(text);
		free(raw);
	}
	free(file);
	no_problems();
}

/* ------------------------------------------------------------ bash */

/* The words of the shell variable name's value ("name=\"...\""). */
static char *bash_variable(const char *file, const char *name)
{
	char head[64];
	snprintf(head, sizeof(head), "\n%s=\"", name);
	const char *s = strstr(file, head);
	if (!s)
		fail_msg(BASH_COMPLETION ": no %s", name);
	s += strlen(head);
	return strndup(s, strcspn(s, "\""));
}

/* Whether words (space-separated, any spacing) holds word. */
static bool has_word(const char *words, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = words; (p = strstr(p, word)); p += n)
		if ((p == words || isspace((unsigned char)p[-1])) && (p[n] == '\0' || isspace((unsigned char)p[n])))
			return true;
	return false;
}

static void test_bash_completion(void **state)
{
	(void)state;
	problems = 0;
	size_t len;
	char *file = slurp(BASH_COMPLETION, &len);
	char *files = bash_variable(file, "_ramwatch_file_options");
	char *dirs = bash_variable(file, "_ramwatch_directory_options");
	const char *values = strstr(file, "\n_ramwatch_values()");
	assert_non_null(values);
	const char *values_end = strstr(values, "\n}\n");
	assert_non_null(values_end);

	for (size_t i = 0; i < n_commands; i++) {
		const struct command *c = &commands[i];
		char key[64];
		snprintf(key, sizeof(key), "%s", c->name);
		for (char *p = key; *p; p++)
			*p = *p == ' ' ? '-' : *p;
		for (const struct command_option *o = c->options; o && o->name; o++) {
			char option[64], label[96], any[96];
			snprintf(option, sizeof(option), "--%s", o->name);
			snprintf(label, sizeof(label), "%s:--%s", key, o->name);
			snprintf(any, sizeof(any), "*:--%s", o->name);
			switch (o->complete) {
			case COMPLETE_FILE:
				if (!has_word(files, option))
					problem(BASH_COMPLETION ": %s %s is not in _ramwatch_file_options", c->name,
						 option);
				break;
			case COMPLETE_DIRECTORY:
				if (!has_word(dirs, option))
					problem(BASH_COMPLETION ": %s %s is not in _ramwatch_directory_options", c->name,
						 option);
				break;
			case COMPLETE_WORDS: {
				/* "\tprocesses:--sort) echo "..." ;;" or one of several labels */
				const char *at = NULL;
				for (const char *p = values; (p = strstr(p, label)) && p < values_end; p++)
					if (p[-1] == '\t' || p[-1] == ' ') {
						at = p;
						break;
					}
				const char *echo = at ? strstr(at, "echo \"") : NULL;
				if (!echo || echo > values_end) {
					problem(BASH_COMPLETION ": _ramwatch_values has no %s", label);
					break;
				}
				echo += strlen("echo \"");
				if (!same_words(echo, strcspn(echo, "\""), o->values))
					problem(BASH_COMPLETION ": %s gives \"%.*s\", not \"%s\"", label,
						 (int)strcspn(echo, "\""), echo, o->values);
				break;
			}
			case COMPLETE_TIME:
			case COMPLETE_CLASS:
				if (!memmem(values, (size_t)(values_end - values), any, strlen(any)))
					problem(BASH_COMPLETION ": _ramwatch_values has no %s", any);
				break;
			case COMPLETE_PID:
			case COMPLETE_NAME: {
				char branch[128];
				snprintf(branch, sizeof(branch), "\t%s) list=$(_ramwatch_processes", option);
				if (!strstr(file, branch))
					problem(BASH_COMPLETION ": %s %s is not completed from the daemon", c->name, option);
				break;
			}
			case COMPLETE_NOTHING:
				break;
			}
		}
	}
	/* and no values for an option a command does not take */
	for (const char *p = values; (p = strstr(p, ":--")) && p < values_end; p += 3) {
		const char *start = p;
		while (start > values && !isspace((unsigned char)start[-1]))
			start--;
		char command[64], option[64];
		snprintf(command, sizeof(command), "%.*s", (int)(p - start), start);
		snprintf(option, sizeof(option), "%.*s", (int)strspn(p + 3, "abcdefghijklmnopqrstuvwxyz-"), p + 3);
		if (streq(command, "*"))
			continue;
		for (char *q = command; *q; q++)
			*q = *q == '-' ? ' ' : *q;
		const struct command *c = command_table_find(command);
		if (!c || !command_option_find(c, option))
			problem(BASH_COMPLETION ": _ramwatch_values gives values of %s --%s, which does not exist",
				 command, option);
	}
	free(files);
	free(dirs);
	free(file);
	no_problems();
}

/* ------------------------------------------------------------ ramwatch(1) */

/* The items of the COMMANDS section of man that describe command: from
 * ".It Cm NAME" to the next command's item, all of them. */
static char *man_items(const char *man, const char *name)
{
	const char *section = strstr(man, "\n.Sh COMMANDS\n"), *end = section ? strstr(section + 1, "\n.Sh ") : NULL;
	char head[64], *out = strdup("");

	if (!end)
		fail_msg(CLIENT_MAN ": no COMMANDS section");
	snprintf(head, sizeof(head), "\n.It Cm %s", name);
	for (const char *p = section; (p = strstr(p, head)) && p < end; p++) {
		char after = p[strlen(head)];
		if (after != ' ' && after != '\n')
			continue;
		const char *e = strstr(p + 1, "\n.It Cm ");
		if (!e || e > end)
			e = end;
		char *grown = NULL;
		if (asprintf(&grown, "%s%.*s", out, (int)(e - p), p) < 0)
			abort();
		free(out);
		out = grown;
	}
	return out;
}

static void test_man_page(void **state)
{
	(void)state;
	problems = 0;
	size_t len;
	char *man = slurp(CLIENT_MAN, &len);
	const char *synopsis = strstr(man, "\n.Sh SYNOPSIS\n"), *description = strstr(man, "\n.Sh DESCRIPTION\n");
	const char *globals = strstr(man, "\n.Ss Global options\n");
	const char *asking = strstr(man, "\n.Sh ASKING THE DAEMON\n");
	assert_non_null(synopsis);
	assert_non_null(description);
	assert_non_null(globals);
	assert_non_null(asking);
	const char *asking_end = strstr(asking, "\n.Pp") ? strstr(asking, "\n.Pp") : asking + strlen(asking);

	for (size_t i = 0; i < n_commands; i++) {
		const struct command *c = &commands[i];
		char want[64];
		snprintf(want, sizeof(want), "\n.Cm %s\n", c->name);
		/* (a command of sub-commands has theirs) */
		if (!has_subcommands(c) && !memmem(synopsis, (size_t)(description - synopsis), want, strlen(want)))
			problem(CLIENT_MAN ", SYNOPSIS: no %s", c->name);
		char *text = man_items(man, c->name);
		if (!*text)
			problem(CLIENT_MAN ", COMMANDS: no item \".It Cm %s\"", c->name);
		for (const struct command_option *o = c->options; o && o->name; o++) {
			char fl[64];
			snprintf(fl, sizeof(fl), "Fl -%s", o->name);
			bool global = streq(o->name, "socket") || streq(o->name, "db");
			if (!has_fl(text, o->name) && !(global && has_fl(globals, o->name)))
				problem(CLIENT_MAN ", %s: --%s is not described", c->name, o->name);
			if (o->short_name) {
				snprintf(fl, sizeof(fl), "Fl %c", o->short_name);
				if (!strstr(text, fl))
					problem(CLIENT_MAN ", %s: -%c is not described", c->name, o->short_name);
			}
		}
		free(text);
		/* the commands that ask the daemon are listed there */
		if (c->needs == COMMAND_NEEDS_DAEMON) {
			char cm[64];
			snprintf(cm, sizeof(cm), " %s ,", c->name);
			if (!memmem(asking, (size_t)(asking_end - asking), cm, strlen(cm)))
				problem(CLIENT_MAN ", ASKING THE DAEMON: %s is not listed", c->name);
		}
	}
	free(man);
	no_problems();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_are_whole),
		cmocka_unit_test(test_zsh_completion),
		cmocka_unit_test(test_bash_completion),
		cmocka_unit_test(test_man_page),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
