/* Linux's discovery state (discover.h): the proc root, the source of
 * events (the process watch, else the proc connector), and the processes
 * passed over (discover-known.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "discover-known.h"
#include "proc-connector.h"
#include "process-watch.h"
#include "target-os.h"

struct discover {
	int root_fd;                        /* the proc root (borrowed) */
	const struct daemon_config *config; /* the caller's, reloads included */
	struct target_identity id;          /* now_ms and pidfd_below are not read: a pass sets its own */
	int self;                           /* the daemon's pid: never followed */
	discover_follow_t follow;
	void *userdata;
	char *boot_id;                      /* the boot's id, id.boot_id's (discover_open) */

	/* discover.c's */
	uint64_t over_limit;                /* not followed: MaxProcesses reached */
	bool over_limit_logged;             /* ... told, until there is room again */
	bool events;                        /* the kernel's events may be had (discover_init) */
	struct process_watch *watch;        /* the process watch, or NULL */
	int events_fd;                      /* else the proc connector, or -1: list every pass */
	char why[256];                      /* why the better sources are off, in words ("" if none is) */
	struct known known;                 /* the processes passed over */
	bool full_due;                      /* the next pass lists the proc root */
	uint64_t last_full_us;              /* when a pass last did (monotonic) */
	uint32_t listing;                   /* the number of the last listing */
	uint64_t passes, full_passes;       /* passes, and those that listed the root */
	uint64_t status_reads;              /* processes whose status a pass read */
	uint64_t events_lost;               /* times the watch or the connector dropped events */
};

/* The descriptor of the source of events, readable when events wait, or
 * -1 without one. */
int discover_events_fd(const struct discover *d);
/* What the connector (or the watch) tells of pid, for the next pass
 * (proc-connector.h). */
int discover_event(void *d, enum proc_connector_kind kind, int pid);
