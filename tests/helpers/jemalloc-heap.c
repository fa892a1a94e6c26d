/* The jemalloc heap helper: a process whose malloc is jemalloc, with a
 * fragmented heap of known shape, that tells jemalloc's own statistics on
 * request, for the tests that hold the heap walk's figures against them.
 *
 *   jemalloc-heap [--mib=N] [--keep=K] [--threads=N] [--busy=N]
 *
 * Built twice: linked with Debian's libjemalloc.so (jemalloc-heap) and
 * with its libjemalloc.a (jemalloc-heap-static: jemalloc inside the
 * program, as redis builds it).
 *
 * It allocates about N MiB (default 64) in blocks of 13 sizes from
 * 16 bytes to 1.5 MiB (small regions of slabs, large extents), spread
 * over --threads threads (default 2, each with its own arena and thread
 * cache), writes every byte of their usable size (what stats.allocated
 * counts), and frees all but one block in K (default 4):
 * slabs with free regions, free extents jemalloc keeps dirty.  What stays
 * is reachable from a volatile global.  With --busy, that many threads
 * more allocate, write and free blocks without pause, so that the heap
 * moves while it is read.
 *
 * It prints {"pid": N, "ready": true} when the heap is built, then for
 * each line read from standard input:
 *   stats  one line of JSON: jemalloc's statistics (mallctl, after
 *          "epoch"): allocated, active, mapped, metadata, resident,
 *          retained (stats.*), pdirty and pmuzzy (pages, all arenas), page
 *          (arenas.page) and version
 * It exits when its standard input closes or on SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 16

static const size_t sizes[] = { 16, 48, 96, 200, 512, 1000, 3000, 5000, 9000, 20000, 70000, 300000, 1500000 };

static void *volatile *volatile blocks[MAX_THREADS];
static size_t per_thread, keep = 4;
static atomic_bool stopping;
static pthread_barrier_t filled;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

static void die(const char *what)
{
	fprintf(stderr, "jemalloc-heap: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Allocates per_thread bytes in blocks of every size in turn, writes
 * them, then frees all but one in keep; then stays, with what its
 * thread cache holds. */
static void *fill(void *arg)
{
	size_t t = (size_t)(uintptr_t)arg, n = 0, bytes = 0, max = 0;

	/* the array of pointers written whole too: every byte it allocates
	 * is memory the process uses */
	for (size_t i = 0; bytes < per_thread; i++, max++)
		bytes += sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
	void *volatile *mine = malloc(max * sizeof(void *));
	if (!mine)
		die("malloc");
	memset((void *)mine, 0, max * sizeof(void *));
	blocks[t] = mine;
	for (size_t i = 0; n < max; i++) {
		size_t size = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		char *p = malloc(size);
		if (!p)
			die("malloc");
		/* all its usable size, which jemalloc counts allocated */
		memset(p, 0x5a, malloc_usable_size(p));
		mine[n++] = p;
	}
	for (size_t i = 0; i < n; i++)
		if (i % keep) {
			free(mine[i]);
			mine[i] = NULL;
		}
	pthread_barrier_wait(&filled);
	pthread_mutex_lock(&idle_lock);
	for (;;)
		pthread_cond_wait(&idle_cond, &idle_lock);
	return NULL;
}

/* Allocates and frees without pause until told to stop. */
static void *churn(void *arg)
{
	void *slots[256] = { 0 };
	uint64_t x = (uint64_t)(uintptr_t)arg * 2654435761u + 1;

	while (!atomic_load_explicit(&stopping, memory_order_relaxed)) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t k = x % 256, size = sizes[(x >> 8) % 10];
		free(slots[k]);
		slots[k] = malloc(size);
		if (slots[k])
			memset(slots[k], (int)k, size);
	}
	for (size_t k = 0; k < 256; k++)
		free(slots[k]);
	return NULL;
}

static size_t ctl_size(const char *name)
{
	size_t v = 0, len = sizeof(v);
	if (mallctl(name, &v, &len, NULL, 0) != 0)
		return (size_t)-1;
	return v;
}

static void print_stats(bool print)
{
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);
	const char *version = "";
	size_t vlen = sizeof(version);

	mallctl("epoch", &epoch, &len, &epoch, len);
	mallctl("version", &version, &vlen, NULL, 0);
	if (!print) {
		/* what reading them needs, brought in once */
		ctl_size("stats.allocated");
		ctl_size("stats.arenas.4096.pdirty");
		return;
	}
	printf("{\"allocated\": %zu, \"active\": %zu, \"mapped\": %zu, \"metadata\": %zu, \"resident\": %zu, "
	       "\"retained\": %zu, \"pdirty\": %zu, \"pmuzzy\": %zu, \"page\": %zu, \"version\": \"%s\"}\n",
	       ctl_size("stats.allocated"), ctl_size("stats.active"), ctl_size("stats.mapped"),
	       ctl_size("stats.metadata"), ctl_size("stats.resident"), ctl_size("stats.retained"),
	       ctl_size("stats.arenas.4096.pdirty"), ctl_size("stats.arenas.4096.pmuzzy"), ctl_size("arenas.page"),
	       version);
	fflush(stdout);
}

static size_t parse_count(const char *s, const char *what, size_t max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "jemalloc-heap: bad %s: %s\n", what, s);
		exit(2);
	}
	return (size_t)v;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "mib", required_argument, NULL, 'm' },  { "keep", required_argument, NULL, 'k' },
		{ "threads", required_argument, NULL, 't' }, { "busy", required_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	size_t mib = 64, nthreads = 2, nbusy = 0;
	pthread_t busy[MAX_THREADS];
	sigset_t block;
	char line[64];
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 'm': mib = parse_count(optarg, "--mib", 65536); break;
		case 'k': keep = parse_count(optarg, "--keep", 1000000); break;
		case 't': nthreads = parse_count(optarg, "--threads", MAX_THREADS); break;
		case 'b': nbusy = parse_count(optarg, "--busy", MAX_THREADS); break;
		default:
			fprintf(stderr, "usage: jemalloc-heap [--mib=N] [--keep=K] [--threads=N] [--busy=N]\n");
			return 2;
		}
	}
	if (keep == 0 || nthreads == 0) {
		fprintf(stderr, "jemalloc-heap: --keep and --threads must be at least 1\n");
		return 2;
	}
	/* SIGTERM ends it as a closed standard input does: the threads must
	 * not take it */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	per_thread = mib * 1024 * 1024 / nthreads;
	pthread_barrier_init(&filled, NULL, (unsigned)nthreads + 1);
	for (size_t t = 0; t < nthreads; t++) {
		pthread_t th;
		if ((errno = pthread_create(&th, NULL, fill, (void *)(uintptr_t)t)))
			die("pthread_create");
	}
	pthread_barrier_wait(&filled);
	for (size_t t = 0; t < nbusy; t++)
		if ((errno = pthread_create(&busy[t], NULL, churn, (void *)(uintptr_t)(t + 1))))
			die("pthread_create");
	print_stats(false);
	printf("{\"pid\": %d, \"ready\": true}\n", (int)getpid());
	fflush(stdout);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL);
	while (fgets(line, sizeof(line), stdin))
		if (strncmp(line, "stats", 5) == 0)
			print_stats(true);
	atomic_store(&stopping, true);
	for (size_t t = 0; t < nbusy; t++)
		pthread_join(busy[t], NULL);
	return 0;
}
