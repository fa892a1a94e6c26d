/* The fields of a memtrace event, their defaults and their rules. */
#include "trace-event.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "limits.h"
#include "macro.h"

/* Names with their lengths, so a lookup compares a length before bytes: the
 * fast parser looks up every key of every line. */
#define NAME(s) s, sizeof(s) - 1

static const struct {
	const char *name;
	size_t len;
	enum trace_field_type type;
} fields[_TRACE_FIELD_MAX] = {
	[TRACE_FIELD_V] = { NAME("v"), TRACE_TYPE_VERSION },
	[TRACE_FIELD_SEQ] = { NAME("seq"), TRACE_TYPE_U64 },
	[TRACE_FIELD_KIND] = { NAME("kind"), TRACE_TYPE_STRING },
	[TRACE_FIELD_ALLOCATOR_ID] = { NAME("allocator_id"), TRACE_TYPE_U32 },
	[TRACE_FIELD_ALLOCATION_ID] = { NAME("allocation_id"), TRACE_TYPE_U64 },
	[TRACE_FIELD_ADDRESS] = { NAME("address"), TRACE_TYPE_U64 },
	[TRACE_FIELD_OLD_ADDRESS] = { NAME("old_address"), TRACE_TYPE_U64 },
	[TRACE_FIELD_LEN] = { NAME("len"), TRACE_TYPE_U64 },
	[TRACE_FIELD_OLD_LEN] = { NAME("old_len"), TRACE_TYPE_U64 },
	[TRACE_FIELD_RETURN_ADDRESS] = { NAME("return_address"), TRACE_TYPE_U64 },
	[TRACE_FIELD_SCOPE] = { NAME("scope"), TRACE_TYPE_STRING },
	[TRACE_FIELD_SCOPE_ID] = { NAME("scope_id"), TRACE_TYPE_U32 },
	[TRACE_FIELD_LAYER] = { NAME("layer"), TRACE_TYPE_STRING },
	[TRACE_FIELD_PRODUCER] = { NAME("producer"), TRACE_TYPE_STRING },
	[TRACE_FIELD_RETAINS_FREED_MEMORY] = { NAME("retains_freed_memory"), TRACE_TYPE_BOOL },
	[TRACE_FIELD_LIFECYCLE_INSTRUMENTED] = { NAME("lifecycle_instrumented"), TRACE_TYPE_BOOL },
	[TRACE_FIELD_OBSERVATION_PREFIX_COMPLETE] = { NAME("observation_prefix_complete"), TRACE_TYPE_BOOL },
	[TRACE_FIELD_SUCCEEDED] = { NAME("succeeded"), TRACE_TYPE_BOOL },
	[TRACE_FIELD_TRACKED] = { NAME("tracked"), TRACE_TYPE_BOOL },
	[TRACE_FIELD_PATH] = { NAME("path"), TRACE_TYPE_STRING },
	[TRACE_FIELD_COUNT] = { NAME("count"), TRACE_TYPE_U64 },
	[TRACE_FIELD_STACK_ID] = { NAME("stack_id"), TRACE_TYPE_U32 },
	[TRACE_FIELD_FRAMES] = { NAME("frames"), TRACE_TYPE_FRAMES },
};

static const char *const kind_names[_TRACE_KIND_MAX] = {
	[TRACE_KIND_TRACE_START] = "trace.start", [TRACE_KIND_TRACE_STOP] = "trace.stop",
	[TRACE_KIND_ALLOCATOR] = "allocator",     [TRACE_KIND_ALLOC] = "alloc",
	[TRACE_KIND_FREE] = "free",               [TRACE_KIND_RELEASE] = "release",
	[TRACE_KIND_RESIZE] = "resize",           [TRACE_KIND_REMAP] = "remap",
	[TRACE_KIND_LIFECYCLE] = "lifecycle",     [TRACE_KIND_SCOPE_ENTER] = "scope.enter",
	[TRACE_KIND_SCOPE_EXIT] = "scope.exit",   [TRACE_KIND_MAP] = "map",
	[TRACE_KIND_UNMAP] = "unmap",             [TRACE_KIND_PROTECT] = "protect",
	[TRACE_KIND_DISCARD] = "discard",         [TRACE_KIND_DECOMMIT] = "decommit",
	[TRACE_KIND_ADVISE] = "advise",           [TRACE_KIND_SNAPSHOT] = "snapshot",
	[TRACE_KIND_CENSUS] = "census",           [TRACE_KIND_OBJECT] = "object",
	[TRACE_KIND_STACK] = "stack",
};

/* The names --layer takes (events carry them as event_layer_from_name
 * reads them). */
static const char *const layer_names[_TRACE_LAYER_MAX] = {
	[TRACE_LAYER_BACKING] = "backing",
	[TRACE_LAYER_LOGICAL] = "logical",
	[TRACE_LAYER_PHYSICAL] = "physical",
};

/* key == name, for a name given as a literal: a fixed-size memcmp the
 * compiler turns into a few loads. */
#define IS(name) (len == sizeof(name) - 1 && memcmp(key, name, sizeof(name) - 1) == 0)

int trace_event_field(const char *key, size_t len)
{
	/* by length, then bytes: every key of every line comes through here */
	switch (len) {
	case 1: return IS("v") ? TRACE_FIELD_V : -1;
	case 3:
		if (IS("len"))
			return TRACE_FIELD_LEN;
		return IS("seq") ? TRACE_FIELD_SEQ : -1;
	case 4:
		if (IS("path"))
			return TRACE_FIELD_PATH;
		return IS("kind") ? TRACE_FIELD_KIND : -1;
	case 5:
		if (IS("scope"))
			return TRACE_FIELD_SCOPE;
		if (IS("count"))
			return TRACE_FIELD_COUNT;
		return IS("layer") ? TRACE_FIELD_LAYER : -1;
	case 7:
		if (IS("address"))
			return TRACE_FIELD_ADDRESS;
		if (IS("old_len"))
			return TRACE_FIELD_OLD_LEN;
		return IS("tracked") ? TRACE_FIELD_TRACKED : -1;
	case 6: return IS("frames") ? TRACE_FIELD_FRAMES : -1;
	case 8:
		if (IS("scope_id"))
			return TRACE_FIELD_SCOPE_ID;
		if (IS("stack_id"))
			return TRACE_FIELD_STACK_ID;
		return IS("producer") ? TRACE_FIELD_PRODUCER : -1;
	case 9: return IS("succeeded") ? TRACE_FIELD_SUCCEEDED : -1;
	case 11: return IS("old_address") ? TRACE_FIELD_OLD_ADDRESS : -1;
	case 12: return IS("allocator_id") ? TRACE_FIELD_ALLOCATOR_ID : -1;
	case 13: return IS("allocation_id") ? TRACE_FIELD_ALLOCATION_ID : -1;
	case 14: return IS("return_address") ? TRACE_FIELD_RETURN_ADDRESS : -1;
	case 20: return IS("retains_freed_memory") ? TRACE_FIELD_RETAINS_FREED_MEMORY : -1;
	case 22: return IS("lifecycle_instrumented") ? TRACE_FIELD_LIFECYCLE_INSTRUMENTED : -1;
	case 27: return IS("observation_prefix_complete") ? TRACE_FIELD_OBSERVATION_PREFIX_COMPLETE : -1;
	default: return -1;
	}
}

/* The frequent kinds by a switch; the rest by the table. */
static int kind_from_name(const char *key, size_t len)
{
	switch (len) {
	case 3: return IS("map") ? TRACE_KIND_MAP : -1;
	case 4: return IS("free") ? TRACE_KIND_FREE : -1;
	case 5:
		if (IS("alloc"))
			return TRACE_KIND_ALLOC;
		if (IS("remap"))
			return TRACE_KIND_REMAP;
		return IS("unmap") ? TRACE_KIND_UNMAP : -1;
	case 6:
		if (IS("resize"))
			return TRACE_KIND_RESIZE;
		if (IS("census"))
			return TRACE_KIND_CENSUS;
		return IS("advise") ? TRACE_KIND_ADVISE : -1;
	default: return -1;
	}
}

/* The layer names events carry, by length: every event of the tracer's
 * names its layer. */
static int event_layer_from_name(const char *key, size_t len)
{
	switch (len) {
	case 13: return IS("physical_page") ? TRACE_LAYER_PHYSICAL : -1;
	case 16: return IS("backing_boundary") ? TRACE_LAYER_BACKING : -1;
	case 17: return IS("logical_allocator") ? TRACE_LAYER_LOGICAL : -1;
	default: return -1;
	}
}

const char *trace_event_field_name(enum trace_field f)
{
	return fields[f].name;
}

enum trace_field_type trace_event_field_type(enum trace_field f)
{
	return fields[f].type;
}

const char *trace_kind_name(enum trace_kind k)
{
	return k < _TRACE_KIND_MAX ? kind_names[k] : "?";
}

const char *trace_layer_name(enum trace_layer l)
{
	return l < _TRACE_LAYER_MAX ? layer_names[l] : "?";
}

int trace_layer_from_name(const char *s)
{
	for (int i = 0; i < _TRACE_LAYER_MAX; i++)
		if (strcmp(layer_names[i], s) == 0)
			return i;
	return -1;
}

static int lookup(const char *const *names, size_t n, const char *s, size_t len)
{
	if (len == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (names[i][0] == s[0] && strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return (int)i;
	return -1;
}

void trace_quote(char *out, size_t outsize, const char *s, size_t len, size_t max)
{
	size_t o = 0;

	if (outsize < 8) {
		if (outsize)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[8];
		size_t n;
		if (c == '"' || c == '\\')
			n = (size_t)snprintf(esc, sizeof(esc), "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			n = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c);
		else
			esc[0] = (char)c, n = 1;
		if (i >= max || o + n + 5 > outsize) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		memcpy(out + o, esc, n);
		o += n;
	}
	out[o++] = '"';
	out[o] = '\0';
}

static int refuse(struct error *err, const char *fmt, ...) _printf_(2, 3);
static int refuse(struct error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A second value for the same field is refused, since which one counts
 * would be a guess. */
int trace_event_refuse_twice(enum trace_field f, struct error *err)
{
	return refuse(err, "field \"%s\" is given twice", fields[f].name);
}

int trace_event_set_wrong_type(enum trace_field f, struct error *err)
{
	static const char *const wants[] = {
		[TRACE_TYPE_VERSION] = "the integer 3",
		[TRACE_TYPE_U64] = "an unsigned integer",
		[TRACE_TYPE_U32] = "an unsigned integer below 2^32",
		[TRACE_TYPE_STRING] = "a string",
		[TRACE_TYPE_BOOL] = "true or false",
		[TRACE_TYPE_FRAMES] = "an array of unsigned integers",
	};
	return refuse(err, "field \"%s\" must be %s", fields[f].name, wants[fields[f].type]);
}

int trace_event_set_too_large(enum trace_field f, struct error *err)
{
	if (fields[f].type == TRACE_TYPE_VERSION)
		return refuse(err, "format version in \"v\" is not supported (this reads version %d)",
			      TRACE_FORMAT_VERSION);
	if (fields[f].type != TRACE_TYPE_U64 && fields[f].type != TRACE_TYPE_U32)
		return trace_event_set_wrong_type(f, err);
	return refuse(err, "field \"%s\" is larger than %s", fields[f].name,
		      fields[f].type == TRACE_TYPE_U32 ? "4294967295" : "18446744073709551615");
}

int trace_event_refuse_version(uint64_t v, struct error *err)
{
	return refuse(err, "format version %" PRIu64 " is not supported (this reads version %d)", v,
		      TRACE_FORMAT_VERSION);
}

int trace_event_set_string(struct trace_event *e, enum trace_field f, const char *s, size_t len, struct error *err)
{
	char quoted[96];
	int r, i;

	if (fields[f].type != TRACE_TYPE_STRING)
		return trace_event_set_wrong_type(f, err);
	switch (f) {
	case TRACE_FIELD_KIND:
		i = kind_from_name(s, len);
		if (i < 0)
			i = lookup(kind_names, ELEMENTSOF(kind_names), s, len);
		if (i < 0) {
			if (err)
				trace_quote(quoted, sizeof(quoted), s, len, 48);
			return refuse(err, "unknown kind %s", quoted);
		}
		if ((r = trace_event_mark(e, f, err)) < 0)
			return r;
		e->kind = (enum trace_kind)i;
		return 0;
	case TRACE_FIELD_LAYER:
		i = event_layer_from_name(s, len);
		if (i < 0) {
			if (err)
				trace_quote(quoted, sizeof(quoted), s, len, 48);
			return refuse(err,
				      "unknown layer %s (backing_boundary, logical_allocator or physical_page)",
				      quoted);
		}
		if ((r = trace_event_mark(e, f, err)) < 0)
			return r;
		e->layer = (enum trace_layer)i;
		return 0;
	case TRACE_FIELD_SCOPE:
		if ((r = trace_event_mark(e, f, err)) < 0)
			return r;
		/* An empty path is no path: scope_id names the scope then. */
		e->scope = len ? s : NULL;
		e->scope_len = len;
		return 0;
	case TRACE_FIELD_PATH:
		if ((r = trace_event_mark(e, f, err)) < 0)
			return r;
		e->path = len ? s : NULL;
		e->path_len = len;
		return 0;
	default: /* producer: informational */
		return trace_event_mark(e, f, err);
	}
}

int trace_event_set_frames(struct trace_event *e, enum trace_field f, const uint64_t *frames, size_t n,
			   struct error *err)
{
	int r;

	if (fields[f].type != TRACE_TYPE_FRAMES)
		return trace_event_set_wrong_type(f, err);
	if (n > RW_TRACE_STACK_FRAMES_MAX)
		return refuse(err, "field \"%s\" lists %zu frames, more than %u", fields[f].name, n,
			      RW_TRACE_STACK_FRAMES_MAX);
	if ((r = trace_event_mark(e, f, err)) < 0)
		return r;
	e->frames = frames;
	e->n_frames = n;
	return 0;
}

int trace_event_finish(const struct trace_event *e, struct error *err)
{
	if (!(e->seen & (1u << TRACE_FIELD_KIND)))
		return refuse(err, "no \"kind\" field");
	return 0;
}

bool trace_event_equal(const struct trace_event *a, const struct trace_event *b)
{
	if (a->path_len != b->path_len || (!a->path) != (!b->path) ||
	    (a->path && memcmp(a->path, b->path, a->path_len) != 0) || a->count != b->count)
		return false;
	if (a->scope_len != b->scope_len || (!a->scope) != (!b->scope) ||
	    (a->scope && memcmp(a->scope, b->scope, a->scope_len) != 0))
		return false;
	if (a->n_frames != b->n_frames || a->stack_id != b->stack_id ||
	    (a->n_frames && memcmp(a->frames, b->frames, a->n_frames * sizeof(a->frames[0])) != 0))
		return false;
	return a->kind == b->kind && a->layer == b->layer && a->has_seq == b->has_seq && a->seq == b->seq &&
	       a->allocator_id == b->allocator_id && a->scope_id == b->scope_id &&
	       a->allocation_id == b->allocation_id && a->address == b->address &&
	       a->old_address == b->old_address && a->len == b->len && a->old_len == b->old_len &&
	       a->return_address == b->return_address && a->retains_freed_memory == b->retains_freed_memory &&
	       a->lifecycle_instrumented == b->lifecycle_instrumented &&
	       a->observation_prefix_complete == b->observation_prefix_complete &&
	       a->succeeded == b->succeeded && a->tracked == b->tracked && a->seen == b->seen;
}
