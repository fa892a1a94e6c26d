/* OOM kills put together from their sources (oom-kills.h). */
#include "oom-kills.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "oom-watch-event.h"

struct pending {
	struct oom_kill kill;
	bool killed; /* the watch saw the SIGKILL, or the log told the kill */
};

struct oom_kills {
	struct pending v[OOM_KILLS_PENDING_MAX];
	size_t n;
	/* counting: the counter where it started, the kills given since */
	bool counting;
	uint64_t base;
	int64_t given;
};

int oom_kills_new(struct oom_kills **ret)
{
	struct oom_kills *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	*ret = k;
	return 0;
}

struct oom_kills *oom_kills_free(struct oom_kills *k)
{
	free(k);
	return NULL;
}

static int64_t distance(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

/* The pending kill of pid told by the other source near time_ms, or a
 * new one (NULL when full). */
static struct pending *pending_for(struct oom_kills *k, int pid, unsigned source, int64_t time_ms)
{
	for (size_t i = 0; i < k->n; i++) {
		struct pending *p = &k->v[i];
		if (p->kill.pid == pid && !(p->kill.sources & source) &&
		    distance(p->kill.time_ms, time_ms) < OOM_KILLS_PAIR_MS)
			return p;
	}
	if (k->n == ELEMENTSOF(k->v))
		return NULL;
	struct pending *p = &k->v[k->n++];
	*p = (struct pending){ .kill = { .time_ms = time_ms, .pid = pid, .constraint = OOM_CONSTRAINT_UNKNOWN } };
	return p;
}

int oom_kills_add_watch(struct oom_kills *k, const struct oom_watch_event *e, int64_t time_ms, uint64_t page_size)
{
	struct pending *p = pending_for(k, (int)e->pid, OOM_SOURCE_WATCH, time_ms);
	if (!p)
		return -ENOBUFS;
	struct oom_kill *o = &p->kill;
	o->sources |= OOM_SOURCE_WATCH;
	if (time_ms < o->time_ms)
		o->time_ms = time_ms;
	p->killed |= e->killed != 0;
	if (!o->comm[0])
		snprintf(o->comm, sizeof(o->comm), "%.*s", (int)sizeof(e->comm), e->comm);
	if (!o->have_uid) {
		o->have_uid = true;
		o->uid = e->uid;
	}
	o->cgroup_id = e->memcg_id;
	o->limit_cgroup_id = e->limit_id;
	/* a group with no limit up its tree: the machine's memory ran out */
	if (e->limit_id && e->limit_max < (1ull << 62) / page_size) {
		o->have_limit = true;
		o->limit = e->limit_max * page_size;
		o->usage = e->limit_usage * page_size;
	}
	return 0;
}

int oom_kills_add_kmsg(struct oom_kills *k, const struct oom_kmsg_kill *e, int64_t time_ms)
{
	struct pending *p = pending_for(k, e->pid, OOM_SOURCE_KMSG, time_ms);
	if (!p)
		return -ENOBUFS;
	struct oom_kill *o = &p->kill;
	o->sources |= OOM_SOURCE_KMSG;
	if (time_ms < o->time_ms)
		o->time_ms = time_ms;
	p->killed = true; /* the log tells only kills */
	/* the log's comm is the one the kernel printed, as long as the
	 * watch's, escaped bytes undone */
	snprintf(o->comm, sizeof(o->comm), "%s", e->comm);
	if (e->have_uid) {
		o->have_uid = true;
		o->uid = e->uid;
	}
	o->constraint = e->constraint;
	if (e->have_task_memcg)
		snprintf(o->cgroup, sizeof(o->cgroup), "%s", e->task_memcg);
	if (e->have_oom_memcg)
		snprintf(o->limit_cgroup, sizeof(o->limit_cgroup), "%s", e->oom_memcg);
	if (e->have_usage && !o->have_limit) {
		o->have_limit = true;
		o->limit = e->limit_kb * 1024;
		o->usage = e->usage_kb * 1024;
	}
	o->have_kernel = true;
	o->total_vm = e->total_vm_kb * 1024;
	o->anon_rss = e->anon_rss_kb * 1024;
	o->file_rss = e->file_rss_kb * 1024;
	o->shmem_rss = e->shmem_rss_kb * 1024;
	o->have_pgtables = e->have_pgtables;
	o->pgtables = e->pgtables_kb * 1024;
	o->have_oom_score_adj = e->have_oom_score_adj;
	o->oom_score_adj = e->oom_score_adj;
	return 0;
}

static bool whole(const struct pending *p, bool watch, bool kmsg)
{
	return (!watch || (p->kill.sources & OOM_SOURCE_WATCH)) && (!kmsg || (p->kill.sources & OOM_SOURCE_KMSG));
}

size_t oom_kills_take(struct oom_kills *k, int64_t now_ms, bool watch, bool kmsg, struct oom_kill *out, size_t n)
{
	size_t given = 0, kept = 0;

	for (size_t i = 0; i < k->n; i++) {
		struct pending *p = &k->v[i];
		bool due = whole(p, watch, kmsg) || now_ms - p->kill.time_ms >= OOM_KILLS_GRACE_MS ||
			   k->n == ELEMENTSOF(k->v);
		if (due && !p->killed)
			continue; /* a victim already exiting: marked, not killed */
		if (due && given < n) {
			out[given++] = p->kill;
			k->given++;
			continue;
		}
		k->v[kept++] = *p;
	}
	k->n = kept;
	return given;
}

size_t oom_kills_count(struct oom_kills *k, uint64_t counter, int64_t now_ms, struct oom_kill *out, size_t n)
{
	int64_t waiting = 0;
	for (size_t i = 0; i < k->n; i++)
		waiting += k->v[i].killed;
	if (!k->counting || counter < k->base) {
		/* the first count, or a counter that went back (a reboot the
		 * caller did not tell): counting starts here, and the kills
		 * waiting are in it already */
		k->counting = true;
		k->base = counter;
		k->given = -waiting;
		return 0;
	}
	int64_t counted = (int64_t)(counter - k->base), told = k->given + waiting;
	size_t given = 0;
	while (counted > told + (int64_t)given && given < n) {
		out[given] = (struct oom_kill){
			.time_ms = now_ms,
			.sources = OOM_SOURCE_COUNTER,
			.constraint = OOM_CONSTRAINT_UNKNOWN,
		};
		given++;
	}
	k->given += (int64_t)given;
	return given;
}
