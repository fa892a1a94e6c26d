/* Stacks of N frames (--stack N), kept as a table so each event carries one
 * stack id, and written once each at the end: {"kind":"stack","stack_id":
 * ID,"frames":[caller, its caller, ...]}.
 *
 * The frames come from libunwind's unw_backtrace (Debian's libunwind8),
 * loaded at the start only when N > 1: programs built without frame
 * pointers, as most of a distribution is, cannot be walked by them, and
 * libunwind reads the unwind tables instead.  It allocates from its own
 * mmap'd pools, so it is safe inside malloc.
 *
 * The table only grows: an entry is published by its hash, written last;
 * lookups read without a lock, inserts take a spinlock.  A full table
 * gives id 0 (the event has no stack_id; its return_address still names
 * its caller). */
#include <dlfcn.h>
#include <string.h>

#include "tracer.h"

#define STACKS_MAX (1u << 16) /* a power of two */
#define LIBUNWIND "libunwind.so.8"

struct stack_entry {
	_Atomic uint64_t hash; /* 0: empty */
	uint32_t id;
	uint32_t n;
	uint64_t frames[TRACER_STACK_MAX];
};

static int (*backtrace_fn)(void **buffer, int size);
static struct stack_entry *table;
static uint32_t ids; /* under lock */
static atomic_flag lock = ATOMIC_FLAG_INIT;

int tracer_stack_init(void)
{
	void *h;

	if (tracer_config.stack <= 1)
		return 0;
	if (!(h = dlopen(LIBUNWIND, RTLD_NOW | RTLD_LOCAL)) ||
	    !(*(void **)&backtrace_fn = dlsym(h, "unw_backtrace")))
		return -1;
	table = tracer_pages(STACKS_MAX * sizeof(struct stack_entry));
	return table ? 0 : -1;
}

static uint64_t hash_of(const uint64_t *f, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < n; i++)
		h = (h ^ f[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static struct stack_entry *find(uint64_t h, const uint64_t *f, unsigned n, bool *ret_empty)
{
	for (uint32_t i = (uint32_t)h;; i++) {
		struct stack_entry *e = &table[i & (STACKS_MAX - 1)];
		uint64_t eh = atomic_load_explicit(&e->hash, memory_order_acquire);
		if (eh == 0) {
			*ret_empty = true;
			return e;
		}
		if (eh == h && e->n == n && memcmp(e->frames, f, n * sizeof(*f)) == 0) {
			*ret_empty = false;
			return e;
		}
	}
}

/* Out of line: its frames' buffers are a large frame that every traced
 * event would set up, with --stack 1 too. */
__attribute__((noinline)) uint32_t tracer_stack_id(uint64_t caller)
{
	void *raw[TRACER_STACK_MAX + 16];
	uint64_t f[TRACER_STACK_MAX];
	unsigned n = 0, want = tracer_config.stack;
	int got, start = -1;
	struct stack_entry *e;
	bool empty;

	if (!table)
		return 0;
	got = backtrace_fn(raw, (int)(want + 16));
	/* the frames start at the caller: the tracer's own are above it */
	for (int i = 0; i < got && start < 0; i++)
		if ((uint64_t)raw[i] == caller)
			start = i;
	if (start < 0)
		return 0;
	for (int i = start; i < got && n < want; i++)
		f[n++] = (uint64_t)raw[i];
	uint64_t h = hash_of(f, n);
	e = find(h, f, n, &empty);
	if (!empty)
		return e->id;
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
	e = find(h, f, n, &empty);
	if (empty && ids < STACKS_MAX / 4 * 3) {
		memcpy(e->frames, f, n * sizeof(*f));
		e->n = n;
		e->id = ++ids;
		atomic_store_explicit(&e->hash, h, memory_order_release);
	}
	uint32_t id = e->id; /* 0 in an empty slot of a full table */
	atomic_flag_clear_explicit(&lock, memory_order_release);
	return id;
}

void tracer_stack_write(void)
{
	if (!table)
		return;
	for (uint32_t i = 0; i < STACKS_MAX; i++) {
		struct stack_entry *e = &table[i];
		if (!atomic_load(&e->hash))
			continue;
		tracer_out_str("{\"seq\":");
		tracer_out_u64(tracer_writer_next_seq());
		tracer_out_str(",\"kind\":\"stack\",\"stack_id\":");
		tracer_out_u64(e->id);
		tracer_out_str(",\"frames\":[");
		for (uint32_t k = 0; k < e->n; k++) {
			if (k)
				tracer_out_str(",");
			tracer_out_u64(e->frames[k]);
		}
		tracer_out_str("]}\n");
	}
}
