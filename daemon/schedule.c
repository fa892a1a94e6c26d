/* Census triggers and the census budget. */
#include "schedule.h"

#include "limits.h"

static uint64_t add_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t schedule_growth_threshold(const struct daemon_config *c, uint64_t last_private)
{
	uint64_t by_ratio = (uint64_t)((double)last_private * c->growth_ratio);
	uint64_t step = by_ratio > c->growth_bytes ? by_ratio : c->growth_bytes;
	return add_saturating(last_private, step);
}

static void set_pending(struct census_plan *p, enum store_trigger t, uint64_t now)
{
	if (!p->pending)
		p->due_since = now;
	p->pending |= 1u << t;
}

bool schedule_update(struct census_plan *p, const struct daemon_config *c, uint64_t now, uint64_t private)
{
	uint64_t since = now >= p->last_at ? now - p->last_at : 0;

	if (!p->attempted)
		set_pending(p, TRIGGER_FIRST, now);
	else if (since >= c->census_interval)
		set_pending(p, TRIGGER_INTERVAL, now);
	if (c->census_on_growth && p->have_ok && since >= c->census_min_spacing &&
	    private >= schedule_growth_threshold(c, p->last_private))
		set_pending(p, TRIGGER_GROWTH, now);
	return p->pending != 0;
}

uint64_t schedule_quiet_until(const struct census_plan *p, const struct daemon_config *c, uint64_t private)
{
	if (p->pending || !p->attempted)
		return 0;
	uint64_t until = add_saturating(p->last_at, c->census_interval);
	if (c->census_on_growth && p->have_ok && private >= schedule_growth_threshold(c, p->last_private)) {
		uint64_t spaced = add_saturating(p->last_at, c->census_min_spacing);
		if (spaced < until)
			until = spaced;
	}
	return until;
}

bool schedule_update_vram(struct census_plan *p, const struct daemon_config *c, uint64_t now, uint64_t vram)
{
	uint64_t since = now >= p->last_at ? now - p->last_at : 0;

	p->vram = vram;
	/* strictly more: most processes hold no GPU memory, and a threshold
	 * of a ratio alone is 0 above 0 */
	if (c->census_on_growth && p->have_ok && since >= c->census_min_spacing && vram > p->last_vram &&
	    vram >= schedule_growth_threshold(c, p->last_vram)) {
		if (!(p->pending & (1u << TRIGGER_GROWTH)))
			p->vram_growth = true;
		set_pending(p, TRIGGER_GROWTH, now);
	}
	return p->pending != 0;
}

void schedule_add(struct census_plan *p, enum store_trigger t, uint64_t now)
{
	set_pending(p, t, now);
}

void schedule_near_limit(struct census_plan *p, uint64_t now)
{
	set_pending(p, TRIGGER_LIMIT, now);
	p->near_limit = true;
}

/* The near limit first: that census is taken otherwise (at once, without
 * the heap walks), and the trigger stored is what says why it was. */
static const enum store_trigger rank[] = { TRIGGER_LIMIT, TRIGGER_REQUEST, TRIGGER_MARK, TRIGGER_FIRST,
					   TRIGGER_GROWTH, TRIGGER_INTERVAL };

enum store_trigger schedule_trigger(const struct census_plan *p)
{
	for (unsigned i = 0; i < sizeof(rank) / sizeof(rank[0]); i++)
		if (p->pending & (1u << rank[i]))
			return rank[i];
	return TRIGGER_INTERVAL;
}

bool schedule_needs_budget(const struct census_plan *p)
{
	return !p->near_limit && !(p->pending & ((1u << TRIGGER_REQUEST) | (1u << TRIGGER_MARK)));
}

static unsigned rank_of(enum store_trigger t)
{
	for (unsigned i = 0; i < sizeof(rank) / sizeof(rank[0]); i++)
		if (rank[i] == t)
			return i;
	return sizeof(rank) / sizeof(rank[0]);
}

int schedule_compare(const struct census_plan *a, const struct census_plan *b)
{
	if (a->near_limit != b->near_limit)
		return a->near_limit ? -1 : 1;
	unsigned ra = rank_of(schedule_trigger(a)), rb = rank_of(schedule_trigger(b));
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->due_since != b->due_since)
		return a->due_since < b->due_since ? -1 : 1;
	return 0;
}

void schedule_done(struct census_plan *p, uint64_t now, enum census_status status, uint64_t private)
{
	p->attempted = true;
	p->last_status = status;
	p->last_at = now;
	p->pending = 0;
	p->deferred = false;
	p->want_full = p->want_light = false;
	p->vram_growth = false;
	p->near_limit = false;
	if (status == CENSUS_OK) {
		p->have_ok = true;
		p->last_private = private;
		p->last_vram = p->vram;
	}
}

bool schedule_heap_due(const struct census_plan *p, const struct daemon_config *c, enum store_trigger t,
		       uint64_t now)
{
	if (p->near_limit)
		return false;
	if (t != TRIGGER_INTERVAL || !p->heap_read)
		return true;
	return now >= p->heap_at && now - p->heap_at >= c->in_use_interval;
}

void schedule_heap_done(struct census_plan *p, uint64_t now)
{
	p->heap_read = true;
	p->heap_at = now;
}

void budget_init(struct budget *b, double share, uint64_t now)
{
	*b = (struct budget){ .last = now };
	budget_set_share(b, share);
	b->credit = b->cap;
}

void budget_set_share(struct budget *b, double share)
{
	b->share = share;
	b->cap = share * (double)RW_BUDGET_WINDOW_US;
	if (b->credit > b->cap)
		b->credit = b->cap;
}

void budget_refill(struct budget *b, uint64_t now)
{
	if (now > b->last) {
		b->credit += b->share * (double)(now - b->last);
		if (b->credit > b->cap)
			b->credit = b->cap;
	}
	b->last = now;
}

bool budget_allows(const struct budget *b)
{
	return b->credit > 0;
}

void budget_charge(struct budget *b, uint64_t cpu_us)
{
	b->credit -= (double)cpu_us;
	b->spent += cpu_us;
}

uint64_t budget_heap_allowance(const struct budget *b, bool within)
{
	double us = within ? b->credit : b->cap;
	if (us <= 0)
		return 0;
	return us >= (double)RW_HEAP_WALK_MAX_US ? RW_HEAP_WALK_MAX_US : (uint64_t)us;
}
