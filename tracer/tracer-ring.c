/* Per-thread rings of binary records and the sequence they are merged in.
 *
 * Each thread writes its events into its own ring (one producer, the
 * writer thread the only consumer): no lock on the program's path, one
 * atomic add for the sequence number.  Sequence numbers are global, so the
 * writer can put the threads' events back in the order they happened; it
 * must only never write number N+1 while a thread that took N has not
 * published it yet.  So a thread announces, before it takes a number, a
 * lower bound of the number it will take (pending), and clears it after it
 * published the record; the writer writes only below the smallest pending
 * bound and the counter it read before them (all sequentially consistent:
 * a number below that watermark was published, or its thread's bound would
 * be below it).
 *
 * A full ring makes its thread wait for the writer, at most the configured
 * wait (RAMWATCH_TRACE_WAIT_US), then drop the event: the number taken and
 * not written is a gap in the trace's sequence, and the count goes on
 * trace.stop.  A thread that ended leaves its ring to the next new thread. */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tracer.h"

#define IDLE UINT64_MAX

struct tracer_ring {
	_Atomic uint64_t head; /* records published; the producer's */
	char pad1[56];
	_Atomic uint64_t tail; /* records taken; the writer's */
	char pad2[56];
	_Atomic uint64_t pending;
	_Atomic int owned; /* 1 while a live thread writes it */
	struct tracer_ring *next;
	struct tracer_small *small;
	uint64_t mask;
	struct tracer_record *rec;
	/* the writer's own copy of records taken from the ring, not yet
	 * written: merging from them reads memory no other core writes */
	struct tracer_record *local;
	uint32_t lhead, ln;
};

#define LOCAL_MAX 4096u

static _Atomic(struct tracer_ring *) rings;
static _Atomic uint64_t seq_counter;
static _Atomic uint64_t dropped;
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

void tracer_ring_emit(struct tracer_record *r)
{
	struct tracer_ring *g = ring_mine();
	uint64_t h, s;

	/* After its ring's key destructor a thread runs only the C library's
	 * and other libraries' last clean-up (the program's thread_local
	 * destructors ran before): not traced, and not a drop either. */
	if (!g) {
		if (!thread_ended)
			atomic_fetch_add(&dropped, 1);
		return;
	}
	/* The bound is an exchange (sequentially consistent) so the stop,
	 * which leaves ON and then waits for every bound to clear, either sees
	 * it or is seen here; the clearing stores below need only release the
	 * record before them: two locked instructions an event, not four. */
	atomic_exchange(&g->pending, atomic_load_explicit(&seq_counter, memory_order_relaxed) + 1);
	if (atomic_load(&tracer_state) != TRACER_ON) {
		atomic_store_explicit(&g->pending, IDLE, memory_order_release);
		return;
	}
	s = atomic_fetch_add(&seq_counter, 1) + 1;
	r->seq = s;
	h = atomic_load_explicit(&g->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&g->tail, memory_order_acquire) > g->mask) {
		uint64_t deadline = 0;
		tracer_ring_wake_writer();
		while (h - atomic_load_explicit(&g->tail, memory_order_acquire) > g->mask) {
			uint64_t now = tracer_now_ns();
			if (!deadline)
				deadline = now + tracer_config.wait_ns;
			if (now >= deadline) {
				atomic_fetch_add(&dropped, 1);
				atomic_store_explicit(&g->pending, IDLE, memory_order_release);
				return;
			}
			/* sleep rather than yield: the writer may need this CPU */
			struct timespec ts = { .tv_nsec = 20000 };
			nanosleep(&ts, NULL);
		}
	}
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

uint64_t tracer_ring_last_seq(void)
{
	return atomic_load(&seq_counter);
}

uint64_t tracer_ring_next_seq(void)
{
	return atomic_fetch_add(&seq_counter, 1) + 1;
}

void tracer_ring_quiesce(void)
{
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next)
		while (atomic_load(&g->pending) != IDLE)
			sched_yield();
}

void tracer_ring_reset_child(void)
{
	atomic_store(&seq_counter, 0);
	atomic_store(&dropped, 0);
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		atomic_store(&g->tail, atomic_load(&g->head));
		atomic_store(&g->pending, IDLE);
		atomic_store(&g->owned, g == my_ring);
		g->lhead = g->ln = 0;
		tracer_small_reset(g->small);
	}
}

static uint64_t watermark(bool all)
{
	uint64_t w = atomic_load(&seq_counter) + 1;

	if (all)
		return UINT64_MAX;
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
	while (t != h && g->ln < LOCAL_MAX && g->rec[t & g->mask].seq < w)
		g->local[g->ln++] = g->rec[t++ & g->mask];
	atomic_store_explicit(&g->tail, t, memory_order_release);
	if (t != h && g->rec[t & g->mask].seq < w)
		return g->rec[t & g->mask].seq;
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
		uint64_t best_seq = UINT64_MAX, second = UINT64_MAX;

		for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
			if (!g->local || g->lhead == g->ln)
				continue;
			uint64_t s = g->local[g->lhead].seq;
			if (s < best_seq) {
				second = best_seq;
				best_seq = s;
				best = g;
			} else if (s < second) {
				second = s;
			}
		}
		if (!best || best_seq >= limit)
			return n;
		uint64_t stop = second < limit ? second : limit;
		while (best->lhead < best->ln && best->local[best->lhead].seq < stop) {
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
