/* The words on in use and free memory (heap-words.h): one table of the
 * allocators a heap walk reads, and the sentences built from it. */
#include "heap-words.h"

#include <inttypes.h>
#include <string.h>

#include "census.h"
#include "macro.h"
#include "util.h"

/* Each allocator with the words its walk's sentence names it by (any of
 * them, case aside).  give_back says what releases the free memory the
 * allocator keeps: each is the allocator's own documented call or
 * setting. */
static const struct {
	const char *words[3];
	struct heap_allocator a;
} allocators[] = {
	{ { "glibc" },
	  { "glibc", "", " free inside glibc's arenas", "malloc_trim(0), or MALLOC_ARENA_MAX / M_TRIM_THRESHOLD" } },
	{ { "pymalloc", "cpython" },
	  { "pymalloc", "pymalloc keeps ", " of free blocks",
	    "gc.collect() and fewer long-lived small objects among short-lived ones (an arena goes back only once "
	    "every block in it is free), or PYTHONMALLOC=malloc" } },
	{ { "jemalloc" },
	  { "jemalloc", "", " free in jemalloc's extents (dirty pages included)",
	    "mallctl(\"arena.<i>.purge\"), or MALLOC_CONF=dirty_decay_ms:...,muzzy_decay_ms:..." } },
	{ { "mimalloc" },
	  { "mimalloc", "", " free in mimalloc's pages", "mi_collect(true), or MIMALLOC_PURGE_DELAY" } },
	{ { "tcmalloc", "gperftools" },
	  { "tcmalloc", "", " free in tcmalloc's caches and page heap",
	    "MallocExtension::ReleaseFreeMemory(), or TCMALLOC_RELEASE_RATE" } },
	{ { "hsperfdata", "jvm", "java" },
	  { "the JVM", "", " of the Java heap committed and not used",
	    "a smaller -Xmx or -XX:MaxHeapFreeRatio, or G1's periodic collection (-XX:G1PeriodicGCInterval)" } },
};

static const struct heap_allocator unnamed = { "the allocator", "", " free, kept by the allocator", NULL };

/* Where word first appears in s, case aside; NULL when it does not. */
static const char *find_word(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return s;
	return NULL;
}

struct heap_point heap_words_point(const struct census *c, enum class_id k)
{
	const struct census_totals *t = &c->classes[k];
	const uint32_t bits = CENSUS_COUNTER_BIT(in_use) | CENSUS_COUNTER_BIT(free_kept);
	return (struct heap_point){
		.time_ms = c->taken_at_ms,
		.private = t->private,
		.known = !(c->unknown_classes[k] & bits),
		.in_use = t->in_use,
		.free = t->free_kept,
		.unknown = t->unknown,
		.returnable = t->returnable,
	};
}

const struct heap_allocator *heap_words_allocator(enum class_id cls, const char *how)
{
	const struct heap_allocator *best = NULL;
	const char *at = NULL;

	/* the allocator the sentence names first */
	for (size_t i = 0; how && i < ELEMENTSOF(allocators); i++)
		for (size_t j = 0; j < ELEMENTSOF(allocators[i].words) && allocators[i].words[j]; j++) {
			const char *p = find_word(how, allocators[i].words[j]);
			if (p && (!at || p < at)) {
				at = p;
				best = &allocators[i].a;
			}
		}
	if (best)
		return best;
	if (cls == CLASS_PYTHON)
		return &allocators[1].a;
	return &unnamed;
}

/* "<free> free inside glibc's arenas, <returnable> of it returnable:
 * <what gives it back>" */
static void kept(FILE *f, const struct heap_allocator *a, uint64_t free_kept, uint64_t returnable)
{
	char x[FORMAT_BYTES_MAX], y[FORMAT_BYTES_MAX];

	fprintf(f, "%s%s%s", a->kept_before, format_bytes(x, free_kept), a->kept_after);
	if (free_kept == 0)
		return;
	if (returnable == 0)
		fputs(", none of it in whole pages the allocator could give back (free blocks among blocks in use)", f);
	else if (a->give_back)
		fprintf(f, ", %s of it returnable: %s", format_bytes(y, returnable), a->give_back);
	else
		fprintf(f, ", %s of it returnable (whole pages the allocator could give back)", format_bytes(y, returnable));
}

void heap_words_class(FILE *f, enum class_id cls, const struct census_totals *t, const char *how, bool md)
{
	const struct heap_allocator *a = heap_words_allocator(cls, how);
	char x[FORMAT_BYTES_MAX];

	fprintf(f, "%s%s: ", md ? "- " : "  ", class_key(cls));
	if (t->in_use == 0 && t->free_kept == 0 && t->unknown > 0) {
		/* the walk told nothing: its sentence says why */
		fprintf(f, "%s unknown%s%s.\n", format_bytes(x, t->unknown), how ? ": " : "", how ? how : "");
		return;
	}
	fprintf(f, "%s in use, ", format_bytes(x, t->in_use));
	kept(f, a, t->free_kept, t->returnable);
	if (t->overhead)
		fprintf(f, "; %s %s's own structures", format_bytes(x, t->overhead), a->name);
	if (t->unknown)
		fprintf(f, "; %s unknown", format_bytes(x, t->unknown));
	if (how && how[0])
		fprintf(f, " (%s)", how);
	fputs(".\n", f);
}

void heap_words_growth(FILE *f, enum class_id cls, enum heap_growth g, const struct heap_point *a,
		       const struct heap_point *b, const char *how)
{
	const struct heap_allocator *al = heap_words_allocator(cls, how);
	char x[FORMAT_BYTES_MAX], y[FORMAT_BYTES_MAX], z[FORMAT_BYTES_MAX];
	int64_t used = (int64_t)(b->in_use - a->in_use), free_change = (int64_t)(b->free - a->free);

	if (g == HEAP_GROWTH_NONE)
		return;
	fprintf(f, "grew by %s", format_bytes(x, b->private - a->private));
	if (g != HEAP_GROWTH_UNKNOWN || (a->known && b->known))
		fprintf(f, " (in use %s, free %s)", format_bytes_delta(y, used), format_bytes_delta(z, free_change));
	switch (g) {
	case HEAP_GROWTH_HELD: fputs(": held by the program, a leak candidate", f); break;
	case HEAP_GROWTH_KEPT:
		fprintf(f, ": kept by %s (fragmentation or caching)", al->name);
		if (b->returnable) {
			fprintf(f, ", %s of its free memory returnable", format_bytes(x, b->returnable));
			if (al->give_back)
				fprintf(f, ": %s", al->give_back);
		}
		break;
	case HEAP_GROWTH_BOTH:
		fprintf(f, ": both held by the program and kept by %s, %s of the free memory returnable", al->name,
			format_bytes(x, b->returnable));
		break;
	case HEAP_GROWTH_OVERHEAD: fprintf(f, ": neither in use nor free, %s's own structures", al->name); break;
	case HEAP_GROWTH_UNKNOWN:
		if (!a->known || !b->known)
			fputs(": in use and free not read at both", f);
		else
			fprintf(f, ": most of it unknown%s%s", how ? ": " : "", how ? how : "");
		break;
	default: break;
	}
}
