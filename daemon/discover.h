/* Discovery: which processes to follow.  Those above MinPrivate that the
 * selectors pick are followed from then on, until they exit, up to
 * MaxProcesses at once.
 *
 * Every DiscoverInterval a pass decides.  Without events of processes it
 * lists the proc root and reads the status of each process not followed
 * (25 microseconds each), as a pass always did.  With them, from the
 * process watch (process-watch.h, BPF) or else the proc connector
 * (proc-connector.h), a pass reads only what they told as new or changed
 * since (a fork, an exec, a new name; a new uid from the connector alone):
 * a process the selectors
 * passed over is not read again until it changes, and one picked but
 * below MinPrivate is looked at through its statm, kept open, whose
 * figures move when it grows (1.6 microseconds; a process whose VmSize is
 * below MinPrivate cannot hold that much).  A full pass, listing the proc
 * root, comes first, after a reload, when events were lost, and at least
 * every RW_DISCOVER_FULL_MS.
 *
 * Discovery reads the proc root and decides; following (the store, the
 * exit watch, the census tier) is its caller's, through the callback. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "discover-known.h"
#include "proc-connector.h"
#include "process-watch.h"
#include "target.h"

struct watched;

/* Where discovery learns of new and changed processes, best first. */
enum discover_source {
	DISCOVER_LISTING,   /* nowhere: every pass lists the proc root */
	DISCOVER_CONNECTOR, /* the proc connector */
	DISCOVER_BPF,       /* the process watch */
};

/* "bpf", "connector", "listing": as the status names them. */
const char *discover_source_name(enum discover_source s);

/* A process discovery picked: the callback takes t over (it frees it when
 * it cannot follow it).  Returns 0, or a negative errno that ends the pass
 * (-ENOMEM). */
typedef int (*discover_follow_t)(void *userdata, struct target *t);

struct discover {
	int root_fd;                        /* the proc root (borrowed) */
	const struct daemon_config *config; /* the caller's, reloads included */
	struct target_identity id;          /* now_ms and pidfd_below are not read: a pass sets its own */
	int self;                           /* the daemon's pid: never followed */
	discover_follow_t follow;
	void *userdata;

	/* discover.c's */
	uint64_t over_limit;                /* not followed: MaxProcesses reached */
	bool over_limit_logged;             /* ... told, until there is room again */
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

/* Makes d ready for its first pass (a full one), its fields above set by
 * the caller, and opens its source of events (discover_events_open).
 * Returns 0. */
int discover_init(struct discover *d, const char *bpf_off, const char *connector_off);
/* Closes the source of events, forgets every process; accepts a zeroed d. */
void discover_done(struct discover *d);

/* (Re)opens the source of events, the best that opens: the process watch,
 * else the proc connector, else none, and every pass lists the proc root.
 * bpf_off and connector_off say why the caller keeps one off (NULL: try
 * it).  What is off and why is logged and kept in d->why.  The next pass
 * is a full one.  Returns the source. */
enum discover_source discover_events_open(struct discover *d, const char *bpf_off, const char *connector_off);
/* The source in use. */
enum discover_source discover_source(const struct discover *d);

/* The descriptor of the source of events, readable when events wait, or
 * -1 without one. */
int discover_events_fd(const struct discover *d);
/* Reads the waiting events into the next pass's work.  On a loss
 * (ENOBUFS) the next pass is a full one; on another error the source is
 * closed (logged) and every pass lists the root from then on.  Returns 0,
 * or that error. */
int discover_events_read(struct discover *d);
/* What the connector (or the watch) tells of pid, for the next pass. */
int discover_event(void *d, enum proc_connector_kind kind, int pid);
/* The selectors or MinPrivate changed: the next pass decides afresh. */
void discover_reload(struct discover *d);

/* One pass over the proc root: each process that is not in w (nor the
 * daemon), not a kernel thread or a zombie, above MinPrivate and picked by
 * Watch= and Ignore= is handed to d->follow while w has room.  A process
 * that vanishes meanwhile is passed over.  Returns 0, or a negative errno
 * when the root cannot be listed or memory runs out (logged). */
int discover_pass(struct discover *d, const struct watched *w);

/* Whether the selectors of c still pick t (after a reload). */
bool discover_still_selected(const struct daemon_config *c, const struct target *t);
