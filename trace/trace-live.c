/* The table of live allocations' growth (the lookups are inline in
 * trace-live.h). */
#include "trace-live.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define MIN_CAP 16u
#define ALIGN 32u
#define MIN_MORE 64u
/* a huge page of x86-64 and arm64 (4 KiB base pages) */
#define HUGE_PAGE ((size_t)2 << 20)

void trace_live_init(struct trace_live *t, bool keep_rows)
{
	*t = (struct trace_live){ .shift = 64, .keep_rows = keep_rows };
	t->none.allocator_id = TRACE_BIN_LOGICAL_ALLOCATOR;
}

void trace_live_done(struct trace_live *t)
{
	free(t->memory);
	free(t->more);
	trace_live_init(t, t->keep_rows);
}

uint32_t trace_live_more_new(struct trace_live *t)
{
	uint32_t i = t->free_more;

	if (i) {
		t->free_more = (uint32_t)t->more[i - 1].segment_event;
		return i;
	}
	if (t->n_more == t->more_alloc) {
		size_t n = t->more_alloc ? t->more_alloc * 2 : MIN_MORE;
		struct trace_record_more *v;
		/* one entry for each live allocation at most: fewer than 2^32
		 * long before memory runs out */
		if (n > UINT32_MAX || !(v = realloc(t->more, n * sizeof(*v))))
			return 0;
		t->more = v;
		t->more_alloc = n;
	}
	return (uint32_t)++t->n_more;
}

/* Memory for a table of bytes, ALIGN-aligned.  A table of a huge page or
 * more is asked for in huge pages, where the kernel gives them on request
 * (transparent_hugepage "madvise", the default of many distributions):
 * else each 4 KiB page of every new table costs a fault as it is first
 * written, and on the benchmark's trace (8 MiB of tables over the
 * doublings) those faults were a fifth of the binary replay's CPU time. */
static void *table_memory(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (bytes >= HUGE_PAGE) {
		void *p;
		if (posix_memalign(&p, HUGE_PAGE, bytes) != 0)
			return NULL;
		/* a hint: refused, the table is in small pages */
		(void)madvise(p, bytes, MADV_HUGEPAGE);
		return p;
	}
#endif
	return bytes > SIZE_MAX - ALIGN ? NULL : malloc(bytes + ALIGN);
}

int trace_live_reserve(struct trace_live *t)
{
	size_t cap = t->cap ? t->cap : MIN_CAP;
	struct trace_live n = *t;
	unsigned bits = 0;

	if (!trace_live_full(t->count + t->gone + 1, t->cap))
		return 0;
	/* twice the slots when the live ones fill 7/8 of what the table
	 * holds; else the same number made again without the gone marks,
	 * which leaves an eighth of what it holds for new ones before the
	 * next time (a table that makes many is not made again every few) */
	while ((t->count + 1) * 64 > cap * 21) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	if (cap > (SIZE_MAX - ALIGN - TRACE_LIVE_WINDOW) / (sizeof(struct trace_record) + 1))
		return -ENOMEM;
	/* aligned by hand (Windows' C library has no aligned_alloc): a slot
	 * is in one cache line, not across two */
	size_t bytes = cap * sizeof(struct trace_record) + cap + TRACE_LIVE_WINDOW - 1;
	if (!(n.memory = table_memory(bytes)))
		return -ENOMEM;
	n.slots = (struct trace_record *)(((uintptr_t)n.memory + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
	n.ctrl = (unsigned char *)(n.slots + cap);
	while (((size_t)1 << bits) < cap)
		bits++;
	n.cap = cap;
	n.shift = 64 - bits;
	n.gone = 0;
	/* only the control bytes are written: a slot's page is touched when
	 * a key first lands in it */
	memset(n.ctrl, TRACE_LIVE_EMPTY, cap + TRACE_LIVE_WINDOW - 1);
	/* the slots in use, 16 control bytes at a time */
	for (size_t at = 0; at < t->cap; at += TRACE_LIVE_WINDOW) {
		for (uint32_t m = ~trace_live_unused(t->ctrl + at) & 0xffffu; m; m &= m - 1) {
			size_t i = at + (size_t)__builtin_ctz(m);
			size_t j = trace_live_free_slot(&n, t->slots[i].key);
			trace_live_set_ctrl(&n, j, t->ctrl[i]);
			n.slots[j] = t->slots[i];
		}
	}
	free(t->memory);
	*t = n;
	return 0;
}
