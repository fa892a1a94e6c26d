/* The census before death: telling the manager, as early as can be, that
 * a memory cgroup of watched processes nears the limit that applies to
 * it (NearLimit=, NearLimitAgain=), or that the host nears exhaustion
 * (MemAvailable under NearExhaustion=), so that it takes censuses of the
 * largest processes there before the OOM killer chooses one.
 *
 * How the usage is watched:
 *   v1  usage thresholds: an eventfd registered through cgroup.event_control
 *       on the limit's group's memory.usage_in_bytes at both shares of the
 *       limit; the kernel signals it as the usage crosses one, up or down.
 *       Where cgroup.event_control cannot be written (a read-only cgroup
 *       file system, as ProtectControlGroups= makes it), polling as v2.
 *   v2  polling memory.current, faster as it nears the limit
 *       (near_limit_poll_interval), and memory.events' "max" (the group
 *       reached memory.max: the kernel reclaims at the limit).
 *   host MemAvailable of /proc/meminfo, polled likewise.
 * A group is told once per level it rises to; it is told again only after
 * its usage fell below the level's share less NEAR_LIMIT_HYSTERESIS, so a
 * group that sits at its limit (page cache fills it) is told once.
 *
 * near-limit.c owns the eventfds, the timer and the levels; the manager
 * gives it the limits to watch at each store tick (cgroup-watch.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup-watch.h"
#include "event-loop.h"

/* a group falls below a level's share less this to be told again */
#define NEAR_LIMIT_HYSTERESIS 0.05

struct near_limit;

/* Called on the loop: path is the group whose limit is near (NULL: the
 * host's memory), usage and limit its figures (the host: used and total
 * less NearExhaustion), level 1 (NearLimit) or 2 (NearLimitAgain, or the
 * group reached its limit). */
typedef void (*near_limit_fn)(void *userdata, const char *path, uint64_t usage, uint64_t limit, int level);

struct near_limit_settings {
	double near, again;     /* shares of the limit; 0: off */
	uint64_t exhaustion;    /* bytes of MemAvailable; 0: off */
};

/* cw: the memory cgroups (NULL: none, only the host is watched); proc_fd:
 * the proc root, for meminfo.  Both stay the caller's.  Returns 0 with
 * *ret or -ENOMEM. */
int near_limit_new(struct event_loop *e, struct cgroup_watch *cw, int proc_fd, const struct near_limit_settings *s,
		   near_limit_fn fn, void *userdata, struct near_limit **ret);
struct near_limit *near_limit_free(struct near_limit *nl);

/* The limits to watch from now on (cgroup_watch_limits after a tick). */
void near_limit_update(struct near_limit *nl, const struct cgroup_watch_limit *limits, size_t n);
/* One more limit to watch from now on (a process just followed), until
 * the next near_limit_update says otherwise; nothing when it is watched
 * already. */
void near_limit_add(struct near_limit *nl, const struct cgroup_watch_limit *l);
/* New settings (a reload). */
void near_limit_reload(struct near_limit *nl, const struct near_limit_settings *s);

/* How many groups are watched through thresholds and through polling. */
void near_limit_counts(const struct near_limit *nl, unsigned *ret_thresholds, unsigned *ret_polled);

/* The level of a usage: 2 from again's share, 1 from near's, else 0;
 * with was (the level told last) kept while usage stays above its share
 * less NEAR_LIMIT_HYSTERESIS.  Pure. */
int near_limit_level(uint64_t usage, uint64_t limit, double near, double again, int was);

/* How long (us) until usage is read again at this share of its limit:
 * 1 s far from it, down to 20 ms past near.  Pure. */
uint64_t near_limit_poll_interval(double share, double near);
