/* The core interface: what the daemon shows of itself to those outside
 * its core.  A status snapshot in plain values (for STATUS=, the metrics
 * and the control socket's "status"), a watched process described in
 * plain values, and the calls the control socket may make (struct
 * core_interface, given to control_new).  manager-interface.c implements
 * them over struct manager; nothing here points into its state beyond the
 * call that fills it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census-tier.h"
#include "export-text.h"
#include "oom-sources.h"
#include "store.h"
#include "writer.h"

/* The daemon at a moment. */
struct core_status {
	uint64_t started_us;                /* monotonic, for uptime */
	const char *config_path, *db_path;  /* valid while the daemon runs */

	/* the watched set (watched.c) */
	unsigned watched;
	uint64_t followed, exited, stopped;
	uint64_t over_limit;                /* discovery: not followed, MaxProcesses reached */
	/* discovery: where it learns of new and changed processes ("bpf",
	 * "connector", "listing"), why the better ones are off (NULL: none
	 * is), its passes, those that listed every process, and the times
	 * events were lost */
	const char *discovery_source, *discovery_why;
	uint64_t discovery_passes, discovery_full_passes, discovery_lost;
	uint64_t sample_errors;             /* the fast tier */
	uint64_t sample_round_us_max;       /* its longest round (and the census pass after it) */

	/* the census tier */
	struct census_tier_stats census;
	double scan_budget;                 /* ScanBudget=, a share of one CPU */

	/* the store */
	struct writer_stats writer;
	uint64_t dropped_rows;              /* all kinds together */
	int schema_version;
	bool have_size;
	uint64_t size;                      /* bytes in use, when have_size */
	/* damaged database files found, moved aside and replaced; the last */
	uint64_t corruptions;
	int64_t corruption_found_at;        /* unix ms */
	const char *corruption_moved_to;    /* NULL while corruptions is 0 */
	const char *corruption_what;        /* what was found */
	uint64_t corruption_kept_processes, corruption_kept_censuses;

	uint64_t export_errors;             /* Export='s writes that failed */

	/* the rules for a census of a process the daemon does not watch */
	bool evidence;                      /* Evidence= */
	uint64_t huge_process;              /* HugeProcess=, bytes; 0: none */

	/* OOM kills: the sources and what they told (have_oom false: none
	 * opened; oom_why: why the platform has none to open, or NULL) */
	bool have_oom;
	struct oom_sources_status oom;
	const char *oom_why;
	/* memory cgroups: the controller's version (1, 2; 0: none, why in
	 * cgroups_why), the groups of watched processes at the last store
	 * tick (the daemon's, valid until the loop runs again), the limits
	 * watched near through thresholds or polling, and how many times a
	 * group (or the host) was found near its limit */
	int cgroup_version;
	const char *cgroups_why;
	const struct export_cgroup *cgroups;
	size_t n_cgroups;
	unsigned near_limit_thresholds, near_limit_polled;
	uint64_t near_limit_rounds;

	/* the machine's memory, read when the status was asked for (only
	 * then: the STATUS= line does not need it); have_system false when
	 * the proc root's meminfo could not be read */
	bool have_system;
	struct store_system system;
};

/* A watched process as the daemon knows it now.  The strings are the
 * daemon's, valid until the event loop runs again. */
struct core_process {
	int64_t process_id;  /* its row in the store; 0 before the first write */
	int pid;
	int64_t start_time, started_at, uid, last_seen; /* -1 unknown */
	const char *boot_id, *comm, *exe, *cmdline;     /* NULL unknown */
	const char *owner;   /* Windows: DOMAIN\account, or the SID; NULL on Linux or unknown */
	const char *cgroup; /* its cgroup in the unified hierarchy (systemd's) when followed; NULL unknown */
	const char *memcg;  /* its memory cgroup's path (the memory controller's); NULL unknown */
	uint64_t private, resident, peak_private, peak_resident;
	int64_t vram;        /* GPU memory at the last GPU snapshot; -1: on no GPU */
	uint64_t peak_vram;
};

/* Called for each watched process; a negative errno stops the walk. */
typedef int (*core_each_t)(void *data, const struct core_process *p);

/* The control socket's way into the daemon: every call runs on the event
 * loop's thread, with userdata as its first argument. */
struct core_interface {
	void *userdata;
	void (*status)(void *userdata, struct core_status *ret);
	/* 0 with *ret, -ESRCH when pid is not watched */
	int (*describe)(void *userdata, int pid, struct core_process *ret);
	/* every watched process; returns 0 or fn's negative errno */
	int (*for_each)(void *userdata, core_each_t fn, void *data);
	/* A mark: a named phase of a watched process starts now; a census is
	 * due at once.  Returns 0 with the time in *ret_time (unix ms), -ESRCH
	 * when pid is not watched, -ENOMEM. */
	int (*mark)(void *userdata, int pid, const char *name, int64_t by_uid, int64_t *ret_time);
	/* A census of a watched pid as soon as possible, outside the budget
	 * (census_tier_request); done is called once, from the event loop,
	 * unless cancel_census is called first.  Returns 0 with *ret_waiter,
	 * -ESRCH when pid is not watched, -ENOMEM. */
	int (*request_census)(void *userdata, int pid, bool full, bool light, census_done_t done, void *data,
			      struct census_waiter **ret_waiter);
	void (*cancel_census)(void *userdata, struct census_waiter *w);
	/* A read of the database found it damaged (what, in words): the
	 * daemon replaces it (store_cycle_damaged). */
	void (*store_damaged)(void *userdata, const char *what);
	/* The metrics exposition; the per-group families hold only the
	 * processes of only_uid (-1: all) and of the account only_owner
	 * (NULL: none; store_owner_visible).  Returns 0 with *ret (the
	 * caller's to free) and its length, or -ENOMEM. */
	int (*metrics_text)(void *userdata, int64_t only_uid, const char *only_owner, char **ret, size_t *ret_len);
};
