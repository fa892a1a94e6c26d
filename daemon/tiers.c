/* The fast tier, the census tier and the store cycle.
 *
 * The fast tier reads each watched process's status every SampleInterval
 * and keeps min/max/last until the store cycle writes them.  After each
 * fast pass the census tier runs the censuses that are due, the most urgent
 * first, while the budget (ScanBudget of one CPU, as CPU time) has credit:
 * a census that has to wait is deferred, counted once, and runs when the
 * credit comes back; none is skipped. */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "census.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "sysmem.h"
#include "util.h"

/* Raw fast-tier rows are rolled up into minutes after a day, minute rows
 * into hours after a week (ramwatchd.conf(5), Retention=). */
#define RAW_ROWS_FOR_MS (24ll * 3600 * 1000)
#define MINUTE_ROWS_FOR_MS (7ll * 24 * 3600 * 1000)

/* A target's exit watch: the pidfd's source carries both. */
struct exit_watch {
	struct manager *m;
	struct target *t;
};

static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct exit_watch *w = userdata;
	(void)s;
	(void)fd;
	(void)revents;
	manager_drop_target(w->m, w->t, true);
	return 0;
}

struct census_waiter {
	struct census_waiter *next;
	census_done_t done;
	void *userdata;
	bool cancelled;
};

/* Hands a census result to every client waiting for one, and forgets
 * them. */
static void notify_waiters(struct target *t, const struct census_result *res)
{
	struct census_waiter *w = t->waiters;
	t->waiters = NULL;
	while (w) {
		struct census_waiter *next = w->next;
		if (!w->cancelled)
			w->done(w->userdata, res);
		free(w);
		w = next;
	}
}

int manager_add_target(struct manager *m, struct target *t)
{
	int r = pidmap_put(&m->by_pid, t->pid, t);
	if (r < 0) {
		target_free(t);
		return r;
	}
	if (t->pidfd >= 0) {
		struct exit_watch *w = malloc(sizeof(*w));
		if (w) {
			*w = (struct exit_watch){ m, t };
			r = sd_event_add_io(m->event, &t->exit_source, t->pidfd, EPOLLIN, on_pidfd, w);
			if (r < 0)
				free(w);
			else
				(void)sd_event_source_set_destroy_callback(t->exit_source, free);
		}
	}
	t->next = m->targets;
	if (m->targets)
		m->targets->prev = t;
	m->targets = t;
	m->n_targets++;
	m->stats.followed++;
	(void)writer_add_process(m->writer, t->ref);
	schedule_update(&t->plan, &m->config, now_monotonic_us(), 0);
	return 0;
}

void manager_drop_target(struct manager *m, struct target *t, bool exited)
{
	int64_t now = now_realtime_ms();
	struct store_sample x;

	if (exited) {
		t->ref->info.exited_at = now;
		m->stats.exited++;
		char a[FORMAT_BYTES_MAX];
		log_pid_info(t->pid, "process %d (%s) exited; peak private %s", t->pid,
			     t->ref->info.comm ? t->ref->info.comm : "?", format_bytes(a, t->ref->info.peak_private));
	} else
		m->stats.stopped++;
	/* what the fast tier gathered since the last row is kept */
	if (sample_acc_take(&t->acc, now, &x))
		(void)writer_add_sample(m->writer, t->ref, &x);
	(void)writer_add_process(m->writer, t->ref);

	if (t->waiters) {
		/* clients waiting for a census of a process that is gone */
		struct census_result gone = {
			.meta = { .time = now, .trigger = TRIGGER_REQUEST, .status = exited ? STATUS_EXITED : STATUS_ERROR,
				  .wall_us = -1, .cpu_us = -1, .bytes_read = -1 },
		};
		snprintf(gone.message, sizeof(gone.message), exited ? "process %d exited" : "process %d is no longer watched",
			 t->pid);
		gone.meta.message = gone.message;
		notify_waiters(t, &gone);
	}
	t->exit_source = sd_event_source_disable_unref(t->exit_source);
	pidmap_remove(&m->by_pid, t->pid);
	if (t->prev)
		t->prev->next = t->next;
	else
		m->targets = t->next;
	if (t->next)
		t->next->prev = t->prev;
	m->n_targets--;
	target_free(t);
}

int manager_sample_all(struct manager *m)
{
	int64_t now_ms = now_realtime_ms();
	uint64_t now = now_monotonic_us();

	for (struct target *t = m->targets, *next; t; t = next) {
		next = t->next;
		int r = target_sample(t, now_ms);
		if (r == -ESRCH) {
			manager_drop_target(m, t, true);
			continue;
		}
		if (r < 0) {
			if (m->stats.sample_errors++ == 0)
				log_pid_warning_errno(t->pid, r, "cannot read the status of process %d: %m", t->pid);
			continue;
		}
		schedule_update(&t->plan, &m->config, now, t->private);
	}
	return 0;
}

/* The next census to take: the most urgent pending one that may run now.
 * Those that must wait for budget are counted as deferred, once each. */
static struct target *next_census(struct manager *m)
{
	struct target *best = NULL;
	bool budget = budget_allows(&m->budget);

	for (struct target *t = m->targets; t; t = t->next) {
		if (!t->plan.pending)
			continue;
		if (!budget && schedule_needs_budget(&t->plan)) {
			if (!t->plan.deferred) {
				t->plan.deferred = true;
				m->stats.deferred++;
			}
			continue;
		}
		if (!best || schedule_compare(&t->plan, &best->plan) < 0)
			best = t;
	}
	return best;
}

static bool census_light(const struct manager *m, const struct target *t)
{
	if (t->plan.want_full)
		return false;
	if (t->plan.want_light)
		return true;
	return m->config.huge_process > 0 && t->resident > m->config.huge_process;
}

static void take_census(struct manager *m, struct target *t)
{
	enum store_trigger trigger = schedule_trigger(&t->plan);
	const struct gpu_snapshot *gpu = manager_gpu_snapshot(m);
	struct census_result res;
	size_t n;
	int r;

	/* the census's GPU section is the last snapshot's: what later growth
	 * is measured from is the same (a process first seen between two
	 * snapshots has not been matched to one yet) */
	if (gpu) {
		(void)target_gpu(t, gpu, &n);
		schedule_update_vram(&t->plan, &m->config, now_monotonic_us(), t->vram);
	}
	r = target_census(t, trigger, census_light(m, t), m->config.evidence, now_realtime_ms(), gpu, &res);
	if (r < 0) {
		log_pid_warning_errno(t->pid, r, "census of process %d failed: %m", t->pid);
		schedule_done(&t->plan, now_monotonic_us(), STATUS_ERROR, 0);
		return;
	}
	m->stats.censuses[res.meta.status]++;
	if (res.meta.light && res.meta.status == STATUS_OK)
		m->stats.censuses_light++;
	if (res.meta.cpu_us > 0) {
		budget_charge(&m->budget, (uint64_t)res.meta.cpu_us);
		m->stats.census_cpu_us += (uint64_t)res.meta.cpu_us;
	}
	if (res.meta.wall_us > 0)
		m->stats.census_wall_us += (uint64_t)res.meta.wall_us;

	uint64_t private = res.census ? census_private(res.census) : t->private;
	enum store_status status = res.meta.status;
	if (status == STATUS_DENIED || status == STATUS_ERROR)
		log_pid_warning(t->pid, "census of process %d (%s): %s: %s", t->pid,
				t->ref->info.comm ? t->ref->info.comm : "?", store_status_name(status), res.message);
	else
		log_pid_debug(t->pid, "census of process %d (%s, %s%s): %s", t->pid,
			      t->ref->info.comm ? t->ref->info.comm : "?", store_trigger_name(trigger),
			      trigger == TRIGGER_GROWTH && t->plan.vram_growth ? " of GPU memory" : "",
			      store_status_name(status));
	if (status == STATUS_OK && res.census)
		export_classes_from_census(res.census, &t->classes);
	notify_waiters(t, &res);
	r = writer_add_census(m->writer, t->ref, &res.meta, res.meta.message, res.census, res.events, res.n_events);
	if (r < 0)
		log_pid_warning_errno(t->pid, r, "census of process %d lost: %m", t->pid);
	schedule_done(&t->plan, now_monotonic_us(), status, private);
	if (status == STATUS_EXITED)
		manager_drop_target(m, t, true);
}

void manager_census_pass(struct manager *m)
{
	uint64_t start = now_monotonic_us();
	struct target *t;

	budget_refill(&m->budget, start);
	while ((t = next_census(m))) {
		take_census(m, t);
		budget_refill(&m->budget, now_monotonic_us());
		if (now_monotonic_us() - start > RW_CENSUS_PASS_US)
			break;
	}
}

int manager_store_cycle(struct manager *m)
{
	int64_t now = now_realtime_ms();
	struct store_system sys;
	struct store_sample x;
	int r;

	for (struct target *t = m->targets; t; t = t->next)
		if (sample_acc_take(&t->acc, now, &x))
			(void)writer_add_sample(m->writer, t->ref, &x);
	if (sysmem_read(m->root_fd, now, &sys) == 0)
		(void)writer_add_system(m->writer, &sys);
	manager_gpu_cycle(m, now);
	struct writer_stats before, after;
	writer_get_stats(m->writer, &before);
	r = writer_flush(m->writer);
	if (r == -ENOSPC && m->config.max_database_size > 0)
		m->retention_now = true;
	writer_get_stats(m->writer, &after);
	/* Censuses are large and short-lived, the targets small and long-lived:
	 * once a batch of censuses is freed, the heap is full of holes that
	 * glibc keeps.  malloc_trim hands their whole pages back (since glibc
	 * 2.8 it releases free pages inside the heap, not only at its top),
	 * which keeps the daemon's resident size that of what it holds. */
	if (after.written[WRITER_CENSUS] != before.written[WRITER_CENSUS])
		malloc_trim(0);
	return r;
}

void manager_retention(struct manager *m)
{
	struct store_retention rp = {
		.now = now_realtime_ms(),
		.keep = (int64_t)(m->config.retention / 1000),
		.raw_for = RAW_ROWS_FOR_MS,
		.minutes_for = MINUTE_ROWS_FOR_MS,
		.max_size = m->config.max_database_size,
		.batch = RW_RETENTION_BATCH,
	};
	bool more = true;

	for (unsigned i = 0; more && i < RW_RETENTION_STEPS; i++) {
		int r = store_retention_step(m->store, &rp, &more);
		if (r < 0) {
			log_debug_errno(r, "retention step failed (%s); trying again later", store_error(m->store));
			return;
		}
	}
}

struct target *manager_find(struct manager *m, int pid)
{
	return pidmap_get(&m->by_pid, pid);
}

int manager_request_census(struct manager *m, int pid, bool full, bool light, census_done_t done, void *userdata,
			   struct census_waiter **ret_waiter)
{
	struct target *t = pidmap_get(&m->by_pid, pid);
	struct census_waiter *w;

	if (!t)
		return -ESRCH;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->done = done;
	w->userdata = userdata;
	w->next = t->waiters;
	t->waiters = w;
	schedule_add(&t->plan, TRIGGER_REQUEST, now_monotonic_us());
	t->plan.want_full = full;
	t->plan.want_light = light;
	/* the census runs in the pass after this callback, not in it: the
	 * requester's own bookkeeping is done by then */
	manager_census_soon(m);
	if (ret_waiter)
		*ret_waiter = w;
	return 0;
}

void manager_census_waiter_cancel(struct census_waiter *w)
{
	if (w)
		w->cancelled = true;
}

int manager_mark(struct manager *m, int pid, const char *name, int64_t by_uid, int64_t *ret_time)
{
	struct target *t = pidmap_get(&m->by_pid, pid);
	int64_t now = now_realtime_ms();
	if (!t)
		return -ESRCH;
	int r = writer_add_mark(m->writer, t->ref, now, name, by_uid);
	if (r < 0)
		return r;
	schedule_add(&t->plan, TRIGGER_MARK, now_monotonic_us());
	manager_census_soon(m);
	if (ret_time)
		*ret_time = now;
	return 0;
}
