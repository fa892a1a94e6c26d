/* ramwatch diff: two censuses compared class by class — two saved files,
 * or two censuses ramwatchd stored for a process (--pid, --from, --to). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "census-json.h"
#include "census.h"
#include "classes.h"
#include "commands.h"
#include "control-client.h"
#include "heap-words.h"
#include "limits.h"
#include "macro.h"
#include "render-answer.h"
#include "render-census.h"
#include "render-region-changes.h"
#include "timeparse.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

int load_census_file(const char *path, struct census **ret)
{
	struct error err = { 0 };
	int r = census_load_file(path, ret, &err);
	if (r < 0)
		return fail("%s: %s", path, err.message);
	return 0;
}

/* --from and --to: "first", "last", or a time (ask_parse_time). */
#define AT_FIRST INT64_C(-1)
#define AT_LAST INT64_MAX

static int parse_at(const char *option, const char *arg, int64_t now_ms, int64_t *ret)
{
	if (streq(arg, "first"))
		*ret = AT_FIRST;
	else if (streq(arg, "last"))
		*ret = AT_LAST;
	else
		return ask_parse_time("diff", option, arg, now_ms, ret);
	return 0;
}

/* The census request's "at": the daemon knows "first" and "last" too. */
static json_t *at_json(int64_t at)
{
	return at == AT_FIRST ? json_string("first") : at == AT_LAST ? json_string("last") : json_integer(at);
}

static int ask_census(const char *socket, const json_t *pid, int64_t at, json_t **ret, struct control_error *err)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s, s:O, s:o}", "op", "census", "pid", pid, "at",
							    at_json(at));
	if (!request)
		return error_set(&err->error, -ENOMEM, "%s", strerror(ENOMEM));
	return control_client_ask(control_client_socket_path(socket), request, CONTROL_WAIT_US, ret, err);
}

/* No census at or before a time: say so in the time format of this
 * client, and what there is instead. */
static int no_census_before(const char *socket, const json_t *pid, int64_t at, const struct control_error *first_err)
{
	_cleanup_(json_decrefp) json_t *result = NULL;
	_cleanup_(census_freep) struct census *c = NULL;
	struct control_error err = { 0 };
	struct error parse = { 0 };
	char when[TIMEPARSE_FORMAT_MAX], first[TIMEPARSE_FORMAT_MAX];
	int64_t id;

	if (ask_census(socket, pid, AT_FIRST, &result, &err) < 0 || census_from_json(result, &c, &parse) < 0)
		return fail("%s", first_err->error.message);
	if (!answer_int(result, "census_id", &id))
		id = -1;
	return fail("no census of process %d (%s) at or before %s: the first is census #%" PRId64
		    " at %s (--from first)",
		    c->pid, c->comm ? c->comm : "?", timeparse_format_local(when, at), id,
		    timeparse_format_local(first, c->taken_at_ms));
}

/* The stored census of pid at at; *ret_what names it for people
 * ("census #98 (first) at 2026-11-29 14:00:01"). */
static int stored(const char *socket, const json_t *pid, int64_t at, struct census **ret, int64_t *ret_id,
		  char *ret_what, size_t what_size)
{
	_cleanup_(json_decrefp) json_t *result = NULL;
	struct control_error cerr = { 0 };
	struct error err = { 0 };

	if (ask_census(socket, pid, at, &result, &cerr) < 0) {
		if (streq(cerr.code, "not_found") && at != AT_FIRST && at != AT_LAST)
			return no_census_before(socket, pid, at, &cerr);
		return fail("%s", cerr.error.message);
	}
	if (census_from_json(result, ret, &err) < 0)
		return fail("ramwatchd sent a census this client cannot read: %s", err.message);
	if (!answer_int(result, "census_id", ret_id))
		*ret_id = -1;
	const char *trigger = answer_str(result, "trigger");
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t repeats;
	int n = snprintf(ret_what, what_size, "census #%" PRId64 " (%s) at %s", *ret_id, trigger ? trigger : "?",
			 timeparse_format_local(when, (*ret)->taken_at_ms));
	if (answer_int(result, "repeats", &repeats) && n > 0 && (size_t)n < what_size)
		snprintf(ret_what + n, what_size - (size_t)n, ", unchanged since census #%" PRId64, repeats);
	return 0;
}

/* The region events stored after census a up to census b (the events of
 * a census carry its time), folded into changes.  Returns 0 with *ret and
 * *ret_n, or 1 after saying why. */
static int region_changes(const char *socket, const json_t *pid, const struct census *a, const struct census *b,
			  struct region_change **ret, size_t *ret_n, json_t **ret_answer)
{
	_cleanup_(json_decrefp) json_t *request = json_pack("{s:s, s:O, s:I, s:I}", "op", "events", "pid", pid,
							    "since", (json_int_t)(a->taken_at_ms + 1), "until",
							    (json_int_t)b->taken_at_ms);
	json_t *answer = NULL;
	struct error err = { 0 };
	int r;

	if (!request)
		return fail("%s", strerror(ENOMEM));
	if ((r = ask_all_pages(socket, request, &answer)) != 0)
		return r;
	r = region_changes_from_events(json_object_get(answer, "events"), ret, ret_n, &err);
	if (r < 0) {
		json_decref(answer);
		return r == -ENOMEM ? fail("%s", strerror(ENOMEM)) : fail("ramwatchd sent a malformed answer (%s)", err.message);
	}
	*ret_answer = answer;
	return 0;
}

/* One side of the JSON form: the census's id (stored ones), time and totals. */
static json_t *side_json(const struct census *c, int64_t id)
{
	return json_pack("{s:o, s:o, s:I, s:I}", "census_id", id >= 0 ? json_integer(id) : json_null(), "time",
			 c->taken_at_ms >= 0 ? json_integer(c->taken_at_ms) : json_null(), "private",
			 (json_int_t)c->totals.private, "resident", (json_int_t)c->totals.resident);
}

/* Where either census read the allocator of class k: its in use and free
 * before and after (null on a side that did not), the returnable part
 * after, and what the class's growth was made of (heap-trend.h). */
static int heap_json(const struct census *a, const struct census *b, enum class_id k, json_t *o)
{
	struct heap_point x = heap_words_point(a, k), y = heap_words_point(b, k);
	int r = 0;

	if (!x.known && !y.known)
		return 0;
	r |= json_object_set_new(o, "in_use_before", x.known ? json_integer((json_int_t)x.in_use) : json_null());
	r |= json_object_set_new(o, "in_use", y.known ? json_integer((json_int_t)y.in_use) : json_null());
	r |= json_object_set_new(o, "free_before", x.known ? json_integer((json_int_t)x.free) : json_null());
	r |= json_object_set_new(o, "free", y.known ? json_integer((json_int_t)y.free) : json_null());
	r |= json_object_set_new(o, "returnable", y.known ? json_integer((json_int_t)y.returnable) : json_null());
	r |= json_object_set_new(o, "growth", json_string(heap_growth_name(heap_trend_growth(&x, &y))));
	return r < 0 ? -ENOMEM : 0;
}

/* The comparison for programs: the two sides, the classes (those in
 * either census, largest change of private first) and, for stored
 * censuses, the region changes between them. */
static int print_diff_json(const struct census *a, const struct census *b, int64_t id_a, int64_t id_b,
			   const struct region_change *v, size_t n, bool stored_pair)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:o, s:o, s:[]}", "from", side_json(a, id_a), "to",
						      side_json(b, id_b), "classes");
	json_t *classes = json_object_get(o, "classes");

	if (!o)
		return fail("%s", strerror(ENOMEM));
	for (int k = 0; k < _CLASS_MAX; k++) {
		const struct census_totals *x = &a->classes[k], *y = &b->classes[k];
		if (x->count == 0 && y->count == 0)
			continue;
		json_t *c = json_pack("{s:s, s:I, s:I, s:I, s:I}", "class", class_key((enum class_id)k), "private_before",
				      (json_int_t)x->private, "private", (json_int_t)y->private, "resident_before",
				      (json_int_t)x->resident, "resident", (json_int_t)y->resident);
		if (!c || json_array_append_new(classes, c) < 0 || heap_json(a, b, (enum class_id)k, c) < 0)
			return fail("%s", strerror(ENOMEM));
	}
	if (stored_pair && json_object_set_new(o, "regions", region_changes_json(v, n)) < 0)
		return fail("%s", strerror(ENOMEM));
	if (answer_print_json(o, stdout) < 0)
		return fail("cannot write the output: %s", strerror(errno));
	return 0;
}

int cmd_diff(const struct command *self, int argc, char **argv)
{
	_cleanup_(census_freep) struct census *a = NULL, *b = NULL;
	_cleanup_(json_decrefp) json_t *select = json_object();
	struct render_options o = { .format = RENDER_TEXT, .top = RW_TOP_DEFAULT };
	const char *socket = NULL, *pid = NULL, *from = NULL, *to = "now";
	_cleanup_(json_decrefp) json_t *events = NULL;
	_cleanup_free_ struct region_change *changes = NULL;
	size_t n_changes = 0;
	bool json = false;
	int64_t now = now_realtime_ms(), t_from, t_to, id_a = -1, id_b = -1;
	char what_a[128] = "", what_b[128] = "";
	int opt, r;

	if (!select)
		return fail("%s", strerror(ENOMEM));
	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case OPT_SOCKET: socket = optarg; break;
		case 'm': o.format = RENDER_MARKDOWN; break;
		case OPT_FORMAT:
			if (streq(optarg, "text") || streq(optarg, "markdown"))
				o.format = streq(optarg, "text") ? RENDER_TEXT : RENDER_MARKDOWN;
			else if (streq(optarg, "json"))
				json = true;
			else
				return usage_error("diff", "--format takes text, markdown or json, not '%s'", optarg);
			break;
		case OPT_PID: pid = optarg; break;
		case 'f': from = optarg; break;
		case 't': to = optarg; break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("diff", "bad option");
		}
	}
	if (!pid) {
		if (from || socket)
			return usage_error("diff", "--from and --socket go with --pid");
		if (argc - optind != 2)
			return usage_error("diff", "give two census files, or --pid PID --from TIME");
		if ((r = load_census_file(argv[optind], &a)) != 0 || (r = load_census_file(argv[optind + 1], &b)) != 0)
			return r;
	} else {
		if (optind < argc)
			return usage_error("diff", "with --pid, give no census files ('%s')", argv[optind]);
		if (!from)
			return usage_error("diff", "--pid needs --from TIME");
		if ((r = ask_select("diff", select, pid, NULL, false)) != 0 ||
		    (r = parse_at("--from", from, now, &t_from)) != 0 || (r = parse_at("--to", to, now, &t_to)) != 0)
			return r;
		if (t_from > t_to)
			return usage_error("diff", "--from is after --to");
		const json_t *p = json_object_get(select, "pid");
		if ((r = stored(socket, p, t_from, &a, &id_a, what_a, sizeof(what_a))) != 0 ||
		    (r = stored(socket, p, t_to, &b, &id_b, what_b, sizeof(what_b))) != 0)
			return r;
		if (id_a >= 0 && id_a == id_b) {
			char when[TIMEPARSE_FORMAT_MAX];
			return fail("--from and --to fall on the same census #%" PRId64 " (taken %s): no census was stored "
				    "between them",
				    id_a, timeparse_format_local(when, a->taken_at_ms));
		}
		if ((r = region_changes(socket, p, a, b, &changes, &n_changes, &events)) != 0)
			return r;
	}
	if (json)
		return print_diff_json(a, b, id_a, id_b, changes, n_changes, pid != NULL);
	if (what_a[0])
		printf("%s -> %s\n%s", what_a, what_b, o.format == RENDER_MARKDOWN ? "\n" : "");
	r = render_diff(a, b, &o, stdout);
	if (r >= 0)
		r = render_region_changes(changes, n_changes, o.top, &o, stdout);
	if (r == -ENOMEM)
		return fail("%s", strerror(ENOMEM));
	if (fflush(stdout) != 0 || ferror(stdout))
		return fail("cannot write the output: %s", strerror(errno));
	return 0;
}
