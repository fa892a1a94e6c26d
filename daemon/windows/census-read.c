/* What a census reads on Windows (census-read.h): the Windows scanner's
 * walk of the instance (winscan.h) made a census (win-census.h).  There
 * is no steady check: nothing as cheap as smaps_rollup tells that a
 * Windows process's memory is as it was, so every census is a full one. */
#include "census-read.h"

#include <errno.h>

#include "census.h"
#include "limits.h"
#include "macro.h"
#include "win-capture.h"
#include "win-census.h"
#include "winscan.h"

DEFINE_CLEANUP(struct win_capture *, win_capture_free)

void census_read_steady(struct census_last *l, const struct census_subject *s, const struct census_take_options *o,
			struct steady_mark *mark, struct steady_files *files, uint64_t *bytes)
{
	(void)s;
	(void)o;
	(void)files;
	l->steady_current = false;
	mark->source = STEADY_NONE;
	*bytes = 0;
}

bool census_read_same(const struct steady_mark *a, const struct steady_mark *b)
{
	(void)a;
	(void)b;
	return false;
}

void census_read_files_done(struct steady_files *f)
{
	/* a check that never runs keeps nothing */
	*f = (struct steady_files){ 0 };
}

/* The census of cap, with what its reading thread spent. */
static int build(const struct win_capture *cap, bool all_regions, struct census **ret, struct error *err)
{
	int r = win_census_build(cap->regions, cap->n, &cap->process, RW_TOP_DEFAULT, all_regions, ret, err);
	if (r >= 0)
		(*ret)->reader_cpu_us = cap->reader_cpu_us;
	return r;
}

int census_read(const struct census_subject *s, const struct census_take_options *o, uint64_t start_us,
		struct census **ret, struct error *err)
{
	_cleanup_(win_capture_freep) struct win_capture *cap = NULL;
	const struct winscan_options so = { .no_evidence = !o->evidence };
	int r;

	(void)start_us; /* no heap walk to stop */
	r = winscan_process(s->pid, &so, &cap, err);
	if (r < 0)
		return r;
	if (cap->process.creation_time != (int64_t)s->start_time)
		return error_set(err, -ESRCH, "process %d exited; its pid was given to another", s->pid);
	/* every region kept: the region events compare them with the next */
	return build(cap, true, ret, err);
}

int census_read_pid(int pid, const struct census_read_scan *o, struct census **ret, struct error *err)
{
	_cleanup_(win_capture_freep) struct win_capture *cap = NULL;
	const struct winscan_options so = { .no_evidence = !o->evidence };
	int r;

	r = winscan_process(pid, &so, &cap, err);
	if (r < 0)
		return r;
	if (o->progress && (r = o->progress(o->userdata, 0)) < 0)
		return error_set(err, r, "the census of process %d was stopped", pid);
	return build(cap, false, ret, err);
}
