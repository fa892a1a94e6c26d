/* Interning of scope paths: the common hash table as an index over an
 * array of scopes. */
#include "trace-scopes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A slot of the index: a path's hash and its scope. */
struct trace_scope_slot {
	uint64_t hash;
	uint32_t scope;
};

void trace_scopes_init(struct trace_scopes *s)
{
	*s = (struct trace_scopes){ 0 };
	hashtab_init(&s->index, sizeof(struct trace_scope_slot));
}

void trace_scopes_done(struct trace_scopes *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	hashtab_done(&s->index);
	trace_scopes_init(s);
}

static int64_t find(const struct trace_scopes *s, const char *path, size_t len, uint64_t h)
{
	const struct trace_scope_slot *x;
	size_t at = 0;

	while ((x = hashtab_find_next(&s->index, h, &at))) {
		const struct trace_scope *sc = &s->v[x->scope];
		if (sc->len == len && memcmp(sc->path, path, len) == 0)
			return x->scope;
	}
	return -1;
}

int64_t trace_scopes_find(const struct trace_scopes *s, const char *path, size_t len)
{
	return find(s, path, len, hashtab_hash_bytes(path, len));
}

int trace_scopes_intern(struct trace_scopes *s, const char *path, size_t len, uint32_t *ret)
{
	uint64_t h = hashtab_hash_bytes(path, len);
	struct trace_scope_slot *x;
	int64_t i;

	if ((i = find(s, path, len, h)) >= 0) {
		*ret = (uint32_t)i;
		return 0;
	}
	/* indices are 32-bit to keep allocation records small; 2^32 scopes
	 * would need far more memory than any machine this runs on */
	if (s->n >= UINT32_MAX - 1)
		return -ENOMEM;
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
	if (!(x = hashtab_add(&s->index, h))) {
		free(copy);
		return -ENOMEM;
	}
	x->scope = (uint32_t)s->n;
	s->v[s->n] = (struct trace_scope){ .path = copy, .len = len };
	*ret = (uint32_t)s->n++;
	return 0;
}
