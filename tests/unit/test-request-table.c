/* The table of control requests (common/request-table.def) against what
 * follows from it: every entry whole and its handlers where it says it
 * runs; the daemon's parser taking exactly the arguments an entry lists,
 * of their types and within their bounds, and naming the argument it
 * refuses; the refusal of an unknown op listing every request; and
 * doc/protocol.md and ramwatchd(8) listing every request and every
 * argument (protocol.md's summary of the requests is the table's, word for
 * word: a failure prints the block to paste). */
#include "testlib.h"

#include <errno.h>

#include "classes.h"
#include "control-internal.h"
#include "control-request.h"
#include "request-table.h"
#include "util.h"

#define NOW 1764445000000LL

#define PROTOCOL_DOC "doc/protocol.md"
#define DAEMON_MAN "man/ramwatchd.8"
#define SUMMARY_BEGIN "<!-- the requests, from common/request-table.def (test-request-table checks it) -->\n"
#define SUMMARY_END "<!-- end of the requests -->\n"

/* ------------------------------------------------------------ the entries */

static size_t words_of(const struct request_arg *a)
{
	size_t n = 0;
	while (n < REQUEST_WORDS_MAX && a->words[n])
		n++;
	return n;
}

static void test_entries_are_whole(void **state)
{
	(void)state;
	bool used[_REQUEST_ARG_MAX] = { false };

	for (int op = 0; op < _CONTROL_OP_MAX; op++) {
		const struct request_decl *d = request_table_get(op);
		const struct control_handlers *h = control_handlers_get(op);
		assert_non_null(d);
		if (!d->name || !d->help || !*d->help || !d->effects || !*d->effects)
			fail_msg("request %d has no name, help or effects", op);
		assert_int_equal(request_table_find(d->name), op);
		assert_true(d->timeout_us >= RW_REQUEST_TIMEOUT_US);
		assert_true(d->platforms != 0);
		assert_true(d->n_args <= REQUEST_ARGS_MAX);

		/* the handlers do what the entry says of where it runs */
		bool start = h->start != NULL, query = h->query != NULL;
		bool ok = d->runs == REQUEST_ON_LOOP ? start && !query && !h->finish
			  : d->runs == REQUEST_ON_WORKER ? !start && query
							 : start && query;
		if (!ok)
			fail_msg("%s: its handlers do not run where .runs says", d->name);

		size_t one_of = 0, exclusive = 0;
		for (size_t i = 0; i < d->n_args; i++) {
			const struct request_use *u = &d->args[i];
			const struct request_arg *a = request_table_arg(u->arg);
			if (!a)
				fail_msg("%s: argument %zu is not one of the vocabulary", d->name, i);
			used[u->arg] = true;
			/* one key, one meaning within a request */
			for (size_t k = 0; k < i; k++)
				if (streq(request_table_arg(d->args[k].arg)->name, a->name))
					fail_msg("%s: %s twice", d->name, a->name);
			assert_ptr_equal(request_table_use(op, a->name), u);
			one_of += u->one_of;
			exclusive += u->exclusive;
			if (u->only_with && !request_table_use(op, request_table_arg(u->only_with)->name))
				fail_msg("%s: %s goes only with an argument it does not take", d->name, a->name);
			if (u->dflt_word) {
				bool known = false;
				for (size_t w = 0; w < words_of(a); w++)
					known = known || streq(a->words[w], u->dflt_word);
				if (!known)
					fail_msg("%s: %s's default \"%s\" is none of its words", d->name, a->name,
						 u->dflt_word);
			}
			if (a->type == REQUEST_INT && u->dflt != 0 && u->arg != REQUEST_ARG_SINCE &&
			    (u->dflt < a->min || u->dflt > a->max))
				fail_msg("%s: %s's default is out of its bounds", d->name, a->name);
			if (u->required && (u->one_of || u->exclusive))
				fail_msg("%s: %s is needed and in a group", d->name, a->name);
		}
		/* a group of one is a needed argument or none */
		assert_true(one_of != 1 && exclusive != 1);
	}
	for (int id = REQUEST_ARG_NONE + 1; id < _REQUEST_ARG_MAX; id++) {
		const struct request_arg *a = request_table_arg(id);
		if (!a->name || !a->help || !*a->help)
			fail_msg("argument %d has no name or help", id);
		if (!used[id])
			fail_msg("argument %s is taken by no request", a->name);
		if ((a->type == REQUEST_WORD || a->type == REQUEST_INT_OR_WORD) && words_of(a) < 2)
			fail_msg("argument %s: a choice of fewer than two words", a->name);
		if ((a->type == REQUEST_STRING || a->type == REQUEST_INT_OR_WORD) && !a->what)
			fail_msg("argument %s: no words for a refused value", a->name);
	}
	assert_null(request_table_get(_CONTROL_OP_MAX));
	assert_int_equal(request_table_find("frobnicate"), -1);
	assert_null(request_table_arg(REQUEST_ARG_NONE));
	assert_null(request_table_arg(_REQUEST_ARG_MAX));
}

/* ------------------------------------------------------------ the parser follows it */

struct parsed_req {
	int r;
	struct control_request *req;
	struct error err;
};

static struct parsed_req parse_json(json_t *request)
{
	struct parsed_req p = { 0 };
	json_t *id = NULL;
	char *line = json_dumps(request, JSON_COMPACT);
	assert_non_null(line);
	p.r = control_request_parse(line, strlen(line), NOW, &p.req, &id, &p.err);
	json_decref(id);
	free(line);
	return p;
}

static void parsed_done(struct parsed_req *p)
{
	control_request_free(p->req);
}

/* A valid value of argument a. */
static json_t *valid_value(const struct request_arg *a)
{
	switch (a->type) {
	case REQUEST_INT:
	case REQUEST_INT_OR_WORD:
		/* the least: a time of 0 is before any default until */
		return json_integer((json_int_t)a->min);
	case REQUEST_BOOL:
		return json_false();
	case REQUEST_STRING:
	case REQUEST_TEXT:
		return json_string("x");
	case REQUEST_WORD:
		return json_string(a->words[0]);
	case REQUEST_CLASSES:
		return json_pack("[s]", class_key(0));
	}
	return NULL;
}

/* A value of the wrong type for a. */
static json_t *wrong_value(const struct request_arg *a)
{
	return a->type == REQUEST_BOOL ? json_string("yes") : json_true();
}

/* The smallest request op takes: its needed arguments and the first of
 * its one_of group. */
static json_t *least(int op)
{
	const struct request_decl *d = request_table_get(op);
	json_t *o = json_pack("{s:s}", "op", d->name);
	bool group_given = false;

	for (size_t i = 0; i < d->n_args; i++) {
		const struct request_arg *a = request_table_arg(d->args[i].arg);
		if (d->args[i].required || (d->args[i].one_of && !group_given)) {
			json_object_set_new(o, a->name, valid_value(a));
			group_given = group_given || d->args[i].one_of;
		}
	}
	return o;
}

#define expect_refused(request, want)                                                                       \
	do {                                                                                                \
		struct parsed_req _p = parse_json(request);                                                     \
		char *_text = json_dumps(request, JSON_COMPACT);                                            \
		if (_p.r != -EINVAL || !strstr(_p.err.message, (want)))                                     \
			fail_msg("%s: r=%d \"%s\", expected a refusal with \"%s\"", _text, _p.r, _p.err.message, \
				 (want));                                                                   \
		free(_text);                                                                                \
		parsed_done(&_p);                                                                           \
	} while (0)

static void test_parser_takes_what_the_table_says(void **state)
{
	(void)state;
	for (int op = 0; op < _CONTROL_OP_MAX; op++) {
		const struct request_decl *d = request_table_get(op);
		json_t *base = least(op);

		/* the least request is taken */
		struct parsed_req p = parse_json(base);
		if (p.r != 0)
			fail_msg("%s: the least request is refused: %s", d->name, p.err.message);
		assert_int_equal(p.req->op, op);
		parsed_done(&p);

		/* an argument of another request, or misspelt: refused by name */
		json_t *o = json_copy(base);
		json_object_set_new(o, "pidd", json_integer(1));
		char want[128];
		snprintf(want, sizeof(want), "%s: unknown argument 'pidd'", d->name);
		expect_refused(o, want);
		json_decref(o);

		for (size_t i = 0; i < d->n_args; i++) {
			const struct request_use *u = &d->args[i];
			const struct request_arg *a = request_table_arg(u->arg);

			/* each argument is taken with a valid value (alone of its
			 * group, and with what it goes with) */
			o = json_copy(base);
			if (u->one_of)
				for (size_t k = 0; k < d->n_args; k++)
					if (d->args[k].one_of)
						json_object_del(o, request_table_arg(d->args[k].arg)->name);
			if (u->only_with)
				json_object_set_new(o, request_table_arg(u->only_with)->name,
						    valid_value(request_table_arg(u->only_with)));
			json_object_set_new(o, a->name, valid_value(a));
			p = parse_json(o);
			if (p.r != 0)
				fail_msg("%s: %s with a valid value is refused: %s", d->name, a->name, p.err.message);
			parsed_done(&p);

			/* ... refused of the wrong type, naming it */
			json_object_set_new(o, a->name, wrong_value(a));
			snprintf(want, sizeof(want), "%s: ", a->name);
			expect_refused(o, want);

			/* ... and one past each bound */
			if (a->type == REQUEST_INT || a->type == REQUEST_INT_OR_WORD) {
				snprintf(want, sizeof(want), "%s: %lld is out of range", a->name, (long long)a->min - 1);
				json_object_set_new(o, a->name, json_integer((json_int_t)a->min - 1));
				expect_refused(o, want);
				if (a->max < INT64_MAX) {
					json_object_set_new(o, a->name, json_integer((json_int_t)a->max + 1));
					expect_refused(o, "is out of range");
				}
			}
			if (a->type == REQUEST_WORD || a->type == REQUEST_INT_OR_WORD) {
				json_object_set_new(o, a->name, json_string("none-of-them"));
				snprintf(want, sizeof(want), "\"%s\" or \"%s\" is needed", a->words[words_of(a) - 2],
					 a->words[words_of(a) - 1]);
				expect_refused(o, want);
			}
			json_decref(o);

			/* a needed argument left out */
			if (u->required) {
				o = json_copy(base);
				json_object_del(o, a->name);
				snprintf(want, sizeof(want), "%s is needed", a->name);
				expect_refused(o, want);
				json_decref(o);
			}
		}
		/* of an exclusive group, one set is taken, and all set are not;
		 * a boolean set to false is not set */
		o = json_copy(base);
		size_t set = 0;
		for (size_t i = 0; i < d->n_args; i++)
			if (d->args[i].exclusive) {
				const struct request_arg *a = request_table_arg(d->args[i].arg);
				json_object_set_new(o, a->name, a->type == REQUEST_BOOL ? json_true() : valid_value(a));
				if (set++ == 0) {
					p = parse_json(o);
					if (p.r != 0)
						fail_msg("%s: %s alone is refused: %s", d->name, a->name, p.err.message);
					parsed_done(&p);
					if (a->type == REQUEST_BOOL)
						json_object_set_new(o, a->name, json_false());
				}
			}
		if (set > 1) {
			p = parse_json(o);
			if (p.r != 0)
				fail_msg("%s: an exclusive group with the first false is refused: %s", d->name,
					 p.err.message);
			parsed_done(&p);
			for (size_t i = 0; i < d->n_args; i++)
				if (d->args[i].exclusive && request_table_arg(d->args[i].arg)->type == REQUEST_BOOL)
					json_object_set_new(o, request_table_arg(d->args[i].arg)->name, json_true());
			expect_refused(o, set == 2 ? "one or the other" : "only one of them");
		}
		json_decref(o);
		json_decref(base);
	}
}

static void test_unknown_op_lists_every_request(void **state)
{
	(void)state;
	json_t *o = json_pack("{s:s}", "op", "frobnicate");
	struct parsed_req p = parse_json(o);
	assert_int_equal(p.r, -EINVAL);
	for (int op = 0; op < _CONTROL_OP_MAX; op++)
		if (!strstr(p.err.message, request_table_name(op)))
			fail_msg("the refusal of an unknown op does not list %s: %s", request_table_name(op),
				 p.err.message);
	parsed_done(&p);
	json_decref(o);

	char buf[64];
	const char *three[] = { "a", "b", "c" };
	assert_string_equal(request_table_join(buf, sizeof(buf), three, 3, true, "or"), "\"a\", \"b\" or \"c\"");
	assert_string_equal(request_table_join(buf, sizeof(buf), three, 2, false, "and"), "a and b");
	assert_string_equal(request_table_join(buf, sizeof(buf), three, 1, false, "or"), "a");
	/* cut where it does not fit, still a string */
	assert_string_equal(request_table_join(buf, 5, three, 3, false, "or"), "a, b");
}

/* ------------------------------------------------------------ the documents */

/* The text of the section headed heading in doc, to the next heading of
 * its level or above; NULL when there is none. */
static char *section(const char *doc, const char *heading, const char *next)
{
	const char *s = strstr(doc, heading);
	if (!s)
		return NULL;
	s += strlen(heading);
	const char *e = strstr(s, next);
	const char *up = strstr(s, "\n## ");
	if (!e || (up && up < e))
		e = up ? up : s + strlen(s);
	return strndup(s, (size_t)(e - s));
}

/* protocol.md's summary of the requests, from the table. */
static char *summary(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fputs(SUMMARY_BEGIN "| op | what it gives | arguments | runs on | who may ask | time limit |\n"
			   "|---|---|---|---|---|---|\n",
	      f);
	for (int op = 0; op < _CONTROL_OP_MAX; op++) {
		const struct request_decl *d = request_table_get(op);
		static const char *const runs[] = {
			[REQUEST_ON_LOOP] = "the loop",
			[REQUEST_ON_WORKER] = "the read worker",
			[REQUEST_ON_LOOP_THEN_WORKER] = "the loop, then the read worker",
			[REQUEST_ON_LOOP_OR_WORKER] = "the loop (a watched process) or the read worker",
		};
		bool group_done = false, first = true;

		fprintf(f, "| `%s` | %s | ", d->name, d->help);
		for (size_t i = 0; i < d->n_args; i++) {
			const struct request_use *u = &d->args[i];
			const struct request_arg *a = request_table_arg(u->arg);
			if (u->one_of && group_done)
				continue;
			fputs(first ? "" : ", ", f);
			first = false;
			if (u->one_of) {
				size_t n = 0, in_group = 0;
				for (size_t k = i; k < d->n_args; k++)
					in_group += d->args[k].one_of;
				for (size_t k = i; k < d->n_args; k++)
					if (d->args[k].one_of)
						fprintf(f, "%s`%s`", n++ == 0 ? "" : n == in_group ? " or " : ", ",
							request_table_arg(d->args[k].arg)->name);
				fputs(" (one of them)", f);
				group_done = true;
				continue;
			}
			fprintf(f, "`%s`", a->name);
			if (u->required)
				fputs(" (needed)", f);
			else if (u->only_with)
				fprintf(f, " (with `%s`)", request_table_arg(u->only_with)->name);
			else if (u->exclusive)
				fputs(" (one or the other)", f);
			else if (u->arg == REQUEST_ARG_SINCE && u->dflt)
				fprintf(f, " (default: %lld ms before `until`)", (long long)u->dflt);
			else if (u->arg == REQUEST_ARG_SINCE)
				fputs(" (default: the beginning)", f);
			else if (u->arg == REQUEST_ARG_UNTIL)
				fputs(" (default: now)", f);
			else if (u->dflt_word)
				fprintf(f, " (default `%s`)", u->dflt_word);
			else if (u->dflt)
				fprintf(f, " (default %lld)", (long long)u->dflt);
		}
		fprintf(f, " | %s | %s | %u s |\n", runs[d->runs],
			d->access == REQUEST_ANYONE ? "anyone" : "anyone, for their own processes",
			(unsigned)(d->timeout_us / 1000000u));
	}
	fputs(SUMMARY_END, f);
	fclose(f);
	return text;
}

static void test_protocol_doc_lists_every_request(void **state)
{
	(void)state;
	size_t len;
	char *doc = slurp(PROTOCOL_DOC, &len);
	char *want = summary();

	/* the summary, as the table gives it */
	const char *begin = strstr(doc, SUMMARY_BEGIN), *end = begin ? strstr(begin, SUMMARY_END) : NULL;
	if (!end || strncmp(begin, want, (size_t)(end - begin) + strlen(SUMMARY_END)) != 0 ||
	    (size_t)(end - begin) + strlen(SUMMARY_END) != strlen(want))
	{
		fprintf(stderr, "%s", want);
		fail_msg(PROTOCOL_DOC "'s summary of the requests is not the table's; it should read as above");
	}

	/* a section for each, which names every argument */
	for (int op = 0; op < _CONTROL_OP_MAX; op++) {
		const struct request_decl *d = request_table_get(op);
		char heading[64], quoted[64], code[64];
		snprintf(heading, sizeof(heading), "\n### %s\n", d->name);
		char *text = section(doc, heading, "\n### ");
		if (!text)
			fail_msg(PROTOCOL_DOC " has no section \"### %s\"", d->name);
		for (size_t i = 0; i < d->n_args; i++) {
			const char *name = request_table_arg(d->args[i].arg)->name;
			snprintf(quoted, sizeof(quoted), "\"%s\"", name);
			snprintf(code, sizeof(code), "`%s`", name);
			if (!strstr(text, quoted) && !strstr(text, code))
				fail_msg(PROTOCOL_DOC ", ### %s: the argument %s is not described", d->name, name);
		}
		free(text);
	}
	/* and no section of a request there is not */
	char *ops = section(doc, "\n## Ops\n", "\n## ");
	assert_non_null(ops);
	for (const char *h = strstr(ops, "\n### "); h; h = strstr(h + 1, "\n### ")) {
		char name[64];
		if (sscanf(h, "\n### %63s", name) == 1 && request_table_find(name) < 0)
			fail_msg(PROTOCOL_DOC " describes a request \"%s\" the daemon does not take", name);
	}
	free(ops);
	free(want);
	free(doc);
}

static void test_man_page_lists_every_request(void **state)
{
	(void)state;
	size_t len;
	char *man = slurp(DAEMON_MAN, &len);
	char *text = section(man, "\n.Sh CONTROL SOCKET\n", "\n.Sh ");
	assert_non_null(text);
	for (int op = 0; op < _CONTROL_OP_MAX; op++) {
		char want[64];
		snprintf(want, sizeof(want), "\n.Cm %s", request_table_name(op));
		const char *at = strstr(text, want);
		if (!at || (at[strlen(want)] != '\n' && at[strlen(want)] != ' '))
			fail_msg(DAEMON_MAN ", CONTROL SOCKET: the request %s is not listed (.Cm %s)",
				 request_table_name(op), request_table_name(op));
	}
	free(text);
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_are_whole),
		cmocka_unit_test(test_parser_takes_what_the_table_says),
		cmocka_unit_test(test_unknown_op_lists_every_request),
		cmocka_unit_test(test_protocol_doc_lists_every_request),
		cmocka_unit_test(test_man_page_lists_every_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
