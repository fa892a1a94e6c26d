/* The manager: ramwatchd's state and its sd_event loop.
 *
 *   discovery   every DiscoverInterval: list /proc (status files only),
 *               start following the processes the selectors pick
 *   fast tier   every SampleInterval: status of each watched process; then
 *               the census tier runs what is due, within ScanBudget
 *   store       every StoreInterval: one row per process (min/max/last),
 *               a system row, a GPU snapshot's rows (where NVIDIA GPUs
 *               are), everything queued written in one transaction
 *   retention   every minute: bounded steps of rollups and deletions
 *   signals     SIGTERM/SIGINT: write what is gathered and stop; SIGHUP:
 *               reload the configuration
 *
 * manager.c holds the set-up and the loop, discover.c the discovery,
 * tiers.c the fast tier, the census tier and the store cycle, gpu-watch.c
 * the GPU snapshots. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "config.h"
#include "control.h"
#include "export.h"
#include "gpu-watch.h"
#include "pidmap.h"
#include "schedule.h"
#include "store.h"
#include "target.h"
#include "writer.h"

struct manager_options {
	const char *config_path; /* the configuration file; its .d directory beside it */
	const char *state_dir;   /* where the database lives */
	const char *proc_root;   /* NULL: /proc (tests point it elsewhere) */
	const char *socket_path; /* the control socket; NULL: systemd's, else the default */
};

struct manager_stats {
	uint64_t followed, exited, stopped;     /* processes */
	uint64_t censuses[_STATUS_MAX];         /* by status */
	uint64_t censuses_light;
	uint64_t deferred;                      /* censuses that waited for budget */
	uint64_t census_cpu_us, census_wall_us;
	uint64_t over_limit;                    /* not followed: MaxProcesses reached */
	uint64_t sample_errors;
};

struct manager {
	sd_event *event;
	char *config_path, *state_dir, *db_path;
	struct daemon_config config;

	struct store *store;
	struct writer *writer;

	int root_fd;
	int lock_fd;              /* the state directory's lock, held while running */
	char *boot_id;
	int64_t boot_ms;
	long ticks_per_second;

	struct pidmap by_pid;
	struct target *targets;
	unsigned n_targets;

	struct budget budget;
	struct manager_stats stats;

	sd_event_source *sample_timer, *store_timer, *discover_timer, *retention_timer;
	sd_event_source *sigterm, *sigint, *sighup;

	/* the last STATUS= line's moment, for rates */
	uint64_t status_at, status_censuses, status_cpu_us;
	bool over_limit_logged;
	bool retention_now;       /* the store is full: run retention soon */
	sd_event_source *census_defer;
	uint64_t started_us;      /* monotonic, for uptime */
	struct control *control;  /* the control socket; NULL without one */
	struct export_state export; /* the metrics textfile (Export=) */
	struct gpu_watch gpu;       /* NVML and its last snapshot */
};

/* Loads the configuration, takes the state directory's lock (held until
 * manager_free), opens (and migrates) the store, sets up the loop.
 * Returns 0 with *ret, -EBUSY when another daemon holds the state
 * directory, or a negative errno, after logging why. */
int manager_new(const struct manager_options *o, struct manager **ret);
/* Runs until SIGTERM/SIGINT; returns 0 or a negative errno. */
int manager_run(struct manager *m);
/* Frees everything; accepts NULL, returns NULL. */
struct manager *manager_free(struct manager *m);

/* Reloads the configuration (SIGHUP).  A bad file keeps the running one.
 * Returns 0 or the negative errno of the failed load. */
int manager_reload(struct manager *m);

/* discover.c */
int manager_discover(struct manager *m);
/* Whether the current selectors still pick a followed process. */
bool manager_still_selected(struct manager *m, struct target *t);

/* tiers.c */
int manager_sample_all(struct manager *m);
void manager_census_pass(struct manager *m);
int manager_store_cycle(struct manager *m);
void manager_retention(struct manager *m);
/* Stops following t: records its exit (exited) or that it is no longer
 * watched, queues what was gathered, frees it. */
void manager_drop_target(struct manager *m, struct target *t, bool exited);
/* Starts following: list, map, exit watch, first census due. */
int manager_add_target(struct manager *m, struct target *t);

/* gpu-watch.c */
/* Opens NVML and tells once what it found (no driver, no GPU: at info);
 * with devices, takes the first snapshot. */
void manager_gpu_open(struct manager *m);
/* On a reload: opens NVML again unless it is in use. */
void manager_gpu_reload(struct manager *m);
void manager_gpu_close(struct manager *m);
/* In the store cycle, rows ending at now: a snapshot, what it tells of
 * each watched process (its GPU memory, the growth trigger), and its rows
 * queued.  Nothing without NVML. */
void manager_gpu_cycle(struct manager *m, int64_t now);
/* The latest snapshot, for the censuses' GPU section; NULL without NVML. */
const struct gpu_snapshot *manager_gpu_snapshot(const struct manager *m);

/* export.c */
/* The metrics exposition of the daemon's state; the per-group families
 * hold only the processes of only_uid (-1: all).  Returns 0 with *ret (the
 * caller's to free) and its length, or -ENOMEM. */
int manager_metrics_text(struct manager *m, int64_t only_uid, char **ret, size_t *ret_len);
/* Writes Export='s textfile (when there is one; every StoreInterval),
 * removing the one an earlier Export= named.  Failures are counted and
 * logged once per change. */
void manager_export(struct manager *m);

/* For the control socket: a census of a watched pid as soon as possible
 * (full or light as asked, else as HugeProcess says), outside the budget.
 * When it is done (or the process exits first), done is called once, from
 * the event loop, with the result (its census is NULL unless the status is
 * ok, and is the caller's to read, not to keep: the store takes it after
 * the call).  A waiter whose client went away is cancelled with
 * manager_census_waiter_cancel: done is then never called.  Returns 0 with
 * *ret_waiter, -ESRCH when pid is not watched, -ENOMEM. */
struct census_waiter;
typedef void (*census_done_t)(void *userdata, const struct census_result *res);
int manager_request_census(struct manager *m, int pid, bool full, bool light, census_done_t done, void *userdata,
			   struct census_waiter **ret_waiter);
void manager_census_waiter_cancel(struct census_waiter *w);

/* A mark: a named phase of a watched process starts now; a census is due
 * at once.  Returns 0 with the time in *ret_time (unix ms, may be NULL),
 * -ESRCH when pid is not watched, -ENOMEM. */
int manager_mark(struct manager *m, int pid, const char *name, int64_t by_uid, int64_t *ret_time);

/* Runs a census pass from the loop as soon as the current callback
 * returns (a request or a mark is waiting). */
void manager_census_soon(struct manager *m);

/* The watched process with that pid, or NULL. */
struct target *manager_find(struct manager *m, int pid);

/* One line for STATUS= and the logs. */
void manager_status_line(struct manager *m, char *buf, size_t size);
