/* ramwatch history: the timeline ramwatchd stored for a process — sample
 * rows, censuses with their classes, marks — fetched page by page; or,
 * with --cgroup or --unit, that of a memory cgroup. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "classes.h"
#include "commands.h"
#include "control-client.h"
#include "macro.h"
#include "render-answer.h"
#include "style.h"
#include "units.h"
#include "util.h"

struct output {
	const json_t *answer;
	struct history_options options;
};

static int write_history(FILE *f, void *data)
{
	const struct output *o = data;
	if (o->options.format == ANSWER_JSON)
		return answer_print_json(o->answer, f);
	return render_history(o->answer, &o->options, f);
}

/* Adds the keys of "a,b" to classes (at most _CLASS_MAX of them). */
static int add_classes(const char *arg, const char **classes, size_t *n, char *storage, size_t storage_size,
		       size_t *used)
{
	const char *s = arg;

	while (*s) {
		size_t len = strcspn(s, ",");
		if (len == 0 || *used + len + 1 > storage_size || *n == _CLASS_MAX)
			return usage_error("history", "--class takes class keys (such as python,malloc), not '%s'",
					   arg);
		char *key = storage + *used;
		memcpy(key, s, len);
		key[len] = '\0';
		*used += len + 1;
		if (class_from_key(key) < 0)
			return usage_error("history", "unknown class '%s' (the classes are listed in ramwatch(1))",
					   key);
		classes[(*n)++] = key;
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

struct group_output {
	const json_t *answer;
	enum answer_format format;
};

static int write_group_history(FILE *f, void *data)
{
	const struct group_output *o = data;
	return render_cgroup_history(o->answer, o->format, f);
}

/* history --cgroup PATH or --unit NAME: the cgroup_history answer. */
static int group_history(const struct ask_args *a, const char *cgroup, const char *unit, enum answer_format format,
			 int64_t now)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "cgroup_history"), *result = NULL;
	int64_t since, until;
	int r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	if (cgroup && unit)
		return usage_error("history", "give --cgroup or --unit, not both");
	if (a->pid || a->name)
		return usage_error("history", "give a process (--pid, --name) or a cgroup (--cgroup, --unit), not both");
	if (cgroup && cgroup[0] != '/')
		return usage_error("history", "--cgroup takes a path that starts with /, not '%s'", cgroup);
	if (json_object_set_new(request, cgroup ? "cgroup" : "unit", json_string(cgroup ? cgroup : unit)) < 0)
		return usage_error("history", "%s takes UTF-8 text", cgroup ? "--cgroup" : "--unit");
	if ((a->since && (r = ask_time("history", "--since", a->since, now, request, "since")) != 0) ||
	    (a->until && (r = ask_time("history", "--until", a->until, now, request, "until")) != 0))
		return r;
	if (answer_int(request, "since", &since) && answer_int(request, "until", &until) && since > until)
		return usage_error("history", "--since is after --until");
	if ((r = ask(a->socket, request, CONTROL_WAIT_US, &result)) != 0)
		return r;
	struct group_output o = { result, format };
	return ask_output(NULL, write_group_history, &o);
}

int cmd_history(const struct command *self, int argc, char **argv)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s}", "op", "history"), *result = NULL;
	struct ask_args a = { 0 };
	const char *classes[_CLASS_MAX];
	char storage[1024];
	size_t n_classes = 0, used = 0;
	enum answer_format format = ANSWER_TABLE;
	int64_t now = now_realtime_ms();
	uint64_t step = 0;
	const char *cgroup = NULL, *unit = NULL;
	int opt, r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'c':
			if ((r = add_classes(optarg, classes, &n_classes, storage, sizeof(storage), &used)) != 0)
				return r;
			break;
		case 's':
			/* a step below a millisecond would be 0: no step at all */
			if (units_parse_duration(optarg, UNITS_USEC_PER_MS, &step) < 0 || step == 0)
				return usage_error("history",
						   "--step takes a duration of at least 1ms (30s, 1.5min, 1h 30min), not '%s'",
						   optarg);
			break;
		case OPT_FORMAT:
			r = answer_format_from_name(optarg);
			if (r != ANSWER_TABLE && r != ANSWER_CSV && r != ANSWER_JSON)
				return usage_error("history", "--format takes table, csv or json, not '%s'", optarg);
			format = (enum answer_format)r;
			break;
		case 'g': cgroup = optarg; break;
		case 'u': unit = optarg; break;
		case 'h': command_help(self, stdout); return 0;
		default:
			if (ask_take_option(&a, opt, optarg))
				break;
			return usage_error("history", "bad option");
		}
	}
	if (optind < argc)
		return usage_error("history", "unexpected argument '%s'", argv[optind]);
	if (cgroup || unit) {
		if (n_classes > 0 || step > 0)
			return usage_error("history", "--class and --step are for a process's timeline");
		return group_history(&a, cgroup, unit, format, now);
	}
	if ((r = ask_put_selection("history", request, &a, true, now)) != 0)
		return r;
	int64_t since, until;
	if (answer_int(request, "since", &since) && answer_int(request, "until", &until) && since > until)
		return usage_error("history", "--since is after --until");
	if (step > 0 && json_object_set_new(request, "step_ms", json_integer((json_int_t)step)) < 0)
		return fail("%s", strerror(ENOMEM));
	if (n_classes > 0) {
		json_t *list = json_array();
		for (size_t i = 0; list && i < n_classes; i++)
			if (json_array_append_new(list, json_string(classes[i])) < 0) {
				json_decref(list);
				list = NULL;
			}
		if (!list || json_object_set_new(request, "classes", list) < 0)
			return fail("%s", strerror(ENOMEM));
	}
	if ((r = ask_all_pages(a.socket, request, &result)) != 0)
		return r;
	if (format == ANSWER_TABLE)
		ask_say_filtered(result, "your own processes", "included", false);
	struct output o = {
		.answer = result,
		.options = { .format = format, .classes = classes, .n_classes = n_classes,
			     .decorated = style_decorate_stdout() },
	};
	return ask_output(NULL, write_history, &o);
}
