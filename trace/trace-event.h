/* One memtrace event (format version 3, doc/trace-format.md) and the rules every
 * field of it must follow.  Both line parsers, the fast one and the general
 * one, decode a line into a struct trace_event through the setters here, so
 * a field is accepted or refused, with the same reason, whichever parser
 * read it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define TRACE_FORMAT_VERSION 3

enum trace_kind {
	TRACE_KIND_TRACE_START,
	TRACE_KIND_TRACE_STOP,
	TRACE_KIND_ALLOCATOR,
	TRACE_KIND_ALLOC,
	TRACE_KIND_FREE,
	TRACE_KIND_RELEASE,
	TRACE_KIND_RESIZE,
	TRACE_KIND_REMAP,
	TRACE_KIND_LIFECYCLE,
	TRACE_KIND_SCOPE_ENTER,
	TRACE_KIND_SCOPE_EXIT,
	TRACE_KIND_MAP,
	TRACE_KIND_UNMAP,
	TRACE_KIND_PROTECT,
	TRACE_KIND_DISCARD,
	TRACE_KIND_DECOMMIT,
	TRACE_KIND_ADVISE,
	TRACE_KIND_SNAPSHOT,
	TRACE_KIND_CENSUS,
	TRACE_KIND_OBJECT, /* a loaded object: path, load bias, length (doc/memtrace-recording.md) */
	TRACE_KIND_STACK,  /* a stack of the tracer's --stack: stack_id, frames; not replayed */
	_TRACE_KIND_MAX,
};

/* The layer an event belongs to, and the layer one replay looks at. */
enum trace_layer {
	TRACE_LAYER_BACKING,  /* events: "backing_boundary" (the default) */
	TRACE_LAYER_LOGICAL,  /* events: "logical_allocator" */
	TRACE_LAYER_PHYSICAL, /* events: "physical_page" */
	_TRACE_LAYER_MAX,
};

/* The fields of an event line.  Any other field is ignored. */
enum trace_field {
	TRACE_FIELD_V,
	TRACE_FIELD_SEQ,
	TRACE_FIELD_KIND,
	TRACE_FIELD_ALLOCATOR_ID,
	TRACE_FIELD_ALLOCATION_ID,
	TRACE_FIELD_ADDRESS,
	TRACE_FIELD_OLD_ADDRESS,
	TRACE_FIELD_LEN,
	TRACE_FIELD_OLD_LEN,
	TRACE_FIELD_RETURN_ADDRESS,
	TRACE_FIELD_SCOPE,
	TRACE_FIELD_SCOPE_ID,
	TRACE_FIELD_LAYER,
	TRACE_FIELD_PRODUCER,
	TRACE_FIELD_RETAINS_FREED_MEMORY,
	TRACE_FIELD_LIFECYCLE_INSTRUMENTED,
	TRACE_FIELD_OBSERVATION_PREFIX_COMPLETE,
	TRACE_FIELD_SUCCEEDED,
	TRACE_FIELD_TRACKED,
	TRACE_FIELD_PATH,  /* an object's file */
	TRACE_FIELD_COUNT, /* the calls an untracked alloc stands for, 1 */
	TRACE_FIELD_STACK_ID, /* the stack of an event, or the one a stack event defines */
	TRACE_FIELD_FRAMES,   /* a stack event's return addresses, its caller first */
	_TRACE_FIELD_MAX,
};

enum trace_field_type {
	TRACE_TYPE_VERSION, /* an integer that must be TRACE_FORMAT_VERSION */
	TRACE_TYPE_U64,
	TRACE_TYPE_U32,
	TRACE_TYPE_STRING,
	TRACE_TYPE_BOOL,
	TRACE_TYPE_FRAMES, /* an array of unsigned integers */
};

struct trace_event {
	enum trace_kind kind;
	enum trace_layer layer;
	bool has_seq; /* "seq" present (0 still counts as unsequenced) */
	uint64_t seq;
	uint32_t allocator_id;
	uint32_t scope_id;
	uint64_t allocation_id;
	uint64_t address;
	uint64_t old_address;
	uint64_t len;
	uint64_t old_len;
	uint64_t return_address;
	/* The scope path, not NUL-terminated (it may hold NUL bytes from
	 * "\u0000"); borrowed from the parser until its next line.  NULL when
	 * absent or empty: then scope_id names the scope. */
	const char *scope;
	size_t scope_len;
	bool retains_freed_memory;
	bool lifecycle_instrumented;
	bool observation_prefix_complete;
	bool succeeded;
	bool tracked;
	/* An object's file, borrowed as scope is; NULL when absent. */
	const char *path;
	size_t path_len;
	uint64_t count;
	uint32_t stack_id; /* 0: none */
	/* A stack event's frames, borrowed from the parser as scope is; at
	 * most RW_TRACE_STACK_FRAMES_MAX. */
	const uint64_t *frames;
	size_t n_frames;
	/* Which fields were present: a field given twice is refused. */
	uint32_t seen;
};

/* Sets every field to its default (doc/trace-format.md#fields) and marks none seen.
 * Field by field and inline: a struct assignment compiles to a call to
 * memset, and this runs for every line. */
static inline void trace_event_init(struct trace_event *e)
{
	e->kind = _TRACE_KIND_MAX;
	e->layer = TRACE_LAYER_BACKING;
	e->has_seq = false;
	e->seq = 0;
	e->allocator_id = 0;
	e->scope_id = 0;
	e->allocation_id = 0;
	e->address = 0;
	e->old_address = 0;
	e->len = 0;
	e->old_len = 0;
	e->return_address = 0;
	e->scope = NULL;
	e->scope_len = 0;
	e->retains_freed_memory = false;
	e->lifecycle_instrumented = false;
	e->observation_prefix_complete = true;
	e->succeeded = true;
	e->tracked = true;
	e->path = NULL;
	e->path_len = 0;
	e->count = 1;
	e->stack_id = 0;
	e->frames = NULL;
	e->n_frames = 0;
	e->seen = 0;
}

/* The field named by the len bytes at key, or -1 for a field this format
 * does not define (which the parsers skip). */
int trace_event_field(const char *key, size_t len);
const char *trace_event_field_name(enum trace_field f);
enum trace_field_type trace_event_field_type(enum trace_field f);

/* Setters: each checks the value against the field's rules and stores it.
 * They return 0, or -EINVAL with a reason a person can act on in err
 * (may be NULL when the caller only wants to know).
 * A field set twice is refused.  trace_event_set_u64 takes an integer
 * written without sign; trace_event_set_wrong_type refuses a value of the
 * wrong JSON type, naming the type the field wants.  The numeric and
 * boolean setters are inline: the fast parser calls them for every field
 * of every line. */
int trace_event_set_wrong_type(enum trace_field f, struct error *err);
/* An integer too large for 64 bits, or for a 32-bit field. */
int trace_event_set_too_large(enum trace_field f, struct error *err);
int trace_event_refuse_twice(enum trace_field f, struct error *err);
int trace_event_refuse_version(uint64_t v, struct error *err);

static inline int trace_event_mark(struct trace_event *e, enum trace_field f, struct error *err)
{
	if (e->seen & (1u << f))
		return trace_event_refuse_twice(f, err);
	e->seen |= 1u << f;
	return 0;
}

static inline int trace_event_set_u64(struct trace_event *e, enum trace_field f, uint64_t value, struct error *err)
{
	uint64_t *dst;
	int r;

	switch (f) {
	case TRACE_FIELD_V:
		if (value != TRACE_FORMAT_VERSION)
			return trace_event_refuse_version(value, err);
		return trace_event_mark(e, f, err);
	case TRACE_FIELD_ALLOCATOR_ID:
	case TRACE_FIELD_SCOPE_ID:
	case TRACE_FIELD_STACK_ID:
		if (value > UINT32_MAX)
			return trace_event_set_too_large(f, err);
		if ((r = trace_event_mark(e, f, err)) < 0)
			return r;
		*(f == TRACE_FIELD_SCOPE_ID   ? &e->scope_id
		  : f == TRACE_FIELD_STACK_ID ? &e->stack_id
					      : &e->allocator_id) = (uint32_t)value;
		return 0;
	case TRACE_FIELD_SEQ: dst = &e->seq; break;
	case TRACE_FIELD_ALLOCATION_ID: dst = &e->allocation_id; break;
	case TRACE_FIELD_ADDRESS: dst = &e->address; break;
	case TRACE_FIELD_OLD_ADDRESS: dst = &e->old_address; break;
	case TRACE_FIELD_LEN: dst = &e->len; break;
	case TRACE_FIELD_OLD_LEN: dst = &e->old_len; break;
	case TRACE_FIELD_RETURN_ADDRESS: dst = &e->return_address; break;
	case TRACE_FIELD_COUNT: dst = &e->count; break;
	default: return trace_event_set_wrong_type(f, err);
	}
	if ((r = trace_event_mark(e, f, err)) < 0)
		return r;
	*dst = value;
	if (f == TRACE_FIELD_SEQ)
		e->has_seq = true;
	return 0;
}

static inline int trace_event_set_bool(struct trace_event *e, enum trace_field f, bool value, struct error *err)
{
	bool *dst;
	int r;

	switch (f) {
	case TRACE_FIELD_RETAINS_FREED_MEMORY: dst = &e->retains_freed_memory; break;
	case TRACE_FIELD_LIFECYCLE_INSTRUMENTED: dst = &e->lifecycle_instrumented; break;
	case TRACE_FIELD_OBSERVATION_PREFIX_COMPLETE: dst = &e->observation_prefix_complete; break;
	case TRACE_FIELD_SUCCEEDED: dst = &e->succeeded; break;
	case TRACE_FIELD_TRACKED: dst = &e->tracked; break;
	default: return trace_event_set_wrong_type(f, err);
	}
	if ((r = trace_event_mark(e, f, err)) < 0)
		return r;
	*dst = value;
	return 0;
}

int trace_event_set_string(struct trace_event *e, enum trace_field f, const char *s, size_t len, struct error *err);
/* The n frames at frames (borrowed: they must outlive the event's use);
 * more than RW_TRACE_STACK_FRAMES_MAX are refused. */
int trace_event_set_frames(struct trace_event *e, enum trace_field f, const uint64_t *frames, size_t n,
			   struct error *err);

/* Checks that the event is whole (it has a "kind").  Returns 0 or -EINVAL. */
int trace_event_finish(const struct trace_event *e, struct error *err);

/* Events that carry the same values: what the two parsers must agree on. */
bool trace_event_equal(const struct trace_event *a, const struct trace_event *b);

const char *trace_kind_name(enum trace_kind k);
/* "backing", "logical", "physical": the names of --layer. */
const char *trace_layer_name(enum trace_layer l);
/* The layer named as --layer names it, or -1. */
int trace_layer_from_name(const char *s);

/* Writes at most max bytes of s into out (of size outsize) as a JSON string
 * with quotes, cut with "..." when longer: for quoting input in messages. */
void trace_quote(char *out, size_t outsize, const char *s, size_t len, size_t max);
