/* The table of live allocations' growth (the lookups are inline in
 * trace-live.h). */
#include "trace-live.h"

#include <errno.h>
#include <stdlib.h>

#define MIN_CAP 16u
#define ALIGN 64u

void trace_live_init(struct trace_live *t)
{
	*t = (struct trace_live){ .shift = 64 };
	t->max.key = TRACE_LIVE_FREE;
}

void trace_live_done(struct trace_live *t)
{
	free(t->memory);
	trace_live_init(t);
}

int trace_live_reserve(struct trace_live *t)
{
	size_t cap = t->cap ? t->cap * 2 : MIN_CAP;
	struct trace_live n = *t;
	unsigned bits = 0;

	if ((t->count + 1) * 8 <= t->cap * 5)
		return 0;
	if (cap < t->cap || cap > SIZE_MAX / sizeof(struct trace_record))
		return -ENOMEM;
	/* aligned by hand (Windows' C library has no aligned_alloc): a slot
	 * is one cache line, not two halves */
	size_t bytes = cap * sizeof(struct trace_record);
	if (bytes > SIZE_MAX - ALIGN || !(n.memory = malloc(bytes + ALIGN)))
		return -ENOMEM;
	n.slots = (struct trace_record *)(((uintptr_t)n.memory + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
	while (((size_t)1 << bits) < cap)
		bits++;
	n.cap = cap;
	n.shift = 64 - bits;
	for (size_t i = 0; i < cap; i++)
		n.slots[i].key = TRACE_LIVE_FREE;
	for (size_t i = 0; i < t->cap; i++) {
		const struct trace_record *r = &t->slots[i];
		if (r->key == TRACE_LIVE_FREE)
			continue;
		size_t j = trace_live_home(&n, r->key);
		while (n.slots[j].key != TRACE_LIVE_FREE)
			j = (j + 1) & (cap - 1);
		n.slots[j] = *r;
	}
	free(t->memory);
	*t = n;
	return 0;
}
