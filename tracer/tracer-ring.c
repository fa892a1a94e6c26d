/* Per-thread rings of binary records and the order they are merged in.
 *
 * Each thread writes its events into its own ring (one producer, the
 * writer thread the only consumer): no lock and nothing shared written on
 * the program's path.  A record carries when it happened, read from
 * CLOCK_MONOTONIC (the vDSO; the kernel keeps it monotonic across CPUs),
 * and the writer merges the rings by that stamp and numbers the events in
 * that order (their memtrace seq).  A shared counter would order them as
 * well, but every event would move its cache line between cores: on two
 * cores that was half the cost of a traced malloc/free pair, and it grows
 * with the cores.
 *
 * The writer must never write a record stamped T while a thread may still
 * publish one stamped below T.  So a thread announces, before it reads the
 * clock, a lower bound of the stamp it will take (pending: its previous
 * stamp), and clears it after it published the record; the writer reads
 * the clock, then every bound, and writes only what is stamped below both.
 * The announcement must be seen before the thread's clock read, a store
 * then a load, which the processor may reorder: the writer's side pays for
 * that, with membarrier(2) between its clock read and its reads of the
 * bounds (a thread stopped by it either has its bound seen or reads the
 * clock after the writer did).  Where membarrier is not to be had, each
 * announcement is a locked exchange instead.
 *
 * Two events stamped alike in two threads happened at once, as near as the
 * clock tells; one that depends on another (a block freed by one thread,
 * then handed out to another) is stamped later: a free is stamped before
 * the real free, an allocation after the real call returned.
 *
 * A full ring makes its thread wait for the writer, at most the configured
 * wait (RAMWATCH_TRACE_WAIT_US), then drop the event: the ring counts it,
 * and the writer leaves a gap in the numbers before the thread's next
 * record (the count goes on trace.stop too).  A thread that ended leaves
 * its ring to the next new thread. */
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer.h"

#define IDLE UINT64_MAX

/* Three cache lines, each written by one side only: the producer writes
 * its line at every event, the writer its line at every record it merges,
 * and a line either writes and the other reads moves between their cores.
 * (With the writer's merge state beside the producer's bound, that move was
 * half of a traced pair's cost.) */
struct tracer_ring {
	/* the producer's */
	_Alignas(64) _Atomic uint64_t head; /* records published */
	_Atomic uint64_t pending;
	uint64_t last;      /* the stamp of the thread's last record */
	uint64_t tail_seen; /* the writer's tail as last read: room is known without reading it */
	uint32_t gap;       /* events dropped since its last record */
	/* set when the ring is made, read by both */
	_Alignas(64) struct tracer_record *rec;
	uint64_t mask;
	struct tracer_small *small;
	struct tracer_ring *next;
	_Atomic int owned; /* 1 while a live thread writes it */
	/* the writer's */
	_Alignas(64) _Atomic uint64_t tail; /* records taken */
	/* its own copy of records taken from the ring, not yet written:
	 * merging from them reads memory no other core writes */
	struct tracer_record *local;
	uint32_t lhead, ln;
};

#define LOCAL_MAX 4096u

static _Atomic(struct tracer_ring *) rings;
static _Atomic uint64_t dropped;
static bool remote_fence; /* membarrier(2) works: the producers' bound is a plain store */
static _Atomic uint32_t writer_word;
static pthread_key_t ring_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread struct tracer_ring *my_ring __attribute__((tls_model("initial-exec")));
static __thread int thread_ended __attribute__((tls_model("initial-exec")));

static void ring_release(void *p)
{
	struct tracer_ring *g = p;
	tracer_small_forget();
	my_ring = NULL;
	thread_ended = 1;
	atomic_store(&g->owned, 0);
}

static void make_key(void)
{
	pthread_key_create(&ring_key, ring_release);
}

static struct tracer_ring *ring_claim(void)
{
	struct tracer_ring *g;
	size_t n;

	if (thread_ended)
		return NULL;
	pthread_once(&key_once, make_key);
	/* a ring a thread left, once the writer emptied it */
	for (g = atomic_load(&rings); g; g = g->next) {
		int zero = 0;
		if (atomic_load(&g->owned) == 0 && atomic_load(&g->tail) == atomic_load(&g->head) &&
		    atomic_compare_exchange_strong(&g->owned, &zero, 1))
			goto found;
	}
	n = tracer_config.buffer_bytes / sizeof(struct tracer_record);
	g = tracer_pages(sizeof(*g));
	if (!g)
		return NULL;
	g->rec = tracer_pages(n * sizeof(struct tracer_record));
	g->small = tracer_small_new();
	if (!g->rec || !g->small)
		return NULL;
	g->mask = n - 1;
	atomic_store(&g->pending, IDLE);
	atomic_store(&g->owned, 1);
	g->next = atomic_load(&rings);
	while (!atomic_compare_exchange_weak(&rings, &g->next, g))
		;
found:
	my_ring = g;
	pthread_setspecific(ring_key, g);
	return g;
}

static struct tracer_ring *ring_mine(void)
{
	return my_ring ? my_ring : ring_claim();
}

bool tracer_ring_has_small(void)
{
	return my_ring != NULL;
}

struct tracer_small *tracer_ring_my_small(void)
{
	struct tracer_ring *g = ring_mine();
	return g ? g->small : NULL;
}

/* Makes every thread's earlier stores seen by this one's later loads (see
 * the top of the file). */
static void fence_remote(void)
{
	if (remote_fence)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	else
		atomic_thread_fence(memory_order_seq_cst);
}

void tracer_ring_init(void)
{
	remote_fence = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static inline void announce(struct tracer_ring *g)
{
	if (remote_fence) {
		atomic_store_explicit(&g->pending, g->last, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst);
	} else {
		atomic_exchange(&g->pending, g->last);
	}
}

void tracer_ring_emit(struct tracer_record *r)
{
	struct tracer_ring *g = ring_mine();
	uint64_t h;

	/* After its ring's key destructor a thread runs only the C library's
	 * and other libraries' last clean-up (the program's thread_local
	 * destructors ran before): not traced, and not a drop either. */
	if (!g) {
		if (!thread_ended)
			atomic_fetch_add(&dropped, 1);
		return;
	}
	/* The stop leaves ON, fences, then waits for every bound to clear:
	 * either it sees this one or this sees it is no longer ON. */
	announce(g);
	if (atomic_load_explicit(&tracer_state, memory_order_relaxed) != TRACER_ON) {
		atomic_store_explicit(&g->pending, IDLE, memory_order_release);
		return;
	}
	r->stamp = tracer_now_ns();
	if (r->stamp < g->last)
		r->stamp = g->last; /* never below the bound announced */
	h = atomic_load_explicit(&g->head, memory_order_relaxed);
	if (h - g->tail_seen > g->mask)
		g->tail_seen = atomic_load_explicit(&g->tail, memory_order_acquire);
	if (h - g->tail_seen > g->mask) {
		uint64_t deadline = 0;
		tracer_ring_wake_writer();
		while (h - (g->tail_seen = atomic_load_explicit(&g->tail, memory_order_acquire)) > g->mask) {
			uint64_t now = tracer_now_ns();
			if (!deadline)
				deadline = now + tracer_config.wait_ns;
			if (now >= deadline) {
				atomic_fetch_add(&dropped, 1);
				g->gap++;
				atomic_store_explicit(&g->pending, IDLE, memory_order_release);
				return;
			}
			/* sleep rather than yield: the writer may need this CPU */
			struct timespec ts = { .tv_nsec = 20000 };
			nanosleep(&ts, NULL);
		}
	}
	r->gap = g->gap;
	g->gap = 0;
	g->last = r->stamp;
	g->rec[h & g->mask] = *r;
	atomic_store_explicit(&g->head, h + 1, memory_order_release);
	atomic_store_explicit(&g->pending, IDLE, memory_order_release);
	/* a ring half full wakes the writer before it fills */
	if (((h + 1) & (g->mask >> 1)) == 0)
		tracer_ring_wake_writer();
}

uint64_t tracer_ring_dropped(void)
{
	return atomic_load(&dropped);
}

void tracer_ring_quiesce(void)
{
	fence_remote();
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next)
		while (atomic_load(&g->pending) != IDLE)
			sched_yield();
}

void tracer_ring_reset_child(void)
{
	atomic_store(&dropped, 0);
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		atomic_store(&g->tail, atomic_load(&g->head));
		atomic_store(&g->pending, IDLE);
		atomic_store(&g->owned, g == my_ring);
		g->gap = 0;
		g->lhead = g->ln = 0;
		tracer_small_reset(g->small);
	}
}

/* The stamp below which every record was published. */
static uint64_t watermark(bool all)
{
	uint64_t w;

	if (all)
		return UINT64_MAX;
	w = tracer_now_ns();
	fence_remote();
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		uint64_t p = atomic_load(&g->pending);
		if (p < w)
			w = p;
	}
	return w;
}

/* Takes the records below w from g into its local copy, as many as fit.
 * Returns the number of the first record below w left in the ring (the
 * copy was full), or w. */
static uint64_t take(struct tracer_ring *g, uint64_t w)
{
	uint64_t t = atomic_load_explicit(&g->tail, memory_order_relaxed);
	uint64_t h = atomic_load_explicit(&g->head, memory_order_acquire);

	if (g->lhead > 0) {
		memmove(g->local, g->local + g->lhead, (g->ln - g->lhead) * sizeof(*g->local));
		g->ln -= g->lhead;
		g->lhead = 0;
	}
	while (t != h && g->ln < LOCAL_MAX && g->rec[t & g->mask].stamp < w)
		g->local[g->ln++] = g->rec[t++ & g->mask];
	atomic_store_explicit(&g->tail, t, memory_order_release);
	if (t != h && g->rec[t & g->mask].stamp < w)
		return g->rec[t & g->mask].stamp;
	return w;
}

/* Every ring's records below the watermark are copied out first (a ring
 * is read in one sweep, not a record at a time across cores), then merged:
 * the copy whose next record is the oldest gives records until another's
 * next one is older, or the limit is reached.  The limit is the watermark,
 * or lower when a copy was full and records below the watermark wait in
 * its ring. */
size_t tracer_ring_drain(void (*out)(const struct tracer_record *r), bool all)
{
	uint64_t w = watermark(all), limit = w;
	size_t n = 0;

	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		if (!g->local && !(g->local = tracer_pages(LOCAL_MAX * sizeof(*g->local))))
			continue;
		uint64_t left = take(g, w);
		if (left < limit)
			limit = left;
	}
	for (;;) {
		struct tracer_ring *best = NULL;
		uint64_t best_stamp = UINT64_MAX, second = UINT64_MAX;

		for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
			if (!g->local || g->lhead == g->ln)
				continue;
			uint64_t s = g->local[g->lhead].stamp;
			if (s < best_stamp) {
				second = best_stamp;
				best_stamp = s;
				best = g;
			} else if (s < second) {
				second = s;
			}
		}
		if (!best || best_stamp >= limit)
			return n;
		/* stamped alike: the first ring's first */
		while (best->lhead < best->ln && best->local[best->lhead].stamp < limit &&
		       best->local[best->lhead].stamp <= second) {
			out(&best->local[best->lhead++]);
			n++;
		}
	}
}

void tracer_ring_wake_writer(void)
{
	if (atomic_exchange(&writer_word, 1) == 0)
		syscall(SYS_futex, &writer_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

void tracer_ring_wait_writer(uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000u),
			       .tv_nsec = (long)(timeout_ns % 1000000000u) };
	if (atomic_exchange(&writer_word, 0) == 0)
		syscall(SYS_futex, &writer_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	atomic_store(&writer_word, 0);
}

void tracer_ring_each_small(void (*fn)(struct tracer_small *t))
{
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next)
		fn(g->small);
}
