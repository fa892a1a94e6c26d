/* One watched process (target.h): made ready, its descriptors, what the
 * daemon tells of it, freed.  Each other part of a target is its
 * owner's, made ready and freed through its owner's calls; the instance
 * is the platform's discovery's (linux/target.c, windows/target.c). */
#include "target.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct target *target_alloc(int pid, uint64_t start_time)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->start_time = start_time;
	t->proc_dir_fd = -1;
	t->pidfd = -1;
	fast_tier_target_init(t);
	return t;
}

struct target *target_free(struct target *t)
{
	if (!t)
		return NULL;
	if (t->proc_dir_fd >= 0)
		close(t->proc_dir_fd);
	if (t->pidfd >= 0)
		close(t->pidfd);
	fast_tier_target_done(t);
	census_tier_target_done(t);
	proc_ref_unref(t->ref);
	free(t->cgroup);
	free(t->memcg);
	free(t);
	return NULL;
}

unsigned target_fds(const struct target *t)
{
	return (t->proc_dir_fd >= 0) + (t->pidfd >= 0) + (t->fast.statm_fd >= 0);
}

void target_set_memcg(struct target *t, const char *path)
{
	if (t->memcg && streq(t->memcg, path))
		return;
	char *copy = strdup(path);
	if (!copy)
		return;
	free(t->memcg);
	t->memcg = copy;
}

void target_describe(const struct target *t, struct core_process *ret)
{
	const struct store_process *info = &t->ref->info;

	*ret = (struct core_process){
		.process_id = t->ref->id,
		.pid = t->pid,
		.start_time = info->start_time,
		.started_at = info->started_at,
		.uid = info->uid,
		.last_seen = info->seen,
		.boot_id = info->boot_id,
		.comm = info->comm,
		.exe = info->exe,
		.cmdline = info->cmdline,
		.owner = info->owner,
		.cgroup = t->cgroup,
		.memcg = t->memcg,
		.private = t->fast.private,
		.resident = t->fast.resident,
		.peak_private = info->peak_private,
		.peak_resident = info->peak_resident,
		.vram = t->gpu.on_gpu ? (int64_t)t->gpu.vram : -1,
		.peak_vram = info->peak_vram,
	};
}
