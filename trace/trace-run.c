/* The replay of runs of binary records (trace-run.h): each record decoded
 * into what its rule reads, its allocation's slot loading while the
 * records decoded before it are applied, and the rules of alloc, free,
 * resize and move applied here, inline, to the totals and the scopes.
 * The rules are those of trace_alloc_record for the options
 * trace_run_usable accepts, where no site, stack or detail bucket counts:
 * the same counters in the same order, so a summary is the same byte for
 * byte. */
#include "trace-run.h"

#include <errno.h>
#include <string.h>

#include "trace-alloc.h"

/* Records decoded ahead of their rules (a power of two): their slots'
 * loads overlap with the work between.  8: with the live table at most
 * half full (4 MiB of slots for the benchmark's 50,000 live allocations),
 * 2-3 % less CPU time than 16, the general replay's batch, and 32 was 3 %
 * more; 4 was as fast as 8 on 1 M events and slower on 4 M. */
#define GROUP 8

/* A record as its rule reads it. */
struct run_record {
	uint64_t key;     /* its allocation's address; a move's old one */
	uint64_t address; /* a move's new address */
	uint64_t len;
	uint32_t scope;   /* the index of its scope */
	uint8_t kind;     /* enum trace_bin_kind, alloc to move */
	bool failed;
};

bool trace_run_usable(const struct trace_analyzer *a)
{
	return trace_alloc_pairs(a);
}

/* The index of the scope of scope_id, as trace_analyzer_ingest_records
 * resolves it; false when the general replay must (an id above 2^32 or
 * not given yet, "root" not interned yet). */
static inline bool scope_index(struct trace_analyzer *a, uint64_t scope_id, uint32_t *ret)
{
	if (scope_id == 0) {
		if (a->root_scope < 0)
			return false;
		*ret = (uint32_t)a->root_scope;
		return true;
	}
	if (scope_id > UINT32_MAX)
		return false;
	typeof(a->scope_cache[0]) *c = &a->scope_cache[scope_id & (TRACE_SCOPE_CACHE - 1)];
	if (c->id != scope_id) {
		const struct trace_scope_id *id = hashtab_get(&a->scope_ids, scope_id);
		if (!id)
			return false;
		c->scope = id->scope;
		c->id = (uint32_t)scope_id;
	}
	*ret = c->scope;
	return true;
}

static inline uint64_t zigzag(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

/* Where the run has a second copy compiled for BMI2, whose varints are
 * packed by one pext instruction (x86-64 with GCC or Clang). */
#if defined(__x86_64__) && defined(__GNUC__)
#define RUN_PEXT 1
#include <cpuid.h>
#else
#define RUN_PEXT 0
#endif

/* The seven-bit groups of the bytes of w below its stop bit packed
 * together (w holds a varint and the bytes after it; stop is ~w's top
 * bits): one pext in the copy of the run for processors where it is fast,
 * else three steps. */
__attribute__((always_inline)) static inline uint64_t pack64(uint64_t w, uint64_t stop, bool pext)
{
	w &= stop ^ (stop - 1);
#if RUN_PEXT
	if (pext) {
		uint64_t r;
		/* assembly, not the builtin: the plain copy, compiled without
		 * BMI2, may not name the builtin even where it is never run */
		__asm__("pextq %2, %1, %0" : "=r"(r) : "r"(w), "r"(0x7f7f7f7f7f7f7f7full));
		return r;
	}
#endif
	uint64_t x = w & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
	x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
	return (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
}

/* The same for four bytes. */
__attribute__((always_inline)) static inline uint32_t pack32(uint32_t h, uint32_t stop, bool pext)
{
	h &= stop ^ (stop - 1);
#if RUN_PEXT
	if (pext) {
		uint32_t r;
		__asm__("pextl %2, %1, %0" : "=r"(r) : "r"(h), "r"(0x7f7f7f7fu));
		return r;
	}
#endif
	uint32_t x = h & 0x7f7f7f7fu;
	x = (x & 0x007f007fu) | (x & 0x7f007f00u) >> 1;
	return (x & 0x00003fffu) | (x & 0x3fff0000u) >> 2;
}

/* trace_bin_varint_whole with its groups packed by pack64. */
__attribute__((always_inline)) static inline const unsigned char *varint_whole(const unsigned char *p, uint64_t *v,
									   bool pext)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, stop;
	memcpy(&w, p, sizeof(w));
	stop = ~w & 0x8080808080808080ull;
	if (stop) {
		*v = pack64(w, stop, pext);
		return p + __builtin_ctzll(stop) / 8 + 1;
	}
#else
	(void)pext;
#endif
	return trace_bin_varint_whole(p, v);
}

/* trace_bin_varint_small with its groups packed by pack32. */
__attribute__((always_inline)) static inline const unsigned char *varint_small(const unsigned char *p, uint64_t *v,
									   bool pext)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t h, stop;
	memcpy(&h, p, sizeof(h));
	stop = ~h & 0x80808080u;
	if (stop) {
		*v = pack32(h, stop, pext);
		return p + __builtin_ctz(stop) / 8 + 1;
	}
#endif
	return varint_whole(p, v, pext);
}

#define READ_(read, dst)                          \
	do {                                      \
		if (!(p = read(p, &(dst), pext))) \
			return NULL;              \
	} while (0)
#define VARINT_(dst) READ_(varint_whole, dst)
#define SMALL_(dst) READ_(varint_small, dst)
#define SKIP_()                                          \
	do {                                             \
		if (!(p = trace_bin_varint_skip(p)))     \
			return NULL;                     \
	} while (0)

/* The record at p (its gap first, when it has one) into r, its deltas
 * from base, the gap in *ret_gap and whether it names a stack in
 * *ret_stack.  Returns the position after it, or NULL when the general
 * replay must take it.  Only the fields of its kind are read, and the
 * return address is skipped: nothing the run counts reads it, so the
 * stream's base for it is left behind (the general replay's rules read
 * return addresses only for the options a run is never used with). */
__attribute__((always_inline)) static inline const unsigned char *decode(struct trace_analyzer *a,
									  const unsigned char *p, uint64_t base,
									  struct run_record *r, uint64_t *ret_gap,
									  bool *ret_stack, bool pext)
{
	uint64_t v, gap = 0, scope_id = 0;

	if (*p == TRACE_BIN_GAP) {
		p++;
		SMALL_(gap);
	}
	unsigned head = *p++, kind = head & 15;
	if (kind < TRACE_BIN_ALLOC || kind > TRACE_BIN_MOVE)
		return NULL;
	VARINT_(v);
	r->address = r->key = base + zigzag(v);
	if (kind == TRACE_BIN_MOVE) {
		VARINT_(v);
		r->key = r->address + zigzag(v);
	}
	/* a free has no length: the varint after its address is read all
	 * the same and then not taken, with no branch on the kind (frees and
	 * the others follow each other at random) */
	const unsigned char *after;
	bool has_len = kind != TRACE_BIN_FREE;
	if (!(after = varint_small(p, &v, pext)))
		return NULL;
	r->len = has_len ? v : 0;
	p = has_len ? after : p;
	if (head & TRACE_BIN_OLD_LEN)
		SKIP_();
	SKIP_();
	if (head & TRACE_BIN_SCOPE)
		SMALL_(scope_id);
	if (!scope_index(a, scope_id, &r->scope))
		return NULL;
	*ret_stack = false;
	if (head & TRACE_BIN_STACK) {
		SMALL_(v);
		if (v > UINT32_MAX)
			return NULL;
		*ret_stack = v != 0;
	}
	r->kind = (uint8_t)kind;
	r->failed = head & TRACE_BIN_FAILED;
	*ret_gap = gap;
	return p;
}

#undef VARINT_
#undef SMALL_
#undef READ_
#undef SKIP_

static inline uint64_t span(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* alloc_tracked of trace-alloc.c without sites, stacks or detail. */
__attribute__((always_inline)) static inline int run_alloc(struct trace_analyzer *a, const struct run_record *x,
							   uint64_t now, bool tracks)
{
	struct trace_record *slot = trace_live_put(&a->allocations, x->key);

	if (!slot)
		return -ENOMEM;
	const struct trace_allocation rec = {
		.key = x->key,
		.len = x->len,
		.allocation_event = now,
		.segment_event = now,
		.allocator_id = TRACE_BIN_LOGICAL_ALLOCATOR,
		.scope = x->scope,
	};
	if (trace_live_write(&a->allocations, slot, &rec) < 0)
		return -ENOMEM;
	trace_counters_alloc(&a->totals.c, x->len, tracks);
	if (!a->options.totals_only)
		trace_counters_alloc(&a->scopes.v[x->scope].counters, x->len, tracks);
	return 0;
}

/* free_tracked of trace-alloc.c without sites, stacks or detail: a free
 * record carries no length.  releases: the logical allocator's. */
__attribute__((always_inline)) static inline void run_free(struct trace_analyzer *a, const struct run_record *x,
							   uint64_t now, bool releases)
{
	struct trace_allocation rec;

	if (!trace_live_take(&a->allocations, x->key, &rec)) {
		/* frees what it says (nothing) from its own scope */
		trace_add(&a->totals.unmatched_frees, 1);
		trace_counters_free(&a->totals.c, 0, releases);
		if (!a->options.totals_only)
			trace_counters_free(&a->scopes.v[x->scope].counters, 0, releases);
		return;
	}
	if (rec.allocator_id != TRACE_BIN_LOGICAL_ALLOCATOR)
		releases = trace_alloc_releases(a, rec.allocator_id);
	trace_counters_free(&a->totals.c, rec.len, releases);
	if (a->options.totals_only)
		return;
	/* end_lifetime: byte-events accrue per size segment */
	uint64_t events = span(rec.allocation_event, now), byte_events = rec.byte_events;
	struct trace_counters *c = &a->scopes.v[rec.scope].counters;
	trace_add(&byte_events, trace_mul(rec.len, span(rec.segment_event, now)));
	trace_counters_lifetime(&a->totals.c, events, byte_events);
	trace_counters_lifetime(c, events, byte_events);
	trace_counters_free(c, rec.len, releases);
}

/* Whether the allocator of a live allocation counts retained bytes and
 * frees them back: the logical allocator's (*tracks, *releases as given)
 * or another's (an allocation of a JSON line's event). */
static inline void run_allocator(struct trace_analyzer *a, uint32_t allocator_id, bool *tracks, bool *releases)
{
	if (allocator_id != TRACE_BIN_LOGICAL_ALLOCATOR) {
		*tracks = trace_alloc_layer(a, allocator_id) != TRACE_LAYER_LOGICAL;
		*releases = trace_alloc_releases(a, allocator_id);
	}
}

/* change_length of trace-alloc.c without sites, stacks or detail, and the
 * allocation's byte-events accrued to now before it (accrue). */
static inline void run_length(struct trace_analyzer *a, struct trace_allocation *rec, uint64_t new_len, uint64_t now,
			      bool tracks, bool releases)
{
	run_allocator(a, rec->allocator_id, &tracks, &releases);
	trace_add(&rec->byte_events, trace_mul(rec->len, span(rec->segment_event, now)));
	rec->segment_event = now;
	trace_counters_resize(&a->totals.c, rec->len, new_len, tracks, releases);
	if (!a->options.totals_only)
		trace_counters_resize(&a->scopes.v[rec->scope].counters, rec->len, new_len, tracks, releases);
	rec->len = new_len;
}

/* trace_alloc_resize without sites, stacks or detail; a key not live
 * counts in *unmatched (resizes' or remaps').  Out of line, as are
 * run_move and run_pair, for a seventh of the records or fewer: the loop
 * of allocs and frees then holds fewer values on the stack. */
__attribute__((noinline)) static int run_resize(struct trace_analyzer *a, uint64_t key, uint64_t new_len,
						uint64_t *unmatched, uint64_t now, bool tracks, bool releases)
{
	struct trace_record *slot = trace_live_get(&a->allocations, key);
	struct trace_allocation rec;

	if (!slot) {
		trace_add(unmatched, 1);
		return 0;
	}
	trace_live_read(&a->allocations, slot, &rec);
	run_length(a, &rec, new_len, now, tracks, releases);
	return trace_live_write(&a->allocations, slot, &rec);
}

/* trace_alloc_remap without sites, stacks or detail. */
__attribute__((noinline)) static int run_move(struct trace_analyzer *a, uint64_t old_key, uint64_t new_key,
					      uint64_t new_len, uint64_t now, bool tracks, bool releases)
{
	struct trace_allocation rec;
	struct trace_record *moved;

	trace_add(&a->totals.remaps, 1);
	if (old_key == new_key)
		return run_resize(a, old_key, new_len, &a->totals.unmatched_remaps, now, tracks, releases);
	if (!trace_live_take(&a->allocations, old_key, &rec)) {
		trace_add(&a->totals.unmatched_remaps, 1);
		return 0;
	}
	run_length(a, &rec, new_len, now, tracks, releases);
	rec.key = new_key;
	/* what was live at the new key is replaced, as by an allocation */
	if (!(moved = trace_live_put(&a->allocations, new_key)))
		return -ENOMEM;
	return trace_live_write(&a->allocations, moved, &rec);
}

/* An alloc and the free of its address right after it, as most small
 * blocks of a thread are freed: trace_alloc_pair without sites, stacks or
 * detail, the allocation never put in the table (only what was live under
 * its key is taken out, as the alloc would replace it). */
__attribute__((noinline)) static void run_pair(struct trace_analyzer *a, const struct run_record *x, bool tracks,
					       bool releases)
{
	struct trace_allocation replaced;

	trace_live_take(&a->allocations, x->key, &replaced);
	trace_counters_alloc(&a->totals.c, x->len, tracks);
	trace_counters_free(&a->totals.c, x->len, releases);
	if (a->options.totals_only)
		return;
	/* a lifetime of one event, so of len byte-events */
	struct trace_counters *c = &a->scopes.v[x->scope].counters;
	trace_counters_alloc(c, x->len, tracks);
	trace_counters_lifetime(&a->totals.c, 1, x->len);
	trace_counters_lifetime(c, 1, x->len);
	trace_counters_free(c, x->len, releases);
}

/* The sequence numbers counted in registers by run_records into
 * a->sequence, as trace_analyzer_sequence would have: *sequenced more, the
 * last one numbered. */
static inline void sequence_done(struct trace_analyzer *a, uint64_t *sequenced, uint64_t numbered)
{
	if (*sequenced) {
		a->sequence.sequenced_events += *sequenced;
		a->sequence.last = numbered;
		*sequenced = 0;
	}
}

/* The rules of ring[at] (and of the record after it, decoded when
 * at + 1 < end, if the two make a pair), with now the events counted
 * before it: the records replayed (1 or 2), or -ENOMEM. */
__attribute__((always_inline)) static inline int apply(struct trace_analyzer *a, const struct run_record *ring,
						       uint64_t at, uint64_t end, uint64_t *now, bool tracks,
						       bool releases)
{
	const struct run_record *x = &ring[at % GROUP], *next = &ring[(at + 1) % GROUP];
	int r = 0;

	trace_count(now);
	switch (x->kind) {
	case TRACE_BIN_ALLOC:
		if (x->failed) {
			trace_add(&a->totals.failed_allocations, 1);
		} else if (at + 1 < end && next->key == x->key && next->kind == TRACE_BIN_FREE) {
			trace_count(now);
			run_pair(a, x, tracks, releases);
			return 2;
		} else {
			r = run_alloc(a, x, *now, tracks);
		}
		break;
	case TRACE_BIN_FREE: run_free(a, x, *now, releases); break;
	case TRACE_BIN_RESIZE:
		if (x->failed) {
			trace_add(&a->totals.failed_resizes, 1);
			break;
		}
		trace_add(&a->totals.resizes, 1);
		r = run_resize(a, x->key, x->len, &a->totals.unmatched_resizes, *now, tracks, releases);
		break;
	default: /* TRACE_BIN_MOVE */
		if (x->failed)
			trace_add(&a->totals.failed_remaps, 1);
		else
			r = run_move(a, x->key, x->address, x->len, *now, tracks, releases);
		break;
	}
	return r < 0 ? r : 1;
}

/* trace_run_records; pext: whether pack64 and pack32 use the instruction
 * (a constant in each copy). */
__attribute__((always_inline)) static inline int run_records(struct trace_analyzer *a, struct trace_bin_state *s,
							     const char *buf, size_t len, size_t *ret_used,
							     uint64_t *ret_records, bool pext)
{
	const unsigned char *const start = (const unsigned char *)buf, *p = start;
	uint64_t seq = s->seq, remaining = s->remaining;
	uint32_t stream = s->stream;
	/* where a frame may start with room for its longest form after it */
	const unsigned char *const last = len >= TRACE_RUN_LOOKAHEAD ? start + len - TRACE_RUN_LOOKAHEAD : NULL;
	bool tracks = trace_alloc_layer(a, TRACE_BIN_LOGICAL_ALLOCATOR) != TRACE_LAYER_LOGICAL;
	bool releases = trace_alloc_releases(a, TRACE_BIN_LOGICAL_ALLOCATOR);
	/* Records are decoded GROUP ahead of their rules, in one loop: the
	 * decoder's chain (each record starts where the one before ended) and
	 * the rules' work on the table overlap in the processor, and the slot
	 * of a record is loading while the ones before it are applied. */
	struct run_record ring[GROUP];
	uint64_t decoded = 0, applied = 0, now = a->events;
	/* the sequence check of a record numbered right after the last one
	 * (nearly all) in registers: the numbers counted here, not yet in
	 * a->sequence, and the last one (UINT64_MAX: none, so no number is
	 * the one after it) */
	uint64_t sequenced = 0, numbered = a->sequence.has_last ? a->sequence.last : UINT64_MAX;
	int r = 0;

	for (bool more = last != NULL;;) {
		if (more) {
			const unsigned char *q = p, *record;
			uint64_t first = seq, left = remaining, gap, v;
			uint32_t in = stream;
			bool stack;
			struct run_record *g = &ring[decoded % GROUP];

			more = false;
			if (p > last)
				goto drain;
			if (left == 0) {
				/* a segment's head: taken with its first record
				 * only, as the general replay takes it */
				if (*q++ != TRACE_BIN_SEGMENT || !(q = trace_bin_varint_whole(q, &v)) ||
				    v >= TRACE_BIN_STREAMS || !(q = trace_bin_varint_whole(q, &first)) ||
				    !(q = trace_bin_varint_whole(q, &left)) || left == 0)
					goto drain;
				in = (uint32_t)v;
			}
			record = q;
			if (!(q = decode(a, q, s->streams[in].address, g, &gap, &stack, pext)) ||
			    (uint64_t)(q - record) > left)
				goto drain;
			s->streams[in].address = g->address;
			stream = in;
			remaining = left - (uint64_t)(q - record);
			seq = first + gap + 1;
			if (first + gap == numbered + 1 && seq > 1) {
				/* the number after the last: no gap, no regression */
				sequenced++;
				numbered++;
			} else {
				sequence_done(a, &sequenced, numbered);
				trace_analyzer_sequence(a, true, first + gap);
				numbered = a->sequence.has_last ? a->sequence.last : UINT64_MAX;
			}
			if (stack)
				trace_add(&a->stack_events, 1);
			trace_live_prefetch(&a->allocations, g->key);
			p = q;
			decoded++;
			more = true;
			if (decoded - applied < GROUP)
				continue;
		}
	drain:
		if (applied == decoded)
			break;
		if ((r = apply(a, ring, applied, decoded, &now, tracks, releases)) < 0)
			break;
		applied += (uint64_t)r;
		r = 0;
	}
	sequence_done(a, &sequenced, numbered);
	a->events = now;
	s->seq = seq;
	s->remaining = remaining;
	s->stream = stream;
	*ret_used = (size_t)(p - start);
	*ret_records = applied;
	return r;
}

static int run_plain(struct trace_analyzer *a, struct trace_bin_state *s, const char *buf, size_t len,
		     size_t *ret_used, uint64_t *ret_records)
{
	return run_records(a, s, buf, len, ret_used, ret_records, false);
}

#if RUN_PEXT
/* The copy for BMI2: pext, and the compiler's own use of BMI's
 * instructions (andn, shifts without a count register). */
__attribute__((target("bmi,bmi2"))) static int run_pext(struct trace_analyzer *a, struct trace_bin_state *s,
							 const char *buf, size_t len, size_t *ret_used,
							 uint64_t *ret_records)
{
	return run_records(a, s, buf, len, ret_used, ret_records, true);
}

/* Whether pext is fast here: BMI1 and BMI2 on an Intel processor, or on an
 * AMD one from family 19h (Zen 3) on.  AMD's earlier ones run pext in
 * microcode, tens of cycles and more; other vendors are not assumed. */
static bool fast_pext(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & bit_BMI) || !(b & bit_BMI2))
		return false;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return false;
	/* "GenuineIntel", "AuthenticAMD" by their first four bytes */
	bool intel = b == 0x756e6547u, amd = b == 0x68747541u;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return false;
	unsigned family = (a >> 8) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	return intel || (amd && family >= 0x19);
}
#endif

/* -1 until the first run asks; then whether run_pext is used. */
static int use_pext = -1;

void trace_run_force_plain(bool plain)
{
	__atomic_store_n(&use_pext, plain ? 0 : -1, __ATOMIC_RELAXED);
}

int trace_run_records(struct trace_analyzer *a, struct trace_bin_state *s, const char *buf, size_t len,
		      size_t *ret_used, uint64_t *ret_records)
{
#if RUN_PEXT
	int pext = __atomic_load_n(&use_pext, __ATOMIC_RELAXED);
	if (pext < 0) {
		/* replays on several threads find the same answer */
		pext = fast_pext();
		__atomic_store_n(&use_pext, pext, __ATOMIC_RELAXED);
	}
	if (pext)
		return run_pext(a, s, buf, len, ret_used, ret_records);
#endif
	return run_plain(a, s, buf, len, ret_used, ret_records);
}
