/* The physical layer's ledger of mapped address ranges.
 *
 * A map over ranges already live displaces the bytes it covers (the kernel's
 * MAP_FIXED replaces them); an unmap removes what it covers and splits a
 * range it cuts through, and the bytes it covers that were not mapped count
 * as untracked.  Ranges are kept as mapped, never merged with neighbours,
 * so the count of live ranges is the count of maps still (partly) in force
 * plus the pieces unmaps cut them into.
 *
 * Ranges live in a treap ordered by start address: a map or unmap costs
 * O(log n + k) for k ranges it touches, and memory follows the live ranges. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct trace_ledger_node;

struct trace_ledger {
	struct trace_ledger_node *nodes; /* node 0 is the empty tree */
	uint32_t n, alloc, free_list, root;
	uint64_t ranges;
	unsigned __int128 bytes;
	uint64_t seed;
};

void trace_ledger_init(struct trace_ledger *l);
void trace_ledger_done(struct trace_ledger *l);

/* Whether [start, start+len) lies inside the 64-bit address space. */
bool trace_ledger_range_valid(uint64_t start, uint64_t len);

/* Maps [start, start+len): returns 0 and the bytes of live ranges it
 * displaced in *ret_displaced, -EINVAL for a range past 2^64 or -ENOMEM
 * (then the ledger is unchanged).  A zero length maps nothing. */
int trace_ledger_map(struct trace_ledger *l, uint64_t start, uint64_t len, uint64_t *ret_displaced);

/* Unmaps [start, start+len): returns 0 and the bytes that were mapped in
 * *ret_removed, -EINVAL or -ENOMEM as above. */
int trace_ledger_unmap(struct trace_ledger *l, uint64_t start, uint64_t len, uint64_t *ret_removed);

/* Bytes mapped (2^64-1 at most) and ranges live. */
uint64_t trace_ledger_bytes(const struct trace_ledger *l);
uint64_t trace_ledger_count(const struct trace_ledger *l);

/* Calls fn for each live range in address order (for tests and checks);
 * stops early and returns false when fn does. */
bool trace_ledger_foreach(const struct trace_ledger *l, bool (*fn)(uint64_t start, uint64_t len, void *data),
			  void *data);
