/* The record the process watch's BPF program (process-watch.bpf.c) writes
 * into its ring buffer and process-watch.c reads: one layout for both
 * sides, in the kernel's own types so that the BPF compiler and the
 * daemon's agree. */
#pragma once

#include <linux/types.h>

enum process_watch_kind {
	PROCESS_WATCH_NEW = 1, /* a fork made a new process (not a thread) */
	PROCESS_WATCH_EXEC,    /* it ran a new program */
	PROCESS_WATCH_RENAMED, /* its leader took a new name (comm) */
	PROCESS_WATCH_GONE,    /* its thread group leader exited */
};

struct process_watch_event {
	__u32 kind;
	__u32 pid; /* the thread group (process) */
};
