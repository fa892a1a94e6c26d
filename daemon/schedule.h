/* When to take a census, and whether there is budget for it: the pure
 * decisions of the census tier (doc/design.md#the-census-tier), kept
 * apart from the event loop so they are tested with plain numbers.
 *
 * Times are monotonic microseconds. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "store.h"

/* The census state of one watched process. */
struct census_plan {
	bool attempted;         /* a census was tried (any status) */
	bool have_ok;           /* one succeeded: last_private is meaningful */
	enum census_status last_status; /* of the last census tried, when attempted */
	uint64_t last_at;       /* when the last census was tried */
	uint64_t last_private;  /* private at the last ok census */
	unsigned pending;       /* 1 << enum store_trigger: the triggers due */
	uint64_t due_since;     /* when the oldest pending trigger came due */
	bool deferred;          /* waiting for budget (counted once) */
	bool want_full;         /* a client asked for a full census */
	bool want_light;        /* a client asked for a light census */
	uint64_t vram;          /* the GPU memory it holds now (all devices), as last told */
	uint64_t last_vram;     /* ... at the last ok census */
	bool vram_growth;       /* the growth trigger pending is the GPU memory's */
	bool near_limit;        /* its memory cgroup (or the host) nears its limit: the
				 * census runs first, at once, without the heap walks */
	bool heap_read;         /* a census read in use and free (walked the heaps) */
	uint64_t heap_at;       /* ... the last one, when it was tried */
};

/* The private size at which a growth census is due: the last census's
 * private plus max(growth_bytes, growth_ratio of it). */
uint64_t schedule_growth_threshold(const struct daemon_config *c, uint64_t last_private);

/* Updates p->pending from the time and the process's private memory now:
 * first sight, CensusInterval since the last try, or growth (at most once
 * per CensusMinSpacing).  Returns whether any trigger is pending. */
bool schedule_update(struct census_plan *p, const struct daemon_config *c, uint64_t now, uint64_t private);

/* Until when (monotonic us, exclusive) schedule_update cannot set a
 * trigger while the private memory stays private: the end of the
 * CensusInterval, or of CensusMinSpacing when private is past the growth
 * threshold already.  0 when a trigger is pending or none was ever tried:
 * then every sample must look. */
uint64_t schedule_quiet_until(const struct census_plan *p, const struct daemon_config *c, uint64_t private);

/* Records the GPU memory the process holds now (summed over its devices,
 * 0 for none), from a GPU snapshot, and sets the growth trigger when it
 * grew since the last ok census as much as CensusOnGrowth asks of private
 * memory (schedule_growth_threshold; at most once per CensusMinSpacing).
 * Returns whether any trigger is pending. */
bool schedule_update_vram(struct census_plan *p, const struct daemon_config *c, uint64_t now, uint64_t vram);

/* Adds a trigger from outside (a mark, a client's request). */
void schedule_add(struct census_plan *p, enum store_trigger t, uint64_t now);

/* The census before death: its memory cgroup (or the host) nears the
 * limit.  A census of trigger limit is due at once, ahead of every other, without
 * waiting for budget (its cost is still charged) and without the heap
 * walks, which could outlast the process. */
void schedule_near_limit(struct census_plan *p, uint64_t now);

/* The trigger to record for the pending census: the limit neared before
 * a request before a mark before first sight before growth before the
 * interval. */
enum store_trigger schedule_trigger(const struct census_plan *p);

/* Whether a pending census waits for budget: requests and marks are asked
 * for by a person at a moment that matters, so they run at once (their
 * cost is still charged). */
bool schedule_needs_budget(const struct census_plan *p);

/* Orders two pending plans: a negative value when a goes first (its
 * trigger ranks higher, or it has waited longer). */
int schedule_compare(const struct census_plan *a, const struct census_plan *b);

/* Records a census that was tried at now with that status, clearing the
 * pending triggers; an ok one holds private and the GPU memory last told
 * (schedule_update_vram), what later growth is measured from. */
void schedule_done(struct census_plan *p, uint64_t now, enum census_status status, uint64_t private);

/* Whether the census about to be taken with trigger t reads in use and
 * free (the heap walks, heap-walk.h): at the censuses that matter (first
 * sight, growth, a mark, a request), and an interval census when none has
 * read them yet or InUseInterval passed since the last that did. */
bool schedule_heap_due(const struct census_plan *p, const struct daemon_config *c, enum store_trigger t,
		       uint64_t now);

/* A census that read in use and free was taken at now. */
void schedule_heap_done(struct census_plan *p, uint64_t now);

/* The census budget: a share of one CPU, as credit that accrues with time
 * (up to a cap: the share of RW_BUDGET_WINDOW) and is spent by each
 * census's CPU time.  A census runs while credit is positive, so one census
 * may overdraw it; the next waits until it is paid back.  Over any long
 * span the censuses use no more than the share. */
struct budget {
	double share;
	double credit;   /* microseconds of CPU */
	double cap;
	uint64_t last;   /* when credit was last brought up to date */
	uint64_t spent;  /* microseconds charged, all told */
};

void budget_init(struct budget *b, double share, uint64_t now);
/* A new share (a reload): the credit is kept, within the new cap. */
void budget_set_share(struct budget *b, double share);
void budget_refill(struct budget *b, uint64_t now);
bool budget_allows(const struct budget *b);
void budget_charge(struct budget *b, uint64_t cpu_us);
/* How long (us, from its start) a census may spend before its heap walks
 * stop, what they did not reach being unknown: the credit left when it
 * runs within the budget (within), else (a request, a mark) the most the
 * budget ever holds, its cap; at most RW_HEAP_WALK_MAX_US either way.
 * CPU time is what the budget counts and wall time what a deadline can
 * be: a census reading memory spends one as the other. */
uint64_t budget_heap_allowance(const struct budget *b, bool within);
