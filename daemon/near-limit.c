/* The census before death: watching memory cgroups and the host near
 * their limits (near-limit.h). */
#include "near-limit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cgroup-mem.h"
#include "fileio.h"
#include "limits.h"
#include "log.h"
#include "macro.h"
#include "sysmem.h"
#include "util.h"

#define POLL_FAR_US (1000u * 1000u)
#define POLL_NEAR_US (20u * 1000u)

struct point {
	struct near_limit *nl;
	char path[CGROUP_MEM_PATH_MAX];
	uint64_t limit;
	int level;              /* told last */
	int efd, ufd;           /* v1 thresholds: the eventfd and memory.usage_in_bytes */
	struct event_source *io;
	bool have_max;
	uint64_t events_max;    /* v2 memory.events "max", as last read */
	uint64_t next_us;       /* polled: when it is read again */
	bool seen;              /* in the last update */
};

struct near_limit {
	struct event_loop *event;
	struct cgroup_watch *cw;
	int proc_fd;
	struct near_limit_settings s;
	near_limit_fn fn;
	void *userdata;
	struct point **points;
	size_t n_points, allocated;
	struct event_source *poll;
	bool host_told;
	uint64_t host_next_us;
	bool thresholds_refused; /* cgroup.event_control could not be written: logged once */
};

int near_limit_level(uint64_t usage, uint64_t limit, double near, double again, int was)
{
	if (limit == 0)
		return 0;
	double share = (double)usage / (double)limit;
	const double at[3] = { 0, near, again > 0 ? again : 2.0 };
	int raw = again > 0 && share >= again ? 2 : near > 0 && share >= near ? 1 : 0;
	int level = was;
	while (level > raw && (at[level] <= 0 || share < at[level] - NEAR_LIMIT_HYSTERESIS))
		level--;
	return level > raw ? level : raw;
}

uint64_t near_limit_poll_interval(double share, double near)
{
	if (near <= 0)
		near = 0.9;
	if (share >= near)
		return POLL_NEAR_US;
	if (share >= near - 0.1)
		return 50u * 1000u;
	if (share >= near - 0.25)
		return 100u * 1000u;
	if (share >= near / 2)
		return 250u * 1000u;
	return POLL_FAR_US;
}

/* ------------------------------------------------------------ telling */

static void look(struct point *p, uint64_t usage, bool reached_max)
{
	struct near_limit *nl = p->nl;
	int level = near_limit_level(usage, p->limit, nl->s.near, nl->s.again, p->level);

	if (reached_max && (nl->s.near > 0 || nl->s.again > 0))
		level = 2;
	if (level > p->level) {
		log_debug("memory cgroup %s at %" PRIu64 " of its limit %" PRIu64 ": near it (level %d)", p->path,
			  usage, p->limit, level);
		p->level = level;
		nl->fn(nl->userdata, p->path, usage, p->limit, level);
	} else
		p->level = level;
}

/* v2: memory.events' "max" went up since the last read */
static bool reached_max(struct point *p)
{
	struct near_limit *nl = p->nl;
	const struct cgroup_mem_mount *m = cgroup_watch_mount(nl->cw);
	char file[CGROUP_MEM_PATH_MAX + 32];
	_cleanup_free_ char *text = NULL;
	struct cgroup_mem mem = { 0 };
	size_t len;

	if (m->version != CGROUP_MEM_V2)
		return false;
	snprintf(file, sizeof(file), "%s/memory.events", p->path[1] ? p->path + 1 : ".");
	if (read_full_fileat(cgroup_watch_mount_fd(nl->cw), file, 64 * 1024, &text, &len) < 0 ||
	    cgroup_mem_events_parse(text, len, CGROUP_MEM_V2, &mem) < 0)
		return false;
	bool up = p->have_max && mem.events_max > p->events_max;
	p->have_max = true;
	p->events_max = mem.events_max;
	return up;
}

static void on_threshold(struct event_source *s, uint32_t revents, void *userdata)
{
	struct point *p = userdata;
	uint64_t v, usage;
	(void)s;
	(void)revents;

	(void)!read(p->efd, &v, sizeof(v));
	if (cgroup_mem_read_usage(cgroup_watch_mount_fd(p->nl->cw), cgroup_watch_mount(p->nl->cw), p->path, &usage) == 0)
		look(p, usage, false);
}

/* ------------------------------------------------------------ points */

static void point_free(struct point *p)
{
	if (!p)
		return;
	event_source_free(p->io);
	if (p->efd >= 0)
		close(p->efd);
	if (p->ufd >= 0)
		close(p->ufd);
	free(p);
}

/* v1: the two thresholds on one eventfd.  Returns 0 or a negative errno
 * (then the point is polled). */
static int register_thresholds(struct near_limit *nl, struct point *p)
{
	const char *rel = p->path[1] ? p->path + 1 : ".";
	int mount_fd = cgroup_watch_mount_fd(nl->cw);
	char file[CGROUP_MEM_PATH_MAX + 32], line[96];
	double shares[2] = { nl->s.near, nl->s.again };
	int r = 0;

	p->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	snprintf(file, sizeof(file), "%s/memory.usage_in_bytes", rel);
	p->ufd = openat(mount_fd, file, O_RDONLY | O_CLOEXEC);
	snprintf(file, sizeof(file), "%s/cgroup.event_control", rel);
	int cfd = openat(mount_fd, file, O_WRONLY | O_CLOEXEC);
	if (p->efd < 0 || p->ufd < 0 || cfd < 0)
		r = -errno;
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(shares); i++) {
		if (shares[i] <= 0)
			continue;
		int n = snprintf(line, sizeof(line), "%d %d %" PRIu64, p->efd, p->ufd,
				 (uint64_t)((double)p->limit * shares[i]));
		if (write(cfd, line, (size_t)n) < 0)
			r = -errno;
	}
	if (cfd >= 0)
		close(cfd);
	if (r == 0)
		r = event_loop_add_io(nl->event, p->efd, EVENT_IN, on_threshold, p, "near-limit", &p->io);
	if (r < 0) {
		if (p->efd >= 0)
			close(p->efd);
		if (p->ufd >= 0)
			close(p->ufd);
		p->efd = p->ufd = -1;
		if (!nl->thresholds_refused)
			log_info_errno(r, "memory cgroups near their limits are polled: usage thresholds cannot be "
					  "registered through cgroup.event_control (%s): %m", p->path);
		nl->thresholds_refused = true;
	}
	return r;
}

static struct point *find(struct near_limit *nl, const char *path)
{
	for (size_t i = 0; i < nl->n_points; i++)
		if (streq(nl->points[i]->path, path))
			return nl->points[i];
	return NULL;
}

static void arm_poll(struct near_limit *nl, uint64_t now);

static bool watching(const struct near_limit *nl)
{
	return nl->cw && (nl->s.near > 0 || nl->s.again > 0);
}

/* Marks l seen, made when it is not watched yet (or with another limit:
 * its thresholds are other ones).  Returns false when out of memory. */
static bool see(struct near_limit *nl, const struct cgroup_watch_limit *l)
{
	struct point *p = find(nl, l->path);
	if (p && p->limit != l->limit)
		p->seen = false;
	else if (p) {
		p->seen = true;
		return true;
	}
	if (array_grow((void **)&nl->points, nl->n_points + 1, &nl->allocated, sizeof(*nl->points), 4) < 0 ||
	    !(p = calloc(1, sizeof(*p))))
		return false;
	*p = (struct point){ .nl = nl, .limit = l->limit, .efd = -1, .ufd = -1, .seen = true };
	memcpy(p->path, l->path, strlen(l->path) + 1);
	if (cgroup_watch_version(nl->cw) == CGROUP_MEM_V1 && !nl->thresholds_refused)
		(void)register_thresholds(nl, p);
	/* before the old point of the same path, which find() then passes
	 * over until the sweep takes it */
	memmove(nl->points + 1, nl->points, nl->n_points * sizeof(*nl->points));
	nl->points[0] = p;
	nl->n_points++;
	/* already near it: told now, as the thresholds only tell a crossing */
	uint64_t usage;
	if (cgroup_mem_read_usage(cgroup_watch_mount_fd(nl->cw), cgroup_watch_mount(nl->cw), p->path, &usage) == 0)
		look(p, usage, false);
	return true;
}

static void sweep(struct near_limit *nl)
{
	size_t kept = 0;
	for (size_t i = 0; i < nl->n_points; i++) {
		if (nl->points[i]->seen)
			nl->points[kept++] = nl->points[i];
		else
			point_free(nl->points[i]);
	}
	nl->n_points = kept;
}

void near_limit_update(struct near_limit *nl, const struct cgroup_watch_limit *limits, size_t n)
{
	for (size_t i = 0; i < nl->n_points; i++)
		nl->points[i]->seen = false;
	for (size_t i = 0; watching(nl) && i < n; i++)
		if (!see(nl, &limits[i]))
			break;
	sweep(nl);
	arm_poll(nl, event_loop_now(nl->event));
}

void near_limit_add(struct near_limit *nl, const struct cgroup_watch_limit *l)
{
	if (!watching(nl))
		return;
	(void)see(nl, l);
	sweep(nl);
	arm_poll(nl, event_loop_now(nl->event));
}

void near_limit_counts(const struct near_limit *nl, unsigned *ret_thresholds, unsigned *ret_polled)
{
	unsigned t = 0;
	for (size_t i = 0; i < nl->n_points; i++)
		t += nl->points[i]->io != NULL;
	*ret_thresholds = t;
	*ret_polled = (unsigned)nl->n_points - t;
}

/* ------------------------------------------------------------ polling */

static uint64_t poll_host(struct near_limit *nl)
{
	_cleanup_free_ char *text = NULL;
	struct store_system sys = { 0 };
	size_t len;

	if (nl->s.exhaustion == 0)
		return UINT64_MAX;
	if (read_full_fileat(nl->proc_fd, "meminfo", RW_PROC_FILE_MAX, &text, &len) < 0 ||
	    meminfo_parse(text, len, &sys) < 0 || sys.mem_total == 0)
		return POLL_FAR_US;
	uint64_t avail = (uint64_t)sys.mem_available, total = (uint64_t)sys.mem_total;
	if (avail < nl->s.exhaustion && !nl->host_told) {
		nl->host_told = true;
		nl->fn(nl->userdata, NULL, total - avail, total - nl->s.exhaustion, 1);
	} else if (avail > nl->s.exhaustion + nl->s.exhaustion / 4)
		nl->host_told = false;
	return avail < 2 * nl->s.exhaustion ? 100u * 1000u : POLL_FAR_US;
}

static void on_poll(struct event_source *s, void *userdata)
{
	struct near_limit *nl = userdata;
	uint64_t now = event_loop_now(nl->event);
	(void)s;

	if (now >= nl->host_next_us)
		nl->host_next_us = now + poll_host(nl);
	for (size_t i = 0; i < nl->n_points; i++) {
		struct point *p = nl->points[i];
		uint64_t usage;
		if (p->io || now < p->next_us)
			continue;
		if (cgroup_mem_read_usage(cgroup_watch_mount_fd(nl->cw), cgroup_watch_mount(nl->cw), p->path, &usage) < 0) {
			p->next_us = now + POLL_FAR_US;
			continue;
		}
		double share = (double)usage / (double)p->limit;
		look(p, usage, share >= nl->s.near - 0.25 && reached_max(p));
		p->next_us = now + near_limit_poll_interval(share, nl->s.near);
	}
	arm_poll(nl, now);
}

static void arm_poll(struct near_limit *nl, uint64_t now)
{
	uint64_t due = nl->s.exhaustion > 0 ? nl->host_next_us : UINT64_MAX;

	for (size_t i = 0; i < nl->n_points; i++)
		if (!nl->points[i]->io && nl->points[i]->next_us < due)
			due = nl->points[i]->next_us;
	if (due == UINT64_MAX) {
		event_timer_disarm(nl->poll);
		return;
	}
	/* a few ms late is nothing beside a kill 100 ms away; far from any
	 * limit, wake-ups coalesce */
	(void)event_timer_arm_at(nl->poll, due < now ? now : due, due - now < 100u * 1000u ? 1000 : 50u * 1000u);
}

int near_limit_new(struct event_loop *e, struct cgroup_watch *cw, int proc_fd, const struct near_limit_settings *s,
		   near_limit_fn fn, void *userdata, struct near_limit **ret)
{
	struct near_limit *nl = calloc(1, sizeof(*nl));
	int r;

	if (!nl)
		return -ENOMEM;
	*nl = (struct near_limit){ .event = e, .cw = cw, .proc_fd = proc_fd, .s = *s, .fn = fn, .userdata = userdata };
	r = event_loop_add_timer(e, UINT64_MAX, 1000, on_poll, nl, "near-limit-poll", &nl->poll);
	if (r < 0) {
		free(nl);
		return r;
	}
	event_timer_disarm(nl->poll);
	arm_poll(nl, event_loop_now(e));
	*ret = nl;
	return 0;
}

void near_limit_reload(struct near_limit *nl, const struct near_limit_settings *s)
{
	bool changed = nl->s.near != s->near || nl->s.again != s->again;
	nl->s = *s;
	if (changed) {
		/* the thresholds are of the old shares: made again at the
		 * next update */
		for (size_t i = 0; i < nl->n_points; i++)
			point_free(nl->points[i]);
		nl->n_points = 0;
		nl->thresholds_refused = false;
	}
	arm_poll(nl, event_loop_now(nl->event));
}

struct near_limit *near_limit_free(struct near_limit *nl)
{
	if (!nl)
		return NULL;
	for (size_t i = 0; i < nl->n_points; i++)
		point_free(nl->points[i]);
	free(nl->points);
	event_source_free(nl->poll);
	free(nl);
	return NULL;
}
