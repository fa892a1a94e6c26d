/* The OOM watch: a BPF program on the kernel's own OOM kill tracepoints
 * (oom-watch.bpf.c) that tells each victim the moment the OOM killer marks
 * it, with its memory cgroup and the limit that was hit, and whether the
 * kernel killed it (a victim already exiting is marked without a kill).
 * A kill -9 from a user is not told.
 *
 * Loading needs CAP_BPF and CAP_PERFMON (or root), a kernel with BTF and
 * the tp_btf attach type (5.5 and later), and the first pid namespace (the
 * program names processes by its pids); elsewhere oom_watch_new fails and
 * OOM kills are read from the kernel's log instead (oom-kmsg.h). */
#pragma once

#include "oom-watch-event.h"

struct oom_watch;

/* Called for each event read; returns 0, or a negative errno that stops
 * the read and is returned. */
typedef int (*oom_watch_event_t)(void *userdata, const struct oom_watch_event *e);

/* Loads and attaches the program.  Returns 0, -EXDEV outside the first
 * pid namespace, or the negative errno of the load (-EPERM without the
 * capabilities, -ENOENT or -EINVAL on a kernel without the tracepoints). */
int oom_watch_new(oom_watch_event_t fn, void *userdata, struct oom_watch **ret);
struct oom_watch *oom_watch_free(struct oom_watch *w);

/* A descriptor that polls readable when events wait. */
int oom_watch_fd(const struct oom_watch *w);

/* Hands every event waiting to fn.  Returns their number, fn's error or
 * another negative errno. */
int oom_watch_read(struct oom_watch *w);
