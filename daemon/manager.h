/* The manager: ramwatchd's set-up, its event loop, and the ticks that
 * drive the parts of its core.
 *
 *   discovery   every DiscoverInterval: list /proc (status files only),
 *               start following the processes the selectors pick
 *               (discover.c; the set they join: watched.c)
 *   fast tier   every SampleInterval: statm of each watched process (status when it moved)
 *               (fast-tier.c); then the census tier runs what is due,
 *               within ScanBudget (census-tier.c)
 *   store       every StoreInterval: one row per process (min/max/last),
 *               a system row, a GPU snapshot's rows (where NVIDIA GPUs
 *               are; gpu-watch.c), everything queued written in one
 *               transaction (store-cycle.c); the metrics textfile
 *               (export.c)
 *   retention   every minute: bounded steps of rollups and deletions
 *               (store-cycle.c)
 *   requests    stop (SIGTERM/SIGINT): write what is gathered and stop;
 *               reload (SIGHUP): reload the configuration
 *
 * Each of those files owns its state; manager.c holds them together,
 * reads each tick top to bottom, and is what following and letting go of
 * a process mean (the store, the census tier, the exit watch).  The
 * control socket sees the daemon through struct core_interface
 * (core-interface.h), which manager-interface.c implements.  doc/architecture.md draws the whole. */
#pragma once

struct manager;

struct manager_options {
	const char *config_path; /* the configuration file; its .d directory beside it */
	const char *state_dir;   /* where the database lives */
	const char *proc_root;   /* NULL: /proc (tests point it elsewhere) */
	const char *socket_path; /* the control socket; NULL: systemd's, else the default */
};

/* Loads the configuration, takes the state directory's lock (held until
 * manager_free), opens (and migrates) the store, sets up the loop and the
 * control socket.  Returns 0 with *ret, -EBUSY when another daemon holds
 * the state directory, or a negative errno, after logging why. */
int manager_new(const struct manager_options *o, struct manager **ret);
/* Runs until SIGTERM/SIGINT, then writes what was gathered; returns 0 or
 * a negative errno. */
int manager_run(struct manager *m);
/* Frees everything; accepts NULL, returns NULL. */
struct manager *manager_free(struct manager *m);
