/* The record the OOM watch's BPF program (oom-watch.bpf.c) writes into its
 * ring buffer and oom-watch.c reads: one layout for both sides, in the
 * kernel's own types so that the BPF compiler and the daemon's agree. */
#pragma once

#include <linux/types.h>

enum oom_watch_kind {
	OOM_WATCH_VICTIM = 1, /* the OOM killer chose a victim (mark_victim) */
};

/* The memory cgroup figures are pages; a max of ~0 pages is no limit. */
struct oom_watch_event {
	__u32 kind;
	__u32 pid;  /* the thread group (process) */
	__u32 uid;
	__u32 levels; /* memory cgroups read from the victim's up */
	__u32 killed; /* the kernel sent it SIGKILL just before: a kill */
	__u32 pad;
	__u64 time_ns; /* CLOCK_MONOTONIC */
	__u64 kill_time_ns;
	char comm[16];
	__u64 total_vm;    /* pages of the victim's address space */
	__u64 memcg_id;    /* its memory cgroup: the cgroup directory's inode */
	__u64 memcg_usage, memcg_max;
	__u64 limit_id;    /* the group up its tree with the least headroom */
	__u64 limit_usage, limit_max;
};
