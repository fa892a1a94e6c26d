/* The allocator helper: a process that holds heap blocks of known shapes,
 * so tests can check which allocator the evidence reader says owns each
 * anonymous region.
 *
 *   allocs [--sizes=MiB,MiB,...] [--merged=N] [--merged-size=MiB]
 *          [--aligned-size=MiB] [--threads=N] [--small=N]
 *
 * Linked as it is, malloc is glibc's; the same source linked with
 * -lmimalloc, -ltcmalloc_minimal or -ljemalloc gives the other allocators
 * (the "allocator" field says which library /proc/self/maps shows mapped).
 *
 * It holds, every byte written and every block reachable from a volatile
 * global array:
 *   "large"    one malloc per --sizes entry (default 1,2,3,8,24 MiB), above
 *              the mmap threshold, each followed by a one-page PROT_NONE
 *              "guard" mapping put just below its mapping (MAP_FIXED_NOREPLACE)
 *              so that, with glibc, each large block is a region of its own
 *              (a 256 KiB "spacer" block comes first, with a guard, to take
 *              the place next to older anonymous mappings);
 *   "merged"   --merged blocks (default 4) of --merged-size MiB (default 2)
 *              allocated back to back, no guards, so the kernel merges
 *              glibc's mappings into one region;
 *   "aligned64", "aligned4096"  posix_memalign blocks of --aligned-size MiB
 *              (default 4) at those alignments, each followed by a guard;
 *   "thread_small", "thread_medium"  per thread (--threads, default 3): many
 *              500-byte blocks (reported as one summary entry) and a 64 KiB
 *              block, which glibc serves from a non-main arena; the threads
 *              stay alive;
 *   "small"    --small blocks (default 20000) of 200 bytes from the main
 *              thread, the brk heap with glibc (one summary entry).
 *
 * When all is held it prints one line of JSON and flushes it:
 *   {"pid": N, "allocator": "glibc", "page": 4096, "blocks": [
 *     {"kind": "large", "addr": "0x...", "size": N}, ...,
 *     {"kind": "small", "addr": "0x...", "size": 200, "count": N,
 *      "lo": "0x...", "hi": "0x..."}, ...]}
 * where addr is the pointer the allocator returned, size the bytes asked
 * for, and for summary entries [lo, hi) covers every block of the group.
 * Then it reads commands, a line each, on its standard input, and answers
 * each with a line of JSON:
 *   "grow N"   N MiB more of 1 KiB blocks from the main thread (the brk heap
 *              with glibc), every byte written;
 *   "drop"     frees three in four of the blocks grown so far (the fourth
 *              keeps the free ones apart: glibc keeps them);
 *   "stats"    nothing more;
 * the answer: {"grown": bytes held of grown blocks, "mallinfo": {"uordblks":
 * N, "fordblks": N, "hblkhd": N}} (mallinfo null with another allocator).
 * It exits when its standard input closes or on SIGTERM. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MiB ((size_t)1024 * 1024)
#define MAX_BLOCKS 256
#define MAX_THREADS 32
#define MAX_SIZES 32

struct block {
	const char *kind;
	uintptr_t addr;
	size_t size;
	size_t count; /* > 0: a summary of count blocks of size bytes */
	uintptr_t lo, hi;
};

/* What keeps every block reachable: the compiler cannot drop the stores. */
static void *volatile held[MAX_BLOCKS];
static void *volatile *volatile held_small;   /* the --small pointers */
static void *volatile *volatile held_threads; /* the threads' small pointers */

static struct block blocks[MAX_BLOCKS];
static size_t nblocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static long page;

static void die(const char *what)
{
	fprintf(stderr, "allocs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void record(const char *kind, void *p, size_t size, size_t count, uintptr_t lo, uintptr_t hi)
{
	pthread_mutex_lock(&blocks_lock);
	if (nblocks == MAX_BLOCKS) {
		fprintf(stderr, "allocs: too many blocks\n");
		exit(1);
	}
	held[nblocks] = p;
	blocks[nblocks++] = (struct block){ kind, (uintptr_t)p, size, count, lo, hi };
	pthread_mutex_unlock(&blocks_lock);
}

static void *must(void *p, const char *what)
{
	if (!p)
		die(what);
	return p;
}

/* Write every byte, so every page is present. */
static void fill(void *p, size_t len, int byte)
{
	memset(p, byte, len);
}

static int is_glibc; /* guards only make sense for glibc's own mappings */

/* The start of the mapping that holds addr, from /proc/self/maps; 0 if none. */
static uintptr_t mapping_start(uintptr_t addr)
{
	char line[4096];
	uintptr_t found = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		die("/proc/self/maps");
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo <= addr && addr < hi)
			found = (uintptr_t)lo;
	}
	fclose(f);
	return found;
}

/* A one-page PROT_NONE mapping just below the mapping that holds p, so that
 * the next mapping (top-down, below it) cannot merge with that one.  With
 * glibc only: the other allocators carve blocks out of their own regions. */
static void guard(const void *p)
{
	if (!is_glibc)
		return;
	uintptr_t start = mapping_start((uintptr_t)p);
	if (start < (uintptr_t)page)
		return;
	void *want = (void *)(start - (uintptr_t)page);
	void *g = mmap(want, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (g == MAP_FAILED)
		return; /* something is there already: it separates as well */
	if (g != want) { /* a kernel that ignores MAP_FIXED_NOREPLACE */
		munmap(g, (size_t)page);
		return;
	}
	record("guard", g, (size_t)page, 0, 0, 0);
}

static void large(const size_t *sizes, size_t nsizes)
{
	if (is_glibc) {
		/* The first mapping may merge with an older anonymous mapping
		 * above it: let a spacer block take that place. */
		char *s = must(malloc(256 * 1024), "malloc spacer");
		fill(s, 256 * 1024, 0x77);
		record("spacer", s, 256 * 1024, 0, 0, 0);
		guard(s);
	}
	for (size_t i = 0; i < nsizes; i++) {
		size_t len = sizes[i] * MiB;
		char *p = must(malloc(len), "malloc large");
		fill(p, len, 0x11);
		record("large", p, len, 0, 0, 0);
		guard(p);
	}
}

static void merged(size_t count, size_t size_mib)
{
	size_t len = size_mib * MiB;
	char *p = NULL;
	for (size_t i = 0; i < count; i++) {
		p = must(malloc(len), "malloc merged");
		fill(p, len, 0x22);
		record("merged", p, len, 0, 0, 0);
	}
	if (p)
		guard(p);
}

static void aligned(size_t size_mib)
{
	static const size_t alignments[] = { 64, 4096 };
	static const char *const kinds[] = { "aligned64", "aligned4096" };
	size_t len = size_mib * MiB;
	for (size_t i = 0; i < 2; i++) {
		void *p;
		errno = posix_memalign(&p, alignments[i], len);
		if (errno)
			die("posix_memalign");
		fill(p, len, 0x33);
		record(kinds[i], p, len, 0, 0, 0);
		guard(p);
	}
}

/* count blocks of size bytes, pointers kept in slots[]; one summary entry. */
static void many(const char *kind, void *volatile *slots, size_t count, size_t size, int byte)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	void *first = NULL;
	for (size_t i = 0; i < count; i++) {
		char *q = must(malloc(size), "malloc small");
		fill(q, size, byte);
		slots[i] = q;
		if (!first)
			first = q;
		if ((uintptr_t)q < lo)
			lo = (uintptr_t)q;
		if ((uintptr_t)q + size > hi)
			hi = (uintptr_t)q + size;
	}
	if (count)
		record(kind, first, size, count, lo, hi);
}

#define THREAD_SMALL 4000
#define THREAD_SMALL_SIZE 500
#define THREAD_MEDIUM_SIZE (64 * 1024)

static pthread_barrier_t barrier;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;

static void *thread_main(void *arg)
{
	size_t index = (size_t)(uintptr_t)arg;
	many("thread_small", held_threads + index * THREAD_SMALL, THREAD_SMALL, THREAD_SMALL_SIZE, 0x44);
	char *m = must(malloc(THREAD_MEDIUM_SIZE), "malloc medium");
	fill(m, THREAD_MEDIUM_SIZE, 0x55);
	record("thread_medium", m, THREAD_MEDIUM_SIZE, 0, 0, 0);
	pthread_barrier_wait(&barrier);
	pthread_mutex_lock(&idle_lock);
	for (;;)
		pthread_cond_wait(&idle_cond, &idle_lock);
	return NULL;
}

static void threads(size_t n)
{
	pthread_t t;
	if (n == 0)
		return;
	held_threads = must(calloc(n * THREAD_SMALL, sizeof(void *)), "calloc");
	pthread_barrier_init(&barrier, NULL, (unsigned)n + 1);
	for (size_t i = 0; i < n; i++) {
		errno = pthread_create(&t, NULL, thread_main, (void *)(uintptr_t)i);
		if (errno)
			die("pthread_create");
	}
	pthread_barrier_wait(&barrier);
}

/* Which malloc this is: the allocator library /proc/self/maps shows. */
static const char *allocator(void)
{
	static const char *const names[][2] = {
		{ "libjemalloc", "jemalloc" },
		{ "libmimalloc", "mimalloc" },
		{ "libtcmalloc", "tcmalloc" },
	};
	const char *found = "glibc";
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return "unknown";
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strstr(line, names[i][0]))
				found = names[i][1];
	fclose(f);
	return found;
}

static void print_ready(void)
{
	printf("{\"pid\": %d, \"allocator\": \"%s\", \"page\": %ld, \"blocks\": [", (int)getpid(), allocator(), page);
	for (size_t i = 0; i < nblocks; i++) {
		const struct block *b = &blocks[i];
		printf("%s{\"kind\": \"%s\", \"addr\": \"0x%jx\", \"size\": %zu", i ? ", " : "", b->kind,
		       (uintmax_t)b->addr, b->size);
		if (b->count)
			printf(", \"count\": %zu, \"lo\": \"0x%jx\", \"hi\": \"0x%jx\"", b->count, (uintmax_t)b->lo,
			       (uintmax_t)b->hi);
		printf("}");
	}
	printf("]}\n");
	fflush(stdout);
}

static size_t parse_count(const char *s, const char *what, size_t max)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "allocs: bad %s: %s\n", what, s);
		exit(2);
	}
	return (size_t)v;
}

static size_t parse_sizes(char *s, size_t *sizes)
{
	size_t n = 0;
	for (char *save = NULL, *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_SIZES) {
			fprintf(stderr, "allocs: at most %d sizes\n", MAX_SIZES);
			exit(2);
		}
		sizes[n++] = parse_count(tok, "size", 4096);
	}
	return n;
}

/* the blocks "grow" made, and which "drop" freed */
#define GROW_BLOCK 1024
static void *volatile *volatile grown;
static size_t n_grown, grown_max, grown_held;

static void grow(size_t mib)
{
	size_t n = mib * MiB / GROW_BLOCK;
	if (n_grown + n > grown_max) {
		size_t more = (n_grown + n) * 2;
		void **v = must(realloc((void **)grown, more * sizeof(void *)), "realloc");
		grown = (void *volatile *)v;
		grown_max = more;
	}
	for (size_t i = 0; i < n; i++) {
		void *b = must(malloc(GROW_BLOCK), "malloc");
		memset(b, 0x77, GROW_BLOCK);
		grown[n_grown++] = b;
		grown_held += GROW_BLOCK;
	}
}

static void drop(void)
{
	for (size_t i = 0; i < n_grown; i++)
		if (i % 4 != 3 && grown[i]) {
			free(grown[i]);
			grown[i] = NULL;
			grown_held -= GROW_BLOCK;
		}
}

static void answer(void)
{
	printf("{\"grown\": %zu, \"mallinfo\": ", grown_held);
	if (is_glibc) {
		struct mallinfo2 m = mallinfo2();
		printf("{\"uordblks\": %zu, \"fordblks\": %zu, \"hblkhd\": %zu}", m.uordblks, m.fordblks, m.hblkhd);
	} else
		printf("null");
	printf("}\n");
	fflush(stdout);
}

/* One command line (see the top of the file). */
static void command(const char *line)
{
	if (strncmp(line, "grow ", 5) == 0)
		grow(parse_count(line + 5, "grow", 4096));
	else if (strcmp(line, "drop") == 0)
		drop();
	else if (strcmp(line, "stats") != 0) {
		fprintf(stderr, "allocs: unknown command: %s\n", line);
		exit(2);
	}
	answer();
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
		{ "sizes", required_argument, NULL, 's' },	  { "merged", required_argument, NULL, 'm' },
		{ "merged-size", required_argument, NULL, 'M' }, { "aligned-size", required_argument, NULL, 'a' },
		{ "threads", required_argument, NULL, 't' },	  { "small", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	size_t sizes[MAX_SIZES] = { 1, 2, 3, 8, 24 }, nsizes = 5;
	size_t nmerged = 4, merged_mib = 2, aligned_mib = 4, nthreads = 3, nsmall = 20000;
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (c) {
		case 's':
			nsizes = parse_sizes(optarg, sizes);
			break;
		case 'm':
			nmerged = parse_count(optarg, "--merged", 64);
			break;
		case 'M':
			merged_mib = parse_count(optarg, "--merged-size", 4096);
			break;
		case 'a':
			aligned_mib = parse_count(optarg, "--aligned-size", 4096);
			break;
		case 't':
			nthreads = parse_count(optarg, "--threads", MAX_THREADS);
			break;
		case 'n':
			nsmall = parse_count(optarg, "--small", 10000000);
			break;
		default:
			fprintf(stderr, "usage: allocs [--sizes=MiB,...] [--merged=N] [--merged-size=MiB] "
					"[--aligned-size=MiB] [--threads=N] [--small=N]\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "allocs: unexpected argument %s\n", argv[optind]);
		return 2;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	page = sysconf(_SC_PAGESIZE);
	/* the threads must not take the signal: block it before they start */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	is_glibc = strcmp(allocator(), "glibc") == 0;
	large(sizes, nsizes);
	merged(nmerged, merged_mib);
	aligned(aligned_mib);
	threads(nthreads);
	held_small = must(calloc(nsmall ? nsmall : 1, sizeof(void *)), "calloc");
	many("small", held_small, nsmall, 200, 0x66);

	sigaction(SIGTERM, &sa, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	print_ready();

	char line[64];
	size_t len = 0;
	while (!stop) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int r = poll(&pfd, 1, -1);
		if (r > 0) {
			char ch;
			if (read(STDIN_FILENO, &ch, 1) <= 0)
				break; /* stdin closed: the test is done */
			if (ch != '\n' && len + 1 < sizeof(line)) {
				line[len++] = ch;
				continue;
			}
			line[len] = '\0';
			len = 0;
			if (line[0])
				command(line);
		}
	}
	return 0;
}
