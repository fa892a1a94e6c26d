/* Why processes die, on Windows (manager-internal.h's manager_oom_*):
 * nothing to follow.  Windows has no OOM killer: a process that cannot
 * commit more memory gets a failed allocation and ends by its own hand,
 * and the nearest thing to a memory cgroup, a job object's limit, is not
 * followed yet.  So there are no kill sources, no groups and no census
 * before death, and status says why. */
#include "manager-internal.h"

#include <stdio.h>

int manager_oom_open(struct manager *m)
{
	snprintf(m->cgroups_why, sizeof(m->cgroups_why), "%s",
		 "Windows has no memory cgroups (job objects are not followed), so ramwatchd records none");
	return 0;
}

void manager_oom_tick(struct manager *m, int64_t now_ms)
{
	(void)m;
	(void)now_ms;
}

void manager_oom_followed(struct manager *m, struct target *t)
{
	(void)m;
	(void)t;
}

void manager_oom_exited(struct manager *m, struct target *t)
{
	(void)m;
	(void)t;
}

void manager_oom_reload(struct manager *m)
{
	(void)m;
}

void manager_oom_stop(struct manager *m)
{
	(void)m;
}

void manager_oom_close(struct manager *m)
{
	(void)m;
}

void manager_oom_status(const struct manager *m, struct core_status *ret)
{
	ret->have_oom = false;
	ret->oom_why = "Windows has no OOM killer: a process that cannot commit more memory has its allocation "
		       "fail, and ramwatchd records no kills";
	ret->cgroup_version = 0;
	ret->cgroups_why = m->cgroups_why;
}
