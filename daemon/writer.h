/* The writer: the rows the daemon has gathered, waiting for the store.
 *
 * Samples, censuses, marks, system rows and GPU rows are queued in memory and written
 * in one transaction per sampling cycle (writer_flush).  When the store
 * cannot take them (a full disk, MaxDatabaseSize, a locked database) the
 * transaction is rolled back whole and the rows stay queued: sampling goes
 * on in memory and the next flush tries again.  The queue is bounded
 * (RW_PENDING_MAX bytes); past it the oldest rows are dropped and counted.
 * The writer logs once per change of state (writing, failing with a reason,
 * writing again), not once per attempt. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* A process instance as the writer knows it: its identity and what the
 * store should hold about it.  Shared (counted references) by the daemon's
 * record of a live process and by the queued rows about it, which may
 * outlive it. */
struct proc_ref {
	unsigned refs;
	struct store_process info; /* the strings below */
	char *boot_id, *comm, *exe, *cmdline, *owner;
	struct strpool *paths;     /* paths of its region events */
	uint64_t flush;            /* the flush that last wrote its row */
	int64_t id;                /* its row id as of that flush */
	uint64_t id_store;         /* the store file id is of (the writer's count), 0 for none */
};

/* A new reference (count 1) with copies of the strings.  Returns NULL when
 * out of memory. */
struct proc_ref *proc_ref_new(const struct store_process *info);
struct proc_ref *proc_ref_ref(struct proc_ref *p);
/* Drops a reference; accepts NULL, returns NULL. */
struct proc_ref *proc_ref_unref(struct proc_ref *p);

/* The process row's figures are changed only through these, by what
 * learns them: the fast tier (a sample), GPU snapshots, letting the
 * process go.  The next row written holds them. */

/* A sample at now_ms (unix ms) with those figures: the last sight, and
 * the peaks.  Inline: the fast tier calls it at each sample that reads. */
static inline void proc_ref_seen(struct proc_ref *p, int64_t now_ms, uint64_t private, uint64_t resident)
{
	p->info.seen = now_ms;
	if (private > p->info.peak_private)
		p->info.peak_private = private;
	if (resident > p->info.peak_resident)
		p->info.peak_resident = resident;
}
/* The GPU memory it holds now, summed over its devices: the peak. */
void proc_ref_gpu(struct proc_ref *p, uint64_t vram);
/* It exited at time (unix ms). */
void proc_ref_exited(struct proc_ref *p, int64_t time);

enum writer_row {
	WRITER_PROCESS,
	WRITER_SAMPLE,
	WRITER_CENSUS,
	WRITER_MARK,
	WRITER_SYSTEM,
	WRITER_GPU,
	WRITER_OOM_KILL,
	WRITER_CGROUP,
	_WRITER_ROW_MAX
};

const char *writer_row_name(enum writer_row k);

struct writer_stats {
	uint64_t queued, queued_bytes;           /* waiting now */
	uint64_t written[_WRITER_ROW_MAX];       /* all told */
	uint64_t dropped[_WRITER_ROW_MAX];       /* lost to the queue's bound */
	uint64_t flushes, failed_flushes;
	int error;                               /* the current failure, or 0 */
	char message[256];                       /* its reason, from the store */
};

struct writer;

/* A writer over an open store (not owned).  Returns NULL when out of memory. */
struct writer *writer_new(struct store *store);
/* The store the next flush writes to, when the old one was replaced (a
 * damaged file moved aside): the rows stay queued, and each process's row
 * is written again before the rows about it. */
void writer_set_store(struct writer *w, struct store *store);
/* Frees the writer and whatever is still queued; accepts NULL, returns NULL. */
struct writer *writer_free(struct writer *w);

/* Queue a row.  Each takes its own reference to p.  Return 0 or -ENOMEM. */
int writer_add_process(struct writer *w, struct proc_ref *p);
int writer_add_sample(struct writer *w, struct proc_ref *p, const struct store_sample *x);
/* Takes ownership of c (may be NULL when the status is not ok) and of
 * events (free()); their paths must live in p->paths or in c. */
int writer_add_census(struct writer *w, struct proc_ref *p, const struct store_census *meta, const char *message,
		      struct census *c, struct region_event *events, size_t n_events);
int writer_add_mark(struct writer *w, struct proc_ref *p, int64_t time, const char *name, int64_t by_uid);
int writer_add_system(struct writer *w, const struct store_system *x);

/* The GPU memory a process holds on a device: the device by its place in
 * the devices given with it. */
struct writer_gpu_use {
	struct proc_ref *proc;
	size_t device;
	uint64_t used;  /* bytes, known (GPU_BYTES_UNKNOWN is not stored) */
};

/* One StoreInterval's GPU rows, one queued row written (or dropped)
 * together: every device's row, then the GPU memory of each process (a
 * use of a device without a UUID is left out).  Copies devices and uses;
 * takes a reference to each use's process. */
int writer_add_gpu(struct writer *w, int64_t time, const struct gpu_device *devices, size_t n_devices,
		   const struct writer_gpu_use *uses, size_t n_uses);

/* An OOM kill, of the process p where it was watched (NULL: not watched):
 * its process_id is p's row.  Copies k and its strings. */
int writer_add_oom_kill(struct writer *w, struct proc_ref *p, const struct store_oom_kill *k);

/* A memory cgroup's row: the group (its path copied) and its sample. */
int writer_add_cgroup(struct writer *w, const struct store_cgroup *g, const struct store_cgroup_sample *x);

/* Writes everything queued in one transaction.  Returns 0 (or when nothing
 * was queued), or the store's negative errno with the rows still queued. */
int writer_flush(struct writer *w);

void writer_get_stats(const struct writer *w, struct writer_stats *ret);
/* Rows dropped, all kinds together. */
uint64_t writer_dropped(const struct writer *w);
