/* The census tier (census-tier.h): the pass's choice, the census and its
 * bookkeeping, requests, marks and the clients waiting for a census. */
#include "census-tier.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "census.h"
#include "daemon-clock.h"
#include "export-text.h"
#include "gpu-watch.h"
#include "log.h"
#include "schedule.h"
#include "target.h"
#include "util.h"
#include "watched.h"
#include "writer.h"

struct census_tier {
	const struct daemon_config *config;
	struct budget budget;
	struct census_tier_stats stats;
};

struct census_waiter {
	struct census_waiter *next;
	census_done_t done;
	void *userdata;
	bool cancelled;
};

struct census_tier *census_tier_new(const struct daemon_config *config, uint64_t now)
{
	struct census_tier *ct = calloc(1, sizeof(*ct));
	if (!ct)
		return NULL;
	ct->config = config;
	budget_init(&ct->budget, config->scan_budget, now);
	return ct;
}

struct census_tier *census_tier_free(struct census_tier *ct)
{
	free(ct);
	return NULL;
}

void census_tier_reload(struct census_tier *ct)
{
	budget_set_share(&ct->budget, ct->config->scan_budget);
}

const struct census_tier_stats *census_tier_get_stats(const struct census_tier *ct)
{
	return &ct->stats;
}

void census_tier_first_sight(struct census_tier *ct, struct target *t, uint64_t now)
{
	schedule_update(&t->census.plan, ct->config, now, 0);
}

uint64_t census_tier_sampled(struct census_tier *ct, struct target *t, uint64_t now)
{
	schedule_update(&t->census.plan, ct->config, now, t->fast.private);
	return schedule_quiet_until(&t->census.plan, ct->config, t->fast.private);
}

void census_tier_gpu_told(struct census_tier *ct, struct target *t, uint64_t now)
{
	schedule_update_vram(&t->census.plan, ct->config, now, t->gpu.vram);
}

void census_tier_refill(struct census_tier *ct, uint64_t now)
{
	budget_refill(&ct->budget, now);
}

struct target *census_tier_next(struct census_tier *ct, const struct watched *w)
{
	struct target *best = NULL;
	bool budget = budget_allows(&ct->budget);

	for (struct target *t = watched_first(w); t; t = watched_next(t)) {
		if (!t->census.plan.pending)
			continue;
		if (!budget && schedule_needs_budget(&t->census.plan)) {
			if (!t->census.plan.deferred) {
				t->census.plan.deferred = true;
				ct->stats.deferred++;
			}
			continue;
		}
		if (!best || schedule_compare(&t->census.plan, &best->census.plan) < 0)
			best = t;
	}
	return best;
}

struct census_heap_plan census_tier_heap_plan(const struct census_tier *ct, const struct target *t, bool light,
					      uint64_t now)
{
	const struct census_plan *p = &t->census.plan;

	if (light || !ct->config->evidence || !schedule_heap_due(p, ct->config, schedule_trigger(p), now))
		return (struct census_heap_plan){ .walk = false };
	return (struct census_heap_plan){ .walk = true,
					  .allowance_us = budget_heap_allowance(&ct->budget, schedule_needs_budget(p)) };
}

bool census_tier_light(const struct census_tier *ct, const struct target *t)
{
	if (t->census.plan.want_full)
		return false;
	if (t->census.plan.want_light)
		return true;
	return ct->config->huge_process > 0 && t->fast.resident > ct->config->huge_process;
}

/* Hands a census result to every client waiting for one, and forgets
 * them. */
static void notify_waiters(struct target *t, const struct census_result *res)
{
	struct census_waiter *w = t->census.waiters;
	t->census.waiters = NULL;
	while (w) {
		struct census_waiter *next = w->next;
		if (!w->cancelled)
			w->done(w->userdata, res);
		free(w);
		w = next;
	}
}

void census_tier_record(struct census_tier *ct, struct target *t, const struct census_result *res, uint64_t now)
{
	enum census_status status = res->meta.status;
	enum store_trigger trigger = res->meta.trigger;
	const char *comm = t->ref->info.comm ? t->ref->info.comm : "?";

	ct->stats.censuses[status]++;
	if (res->meta.light && status == CENSUS_OK)
		ct->stats.censuses_light++;
	if (res->meta.repeats_time > 0)
		ct->stats.censuses_repeated++;
	if (res->meta.cpu_us > 0) {
		budget_charge(&ct->budget, (uint64_t)res->meta.cpu_us);
		ct->stats.census_cpu_us += (uint64_t)res->meta.cpu_us;
	}
	if (res->meta.wall_us > 0)
		ct->stats.census_wall_us += (uint64_t)res->meta.wall_us;

	uint64_t private = res->census ? census_private(res->census)
			   : res->meta.repeats_time > 0 ? t->census.last.steady_private
							: t->fast.private;
	/* a process refused as its last census was (one this daemon may never
	 * read) is told once, not at every CensusInterval; the census table
	 * keeps each refusal */
	bool failed = status == CENSUS_DENIED || status == CENSUS_ERROR;
	if (failed && !(t->census.plan.attempted && t->census.plan.last_status == status))
		log_pid_warning(t->pid, "census of process %d (%s): %s: %s", t->pid, comm, store_census_status_name(status),
				res->message);
	else if (failed)
		log_pid_debug(t->pid, "census of process %d (%s): %s again: %s", t->pid, comm,
			      store_census_status_name(status), res->message);
	else
		log_pid_debug(t->pid, "census of process %d (%s, %s%s): %s%s", t->pid, comm, store_trigger_name(trigger),
			      trigger == TRIGGER_GROWTH && t->census.plan.vram_growth ? " of GPU memory" : "",
			      store_census_status_name(status),
			      res->meta.repeats_time > 0		 ? ", nothing changed since the last full census"
			      : status == CENSUS_OK && !res->heap_read ? ", in use and free not read (InUseInterval)"
									 : "");
	if (status == CENSUS_OK && res->census) {
		struct export_classes before = t->census.classes;
		export_classes_from_census(res->census, &t->census.classes);
		export_classes_keep_heap(&before, &t->census.classes);
	}
	if (status == CENSUS_OK && res->heap_read)
		schedule_heap_done(&t->census.plan, now);
	notify_waiters(t, res);
	schedule_done(&t->census.plan, now, status, private);
}

/* Whether t's next census may be a repeat of its last full one: not when
 * a person asked (a request, a mark, a client waiting), and not when the
 * writer dropped rows since that census was queued, which may have been
 * one of them. */
static bool may_repeat(const struct target *t, const struct writer *writer)
{
	enum store_trigger trigger = schedule_trigger(&t->census.plan);

	if (trigger != TRIGGER_INTERVAL && trigger != TRIGGER_GROWTH && trigger != TRIGGER_LIMIT)
		return false;
	if (t->census.waiters || t->census.plan.want_full || t->census.plan.want_light)
		return false;
	return census_take_may_repeat(&t->census.last, writer_dropped(writer));
}

enum census_status census_tier_take(struct census_tier *ct, struct target *t, enum steady_mappings mappings,
				   const struct gpu_snapshot *gpu, struct writer *writer)
{
	enum store_trigger trigger = schedule_trigger(&t->census.plan);
	struct census_result res;
	size_t n;
	int r;

	/* the census's GPU section is the last snapshot's: what later growth
	 * is measured from is the same (a process first seen between two
	 * snapshots has not been matched to one yet) */
	if (gpu) {
		(void)gpu_watch_match(t, gpu, &n);
		census_tier_gpu_told(ct, t, now_monotonic_us());
	}
	const struct census_subject subject = {
		.pid = t->pid,
		.start_time = t->start_time,
		.proc_dir_fd = t->proc_dir_fd,
		.paths = t->ref->paths,
		.on_gpu = t->gpu.on_gpu,
		.vram = t->gpu.vram,
	};
	bool light = census_tier_light(ct, t);
	struct census_heap_plan heap = census_tier_heap_plan(ct, t, light, now_monotonic_us());
	const struct census_take_options o = {
		.trigger = trigger,
		.light = light,
		.evidence = ct->config->evidence,
		.heap = heap.walk,
		.heap_allowance_us = heap.allowance_us,
		.may_repeat = may_repeat(t, writer),
		.mappings = mappings,
		.check_every_ms = (int64_t)(ct->config->steady_check_interval / 1000),
		.now_ms = daemon_clock_now_ms(),
		.gpu = gpu,
	};
	r = census_take(&t->census.last, &subject, &o, &res);
	if (r < 0) {
		log_pid_warning_errno(t->pid, r, "census of process %d failed: %m", t->pid);
		schedule_done(&t->census.plan, now_monotonic_us(), CENSUS_ERROR, 0);
		return CENSUS_ERROR;
	}
	/* what the census cost is all the daemon spent on it, the steady
	 * check and the comparison with the last census included (the meta's
	 * figures): the store keeps those, and a client waiting for the
	 * census is told the same */
	if (res.census) {
		res.census->wall_us = res.meta.wall_us;
		res.census->cpu_us = res.meta.cpu_us;
		res.census->bytes_read = res.meta.bytes_read;
	}
	/* recorded before it is queued: the writer takes the census */
	census_tier_record(ct, t, &res, now_monotonic_us());
	bool full = res.meta.status == CENSUS_OK && res.meta.repeats_time == 0;
	r = writer_add_census(writer, t->ref, &res.meta, res.meta.message, res.census, res.events, res.n_events);
	if (r < 0)
		log_pid_warning_errno(t->pid, r, "census of process %d lost: %m", t->pid);
	if (full)
		census_take_queued(&t->census.last, r >= 0, writer_dropped(writer));
	return res.meta.status;
}

int census_tier_request(struct census_tier *ct, struct target *t, bool full, bool light, uint64_t now,
			census_done_t done, void *userdata, struct census_waiter **ret_waiter)
{
	struct census_waiter *w = calloc(1, sizeof(*w));
	(void)ct;

	if (!w)
		return -ENOMEM;
	w->done = done;
	w->userdata = userdata;
	w->next = t->census.waiters;
	t->census.waiters = w;
	schedule_add(&t->census.plan, TRIGGER_REQUEST, now);
	t->census.plan.want_full = full;
	t->census.plan.want_light = light;
	if (ret_waiter)
		*ret_waiter = w;
	return 0;
}

void census_tier_waiter_cancel(struct census_waiter *w)
{
	if (w)
		w->cancelled = true;
}

int census_tier_mark(struct census_tier *ct, struct target *t, struct writer *writer, int64_t time, const char *name,
		     int64_t by_uid, uint64_t now)
{
	(void)ct;
	int r = writer_add_mark(writer, t->ref, time, name, by_uid);
	if (r < 0)
		return r;
	schedule_add(&t->census.plan, TRIGGER_MARK, now);
	return 0;
}

void census_tier_near_limit(struct census_tier *ct, struct target *t, uint64_t now)
{
	(void)ct;
	schedule_near_limit(&t->census.plan, now);
}

void census_tier_forget(struct census_tier *ct, struct target *t, bool exited, int64_t time)
{
	(void)ct;
	if (!t->census.waiters)
		return;
	/* clients waiting for a census of a process that is gone */
	struct census_result gone = {
		.meta = { .time = time, .trigger = TRIGGER_REQUEST, .status = exited ? CENSUS_EXITED : CENSUS_ERROR,
			  .wall_us = -1, .cpu_us = -1, .bytes_read = -1 },
	};
	snprintf(gone.message, sizeof(gone.message), exited ? "process %d exited" : "process %d is no longer watched",
		 t->pid);
	gone.meta.message = gone.message;
	notify_waiters(t, &gone);
}

void census_tier_target_done(struct target *t)
{
	census_take_done(&t->census.last);
}
