/* The allocation tracer's parts, shared inside libramwatch-trace.so only.
 *
 * Nothing here may call malloc or anything that might: the tracer runs
 * inside the program's malloc.  Its memory comes from mmap (tracer_pages),
 * its strings are formatted by hand, its files written with write(2).
 *
 *   tracer-hooks.c    the interposed functions and the dlsym bootstrap
 *   tracer-ring.c     per-thread rings of encoded records in segments, their order, drops
 *   tracer-writer.c   the writer thread: copies the segments in order into the binary
 *                     format (trace/trace-binary.c, built in), or writes JSON Lines
 *   tracer-session.c  start, stop, fork, the configuration from the environment
 *   tracer-scope.c    the program's scopes (the C API, the scope variable, marks)
 *   tracer-small.c    per-site counts of allocations below the threshold
 *   tracer-objects.c  the loaded objects and their load addresses
 *   tracer-stack.c    stacks of N frames (--stack N), as a table of ids */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACER_HIDDEN __attribute__((visibility("hidden")))
#define TRACER_EXPORT __attribute__((visibility("default")))

/* Environment: what `ramwatch trace record` sets (ramwatch-trace(3)). */
#define TRACER_ENV_FILE "RAMWATCH_TRACE_FILE"
#define TRACER_ENV_MIN_BYTES "RAMWATCH_TRACE_MIN_BYTES"
#define TRACER_ENV_STACK "RAMWATCH_TRACE_STACK"
#define TRACER_ENV_SCOPE_ENV "RAMWATCH_TRACE_SCOPE_ENV"
#define TRACER_ENV_BUFFER "RAMWATCH_TRACE_BUFFER"
#define TRACER_ENV_WAIT "RAMWATCH_TRACE_WAIT_US"
#define TRACER_ENV_FORMAT "RAMWATCH_TRACE_FORMAT" /* "json" or "binary" */

#define TRACER_MIN_BYTES_DEFAULT 4096u
#define TRACER_BUFFER_DEFAULT (1u << 20)   /* bytes of records per thread */
#define TRACER_BUFFER_MIN (1u << 12)
#define TRACER_BUFFER_MAX (1u << 28)
#define TRACER_WAIT_DEFAULT_US 1000000u    /* a full ring waits this long, then drops */
#define TRACER_STACK_MAX 16u

#define TRACER_ALLOCATOR_MALLOC 1u
#define TRACER_ALLOCATOR_MMAP 2u

enum tracer_kind {
	TRACER_ALLOC,
	TRACER_FREE,
	TRACER_RESIZE,
	TRACER_MOVE,   /* realloc to another address: a logical remap */
	TRACER_MAP,
	TRACER_UNMAP,
	TRACER_REMAP,  /* mremap */
	TRACER_SCOPE_ENTER,
	TRACER_SCOPE_EXIT,
};

#define TRACER_FAILED 1u /* the call failed: "succeeded": false */

/* One event, as the hooks give it to the ring (which encodes it). */
struct tracer_record {
	uint64_t address;
	uint64_t old_address;
	uint64_t len;
	uint64_t old_len;
	uint64_t site;   /* return address, or a stack's site id with --stack */
	uint32_t scope;  /* scope id, 0 for root */
	uint32_t stack;  /* stack id with --stack, 0 for none */
	uint8_t kind;
	uint8_t flags;
};

struct tracer_config {
	uint64_t min_bytes;
	unsigned stack;
	size_t buffer_bytes;
	uint64_t wait_ns;
	bool binary; /* --format binary (trace/trace-binary.h), else JSON Lines */
	char file[512];
	char scope_env[128];
};

enum tracer_state { TRACER_OFF, TRACER_ON, TRACER_STOPPED };

extern TRACER_HIDDEN struct tracer_config tracer_config;
extern TRACER_HIDDEN _Atomic int tracer_state;

/* The calling thread's own state, in one thread-local block so that
 * malloc's fast path looks its place up once. */
struct small_slot;
struct tracer_thread {
	/* the guard: set while the tracer itself runs, so anything it calls
	 * that allocates goes straight to the real allocator */
	int busy;
	/* the site and scope of the thread's last small-block count, and its
	 * slot (site 0: none, and while the guard is on; no call returns to
	 * address 0) */
	uint32_t scope;
	uint64_t site;
	struct small_slot *slot;
};
extern TRACER_HIDDEN __thread struct tracer_thread tracer_self __attribute__((tls_model("initial-exec")));

/* The guard on and off.  On, it also forgets the last slot's site, so that
 * malloc's fast path, which compares the site only, cannot count a block
 * the tracer itself asks for: the next small block goes the slow way and
 * finds its slot again. */
static inline void tracer_guard(void)
{
	tracer_self.busy++;
	tracer_self.site = 0;
}

static inline void tracer_unguard(void)
{
	tracer_self.busy--;
}

/* memory and output without malloc */
TRACER_HIDDEN void *tracer_pages(size_t bytes);
TRACER_HIDDEN void tracer_unpages(void *p, size_t bytes);
TRACER_HIDDEN uint64_t tracer_now_ns(void);

/* tracer-ring.c: producers */
/* Before the session starts. */
TRACER_HIDDEN void tracer_ring_init(void);
/* Records an event of the calling thread.  Drops (and counts) when the
 * thread's ring stays full for the configured wait. */
TRACER_HIDDEN void tracer_ring_emit(const struct tracer_record *r);
/* the events dropped so far */
TRACER_HIDDEN uint64_t tracer_ring_dropped(void);
/* the dropped events no later record of their ring placed (after the
 * quiesce), and those of threads that had no ring: a gap before the
 * trace's end, so that every dropped event is a missing number */
TRACER_HIDDEN uint64_t tracer_ring_unplaced(void);
/* Waits until no thread is inside tracer_ring_emit (after the state left ON). */
TRACER_HIDDEN void tracer_ring_quiesce(void);
/* In a fork's child: empties every ring, the caller's kept as its own. */
TRACER_HIDDEN void tracer_ring_reset_child(void);

/* tracer-ring.c: the writer's side */
/* Hands the writer (tracer_writer_segment, tracer_writer_scope), in their
 * order, the segments keyed below the watermark no thread can still go
 * under (all: every segment).  Returns how many; call again until 0. */
TRACER_HIDDEN size_t tracer_ring_drain(bool all);
TRACER_HIDDEN void tracer_ring_wake_writer(void);
/* The writer is at work (room made, or a long segment on its way): wakes
 * the threads waiting for room, whose wait starts again. */
TRACER_HIDDEN void tracer_ring_progress(void);
TRACER_HIDDEN void tracer_ring_wait_writer(uint64_t timeout_ns);
/* Calls fn for every ring's small-allocation table. */
struct tracer_small;
TRACER_HIDDEN void tracer_ring_each_small(void (*fn)(struct tracer_small *t));
TRACER_HIDDEN struct tracer_small *tracer_ring_my_small(void);
/* whether the thread has its ring and table already (no call to claim one) */
TRACER_HIDDEN bool tracer_ring_has_small(void);

/* tracer-small.c */
TRACER_HIDDEN struct tracer_small *tracer_small_new(void);
TRACER_HIDDEN void tracer_small_count(struct tracer_small *t, uint64_t site, uint32_t scope, uint64_t len);
TRACER_HIDDEN void tracer_small_reset(struct tracer_small *t);
/* Counts the allocation when it is of the calling thread's last site and
 * scope; false (nothing counted) otherwise. */
TRACER_HIDDEN bool tracer_small_again(uint64_t site, uint32_t scope, uint64_t len);
/* A thread that gives its ring up forgets its last slot, in the table the
 * ring's next thread will count in. */
TRACER_HIDDEN void tracer_small_forget(void);
/* Writes one untracked alloc per site and scope of t. */
TRACER_HIDDEN void tracer_small_write(struct tracer_small *t);

/* tracer-writer.c */
TRACER_HIDDEN int tracer_writer_open(const char *path, bool exclusive);
TRACER_HIDDEN void tracer_writer_close(void);
/* In a fork's child: drops the parent's unwritten bytes and descriptor. */
TRACER_HIDDEN void tracer_writer_close_child(void);
TRACER_HIDDEN int tracer_writer_start_thread(void);
/* Ends the writer thread after it drained every ring. */
TRACER_HIDDEN void tracer_writer_join(void);
/* A segment of stream's encoded records, numbers of them (their gaps
 * included), written in that order. */
TRACER_HIDDEN void tracer_writer_segment(uint32_t stream, const unsigned char *bytes, size_t len, uint64_t numbers);
/* A scope event (enter or exit of id) after gap dropped events. */
TRACER_HIDDEN void tracer_writer_scope(enum tracer_kind kind, uint32_t id, uint64_t gap);
/* In a fork's child: the streams start again, as the child's file does. */
TRACER_HIDDEN void tracer_writer_reset_streams(void);
/* The next sequence number, for an event the session writes itself (only
 * while the writer thread does not run). */
TRACER_HIDDEN uint64_t tracer_writer_next_seq(void);
/* Leaves the numbers of n more dropped events out (the trace's end). */
TRACER_HIDDEN void tracer_writer_skip(uint64_t n);
/* Pieces of one JSON line, for the session's own lines. */
TRACER_HIDDEN void tracer_out_str(const char *s);
TRACER_HIDDEN void tracer_out_mem(const char *s, size_t n);
TRACER_HIDDEN void tracer_out_u64(uint64_t v);
TRACER_HIDDEN void tracer_out_hex(uint64_t v);
TRACER_HIDDEN void tracer_out_json_string(const char *s);
TRACER_HIDDEN void tracer_out_flush(void);

/* tracer-scope.c */
TRACER_HIDDEN void tracer_scope_init(void);
TRACER_HIDDEN uint32_t tracer_scope_current(void);
/* the path of a defined scope id */
TRACER_HIDDEN const char *tracer_scope_path(uint32_t id);
/* Follows the scope variable (--scope-env) or a mark, when it changed. */
TRACER_HIDDEN void tracer_scope_follow_env(void);
TRACER_HIDDEN void tracer_scope_follow_mark(void);
/* Writes scope.enter lines for the scopes open now (a fork's child's trace). */
TRACER_HIDDEN void tracer_scope_reopen(void);
/* Leaves every open scope: the end of the trace ends them. */
TRACER_HIDDEN void tracer_scope_close_all(void);
TRACER_HIDDEN void tracer_scope_lock(void);
TRACER_HIDDEN void tracer_scope_unlock(void);

/* tracer-objects.c: one "object" line per loaded object */
TRACER_HIDDEN void tracer_objects_write(void);

/* tracer-stack.c: --stack N */
/* Loads libunwind when N > 1.  Returns 0, or -1 when it cannot (then the
 * trace records callers only and says so in its allocator line). */
TRACER_HIDDEN int tracer_stack_init(void);
/* The id of the stack from caller up, 0 when none. */
TRACER_HIDDEN uint32_t tracer_stack_id(uint64_t caller);
TRACER_HIDDEN void tracer_stack_write(void);

/* tracer-hooks.c: the fast path of malloc on (the session records) or off */
TRACER_HIDDEN void tracer_hooks_record(bool on);

/* tracer-session.c */
TRACER_HIDDEN void tracer_session_start(void);
TRACER_HIDDEN void tracer_session_stop(void);
