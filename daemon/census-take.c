/* One census of one watched process (census-take.h): the steady check,
 * a repeat or the census itself (each read as the platform reads it:
 * census-read.h), and the region events. */
#include "census-take.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "census-read.h"
#include "census.h"
#include "daemon-clock.h"
#include "error.h"
#include "limits.h"
#include "macro.h"
#include "region-events.h"
#include "util.h"

/* Region events against the previous census; a light census knows sizes
 * only, so beside one, private changes are not compared. */
static int census_events(struct census_last *l, struct strpool *paths, const struct census *c,
			 struct census_result *ret)
{
	struct region_snapshot *snap = NULL;
	size_t n = 0;
	int r;

	r = region_snapshot_take(c, paths, &snap, &n);
	if (r < 0)
		return r == -ENODATA ? 0 : r;
	if (l->snap) {
		uint64_t min_change = l->snap_light || c->light ? UINT64_MAX : RW_REGION_EVENT_MIN_CHANGE;
		r = region_events_diff(l->snap, l->n_snap, snap, n, min_change, &ret->events, &ret->n_events);
		if (r < 0) {
			free(snap);
			return r;
		}
	}
	free(l->snap);
	l->snap = snap;
	l->n_snap = n;
	l->snap_light = c->light;
	return 0;
}

/* Whether the last full census can stand for one now: the steady check
 * read the same, and what the census would take besides (its lightness,
 * the GPU memory) is the same. */
bool census_take_may_stand(const struct census_last *l, const struct census_subject *s, const struct steady_mark *m,
			   bool light)
{
	return census_read_same(m, &l->steady) && l->steady_light == light && l->steady_on_gpu == s->on_gpu &&
	       l->steady_vram == s->vram;
}

/* Whether the last full census can stand for one now with nothing read:
 * the change watch told no event of the process since its take before the
 * last check that read it (the mark is current), that read is younger
 * than o->check_every_ms, and what the census would take besides is the
 * same.  What no event tells (change-watch.h: a resident page of a shared
 * mapping made dirty, pages shared with a child that exited becoming
 * private, a mapped file renamed) waits for the next check that reads. */
static bool may_stand_unread(const struct census_last *l, const struct census_subject *s,
			     const struct census_take_options *o)
{
	return o->mappings == STEADY_MAPPINGS_STILL && l->steady_current && l->steady.source != STEADY_NONE &&
	       o->check_every_ms > 0 && o->now_ms - l->steady_read_ms < o->check_every_ms &&
	       l->steady_light == o->light && l->steady_on_gpu == s->on_gpu && l->steady_vram == s->vram;
}

/* l's steady check is mark now, its file mappings' starts files (taken). */
static void keep_mark(struct census_last *l, const struct steady_mark *mark, struct steady_files *files,
		      enum steady_mappings mappings, int64_t now_ms)
{
	l->steady = *mark;
	l->steady_read_ms = now_ms;
	/* a mark of the kept check (the GPU memory or the lightness moved)
	 * has the names at the starts already kept, and read no starts */
	if (!mark->has_names || files->n == mark->named) {
		census_read_files_done(&l->steady_files);
		l->steady_files = *files;
		*files = (struct steady_files){ 0 };
	}
	/* the watch's take came before the mark's read */
	l->steady_current = mappings != STEADY_MAPPINGS_UNKNOWN && mark->source != STEADY_NONE;
}

/* ret is a repeat of l's last full census, which cost the time since t0
 * and cpu0 and read bytes. */
static void repeat(const struct census_last *l, uint64_t t0, uint64_t cpu0, uint64_t bytes, struct census_result *ret)
{
	ret->meta.status = CENSUS_OK;
	ret->meta.light = l->steady_light;
	ret->meta.repeats_time = l->steady_census_time;
	ret->meta.time = daemon_clock_now_ms();
	ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
	ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
	ret->meta.bytes_read = (int64_t)bytes;
}

int census_take(struct census_last *l, const struct census_subject *s, const struct census_take_options *o,
		struct census_result *ret)
{
	uint64_t t0 = now_monotonic_us(), cpu0 = now_thread_cpu_us(), steady_bytes = 0;
	struct error err = { 0 };
	struct census *c = NULL;
	struct steady_mark mark = { .source = STEADY_NONE };
	_cleanup_(census_read_files_done) struct steady_files files = { 0 };
	int r;

	*ret = (struct census_result){
		.meta = { .time = o->now_ms, .trigger = o->trigger, .light = o->light, .wall_us = -1, .cpu_us = -1,
			  .bytes_read = -1 },
	};
	/* Read before the census, never after: a change between the two is
	 * then in the census and not in the mark, so the next check sees it
	 * and takes a full census; read after, the mark could hold a change
	 * the census missed, and later repeats would stand for the wrong
	 * content.  Any failure (the process exiting, a refusal) leaves the
	 * census itself to say what happened. */
	if (o->may_repeat && may_stand_unread(l, s, o)) {
		/* the mark stays current: nothing moved since it was read */
		repeat(l, t0, cpu0, 0, ret);
		return 0;
	}
	census_read_steady(l, s, o, &mark, &files, &steady_bytes);
	if (o->may_repeat && census_take_may_stand(l, s, &mark, o->light)) {
		/* read after the watch's take, and the same as what is kept */
		l->steady_current = o->mappings != STEADY_MAPPINGS_UNKNOWN;
		l->steady_read_ms = o->now_ms;
		repeat(l, t0, cpu0, steady_bytes, ret);
		return 0;
	}
	r = census_read(s, o, t0, &c, &err);
	if (r < 0) {
		ret->meta.status = r == -ENOENT || r == -ESRCH		? CENSUS_EXITED
				   : r == -EACCES || r == -EPERM	? CENSUS_DENIED
									: CENSUS_ERROR;
		/* the store keeps a census's reason as the scanner gave it, cut at
		 * sizeof(ret->message) - 1 bytes as it always was */
		snprintf(ret->message, sizeof(ret->message), "%.*s", (int)sizeof(ret->message) - 1,
			 error_message_or_strerror(&err, r));
		ret->meta.message = ret->message;
		ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
		ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
		return r == -ENOMEM ? r : 0;
	}

	ret->meta.status = CENSUS_OK;
	ret->meta.light = c->light;
	/* the Windows scanner walks no heap */
	ret->heap_read = o->heap && !o->light && c->platform == PLATFORM_LINUX;
	keep_mark(l, &mark, &files, o->mappings, o->now_ms);
	l->steady_light = c->light;
	l->steady_on_gpu = s->on_gpu;
	l->steady_vram = s->vram;
	l->steady_private = census_private(c);
	/* the row is at the time the census says it was taken (its JSON's
	 * taken_at), a moment after it was asked for: a client that has the
	 * census finds its row by that time.  The time is the daemon clock's,
	 * as every row's, so a wall clock set back never puts it before an
	 * earlier row (daemon-clock.h) */
	c->taken_at_ms = daemon_clock_now_ms();
	ret->meta.time = c->taken_at_ms;
	l->steady_census_time = c->taken_at_ms;
	r = census_events(l, s->paths, c, ret);
	if (r < 0) {
		l->steady.source = STEADY_NONE; /* this census is not stored */
		census_free(c);
		return r;
	}
	/* the snapshot holds what the next census needs; the store needs only
	 * the summaries */
	free(c->regions);
	c->regions = NULL;
	c->n_regions = 0;
	/* the cost is all the daemon spent on it: the read (in a thread of
	 * its own on Windows) and the comparison */
	ret->meta.wall_us = (int64_t)(now_monotonic_us() - t0);
	ret->meta.cpu_us = (int64_t)(now_thread_cpu_us() - cpu0 + c->reader_cpu_us);
	ret->meta.bytes_read = c->bytes_read + (int64_t)steady_bytes;
	ret->census = c;
	return 0;
}

bool census_take_may_repeat(const struct census_last *l, uint64_t dropped)
{
	return dropped == l->steady_dropped;
}

void census_take_queued(struct census_last *l, bool queued, uint64_t dropped)
{
	if (queued)
		l->steady_dropped = dropped;
	else
		l->steady.source = STEADY_NONE; /* nothing stored to repeat */
}

void census_take_done(struct census_last *l)
{
	census_read_files_done(&l->steady_files);
	free(l->snap);
	*l = (struct census_last){ 0 }; /* steady.source STEADY_NONE */
}
