/* The census tier: which watched process gets a census next, taking it,
 * and what it is counted as.
 *
 * After each fast pass the censuses that are due run, the most urgent
 * first, while the budget (ScanBudget of one CPU, as CPU time) has credit:
 * a census that has to wait is deferred, counted once, and runs when the
 * credit comes back; none is skipped.  A client's request and a mark run
 * at once, outside the budget (their cost is still charged).  The
 * triggers themselves are schedule.c's arithmetic; the tier keeps the
 * budget, the counts, and the clients waiting for a census.
 *
 * census-tier.c is the only file that changes a target's census part
 * (struct census_target), but for what its last census left, which
 * census-take.c keeps for it.  Nothing here needs the event loop: the
 * manager runs the pass (census_tier_next, census_tier_take) and
 * schedules one soon after a request or a mark. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census-take.h"
#include "config.h"
#include "export-text.h"
#include "gpu.h"
#include "schedule.h"
#include "steady.h"
#include "store.h"

struct census_tier;
struct census_waiter;
struct target;
struct watched;
struct writer;

/* The census tier's part of a watched process (struct target's census).
 * The others read whether a census is due (census_tier_pending) and the
 * classes; they change nothing here. */
struct census_target {
	struct census_plan plan;       /* when its next census is due, and why (schedule.h) */
	struct census_waiter *waiters; /* clients waiting for the next census */
	struct export_classes classes; /* the classes of the last ok census, for the metrics */
	struct census_last last;       /* census-take.c's: what the last census left */
};

/* Whether a census of the process is due (in the pass after the fast
 * tier's round).  Inline: the round asks it after each full sample. */
static inline bool census_tier_pending(const struct census_target *c)
{
	return c->plan.pending;
}

/* What the censuses came to, over the daemon's life. */
struct census_tier_stats {
	uint64_t censuses[_CENSUS_STATUS_MAX]; /* by status */
	uint64_t censuses_light;        /* light ones that were ok */
	uint64_t censuses_repeated;     /* ok ones that found nothing changed (repeats) */
	uint64_t deferred;              /* censuses that waited for budget */
	uint64_t census_cpu_us, census_wall_us;
};

/* A tier reading its settings from config (kept by the caller, may change
 * on a reload: see census_tier_reload), its budget full from now.
 * Returns NULL when out of memory. */
struct census_tier *census_tier_new(const struct daemon_config *config, uint64_t now);
/* Accepts NULL, returns NULL. */
struct census_tier *census_tier_free(struct census_tier *ct);
/* After a reload: ScanBudget may have changed (the credit is kept). */
void census_tier_reload(struct census_tier *ct);

const struct census_tier_stats *census_tier_get_stats(const struct census_tier *ct);

/* A process just followed: its first census is due. */
void census_tier_first_sight(struct census_tier *ct, struct target *t, uint64_t now);
/* After a sample of t (its private memory now): the interval and growth
 * triggers.  Returns until when (monotonic us) neither can fall due while
 * t's private memory stays the same (schedule_quiet_until). */
uint64_t census_tier_sampled(struct census_tier *ct, struct target *t, uint64_t now);
/* After a GPU snapshot told t's GPU memory (t->gpu.vram): the growth
 * trigger of GPU memory. */
void census_tier_gpu_told(struct census_tier *ct, struct target *t, uint64_t now);

/* Brings the budget's credit up to now. */
void census_tier_refill(struct census_tier *ct, uint64_t now);
/* The next census to take among w's processes: the most urgent pending one
 * that may run now, or NULL.  Those that must wait for budget are counted
 * as deferred, once each until they run. */
struct target *census_tier_next(struct census_tier *ct, const struct watched *w);
/* Whether t's next census is light: as a client asked, else whether t is
 * above HugeProcess. */
bool census_tier_light(const struct census_tier *ct, const struct target *t);

/* How t's next census reads in use and free (the heap walks): whether it
 * walks at all (at first sight, growth, a mark or a request, and an
 * interval census at most every InUseInterval; never a light census, nor
 * without Evidence=), and for how long from its start (what the budget
 * allows, budget_heap_allowance: the credit left, or for a request or a
 * mark, which run outside the budget, its cap). */
struct census_heap_plan {
	bool walk;
	uint64_t allowance_us;
};
struct census_heap_plan census_tier_heap_plan(const struct census_tier *ct, const struct target *t, bool light,
					      uint64_t now);

/* Takes t's census now (mappings: what the change watch said of them,
 * taken just before, fast_tier_take_mappings; gpu: the last GPU snapshot,
 * or NULL) and queues it on writer.  Returns the census's status:
 * CENSUS_EXITED means t is gone and the caller lets it go. */
enum census_status census_tier_take(struct census_tier *ct, struct target *t, enum steady_mappings mappings,
				   const struct gpu_snapshot *gpu, struct writer *writer);
/* What census_tier_take does with a result before queuing it: the counts,
 * the budget charged, the logs, the classes for the metrics, the waiting
 * clients told, the triggers cleared (at now).  res stays the caller's. */
void census_tier_record(struct census_tier *ct, struct target *t, const struct census_result *res, uint64_t now);

/* Called once with the census a client waits for (its census is NULL
 * unless the status is ok, and is the callee's to read, not to keep). */
typedef void (*census_done_t)(void *userdata, const struct census_result *res);

/* A census of t as soon as possible (full or light as asked, else as
 * HugeProcess says), outside the budget.  When it is done, or t goes
 * first, done is called once.  Returns 0 with *ret_waiter (may be NULL),
 * or -ENOMEM.  The caller runs a pass soon. */
int census_tier_request(struct census_tier *ct, struct target *t, bool full, bool light, uint64_t now,
			census_done_t done, void *userdata, struct census_waiter **ret_waiter);
/* A waiter whose client went away: done is then never called.  Accepts
 * NULL. */
void census_tier_waiter_cancel(struct census_waiter *w);

/* A mark: a named phase of t starts at time (unix ms), queued on writer;
 * a census is due at once.  Returns 0 or -ENOMEM.  The caller runs a pass
 * soon. */
int census_tier_mark(struct census_tier *ct, struct target *t, struct writer *writer, int64_t time, const char *name,
		     int64_t by_uid, uint64_t now);

/* The census before death: t's memory cgroup (or the host) nears its
 * limit; t's census runs in the next pass, first, outside the budget
 * (charged to it), without the heap walks (schedule_near_limit).  The
 * caller runs a pass soon. */
void census_tier_near_limit(struct census_tier *ct, struct target *t, uint64_t now);

/* t is let go (exited, or no longer watched) at time: its waiting clients
 * are told so. */
void census_tier_forget(struct census_tier *ct, struct target *t, bool exited, int64_t time);
/* Frees what t's census part holds (what its last census left); its
 * waiters are told first (census_tier_forget). */
void census_tier_target_done(struct target *t);
