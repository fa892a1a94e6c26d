/* Per-thread rings of encoded records, and the order they are written in.
 *
 * Each thread encodes its events itself, a few bytes each
 * (trace/trace-binary.h, deltas from its own previous record), into a
 * ring of its own (one producer, the writer thread the only consumer):
 * no lock, no clock read and nothing shared written on the program's path.
 * The ring's bytes are cut into segments, each with a key; the writer
 * copies whole segments to the file in the order of their keys, so the
 * events of a segment are numbered (their memtrace seq) in the order the
 * thread made them.
 *
 * The key is twice a global epoch, a counter the writer moves on at every
 * pass.  Reading it is one load of a cache line that changes once a pass,
 * and an event that happens after another (in the program's own order, or
 * through a lock, a queue, the allocator's free lists) reads an epoch no
 * lower.  So the keys order everything but events of one epoch in two
 * threads, which the writer may interleave in any way: that is exact for
 * events that do not depend on each other, and the ones that do are about
 * one block.  For those there is a table of the last stream to touch each
 * address (address and stream in one word, 1 Mi words, touch_word): an
 * event on an address whose word is another's (another thread touched the
 * block last, or the word was taken by another address, or two threads
 * raced for it) is a boundary instead:
 * it moves the epoch on itself, with an atomic add that returns the epoch
 * e it ended, and takes the key 2e + 1, after every event keyed with e and
 * before every event that happens after it.  The block's earlier events
 * came before, its later ones come after: a block freed by one thread and
 * handed to another is freed first in the trace.  A free reads the table
 * and the epoch before the real free, an allocation after the real call.
 * The backing layer's calls (ranges, not blocks) and scope changes are
 * always boundaries.  In a loop of a thread's own mallocs and frees the
 * word is the thread's already and only read; a word never written says
 * no thread touched the address before; and while the program has one
 * recording thread there are no boundaries at all (is_boundary).
 *
 * The writer must never write a segment keyed K while a thread may still
 * publish an event keyed below K.  So a thread announces, before it reads
 * the epoch, a lower bound of its key (pending: its previous key), and
 * clears it after it published the event; the writer moves the epoch on,
 * then reads every bound, and writes only what is keyed below both.  The
 * announcement must be seen before the thread's epoch read, a store then a
 * load, which the processor may reorder: the writer's side pays for that,
 * with membarrier(2) between its move and its reads of the bounds (a
 * thread stopped by it either has its bound seen or reads the epoch after
 * the move).  Where membarrier is not to be had, each announcement is a
 * locked exchange instead.
 *
 * A full ring makes its thread wait for the writer, at most the configured
 * wait (RAMWATCH_TRACE_WAIT_US) without the writer taking anything, then
 * drop the event: the ring counts it, and the thread's next record carries
 * the gap (the count goes on trace.stop too).  The wait is long (a second)
 * because a writer that is only slow is common: write(2) of a large trace
 * sleeps while the kernel writes dirty pages back, for tens of
 * milliseconds and more.  A writer that took nothing for that long is
 * stuck (a disk that does not answer): from then on, until it takes
 * something, every thread drops its events at once instead of waiting the
 * full wait for each.  A thread that ended leaves its ring, stream and all,
 * to the next new thread. */
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace-binary.h"
#include "tracer.h"

#define IDLE UINT64_MAX

/* An entry of a ring's index: a segment of its bytes, or a scope event
 * (no bytes), alone under its key. */
struct segment {
	uint64_t key;
	uint64_t start, end; /* bytes; end is set when the segment is closed */
	uint64_t first;      /* the ring's numbers used before it */
	uint32_t scope;
	uint8_t kind;        /* 0: records; TRACER_SCOPE_ENTER or _EXIT */
};

/* Three cache lines, each written by one side only: the producer writes
 * its line at every event, the writer its line at every segment it takes,
 * and a line either writes and the other reads moves between their cores. */
struct tracer_ring {
	/* the producer's */
	_Alignas(64) _Atomic uint64_t head; /* bytes published */
	_Atomic uint64_t numbered;          /* numbers used: records and their gaps */
	_Atomic uint64_t seg_head;          /* index entries published */
	_Atomic uint64_t pending;
	uint64_t last;          /* the key of the thread's last event */
	uint64_t open_key;      /* the key of the open segment, IDLE for none */
	uint64_t tail_seen, seg_tail_seen; /* the writer's tails as last read */
	uint32_t gap;           /* events dropped since its last record */
	struct trace_bin_stream stream; /* the deltas of the next record */
	/* set when the ring is made, read by both */
	_Alignas(64) unsigned char *buf;
	struct segment *seg;
	uint64_t mask, seg_mask;
	struct tracer_small *small;
	struct tracer_ring *next;
	uint32_t id;       /* its stream in the file, and its mark in the table */
	_Atomic int owned; /* 1 while a live thread writes it */
	/* the writer's */
	_Alignas(64) _Atomic uint64_t tail; /* bytes taken */
	_Atomic uint64_t seg_tail;          /* entries taken */
	uint64_t seen_head, seen_numbered, seen_seg_head; /* as read at this pass */
};

/* the table of the last stream to touch an address */
#define TOUCH_WORDS (1u << 20)
#define TOUCH_ADDRESS ((1ull << 52) - 1)

static _Alignas(64) _Atomic uint64_t epoch;

static _Alignas(64) _Atomic(struct tracer_ring *) rings;
static _Atomic uint32_t ring_count;
static _Atomic uint64_t dropped;
/* events dropped by threads that could not have a ring (more threads at
 * once than a file has streams, or no memory for one): no record of theirs
 * carries the gap, so the end of the trace does */
static _Atomic uint64_t ringless;
static _Atomic uint32_t progress; /* passes of the writer that took segments (a futex word) */
static _Atomic uint32_t waiters;  /* threads waiting for room */
/* progress + 1 when a thread gave up waiting at that progress (the writer
 * is stuck), else 0 */
static _Atomic uint64_t stuck_at;
static _Atomic uint64_t *touch;
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
	size_t n = tracer_config.buffer_bytes, segs = n / 32;
	uint32_t id;

	if (thread_ended)
		return NULL;
	pthread_once(&key_once, make_key);
	/* a ring a thread left, once the writer emptied it */
	for (g = atomic_load(&rings); g; g = g->next) {
		int zero = 0;
		if (atomic_load(&g->owned) == 0 && atomic_load(&g->seg_tail) == atomic_load(&g->seg_head) &&
		    atomic_compare_exchange_strong(&g->owned, &zero, 1))
			goto found;
	}
	/* As many threads at once as a file has streams: the rest drop.  The
	 * id is taken first, and checked after: threads that passed the first
	 * look together must not both get the last one. */
	if (atomic_load(&ring_count) >= TRACE_BIN_STREAMS)
		return NULL;
	id = atomic_fetch_add(&ring_count, 1);
	if (id >= TRACE_BIN_STREAMS)
		return NULL;
	g = tracer_pages(sizeof(*g));
	if (!g)
		return NULL;
	g->buf = tracer_pages(n);
	g->seg = tracer_pages(segs * sizeof(*g->seg));
	g->small = tracer_small_new();
	if (!g->buf || !g->seg || !g->small)
		return NULL;
	g->mask = n - 1;
	g->seg_mask = segs - 1;
	g->open_key = IDLE;
	g->id = id;
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
	if (!touch)
		touch = tracer_pages(TOUCH_WORDS * sizeof(*touch));
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

/* The word of an address: neighbouring blocks in neighbouring words (a
 * heap's events read a few cache lines of the table), and heaps a
 * multiple of 16 MiB apart (glibc's thread arenas are 64 MiB aligned) in
 * different words. */
static inline _Atomic uint64_t *touch_word(uint64_t address)
{
	return &touch[((address >> 4) + (address >> 24) * 0x9e3779b1u) & (TOUCH_WORDS - 1)];
}

/* Marks address as the ring's; whether no other stream may have touched
 * it since its last event here (the word was the ring's already, or never
 * anyone's). */
static inline bool touched_by(struct tracer_ring *g, uint64_t address)
{
	uint64_t mine = (address & TOUCH_ADDRESS) | ((uint64_t)(g->id + 1) << 52), was;
	_Atomic uint64_t *w;

	if (!address || !touch)
		return true;
	w = touch_word(address);
	if ((was = atomic_load_explicit(w, memory_order_relaxed)) == mine)
		return true;
	atomic_store_explicit(w, mine, memory_order_relaxed);
	return was == 0;
}

/* While the program has had one thread that records (its rings count
 * one), its events are in its own order and none is a boundary: a thread
 * that made an event before this one made its ring before, and this one
 * sees the count it raised.  The words are kept all the same, for the
 * threads to come. */
static bool is_boundary(struct tracer_ring *g, const struct tracer_record *r)
{
	bool own = touched_by(g, r->address);

	if (r->kind == TRACER_MOVE && !touched_by(g, r->old_address))
		own = false;
	if (atomic_load_explicit(&ring_count, memory_order_relaxed) == 1)
		return false;
	switch (r->kind) {
	case TRACER_ALLOC:
	case TRACER_FREE:
	case TRACER_RESIZE:
	case TRACER_MOVE:
		return !own;
	default:
		return true;
	}
}

static inline uint64_t key_of(bool boundary)
{
	if (boundary)
		return 2 * atomic_fetch_add(&epoch, 1) + 1;
	return 2 * atomic_load_explicit(&epoch, memory_order_relaxed);
}

/* Whether there is room for bytes at the ring's head (after any wrap),
 * and for one more index entry when a segment is to be opened. */
static bool has_room(struct tracer_ring *g, uint64_t at, size_t bytes, bool opens)
{
	uint64_t size = g->mask + 1, segs = g->seg_mask + 1;
	uint64_t sh = atomic_load_explicit(&g->seg_head, memory_order_relaxed);

	if (at + bytes - g->tail_seen <= size && (!opens || sh - g->seg_tail_seen < segs))
		return true;
	g->tail_seen = atomic_load_explicit(&g->tail, memory_order_acquire);
	g->seg_tail_seen = atomic_load_explicit(&g->seg_tail, memory_order_acquire);
	return at + bytes - g->tail_seen <= size && (!opens || sh - g->seg_tail_seen < segs);
}

static void open_segment(struct tracer_ring *g, uint64_t key, uint64_t at, const struct tracer_record *r)
{
	uint64_t sh = atomic_load_explicit(&g->seg_head, memory_order_relaxed);
	bool scope = r->kind == TRACER_SCOPE_ENTER || r->kind == TRACER_SCOPE_EXIT;

	if (g->open_key != IDLE)
		g->seg[(sh - 1) & g->seg_mask].end = atomic_load_explicit(&g->head, memory_order_relaxed);
	g->seg[sh & g->seg_mask] = (struct segment){
		.key = key,
		.start = at,
		.end = at,
		.first = atomic_load_explicit(&g->numbered, memory_order_relaxed),
		.scope = scope ? r->scope : 0,
		.kind = scope ? r->kind : 0,
	};
	atomic_store_explicit(&g->seg_head, sh + 1, memory_order_release);
	g->open_key = scope ? IDLE : key;
}

/* Encodes r into the ring under key; false when there is no room. */
static bool put(struct tracer_ring *g, const struct tracer_record *r, uint64_t key)
{
	bool scope = r->kind == TRACER_SCOPE_ENTER || r->kind == TRACER_SCOPE_EXIT;
	uint64_t at = atomic_load_explicit(&g->head, memory_order_relaxed), was = at;
	uint64_t size = g->mask + 1, n = 1 + g->gap;
	bool opens = scope || key != g->open_key;

	/* a segment is whole bytes of the ring: one that would wrap ends, and
	 * the next starts at the ring's start */
	if (!scope && (at & g->mask) + TRACE_BIN_RECORD_MAX > size) {
		at += size - (at & g->mask);
		opens = true;
	}
	if (!has_room(g, at, scope ? 0 : TRACE_BIN_RECORD_MAX, opens))
		return false;
	if (opens)
		open_segment(g, key, at, r);

	if (!scope) {
		struct trace_bin_record b = {
			.kind = (enum trace_bin_kind)(r->kind + 1),
			.failed = r->flags & TRACER_FAILED,
			.gap = g->gap,
			.address = r->address,
			.old_address = r->old_address,
			.len = r->len,
			.old_len = r->old_len,
			.return_address = r->site,
			.scope_id = r->scope,
			.stack_id = r->stack,
		};
		at += trace_bin_encode(&g->stream, &b, g->buf + (at & g->mask));
		atomic_store_explicit(&g->head, at, memory_order_release);
	}
	atomic_store_explicit(&g->numbered, atomic_load_explicit(&g->numbered, memory_order_relaxed) + n,
			      memory_order_release);
	g->gap = 0;
	g->last = key;
	/* every half of the ring filled wakes the writer before it fills */
	if ((was ^ at) > (g->mask >> 1))
		tracer_ring_wake_writer();
	return true;
}

/* Whether the thread may still record (and has its bound announced). */
static bool begin(struct tracer_ring *g)
{
	/* The stop leaves ON, fences, then waits for every bound to clear:
	 * either it sees this one or this sees it is no longer ON. */
	announce(g);
	if (atomic_load_explicit(&tracer_state, memory_order_relaxed) == TRACER_ON)
		return true;
	atomic_store_explicit(&g->pending, IDLE, memory_order_release);
	return false;
}

void tracer_ring_emit(const struct tracer_record *r)
{
	struct tracer_ring *g = ring_mine();
	uint64_t deadline = 0;
	uint32_t seen = 0;
	bool boundary;

	/* After its ring's key destructor a thread runs only the C library's
	 * and other libraries' last clean-up (the program's thread_local
	 * destructors ran before): not traced, and not a drop either. */
	if (!g) {
		if (!thread_ended) {
			atomic_fetch_add(&dropped, 1);
			atomic_fetch_add(&ringless, 1);
		}
		return;
	}
	if (!begin(g))
		return;
	boundary = is_boundary(g, r);
	for (;;) {
		uint64_t key = key_of(boundary);
		if (key < g->last)
			key = g->last; /* never below the bound announced */
		if (put(g, r, key))
			break;
		/* A full ring: the bound is withdrawn while the thread waits, or
		 * the writer could not take the segment it is in; the key is
		 * read again after (later, which a free before its real call
		 * and an allocation after its own still are).  The thread
		 * waits as long as the writer takes segments, and drops the
		 * event when it took none for the configured wait, or none
		 * since a thread (this one or another) gave up on it. */
		atomic_store_explicit(&g->pending, IDLE, memory_order_release);
		uint32_t p = atomic_load(&progress);
		uint64_t now = tracer_now_ns();
		if (!deadline || p != seen)
			deadline = now + tracer_config.wait_ns;
		seen = p;
		if (atomic_load_explicit(&stuck_at, memory_order_relaxed) == (uint64_t)p + 1 || now >= deadline) {
			atomic_store_explicit(&stuck_at, (uint64_t)p + 1, memory_order_relaxed);
			atomic_fetch_add(&dropped, 1);
			g->gap++;
			return;
		}
		/* asleep until the writer took something (not polling: on a
		 * busy machine the writer needs the CPU), at most 1 ms */
		uint64_t ns = deadline - now < 1000000u ? deadline - now : 1000000u;
		struct timespec ts = { .tv_nsec = (long)ns };
		atomic_fetch_add(&waiters, 1);
		tracer_ring_wake_writer();
		syscall(SYS_futex, &progress, FUTEX_WAIT_PRIVATE, p, &ts, NULL, 0);
		atomic_fetch_sub(&waiters, 1);
		if (!begin(g))
			return;
	}
	atomic_store_explicit(&g->pending, IDLE, memory_order_release);
}

uint64_t tracer_ring_dropped(void)
{
	return atomic_load(&dropped);
}

uint64_t tracer_ring_unplaced(void)
{
	uint64_t n = atomic_load(&ringless);

	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next)
		n += g->gap;
	return n;
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
	atomic_store(&ringless, 0);
	atomic_store(&waiters, 0); /* the parent's other threads are not the child's */
	atomic_store(&stuck_at, 0); /* nor its writer */
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		atomic_store(&g->tail, atomic_load(&g->head));
		atomic_store(&g->seg_tail, atomic_load(&g->seg_head));
		atomic_store(&g->pending, IDLE);
		atomic_store(&g->owned, g == my_ring);
		g->open_key = IDLE;
		g->stream = (struct trace_bin_stream){ 0 };
		g->gap = 0;
		tracer_small_reset(g->small);
	}
	tracer_writer_reset_streams();
}

/* The key below which every event was published. */
static uint64_t watermark(bool all)
{
	uint64_t w;

	if (all)
		return UINT64_MAX;
	w = 2 * (atomic_fetch_add(&epoch, 1) + 1);
	fence_remote();
	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
		uint64_t p = atomic_load(&g->pending);
		if (p < w)
			w = p;
	}
	return w;
}

/* What g has published, read in this order: an entry the head or the
 * numbers already count is seen (see tracer_ring_drain). */
static void look(struct tracer_ring *g)
{
	g->seen_head = atomic_load_explicit(&g->head, memory_order_acquire);
	g->seen_numbered = atomic_load_explicit(&g->numbered, memory_order_acquire);
	g->seen_seg_head = atomic_load_explicit(&g->seg_head, memory_order_acquire);
}

/* The key of g's next segment not taken, IDLE for none. */
static uint64_t next_key(struct tracer_ring *g)
{
	uint64_t t = atomic_load_explicit(&g->seg_tail, memory_order_relaxed);
	return t == g->seen_seg_head ? IDLE : g->seg[t & g->seg_mask].key;
}

/* Hands g's next segment to the writer and gives its room back.  The last
 * entry seen may still be open: then its end and numbers are the head and
 * numbers read before it, which nothing later can have added to (it is
 * keyed below the watermark, so its thread opens a new one for anything
 * more, and publishes that entry before any of its bytes). */
static void take(struct tracer_ring *g)
{
	uint64_t t = atomic_load_explicit(&g->seg_tail, memory_order_relaxed);
	const struct segment *s = &g->seg[t & g->seg_mask];
	bool last = t + 1 == g->seen_seg_head;
	uint64_t end = s->kind ? s->start : last ? g->seen_head : s->end;
	uint64_t numbers = (last ? g->seen_numbered : g->seg[(t + 1) & g->seg_mask].first) - s->first;

	if (end < s->start)
		end = s->start;
	if (s->kind)
		tracer_writer_scope((enum tracer_kind)s->kind, s->scope, numbers ? numbers - 1 : 0);
	else if (end > s->start)
		tracer_writer_segment(g->id, g->buf + (s->start & g->mask), end - s->start, numbers);
	atomic_store_explicit(&g->tail, end, memory_order_release);
	atomic_store_explicit(&g->seg_tail, t + 1, memory_order_release);
	tracer_ring_progress();
}

void tracer_ring_progress(void)
{
	atomic_fetch_add_explicit(&progress, 1, memory_order_release);
	if (atomic_load(&waiters))
		syscall(SYS_futex, &progress, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

/* The ring whose next segment has the lowest key gives segments until
 * another's next one is lower, or the watermark is reached; keys alike in
 * two rings are of one epoch, written one ring after the other. */
size_t tracer_ring_drain(bool all)
{
	uint64_t w;
	size_t n = 0;
	bool any = false;

	/* nothing published, nothing to order: no epoch moved and no
	 * membarrier's interrupts to the program's threads (at the default
	 * threshold most passes of the writer find nothing) */
	for (struct tracer_ring *g = atomic_load(&rings); g && !any; g = g->next)
		any = atomic_load_explicit(&g->seg_tail, memory_order_relaxed) !=
		      atomic_load_explicit(&g->seg_head, memory_order_acquire);
	if (!any)
		return 0;
	w = watermark(all);

	for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next)
		look(g);
	for (;;) {
		struct tracer_ring *best = NULL;
		uint64_t best_key = IDLE, second = IDLE;

		for (struct tracer_ring *g = atomic_load(&rings); g; g = g->next) {
			uint64_t k = next_key(g);
			if (k < best_key) {
				second = best_key;
				best_key = k;
				best = g;
			} else if (k < second) {
				second = k;
			}
		}
		if (!best || best_key >= w)
			break;
		for (uint64_t k; (k = next_key(best)) < w && k <= second; n++)
			take(best);
	}
	return n;
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
