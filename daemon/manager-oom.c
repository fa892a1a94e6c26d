/* Why a process died: the manager's side of OOM kills and memory cgroups.
 * It opens the OOM sources (oom-sources.h), the memory cgroups
 * (cgroup-watch.h) and the watch near their limits (near-limit.h); turns
 * each kill into a row linked to the victim where it was watched; takes
 * the censuses before death of the largest processes of a group near its
 * limit; samples the groups at each store tick.
 *
 * A victim exits at the kill, and its exit may be seen (its pidfd) before
 * the kill is put together from its sources: the processes let go at
 * their exit in the last RECENT_EXIT_MS are kept, by pid, so that the
 * kill still finds the row of the process it ended. */
#include "manager-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-watch.h"
#include "daemon-clock.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "near-limit.h"
#include "oom-sources.h"
#include "target.h"
#include "util.h"
#include "writer.h"

/* a kill is put together at most OOM_KILLS_GRACE_MS after it, and its
 * sources' times differ by less than OOM_KILLS_PAIR_MS */
#define RECENT_EXIT_MS (2 * OOM_KILLS_PAIR_MS)

static struct oom_sources_options sources_options(const struct manager *m)
{
	return (struct oom_sources_options){
		.watch = m->config.oom_watch && m->host_proc,
		.watch_off = !m->config.oom_watch ? "OOMWatch=no" : "the proc root is not the host's",
		.kmsg = m->config.kernel_log,
		.proc_fd = m->root_fd,
		.state_dir = m->state_dir,
		.boot_id = m->discover.boot_id,
	};
}

static struct near_limit_settings near_settings(const struct manager *m)
{
	return (struct near_limit_settings){
		.near = m->config.near_limit,
		.again = m->config.near_limit_again,
		.exhaustion = m->config.near_exhaustion,
	};
}

/* ------------------------------------------------------------ the victim */

void manager_oom_exited(struct manager *m, struct target *t)
{
	struct manager_recent_exit *x = &m->recent[m->recent_next];

	proc_ref_unref(x->ref);
	*x = (struct manager_recent_exit){ .pid = t->pid, .at_ms = daemon_clock_now_ms(), .ref = proc_ref_ref(t->ref) };
	m->recent_next = (m->recent_next + 1) % ELEMENTSOF(m->recent);
}

/* The row of the watched process pid, killed at time_ms: watched now, or
 * let go at its exit a moment ago.  NULL: not watched. */
static struct proc_ref *victim(struct manager *m, int pid, int64_t time_ms)
{
	struct target *t = pid > 0 ? watched_find(m->watched, pid) : NULL;
	struct proc_ref *best = NULL;
	int64_t best_at = 0;

	if (t)
		return t->ref;
	for (size_t i = 0; pid > 0 && i < ELEMENTSOF(m->recent); i++) {
		const struct manager_recent_exit *x = &m->recent[i];
		if (x->ref && x->pid == pid && x->at_ms >= time_ms - RECENT_EXIT_MS && x->at_ms > best_at) {
			best = x->ref;
			best_at = x->at_ms;
		}
	}
	return best;
}

static void on_kill(void *userdata, const struct oom_kill *k)
{
	struct manager *m = userdata;
	char cgroup[OOM_KMSG_PATH_MAX], limit_cgroup[OOM_KMSG_PATH_MAX];
	struct proc_ref *ref = victim(m, k->pid, k->time_ms);

	/* the log names the groups; the watch gives their ids */
	snprintf(cgroup, sizeof(cgroup), "%s", k->cgroup);
	snprintf(limit_cgroup, sizeof(limit_cgroup), "%s", k->limit_cgroup);
	if (!cgroup[0] && m->cgroups && cgroup_watch_path_of_id(m->cgroups, k->cgroup_id, cgroup, sizeof(cgroup)) < 0)
		cgroup[0] = 0;
	if (!limit_cgroup[0] && m->cgroups && k->have_limit &&
	    cgroup_watch_path_of_id(m->cgroups, k->limit_cgroup_id, limit_cgroup, sizeof(limit_cgroup)) < 0)
		limit_cgroup[0] = 0;

	struct store_oom_kill sk = {
		.time = k->time_ms,
		.sources = ((k->sources & OOM_SOURCE_WATCH) ? STORE_OOM_BPF : 0) |
			   ((k->sources & OOM_SOURCE_KMSG) ? STORE_OOM_KMSG : 0) |
			   ((k->sources & OOM_SOURCE_COUNTER) ? STORE_OOM_COUNTER : 0),
		.pid = k->pid,
		.comm = k->comm[0] ? k->comm : NULL,
		.have_uid = k->have_uid,
		.uid = k->uid,
		.constraint = k->constraint == OOM_CONSTRAINT_UNKNOWN ? NULL : oom_constraint_name(k->constraint),
		.cgroup = cgroup[0] ? cgroup : NULL,
		.limit_cgroup = limit_cgroup[0] ? limit_cgroup : NULL,
		.have_limit = k->have_limit,
		.limit = k->limit,
		.usage = k->usage,
		.have_kernel = k->have_kernel,
		.total_vm = k->total_vm,
		.anon_rss = k->anon_rss,
		.file_rss = k->file_rss,
		.shmem_rss = k->shmem_rss,
		.have_pgtables = k->have_pgtables,
		.pgtables = k->pgtables,
		.have_oom_score_adj = k->have_oom_score_adj,
		.oom_score_adj = k->oom_score_adj,
	};
	if (k->sources == OOM_SOURCE_COUNTER)
		log_notice("an OOM kill the kernel counted was told by no source: recorded, its details unknown");
	else {
		char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
		log_full_errno(LOG_NOTICE, 0, k->pid, "OOM kill of process %d (%s)%s%s%s%s%s%s%s", k->pid,
			       k->comm[0] ? k->comm : "?", ref ? ", watched" : ", not watched",
			       limit_cgroup[0] ? ", at the limit of " : "", limit_cgroup,
			       k->have_limit ? " (usage " : "", k->have_limit ? format_bytes(a, k->usage) : "",
			       k->have_limit ? " of " : "", k->have_limit ? format_bytes(b, k->limit) : "");
	}
	if (writer_add_oom_kill(store_cycle_writer(m->store_cycle), ref, &sk) < 0)
		log_warning("an OOM kill of process %d could not be queued for the store: out of memory", k->pid);
}

/* ------------------------------------------------------------ near the limit */

/* The largest watched processes in the group at path (NULL: all), at
 * most n, largest first. */
static size_t largest_in(struct manager *m, const char *path, struct target **out, size_t n)
{
	char where[CGROUP_MEM_PATH_MAX];
	size_t k = 0;

	for (struct target *t = watched_first(m->watched); t; t = watched_next(t)) {
		if (path && (!m->cgroups ||
			     cgroup_mem_process_path(t->proc_dir_fd, cgroup_watch_mount(m->cgroups), where,
						     sizeof(where)) < 0 ||
			     !cgroup_watch_path_within(where, path)))
			continue;
		/* insertion into the few kept, by private memory */
		size_t i = k < n ? k++ : n;
		while (i > 0 && out[i - 1]->fast.private < t->fast.private) {
			if (i < n)
				out[i] = out[i - 1];
			i--;
		}
		if (i < n)
			out[i] = t;
	}
	return k;
}

static void on_near(void *userdata, const char *path, uint64_t usage, uint64_t limit, int level)
{
	struct manager *m = userdata;
	struct target *v[RW_NEAR_LIMIT_CENSUSES];
	uint64_t now = now_monotonic_us();
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];

	size_t n = largest_in(m, path, v, ELEMENTSOF(v));
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		census_tier_near_limit(m->census_tier, v[i], now);
		fast_tier_wake(&m->fast, v[i]);
	}
	m->near_limit_rounds++;
	if (path)
		log_info("memory cgroup %s at %s of its limit %s (%.0f%%%s): a census of its %zu largest watched "
			 "process%s now", path, format_bytes(a, usage), format_bytes(b, limit),
			 100.0 * (double)usage / (double)limit, level > 1 ? ", again" : "", n, n == 1 ? "" : "es");
	else
		log_info("the host's available memory is under NearExhaustion= (%s in use of %s): a census of the "
			 "%zu largest watched process%s now", format_bytes(a, usage), format_bytes(b, limit), n,
			 n == 1 ? "" : "es");
	manager_census_soon(m);
}

/* A process just followed: the limit that applies to its group is
 * watched from now on, not only from the next store tick (a process may
 * reach its limit within seconds of its start). */
void manager_oom_followed(struct manager *m, struct target *t)
{
	struct cgroup_watch_limit l;
	char path[CGROUP_MEM_PATH_MAX];

	if (!m->cgroups || cgroup_watch_path_of(m->cgroups, t->proc_dir_fd, path, sizeof(path)) < 0)
		return;
	/* its group is known from now, for the processes answer's grouping */
	target_set_memcg(t, path);
	if (m->near && cgroup_watch_limit_of(m->cgroups, path, &l) == 0)
		near_limit_add(m->near, &l);
}

/* ------------------------------------------------------------ life */

int manager_oom_open(struct manager *m)
{
	struct oom_sources_options o = sources_options(m);
	struct near_limit_settings ns = near_settings(m);
	int r;

	r = cgroup_watch_new(NULL, &m->cgroups);
	if (r < 0) {
		m->cgroups = NULL;
		snprintf(m->cgroups_why, sizeof(m->cgroups_why), "%s",
			 r == -ENOENT ? "no memory controller is mounted" : strerror(-r));
		log_info("memory cgroups not followed: %s", m->cgroups_why);
	}
	if ((r = oom_sources_new(m->event, &o, on_kill, m, &m->oom)) < 0 ||
	    (r = near_limit_new(m->event, m->cgroups, m->root_fd, &ns, on_near, m, &m->near)) < 0)
		return log_error_errno(r, "cannot watch for OOM kills: %m");
	return 0;
}

void manager_oom_tick(struct manager *m, int64_t now_ms)
{
	if (m->cgroups) {
		cgroup_watch_begin(m->cgroups);
		for (struct target *t = watched_first(m->watched); t; t = watched_next(t)) {
			const char *path =
				cgroup_watch_add_process(m->cgroups, t->proc_dir_fd, t->fast.private, t->fast.resident);
			if (path)
				target_set_memcg(t, path); /* a process may move */
		}
		cgroup_watch_end(m->cgroups, store_cycle_writer(m->store_cycle), now_ms);
		size_t n;
		const struct cgroup_watch_limit *l = cgroup_watch_limits(m->cgroups, &n);
		near_limit_update(m->near, l, n);
	}
	oom_sources_tick(m->oom);
	/* what the recent exits hold (a process's row, its region paths) is
	 * let go once no kill can name it any more */
	for (size_t i = 0; i < ELEMENTSOF(m->recent); i++)
		if (m->recent[i].ref && m->recent[i].at_ms < now_ms - RECENT_EXIT_MS)
			m->recent[i].ref = proc_ref_unref(m->recent[i].ref);
}

void manager_oom_reload(struct manager *m)
{
	struct oom_sources_options o = sources_options(m);
	struct near_limit_settings ns = near_settings(m);

	oom_sources_reload(m->oom, &o);
	near_limit_reload(m->near, &ns);
}

void manager_oom_stop(struct manager *m)
{
	if (m->oom)
		oom_sources_stop(m->oom);
}

void manager_oom_close(struct manager *m)
{
	m->near = near_limit_free(m->near);
	m->oom = oom_sources_free(m->oom);
	m->cgroups = cgroup_watch_free(m->cgroups);
	for (size_t i = 0; i < ELEMENTSOF(m->recent); i++)
		m->recent[i].ref = proc_ref_unref(m->recent[i].ref);
}

void manager_oom_status(const struct manager *m, struct core_status *ret)
{
	if (m->oom) {
		ret->have_oom = true;
		oom_sources_status(m->oom, &ret->oom);
	}
	ret->cgroup_version = !m->cgroups ? 0 : cgroup_watch_version(m->cgroups) == CGROUP_MEM_V1 ? 1 : 2;
	ret->cgroups_why = m->cgroups ? NULL : m->cgroups_why;
	if (m->cgroups)
		ret->cgroups = cgroup_watch_export(m->cgroups, &ret->n_cgroups);
	if (m->near)
		near_limit_counts(m->near, &ret->near_limit_thresholds, &ret->near_limit_polled);
	ret->near_limit_rounds = m->near_limit_rounds;
}
