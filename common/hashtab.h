/* The one open-addressing hash table: slots of a fixed size whose first 8
 * bytes are a 64-bit key, in one flat array with linear probing, and
 * deletion by backward shift, so there are no tombstones and the table's
 * size follows the number of live keys.
 *
 * Two kinds of key use it.  An integer (a pid, an address, an id) is its
 * own key, mixed by hashtab_mix_u64 to find its slot: one key, one slot
 * (hashtab_upsert, hashtab_get, hashtab_remove).  A string is keyed by its
 * hash (hashtab_hash_bytes) in a slot that also points at the string:
 * different strings may share a hash, so such a table holds one slot per
 * string (hashtab_add) and a lookup walks every slot of the hash
 * (hashtab_find_next), comparing the strings.
 *
 * Workloads: the trace analyzer's live allocations (millions of lookups a
 * second, so a lookup stays in one or two cache lines), the daemon's
 * pids, interned paths and trace scopes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashtab {
	unsigned char *slots;
	size_t slot_size;
	size_t cap; /* a power of two, or 0 */
	size_t count;
	unsigned char *max_slot; /* the slot of key 2^64-1 */
	bool has_max;
};

/* slot_size is at least 8: the key comes first. */
void hashtab_init(struct hashtab *t, size_t slot_size);
/* Frees the table's memory; the table is empty (and usable) afterwards. */
void hashtab_done(struct hashtab *t);

/* The first slot holding key, or NULL.  Slot pointers stay valid until the
 * next insertion or removal. */
void *hashtab_get(const struct hashtab *t, uint64_t key);

/* Every slot holding key, one a call: *cursor starts at 0; NULL after the
 * last.  The table may not change during the walk. */
void *hashtab_find_next(const struct hashtab *t, uint64_t key, size_t *cursor);

/* The slot holding key; when the key is new, a slot for it (the key set,
 * the rest zero) and *ret_new true.  NULL when out of memory. */
void *hashtab_upsert(struct hashtab *t, uint64_t key, bool *ret_new);

/* A new slot for key (the key set, the rest zero) even when key is held
 * already.  NULL when out of memory, or for key 2^64-1, which has only one
 * slot (hashtab_hash_bytes never gives it). */
void *hashtab_add(struct hashtab *t, uint64_t key);

/* Removes (the first slot of) key, copying it into out when out is not
 * NULL.  Returns false (out untouched) when key is absent. */
bool hashtab_remove(struct hashtab *t, uint64_t key, void *out);

/* Slot i (0 <= i < hashtab_slots()) when in use, else NULL: for visiting
 * every entry, in an order that depends only on the keys and the order of
 * insertions and removals. */
void *hashtab_at(const struct hashtab *t, size_t i);
size_t hashtab_slots(const struct hashtab *t);

/* The bytes the table holds, for cost accounting. */
size_t hashtab_bytes(const struct hashtab *t);

/* FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3):
 * keys are short paths, and a collision costs only a comparison, so no
 * keyed hash.  The one value 2^64-1 comes back as 2^64-2, since a string's
 * table needs a slot per string. */
uint64_t hashtab_hash_bytes(const void *p, size_t len);

/* Mixes an integer key so that aligned addresses, small ids and
 * consecutive pids spread over the table (the finalizer of MurmurHash3). */
static inline uint64_t hashtab_mix_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* Starts loading the slot where a lookup of key begins: a hint only.
 * Always inlined: GCC 12 takes a function whose only effect is a prefetch
 * for one without effects and drops its calls before it would inline them,
 * so a plain inline function here compiled to nothing. */
__attribute__((always_inline)) static inline void hashtab_prefetch(const struct hashtab *t, uint64_t key)
{
	if (t->cap)
		__builtin_prefetch(t->slots + (hashtab_mix_u64(key) & (t->cap - 1)) * t->slot_size);
}
