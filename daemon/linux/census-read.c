/* What a census reads on Linux (census-read.h): the steady check and the
 * scanner's census of the instance. */
#include "census-read.h"

#include <errno.h>

#include "census.h"
#include "limits.h"
#include "scan.h"

/* The steady check before a census (census_take), into *mark:
 * smaps_rollup and the names of its file mappings alone when the change
 * watch says its mappings are as l->steady saw them and a repeat may
 * come of it; else maps too, and the names where the watch can tell. */
void census_read_steady(struct census_last *l, const struct census_subject *s, bool may_repeat,
			enum steady_mappings mappings, struct steady_mark *mark, struct steady_files *files,
			uint64_t *bytes)
{
	if (mappings != STEADY_MAPPINGS_KEPT && mappings != STEADY_MAPPINGS_STILL)
		l->steady_current = false; /* until a full census's mark is kept */
	if (may_repeat && l->steady_current && l->steady.has_names &&
	    steady_read_kept(s->proc_dir_fd, &l->steady, &l->steady_files, mark, bytes) == 0 &&
	    steady_same(mark, &l->steady))
		return;
	/* what is kept of the mappings must be read from them */
	unsigned flags = mappings != STEADY_MAPPINGS_UNKNOWN ? STEADY_READ_NAMES : 0;
	if (steady_read(s->proc_dir_fd, flags, mark, files, NULL, bytes) < 0)
		mark->source = STEADY_NONE;
}

bool census_read_same(const struct steady_mark *a, const struct steady_mark *b)
{
	return steady_same(a, b);
}

void census_read_files_done(struct steady_files *f)
{
	steady_files_done(f);
}

int census_read(const struct census_subject *s, const struct census_take_options *o, uint64_t start_us,
		struct census **ret, struct error *err)
{
	/* the walks' deadline counts from the census's start: the steady
	 * check and the read of smaps come out of the same allowance */
	struct scan_options so = {
		.keep_regions = true, .light = o->light, .gpu_snapshot = o->gpu, .no_evidence = !o->evidence,
		.no_heap = !o->heap || o->light, .heap_deadline_us = o->heap ? start_us + o->heap_allowance_us : 0,
		.heap_max_bytes = RW_HEAP_READ_MAX,
	};
	struct census *c = NULL;
	int r = scan_process(s->pid, &so, &c, err);
	if (r < 0)
		return r;
	if ((uint64_t)c->start_time != s->start_time) {
		/* the pid holds another process now: ours is gone */
		census_free(c);
		return error_set(err, -ESRCH, "process %d exited; its pid was reused", s->pid);
	}
	*ret = c;
	return 0;
}

int census_read_pid(int pid, const struct census_read_scan *o, struct census **ret, struct error *err)
{
	struct scan_options so = {
		.proc_root = o->proc_root,
		.light = o->light,
		.no_evidence = !o->evidence,
		.progress = o->progress,
		.userdata = o->userdata,
	};
	return scan_process(pid, &so, ret, err);
}
