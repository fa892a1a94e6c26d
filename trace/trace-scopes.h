/* Scope paths, each stored once with its counters.  A scope is named by its
 * index, which stays valid for the analyzer's life (paths are never
 * forgotten: the report lists every scope seen). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"
#include "trace-counters.h"

struct trace_scope {
	char *path; /* len bytes, NUL-terminated, may hold NUL bytes */
	size_t len;
	struct trace_counters counters;
};

struct trace_scopes {
	struct trace_scope *v;
	size_t n, alloc;
	struct hashtab index; /* struct trace_scope_slot: path hash -> scope */
};

void trace_scopes_init(struct trace_scopes *s);
void trace_scopes_done(struct trace_scopes *s);

/* The index of the scope path (len bytes at path), added with zero
 * counters when new.  Returns 0 and sets *ret, or -ENOMEM. */
int trace_scopes_intern(struct trace_scopes *s, const char *path, size_t len, uint32_t *ret);

/* The index of path when known, else -1. */
int64_t trace_scopes_find(const struct trace_scopes *s, const char *path, size_t len);
