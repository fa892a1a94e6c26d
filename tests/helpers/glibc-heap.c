/* The glibc heap helper: a process whose glibc malloc heap has a known
 * shape, and that prints glibc's own figures of it (mallinfo2()) when
 * asked, so that tests compare what a census says is in use and free in
 * the malloc class with what glibc says from inside.
 *
 *   glibc-heap [--fragmented=MiB] [--small=N] [--arenas=N]
 *              [--arena-size=MiB|KiBk] [--fastbins=N] [--mmapped=N]
 *              [--busy=N] [--seed=N]
 *
 *   --fragmented  the main heap ([heap]): MiB of blocks of 32 bytes to
 *                 32 KiB, every byte written, then three in four freed
 *                 (the fourth keeps the free ones apart): most of the heap
 *                 is free chunks between blocks in use, as a program that
 *                 dropped most of what it built leaves it (default 0)
 *   --small       the same with N blocks of 16 bytes to 2 KiB: a heap of a
 *                 few hundred KiB, small enough to save as a memory image
 *   --arenas      threads, each with an arena of its own holding
 *                 --arena-size MiB (default 100; "192k": KiB) of blocks
 *                 of 48 KiB (4 KiB below 1 MiB), so over several 64 MiB
 *                 heaps, every other block freed (default 0)
 *   --fastbins    blocks of each fastbin size (24 to 120 bytes asked)
 *                 freed by the main thread and by each arena thread: the
 *                 thread caches take seven of each size, the fastbins the
 *                 rest (default 0)
 *   --mmapped     blocks of 1 to 4 MiB, above the mmap threshold, written
 *                 (default 0)
 *   --busy        threads that allocate, write and free blocks without
 *                 end, their live blocks bounded: a heap that moves while
 *                 it is read (default 0)
 *
 * Every block kept is reachable from a volatile global, so the compiler
 * keeps every write.  When all is made it prints one line of JSON
 *   {"pid": N, "mallinfo": {"arena": N, "ordblks": N, "smblks": N,
 *    "hblks": N, "hblkhd": N, "fsmblks": N, "uordblks": N,
 *    "fordblks": N, "keepcost": N}}
 * then the "mallinfo" object again, on a line of its own, for each line
 * read on standard input; it exits when its standard input closes.  It
 * writes with write(2) from a static buffer and reads with read(2), so
 * answering allocates nothing and the heap stays as it was. */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB ((size_t)1024 * 1024)
#define MAX_THREADS 32
#define BUSY_SLOTS 2048

static void *volatile *volatile kept;
static size_t n_kept, kept_max;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t opt_fragmented, opt_small, opt_arena_kib = 100 * 1024, opt_fastbins, opt_mmapped;
static int opt_arenas, opt_busy;
static unsigned opt_seed = 1;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int threads_ready;
static volatile int stop;

static void die(const char *what)
{
	fprintf(stderr, "glibc-heap: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint32_t next_random(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* A block written whole. */
static void *block(size_t size, int fill)
{
	void *p = malloc(size);
	if (!p)
		die("malloc");
	memset(p, fill, size);
	return p;
}

/* Keeps p reachable for the process's life. */
static void keep(void *p)
{
	pthread_mutex_lock(&kept_lock);
	if (n_kept == kept_max) {
		/* 512 KiB and more: malloc serves the list with mmap, apart
		 * from the heaps */
		size_t want = kept_max ? 2 * kept_max : 1 << 16;
		void **v = malloc(want * sizeof(*v));
		if (!v)
			die("malloc");
		for (size_t i = 0; i < n_kept; i++)
			v[i] = kept[i];
		free((void *)kept);
		kept = (void *volatile *)v;
		kept_max = want;
	}
	kept[n_kept++] = p;
	pthread_mutex_unlock(&kept_lock);
}

/* Fills the fastbins and the thread cache of the calling thread's arena:
 * n blocks of each fastbin size, separated by blocks kept so that none
 * are neighbours of the top chunk, then freed. */
static void fill_fastbins(size_t n, uint32_t *rnd)
{
	void **v = malloc(n * 7 * sizeof(*v));
	if (!v)
		die("malloc");
	for (size_t i = 0; i < n * 7; i++) {
		v[i] = block(24 + 16 * (i % 7), 0x5a);
		keep(block(24 + 16 * (next_random(rnd) % 7), 0x11));
	}
	for (size_t i = 0; i < n * 7; i++)
		free(v[i]);
	/* kept: freeing a chunk of 64 KiB or more would consolidate the
	 * fastbins (FASTBIN_CONSOLIDATION_THRESHOLD) */
	keep(v);
}

static void *arena_thread(void *arg)
{
	uint32_t rnd = opt_seed * 7919u + (uint32_t)(uintptr_t)arg;
	size_t size = opt_arena_kib < 1024 ? 4096 : 48 * 1024, blocks = opt_arena_kib * 1024 / size;
	void **v = malloc(blocks * sizeof(*v));

	if (!v)
		die("malloc");
	for (size_t i = 0; i < blocks; i++)
		v[i] = block(size - 16 * (next_random(&rnd) % 64), (int)(i & 0xff));
	for (size_t i = 0; i < blocks; i++) {
		if (i % 2)
			free(v[i]);
		else
			keep(v[i]);
	}
	free(v);
	if (opt_fastbins)
		fill_fastbins(opt_fastbins, &rnd);
	pthread_mutex_lock(&lock);
	threads_ready++;
	pthread_cond_broadcast(&cond);
	while (!stop)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *busy_thread(void *arg)
{
	uint32_t rnd = opt_seed * 104729u + (uint32_t)(uintptr_t)arg;
	void **slots = calloc(BUSY_SLOTS, sizeof(*slots));

	if (!slots)
		die("calloc");
	pthread_mutex_lock(&lock);
	threads_ready++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	while (!stop) {
		size_t i = next_random(&rnd) % BUSY_SLOTS;
		free(slots[i]);
		/* mostly small, some of tens of KiB: chunks split and merge */
		size_t size = next_random(&rnd) % 8 ? 16 + next_random(&rnd) % 512 : 4096 + next_random(&rnd) % 65536;
		slots[i] = malloc(size);
		if (slots[i])
			memset(slots[i], (int)i, size);
	}
	return NULL;
}

/* Blocks up to max bytes until total bytes (or count blocks) are made,
 * three in four then freed. */
static void make_fragmented(size_t bytes, size_t count, size_t max, uint32_t *rnd)
{
	size_t total = 0, n = 0, cap = 1 << 16;
	void **v = malloc(cap * sizeof(*v));

	if (!v)
		die("malloc");
	while (count ? n < count : total < bytes) {
		size_t size = 16 + next_random(rnd) % max;
		if (n == cap) {
			void **w = realloc(v, 2 * cap * sizeof(*v));
			if (!w)
				die("realloc");
			v = w;
			cap *= 2;
		}
		v[n] = block(size, (int)(n & 0xff));
		n++;
		total += size;
	}
	for (size_t i = 0; i < n; i++) {
		if (i % 4 == 3)
			keep(v[i]);
		else
			free(v[i]);
	}
	free(v);
}

/* The figures as JSON into buf. */
static int format_mallinfo(char *buf, size_t size)
{
	struct mallinfo2 m = mallinfo2();
	return snprintf(buf, size,
			"{\"arena\": %zu, \"ordblks\": %zu, \"smblks\": %zu, \"hblks\": %zu, \"hblkhd\": %zu, "
			"\"fsmblks\": %zu, \"uordblks\": %zu, \"fordblks\": %zu, \"keepcost\": %zu}",
			m.arena, m.ordblks, m.smblks, m.hblks, m.hblkhd, m.fsmblks, m.uordblks, m.fordblks, m.keepcost);
}

static char out[1024];

static void say(size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(STDOUT_FILENO, out + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(1);
		done += (size_t)n;
	}
}

static void parse_args(int argc, char **argv)
{
	static const struct option options[] = {
		{ "fragmented", required_argument, NULL, 'f' }, { "arenas", required_argument, NULL, 'a' },
		{ "arena-size", required_argument, NULL, 's' }, { "fastbins", required_argument, NULL, 'b' },
		{ "mmapped", required_argument, NULL, 'm' },    { "busy", required_argument, NULL, 'u' },
		{ "seed", required_argument, NULL, 'r' },       { "small", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0) {
		unsigned long v;
		char *end;
		if (!optarg)
			exit(2);
		errno = 0;
		v = strtoul(optarg, &end, 10);
		bool kib = opt == 's' && *end == 'k';
		if (kib)
			end++;
		if (errno || *end || end == optarg) {
			fprintf(stderr, "glibc-heap: bad number '%s'\n", optarg);
			exit(2);
		}
		switch (opt) {
		case 'f': opt_fragmented = v; break;
		case 'a': opt_arenas = (int)(v < MAX_THREADS ? v : MAX_THREADS); break;
		case 's': opt_arena_kib = kib ? v : v * 1024; break;
		case 'S': opt_small = v; break;
		case 'b': opt_fastbins = v; break;
		case 'm': opt_mmapped = v; break;
		case 'u': opt_busy = (int)(v < MAX_THREADS ? v : MAX_THREADS); break;
		case 'r': opt_seed = (unsigned)v; break;
		default: exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	pthread_t threads[2 * MAX_THREADS];
	uint32_t rnd;
	char line[256];
	int n_threads = 0;

	parse_args(argc, argv);
	rnd = opt_seed * 2654435761u + 1;
	keep(NULL); /* the list of kept blocks first, below the shapes */
	if (opt_fragmented)
		make_fragmented(opt_fragmented * MiB, 0, 32 * 1024, &rnd);
	if (opt_small)
		make_fragmented(0, opt_small, 2048, &rnd);
	for (size_t i = 0; i < opt_mmapped; i++)
		keep(block((1 + i % 4) * MiB + 4096 * (i % 3), 0x77));
	for (int i = 0; i < opt_arenas; i++)
		if (pthread_create(&threads[n_threads++], NULL, arena_thread, (void *)(uintptr_t)(i + 1)) != 0)
			die("pthread_create");
	pthread_mutex_lock(&lock);
	while (threads_ready < opt_arenas)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	if (opt_fastbins)
		fill_fastbins(opt_fastbins, &rnd);
	for (int i = 0; i < opt_busy; i++)
		if (pthread_create(&threads[n_threads++], NULL, busy_thread, (void *)(uintptr_t)(i + 1)) != 0)
			die("pthread_create");
	pthread_mutex_lock(&lock);
	while (threads_ready < opt_arenas + opt_busy)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);

	int len = snprintf(out, sizeof(out), "{\"pid\": %d, \"mallinfo\": ", (int)getpid());
	len += format_mallinfo(out + len, sizeof(out) - (size_t)len);
	len += snprintf(out + len, sizeof(out) - (size_t)len, "}\n");
	say((size_t)len);
	for (;;) {
		ssize_t got = read(STDIN_FILENO, line, sizeof(line));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len = format_mallinfo(out, sizeof(out));
		out[len++] = '\n';
		say((size_t)len);
	}
	pthread_mutex_lock(&lock);
	stop = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n_threads; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
