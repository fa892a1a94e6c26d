/* OOM kills put together from the sources that tell them: the OOM watch
 * (BPF, oom-watch.h), the kernel's log (oom-kmsg.h) and the kernel's
 * counters (/proc/vmstat oom_kill), into one record each.  Pure: events
 * in, with the times the caller gives them, kills out.
 *
 * The watch tells a victim at once, with its memory cgroup and the limit
 * hit; the log tells it a moment later, with the kernel's figures for its
 * memory and the cgroups' paths; either may be missing (the watch not
 * loaded, the log not readable, a line lost).  A kill waits for the
 * sources that are active, at most ONE grace period (OOM_KILLS_GRACE_MS)
 * after the first told it, and is then given with what came.  A victim
 * the watch saw marked without the kernel's SIGKILL (a process already
 * exiting) is no kill unless the log says it was killed.  What neither
 * told is found by the counter: kills it counted that no source gave are
 * given as kills whose details are unknown. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "oom-kmsg.h"

struct oom_watch_event; /* oom-watch-event.h: the BPF program's record, Linux only */

#define OOM_KILLS_GRACE_MS 2000
/* the sources' times of one kill differ by less than this */
#define OOM_KILLS_PAIR_MS 5000
/* kills waiting for their other source at most; when they are this many
 * all are given at once, each with what it has */
#define OOM_KILLS_PENDING_MAX 256

enum oom_source {
	OOM_SOURCE_WATCH = 1u << 0,
	OOM_SOURCE_KMSG = 1u << 1,
	OOM_SOURCE_COUNTER = 1u << 2, /* counted, told by no source */
};

struct oom_kill {
	int64_t time_ms; /* unix ms, of the first source that told it */
	unsigned sources;
	int pid;         /* 0 for a kill only counted */
	char comm[OOM_KMSG_COMM_MAX];
	bool have_uid;
	uint32_t uid;
	enum oom_constraint constraint;

	/* the victim's memory cgroup and the one whose limit was hit: ids
	 * (the directories' inodes) from the watch, paths from the log */
	uint64_t cgroup_id, limit_cgroup_id;
	char cgroup[OOM_KMSG_PATH_MAX], limit_cgroup[OOM_KMSG_PATH_MAX];
	bool have_limit;
	uint64_t limit, usage; /* bytes, of the group whose limit was hit */

	/* the kernel's figures for the victim's memory (the log), bytes */
	bool have_kernel;
	uint64_t total_vm, anon_rss, file_rss, shmem_rss;
	bool have_pgtables, have_oom_score_adj;
	uint64_t pgtables;
	int oom_score_adj;
};

struct oom_kills;

int oom_kills_new(struct oom_kills **ret);
struct oom_kills *oom_kills_free(struct oom_kills *k);

/* A victim the watch told, at unix time_ms; page_size turns its pages
 * into bytes.  Returns 0, or -ENOBUFS when OOM_KILLS_PENDING_MAX kills
 * wait already: take them (all are given then) and add it again. */
int oom_kills_add_watch(struct oom_kills *k, const struct oom_watch_event *e, int64_t time_ms, uint64_t page_size);

/* A kill the log told, at unix time_ms.  Returns 0 or -ENOBUFS, as
 * oom_kills_add_watch. */
int oom_kills_add_kmsg(struct oom_kills *k, const struct oom_kmsg_kill *e, int64_t time_ms);

/* Gives the kills that are whole (every active source told them) or
 * whose grace is over at now_ms, oldest first, into out (at most n).
 * watch and kmsg say which sources are active.  Returns the number
 * given; call again while it fills out. */
size_t oom_kills_take(struct oom_kills *k, int64_t now_ms, bool watch, bool kmsg, struct oom_kill *out, size_t n);

/* The host's count of OOM kills (vmstat's oom_kill) at now_ms: the kills
 * it counted beyond those given so far are returned as counted-only kills
 * into out (at most n).  The first count only sets where counting starts.
 * Call it after oom_kills_take has given everything whose grace is over,
 * so that a kill still waiting for its sources is not counted as missed. */
size_t oom_kills_count(struct oom_kills *k, uint64_t counter, int64_t now_ms, struct oom_kill *out, size_t n);
