/* The replay's dispatch: one event at a time, its scope resolved, its
 * sequence number checked, then handed to the rule for its kind when its
 * layer is the one replayed (scope and lifecycle-bound events count
 * whatever their layer). */
#include "trace-analyzer.h"

#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trace-alloc.h"
#include "limits.h"

void trace_analyzer_init(struct trace_analyzer *a, const struct trace_replay_options *o)
{
	*a = (struct trace_analyzer){ .options = *o, .root_scope = -1 };
	trace_scopes_init(&a->scopes);
	hashtab_init(&a->allocators, sizeof(struct trace_allocator));
	trace_live_init(&a->allocations, o->track_sites || o->track_stacks || o->has_site_detail);
	hashtab_init(&a->scope_ids, sizeof(struct trace_scope_id));
	hashtab_init(&a->sites, sizeof(struct trace_site));
	hashtab_init(&a->stacks, sizeof(struct trace_stack));
	hashtab_init(&a->detail_sizes, sizeof(struct trace_bucket));
	hashtab_init(&a->detail_scopes, sizeof(struct trace_bucket));
	trace_ledger_init(&a->ledger);
}

void trace_analyzer_done(struct trace_analyzer *a)
{
	trace_scopes_done(&a->scopes);
	hashtab_done(&a->allocators);
	trace_live_done(&a->allocations);
	hashtab_done(&a->scope_ids);
	hashtab_done(&a->sites);
	hashtab_done(&a->stacks);
	free(a->frames);
	hashtab_done(&a->detail_sizes);
	hashtab_done(&a->detail_scopes);
	trace_ledger_done(&a->ledger);
	for (size_t i = 0; i < a->n_objects; i++)
		free(a->objects[i].path);
	free(a->objects);
}

/* The scope a scope_id above 0 was given by a scope.enter. */
static inline int scope_of_id(struct trace_analyzer *a, uint32_t scope_id, uint32_t *ret, struct error *err)
{
	typeof(a->scope_cache[0]) *c = &a->scope_cache[scope_id & (TRACE_SCOPE_CACHE - 1)];

	if (c->id != scope_id) {
		const struct trace_scope_id *id = hashtab_get(&a->scope_ids, scope_id);
		if (!id) {
			error_set(err, -EINVAL, "scope_id %" PRIu32 " is used before a scope.enter gives it a path",
				  scope_id);
			return -EINVAL;
		}
		c->scope = id->scope;
		c->id = scope_id;
	}
	*ret = c->scope;
	return 0;
}

/* The event's scope: its path; else the path its scope_id was given by a
 * scope.enter; scope_id 0 is "root" without one. */
static int resolve_scope(struct trace_analyzer *a, const struct trace_event *e, struct trace_scope_ref *ret,
			 struct error *err)
{
	uint32_t scope;
	int r;

	if (e->scope) {
		*ret = (struct trace_scope_ref){ e->scope, e->scope_len, -1 };
		return 0;
	}
	if (e->scope_id == 0) {
		*ret = (struct trace_scope_ref){ "root", 4, -1 };
		return 0;
	}
	if ((r = scope_of_id(a, e->scope_id, &scope, err)) < 0)
		return r;
	*ret = (struct trace_scope_ref){ a->scopes.v[scope].path, a->scopes.v[scope].len, (int64_t)scope };
	return 0;
}

static int scope_enter(struct trace_analyzer *a, const struct trace_event *e, const struct trace_scope_ref *ref,
		       struct error *err)
{
	struct trace_scope_id *id;
	uint32_t scope;
	bool is_new;
	int r;

	if ((r = trace_alloc_scope(a, ref, &scope)) < 0)
		return r;
	if (!(id = hashtab_upsert(&a->scope_ids, e->scope_id, &is_new)))
		return -ENOMEM;
	if (is_new) {
		id->scope = scope;
	} else if (id->scope != scope) {
		char was[96], now[96];
		const struct trace_scope *old = &a->scopes.v[id->scope];
		trace_quote(was, sizeof(was), old->path, old->len, 64);
		trace_quote(now, sizeof(now), ref->path, ref->len, 64);
		return error_set(err, -EINVAL, "scope_id %" PRIu32 " is redefined as %s (it was %s)",
				 e->scope_id, now, was);
	}
	trace_add(&id->active, 1);
	trace_add(&a->sequence.active_scope_events, 1);
	return 0;
}

static void scope_exit(struct trace_analyzer *a, uint32_t scope_id)
{
	struct trace_scope_id *id = hashtab_get(&a->scope_ids, scope_id);

	if (!id || id->active == 0) {
		trace_add(&a->sequence.unmatched_scope_exits, 1);
		return;
	}
	id->active--;
	a->sequence.active_scope_events--;
}

static int record_allocator(struct trace_analyzer *a, const struct trace_event *e)
{
	bool is_new;
	struct trace_allocator *s = hashtab_upsert(&a->allocators, e->allocator_id, &is_new);
	a->allocator_cached = false;
	if (!s)
		return -ENOMEM;
	s->layer = e->layer;
	s->retains_freed_memory = e->retains_freed_memory;
	s->lifecycle_instrumented = e->lifecycle_instrumented;
	s->prefix_complete = e->observation_prefix_complete;
	return 0;
}

/* A loaded object, kept for naming sites (trace-report.c).  The same
 * object twice (a fork's child's trace appended to its parent's) is one. */
static int record_object(struct trace_analyzer *a, const struct trace_event *e, struct error *err)
{
	struct trace_object *o;
	char *path;

	if (!e->path)
		return error_set(err, -EINVAL, "an object event needs a \"path\"");
	for (size_t i = 0; i < a->n_objects; i++)
		if (a->objects[i].bias == e->address && strlen(a->objects[i].path) == e->path_len &&
		    memcmp(a->objects[i].path, e->path, e->path_len) == 0)
			return 0;
	if (a->n_objects >= RW_TRACE_OBJECTS_MAX)
		return error_set(err, -EINVAL, "more than %u object events", RW_TRACE_OBJECTS_MAX);
	if (memchr(e->path, 0, e->path_len))
		return error_set(err, -EINVAL, "an object's \"path\" holds a NUL byte");
	if (a->n_objects == a->objects_alloc) {
		size_t n = a->objects_alloc ? a->objects_alloc * 2 : 16;
		struct trace_object *v = realloc(a->objects, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->objects = v;
		a->objects_alloc = n;
	}
	if (!(path = strndup(e->path, e->path_len)))
		return -ENOMEM;
	o = &a->objects[a->n_objects++];
	*o = (struct trace_object){ .path = path, .bias = e->address, .len = e->len };
	return 0;
}

/* A "stack" event: its frames kept under its id, for --stacks to list.
 * The same stack twice (a fork's child's trace appended) is one; the same
 * id with other frames is refused, as a scope_id with another path is. */
static int record_stack(struct trace_analyzer *a, const struct trace_event *e, struct error *err)
{
	struct trace_stack *s;
	int r;

	if (e->stack_id == 0)
		return error_set(err, -EINVAL, "a stack event needs a \"stack_id\" above 0");
	if (e->n_frames == 0)
		return error_set(err, -EINVAL, "a stack event needs \"frames\", at least one");
	if ((r = trace_analyzer_stack(a, e->stack_id, &s, err)) < 0)
		return r;
	if (s->recorded) {
		if (s->n_frames != e->n_frames ||
		    memcmp(a->frames + s->first_frame, e->frames, e->n_frames * sizeof(e->frames[0])) != 0)
			return error_set(err, -EINVAL, "stack_id %" PRIu32 " is redefined with other frames",
					 e->stack_id);
		return 0;
	}
	if (a->n_frames + e->n_frames > a->frames_alloc) {
		size_t n = a->frames_alloc ? a->frames_alloc * 2 : 256;
		while (n < a->n_frames + e->n_frames)
			n *= 2;
		uint64_t *v = realloc(a->frames, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->frames = v;
		a->frames_alloc = n;
	}
	memcpy(a->frames + a->n_frames, e->frames, e->n_frames * sizeof(e->frames[0]));
	s->first_frame = a->n_frames;
	s->n_frames = (uint32_t)e->n_frames;
	s->recorded = true;
	a->n_frames += e->n_frames;
	return 0;
}

int trace_analyzer_stack(struct trace_analyzer *a, uint32_t id, struct trace_stack **ret, struct error *err)
{
	struct trace_stack *s = hashtab_get(&a->stacks, id);
	bool is_new;

	if (!s) {
		/* the row of no stack_id is not one of the stacks counted */
		size_t ids = a->stacks.count - (hashtab_get(&a->stacks, 0) != NULL);
		if (id != 0 && ids >= RW_TRACE_STACKS_MAX)
			return error_set(err, -EINVAL, "more than %u stack ids", RW_TRACE_STACKS_MAX);
		if (!(s = hashtab_upsert(&a->stacks, id, &is_new)))
			return -ENOMEM;
	}
	*ret = s;
	return 0;
}

static void update_mapped(struct trace_analyzer *a)
{
	a->physical.live_mapped_bytes = trace_ledger_bytes(&a->ledger);
	trace_high_water(&a->physical.high_water_mapped_bytes, a->physical.live_mapped_bytes);
}

static int bad_range(const struct trace_event *e, struct error *err)
{
	return error_set(err, -EINVAL,
			 "%s of %" PRIu64 " bytes at 0x%" PRIx64 " runs past the end of the address space",
			 trace_kind_name(e->kind), e->len, e->address);
}

static int physical_map(struct trace_analyzer *a, const struct trace_event *e, struct error *err)
{
	uint64_t displaced;
	int r;

	if (!e->succeeded) {
		trace_add(&a->physical.failed_maps, 1);
		return 0;
	}
	if ((r = trace_ledger_map(&a->ledger, e->address, e->len, &displaced)) < 0)
		return r == -EINVAL ? bad_range(e, err) : r;
	trace_add(&a->physical.maps, 1);
	trace_add(&a->physical.mapped_bytes, e->len);
	trace_add(&a->physical.displaced_bytes, displaced);
	update_mapped(a);
	return 0;
}

static int physical_unmap(struct trace_analyzer *a, const struct trace_event *e, struct error *err)
{
	uint64_t removed;
	int r;

	if (!e->succeeded) {
		trace_add(&a->physical.failed_unmaps, 1);
		return 0;
	}
	if ((r = trace_ledger_unmap(&a->ledger, e->address, e->len, &removed)) < 0)
		return r == -EINVAL ? bad_range(e, err) : r;
	trace_add(&a->physical.unmaps, 1);
	trace_add(&a->physical.unmapped_bytes, e->len);
	trace_add(&a->physical.untracked_unmap_bytes, e->len - removed);
	update_mapped(a);
	return 0;
}

static void physical_effect(struct trace_analyzer *a, const struct trace_event *e)
{
	struct trace_physical *p = &a->physical;
	uint64_t *done, *failed;

	switch (e->kind) {
	case TRACE_KIND_PROTECT: done = &p->protects, failed = &p->failed_protects; break;
	case TRACE_KIND_DISCARD: done = &p->discards, failed = &p->failed_discards; break;
	case TRACE_KIND_DECOMMIT: done = &p->decommits, failed = &p->failed_decommits; break;
	default: done = &p->advises, failed = &p->failed_advises; break;
	}
	trace_add(e->succeeded ? done : failed, 1);
}

static int alloc_event(struct trace_analyzer *a, const struct trace_event *e, uint64_t key,
		       const struct trace_scope_ref *ref, struct error *err)
{
	struct trace_stack *s;
	uint32_t scope;
	int r;

	if (!e->succeeded) {
		trace_add(&a->totals.failed_allocations, 1);
		return 0;
	}
	if ((r = trace_alloc_scope(a, ref, &scope)) < 0)
		return r;
	/* the stack's row comes first: an id that no stack event defines
	 * (a trace cut before its end) is still a row of its own */
	if (a->options.track_stacks && (r = trace_analyzer_stack(a, e->stack_id, &s, err)) < 0)
		return r;
	if (e->tracked)
		return trace_alloc_tracked(a, e->allocator_id, key, scope, e->return_address, e->stack_id, e->len);
	return trace_alloc_untracked(a, scope, e->return_address, e->stack_id, e->len, e->count);
}

static int resize_event(struct trace_analyzer *a, const struct trace_event *e, uint64_t key)
{
	if (!e->succeeded) {
		trace_add(&a->totals.failed_resizes, 1);
		if (!e->tracked)
			trace_add(&a->totals.unmatched_resizes, 1);
		return 0;
	}
	if (!e->tracked) {
		trace_add(&a->totals.unmatched_resizes, 1);
		return 0;
	}
	trace_add(&a->totals.resizes, 1);
	return trace_alloc_resize(a, key, e->len, false);
}

static int remap_event(struct trace_analyzer *a, const struct trace_event *e, uint64_t old_key)
{
	if (!e->succeeded) {
		trace_add(&a->totals.failed_remaps, 1);
		if (!e->tracked)
			trace_add(&a->totals.unmatched_remaps, 1);
		return 0;
	}
	if (e->tracked)
		return trace_alloc_remap(a, old_key, e->allocation_id ? e->allocation_id : e->address, e->len);
	/* an untracked remap of a known allocation: tracking of it is lost */
	if (e->allocation_id != 0)
		return trace_alloc_lose(a, old_key, e->len);
	trace_add(&a->totals.unmatched_remaps, 1);
	return 0;
}

int trace_analyzer_ingest(struct trace_analyzer *a, const struct trace_event *e, struct error *err)
{
	struct trace_scope_ref ref;
	struct trace_allocator *allocator;
	int r;

	if ((r = resolve_scope(a, e, &ref, err)) < 0)
		return r;
	uint64_t address = e->kind == TRACE_KIND_REMAP ? e->old_address : e->address;
	uint64_t key = e->allocation_id ? e->allocation_id : address;
	bool in_layer = e->layer == a->options.layer;

	trace_count(&a->events);
	trace_analyzer_sequence(a, e->has_seq, e->seq);
	if (e->stack_id && e->kind != TRACE_KIND_STACK)
		trace_add(&a->stack_events, 1);
	switch (e->kind) {
	case TRACE_KIND_TRACE_START:
		trace_add(&a->sequence.start_events, 1);
		if (!a->sequence.has_start && e->has_seq) {
			a->sequence.has_start = true;
			a->sequence.start = e->seq;
		}
		return 0;
	case TRACE_KIND_TRACE_STOP:
		/* the last stop counts: its number must be the last one */
		trace_add(&a->sequence.stop_events, 1);
		a->sequence.has_stop = e->has_seq;
		a->sequence.stop = e->seq;
		return 0;
	case TRACE_KIND_SCOPE_ENTER: return scope_enter(a, e, &ref, err);
	case TRACE_KIND_SCOPE_EXIT: scope_exit(a, e->scope_id); return 0;
	case TRACE_KIND_SNAPSHOT:
	case TRACE_KIND_CENSUS: return 0;
	case TRACE_KIND_STACK: trace_add(&a->stack_events, 1); return record_stack(a, e, err);
	case TRACE_KIND_OBJECT: return record_object(a, e, err);
	default: break;
	}
	if (!in_layer)
		return 0;
	switch (e->kind) {
	case TRACE_KIND_ALLOCATOR: return record_allocator(a, e);
	case TRACE_KIND_ALLOC: return alloc_event(a, e, key, &ref, err);
	case TRACE_KIND_FREE:
		if (!e->tracked) {
			trace_add(&a->totals.unmatched_frees, 1);
			return 0;
		}
		return trace_alloc_free(a, key, e->allocator_id, &ref, e->len);
	case TRACE_KIND_RELEASE: trace_alloc_release(a, key); return 0;
	case TRACE_KIND_RESIZE: return resize_event(a, e, key);
	case TRACE_KIND_REMAP: return remap_event(a, e, key);
	case TRACE_KIND_LIFECYCLE:
		/* a lifecycle event completes its allocator's observation */
		trace_add(&a->totals.lifecycle_events, 1);
		if ((allocator = hashtab_get(&a->allocators, e->allocator_id)))
			allocator->prefix_complete = true;
		return 0;
	case TRACE_KIND_MAP: return physical_map(a, e, err);
	case TRACE_KIND_UNMAP: return physical_unmap(a, e, err);
	case TRACE_KIND_PROTECT:
	case TRACE_KIND_DISCARD:
	case TRACE_KIND_DECOMMIT:
	case TRACE_KIND_ADVISE: physical_effect(a, e); return 0;
	default: return 0;
	}
}

/* What every record counts before its kind's rule: its scope (ret_ref),
 * the event, its sequence number, its stack. */
__attribute__((always_inline)) static inline int record_event(struct trace_analyzer *a,
							      const struct trace_bin_record *rec,
							      struct trace_scope_ref *ret_ref, struct error *err)
{
	uint32_t scope;
	int r;

	/* scope_id 0 is "root", an index once it is interned (paths keep
	 * their index for the analyzer's life) */
	*ret_ref = (struct trace_scope_ref){ "root", 4, a->root_scope };
	if (rec->scope_id) {
		if ((r = scope_of_id(a, rec->scope_id, &scope, err)) < 0)
			return r;
		*ret_ref = (struct trace_scope_ref){ a->scopes.v[scope].path, a->scopes.v[scope].len, (int64_t)scope };
	}
	trace_count(&a->events);
	trace_analyzer_sequence(a, true, rec->seq);
	if (rec->stack_id)
		trace_add(&a->stack_events, 1);
	return 0;
}

int trace_analyzer_ingest_records(struct trace_analyzer *a, const struct trace_bin_frame *f, size_t n,
				  size_t *ret_done, struct error *err)
{
	bool logical = a->options.layer == TRACE_LAYER_LOGICAL, pairs = trace_alloc_pairs(a);
	struct trace_scope_ref ref, free_ref;
	size_t i;
	int r = 0;

	for (i = 0; i < n; i++) {
		const struct trace_bin_record *rec = &f[i].record;

		if ((r = record_event(a, rec, &ref, err)) < 0)
			break;
		if (!logical)
			continue;
		if (pairs && rec->kind == TRACE_BIN_ALLOC && !rec->failed && i + 1 < n &&
		    f[i + 1].record.kind == TRACE_BIN_FREE && f[i + 1].record.address == rec->address) {
			uint64_t allocation_event = a->events;
			uint32_t scope;
			if (ref.index >= 0)
				scope = (uint32_t)ref.index;
			else if ((r = trace_alloc_pair_scope(a, rec, &ref, &scope)) < 0)
				break;
			if ((r = record_event(a, &f[i + 1].record, &free_ref, err)) < 0) {
				/* the alloc stands, and the free is refused */
				int k = trace_alloc_record(a, rec, &ref, err);
				if (k < 0)
					r = k;
				else
					i++;
				break;
			}
			trace_alloc_pair(a, rec, scope, allocation_event);
			i++;
			continue;
		}
		if ((r = trace_alloc_record(a, rec, &ref, err)) < 0)
			break;
	}
	*ret_done = i;
	return r;
}

void trace_analyzer_coverage(const struct trace_analyzer *a, struct trace_coverage *ret)
{
	struct trace_coverage c = { 0 };
	for (size_t i = 0; i < hashtab_slots(&a->allocators); i++) {
		const struct trace_allocator *s = hashtab_at(&a->allocators, i);
		if (!s || s->layer != TRACE_LAYER_LOGICAL)
			continue;
		if (!s->retains_freed_memory)
			trace_add(&c.not_required, 1);
		else if (s->lifecycle_instrumented)
			trace_add(&c.instrumented, 1);
		else
			trace_add(&c.uninstrumented, 1);
		trace_add(s->prefix_complete ? &c.prefix_complete : &c.prefix_partial, 1);
	}
	*ret = c;
}

const char *trace_coverage_status(const struct trace_coverage *c)
{
	if (c->instrumented == 0 && c->uninstrumented == 0 && c->not_required == 0)
		return "none";
	if (c->uninstrumented == 0 && c->prefix_partial == 0)
		return "complete";
	return "partial";
}

uint64_t trace_analyzer_unbalanced(const struct trace_analyzer *a)
{
	uint64_t n = a->totals.unmatched_frees;
	trace_add(&n, a->totals.unmatched_resizes);
	trace_add(&n, a->totals.unmatched_remaps);
	trace_add(&n, a->sequence.unmatched_scope_exits);
	trace_add(&n, a->sequence.active_scope_events);
	return n;
}
