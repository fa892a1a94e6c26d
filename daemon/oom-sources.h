/* The daemon's sources of OOM kills, on its event loop: the OOM watch's
 * ring buffer (BPF, oom-watch.h) and the kernel's log (kmsg-source.h) as
 * io sources, their tellings put together (oom-kills.h), and the host's
 * count of OOM kills (/proc/vmstat oom_kill) read at each store tick to
 * find the kills both missed.
 *
 * A kill while the daemon was down is counted at start: the count at the
 * last tick is kept in a small file of the state directory with the boot
 * it belongs to, and what the kernel counted beyond it in the same boot
 * comes as counted kills, their details unknown.
 *
 * oom-sources.c owns its sources and their state; the manager gets each
 * kill through a callback and asks which sources are active for status. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "event-loop.h"
#include "oom-kills.h"

struct oom_sources;

/* Called on the loop for each kill put together; its strings are valid
 * during the call only. */
typedef void (*oom_sources_kill_t)(void *userdata, const struct oom_kill *k);

struct oom_sources_options {
	bool watch;            /* OOMWatch=: load the BPF program where possible */
	const char *watch_off; /* why not, when watch is false ("OOMWatch=no") */
	bool kmsg;             /* KernelLog=: read the kernel's log */
	const char *kmsg_path; /* NULL: /dev/kmsg */
	int proc_fd;           /* the proc root, for vmstat (stays the caller's) */
	const char *state_dir; /* where the count is kept between runs; NULL: not kept */
	const char *boot_id;   /* the boot the count is of */
};

/* Why a source is off, or "" when it is active: in words for status. */
#define OOM_SOURCES_WHY_MAX 160

struct oom_sources_status {
	bool watch, kmsg, counter;
	char watch_why[OOM_SOURCES_WHY_MAX], kmsg_why[OOM_SOURCES_WHY_MAX], counter_why[OOM_SOURCES_WHY_MAX];
	/* kills given since the start, by what confined them (enum
	 * oom_constraint), and those only counted */
	uint64_t kills[OOM_CONSTRAINT_MEMCG + 1];
	uint64_t counted;
	uint64_t kmsg_lost, kmsg_bad_lines; /* records lost to the ring; OOM lines that did not read */
};

/* Opens the sources o allows, each where it can (one that cannot is off,
 * with its reason logged once and kept for status), adds them to e.
 * Returns 0 with *ret, or -ENOMEM. */
int oom_sources_new(struct event_loop *e, const struct oom_sources_options *o, oom_sources_kill_t fn,
		    void *userdata, struct oom_sources **ret);
/* Before stopping: gives what is still waiting (each kill with what
 * came) and what the count says was missed, and keeps the count for the
 * next start. */
void oom_sources_stop(struct oom_sources *s);
/* Closes the sources; what was waiting is lost (oom_sources_stop gives
 * it).  Accepts NULL, returns NULL. */
struct oom_sources *oom_sources_free(struct oom_sources *s);

/* The store tick: reads what the sources have waiting, gives the kills
 * whose grace is over, then compares the count read at the last tick
 * (every kill in it has been told by now, if a source saw it) with the
 * kills given: those it counted that no source told are given as
 * counted, and it is kept for the next start.  A daemon killed outright
 * keeps a count up to a tick old, and its next start may count again a
 * kill of its last tick. */
void oom_sources_tick(struct oom_sources *s);

/* A reload: OOMWatch= and KernelLog= as o says now (a source turned on
 * is tried again). */
void oom_sources_reload(struct oom_sources *s, const struct oom_sources_options *o);

void oom_sources_status(const struct oom_sources *s, struct oom_sources_status *ret);

/* The unix time (ms) of a monotonic time (ns) of the kernel's, by the
 * clocks' offset now: the watch's and the log's times are the kernel's
 * monotonic ones. */
int64_t oom_sources_unix_ms(uint64_t mono_ns, int64_t now_unix_ms, uint64_t now_mono_ns);

/* vmstat's oom_kill.  Returns 0 with *ret, -ENOENT without it (before
 * 4.13), -EBADMSG.  Pure. */
int oom_sources_parse_vmstat(const char *text, size_t len, uint64_t *ret);

/* The count file: "BOOT_ID COUNT\n".  Returns 0 with *ret when it is of
 * boot_id, -ESTALE when of another boot, -EBADMSG.  Pure. */
int oom_sources_parse_count(const char *text, size_t len, const char *boot_id, uint64_t *ret);
