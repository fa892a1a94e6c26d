/* The process watch: a BPF program on the scheduler's own tracepoints
 * (process-watch.bpf.c) that tells discovery of every new process, exec,
 * new name and exit on the host, as the proc connector (proc-connector.h)
 * does, through a ring buffer the daemon reads from its loop.  It needs no
 * netlink and no network namespace of the host's, so a daemon confined to
 * one of its own (PrivateNetwork=yes) still learns what changed instead of
 * listing every process each DiscoverInterval.
 *
 * Not told: a change of user without an exec (no tracepoint fires in
 * commit_creds): the next full pass sees it.
 *
 * Loading needs CAP_BPF and CAP_PERFMON (or root), a kernel with BTF and
 * the tp_btf attach type (5.5 and later), and the first pid namespace (the
 * program names processes by its pids); elsewhere process_watch_new fails
 * and discovery falls back to the connector, or to listing /proc. */
#pragma once

#include <stddef.h>

#include "process-watch-event.h"

struct process_watch;

/* Called for each event read; returns 0, or a negative errno that stops
 * the read and is returned. */
typedef int (*process_watch_event_t)(void *userdata, enum process_watch_kind kind, int pid);

/* Loads and attaches the program, with a ring of ring_bytes (a power of
 * two, at least a page).  Returns 0, -EXDEV outside the first pid
 * namespace, -EINVAL for a bad size, or the negative errno of the load
 * (-EPERM without the capabilities, -ENOENT or -EINVAL on a kernel
 * without BTF or the tracepoints). */
int process_watch_new(size_t ring_bytes, process_watch_event_t fn, void *userdata, struct process_watch **ret);
struct process_watch *process_watch_free(struct process_watch *w);

/* A descriptor that polls readable when events wait. */
int process_watch_fd(const struct process_watch *w);

/* Hands every event waiting to fn.  Returns their number, -ENOBUFS when
 * the ring was full and the kernel dropped some since the last read (the
 * events that were kept are handed over all the same), fn's error, or
 * another negative errno. */
int process_watch_read(struct process_watch *w);

/* Events dropped for want of room since the watch was loaded. */
unsigned long long process_watch_lost(const struct process_watch *w);
