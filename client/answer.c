/* Reading fields of the daemon's answers, and writing them for programs:
 * JSON and CSV with times in unix seconds, paged answers merged, region
 * events for the memtrace export. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json-field.h"
#include "macro.h"
#include "timeparse.h"
#include "util.h"

static const char *const format_names[_ANSWER_FORMAT_MAX] = {
	[ANSWER_TABLE] = "table",
	[ANSWER_CSV] = "csv",
	[ANSWER_JSON] = "json",
	[ANSWER_MARKDOWN] = "markdown",
	[ANSWER_MEMTRACE] = "memtrace",
};

const char *answer_format_name(enum answer_format format)
{
	return (unsigned)format < _ANSWER_FORMAT_MAX ? format_names[format] : "?";
}

int answer_format_from_name(const char *name)
{
	for (int i = 0; i < _ANSWER_FORMAT_MAX; i++)
		if (streq(format_names[i], name))
			return i;
	return -1;
}

bool answer_int(const json_t *o, const char *key, int64_t *ret)
{
	int64_t v;
	if (json_field_int(o, key, INT64_MIN, INT64_MAX, &v) <= 0)
		return false;
	*ret = v;
	return true;
}

bool answer_region_event_counts(const json_t *s, struct region_event_counts *ret)
{
	const json_t *ev = json_object_get(s, "region_events");

	*ret = (struct region_event_counts){ 0 };
	if (!json_is_object(ev))
		return false;
	answer_int(ev, "appeared", &ret->appeared);
	answer_int(ev, "disappeared", &ret->disappeared);
	answer_int(ev, "grew", &ret->grew);
	answer_int(ev, "shrank", &ret->shrank);
	return true;
}

const char *answer_str(const json_t *o, const char *key)
{
	const char *s = NULL;
	return json_field_string(o, key, &s, NULL) > 0 ? s : NULL;
}

const char *answer_bytes(char *buf, const json_t *o, const char *key)
{
	int64_t v;
	if (!answer_int(o, key, &v) || v < 0)
		return "-";
	return format_bytes(buf, (uint64_t)v);
}

const char *answer_time(char *buf, const json_t *o, const char *key)
{
	int64_t v;
	if (!answer_int(o, key, &v) || v < 0)
		return "-";
	return timeparse_format_local(buf, v);
}

/* ---------------------------------------------------------------- for programs */

/* Keys whose integer values are times (unix ms) in doc/protocol.md.  Not
 * "start_time" (clock ticks after boot); "start" and "end" of a region are
 * address strings, which stay as they are. */
static bool is_time_key(const char *key)
{
	static const char *const keys[] = {
		"time",		"since",     "until",	      "started_at",	"first_seen", "last_seen",
		"exited_at",	"taken_at",  "start",	      "end",		"peak_time",  "resident_time",
		"previous_time", "vram_time",
	};
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (streq(keys[i], key))
			return true;
	return false;
}

static json_t *convert(const json_t *v)
{
	json_t *out, *x;
	const char *key;
	size_t i;

	if (json_is_object(v)) {
		if (!(out = json_object()))
			return NULL;
		json_object_foreach((json_t *)v, key, x) {
			json_t *y = is_time_key(key) && json_is_integer(x)
					    ? json_real((double)json_integer_value(x) / 1000.0)
					    : convert(x);
			if (!y || json_object_set_new(out, key, y) < 0)
				return json_decref(out), NULL;
		}
		return out;
	}
	if (json_is_array(v)) {
		if (!(out = json_array()))
			return NULL;
		json_array_foreach(v, i, x) {
			json_t *y = convert(x);
			if (!y || json_array_append_new(out, y) < 0)
				return json_decref(out), NULL;
		}
		return out;
	}
	return json_incref((json_t *)v);
}

json_t *answer_times_in_seconds(const json_t *answer)
{
	return convert(answer);
}

int answer_print_json(const json_t *answer, FILE *f)
{
	_cleanup_(json_decrefp) json_t *j = answer_times_in_seconds(answer);
	/* 13 significant digits: unix seconds with their milliseconds */
	if (!j || json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(13)) < 0)
		return -ENOMEM;
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

void answer_csv_time(FILE *f, bool known, int64_t ms)
{
	if (!known)
		return;
	if (ms < 0)
		fprintf(f, "-%" PRId64 ".%03" PRId64, -ms / 1000, -ms % 1000);
	else
		fprintf(f, "%" PRId64 ".%03" PRId64, ms / 1000, ms % 1000);
}

/* ---------------------------------------------------------------- region events */

static int event_u64(const json_t *e, const char *key, size_t i, uint64_t *ret, struct error *err)
{
	int64_t v = 0; /* not known (a light census): nothing to count */
	if (json_field_int(e, key, 0, INT64_MAX, &v) < 0)
		return error_set(err, -EBADMSG, "events[%zu].%s is not a size in bytes", i, key);
	*ret = (uint64_t)v;
	return 0;
}

/* "0x7f0000000000" (as answers give addresses) or an integer. */
static int event_address(const json_t *e, size_t i, uint64_t *ret, struct error *err)
{
	const json_t *v = json_object_get(e, "start");
	const char *s = json_string_value(v);

	if (s && (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) && parse_u64(s + 2, 16, ret) == 0)
		return 0;
	if (json_is_integer(v)) {
		*ret = (uint64_t)json_integer_value(v);
		return 0;
	}
	return error_set(err, -EBADMSG, "events[%zu].start is not an address", i);
}

int answer_region_events(const json_t *answer, struct trace_region_event **ret, size_t *ret_n, struct error *err)
{
	const json_t *events = json_object_get(answer, "events"), *e;
	_cleanup_free_ struct trace_region_event *v = NULL;
	size_t i, n;
	int r;

	if (!json_is_array(events))
		return error_set(err, -EBADMSG, "the answer has no \"events\" array");
	n = json_array_size(events);
	if (!(v = calloc(n ? n : 1, sizeof(*v))))
		return -ENOMEM;
	json_array_foreach(events, i, e) {
		struct trace_region_event *x = &v[i];
		const char *kind = answer_str(e, "kind");
		int k = kind ? region_event_kind_from_name(kind) : -1;
		if (k < 0)
			return error_set(err, -EBADMSG, "events[%zu].kind is not appeared, disappeared, grew or shrank", i);
		x->kind = (enum region_event_kind)k;
		if (!answer_int(e, "time", &x->time))
			return error_set(err, -EBADMSG, "events[%zu].time is not a time", i);
		if (!answer_int(e, "census_id", &x->census_id))
			x->census_id = 0;
		x->cls = answer_str(e, "class");
		if ((r = event_address(e, i, &x->start, err)) < 0 ||
		    (r = event_u64(e, "size", i, &x->size, err)) < 0 ||
		    (r = event_u64(e, "size_before", i, &x->size_before, err)) < 0 ||
		    (r = event_u64(e, "resident", i, &x->resident, err)) < 0 ||
		    (r = event_u64(e, "resident_before", i, &x->resident_before, err)) < 0)
			return r;
	}
	*ret = TAKE_PTR(v);
	*ret_n = n;
	return 0;
}
