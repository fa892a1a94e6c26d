/* The memtrace replay: the state one pass over a trace builds, for one
 * layer (backing, logical or physical), event by event.
 *
 * Memory follows what is live (allocations, mapped ranges) and what is
 * distinct (scopes, sites, allocators, scope ids), never the number of
 * events: nothing is kept per event.  The semantics are the reference
 * analyzer's (doc/trace-format.md#replay); the comments say where a rule comes from. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "trace-binary.h"
#include "trace-counters.h"
#include "trace-event.h"
#include "trace-ledger.h"
#include "trace-live.h"
#include "trace-scopes.h"
#include "hashtab.h"

struct trace_replay_options {
	enum trace_layer layer;
	bool track_sites;     /* --sites: counters per return address */
	bool track_stacks;    /* --stacks: counters per stack_id */
	bool has_site_detail; /* --site ADDRESS: sizes and scopes of one site */
	uint64_t site_detail;
	/* Only the counters of the whole trace (trace record's closing line):
	 * no scope's counters and no lifetimes are kept, which the report
	 * would print wrong.  Everything else is replayed, so the same events
	 * are refused for the same reasons. */
	bool totals_only;
};

/* Entries of the analyzer's cache of scope ids (a power of two). */
#define TRACE_SCOPE_CACHE 1024u

/* Counters of the whole trace: those of a scope and more. */
struct trace_totals {
	struct trace_counters c;
	uint64_t resizes;
	uint64_t remaps;
	uint64_t failed_allocations;
	uint64_t failed_resizes;
	uint64_t failed_remaps;
	uint64_t unmatched_frees;
	uint64_t unmatched_resizes;
	uint64_t unmatched_remaps;
	uint64_t lifecycle_events;
};

struct trace_physical {
	uint64_t maps, unmaps, protects, discards, decommits, advises;
	uint64_t failed_maps, failed_unmaps, failed_protects, failed_discards, failed_decommits, failed_advises;
	uint64_t mapped_bytes;
	uint64_t unmapped_bytes;
	uint64_t displaced_bytes;
	uint64_t untracked_unmap_bytes;
	uint64_t live_mapped_bytes;
	uint64_t high_water_mapped_bytes;
};

/* What the capture-integrity verdict is made of. */
struct trace_sequence {
	uint64_t sequenced_events;
	uint64_t unsequenced_events;
	uint64_t sequence_gaps;
	uint64_t missing_sequence_events;
	uint64_t sequence_regressions;
	uint64_t start_events;
	uint64_t stop_events;
	uint64_t unmatched_scope_exits;
	uint64_t active_scope_events;
	bool has_first, has_last, has_start, has_stop;
	uint64_t first, last, start, stop;
};

/* Slots of the analyzer's tables (the key first). */
struct trace_allocator {
	uint64_t id;
	enum trace_layer layer;
	bool retains_freed_memory;
	bool lifecycle_instrumented;
	bool prefix_complete;
};

struct trace_site {
	uint64_t return_address;
	struct trace_counters counters;
};

/* A stack of --stack N: the frames a "stack" event gave its id, and with
 * --stacks the counters of the allocations whose events carry it.  Id 0
 * holds the events without a stack_id. */
struct trace_stack {
	uint64_t id;
	struct trace_counters counters;
	size_t first_frame; /* in trace_analyzer.frames */
	uint32_t n_frames;
	bool recorded; /* a stack event defined it */
};

/* A bucket of --site detail: by length or by scope index. */
struct trace_bucket {
	uint64_t key;
	struct trace_counters counters;
};

struct trace_scope_id {
	uint64_t id;
	uint32_t scope; /* the path a scope.enter gave it */
	uint64_t active; /* enters not yet exited */
};

/* A loaded object of the traced program ("object" events). */
struct trace_object {
	char *path;
	uint64_t bias; /* what the loader added to the object's own addresses */
	uint64_t len;
};

struct trace_analyzer {
	struct trace_replay_options options;
	uint64_t events;
	struct trace_totals totals;
	struct trace_physical physical;
	struct trace_sequence sequence;
	struct trace_scopes scopes;
	struct hashtab allocators;   /* struct trace_allocator */
	struct trace_live allocations;
	struct hashtab scope_ids;    /* struct trace_scope_id */
	struct hashtab sites;        /* struct trace_site */
	struct hashtab stacks;       /* struct trace_stack */
	struct hashtab detail_sizes; /* struct trace_bucket, by length */
	struct hashtab detail_scopes; /* struct trace_bucket, by scope */
	struct trace_ledger ledger;
	struct trace_object *objects;
	size_t n_objects, objects_alloc;
	uint64_t *frames; /* the stacks' frames, one after another */
	size_t n_frames, frames_alloc;
	uint64_t stack_events; /* "stack" events, and events with a stack_id */
	/* The allocator of the last event: nearly every event asks about one,
	 * and traces use few.  Reset whenever an allocator event may move the
	 * table's slots. */
	int64_t root_scope; /* the index of "root" once interned, else -1 */
	uint64_t cached_allocator_id;
	const struct trace_allocator *cached_allocator;
	bool allocator_cached;
	/* The scope each recent scope_id names, by the id's low bits (id 0:
	 * an empty entry): nearly every event names its scope by id, and an
	 * id keeps the scope a scope.enter first gave it, so an entry never
	 * goes stale; a miss asks scope_ids. */
	struct {
		uint32_t id, scope;
	} scope_cache[TRACE_SCOPE_CACHE];
};

void trace_analyzer_init(struct trace_analyzer *a, const struct trace_replay_options *o);
void trace_analyzer_done(struct trace_analyzer *a);

/* Replays one event.  Returns 0; -EINVAL with a reason in err for
 * an event that breaks the format's rules (a scope_id used
 * before it is defined or redefined, a mapping past the address space);
 * -ENOMEM.  After an error the analyzer must not be fed further. */
int trace_analyzer_ingest(struct trace_analyzer *a, const struct trace_event *e, struct error *err);

/* Replays the records of n frames of a binary trace, all of the logical
 * kinds (alloc, free, resize, move: kind <= TRACE_BIN_MOVE), as
 * trace_analyzer_ingest replays the events they stand for (trace_bin_json's
 * lines), without building those events.  Returns as
 * trace_analyzer_ingest does, with the records replayed in *ret_done (on
 * an error, the index of the one refused). */
int trace_analyzer_ingest_records(struct trace_analyzer *a, const struct trace_bin_frame *f, size_t n,
				  size_t *ret_done, struct error *err);

/* The stack of id (0: the row of events without one), a new one zeroed.
 * Returns 0; -EINVAL with a reason past RW_TRACE_STACKS_MAX ids; -ENOMEM.
 * Slot pointers stay valid until the next new id. */
int trace_analyzer_stack(struct trace_analyzer *a, uint32_t id, struct trace_stack **ret, struct error *err);

/* Counts an event's sequence number (has_seq false or seq 0: none) for
 * the capture-integrity verdict: gaps, the events they miss, regressions.
 * Inline: every record of a binary trace passes here. */
static inline void trace_analyzer_sequence(struct trace_analyzer *a, bool has_seq, uint64_t seq)
{
	struct trace_sequence *s = &a->sequence;

	if (!has_seq || seq == 0) {
		trace_add(&s->unsequenced_events, 1);
		return;
	}
	trace_count(&s->sequenced_events);
	if (!s->has_last) {
		s->has_first = s->has_last = true;
		s->first = s->last = seq;
		/* numbering starts at 1: a first number above it means events
		 * before it were lost */
		if (seq > 1) {
			trace_add(&s->sequence_gaps, 1);
			trace_add(&s->missing_sequence_events, seq - 1);
		}
		return;
	}
	if (seq <= s->last) {
		trace_add(&s->sequence_regressions, 1);
	} else if (seq - s->last > 1) {
		trace_add(&s->sequence_gaps, 1);
		trace_add(&s->missing_sequence_events, seq - s->last - 1);
	}
	s->last = seq;
}

/* Starts loading what replaying e will touch first (its allocation's slot),
 * so a caller holding a few parsed events can overlap those memory loads
 * with parsing.  A hint: it changes nothing.  Always inlined, for the
 * reason hashtab_prefetch is (a plain inline function doing only this
 * compiled to nothing). */
__attribute__((always_inline)) static inline void trace_analyzer_prefetch(const struct trace_analyzer *a,
									  const struct trace_event *e)
{
	uint64_t address = e->kind == TRACE_KIND_REMAP ? e->old_address : e->address;
	trace_live_prefetch(&a->allocations, e->allocation_id ? e->allocation_id : address);
}

/* The same for a record of a binary trace. */
__attribute__((always_inline)) static inline void trace_analyzer_prefetch_record(const struct trace_analyzer *a,
										 const struct trace_bin_record *r)
{
	trace_live_prefetch(&a->allocations, r->kind == TRACE_BIN_MOVE ? r->old_address : r->address);
}

/* Logical-layer producers by lifecycle coverage (lifecycle_coverage line). */
struct trace_coverage {
	uint64_t instrumented, uninstrumented, not_required, prefix_complete, prefix_partial;
};
void trace_analyzer_coverage(const struct trace_analyzer *a, struct trace_coverage *ret);
const char *trace_coverage_status(const struct trace_coverage *c);

/* The events neither side of which was seen: unmatched frees, resizes,
 * remaps and scope exits, and scopes still open. */
uint64_t trace_analyzer_unbalanced(const struct trace_analyzer *a);
