/* What a census reads on Linux (census-read.h): the steady check and the
 * scanner's census of the instance. */
#include "census-read.h"

#include <errno.h>

#include "census.h"
#include "limits.h"
#include "scan.h"

/* The steady check without the change watch, into *mark (its file
 * mappings' starts into *files): where the last check that read maps is
 * younger than o->check_every_ms and l->steady holds the file mappings,
 * statm, the file mappings at their starts and smaps_rollup
 * (steady_read_files), and maps and the file mappings after them only
 * when a census follows, for its mark; else maps, and the rest where a
 * check may come of it.  What only maps tells (an anonymous mapping
 * protected differently, or moved, with every total the same) waits for
 * the next read of maps, at most o->check_every_ms away. */
static void steady_check_unwatched(struct census_last *l, const struct census_subject *s,
				   const struct census_take_options *o, struct steady_mark *mark,
				   struct steady_files *files, uint64_t *bytes)
{
	if (o->may_repeat && l->steady.source != STEADY_NONE && l->steady.has_files && o->check_every_ms > 0 &&
	    o->now_ms - l->steady_maps_ms < o->check_every_ms) {
		int r = steady_read_files(s->proc_dir_fd, &l->steady, &l->steady_files, mark, bytes);
		if (r == 0 && census_take_may_stand(l, s, mark, o->light))
			return;
		if (r == 0 && steady_read_maps(s->proc_dir_fd, mark, files, bytes) == 0) {
			l->steady_maps_ms = o->now_ms;
			return;
		}
		/* no ioctl after all, or a failure: a whole read, as below */
	}
	unsigned flags = o->check_every_ms > 0 ? STEADY_READ_FILES : 0;
	if (steady_read(s->proc_dir_fd, flags, mark, files, NULL, bytes) < 0)
		mark->source = STEADY_NONE;
	else
		l->steady_maps_ms = o->now_ms;
}

/* The steady check before a census (census_take) on Linux, into *mark:
 * smaps_rollup and the names of its file mappings alone when the change
 * watch says its mappings are as l->steady saw them and a repeat may
 * come of it; else maps too, and the names where the watch can tell;
 * without the watch, steady_check_unwatched. */
void census_read_steady(struct census_last *l, const struct census_subject *s, const struct census_take_options *o,
			struct steady_mark *mark, struct steady_files *files, uint64_t *bytes)
{
	enum steady_mappings mappings = o->mappings;

	if (mappings != STEADY_MAPPINGS_KEPT && mappings != STEADY_MAPPINGS_STILL)
		l->steady_current = false; /* until a full census's mark is kept */
	if (mappings == STEADY_MAPPINGS_UNKNOWN) {
		steady_check_unwatched(l, s, o, mark, files, bytes);
		return;
	}
	if (o->may_repeat && l->steady_current && l->steady.has_names &&
	    steady_read_kept(s->proc_dir_fd, &l->steady, &l->steady_files, mark, bytes) == 0 &&
	    steady_same(mark, &l->steady))
		return;
	/* what is kept of the mappings must be read from them */
	if (steady_read(s->proc_dir_fd, STEADY_READ_NAMES, mark, files, NULL, bytes) < 0)
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
