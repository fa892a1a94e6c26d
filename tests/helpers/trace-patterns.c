/* Allocation patterns whose trace is known to the byte, for
 * tests/integration/test_trace_record.py: each pattern allocates from
 * functions of its own (the sites the trace must name), touches every page
 * it keeps, and keeps its blocks in volatile globals so nothing is
 * optimised away.  The pattern is the first argument. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ramwatch-trace.h"

#define KiB 1024ul
#define MiB (1024ul * 1024ul)
#define NOINLINE __attribute__((noinline))

static void *volatile kept[64];
static volatile unsigned n_kept;

static void keep(void *p, size_t n)
{
	if (!p) {
		perror("allocation");
		exit(1);
	}
	memset(p, 0x5a, n);
	kept[n_kept++] = p;
}

NOINLINE static void *retain_one(size_t n)
{
	void *p = malloc(n);
	keep(p, n);
	return p;
}

NOINLINE static void churn_one(size_t n)
{
	char *volatile p = malloc(n);
	memset(p, 1, n);
	free(p);
}

NOINLINE static void small_one(void)
{
	void *p = malloc(100);
	kept[63] = p; /* the last one stays; the others leak, as small ones often do */
}

/* 3 x 1 MiB kept by retain_one, 10 x 64 KiB freed by churn_one, 1000 x
 * 100 bytes from small_one (below the default threshold). */
static void sizes(void)
{
	for (int i = 0; i < 3; i++)
		retain_one(1 * MiB);
	for (int i = 0; i < 10; i++)
		churn_one(64 * KiB);
	for (int i = 0; i < 1000; i++)
		small_one();
}

NOINLINE static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++)
		churn_one(128 * KiB);
	return retain_one(256 * KiB);
}

/* 4 threads: each 100 x 128 KiB freed, 256 KiB kept. */
static void threads(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

/* A queue of blocks between two threads, under a lock. */
#define HANDOFF_ROUNDS 20000
#define HANDOFF_SLOTS 16
static pthread_mutex_t hand_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hand_cond = PTHREAD_COND_INITIALIZER;
static void *hand_slot[2][HANDOFF_SLOTS];
static unsigned hand_n[2];

static void hand_put(int to, void *p)
{
	pthread_mutex_lock(&hand_lock);
	while (hand_n[to] == HANDOFF_SLOTS)
		pthread_cond_wait(&hand_cond, &hand_lock);
	hand_slot[to][hand_n[to]++] = p;
	pthread_cond_broadcast(&hand_cond);
	pthread_mutex_unlock(&hand_lock);
}

static void *hand_take(int from)
{
	void *p;
	pthread_mutex_lock(&hand_lock);
	while (hand_n[from] == 0)
		pthread_cond_wait(&hand_cond, &hand_lock);
	p = hand_slot[from][--hand_n[from]];
	pthread_cond_broadcast(&hand_cond);
	pthread_mutex_unlock(&hand_lock);
	return p;
}

NOINLINE static void *hand_one(size_t n)
{
	char *p = malloc(n);
	if (!p)
		exit(1);
	p[0] = 1;
	return p;
}

/* Each side allocates a block, hands it to the other, and frees the one
 * the other handed it: every block is freed by the thread that did not
 * allocate it, and the allocator gives the freed addresses out again. */
static void *handoff_side(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < HANDOFF_ROUNDS; i++) {
		hand_put(!me, hand_one(48 + (size_t)(i % 4) * 16));
		free(hand_take(me));
	}
	return NULL;
}

/* 2 x HANDOFF_ROUNDS blocks from hand_one, each freed by the other thread. */
static void handoff(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, handoff_side, (void *)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

#define SHUFFLE_THREADS 4
#define SHUFFLE_ROUNDS 100000
#define SHUFFLE_SLOTS 64

static _Atomic(void *) shuffle_slot[SHUFFLE_SLOTS];

/* Each thread puts a new block into a slot of a shared table and frees
 * the one it took out, which any thread may have allocated: blocks move
 * between four threads with no order but the table's, and the allocator
 * gives the freed addresses out again to whichever thread asks next. */
static void *shuffle_side(void *arg)
{
	unsigned s = (unsigned)(long)arg * 2654435761u + 7;
	for (int i = 0; i < SHUFFLE_ROUNDS; i++) {
		s = s * 1103515245u + 12345u;
		void *old = atomic_exchange(&shuffle_slot[(s >> 8) % SHUFFLE_SLOTS], hand_one(16 + (s >> 16) % 200));
		free(old);
	}
	return NULL;
}

/* SHUFFLE_THREADS x SHUFFLE_ROUNDS blocks from hand_one, all freed
 * (the table's last ones at the end, by the main thread). */
static void shuffle(void)
{
	pthread_t t[SHUFFLE_THREADS];
	for (long i = 0; i < SHUFFLE_THREADS; i++)
		pthread_create(&t[i], NULL, shuffle_side, (void *)i);
	for (int i = 0; i < SHUFFLE_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < SHUFFLE_SLOTS; i++)
		free(atomic_exchange(&shuffle_slot[i], NULL));
}

NOINLINE static void grow_chain(void)
{
	char *p = malloc(64 * KiB);
	memset(p, 1, 64 * KiB);
	p = realloc(p, 128 * KiB);
	memset(p, 2, 128 * KiB);
	p = realloc(p, 4 * MiB);
	keep(p, 4 * MiB);
}

/* one block grown 64 KiB -> 128 KiB -> 4 MiB, kept. */
static void realloc_chain(void)
{
	grow_chain();
}

NOINLINE static void aligned_blocks(void)
{
	void *p;
	if (posix_memalign(&p, 4096, 1 * MiB) != 0)
		exit(1);
	keep(p, 1 * MiB);
	keep(aligned_alloc(65536, 512 * KiB), 512 * KiB);
	keep(memalign(256, 256 * KiB), 256 * KiB);
	p = valloc(128 * KiB);
	memset(p, 1, 128 * KiB);
	free(p);
}

/* kept: 1 MiB + 512 KiB + 256 KiB; freed: 128 KiB (valloc). */
static void aligned(void)
{
	aligned_blocks();
}

NOINLINE static void map_blocks(void)
{
	char *p = mmap(NULL, 8 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	memset(p, 1, 8 * MiB);
	munmap(p + 4 * MiB, 4 * MiB);
	p = mremap(p, 4 * MiB, 6 * MiB, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		exit(1);
	memset(p, 2, 6 * MiB);
	kept[0] = p;
}

/* mapped: 8 MiB, then 4 MiB unmapped, then 4 MiB remapped to 6 MiB: 6 MiB
 * mapped at the end. */
static void maps(void)
{
	map_blocks();
}

NOINLINE static void child_work(void)
{
	retain_one(2 * MiB);
}

/* the parent keeps 1 MiB; its child 2 MiB, in the child's own trace. */
static void forks(void)
{
	pid_t pid;
	int status;

	retain_one(1 * MiB);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		child_work();
		exit(0);
	}
	waitpid(pid, &status, 0);
}

NOINLINE static void load_phase(void)
{
	retain_one(2 * MiB);
}

NOINLINE static void decode_phase(void)
{
	churn_one(1 * MiB);
	retain_one(512 * KiB);
}

/* root/load keeps 2 MiB; root/decode frees 1 MiB and keeps 512 KiB, half
 * of it in root/decode/inner. */
static void phases(void)
{
	ramwatch_trace_enter("load");
	load_phase();
	ramwatch_trace_exit("load");
	ramwatch_trace_enter("decode");
	decode_phase();
	ramwatch_trace_enter("inner");
	retain_one(256 * KiB);
	ramwatch_trace_exit("inner");
	ramwatch_trace_exit("decode");
}

/* phases through the scope variable (--scope-env PHASE) */
static void env_phases(void)
{
	setenv("PHASE", "first", 1);
	retain_one(1 * MiB);
	setenv("PHASE", "second", 1);
	retain_one(2 * MiB);
	unsetenv("PHASE");
	retain_one(3 * MiB);
}

/* 16 x 1 MiB and 256 x 16 KiB kept, every page touched; "ready" on
 * standard output, then waits for a line on standard input and exits with
 * them still held: the census's malloc class and the trace's live bytes. */
static void hold(void)
{
	static char line[16];
	for (int i = 0; i < 16; i++)
		retain_one(1 * MiB);
	for (int i = 0; i < 256; i++) {
		char *p = malloc(16 * KiB);
		memset(p, 3, 16 * KiB);
		kept[40] = p;
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(1);
}

NOINLINE static void small_in_scope(void)
{
	kept[62] = malloc(100);
}

static void expect(int got, int want, const char *what)
{
	if (got != want) {
		fprintf(stderr, "%s: %d, not %d\n", what, got, want);
		exit(1);
	}
}

/* Past each limit of the scope API and of the small-block table: every
 * refusal is checked here (the exit status says), the table's overflow by
 * the trace. */
static void limits(void)
{
	char name[300];

	expect(ramwatch_trace_enter(""), -EINVAL, "an empty name");
	expect(ramwatch_trace_enter("a/b"), -EINVAL, "a name with /");
	expect(ramwatch_trace_exit("nothing"), -ENOENT, "an exit with no scope");
	for (int i = 0; i < 32; i++)
		expect(ramwatch_trace_enter("d"), 0, "32 deep");
	expect(ramwatch_trace_enter("d"), -E2BIG, "33 deep");
	for (int i = 0; i < 32; i++)
		expect(ramwatch_trace_exit("d"), 0, "leaving 32");
	memset(name, 'n', 251);
	name[251] = 0; /* "root/" and 251 bytes: 256 */
	expect(ramwatch_trace_enter(name), -E2BIG, "a path of 256 bytes");
	name[250] = 0;
	expect(ramwatch_trace_enter(name), 0, "a path of 255 bytes");
	expect(ramwatch_trace_exit("other"), -ENOENT, "an exit of another scope");
	expect(ramwatch_trace_exit(name), 0, "its exit");
	/* 3100 scopes with one small block each, from one site: a thread's
	 * table keeps 3072 (site, scope) pairs, the rest go under site 0 */
	for (int i = 0; i < 3100; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		expect(ramwatch_trace_enter(name), 0, "a scope");
		small_in_scope();
		expect(ramwatch_trace_exit(name), 0, "its exit");
	}
	/* 4096 distinct scopes in all: 32 ("d" nested) + 1 + 3100 so far */
	int made = 32 + 1 + 3100, r = 0;
	for (int i = 0; made < 4096; i++, made++) {
		snprintf(name, sizeof(name), "t%d", i);
		expect(ramwatch_trace_enter(name), 0, "up to 4096 scopes");
		expect(ramwatch_trace_exit(name), 0, "its exit");
	}
	r = ramwatch_trace_enter("one-too-many");
	expect(r, -ENOSPC, "scope 4097");
}

/* two-callers: one allocating function, xmalloc, called from two others
 * that keep different totals: load_model 3 x 1 MiB, decode 5 x 256 KiB.
 * Not static, so each is named by the symbol table too; one site (the
 * malloc call in xmalloc), two stacks. */
void *xmalloc(size_t n);
void load_model(void);
void decode(void);

NOINLINE void *xmalloc(size_t n)
{
	void *block = malloc(n);
	keep(block, n);
	return block;
}

NOINLINE void load_model(void)
{
	for (int i = 0; i < 3; i++)
		xmalloc(1 * MiB);
}

NOINLINE void decode(void)
{
	for (int i = 0; i < 5; i++)
		xmalloc(256 * KiB);
}

static void two_callers(void)
{
	load_model();
	decode();
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} patterns[] = {
		{ "sizes", sizes }, { "threads", threads }, { "realloc", realloc_chain }, { "aligned", aligned },
		{ "maps", maps },   { "fork", forks },      { "phases", phases },         { "env-phases", env_phases },
		{ "hold", hold },   { "limits", limits },   { "handoff", handoff },
		{ "two-callers", two_callers }, { "shuffle", shuffle },
	};

	for (size_t i = 0; argc == 2 && i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strcmp(argv[1], patterns[i].name) == 0) {
			patterns[i].run();
			return 0;
		}
	fprintf(stderr, "usage: trace-patterns sizes|threads|realloc|aligned|maps|fork|phases|env-phases|hold|limits|handoff|"
			"two-callers|shuffle\n");
	return 2;
}
