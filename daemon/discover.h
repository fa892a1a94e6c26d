/* Discovery: which processes to follow.  Those above MinPrivate that the
 * selectors pick are followed from then on, until they exit, up to
 * MaxProcesses at once.  Every DiscoverInterval a pass decides; following
 * (the store, the exit watch, the census tier) is its caller's, through
 * the callback.
 *
 * This header is what the manager sees of it on every platform; each
 * platform's state (struct discover) is in its own discover-os.h.
 *
 * linux/discover.c: without events of processes a pass lists the proc
 * root and reads the status of each process not followed (25
 * microseconds each).  With them, from the process watch
 * (process-watch.h, BPF) or else the proc connector (proc-connector.h), a
 * pass reads only what they told as new or changed since (a fork, an
 * exec, a new name; a new uid from the connector alone): a process the
 * selectors passed over is not read again until it changes, and one
 * picked but below MinPrivate is looked at through its statm, kept open,
 * whose figures move when it grows (1.6 microseconds; a process whose
 * VmSize is below MinPrivate cannot hold that much).  A full pass,
 * listing the proc root, comes first, after a reload, when events were
 * lost, and at least every RW_DISCOVER_FULL_MS.
 *
 * windows/discover.c: a pass is one snapshot of every process
 * (windows/win-procs.h), whose commit says at once which are above
 * MinPrivate; the selectors judge each instance (pid and creation time)
 * once, and what they passed over is carried from one snapshot to the
 * next. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "event-loop.h"
#include "target.h"

struct watched;

/* Where discovery learns of new and changed processes. */
enum discover_source {
	DISCOVER_LISTING,   /* nowhere: every pass lists the proc root (Linux) */
	DISCOVER_CONNECTOR, /* the proc connector (Linux) */
	DISCOVER_BPF,       /* the process watch (Linux), the best */
	DISCOVER_SNAPSHOT,  /* nowhere: every pass is a snapshot of every process (Windows) */
};

/* "bpf", "connector", "listing", "snapshot": as the status names them. */
static inline const char *discover_source_name(enum discover_source s)
{
	switch (s) {
	case DISCOVER_BPF:
		return "bpf";
	case DISCOVER_CONNECTOR:
		return "connector";
	case DISCOVER_SNAPSHOT:
		return "snapshot";
	default:
		return "listing";
	}
}

/* What the status tells of discovery. */
struct discover_status {
	enum discover_source source;
	const char *why;              /* why the better sources are off, in words; NULL: none is */
	uint64_t passes, full_passes; /* passes, and those that looked at every process */
	uint64_t events_lost;         /* times the source of events dropped some */
};

/* A process discovery picked: the callback takes t over (it frees it when
 * it cannot follow it).  Returns 0, or a negative errno that ends the pass
 * (-ENOMEM). */
typedef int (*discover_follow_t)(void *userdata, struct target *t);

#ifdef _WIN32
#include "windows/discover-os.h"
#else
#include "linux/discover-os.h"
#endif

/* Opens the machine's processes for d, whose config, follow and userdata
 * the caller set: on Linux the proc root (proc_root, NULL for /proc; with
 * another, a test's tree, *ret_host is false and the kernel's events are
 * of no use), the boot's id and time; on Windows, where there is no proc
 * root (proc_root must be NULL, d->root_fd is -1) and no kernel events
 * (*ret_host false), the boot's time as its id.  d->self is the daemon's
 * pid.  Returns 0, or a negative errno after
 * logging why. */
int discover_open(struct discover *d, const char *proc_root, bool *ret_host);

/* Makes d ready for its first pass (a full one) and opens its source of
 * events (discover_events_open); without the kernel's process events
 * (events false, or they cannot be had: logged, and why kept for the
 * status) every pass looks at every process.  Returns 0. */
int discover_init(struct discover *d, bool events);
/* Closes what discovery holds, forgets every process; accepts a zeroed d. */
void discover_done(struct discover *d);

/* (Re)opens the source of the kernel's process events, the best that
 * opens and that the settings allow: on Linux the process watch (unless
 * ProcessWatch=no), else the proc connector, else none, and every pass
 * lists the proc root; Windows has none.  The caller takes the old
 * source's descriptor (discover_events_source) out of its loop first.
 * What is off and why is logged.  The next pass is a full one.  Returns
 * the source. */
enum discover_source discover_events_open(struct discover *d);
/* Where the kernel's process events wait, for the loop to watch: true
 * with *ret, or false when there are none. */
bool discover_events_source(const struct discover *d, event_fd_t *ret);
/* Reads the waiting events into the next pass's work.  On a loss the next
 * pass looks at every process; on another error the events are given up
 * (logged) and every pass looks at every process from then on.  Returns
 * 0, or that error. */
int discover_events_read(struct discover *d);
/* The source in use. */
enum discover_source discover_source(const struct discover *d);
/* What the status tells: the source, why the better ones are off, the
 * counts. */
void discover_get_status(const struct discover *d, struct discover_status *ret);

/* The selectors or MinPrivate changed: the next pass decides afresh. */
void discover_reload(struct discover *d);

/* One pass: each process that is not in w (nor the daemon), not a kernel
 * thread or a zombie, above MinPrivate and picked by Watch= and Ignore=
 * is handed to d->follow while w has room.  A process that vanishes
 * meanwhile is passed over.  Returns 0, or a negative errno when the
 * processes cannot be listed or memory runs out (logged). */
int discover_pass(struct discover *d, const struct watched *w);

/* Whether the selectors of c still pick t (after a reload). */
bool discover_still_selected(const struct daemon_config *c, const struct target *t);
