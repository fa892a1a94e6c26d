/* The queue of rows waiting for the store, and its one transaction per
 * cycle.  Rows are a FIFO list; each knows roughly what it costs in memory,
 * which bounds the queue while the store refuses writes. */
#include "writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"

struct row {
	struct row *next;
	enum writer_row kind;
	struct proc_ref *proc;
	size_t bytes;
	union {
		struct store_sample sample;
		struct {
			struct store_census meta;
			char *message;
			struct census *census;
			struct region_event *events;
			size_t n_events;
		} census;
		struct {
			int64_t time, by_uid;
			char *name;
		} mark;
		struct store_system system;
		struct {
			int64_t time;
			struct gpu_device *devices;
			size_t n_devices;
			struct writer_gpu_use *uses;
			size_t n_uses;
		} gpu;
		struct {
			struct store_oom_kill kill;
			char *comm, *constraint, *cgroup, *limit_cgroup;
		} oom;
		struct {
			struct store_cgroup group;
			char *path;
			struct store_cgroup_sample sample;
		} cgroup;
	};
};

struct writer {
	struct store *store;
	struct row *head, *tail;
	uint64_t flush;
	uint64_t store_n; /* counts the store files: proc_ref ids are of one */
	struct writer_stats stats;
};

static const char *const row_names[_WRITER_ROW_MAX] = {
	[WRITER_PROCESS] = "process",
	[WRITER_SAMPLE] = "sample",
	[WRITER_CENSUS] = "census",
	[WRITER_MARK] = "mark",
	[WRITER_SYSTEM] = "system",
	[WRITER_GPU] = "gpu",
	[WRITER_OOM_KILL] = "oom_kill",
	[WRITER_CGROUP] = "cgroup",
};

const char *writer_row_name(enum writer_row k)
{
	return (unsigned)k < _WRITER_ROW_MAX ? row_names[k] : "?";
}

/* ---------------------------------------------------------------- proc_ref */

static int dup_to(char **dst, const char *s)
{
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

struct proc_ref *proc_ref_new(const struct store_process *info)
{
	struct proc_ref *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->refs = 1;
	p->info = *info;
	if (dup_to(&p->boot_id, info->boot_id) < 0 || dup_to(&p->comm, info->comm) < 0 ||
	    dup_to(&p->exe, info->exe) < 0 || dup_to(&p->cmdline, info->cmdline) < 0 ||
	    dup_to(&p->owner, info->owner) < 0 || !(p->paths = strpool_new())) {
		p->refs = 1;
		return proc_ref_unref(p);
	}
	p->info.boot_id = p->boot_id;
	p->info.comm = p->comm;
	p->info.exe = p->exe;
	p->info.cmdline = p->cmdline;
	p->info.owner = p->owner;
	return p;
}

struct proc_ref *proc_ref_ref(struct proc_ref *p)
{
	p->refs++;
	return p;
}

struct proc_ref *proc_ref_unref(struct proc_ref *p)
{
	if (!p || --p->refs > 0)
		return NULL;
	free(p->boot_id);
	free(p->comm);
	free(p->exe);
	free(p->cmdline);
	free(p->owner);
	strpool_free(p->paths);
	free(p);
	return NULL;
}

void proc_ref_gpu(struct proc_ref *p, uint64_t vram)
{
	if (vram > p->info.peak_vram)
		p->info.peak_vram = vram;
}

void proc_ref_exited(struct proc_ref *p, int64_t time)
{
	p->info.exited_at = time;
}

/* ---------------------------------------------------------------- queue */

struct writer *writer_new(struct store *store)
{
	struct writer *w = calloc(1, sizeof(*w));
	if (w) {
		w->store = store;
		w->store_n = 1;
	}
	return w;
}

void writer_set_store(struct writer *w, struct store *store)
{
	w->store = store;
	/* ids of the old file mean nothing in the new one: put_process
	 * writes each process once per flush, so a new flush number is enough,
	 * and a new file's number keeps it from updating a row by an old id */
	w->flush++;
	w->store_n++;
}

static void row_free(struct row *x)
{
	proc_ref_unref(x->proc);
	if (x->kind == WRITER_CENSUS) {
		free(x->census.message);
		census_free(x->census.census);
		free(x->census.events);
	} else if (x->kind == WRITER_MARK)
		free(x->mark.name);
	else if (x->kind == WRITER_GPU) {
		for (size_t i = 0; i < x->gpu.n_uses; i++)
			proc_ref_unref(x->gpu.uses[i].proc);
		free(x->gpu.uses);
		free(x->gpu.devices);
	} else if (x->kind == WRITER_OOM_KILL) {
		free(x->oom.comm);
		free(x->oom.constraint);
		free(x->oom.cgroup);
		free(x->oom.limit_cgroup);
	} else if (x->kind == WRITER_CGROUP)
		free(x->cgroup.path);
	free(x);
}

struct writer *writer_free(struct writer *w)
{
	if (!w)
		return NULL;
	while (w->head) {
		struct row *x = w->head;
		w->head = x->next;
		row_free(x);
	}
	free(w);
	return NULL;
}

/* Drops the oldest rows until the queue is within its bound again. */
static void enforce_bound(struct writer *w)
{
	while (w->head && w->stats.queued_bytes > RW_PENDING_MAX) {
		struct row *x = w->head;
		w->head = x->next;
		if (!w->head)
			w->tail = NULL;
		w->stats.dropped[x->kind]++;
		w->stats.queued--;
		w->stats.queued_bytes -= x->bytes;
		row_free(x);
	}
}

static struct row *row_new(enum writer_row kind, struct proc_ref *p)
{
	struct row *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->kind = kind;
	x->proc = p ? proc_ref_ref(p) : NULL;
	x->bytes = sizeof(*x);
	return x;
}

static int enqueue(struct writer *w, struct row *x)
{
	if (w->tail)
		w->tail->next = x;
	else
		w->head = x;
	w->tail = x;
	w->stats.queued++;
	w->stats.queued_bytes += x->bytes;
	enforce_bound(w);
	return 0;
}

int writer_add_process(struct writer *w, struct proc_ref *p)
{
	struct row *x = row_new(WRITER_PROCESS, p);
	return x ? enqueue(w, x) : -ENOMEM;
}

int writer_add_sample(struct writer *w, struct proc_ref *p, const struct store_sample *s)
{
	struct row *x = row_new(WRITER_SAMPLE, p);
	if (!x)
		return -ENOMEM;
	x->sample = *s;
	return enqueue(w, x);
}

static size_t census_bytes(const struct census *c)
{
	if (!c)
		return 0;
	return sizeof(*c) + c->n_largest * sizeof(*c->largest) + c->n_files * sizeof(*c->files) +
	       c->n_regions * sizeof(*c->regions) + (c->strings ? strpool_bytes(c->strings) : 0);
}

int writer_add_census(struct writer *w, struct proc_ref *p, const struct store_census *meta, const char *message,
		      struct census *c, struct region_event *events, size_t n_events)
{
	struct row *x = row_new(WRITER_CENSUS, p);

	if (!x || dup_to(&x->census.message, message) < 0) {
		if (x)
			row_free(x);
		census_free(c);
		free(events);
		return -ENOMEM;
	}
	x->census.meta = *meta;
	x->census.meta.message = x->census.message;
	x->census.census = c;
	x->census.events = events;
	x->census.n_events = n_events;
	x->bytes += census_bytes(c) + n_events * sizeof(*events);
	return enqueue(w, x);
}

int writer_add_mark(struct writer *w, struct proc_ref *p, int64_t time, const char *name, int64_t by_uid)
{
	struct row *x = row_new(WRITER_MARK, p);
	if (!x)
		return -ENOMEM;
	x->mark.time = time;
	x->mark.by_uid = by_uid;
	if (dup_to(&x->mark.name, name) < 0) {
		row_free(x);
		return -ENOMEM;
	}
	x->bytes += strlen(name) + 1;
	return enqueue(w, x);
}

int writer_add_system(struct writer *w, const struct store_system *s)
{
	struct row *x = row_new(WRITER_SYSTEM, NULL);
	if (!x)
		return -ENOMEM;
	x->system = *s;
	return enqueue(w, x);
}

int writer_add_gpu(struct writer *w, int64_t time, const struct gpu_device *devices, size_t n_devices,
		   const struct writer_gpu_use *uses, size_t n_uses)
{
	struct row *x = row_new(WRITER_GPU, NULL);

	if (!x)
		return -ENOMEM;
	x->gpu.time = time;
	x->gpu.devices = n_devices ? malloc(n_devices * sizeof(*devices)) : NULL;
	x->gpu.uses = n_uses ? malloc(n_uses * sizeof(*uses)) : NULL;
	if ((n_devices && !x->gpu.devices) || (n_uses && !x->gpu.uses)) {
		row_free(x);
		return -ENOMEM;
	}
	if (n_devices)
		memcpy(x->gpu.devices, devices, n_devices * sizeof(*devices));
	x->gpu.n_devices = n_devices;
	for (size_t i = 0; i < n_uses; i++) {
		x->gpu.uses[i] = uses[i];
		x->gpu.uses[i].proc = proc_ref_ref(uses[i].proc);
	}
	x->gpu.n_uses = n_uses;
	x->bytes += n_devices * sizeof(*devices) + n_uses * sizeof(*uses);
	return enqueue(w, x);
}

static size_t strlen0(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

int writer_add_oom_kill(struct writer *w, struct proc_ref *p, const struct store_oom_kill *k)
{
	struct row *x = row_new(WRITER_OOM_KILL, p);

	if (!x)
		return -ENOMEM;
	x->oom.kill = *k;
	if (dup_to(&x->oom.comm, k->comm) < 0 || dup_to(&x->oom.constraint, k->constraint) < 0 ||
	    dup_to(&x->oom.cgroup, k->cgroup) < 0 || dup_to(&x->oom.limit_cgroup, k->limit_cgroup) < 0) {
		row_free(x);
		return -ENOMEM;
	}
	x->oom.kill.comm = x->oom.comm;
	x->oom.kill.constraint = x->oom.constraint;
	x->oom.kill.cgroup = x->oom.cgroup;
	x->oom.kill.limit_cgroup = x->oom.limit_cgroup;
	x->bytes += strlen0(k->comm) + strlen0(k->constraint) + strlen0(k->cgroup) + strlen0(k->limit_cgroup);
	return enqueue(w, x);
}

int writer_add_cgroup(struct writer *w, const struct store_cgroup *g, const struct store_cgroup_sample *s)
{
	struct row *x = row_new(WRITER_CGROUP, NULL);

	if (!x)
		return -ENOMEM;
	if (dup_to(&x->cgroup.path, g->path) < 0) {
		row_free(x);
		return -ENOMEM;
	}
	x->cgroup.group = *g;
	x->cgroup.group.path = x->cgroup.path;
	x->cgroup.sample = *s;
	x->bytes += strlen0(g->path);
	return enqueue(w, x);
}

/* ---------------------------------------------------------------- flush */

/* The process's row, written once per flush (its last sight, exit and
 * peaks as of now); the row id serves the rows about it. */
static int put_process(struct writer *w, struct proc_ref *p)
{
	int r = -ENOENT;

	if (p->flush == w->flush)
		return 0;
	/* the row is there already (or was, until a rolled-back write or a
	 * deletion: then the update finds nothing and the upsert makes it) */
	if (p->id_store == w->store_n)
		r = store_update_process(w->store, p->id, &p->info);
	if (r == -ENOENT)
		r = store_put_process(w->store, &p->info, &p->id);
	if (r < 0)
		return r;
	p->id_store = w->store_n;
	p->flush = w->flush;
	return 0;
}

/* The devices' rows, then each process's on the device it uses: the
 * devices' ids in gpus hold for this transaction only. */
static int put_gpu(struct writer *w, struct row *x)
{
	_cleanup_free_ int64_t *ids = calloc(x->gpu.n_devices + 1, sizeof(*ids));
	int r;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < x->gpu.n_devices; i++) {
		const struct gpu_device *d = &x->gpu.devices[i];
		if (!d->uuid[0])
			continue; /* never answered: nothing names it */
		r = store_put_gpu_device(w->store, x->gpu.time, d, &ids[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < x->gpu.n_uses; i++) {
		const struct writer_gpu_use *u = &x->gpu.uses[i];
		if (u->device >= x->gpu.n_devices || ids[u->device] == 0 || u->used == GPU_BYTES_UNKNOWN)
			continue;
		if ((r = put_process(w, u->proc)) < 0 ||
		    (r = store_put_gpu_sample(w->store, u->proc->id, ids[u->device], x->gpu.time, u->used)) < 0)
			return r;
	}
	return 0;
}

static int put_row(struct writer *w, struct row *x)
{
	int64_t census_id;
	int r;

	if (x->proc && (r = put_process(w, x->proc)) < 0)
		return r;
	switch (x->kind) {
	case WRITER_PROCESS:
		return 0;
	case WRITER_SAMPLE:
		return store_put_sample(w->store, x->proc->id, &x->sample);
	case WRITER_CENSUS:
		r = store_put_census(w->store, x->proc->id, &x->census.meta, x->census.census, &census_id);
		if (r < 0 || x->census.n_events == 0)
			return r;
		return store_put_region_events(w->store, x->proc->id, census_id, x->census.meta.time,
					       x->census.events, x->census.n_events);
	case WRITER_MARK:
		return store_put_mark(w->store, x->proc->id, x->mark.time, x->mark.name, x->mark.by_uid);
	case WRITER_SYSTEM:
		return store_put_system(w->store, &x->system);
	case WRITER_GPU:
		return put_gpu(w, x);
	case WRITER_OOM_KILL: {
		struct store_oom_kill k = x->oom.kill;
		k.process_id = x->proc ? x->proc->id : 0;
		return store_put_oom_kill(w->store, &k, NULL);
	}
	case WRITER_CGROUP: {
		int64_t id;
		if ((r = store_put_cgroup(w->store, x->cgroup.sample.time, &x->cgroup.group, &id)) < 0)
			return r;
		return store_put_cgroup_sample(w->store, id, &x->cgroup.sample);
	}
	default:
		return -EINVAL;
	}
}

static void note_failure(struct writer *w, int r)
{
	const char *why = store_error(w->store);
	bool news = w->stats.error != r || !streq(w->stats.message, why ? why : "");

	w->stats.failed_flushes++;
	/* a damaged file is the store cycle's to tell (it replaces it) */
	if (news && r != -EUCLEAN)
		log_warning_errno(r,
				  "cannot write to the store (%s): keeping %" PRIu64 " rows in memory and retrying "
				  "(at most %u MiB; beyond that the oldest are dropped)",
				  why && *why ? why : strerror(-r), w->stats.queued, RW_PENDING_MAX / (1024u * 1024u));
	w->stats.error = r;
	snprintf(w->stats.message, sizeof(w->stats.message), "%s", why ? why : "");
}

/* A row the store refuses for what it holds (a value out of range, a
 * constraint), not for the state of the disk: retrying cannot help, and it
 * would hold back every row behind it. */
static bool refused_for_content(int r)
{
	return r == -EINVAL || r == -ERANGE || r == -EOVERFLOW;
}

static void unlink_row(struct writer *w, struct row *bad)
{
	struct row **pp = &w->head, *prev = NULL;
	while (*pp != bad) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = bad->next;
	if (w->tail == bad)
		w->tail = prev;
	w->stats.queued--;
	w->stats.queued_bytes -= bad->bytes;
	w->stats.dropped[bad->kind]++;
	row_free(bad);
}

/* One attempt: every queued row in one transaction.  On failure the
 * transaction is rolled back and *ret_failed is the row that failed, if
 * one did (rather than the commit). */
static int flush_once(struct writer *w, struct row **ret_failed)
{
	int r;

	*ret_failed = NULL;
	w->flush++;
	r = store_begin(w->store);
	for (struct row *x = w->head; r >= 0 && x; x = x->next)
		if ((r = put_row(w, x)) < 0)
			*ret_failed = x;
	if (r >= 0)
		r = store_commit(w->store);
	if (r < 0) {
		store_rollback(w->store);
		/* ids handed out in the rolled-back transaction are void */
		w->flush++;
	}
	return r;
}

int writer_flush(struct writer *w)
{
	struct row *failed;
	int r;

	if (!w->head)
		return 0;
	while ((r = flush_once(w, &failed)) < 0 && failed && refused_for_content(r)) {
		log_error_errno(r, "the store refused a %s row (%s); dropped it", writer_row_name(failed->kind),
				store_error(w->store));
		unlink_row(w, failed);
		if (!w->head)
			return 0;
	}
	if (r < 0) {
		note_failure(w, r);
		return r;
	}
	w->stats.flushes++;
	if (w->stats.error) {
		log_notice("writing to the store again; %" PRIu64 " rows had to be dropped meanwhile",
			   writer_dropped(w));
		w->stats.error = 0;
		w->stats.message[0] = '\0';
	}
	while (w->head) {
		struct row *x = w->head;
		w->head = x->next;
		w->stats.written[x->kind]++;
		row_free(x);
	}
	w->tail = NULL;
	w->stats.queued = w->stats.queued_bytes = 0;
	return 0;
}

void writer_get_stats(const struct writer *w, struct writer_stats *ret)
{
	*ret = w->stats;
}

uint64_t writer_dropped(const struct writer *w)
{
	uint64_t n = 0;
	for (int k = 0; k < _WRITER_ROW_MAX; k++)
		n += w->stats.dropped[k];
	return n;
}
