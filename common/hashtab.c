/* Linear-probing hash table with backward-shift deletion.
 *
 * A free slot holds the key 2^64-1, so a lookup touches only the slots
 * themselves (one cache line each for 64-byte slots), not a separate
 * occupancy array; the one real key equal to 2^64-1 lives in a slot of its
 * own beside the array. */
#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

#define MIN_CAP 16u
#define CACHE_LINE 64u
#define FREE_KEY UINT64_MAX

#define FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

void hashtab_init(struct hashtab *t, size_t slot_size)
{
	*t = (struct hashtab){ .slot_size = slot_size };
}

void hashtab_done(struct hashtab *t)
{
	free(t->slots);
	free(t->max_slot);
	hashtab_init(t, t->slot_size);
}

static inline unsigned char *slot(const struct hashtab *t, size_t i)
{
	return t->slots + i * t->slot_size;
}

static inline uint64_t slot_key(const struct hashtab *t, size_t i)
{
	uint64_t k;
	memcpy(&k, slot(t, i), sizeof(k));
	return k;
}

/* The index of key's slot in the array, or t->cap when it is not there
 * (the one key 2^64-1 never is). */
static inline size_t find(const struct hashtab *t, uint64_t key)
{
	if (key == FREE_KEY || t->cap == 0)
		return t->cap;
	size_t mask = t->cap - 1;
	for (size_t i = hashtab_mix_u64(key) & mask;; i = (i + 1) & mask) {
		uint64_t k = slot_key(t, i);
		if (k == key)
			return i;
		if (k == FREE_KEY)
			return t->cap;
	}
}

void *hashtab_get(const struct hashtab *t, uint64_t key)
{
	if (key == FREE_KEY)
		return t->has_max ? t->max_slot : NULL;
	size_t i = find(t, key);
	return i < t->cap ? slot(t, i) : NULL;
}

void *hashtab_find_next(const struct hashtab *t, uint64_t key, size_t *cursor)
{
	if (key == FREE_KEY) {
		if (*cursor > 0 || !t->has_max)
			return NULL;
		*cursor = 1;
		return t->max_slot;
	}
	if (t->cap == 0)
		return NULL;
	/* the cursor counts the slots of the probe run already passed; the
	 * run ends at a free slot, and the table always has one */
	size_t mask = t->cap - 1;
	for (size_t i = (hashtab_mix_u64(key) + *cursor) & mask;; i = (i + 1) & mask) {
		uint64_t k = slot_key(t, i);
		if (k == FREE_KEY)
			return NULL;
		(*cursor)++;
		if (k == key)
			return slot(t, i);
	}
}

/* Places a slot known to be absent; the table has room. */
static void place(struct hashtab *t, const unsigned char *src)
{
	uint64_t key;
	memcpy(&key, src, sizeof(key));
	size_t mask = t->cap - 1, i = hashtab_mix_u64(key) & mask;
	while (slot_key(t, i) != FREE_KEY)
		i = (i + 1) & mask;
	memcpy(slot(t, i), src, t->slot_size);
}

static void clear_slot(struct hashtab *t, size_t i)
{
	uint64_t k = FREE_KEY;
	memcpy(slot(t, i), &k, sizeof(k));
}

static int grow(struct hashtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : MIN_CAP;
	struct hashtab n = *t;

	if (cap < t->cap || cap > SIZE_MAX / t->slot_size)
		return -1;
	n.cap = cap;
	n.slots = malloc(cap * t->slot_size);
	if (!n.slots)
		return -1;
	for (size_t i = 0; i < cap; i++)
		clear_slot(&n, i);
	for (size_t i = 0; i < t->cap; i++)
		if (slot_key(t, i) != FREE_KEY)
			place(&n, slot(t, i));
	free(t->slots);
	*t = n;
	return 0;
}

/* A free slot for key in the array, grown first when needed; NULL when
 * out of memory. */
static unsigned char *free_slot(struct hashtab *t, uint64_t key)
{
	/* at most 5/8 full: short probe runs even with clustered keys */
	if ((t->count + 1) * 8 > t->cap * 5 && grow(t) < 0)
		return NULL;
	size_t mask = t->cap - 1, i = hashtab_mix_u64(key) & mask;
	while (slot_key(t, i) != FREE_KEY)
		i = (i + 1) & mask;
	return slot(t, i);
}

static void *claim(struct hashtab *t, unsigned char *s, uint64_t key)
{
	if (t->slot_size == CACHE_LINE)
		memset(s, 0, CACHE_LINE);
	else
		memset(s, 0, t->slot_size);
	memcpy(s, &key, sizeof(key));
	t->count++;
	return s;
}

void *hashtab_upsert(struct hashtab *t, uint64_t key, bool *ret_new)
{
	unsigned char *s = NULL;

	if (key == FREE_KEY) {
		if (t->has_max) {
			*ret_new = false;
			return t->max_slot;
		}
		if (!t->max_slot && !(t->max_slot = malloc(t->slot_size)))
			return NULL;
		t->has_max = true;
		*ret_new = true;
		return claim(t, t->max_slot, key);
	}
	/* one walk of the probe run finds the key, or the free slot that ends
	 * the run, which is where it goes (no tombstones: nothing further on
	 * can hold it); only a new key may make the table grow, as before */
	if (t->cap) {
		size_t mask = t->cap - 1;
		for (size_t i = hashtab_mix_u64(key) & mask;; i = (i + 1) & mask) {
			uint64_t k = slot_key(t, i);
			s = slot(t, i);
			if (k == key) {
				*ret_new = false;
				return s;
			}
			if (k == FREE_KEY)
				break;
		}
	}
	if ((t->count + 1) * 8 > t->cap * 5 && !(s = free_slot(t, key)))
		return NULL;
	*ret_new = true;
	return claim(t, s, key);
}

void *hashtab_add(struct hashtab *t, uint64_t key)
{
	unsigned char *s;

	if (key == FREE_KEY || !(s = free_slot(t, key)))
		return NULL;
	return claim(t, s, key);
}

/* hashtab_remove for slots of size bytes: with a constant size (a slot of
 * a cache line, as the trace analyzer's live allocations have) the copies
 * are a few moves instead of calls. */
__attribute__((always_inline)) static inline bool remove_sized(struct hashtab *t, uint64_t key, void *out,
							      size_t size)
{
	if (key == FREE_KEY) {
		if (!t->has_max)
			return false;
		if (out)
			memcpy(out, t->max_slot, size);
		t->count--;
		t->has_max = false;
		return true;
	}
	size_t hole = find(t, key), mask = t->cap - 1;
	if (hole == t->cap)
		return false;
	if (out)
		memcpy(out, t->slots + hole * size, size);
	t->count--;
	/* Backward shift: pull later members of the probe run into the hole
	 * when their home slot is not between the hole and them. */
	for (size_t j = (hole + 1) & mask; slot_key(t, j) != FREE_KEY; j = (j + 1) & mask) {
		size_t home = hashtab_mix_u64(slot_key(t, j)) & mask;
		if (((j - home) & mask) >= ((j - hole) & mask)) {
			memcpy(t->slots + hole * size, t->slots + j * size, size);
			hole = j;
		}
	}
	clear_slot(t, hole);
	return true;
}

bool hashtab_remove(struct hashtab *t, uint64_t key, void *out)
{
	if (t->slot_size == CACHE_LINE)
		return remove_sized(t, key, out, CACHE_LINE);
	return remove_sized(t, key, out, t->slot_size);
}

void *hashtab_at(const struct hashtab *t, size_t i)
{
	if (i < t->cap)
		return slot_key(t, i) != FREE_KEY ? slot(t, i) : NULL;
	if (i == t->cap && t->has_max)
		return t->max_slot;
	return NULL;
}

size_t hashtab_slots(const struct hashtab *t)
{
	return t->cap + 1;
}

size_t hashtab_bytes(const struct hashtab *t)
{
	return (t->cap + (t->max_slot ? 1 : 0)) * t->slot_size;
}

uint64_t hashtab_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = FNV_OFFSET_BASIS;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= FNV_PRIME;
	}
	return h == FREE_KEY ? FREE_KEY - 1 : h;
}
