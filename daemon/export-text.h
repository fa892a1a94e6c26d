/* The metrics of ramwatchd in Prometheus's text exposition format (0.0.4),
 * built from plain data: what the daemon writes as a node_exporter textfile
 * (Export=) and what "ramwatch metrics" prints.
 *
 * Pure: no file, no clock, no user database; the caller gathers the facts.
 * Metrics are per group of processes (ExportGroupBy=: comm, unit or user)
 * and per class, never per pid: a pid is a label value that changes with
 * every process, and series that come and go unbounded are what Prometheus
 * handles worst.  The pids stay in the store. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census.h"
#include "classes.h"
#include "config.h"
#include "store.h"

/* What the metrics keep of a process's last ok census: per class, each
 * counter of CENSUS_COUNTERS with metric yes (private, resident), by its
 * name. */
#define EXPORT_CLASS_MEMBER_(name, class_key, total_key, per_class, light_class, light_total, optional, history, \
			     metric, ...)                                                                     \
	CENSUS_IF_##metric(uint64_t name[_CLASS_MAX];)
struct export_classes {
	bool ok;         /* there was an ok census */
	bool light;      /* ... and it was light: no private or resident per class */
	uint32_t present; /* bit c: the census found regions of class c */
	CENSUS_COUNTERS(EXPORT_CLASS_MEMBER_)
	/* Of each class, what its allocator counts in use and free (of it,
	 * returnable), where a heap walk read them (bit c of heap): optional
	 * counters (census-counters.h, metric no), which the metrics give in
	 * a family of their own only for the classes that know them. */
	uint32_t heap;
	uint64_t in_use[_CLASS_MAX], free_kept[_CLASS_MAX], returnable[_CLASS_MAX];
};

/* Fills *ret from an ok census. */
void export_classes_from_census(const struct census *c, struct export_classes *ret);
/* After export_classes_from_census: the in use and free of the classes
 * that now, a census that read no allocator (the daemon reads them at
 * some censuses only), present but not known, are those before had, as
 * the last census that read them said. */
void export_classes_keep_heap(const struct export_classes *before, struct export_classes *now);

/* One watched process, as the metrics see it.  Strings are borrowed; NULL
 * when unknown. */
struct export_process {
	const char *comm;
	int64_t uid;      /* -1 unknown */
	const char *user; /* uid's name; NULL when it has none (the uid stands in) */
	const char *cgroup; /* the cgroup v2 path */
	/* the last sample of the fast tier: private, resident, swap (each
	 * figure of SAMPLE_FIGURES, sample-row.h) */
	SAMPLE_FIGURES(SAMPLE_FIGURE_MEMBER)
	uint64_t peak_private;
	const struct export_classes *classes; /* NULL: no ok census yet */
	/* its GPU memory at the last GPU snapshot: uses of the devices of
	 * export_daemon.gpu (NULL, 0: none) */
	const struct gpu_use *gpu;
	size_t n_gpu;
};

/* What confined the kernel's choice of an OOM kill, as the metrics label
 * it (ramwatch_oom_kills_total{constraint}); counted: a kill the kernel
 * counted that no source told. */
enum export_oom_kind {
	EXPORT_OOM_MEMCG,
	EXPORT_OOM_GLOBAL,         /* "none": the whole machine */
	EXPORT_OOM_CPUSET,
	EXPORT_OOM_MEMORY_POLICY,
	EXPORT_OOM_UNKNOWN,
	EXPORT_OOM_COUNTED,
	_EXPORT_OOM_KIND_MAX
};

/* The label value of kind ("memcg", "none", ..., "counted"). */
const char *export_oom_kind_name(enum export_oom_kind kind);

/* A memory cgroup of watched processes at the last store cycle, for the
 * per-group families (never per process).  Strings are borrowed. */
struct export_cgroup {
	const char *path;  /* below the controller's mount */
	bool have_limit;
	uint64_t usage, limit; /* limit: the one that applies */
	bool have_oom_kill;
	uint64_t oom_kill; /* the group's own counter */
};

/* The daemon-wide counters. */
struct export_daemon {
	const char *version;
	uint64_t censuses[_CENSUS_STATUS_MAX]; /* by status */
	uint64_t census_cpu_us;
	uint64_t deferred;
	uint64_t repeated; /* ok censuses that found nothing changed */
	uint64_t watched;
	uint64_t sample_round_us_max; /* the longest sample round since the start */
	uint64_t store_dropped_rows;
	bool store_writing;
	uint64_t database_corruptions;   /* damaged files moved aside */
	const char *corruption_moved_to; /* the last one's new name; NULL: none */
	uint64_t export_errors; /* textfile writes that failed */
	/* the last GPU snapshot (NVML's state ok); NULL: no GPU families at
	 * all, as on a host without NVIDIA GPUs */
	const struct gpu_snapshot *gpu;
	/* OOM kills since the start, by kind; with no OOM source active
	 * (oom_sources false) the family is left out, as it would say 0 for
	 * kills no one looked for */
	bool oom_sources;
	uint64_t oom_kills[_EXPORT_OOM_KIND_MAX];
	/* the memory cgroups of watched processes (NULL, 0: none known) */
	const struct export_cgroup *cgroups;
	size_t n_cgroups;
};

/* The group of p under by, as the label value holds it (before escaping):
 * valid UTF-8 (bytes that are not become U+FFFD), at most
 * RW_EXPORT_GROUP_MAX bytes (cut at a character's start), "-" when the
 * fact is unknown.  Writes it into buf (RW_EXPORT_GROUP_MAX + 1 bytes)
 * and returns buf. */
char *export_group_key(const struct export_process *p, enum export_group_by by, char *buf);

/* The exposition: HELP and TYPE for every family, the per-group families
 * over the n processes (groups sorted by their bytes), with d->gpu the GPU
 * families (per group and device, then per device; a device is labelled
 * by its UUID, stable across reboots, and ramwatch_gpu_device_info gives
 * its index and name), then the daemon-wide ones.  Returns 0 with *ret (NUL-terminated, the caller's to
 * free) and its length in *ret_len, or -ENOMEM. */
int export_text_build(const struct export_daemon *d, const struct export_process *p, size_t n,
		      enum export_group_by by, char **ret, size_t *ret_len);
