/* The core interface (core-interface.h) over struct manager: the daemon
 * as the control socket sees it: its status, each watched process's
 * figures, marks and census requests, the metrics text.  A process
 * described to a client has the fast tier's repeats settled into it first,
 * so what it reads is what full samples would have given. */
#include "manager-internal.h"

#include <errno.h>

#include "daemon-clock.h"
#include "store.h"
#include "sysmem.h"
#include "target.h"
#include "util.h"
#include "writer.h"

void manager_snapshot(struct manager *m, bool with_size, struct core_status *ret)
{
	struct store *store = store_cycle_store(m->store_cycle);
	struct writer *writer = store_cycle_writer(m->store_cycle);
	const struct store_corruption *k = store_cycle_corruption(m->store_cycle);
	struct watched_counts wc;
	struct discover_status ds;

	watched_get_counts(m->watched, &wc);
	discover_get_status(&m->discover, &ds);
	*ret = (struct core_status){
		.started_us = m->started_us,
		.config_path = m->config_path,
		.db_path = m->db_path,
		.watched = wc.now,
		.followed = wc.followed,
		.exited = wc.exited,
		.stopped = wc.stopped,
		.over_limit = m->discover.over_limit,
		.discovery_source = discover_source_name(ds.source),
		.discovery_why = ds.why,
		.discovery_passes = ds.passes,
		.discovery_full_passes = ds.full_passes,
		.discovery_lost = ds.events_lost,
		.sample_errors = m->fast.sample_errors,
		.sample_round_us_max = m->fast.round_us_max,
		.census = *census_tier_get_stats(m->census_tier),
		.scan_budget = m->config.scan_budget,
		.dropped_rows = writer_dropped(writer),
		.schema_version = store ? store_schema_version(store) : 0,
		.export_errors = m->export.errors,
		.evidence = m->config.evidence,
		.huge_process = m->config.huge_process,
	};
	if (k) {
		ret->corruptions = k->count;
		ret->corruption_found_at = k->found_at;
		ret->corruption_moved_to = k->moved_to;
		ret->corruption_what = k->what;
		ret->corruption_kept_processes = k->kept.processes;
		ret->corruption_kept_censuses = k->kept.censuses;
	}
	writer_get_stats(writer, &ret->writer);
	manager_oom_status(m, ret);
	ret->have_size = with_size && store && store_size(store, &ret->size) >= 0;
}

static void core_status(void *userdata, struct core_status *ret)
{
	struct manager *m = userdata;

	manager_snapshot(m, true, ret);
	ret->have_system = sysmem_read(m->root_fd, daemon_clock_now_ms(), &ret->system) == 0;
}

static void core_store_damaged(void *userdata, const char *what)
{
	struct manager *m = userdata;

	if (store_cycle_damaged(m->store_cycle, what) < 0) {
		event_loop_exit(m->event, -ENOTRECOVERABLE);
		return;
	}
	manager_store_replaced(m);
}

static int core_describe(void *userdata, int pid, struct core_process *ret)
{
	struct manager *m = userdata;
	struct target *t = watched_find(m->watched, pid);

	if (!t)
		return -ESRCH;
	fast_tier_settle(&m->fast, t);
	target_describe(t, ret);
	return 0;
}

static int core_for_each(void *userdata, core_each_t fn, void *data)
{
	struct manager *m = userdata;
	struct core_process p;

	for (struct target *t = watched_first(m->watched); t; t = watched_next(t)) {
		fast_tier_settle(&m->fast, t);
		target_describe(t, &p);
		int r = fn(data, &p);
		if (r < 0)
			return r;
	}
	return 0;
}

static int core_mark(void *userdata, int pid, const char *name, int64_t by_uid, int64_t *ret_time)
{
	struct manager *m = userdata;
	struct target *t = watched_find(m->watched, pid);
	int64_t now = daemon_clock_now_ms();

	if (!t)
		return -ESRCH;
	int r = census_tier_mark(m->census_tier, t, store_cycle_writer(m->store_cycle), now, name, by_uid,
				 now_monotonic_us());
	if (r < 0)
		return r;
	fast_tier_wake(&m->fast, t);
	manager_census_soon(m);
	if (ret_time)
		*ret_time = now;
	return 0;
}

static int core_request_census(void *userdata, int pid, bool full, bool light, census_done_t done, void *data,
			       struct census_waiter **ret_waiter)
{
	struct manager *m = userdata;
	struct target *t = watched_find(m->watched, pid);

	if (!t)
		return -ESRCH;
	int r = census_tier_request(m->census_tier, t, full, light, now_monotonic_us(), done, data, ret_waiter);
	if (r < 0)
		return r;
	fast_tier_wake(&m->fast, t);
	/* the census runs in the pass after this callback, not in it: the
	 * requester's own bookkeeping is done by then */
	manager_census_soon(m);
	return 0;
}

static void core_cancel_census(void *userdata, struct census_waiter *w)
{
	(void)userdata;
	census_tier_waiter_cancel(w);
}

int manager_metrics_text(void *userdata, int64_t only_uid, const char *only_owner, char **ret, size_t *ret_len)
{
	struct manager *m = userdata;
	struct core_status st;

	manager_snapshot(m, false, &st);
	return export_metrics_text(m->watched, &st, m->config.export_group_by, gpu_watch_snapshot(&m->gpu), only_uid,
				   only_owner, ret, ret_len);
}

void manager_interface_init(struct manager *m, struct core_interface *ret)
{
	*ret = (struct core_interface){
		.userdata = m,
		.status = core_status,
		.describe = core_describe,
		.for_each = core_for_each,
		.mark = core_mark,
		.request_census = core_request_census,
		.cancel_census = core_cancel_census,
		.metrics_text = manager_metrics_text,
		.store_damaged = core_store_damaged,
	};
}
