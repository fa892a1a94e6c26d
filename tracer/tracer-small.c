/* Allocations below the threshold (--min-bytes), counted per site and
 * scope instead of traced one by one.
 *
 * Each thread has its own table, so counting is two plain adds; the table
 * is read when the trace stops, after no thread is tracing any more.  At
 * the end each (site, scope) becomes one `alloc` line with
 * "tracked": false, its "len" the bytes asked for in all and its "count"
 * the number of calls: the analyzer counts them as untracked requests of
 * that site and scope (ramwatch-trace(3)).  A table that fills puts the
 * rest under site 0. */
#include <string.h>

#include "tracer.h"

#define SMALL_SLOTS 4096u /* a power of two */

struct small_slot {
	uint64_t site; /* 0: empty */
	uint32_t scope;
	uint64_t count;
	uint64_t bytes;
};

/* The calling thread's last slot, in its own table: a loop allocates from
 * one site many times, and this finds it by comparing the site and scope
 * kept in the thread's own block (tracer_self), not the slot's own.  The
 * guard on, the site is 0 and matches no call. */
bool tracer_small_again(uint64_t site, uint32_t scope, uint64_t len)
{
	struct tracer_thread *t = &tracer_self;

	if (t->site != site || t->scope != scope)
		return false;
	t->slot->count++;
	t->slot->bytes += len;
	return true;
}

struct tracer_small {
	struct small_slot slot[SMALL_SLOTS];
	struct small_slot overflow;
	struct small_slot *last; /* a loop allocates from one site many times */
	unsigned used;
};

struct tracer_small *tracer_small_new(void)
{
	return tracer_pages(sizeof(struct tracer_small));
}

void tracer_small_forget(void)
{
	tracer_self.site = 0;
	tracer_self.slot = NULL;
}

void tracer_small_reset(struct tracer_small *t)
{
	if (t)
		memset(t, 0, sizeof(*t));
	tracer_small_forget();
}

static uint32_t hash(uint64_t site, uint32_t scope)
{
	uint64_t h = (site ^ ((uint64_t)scope << 47)) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40);
}

void tracer_small_count(struct tracer_small *t, uint64_t site, uint32_t scope, uint64_t len)
{
	struct small_slot *s;

	if (site == 0)
		site = 1; /* 0 marks an empty slot; no caller is at address 1 anyway */
	s = t->last;
	if (!s || s->site != site || s->scope != scope) {
		for (uint32_t i = hash(site, scope);; i++) {
			s = &t->slot[i & (SMALL_SLOTS - 1)];
			if (s->site == site && s->scope == scope)
				break;
			if (s->site == 0) {
				/* three quarters full: the rest goes under site 0 */
				if (t->used >= SMALL_SLOTS / 4 * 3) {
					s = &t->overflow;
					break;
				}
				t->used++;
				s->scope = scope;
				s->site = site;
				break;
			}
		}
		t->last = s;
	}
	/* the fast path's slot, but not while the guard is on */
	if (!tracer_self.busy) {
		tracer_self.site = site;
		tracer_self.scope = scope;
		tracer_self.slot = s;
	}
	s->count++;
	s->bytes += len;
}

static void write_slot(const struct small_slot *s, uint64_t site)
{
	tracer_out_str("{\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"alloc\",\"layer\":\"logical_allocator\",\"allocator_id\":1,\"tracked\":false,\"len\":");
	tracer_out_u64(s->bytes);
	tracer_out_str(",\"count\":");
	tracer_out_u64(s->count);
	tracer_out_str(",\"return_address\":");
	tracer_out_u64(site);
	if (s->scope) {
		tracer_out_str(",\"scope_id\":");
		tracer_out_u64(s->scope);
	}
	tracer_out_str("}\n");
}

void tracer_small_write(struct tracer_small *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < SMALL_SLOTS; i++)
		if (t->slot[i].site && t->slot[i].count)
			write_slot(&t->slot[i], t->slot[i].site == 1 ? 0 : t->slot[i].site);
	if (t->overflow.count)
		write_slot(&t->overflow, 0);
}
