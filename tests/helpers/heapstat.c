/* The fragmented heap helper: a process whose allocator (mimalloc or
 * gperftools' tcmalloc, linked in) holds many blocks written and kept
 * among many more freed, and that prints the allocator's own figures of
 * its heap on request, so tests can compare what a census reads from
 * outside with what the allocator says from inside.
 *
 *   heapstat-mimalloc [--small=N] [--medium=N] [--large=N] [--huge=MiB]
 *                     [--keep=K] [--threads=N] [--busy]
 *   heapstat-tcmalloc (the same options)
 *
 * Each thread (the main one and --threads more, default 2) allocates
 * --small blocks (default 60000) of 16 to 1024 bytes, --medium (default
 * 500) of 8 to 64 KiB and --large (default 8) of 256 KiB to 2 MiB, every
 * byte of each block written (malloc_usable_size of it), keeps one block in --keep (default 4) in a volatile global
 * array and frees the others, in an order that leaves the kept ones spread
 * over the heap.  The main thread then holds one block of --huge MiB
 * (default 40), written.  With --busy the other threads go on allocating
 * and freeing blocks of those sizes until the process ends (their own
 * figures are then not printed: they move).
 *
 * When all is held it prints one line of JSON and flushes it:
 *   {"pid": N, "allocator": "mimalloc", "stats": {...}}
 * and each line read from standard input prints another (the figures of
 * that moment).  The stats are the allocator's own:
 *   mimalloc  "in_use" and "committed": the sums over every thread's heap
 *             of the blocks in use (used x block size) and of the blocks
 *             carved (capacity x block size), as mi_heap_visit_blocks
 *             reports each page, each thread visiting its own heap; and
 *             "process_commit", "process_rss" from mi_process_info;
 *   tcmalloc  MallocExtension's numeric properties: "allocated"
 *             (generic.current_allocated_bytes), "heap_size"
 *             (generic.heap_size), "pageheap_free"
 *             (tcmalloc.pageheap_free_bytes), "pageheap_unmapped"
 *             (tcmalloc.pageheap_unmapped_bytes), "central_free",
 *             "transfer_free", "thread_free" (the caches' free bytes).
 * It exits when its standard input closes or on SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(HEAPSTAT_MIMALLOC)
#include <mimalloc.h>
#define ALLOCATOR "mimalloc"
#elif defined(HEAPSTAT_TCMALLOC)
#include <gperftools/malloc_extension_c.h>
#define ALLOCATOR "tcmalloc"
#else
#error "build with -DHEAPSTAT_MIMALLOC or -DHEAPSTAT_TCMALLOC"
#endif

#define MAX_THREADS 16
#define KiB ((size_t)1024)
#define MiB (KiB * KiB)

struct options {
	size_t small, medium, large, huge_mib, keep, threads;
	bool busy;
};

static struct options opt = { .small = 60000, .medium = 500, .large = 8, .huge_mib = 40, .keep = 4, .threads = 2 };

/* What keeps the kept blocks reachable: the compiler cannot drop the
 * stores, and nothing is freed behind the figures' back. */
static void *volatile *volatile kept[MAX_THREADS + 1];
static void *volatile huge;

static void die(const char *what)
{
	fprintf(stderr, "heapstat: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A small, fixed pseudo-random sequence per thread (xorshift). */
static size_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (size_t)*s;
}

static size_t size_between(uint64_t *s, size_t lo, size_t hi)
{
	return lo + next_random(s) % (hi - lo + 1);
}

/* Allocates every block of thread index, keeps one in opt.keep.  The
 * freed ones go after all are allocated, so the kept ones stay spread
 * over the pages (a heap the allocator cannot give back). */
static void fill(size_t index)
{
	size_t n = opt.small + opt.medium + opt.large, k = 0;
	void **all = calloc(n ? n : 1, sizeof(void *));
	void *volatile *mine = calloc(n / opt.keep + 1, sizeof(void *));
	uint64_t seed = 0x9e3779b97f4a7c15ull * (index + 1);
	if (!all || !mine)
		die("calloc");
	for (size_t i = 0; i < n; i++) {
		size_t len = i < opt.small		 ? size_between(&seed, 16, 1024)
			     : i < opt.small + opt.medium ? size_between(&seed, 8 * KiB, 64 * KiB)
							  : size_between(&seed, 256 * KiB, 2 * MiB);
		all[i] = malloc(len);
		if (!all[i])
			die("malloc");
		/* the whole block the allocator handed out, not only what was
		 * asked for: its figures count blocks, a census private pages */
		memset(all[i], (int)(i & 0xff), malloc_usable_size(all[i]));
	}
	for (size_t i = 0; i < n; i++) {
		if (i % opt.keep == 0)
			mine[k++] = all[i];
		else
			free(all[i]);
	}
	kept[index] = mine;
	free(all);
}

/* ------------------------------------------------------------ figures */

struct figures {
	uint64_t in_use, committed;
};

#if defined(HEAPSTAT_MIMALLOC)
static bool visit(const mi_heap_t *heap, const mi_heap_area_t *area, void *block, size_t block_size, void *arg)
{
	(void)heap;
	(void)block;
	(void)block_size;
	struct figures *f = arg;
	if (area) {
		f->in_use += (uint64_t)area->used * area->full_block_size;
		f->committed += area->committed;
	}
	return true;
}

/* The calling thread's heap, as mimalloc sees it. */
static struct figures own_figures(void)
{
	struct figures f = { 0 };
	mi_heap_visit_blocks(mi_heap_get_default(), false, visit, &f);
	return f;
}
#else
static struct figures own_figures(void)
{
	return (struct figures){ 0 };
}
#endif

/* Each quiet thread reports its own heap's figures when asked: a
 * generation to answer, their sum, and how many answered. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER, answered = PTHREAD_COND_INITIALIZER;
static unsigned generation, answers;
static struct figures sum;
static atomic_bool stopping;

static void *quiet_thread(void *arg)
{
	unsigned seen = 0;
	fill((size_t)(uintptr_t)arg);
	pthread_mutex_lock(&lock);
	answers++;
	pthread_cond_signal(&answered);
	for (;;) {
		while (generation == seen)
			pthread_cond_wait(&asked, &lock);
		seen = generation;
		struct figures f = own_figures();
		sum.in_use += f.in_use;
		sum.committed += f.committed;
		answers++;
		pthread_cond_signal(&answered);
	}
	return NULL;
}

static void *busy_thread(void *arg)
{
	uint64_t seed = (uintptr_t)arg * 7919 + 1;
	void *slots[4096] = { 0 };
	fill((size_t)(uintptr_t)arg);
	pthread_mutex_lock(&lock);
	answers++;
	pthread_cond_signal(&answered);
	pthread_mutex_unlock(&lock);
	while (!atomic_load(&stopping)) {
		size_t i = next_random(&seed) % 4096, r = next_random(&seed) % 100;
		free(slots[i]);
		size_t len = r < 90 ? size_between(&seed, 16, 1024)
				    : r < 99 ? size_between(&seed, 8 * KiB, 64 * KiB) : size_between(&seed, 256 * KiB, MiB);
		slots[i] = malloc(len);
		if (slots[i])
			memset(slots[i], 1, len);
	}
	return NULL;
}

static void print_stats(void)
{
	printf("{\"pid\": %d, \"allocator\": \"%s\", \"stats\": {", (int)getpid(), ALLOCATOR);
#if defined(HEAPSTAT_MIMALLOC)
	size_t rss = 0, commit = 0;
	pthread_mutex_lock(&lock);
	sum = own_figures();
	if (!opt.busy) {
		answers = 0;
		generation++;
		pthread_cond_broadcast(&asked);
		while (answers < opt.threads)
			pthread_cond_wait(&answered, &lock);
	}
	struct figures f = sum;
	pthread_mutex_unlock(&lock);
	mi_process_info(NULL, NULL, NULL, &rss, NULL, &commit, NULL, NULL);
	printf("\"in_use\": %llu, \"committed\": %llu, \"process_commit\": %zu, \"process_rss\": %zu, \"version\": %d",
	       (unsigned long long)f.in_use, (unsigned long long)f.committed, commit, rss, mi_version());
#else
	static const char *const props[][2] = {
		{ "allocated", "generic.current_allocated_bytes" },
		{ "heap_size", "generic.heap_size" },
		{ "pageheap_free", "tcmalloc.pageheap_free_bytes" },
		{ "pageheap_unmapped", "tcmalloc.pageheap_unmapped_bytes" },
		{ "central_free", "tcmalloc.central_cache_free_bytes" },
		{ "transfer_free", "tcmalloc.transfer_cache_free_bytes" },
		{ "thread_free", "tcmalloc.thread_cache_free_bytes" },
	};
	for (size_t i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
		size_t v = 0;
		MallocExtension_GetNumericProperty(props[i][1], &v);
		printf("%s\"%s\": %zu", i ? ", " : "", props[i][0], v);
	}
#endif
	printf("}}\n");
	fflush(stdout);
}

static size_t parse_count(const char *s, const char *what, size_t max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "heapstat: bad %s: %s\n", what, s);
		exit(2);
	}
	return (size_t)v;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "small", required_argument, NULL, 's' }, { "medium", required_argument, NULL, 'm' },
		{ "large", required_argument, NULL, 'l' }, { "huge", required_argument, NULL, 'H' },
		{ "keep", required_argument, NULL, 'k' },  { "threads", required_argument, NULL, 't' },
		{ "busy", no_argument, NULL, 'b' },	   { NULL, 0, NULL, 0 },
	};
	pthread_t t;
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 's': opt.small = parse_count(optarg, "--small", 10000000); break;
		case 'm': opt.medium = parse_count(optarg, "--medium", 1000000); break;
		case 'l': opt.large = parse_count(optarg, "--large", 10000); break;
		case 'H': opt.huge_mib = parse_count(optarg, "--huge", 4096); break;
		case 'k': opt.keep = parse_count(optarg, "--keep", 1000000); break;
		case 't': opt.threads = parse_count(optarg, "--threads", MAX_THREADS); break;
		case 'b': opt.busy = true; break;
		default:
			fprintf(stderr, "usage: heapstat [--small=N] [--medium=N] [--large=N] [--huge=MiB] [--keep=K] "
					"[--threads=N] [--busy]\n");
			return 2;
		}
	}
	if (optind < argc || opt.keep == 0) {
		fprintf(stderr, "heapstat: unexpected arguments\n");
		return 2;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	fill(0);
	if (opt.huge_mib) {
		huge = malloc(opt.huge_mib * MiB);
		if (!huge)
			die("malloc huge");
		memset((void *)huge, 0x5a, opt.huge_mib * MiB);
	}
	for (size_t i = 1; i <= opt.threads; i++) {
		errno = pthread_create(&t, NULL, opt.busy ? busy_thread : quiet_thread, (void *)(uintptr_t)i);
		if (errno)
			die("pthread_create");
	}
	pthread_mutex_lock(&lock);
	while (answers < opt.threads)
		pthread_cond_wait(&answered, &lock);
	pthread_mutex_unlock(&lock);

	sigaction(SIGTERM, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	print_stats();

	char line[64];
	while (!stop && fgets(line, sizeof(line), stdin))
		print_stats();
	atomic_store(&stopping, true);
	return 0;
}
