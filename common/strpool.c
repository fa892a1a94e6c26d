/* Interning string pool: open-addressing hash table over strings stored in
 * fixed blocks.  Workload: a few hundred to tens of thousands of strings,
 * mostly repeats of the previous one, so the last string is checked first. */
#include "strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Blocks start small and double up to BLOCK_MAX: the daemon keeps a pool
 * per watched process (a few dozen paths), a census of a big process
 * interns thousands. */
#define BLOCK_MIN (2u * 1024u)
#define BLOCK_MAX (64u * 1024u)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct strpool {
	struct block *blocks;
	const char **table; /* open addressing, NULL = empty */
	size_t table_size, count;
	const char *last;
	size_t last_len;
	size_t bytes;
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	/* FNV-1a: short strings, no adversary worth a keyed hash here since a
	 * collision only costs a probe. */
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

struct strpool *strpool_new(void)
{
	return calloc(1, sizeof(struct strpool));
}

struct strpool *strpool_free(struct strpool *pool)
{
	if (!pool)
		return NULL;
	for (struct block *b = pool->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(pool->table);
	free(pool);
	return NULL;
}

static char *store(struct strpool *pool, const char *s, size_t len)
{
	struct block *b = pool->blocks;
	if (!b || b->size - b->used < len + 1) {
		size_t want = b ? (b->size * 2 < BLOCK_MAX ? b->size * 2 : BLOCK_MAX) : BLOCK_MIN;
		size_t size = len + 1 > want ? len + 1 : want;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		b->next = pool->blocks;
		pool->blocks = b;
		pool->bytes += sizeof(*b) + size;
	}
	char *p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static int grow(struct strpool *pool)
{
	size_t size = pool->table_size ? pool->table_size * 2 : 32;
	const char **table = calloc(size, sizeof(*table));
	if (!table)
		return -1;
	for (size_t i = 0; i < pool->table_size; i++) {
		const char *s = pool->table[i];
		if (!s)
			continue;
		size_t j = hash_bytes(s, strlen(s)) & (size - 1);
		while (table[j])
			j = (j + 1) & (size - 1);
		table[j] = s;
	}
	pool->bytes += (size - pool->table_size) * sizeof(*table);
	free(pool->table);
	pool->table = table;
	pool->table_size = size;
	return 0;
}

const char *strpool_intern(struct strpool *pool, const char *s, size_t len)
{
	if (pool->last && pool->last_len == len && memcmp(pool->last, s, len) == 0)
		return pool->last;
	if ((pool->count + 1) * 2 > pool->table_size && grow(pool) < 0)
		return NULL;

	size_t mask = pool->table_size - 1;
	size_t j = hash_bytes(s, len) & mask;
	for (; pool->table[j]; j = (j + 1) & mask) {
		const char *t = pool->table[j];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			goto found;
	}
	char *copy = store(pool, s, len);
	if (!copy)
		return NULL;
	pool->table[j] = copy;
	pool->count++;
found:
	pool->last = pool->table[j];
	pool->last_len = len;
	return pool->last;
}

size_t strpool_bytes(const struct strpool *pool)
{
	return pool ? pool->bytes : 0;
}
