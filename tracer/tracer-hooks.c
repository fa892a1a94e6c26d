/* The interposed functions: malloc and its family on the logical layer,
 * mmap, munmap and mremap on the backing layer.
 *
 * The real functions are found with dlsym(RTLD_NEXT), so the tracer sits
 * in front of whichever malloc the program uses (glibc's, or jemalloc's
 * linked in).  dlsym itself may call calloc or malloc before they are
 * known: those calls are served from a static arena, never freed.
 *
 * Which allocations are traced one by one is decided by the block's usable
 * size (malloc_usable_size) against --min-bytes, at the allocation and
 * again at the free, so both ends of a block agree.  A free asks for the
 * usable size only when a table of counts says a traced block may be at
 * that address (block_count): most frees are of small blocks, and the
 * call was the most of a small pair's cost.  A free is written before the
 * real free and an unmap before the real munmap: after them another thread may get the same address, and
 * its event must come later in the sequence.
 *
 * The C library's malloc calls its own mmap internally, not this one: the
 * backing layer shows the program's own mappings (and those of libraries
 * that call mmap, such as other allocators). */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tracer.h"

#define ARENA_BYTES (64u * 1024u)

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static size_t (*real_usable)(void *);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);

static _Alignas(64) char arena[ARENA_BYTES];
static _Atomic size_t arena_used;
static _Atomic int resolved;

static inline bool in_arena(const void *p)
{
	return (uintptr_t)p - (uintptr_t)arena < ARENA_BYTES;
}

/* A block of the arena: its size in the 16 bytes before it. */
static void *arena_alloc(size_t n)
{
	size_t need = ((n + 15) & ~(size_t)15) + 16;
	size_t at = atomic_fetch_add(&arena_used, need);

	if (n > ARENA_BYTES || at + need > ARENA_BYTES)
		return NULL;
	*(size_t *)(arena + at) = n;
	return arena + at + 16;
}

#define RESOLVE(var, name) *(void **)&var = dlsym(RTLD_NEXT, name)

static void resolve(void)
{
	int zero = 0;

	if (!atomic_compare_exchange_strong(&resolved, &zero, 1))
		return; /* found already, or being found: the arena serves */
	RESOLVE(real_calloc, "calloc");
	RESOLVE(real_free, "free");
	RESOLVE(real_realloc, "realloc");
	RESOLVE(real_posix_memalign, "posix_memalign");
	RESOLVE(real_aligned_alloc, "aligned_alloc");
	RESOLVE(real_memalign, "memalign");
	RESOLVE(real_valloc, "valloc");
	RESOLVE(real_pvalloc, "pvalloc");
	RESOLVE(real_usable, "malloc_usable_size");
	RESOLVE(real_mmap, "mmap");
	RESOLVE(real_munmap, "munmap");
	RESOLVE(real_mremap, "mremap");
	/* last: a malloc that sees it may use all the others */
	RESOLVE(real_malloc, "malloc");
}

/* The requests below which a block is small for certain (half the
 * threshold, see surely_small) while the session records and the real
 * malloc is known; 0 otherwise.  One word the fast path of malloc reads
 * for the state, the threshold and the bootstrap at once. */
static _Atomic size_t small_below;

void tracer_hooks_record(bool on)
{
	size_t below = on && real_malloc ? tracer_config.min_bytes / 2 : 0;
	atomic_store_explicit(&small_below, below, memory_order_relaxed);
}

static inline bool tracing(void)
{
	return !tracer_self.busy && atomic_load_explicit(&tracer_state, memory_order_relaxed) == TRACER_ON;
}

/* Counts of the traced blocks live that start at each 16-byte granule
 * (the smallest alignment of a block), the granules taken modulo the
 * table's size, so that the free of a block no traced block starts at is
 * known untraced without asking the allocator.  A block's count goes up
 * before it is handed to the program and down at its traced free, so it
 * is not zero while the block lives, whichever thread frees it (the
 * program orders its malloc before its free).  A count that reaches 255
 * stays there: then the usable size decides, as for any count but zero.
 * Counts by page instead sent every free of a small block that shares a
 * page with a traced block's start to the usable size (a heap carves a
 * large block from its top, beside the small ones before it, again at the
 * same place after each free: 2 % of a run at the default threshold went
 * there); by granule only blocks 1 MiB apart share a count.  A heap's
 * neighbouring blocks still have neighbouring counts: its frees read a
 * few cache lines of the table. */
#define BLOCK_COUNTS (1u << 16)
static _Atomic uint8_t block_count[BLOCK_COUNTS];

static inline _Atomic uint8_t *block_slot(const void *p)
{
	return &block_count[((uint64_t)p >> 4) & (BLOCK_COUNTS - 1)];
}

static void block_traced(const void *p)
{
	_Atomic uint8_t *c = block_slot(p);
	uint8_t v = atomic_load_explicit(c, memory_order_relaxed);

	while (v != UINT8_MAX && !atomic_compare_exchange_weak(c, &v, (uint8_t)(v + 1)))
		;
}

static void block_untraced(const void *p)
{
	_Atomic uint8_t *c = block_slot(p);
	uint8_t v = atomic_load_explicit(c, memory_order_relaxed);

	while (v != UINT8_MAX && v != 0 && !atomic_compare_exchange_weak(c, &v, (uint8_t)(v - 1)))
		;
}

/* Whether a block just given out is traced: its usable size says. */
static inline bool new_is_traced(void *p)
{
	return tracer_config.min_bytes == 0 || real_usable(p) >= tracer_config.min_bytes;
}

/* Whether a block the program gives back was traced: no count at its granule
 * says no for certain, else its usable size says, as it did at the start. */
static inline bool is_traced(void *p)
{
	if (tracer_config.min_bytes && atomic_load_explicit(block_slot(p), memory_order_relaxed) == 0)
		return false;
	return new_is_traced(p);
}

static void emit(enum tracer_kind kind, uint64_t address, uint64_t old_address, uint64_t len, uint64_t site,
		 bool failed)
{
	struct tracer_record r = {
		.kind = (uint8_t)kind,
		.address = address,
		.old_address = old_address,
		.len = len,
		.site = site,
		.flags = failed ? TRACER_FAILED : 0,
	};
	tracer_scope_follow_env();
	r.scope = tracer_scope_current();
	if (tracer_config.stack > 1 && site)
		r.stack = tracer_stack_id(site);
	tracer_ring_emit(&r);
}

/* A traced block given out (p, moved from old when not NULL), and one
 * taken back, with the counts of traced blocks kept. */
static void emit_alloc(enum tracer_kind kind, void *p, void *old, uint64_t n, void *site, bool failed)
{
	if (p && tracer_config.min_bytes)
		block_traced(p);
	if (old && tracer_config.min_bytes)
		block_untraced(old);
	emit(kind, (uint64_t)p, (uint64_t)old, n, (uint64_t)site, failed);
}

static void emit_free(void *p, void *site)
{
	if (tracer_config.min_bytes)
		block_untraced(p);
	emit(TRACER_FREE, (uint64_t)p, 0, 0, (uint64_t)site, false);
}

/* Inline: it is most of what a small block costs at the default threshold. */
static inline __attribute__((always_inline)) void small(uint64_t len, void *site)
{
	struct tracer_small *t = tracer_ring_my_small();
	if (t)
		tracer_small_count(t, (uint64_t)site, tracer_scope_current(), len);
}

/* Whether a block asked for with n bytes is below the threshold for
 * certain, without asking the allocator: its usable size is at most a
 * size class above n (a quarter more in jemalloc's classes, 16 bytes in
 * glibc's), so under half the threshold is small whatever the allocator. */
static inline bool surely_small(size_t n)
{
	return n < tracer_config.min_bytes / 2;
}

/* An allocation of n bytes at p (NULL: it failed), called from site. */
static void note_alloc(void *p, size_t n, void *site)
{
	tracer_guard();
	if (p && (surely_small(n) || !new_is_traced(p)))
		small(n, site);
	else if (p || tracer_config.min_bytes <= n)
		emit_alloc(TRACER_ALLOC, p, NULL, n, site, !p);
	tracer_unguard();
}

static void note_free(void *p, void *site)
{
	tracer_guard();
	if (is_traced(p))
		emit_free(p, site);
	tracer_unguard();
}

/* Everything but a small block of the thread's last site and scope. */
static __attribute__((noinline)) void *malloc_slow(size_t n, void *site)
{
	void *p;

	if (!real_malloc) {
		resolve();
		if (!real_malloc)
			return arena_alloc(n);
	}
	p = real_malloc(n);
	if (tracing()) {
		/* a small block's count takes no call that may allocate, once
		 * the thread has its table: no guard needed */
		if (p && surely_small(n) && tracer_ring_has_small())
			small(n, site);
		else
			note_alloc(p, n, site);
	}
	return p;
}

/* Most calls are a small block of the thread's last site and scope (a
 * loop allocates from one site): counted before the real call, which is
 * then the function's last, a jump with no frame of its own (the frame
 * and the call back were a tenth of the cost of a traced small pair).  A
 * small request the allocator then refuses (the heap is out of memory) is
 * counted as asked.  One word (small_below) says whether the session
 * records, the request is surely small and the real malloc is known. */
TRACER_EXPORT __attribute__((optimize("omit-frame-pointer", "no-tree-slp-vectorize"))) void *malloc(size_t n)
{
	void *site = __builtin_return_address(0);

	if (n < atomic_load_explicit(&small_below, memory_order_relaxed) &&
	    tracer_small_again((uint64_t)site, tracer_scope_current(), n))
		return real_malloc(n);
	return malloc_slow(n, site);
}

TRACER_EXPORT void *calloc(size_t count, size_t size)
{
	size_t n;
	void *p;

	if (!real_calloc) {
		resolve();
		if (!real_calloc) {
			if (__builtin_mul_overflow(count, size, &n))
				return NULL;
			return arena_alloc(n); /* static: zeroed already */
		}
	}
	p = real_calloc(count, size);
	if (tracing() && !__builtin_mul_overflow(count, size, &n))
		note_alloc(p, n, __builtin_return_address(0));
	return p;
}

TRACER_EXPORT void free(void *p)
{
	/* a granule no traced block starts at first: most frees end there,
	 * without the thread's guard or the state read (the free of NULL
	 * too, which the real free takes) */
	if (__builtin_expect(tracer_config.min_bytes && !atomic_load_explicit(block_slot(p), memory_order_relaxed) &&
			     !in_arena(p), 1)) {
		real_free(p);
		return;
	}
	if (!p || in_arena(p))
		return;
	if (tracing())
		note_free(p, __builtin_return_address(0));
	real_free(p);
}

TRACER_EXPORT void *realloc(void *p, size_t n)
{
	void *site = __builtin_return_address(0);
	bool old_traced;
	void *q;

	if (!real_realloc) {
		resolve();
		if (!real_realloc)
			return arena_alloc(n);
	}
	if (p && in_arena(p)) {
		/* out of the arena into the real allocator */
		size_t old = *(size_t *)((char *)p - 16);
		if (!(q = malloc(n)))
			return NULL;
		memcpy(q, p, old < n ? old : n);
		return q;
	}
	if (!p || !tracing())
		return p ? real_realloc(p, n) : malloc(n);
	tracer_guard();
	old_traced = is_traced(p);
	if (n == 0 && old_traced)
		emit_free(p, site);
	q = real_realloc(p, n);
	if (!q) {
		if (n && old_traced)
			emit(TRACER_RESIZE, (uint64_t)p, 0, n, (uint64_t)site, true);
	} else if (!new_is_traced(q)) {
		if (old_traced && n)
			emit_free(p, site);
		small(n, site);
	} else if (!old_traced) {
		emit_alloc(TRACER_ALLOC, q, NULL, n, site, false);
	} else if (q == p) {
		emit(TRACER_RESIZE, (uint64_t)q, 0, n, (uint64_t)site, false);
	} else {
		emit_alloc(TRACER_MOVE, q, p, n, site, false);
	}
	tracer_unguard();
	return q;
}

TRACER_EXPORT int posix_memalign(void **ret, size_t alignment, size_t n)
{
	int r;

	if (!real_posix_memalign)
		resolve();
	r = real_posix_memalign(ret, alignment, n);
	if (tracing())
		note_alloc(r == 0 ? *ret : NULL, n, __builtin_return_address(0));
	return r;
}

#define ALIGNED(name, real, params, args, n)                               \
	TRACER_EXPORT void *name params                                    \
	{                                                                  \
		void *p;                                                   \
		if (!real)                                                 \
			resolve();                                         \
		p = real args;                                             \
		if (tracing())                                             \
			note_alloc(p, n, __builtin_return_address(0));     \
		return p;                                                  \
	}

ALIGNED(aligned_alloc, real_aligned_alloc, (size_t alignment, size_t n), (alignment, n), n)
ALIGNED(memalign, real_memalign, (size_t alignment, size_t n), (alignment, n), n)
ALIGNED(valloc, real_valloc, (size_t n), (n), n)
ALIGNED(pvalloc, real_pvalloc, (size_t n), (n), n)

TRACER_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
{
	void *p;

	if (!real_mmap)
		resolve();
	p = real_mmap(addr, len, prot, flags, fd, offset);
	if (tracing()) {
		tracer_guard();
		emit(TRACER_MAP, p == MAP_FAILED ? 0 : (uint64_t)p, 0, len, (uint64_t)__builtin_return_address(0),
		     p == MAP_FAILED);
		tracer_unguard();
	}
	return p;
}

TRACER_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t offset)
	__attribute__((alias("mmap")));

TRACER_EXPORT int munmap(void *addr, size_t len)
{
	if (!real_munmap)
		resolve();
	if (tracing()) {
		tracer_guard();
		emit(TRACER_UNMAP, (uint64_t)addr, 0, len, (uint64_t)__builtin_return_address(0), false);
		tracer_unguard();
	}
	return real_munmap(addr, len);
}

/* A mremap is written as an unmap of the old range and a map of the new:
 * the analyzer keeps mapped ranges in its ledger, and its remap is an
 * allocation's (doc/trace-format.md#replay). */
TRACER_EXPORT void *mremap(void *old, size_t old_len, size_t len, int flags, ...)
{
	void *fixed = NULL, *p;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		fixed = va_arg(ap, void *);
		va_end(ap);
	}
	if (!real_mremap)
		resolve();
	p = real_mremap(old, old_len, len, flags, fixed);
	if (tracing()) {
		uint64_t site = (uint64_t)__builtin_return_address(0);
		tracer_guard();
		if (p == MAP_FAILED) {
			emit(TRACER_MAP, 0, 0, len, site, true);
		} else {
			emit(TRACER_UNMAP, (uint64_t)old, 0, old_len, site, false);
			emit(TRACER_MAP, (uint64_t)p, 0, len, site, false);
		}
		tracer_unguard();
	}
	return p;
}

__attribute__((constructor)) static void tracer_init(void)
{
	tracer_scope_init();
	resolve();
	tracer_session_start();
}

__attribute__((destructor)) static void tracer_fini(void)
{
	tracer_session_stop();
}
