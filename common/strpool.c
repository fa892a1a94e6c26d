/* Interning string pool: strings stored in fixed blocks, found through the
 * common hash table by their FNV-1a hash.  Workload: a few hundred to tens of thousands of strings,
 * mostly repeats of the previous one, so the last string is checked first. */
#include "strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

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

/* A slot of the table: the string's hash (hashtab_hash_bytes) and the
 * string, stored in a block. */
struct entry {
	uint64_t hash;
	const char *s;
};

struct strpool {
	struct block *blocks;
	struct hashtab table; /* struct entry */
	const char *last;
	size_t last_len;
	size_t bytes; /* the blocks' */
};

struct strpool *strpool_new(void)
{
	struct strpool *pool = calloc(1, sizeof(struct strpool));

	if (pool)
		hashtab_init(&pool->table, sizeof(struct entry));
	return pool;
}

struct strpool *strpool_free(struct strpool *pool)
{
	if (!pool)
		return NULL;
	for (struct block *b = pool->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	hashtab_done(&pool->table);
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

const char *strpool_intern(struct strpool *pool, const char *s, size_t len)
{
	uint64_t h;
	struct entry *e;
	size_t at = 0;

	if (pool->last && pool->last_len == len && memcmp(pool->last, s, len) == 0)
		return pool->last;
	h = hashtab_hash_bytes(s, len);
	while ((e = hashtab_find_next(&pool->table, h, &at)))
		if (strncmp(e->s, s, len) == 0 && e->s[len] == '\0')
			goto found;
	char *copy = store(pool, s, len);
	if (!copy || !(e = hashtab_add(&pool->table, h)))
		return NULL; /* a stored copy stays in its block, unused */
	e->s = copy;
found:
	pool->last = e->s;
	pool->last_len = len;
	return pool->last;
}

size_t strpool_bytes(const struct strpool *pool)
{
	return pool ? pool->bytes + hashtab_bytes(&pool->table) : 0;
}
