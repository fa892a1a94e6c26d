/* An open-addressing hash table keyed by a 64-bit integer, with slots of a
 * fixed size whose first 8 bytes are the key.  The analyzer keeps its live
 * allocations, allocators, sites, scope ids and site-detail buckets in
 * these: linear probing in one flat array keeps a lookup to one or two
 * cache lines, and deletion by backward shift leaves no tombstones, so the
 * table's size follows the number of live keys, not the trace's length. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_table {
	unsigned char *slots;
	size_t slot_size;
	size_t cap; /* a power of two, or 0 */
	size_t count;
	unsigned char *max_slot; /* the slot of key 2^64-1 */
	bool has_max;
};

void trace_table_init(struct trace_table *t, size_t slot_size);
/* Frees the table's memory; the table is empty (and usable) afterwards. */
void trace_table_done(struct trace_table *t);

/* The slot holding key, or NULL.  Slot pointers stay valid until the next
 * insertion or removal. */
void *trace_table_get(const struct trace_table *t, uint64_t key);

/* The slot holding key; when the key is new, a slot for it (the key set,
 * the rest zero) and *ret_new true.  NULL when out of memory. */
void *trace_table_upsert(struct trace_table *t, uint64_t key, bool *ret_new);

/* Removes key, copying its slot into out when out is not NULL.  Returns
 * false (out untouched) when key is absent. */
bool trace_table_remove(struct trace_table *t, uint64_t key, void *out);

/* Slot i (0 <= i < trace_table_slots()) when in use, else NULL: for
 * visiting every entry. */
void *trace_table_at(const struct trace_table *t, size_t i);
size_t trace_table_slots(const struct trace_table *t);

/* Starts loading the slot where a lookup of key begins: a hint only. */
static inline void trace_table_prefetch(const struct trace_table *t, uint64_t key);

/* Mixes a key so that aligned addresses and small ids spread over the
 * table (the finalizer of MurmurHash3). */
static inline uint64_t trace_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static inline void trace_table_prefetch(const struct trace_table *t, uint64_t key)
{
	if (t->cap)
		__builtin_prefetch(t->slots + (trace_hash_u64(key) & (t->cap - 1)) * t->slot_size);
}
