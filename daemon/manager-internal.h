/* What manager.c and manager-interface.c share: the manager's state, and the
 * few steps of its loop that answering a client needs (a census pass soon,
 * telling the control socket of a new store).  Nothing outside the
 * manager includes this; the rest of the daemon sees manager.h, and the
 * control socket sees struct core_interface. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "census-tier.h"
#include "config.h"
#include "control.h"
#include "discover.h"
#include "event-loop.h"
#include "export.h"
#include "fast-tier.h"
#include "gpu-watch.h"
#include "manager.h"
#include "store-cycle.h"
#include "core-interface.h"
#include "status-line.h"
#include "limits.h"
#include "watched.h"

struct cgroup_watch;
struct near_limit;
struct oom_sources;
struct proc_ref;
struct state_lock;

/* A process let go at its exit, kept a moment for the OOM kill that may
 * have ended it (manager-oom.c). */
struct manager_recent_exit {
	int pid;
	int64_t at_ms;
	struct proc_ref *ref; /* NULL: an empty slot */
};

/* Retention runs this often; each run is a bounded number of steps. */
#define RETENTION_PERIOD_US (60u * 1000u * 1000u)

struct manager {
	struct event_loop *event;
	char *config_path, *state_dir, *db_path;
	struct daemon_config config; /* the parts below point at it: a reload changes it in place */

	int root_fd;              /* Linux's proc root (discovery's); -1 on Windows */
	bool host_proc;           /* the kernel's events (process events, the change watch) apply: root_fd is
				   * the host's /proc (never on Windows, which has no such events) */
	struct state_lock *lock;  /* the state directory's, held while running */
	uint64_t started_us;      /* monotonic, for uptime */

	/* the core, each part the owner of its state */
	struct watched *watched;
	struct discover discover;
	struct fast_tier fast;
	struct census_tier *census_tier;
	struct store_cycle *store_cycle;
	struct gpu_watch gpu;       /* NVML and its last snapshot */
	struct export_state export; /* the metrics textfile (Export=) */
	struct control *control;    /* the control socket; NULL without one */

	struct event_source *sample_timer, *store_timer, *discover_timer, *retention_timer;
	struct event_source *census_soon;
	struct event_source *proc_events; /* discovery's events (the process watch, the proc connector); NULL without */

	struct status_rate_point status_since; /* the last STATUS= line's, for rates */

	/* why processes die (manager-oom.c) */
	struct oom_sources *oom;
	struct cgroup_watch *cgroups;  /* NULL: no memory controller (cgroups_why) */
	char cgroups_why[128];
	struct near_limit *near;
	uint64_t near_limit_rounds;    /* groups (or the host) told near their limit */
	struct manager_recent_exit recent[RW_RECENT_EXITS];
	size_t recent_next;
};

/* manager-oom.c: the OOM sources, the memory cgroups and the census
 * before death.  open: at start (a source that cannot be had is off, not
 * an error; returns a negative errno only when out of memory); tick: at
 * each store tick, before the flush; followed: t is followed from now on;
 * exited: t is let go at its exit;
 * stop: before the last store cycle; close: at the end.  status fills
 * the parts of the status that are its. */
int manager_oom_open(struct manager *m);
void manager_oom_tick(struct manager *m, int64_t now_ms);
void manager_oom_followed(struct manager *m, struct target *t);
void manager_oom_exited(struct manager *m, struct target *t);
void manager_oom_reload(struct manager *m);
void manager_oom_stop(struct manager *m);
void manager_oom_close(struct manager *m);
void manager_oom_status(const struct manager *m, struct core_status *ret);

/* Runs a census pass from the loop as soon as the current callback
 * returns (a request or a mark is waiting). */
void manager_census_soon(struct manager *m);

/* Tells the parts that hold the store's handles that it was replaced
 * (reopened, or moved aside as damaged). */
void manager_store_replaced(struct manager *m);

/* manager-interface.c: the daemon's figures of itself (with_size: also the
 * database's size, which costs a stat), and the metrics text, of every
 * process (only_uid -1) or of one user's. */
void manager_snapshot(struct manager *m, bool with_size, struct core_status *ret);
int manager_metrics_text(void *userdata, int64_t only_uid, const char *only_owner, char **ret, size_t *ret_len);

/* Fills in the core interface the control socket sees the daemon through. */
void manager_interface_init(struct manager *m, struct core_interface *ret);
