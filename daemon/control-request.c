/* Parsing and checking control requests: one line of JSON in, a checked
 * struct control_request out (the answers are built in control-answer.c).
 *
 * The op's entry in request-table.def says which arguments it takes, of
 * what type, within what bounds, with what default, which are needed and
 * which go together; this file walks that list, words every refusal from
 * it, and puts each argument's value where the struct keeps it
 * (take_arg). */
#include "control-request.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "json-field.h"
#include "limits.h"
#include "macro.h"
#include "util.h"

uint64_t control_op_timeout_us(enum control_op op)
{
	const struct request_decl *d = request_table_get(op);
	return d ? d->timeout_us : RW_REQUEST_TIMEOUT_US;
}

static int bad(struct error *err, const char *fmt, ...) _printf_(2, 3);
static int bad(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_setv(err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ------------------------------------------------------------ one argument */

/* An argument's value as the request gave it, checked against its type. */
struct given {
	bool present;  /* false: absent or null, the default applies */
	int64_t i;     /* REQUEST_INT, REQUEST_INT_OR_WORD given as an integer */
	bool b;
	const char *s; /* strings and words (in the request's root) */
	size_t len;
};

static size_t count_words(const struct request_arg *a)
{
	size_t n = 0;
	while (n < REQUEST_WORDS_MAX && a->words[n])
		n++;
	return n;
}

static bool is_word(const struct request_arg *a, const char *s)
{
	for (size_t i = 0; i < count_words(a); i++)
		if (streq(a->words[i], s))
			return true;
	return false;
}

static int read_int(const json_t *root, const struct request_arg *a, struct given *ret, struct error *err)
{
	int r = json_field_int(root, a->name, a->min, a->max, &ret->i);
	if (r == -EINVAL)
		return bad(err, "%s: an integer is needed", a->name);
	if (r == -ERANGE)
		return bad(err, "%s: %lld is out of range (%lld to %lld)", a->name, (long long)ret->i,
			   (long long)a->min, (long long)a->max);
	ret->present = r > 0;
	return 0;
}

static int read_string(const json_t *root, const struct request_arg *a, struct given *ret, struct error *err)
{
	int r = json_field_string(root, a->name, &ret->s, &ret->len);
	if (r < 0)
		return bad(err, "%s: a string is needed", a->name);
	ret->present = r > 0;
	return 0;
}

/* The value of argument a in root, checked as its type says (classes are
 * checked when taken).  Returns 0 or -EINVAL with the refusal. */
static int read_arg(const json_t *root, const struct request_arg *a, struct given *ret, struct error *err)
{
	char words[256];
	int r;

	*ret = (struct given){ 0 };
	switch (a->type) {
	case REQUEST_INT:
		return read_int(root, a, ret, err);
	case REQUEST_BOOL:
		r = json_field_bool(root, a->name, &ret->b);
		if (r < 0)
			return bad(err, "%s: true or false is needed", a->name);
		ret->present = r > 0;
		return 0;
	case REQUEST_STRING:
		if ((r = read_string(root, a, ret, err)) < 0)
			return r;
		/* a NUL inside would cut the string in C */
		if (ret->present && (ret->len == 0 || strlen(ret->s) != ret->len))
			return bad(err, "%s: %s", a->name, a->what);
		return 0;
	case REQUEST_TEXT:
		return read_string(root, a, ret, err);
	case REQUEST_WORD:
		if ((r = read_string(root, a, ret, err)) < 0)
			return r;
		if (ret->present && !is_word(a, ret->s))
			return bad(err, "%s: %s is needed", a->name,
				   request_table_join(words, sizeof(words), a->words, count_words(a), true, "or"));
		return 0;
	case REQUEST_INT_OR_WORD:
		if (!json_is_string(json_object_get(root, a->name)))
			return read_int(root, a, ret, err);
		(void)read_string(root, a, ret, err);
		if (!is_word(a, ret->s))
			return bad(err, "%s: %s, %s is needed", a->name, a->what,
				   request_table_join(words, sizeof(words), a->words, count_words(a), true, "or"));
		return 0;
	case REQUEST_CLASSES:
		ret->present = json_object_get(root, a->name) && !json_is_null(json_object_get(root, a->name));
		return 0;
	}
	return bad(err, "%s: an argument of no known type", a->name);
}

/* "classes": an array of class keys, each at most once. */
static int take_classes(struct control_request *q, const char *key, struct error *err)
{
	const json_t *v = json_object_get(q->root, key);
	size_t i;
	json_t *e;

	if (!json_is_array(v))
		return bad(err, "%s: an array of class names is needed", key);
	/* duplicates are refused, so there are at most _CLASS_MAX */
	if (json_array_size(v) > _CLASS_MAX)
		return bad(err, "%s: %zu given, there are %d classes", key, json_array_size(v), _CLASS_MAX);
	q->classes = calloc(json_array_size(v) + 1, sizeof(*q->classes));
	if (!q->classes)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return bad(err, "%s: a class name (string) is needed at [%zu]", key, i);
		const char *k = json_string_value(e);
		if (class_from_key(k) < 0)
			return bad(err, "%s: unknown class '%.40s'", key, k);
		for (size_t j = 0; j < q->n_classes; j++)
			if (streq(q->classes[j], k))
				return bad(err, "%s: '%s' given twice", key, k);
		q->classes[q->n_classes++] = k;
	}
	return 0;
}

/* Puts an argument's value, or its default, where the request keeps it.
 * Every argument of the vocabulary (request-table.c) has its case. */
static int take_arg(struct control_request *q, const struct request_use *u, const struct given *g, int64_t now_ms,
		    struct error *err)
{
	const char *word = g->present ? g->s : u->dflt_word;
	int64_t i = g->present ? g->i : u->dflt;

	switch (u->arg) {
	case REQUEST_ARG_PID:
		q->sel.pid = g->present ? (int)g->i : 0;
		return 0;
	case REQUEST_ARG_NAME:
		q->sel.name = g->present ? g->s : NULL;
		return 0;
	case REQUEST_ARG_PROCESS_ID:
		q->sel.process_id = g->present ? g->i : 0;
		return 0;
	case REQUEST_ARG_INSTANCE:
		q->sel.all_instances = word && streq(word, "all");
		return 0;
	case REQUEST_ARG_UNTIL:
		q->until = g->present ? g->i : now_ms;
		return 0;
	case REQUEST_ARG_SINCE:
		/* after until (control_request_parse takes it last): a default
		 * window ends there, from the beginning when it is 0 */
		if (g->present)
			q->since = g->i;
		else
			q->since = u->dflt > 0 && q->until > u->dflt ? q->until - u->dflt : 0;
		if (q->since > q->until)
			return bad(err, "since (%lld) is after until (%lld)", (long long)q->since, (long long)q->until);
		return 0;
	case REQUEST_ARG_CLASSES:
		return g->present ? take_classes(q, request_table_arg(u->arg)->name, err) : 0;
	case REQUEST_ARG_STEP_MS:
		q->step_ms = i;
		return 0;
	case REQUEST_ARG_LIMIT:
		q->limit = (unsigned)i;
		return 0;
	case REQUEST_ARG_CURSOR:
		q->cursor = g->present ? g->s : NULL;
		return 0;
	case REQUEST_ARG_ALL:
		q->all = g->present && g->b;
		return 0;
	case REQUEST_ARG_SORT:
		q->sort = word;
		return 0;
	case REQUEST_ARG_AT:
		if (g->present && !g->s)
			q->at = g->i; /* unix ms */
		else
			q->at = word && streq(word, "first") ? STORE_CENSUS_FIRST : INT64_MAX;
		return 0;
	case REQUEST_ARG_FULL:
		q->full = g->present && g->b;
		return 0;
	case REQUEST_ARG_LIGHT:
		q->light = g->present && g->b;
		return 0;
	case REQUEST_ARG_MARK_NAME: {
		int r = g->present ? control_mark_name_check(g->s, g->len, err) : 0;
		q->mark = g->present ? g->s : NULL;
		return r;
	}
	case REQUEST_ARG_CGROUP:
		q->cgroup = g->present ? g->s : NULL;
		return 0;
	case REQUEST_ARG_UNIT:
		q->unit = g->present ? g->s : NULL;
		return 0;
	case REQUEST_ARG_NONE:
	case _REQUEST_ARG_MAX:
		break;
	}
	return bad(err, "argument %d: not one this daemon takes", (int)u->arg);
}

/* ------------------------------------------------------------ an op's arguments */

/* The names of the op's arguments whose flag (one_of, exclusive) is set,
 * and how many of them the request gave (a boolean: as true). */
static size_t group(const struct request_decl *d, const struct given *g, bool exclusive, const char **names,
		    size_t *ret_given)
{
	size_t n = 0;

	*ret_given = 0;
	for (size_t i = 0; i < d->n_args; i++)
		if (exclusive ? d->args[i].exclusive : d->args[i].one_of) {
			const struct request_arg *a = request_table_arg(d->args[i].arg);
			names[n++] = a->name;
			*ret_given += g[i].present && (a->type != REQUEST_BOOL || g[i].b);
		}
	return n;
}

/* What holds between the op's arguments: exactly one of its one_of
 * arguments, at most one of its exclusive ones, an only_with argument
 * only with the other. */
static int check_together(const struct request_decl *d, const struct given *g, struct error *err)
{
	const char *names[REQUEST_ARGS_MAX];
	char list[256];
	size_t given, n = group(d, g, false, names, &given);

	if (n > 0 && given == 0)
		return bad(err, "one of %s is needed", request_table_join(list, sizeof(list), names, n, false, "or"));
	if (n > 0 && given > 1)
		return bad(err, "only one of %s may be given",
			   request_table_join(list, sizeof(list), names, n, false, "and"));
	n = group(d, g, true, names, &given);
	if (given > 1)
		return bad(err, "%s: %s", request_table_join(list, sizeof(list), names, n, false, "and"),
			   n == 2 ? "one or the other" : "only one of them");
	for (size_t i = 0; i < d->n_args; i++) {
		enum request_arg_id with = d->args[i].only_with;
		if (!g[i].present || with == REQUEST_ARG_NONE)
			continue;
		bool found = false;
		for (size_t k = 0; k < d->n_args; k++)
			found = found || (d->args[k].arg == with && g[k].present);
		if (!found)
			return bad(err, "%s: only with %s", request_table_arg(d->args[i].arg)->name,
				   request_table_arg(with)->name);
	}
	return 0;
}

static int parse_args(struct control_request *q, int64_t now_ms, struct error *err)
{
	const struct request_decl *d = request_table_get(q->op);
	struct given g[REQUEST_ARGS_MAX];
	const char *key;
	json_t *v;
	int r;

	/* (test-request-table holds every entry to it) */
	if (d->n_args > REQUEST_ARGS_MAX)
		return bad(err, "%s: more arguments declared than this daemon checks", d->name);
	/* anything else is refused, so a misspelt argument is not silently
	 * ignored */
	json_object_foreach(q->root, key, v)
		if (!streq(key, "op") && !streq(key, "id") && !request_table_use(q->op, key))
			return bad(err, "%s: unknown argument '%.40s'", d->name, key);

	for (size_t i = 0; i < d->n_args; i++) {
		const struct request_arg *a = request_table_arg(d->args[i].arg);
		if ((r = read_arg(q->root, a, &g[i], err)) < 0)
			return r;
		if (d->args[i].required && !g[i].present)
			return a->needed_why ? bad(err, "%s is needed: %s", a->name, a->needed_why)
					     : bad(err, "%s is needed", a->name);
	}
	if ((r = check_together(d, g, err)) < 0)
		return r;
	/* until before since, whose default ends at until */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->n_args; i++)
			if ((d->args[i].arg == REQUEST_ARG_SINCE) == (pass == 1) &&
			    (r = take_arg(q, &d->args[i], &g[i], now_ms, err)) < 0)
				return r;
	return 0;
}

struct control_request *control_request_free(struct control_request *req)
{
	if (!req)
		return NULL;
	free(req->classes);
	free(req->only_owner);
	json_decref(req->root);
	free(req);
	return NULL;
}

DEFINE_CLEANUP(struct control_request *, control_request_free)

int control_request_parse(const char *line, size_t len, int64_t now_ms, struct control_request **ret,
			  json_t **ret_id, struct error *err)
{
	_cleanup_(control_request_freep) struct control_request *q = NULL;
	json_error_t jerr;
	const char *name = NULL;
	char ops[256];
	size_t off;
	int r, op;

	*ret_id = NULL;
	if (!control_utf8_valid(line, len, &off))
		return bad(err, "the request is not UTF-8 (byte %zu)", off);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	/* JSON_DECODE_ANY: a scalar is parsed, to be refused as "not an
	 * object" like an array */
	q->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
	if (!q->root) {
		if (json_error_code(&jerr) == json_error_out_of_memory)
			return -ENOMEM;
		return bad(err, "not JSON: %s (column %d)", jerr.text, jerr.column);
	}
	if (!json_is_object(q->root))
		return bad(err, "a request is a JSON object with \"op\"");
	q->id = json_object_get(q->root, "id");
	q->sel.only_uid = -1;

	r = json_field_string(q->root, "op", &name, NULL);
	if (r < 0)
		r = bad(err, "op: a string is needed");
	else if (r == 0)
		r = bad(err, "\"op\" is needed (%s)", request_table_list(ops, sizeof(ops)));
	else if ((op = request_table_find(name)) < 0)
		r = bad(err, "unknown op '%.40s' (%s)", name, request_table_list(ops, sizeof(ops)));
	else {
		q->op = (enum control_op)op;
		r = parse_args(q, now_ms, err);
	}
	if (r < 0) {
		if (r == -EINVAL && q->id)
			*ret_id = json_incref(q->id);
		return r;
	}
	*ret = TAKE_PTR(q);
	return 0;
}
