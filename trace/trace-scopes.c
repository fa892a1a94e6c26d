/* Interning of scope paths: a hash index over an array of scopes. */
#include "trace-scopes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void trace_scopes_init(struct trace_scopes *s)
{
	*s = (struct trace_scopes){ 0 };
}

void trace_scopes_done(struct trace_scopes *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	free(s->index);
	trace_scopes_init(s);
}

/* FNV-1a: paths are short, and this needs no alignment. */
static uint64_t hash_path(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int64_t find(const struct trace_scopes *s, const char *path, size_t len, uint64_t h, size_t *ret_slot)
{
	size_t mask = s->cap - 1, i;
	for (i = h & mask; s->index[i]; i = (i + 1) & mask) {
		const struct trace_scope *sc = &s->v[s->index[i] - 1];
		if (sc->hash == h && sc->len == len && memcmp(sc->path, path, len) == 0)
			return s->index[i] - 1;
	}
	if (ret_slot)
		*ret_slot = i;
	return -1;
}

int64_t trace_scopes_find(const struct trace_scopes *s, const char *path, size_t len)
{
	return s->cap ? find(s, path, len, hash_path(path, len), NULL) : -1;
}

static int grow_index(struct trace_scopes *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	uint32_t *index = calloc(cap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	for (size_t k = 0; k < s->n; k++) {
		size_t i = s->v[k].hash & (cap - 1);
		while (index[i])
			i = (i + 1) & (cap - 1);
		index[i] = (uint32_t)k + 1;
	}
	free(s->index);
	s->index = index;
	s->cap = cap;
	return 0;
}

int trace_scopes_intern(struct trace_scopes *s, const char *path, size_t len, uint32_t *ret)
{
	uint64_t h = hash_path(path, len);
	size_t at;
	int64_t i;
	int r;

	if (s->cap && (i = find(s, path, len, h, NULL)) >= 0) {
		*ret = (uint32_t)i;
		return 0;
	}
	/* indices are 32-bit to keep allocation records small; 2^32 scopes
	 * would need far more memory than any machine this runs on */
	if (s->n >= UINT32_MAX - 1)
		return -ENOMEM;
	if ((s->n + 1) * 2 > s->cap && (r = grow_index(s)) < 0)
		return r;
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 32;
		struct trace_scope *v = realloc(s->v, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->alloc = alloc;
	}
	char *copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, path, len);
	copy[len] = '\0';
	find(s, path, len, h, &at);
	s->v[s->n] = (struct trace_scope){ .path = copy, .len = len, .hash = h };
	s->index[at] = (uint32_t)s->n + 1;
	*ret = (uint32_t)s->n++;
	return 0;
}
