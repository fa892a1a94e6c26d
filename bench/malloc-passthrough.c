/* The floor of any preloaded allocation tracer, for bench/tracer-bench.py:
 * a library that puts malloc and free in front of the C library's and
 * does nothing but call them.  What a program pays for this alone (its
 * calls reach the allocator through one more jump) no tracer that
 * interposes malloc can go under; the tracer's cost at the default
 * threshold is measured against it too.  The real functions are found
 * with dlsym(RTLD_NEXT); what dlsym allocates before they are known comes
 * from a static arena.  For bench/malloc-heavy, which calls malloc and
 * free only: realloc and calloc are the C library's, and would not take
 * a block of the arena. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))
#define ARENA_BYTES 65536u

void *malloc(size_t n);
void free(void *p);

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static _Alignas(16) char arena[ARENA_BYTES];
static size_t arena_used;

EXPORT void *malloc(size_t n)
{
	void *p;

	if (__builtin_expect(real_malloc != NULL, 1))
		return real_malloc(n);
	if (n > ARENA_BYTES - arena_used)
		return NULL;
	p = arena + arena_used;
	arena_used += (n + 15) & ~(size_t)15;
	return p;
}

EXPORT void free(void *p)
{
	if ((uintptr_t)p - (uintptr_t)arena < ARENA_BYTES)
		return;
	real_free(p);
}

__attribute__((constructor)) static void find_real(void)
{
	*(void **)&real_free = dlsym(RTLD_NEXT, "free");
	*(void **)&real_malloc = dlsym(RTLD_NEXT, "malloc");
}
