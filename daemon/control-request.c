/* Parsing and checking control requests: one line of JSON in, a checked
 * struct control_request out (the answers are built in control-answer.c). */
#include "control-request.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "limits.h"
#include "macro.h"
#include "util.h"

/* processes: how many come back when the request does not say */
#define PROCESSES_DEFAULT 1000u
/* history: the window when the request gives no "since" */
#define HISTORY_WINDOW_MS (3600 * 1000)

static const char *const op_names[_CONTROL_OP_MAX] = {
	[CONTROL_OP_STATUS] = "status", [CONTROL_OP_PROCESSES] = "processes", [CONTROL_OP_HISTORY] = "history",
	[CONTROL_OP_REPORT] = "report", [CONTROL_OP_CENSUS] = "census",       [CONTROL_OP_EVENTS] = "events",
	[CONTROL_OP_SCAN] = "scan",     [CONTROL_OP_MARK] = "mark",
	[CONTROL_OP_METRICS] = "metrics",
};

/* The arguments each op takes besides "op" and "id"; anything else is
 * refused, so a misspelt argument is not silently ignored. */
static const char *const keys_status[] = { NULL };
static const char *const keys_processes[] = { "all", "sort", "limit", NULL };
static const char *const keys_history[] = { "pid",	"name",	   "process_id", "instance", "since", "until",
					    "classes", "step_ms", "limit",	 "cursor",   NULL };
static const char *const keys_report[] = { "pid", "name", "process_id", "instance", NULL };
static const char *const keys_census[] = { "pid", "name", "process_id", "instance", "at", NULL };
static const char *const keys_events[] = { "pid",   "name",  "process_id", "instance", "since",
					   "until", "limit", "cursor",	   NULL };
static const char *const keys_scan[] = { "pid", "full", "light", NULL };
static const char *const keys_mark[] = { "pid", "name", NULL };
static const char *const keys_metrics[] = { NULL };

static const char *const *const op_keys[_CONTROL_OP_MAX] = {
	[CONTROL_OP_STATUS] = keys_status, [CONTROL_OP_PROCESSES] = keys_processes,
	[CONTROL_OP_HISTORY] = keys_history, [CONTROL_OP_REPORT] = keys_report,
	[CONTROL_OP_CENSUS] = keys_census, [CONTROL_OP_EVENTS] = keys_events,
	[CONTROL_OP_SCAN] = keys_scan,	   [CONTROL_OP_MARK] = keys_mark,
	[CONTROL_OP_METRICS] = keys_metrics,
};

const char *control_op_name(enum control_op op)
{
	return op >= 0 && op < _CONTROL_OP_MAX ? op_names[op] : NULL;
}

uint64_t control_op_timeout_us(enum control_op op)
{
	return op == CONTROL_OP_SCAN ? RW_SCAN_TIMEOUT_US : RW_REQUEST_TIMEOUT_US;
}

/* ------------------------------------------------------------ arguments */

static int bad(struct error *err, const char *fmt, ...) _printf_(2, 3);
static int bad(struct error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	error_setv(err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Each getter returns 0 when the argument is absent or null (the default
 * applies and *ret is untouched), 1 with *ret, or -EINVAL. */

static int get_int(const json_t *o, const char *key, int64_t min, int64_t max, int64_t *ret, struct error *err)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return bad(err, "%s: an integer is needed", key);
	json_int_t x = json_integer_value(v);
	if (x < min || x > max)
		return bad(err, "%s: %lld is out of range (%lld to %lld)", key, (long long)x, (long long)min,
			   (long long)max);
	*ret = (int64_t)x;
	return 1;
}

/* A census's "at": unix ms, or "first" or "last" (the default). */
static int parse_census_at(struct control_request *q, struct error *err)
{
	const json_t *v = json_object_get(q->root, "at");

	q->at = INT64_MAX;
	if (json_is_string(v)) {
		if (streq(json_string_value(v), "first"))
			q->at = STORE_CENSUS_FIRST;
		else if (!streq(json_string_value(v), "last"))
			return bad(err, "at: unix milliseconds, \"first\" or \"last\" is needed");
		return 0;
	}
	int r = get_int(q->root, "at", 0, INT64_MAX, &q->at, err);
	return r < 0 ? r : 0;
}

static int get_bool(const json_t *o, const char *key, bool *ret, struct error *err)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return bad(err, "%s: true or false is needed", key);
	*ret = json_is_true(v);
	return 1;
}

static int get_string(const json_t *o, const char *key, const char **ret, size_t *ret_len, struct error *err)
{
	const json_t *v = json_object_get(o, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(err, "%s: a string is needed", key);
	*ret = json_string_value(v);
	if (ret_len)
		*ret_len = json_string_length(v);
	return 1;
}

/* One of pid, name or process_id, and "instance" with pid. */
static int parse_select(struct control_request *q, struct error *err)
{
	const char *s;
	size_t len;
	int64_t v;
	int n = 0, r;

	q->sel.only_uid = -1;
	if ((r = get_int(q->root, "pid", 1, INT32_MAX, &v, err)) < 0)
		return r;
	if (r > 0) {
		q->sel.pid = (int)v;
		n++;
	}
	if ((r = get_string(q->root, "name", &s, &len, err)) < 0)
		return r;
	if (r > 0) {
		if (len == 0 || strlen(s) != len)
			return bad(err, "name: a pattern is needed (a glob on the command name or line)");
		q->sel.name = s;
		n++;
	}
	if ((r = get_int(q->root, "process_id", 1, INT64_MAX, &v, err)) < 0)
		return r;
	if (r > 0) {
		q->sel.process_id = v;
		n++;
	}
	if (n == 0)
		return bad(err, "one of pid, name or process_id is needed");
	if (n > 1)
		return bad(err, "only one of pid, name and process_id may be given");

	if ((r = get_string(q->root, "instance", &s, NULL, err)) < 0)
		return r;
	if (r > 0) {
		if (!streq(s, "all") && !streq(s, "latest"))
			return bad(err, "instance: \"all\" or \"latest\" is needed");
		if (q->sel.pid == 0)
			return bad(err, "instance: only with pid");
		q->sel.all_instances = streq(s, "all");
	}
	return 0;
}

static int parse_limit(struct control_request *q, unsigned dflt, struct error *err)
{
	int64_t v;
	int r = get_int(q->root, "limit", 1, RW_ANSWER_ROWS_MAX, &v, err);
	if (r < 0)
		return r;
	q->limit = r > 0 ? (unsigned)v : dflt;
	return 0;
}

static int parse_window(struct control_request *q, int64_t now_ms, int64_t default_span, struct error *err)
{
	int r;

	q->until = now_ms;
	if ((r = get_int(q->root, "until", 0, INT64_MAX, &q->until, err)) < 0)
		return r;
	/* default_span 0: from the beginning */
	q->since = default_span > 0 && q->until > default_span ? q->until - default_span : 0;
	if ((r = get_int(q->root, "since", 0, INT64_MAX, &q->since, err)) < 0)
		return r;
	if (q->since > q->until)
		return bad(err, "since (%lld) is after until (%lld)", (long long)q->since,
			   (long long)q->until);
	return 0;
}

static int parse_cursor(struct control_request *q, struct error *err)
{
	size_t len;
	int r = get_string(q->root, "cursor", &q->cursor, &len, err);
	if (r > 0 && (len == 0 || strlen(q->cursor) != len))
		return bad(err, "cursor: give the \"next\" of the previous answer, or null");
	return r < 0 ? r : 0;
}

static int parse_classes(struct control_request *q, struct error *err)
{
	const json_t *v = json_object_get(q->root, "classes");
	size_t i;
	json_t *e;

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return bad(err, "classes: an array of class names is needed");
	/* duplicates are refused, so there are at most _CLASS_MAX */
	if (json_array_size(v) > _CLASS_MAX)
		return bad(err, "classes: %zu given, there are %d classes", json_array_size(v), _CLASS_MAX);
	q->classes = calloc(json_array_size(v) + 1, sizeof(*q->classes));
	if (!q->classes)
		return -ENOMEM;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e))
			return bad(err, "classes: a class name (string) is needed at [%zu]", i);
		const char *key = json_string_value(e);
		if (class_from_key(key) < 0)
			return bad(err, "classes: unknown class '%.40s'", key);
		for (size_t j = 0; j < q->n_classes; j++)
			if (streq(q->classes[j], key))
				return bad(err, "classes: '%s' given twice", key);
		q->classes[q->n_classes++] = key;
	}
	return 0;
}

static int parse_args(struct control_request *q, int64_t now_ms, struct error *err)
{
	const char *s;
	size_t len;
	int64_t v;
	int r;

	switch (q->op) {
	case CONTROL_OP_STATUS:
	case CONTROL_OP_METRICS:
		return 0;
	case CONTROL_OP_PROCESSES:
		if ((r = get_bool(q->root, "all", &q->all, err)) < 0)
			return r;
		q->sort = "private";
		if ((r = get_string(q->root, "sort", &q->sort, NULL, err)) < 0)
			return r;
		if (!streq(q->sort, "private") && !streq(q->sort, "resident") && !streq(q->sort, "peak") &&
		    !streq(q->sort, "vram"))
			return bad(err, "sort: \"private\", \"resident\", \"peak\" or \"vram\" is needed");
		return parse_limit(q, PROCESSES_DEFAULT, err);
	case CONTROL_OP_HISTORY:
		if ((r = parse_select(q, err)) < 0 ||
		    (r = parse_window(q, now_ms, HISTORY_WINDOW_MS, err)) < 0 ||
		    (r = parse_classes(q, err)) < 0 ||
		    (r = get_int(q->root, "step_ms", 0, INT64_MAX / 2, &q->step_ms, err)) < 0 ||
		    (r = parse_limit(q, RW_ANSWER_ROWS_DEFAULT, err)) < 0)
			return r;
		return parse_cursor(q, err);
	case CONTROL_OP_REPORT:
		return parse_select(q, err);
	case CONTROL_OP_CENSUS:
		if ((r = parse_select(q, err)) < 0)
			return r;
		return parse_census_at(q, err);
	case CONTROL_OP_EVENTS:
		/* events are few: by default all of them, from the first census */
		if ((r = parse_select(q, err)) < 0 || (r = parse_window(q, now_ms, 0, err)) < 0 ||
		    (r = parse_limit(q, RW_ANSWER_ROWS_DEFAULT, err)) < 0)
			return r;
		return parse_cursor(q, err);
	case CONTROL_OP_SCAN:
	case CONTROL_OP_MARK:
		q->sel.only_uid = -1;
		if ((r = get_int(q->root, "pid", 1, INT32_MAX, &v, err)) < 0)
			return r;
		if (r == 0)
			return bad(err, "pid is needed");
		q->sel.pid = (int)v;
		if (q->op == CONTROL_OP_SCAN) {
			if ((r = get_bool(q->root, "full", &q->full, err)) < 0 ||
			    (r = get_bool(q->root, "light", &q->light, err)) < 0)
				return r;
			if (q->full && q->light)
				return bad(err, "full and light: one or the other");
			return 0;
		}
		if ((r = get_string(q->root, "name", &s, &len, err)) < 0)
			return r;
		if (r == 0)
			return bad(err, "name is needed: the phase that starts now");
		if ((r = control_mark_name_check(s, len, err)) < 0)
			return r;
		q->mark = s;
		return 0;
	default:
		return bad(err, "unknown op");
	}
}

struct control_request *control_request_free(struct control_request *req)
{
	if (!req)
		return NULL;
	free(req->classes);
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
	const char *key = NULL;
	size_t off;
	json_t *v;
	int r;

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

	r = get_string(q->root, "op", &key, NULL, err);
	if (r <= 0) {
		if (r == 0)
			r = bad(err, "\"op\" is needed (status, processes, history, report, census, events, "
				     "scan, mark or metrics)");
		goto refused;
	}
	for (q->op = 0; q->op < _CONTROL_OP_MAX; q->op++)
		if (streq(op_names[q->op], key))
			break;
	if (q->op == _CONTROL_OP_MAX) {
		r = bad(err, "unknown op '%.40s' (status, processes, history, report, census, events, "
			     "scan, mark or metrics)", key);
		goto refused;
	}

	json_object_foreach(q->root, key, v) {
		bool known = streq(key, "op") || streq(key, "id");
		for (const char *const *k = op_keys[q->op]; !known && *k; k++)
			known = streq(key, *k);
		if (!known) {
			r = bad(err, "%s: unknown argument '%.40s'", op_names[q->op], key);
			goto refused;
		}
	}
	r = parse_args(q, now_ms, err);
	if (r < 0)
		goto refused;
	*ret = TAKE_PTR(q);
	return 0;

refused:
	if (r == -EINVAL && q->id)
		*ret_id = json_incref(q->id);
	return r;
}
