/* A treap of disjoint address ranges, split and merged by start address. */
#include "trace-ledger.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct trace_ledger_node {
	uint64_t start, last; /* inclusive: a range may end at 2^64-1 */
	uint64_t prio;
	uint32_t left, right;
};

void trace_ledger_init(struct trace_ledger *l)
{
	*l = (struct trace_ledger){ .seed = 0x9e3779b97f4a7c15ull };
}

void trace_ledger_done(struct trace_ledger *l)
{
	free(l->nodes);
	trace_ledger_init(l);
}

bool trace_ledger_range_valid(uint64_t start, uint64_t len)
{
	return len == 0 || len - 1 <= UINT64_MAX - start;
}

/* Priorities from xorshift64: the tree's shape depends on them, not on the
 * order of the trace's addresses, so its depth stays logarithmic. */
static uint64_t next_prio(struct trace_ledger *l)
{
	uint64_t x = l->seed;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return l->seed = x;
}

/* Makes sure k more nodes can be taken without reallocating, so no index
 * or pointer moves in the middle of an update. */
static int reserve(struct trace_ledger *l, uint32_t k)
{
	uint32_t free_count = 0;
	for (uint32_t i = l->free_list; i && free_count < k; i = l->nodes[i].left)
		free_count++;
	if (l->n + (k - free_count) < l->alloc && l->alloc)
		return 0;
	uint64_t alloc = l->alloc ? (uint64_t)l->alloc * 2 : 64;
	if (alloc > UINT32_MAX)
		return -ENOMEM;
	struct trace_ledger_node *nodes = realloc(l->nodes, alloc * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	if (l->n == 0) {
		memset(&nodes[0], 0, sizeof(nodes[0]));
		l->n = 1;
	}
	l->nodes = nodes;
	l->alloc = (uint32_t)alloc;
	return 0;
}

static uint32_t take(struct trace_ledger *l, uint64_t start, uint64_t last)
{
	uint32_t i = l->free_list;
	if (i)
		l->free_list = l->nodes[i].left;
	else
		i = l->n++;
	l->nodes[i] = (struct trace_ledger_node){ .start = start, .last = last, .prio = next_prio(l) };
	l->ranges++;
	l->bytes += (unsigned __int128)(last - start) + 1;
	return i;
}

static void give_back(struct trace_ledger *l, uint32_t i)
{
	l->ranges--;
	l->bytes -= (unsigned __int128)(l->nodes[i].last - l->nodes[i].start) + 1;
	l->nodes[i].left = l->free_list;
	l->free_list = i;
}

/* Splits t into the ranges starting below key and the rest. */
static void split(struct trace_ledger *l, uint32_t t, uint64_t key, uint32_t *ret_lo, uint32_t *ret_hi)
{
	if (!t) {
		*ret_lo = *ret_hi = 0;
		return;
	}
	if (l->nodes[t].start < key) {
		split(l, l->nodes[t].right, key, &l->nodes[t].right, ret_hi);
		*ret_lo = t;
	} else {
		split(l, l->nodes[t].left, key, ret_lo, &l->nodes[t].left);
		*ret_hi = t;
	}
}

/* Joins two trees, every range of lo starting below every range of hi. */
static uint32_t merge(struct trace_ledger *l, uint32_t lo, uint32_t hi)
{
	if (!lo || !hi)
		return lo ? lo : hi;
	if (l->nodes[lo].prio > l->nodes[hi].prio) {
		l->nodes[lo].right = merge(l, l->nodes[lo].right, hi);
		return lo;
	}
	l->nodes[hi].left = merge(l, lo, l->nodes[hi].left);
	return hi;
}

static void insert(struct trace_ledger *l, uint32_t node)
{
	uint32_t lo, hi;
	split(l, l->root, l->nodes[node].start, &lo, &hi);
	l->root = merge(l, merge(l, lo, node), hi);
}

/* Frees every node of t (all inside the removed span), adding the bytes
 * each had inside [.., last] to *removed; a range reaching past last keeps
 * its tail, returned in *ret_tail_start (its last stays in *ret_tail_last). */
static void drop(struct trace_ledger *l, uint32_t t, uint64_t last, uint64_t *removed, bool *ret_tail,
		 uint64_t *ret_tail_last)
{
	if (!t)
		return;
	drop(l, l->nodes[t].left, last, removed, ret_tail, ret_tail_last);
	drop(l, l->nodes[t].right, last, removed, ret_tail, ret_tail_last);
	struct trace_ledger_node *n = &l->nodes[t];
	uint64_t end = n->last < last ? n->last : last;
	*removed += end - n->start + 1;
	if (n->last > last) {
		*ret_tail = true;
		*ret_tail_last = n->last;
	}
	give_back(l, t);
}

/* Removes whatever lies in [start, last]; returns the bytes removed.  The
 * caller reserved two nodes (for the pieces a cut leaves). */
static uint64_t cut(struct trace_ledger *l, uint64_t start, uint64_t last)
{
	uint32_t below, rest, inside, above;
	uint64_t removed = 0, tail_last = 0;
	bool tail = false;

	split(l, l->root, start, &below, &rest);
	if (below) {
		/* only the last range starting below start can reach into it */
		uint32_t m = below;
		while (l->nodes[m].right)
			m = l->nodes[m].right;
		struct trace_ledger_node *n = &l->nodes[m];
		if (n->last >= start) {
			uint64_t end = n->last < last ? n->last : last;
			removed += end - start + 1;
			if (n->last > last) {
				tail = true;
				tail_last = n->last;
			}
			l->bytes -= (unsigned __int128)(n->last - start) + 1;
			n->last = start - 1;
		}
	}
	if (last == UINT64_MAX) {
		inside = rest;
		above = 0;
	} else {
		split(l, rest, last + 1, &inside, &above);
	}
	drop(l, inside, last, &removed, &tail, &tail_last);
	l->root = merge(l, below, above);
	if (tail) /* last < tail_last, so last + 1 does not wrap */
		insert(l, take(l, last + 1, tail_last));
	return removed;
}

int trace_ledger_map(struct trace_ledger *l, uint64_t start, uint64_t len, uint64_t *ret_displaced)
{
	int r;

	if (!trace_ledger_range_valid(start, len))
		return -EINVAL;
	if (len == 0) {
		*ret_displaced = 0;
		return 0;
	}
	if ((r = reserve(l, 2)) < 0)
		return r;
	uint64_t last = start + (len - 1);
	*ret_displaced = cut(l, start, last);
	insert(l, take(l, start, last));
	return 0;
}

int trace_ledger_unmap(struct trace_ledger *l, uint64_t start, uint64_t len, uint64_t *ret_removed)
{
	int r;

	if (!trace_ledger_range_valid(start, len))
		return -EINVAL;
	if (len == 0) {
		*ret_removed = 0;
		return 0;
	}
	if ((r = reserve(l, 1)) < 0)
		return r;
	*ret_removed = cut(l, start, start + (len - 1));
	return 0;
}

uint64_t trace_ledger_bytes(const struct trace_ledger *l)
{
	return l->bytes > UINT64_MAX ? UINT64_MAX : (uint64_t)l->bytes;
}

uint64_t trace_ledger_count(const struct trace_ledger *l)
{
	return l->ranges;
}

static bool walk(const struct trace_ledger *l, uint32_t t, bool (*fn)(uint64_t, uint64_t, void *), void *data)
{
	if (!t)
		return true;
	if (!walk(l, l->nodes[t].left, fn, data))
		return false;
	/* a whole-space range would be 2^64 bytes; none can be made of one len */
	if (!fn(l->nodes[t].start, l->nodes[t].last - l->nodes[t].start + 1, data))
		return false;
	return walk(l, l->nodes[t].right, fn, data);
}

bool trace_ledger_foreach(const struct trace_ledger *l, bool (*fn)(uint64_t start, uint64_t len, void *data),
			  void *data)
{
	return walk(l, l->root, fn, data);
}
