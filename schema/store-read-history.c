/* The "history" answer: the fast tier of the selected instances over a
 * window (merged across resolutions, optionally resampled into buckets of
 * step_ms), with the censuses and marks of the same stretch of time.
 *
 * Paging: at most limit sample rows (or buckets) a page, and "next" a
 * cursor naming the last one, so the following page starts right after it
 * whatever rows share its time.  A page carries the censuses and marks of
 * the time it covers: from just after the previous page's last row (the
 * window's start for the first page) to its own last row (the window's end
 * for the last page), so each one comes exactly once over the pages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "limits.h"
#include "store-read-internal.h"

/* Cursor tags: a page of rows as stored, a page of buckets. */
#define CURSOR_ROWS 'h'
#define CURSOR_BUCKETS 's'

struct page {
	struct store_reader *r;
	const struct store_history_query *q;
	unsigned limit;
	json_t *samples;
	unsigned emitted;
	bool more;                   /* there are rows after the last one given */
	struct read_sample_key last; /* of the last row or bucket given */
	bool have_cursor;
	struct read_sample_key cursor; /* where this page starts (after it) */
};

/* A sample row as the answer gives it: its place, then each counter of
 * SAMPLE_COLUMNS under its key, then its span and GPU memory. */
static json_t *sample_json(const struct read_sample *x)
{
	json_t *o = json_object();
	int e;

	if (!o)
		return NULL;
	e = read_set(o, "process_id", json_integer(x->process_id));
	e |= read_set(o, "time", json_integer(x->time));
	e |= read_set(o, "resolution", json_integer(x->resolution));
#define SET_(name, ctype, sqltype, figure, how, unit, key, ...) e |= read_set(o, key, json_integer(x->name));
	SAMPLE_COLUMNS(SET_)
#undef SET_
	e |= read_set(o, "until", json_integer(x->until));
	e |= read_set(o, "vram", json_field_int_or_null(x->vram_last));
	e |= read_set(o, "vram_max", json_field_int_or_null(x->vram_max));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Gives x as the page's next row, or notes that the page is full. */
static int give(struct page *pg, const struct read_sample *x)
{
	if (pg->emitted == pg->limit) {
		pg->more = true;
		return 0;
	}
	if (json_array_append_new(pg->samples, sample_json(x)) < 0)
		return -ENOMEM;
	pg->emitted++;
	pg->last = (struct read_sample_key){ .time = x->time, .process_id = x->process_id,
					     .resolution = x->resolution, .stored = x->stored };
	return 0;
}

/* ------------------------------------------------------------ rows as stored */

static int page_rows(struct page *pg, const struct read_process *p, size_t n)
{
	struct read_samples w;
	struct read_sample x;
	int e;

	/* one row more than the page, to know whether another page follows */
	e = read_samples_start(pg->r, p, n, pg->q->since, pg->q->until, pg->have_cursor ? &pg->cursor : NULL,
			       pg->limit + 1, &w);
	if (e < 0)
		return e;
	while (e >= 0 && !pg->more && (e = read_samples_next(&w, &x)) > 0)
		e = give(pg, &x);
	read_samples_done(&w);
	return e < 0 ? e : 0;
}

/* ------------------------------------------------------------ buckets */

/* One instance's bucket being filled. */
struct bucket {
	int64_t process_id;
	bool used;
	struct read_sample acc;
	/* a coalesced row whose span goes on past the bucket: it stands for
	 * rows in the buckets after, up to span.until */
	bool spanning;
	struct read_sample span;
};

/* The end of the step-wide bucket holding t: buckets end at multiples of
 * step, as rollups' rows do, and hold (end - step, end]. */
static int64_t bucket_end(int64_t t, int64_t step)
{
	/* C division truncates toward zero: that is the ceiling below zero */
	return (t / step + (t % step > 0)) * step;
}

static int compare_bucket(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;
	return x->process_id < y->process_id ? -1 : x->process_id > y->process_id;
}

/* Each counter of x into a's, by its how (sample-row.h). */
SAMPLE_DEFINE_MERGE(merge_counters, struct read_sample)

static void merge(struct bucket *b, const struct read_sample *x, int64_t end, int64_t step)
{
	struct read_sample *a = &b->acc;

	if (!b->used) {
		*a = *x;
		a->time = end;
		a->resolution = x->resolution > step ? x->resolution : step;
		b->used = true;
		return;
	}
	/* rows come in time order: the later one's last values win, and
	 * samples add up */
	merge_counters(a, x);
	/* GPU memory: the later row says what the process held last (-1:
	 * none), the largest known figure stays */
	a->vram_last = x->vram_last;
	a->vram_max = x->vram_max > a->vram_max ? x->vram_max : a->vram_max;
	if (x->resolution > a->resolution)
		a->resolution = x->resolution;
}

/* Gives the filled buckets, in process order, skipping those the cursor
 * says an earlier page gave. */
static int flush(struct page *pg, struct bucket *slots, size_t n)
{
	for (size_t i = 0; i < n && !pg->more; i++) {
		struct bucket *b = &slots[i];
		int e;

		if (!b->used)
			continue;
		b->used = false;
		if (pg->have_cursor &&
		    (b->acc.time < pg->cursor.time ||
		     (b->acc.time == pg->cursor.time && b->process_id <= pg->cursor.process_id)))
			continue;
		e = give(pg, &b->acc);
		if (e < 0)
			return e;
	}
	return 0;
}

/* The samples of coalesced row x at or before t: its rows spread evenly
 * over [stored, until], all of them by until. */
static int64_t span_through(const struct read_sample *x, int64_t t)
{
	if (t < x->stored)
		return 0;
	if (t >= x->until)
		return x->samples;
	return (int64_t)((__int128)x->samples * (t - x->stored + 1) / (x->until - x->stored + 1));
}

/* The part of coalesced row x in the bucket that ends at end: the same
 * values (they held over the whole span), its share of the samples. */
static struct read_sample span_piece(const struct read_sample *x, int64_t end, int64_t step)
{
	struct read_sample y = *x;

	y.samples = span_through(x, end) - span_through(x, end - step);
	return y;
}

/* Gives the buckets up to the one that ends at to (left open, for the
 * row that reaches it): each one at *current, and those after it that
 * only coalesced rows reach into. */
static int advance(struct page *pg, struct bucket *slots, size_t n, int64_t *current, int64_t to, int64_t step)
{
	while (*current < to) {
		int64_t next = *current + step;
		bool any = false;
		int e = flush(pg, slots, n);

		if (e < 0 || pg->more)
			return e;
		for (size_t i = 0; i < n; i++) {
			struct bucket *b = &slots[i];
			if (!b->spanning)
				continue;
			if (b->span.until > *current) {
				struct read_sample y = span_piece(&b->span, next, step);
				merge(b, &y, next, step);
				any = true;
			}
			b->spanning = b->span.until > next;
		}
		*current = any ? next : to;
	}
	return 0;
}

static int page_buckets(struct page *pg, const struct read_process *p, size_t n)
{
	const int64_t step = pg->q->step_ms;
	struct bucket *slots = calloc(n, sizeof(*slots));
	struct read_samples w = { 0 };
	struct read_sample x;
	int64_t lo = pg->q->since, current = 0;
	bool have_current = false;
	int e;

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		slots[i].process_id = p[i].id;
	qsort(slots, n, sizeof(*slots), compare_bucket);

	/* the cursor's bucket may still have instances to give: read from
	 * its start */
	if (pg->have_cursor && pg->cursor.time - step + 1 > lo)
		lo = pg->cursor.time - step + 1;
	e = read_samples_start(pg->r, p, n, lo, pg->q->until, NULL, 0, &w);
	while (e >= 0 && !pg->more && (e = read_samples_next(&w, &x)) > 0) {
		/* a coalesced row may begin before the window: its values held
		 * at the window's start */
		int64_t end = bucket_end(x.time > lo ? x.time : lo, step);
		struct bucket key = { .process_id = x.process_id }, *b;

		if (have_current && end != current) {
			e = advance(pg, slots, n, &current, end, step);
			if (e < 0 || pg->more)
				break;
		}
		current = end;
		have_current = true;
		b = bsearch(&key, slots, n, sizeof(*slots), compare_bucket);
		if (!b)
			continue;
		if (x.until > x.time) {
			if (x.until > pg->q->until)
				x.until = pg->q->until;
			b->span = x;
			b->spanning = x.until > end;
			x = span_piece(&b->span, end, step);
		}
		merge(b, &x, end, step);
	}
	if (e >= 0 && !pg->more && have_current)
		e = advance(pg, slots, n, &current, READ_TIME_MAX, step);
	if (e >= 0 && !pg->more)
		e = flush(pg, slots, n);
	read_samples_done(&w);
	free(slots);
	return e < 0 ? e : 0;
}

/* ------------------------------------------------------------ the answer */

/* The class keys as a JSON array in text, each checked.  *ret NULL: all. */
static int class_list(struct store_reader *r, const struct store_history_query *q, char **ret)
{
	json_t *a;

	*ret = NULL;
	if (!q->classes || q->n_classes == 0)
		return 0;
	a = json_array();
	for (size_t i = 0; a && i < q->n_classes; i++) {
		if (!q->classes[i] || class_from_key(q->classes[i]) < 0) {
			json_decref(a);
			return read_failf(r, -EINVAL, "classes: \"%s\" is not a class",
					  q->classes[i] ? q->classes[i] : "(null)");
		}
		if (json_array_append_new(a, json_string(q->classes[i])) < 0) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	*ret = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return *ret ? 0 : -ENOMEM;
}

/* Checks the query and reads its cursor into pg.  A page of rows ends at
 * a row's key, "h:TIME:PROCESS_ID:RESOLUTION:STORED"; a page of buckets at
 * a bucket's, "s:TIME:PROCESS_ID:STEP" (the step checks that the next page
 * asks for the same). */
static int check_query(struct store_reader *r, const struct store_history_query *q, struct page *pg)
{
	int64_t v[4];
	int e;

	if (q->since > q->until)
		return read_failf(r, -EINVAL, "since (%lld) is after until (%lld)", (long long)q->since,
				  (long long)q->until);
	if (q->step_ms < 0 || q->step_ms > READ_TIME_MAX)
		return read_failf(r, -EINVAL, "step_ms: %lld is not a step", (long long)q->step_ms);
	pg->limit = q->limit == 0 ? RW_ANSWER_ROWS_DEFAULT : q->limit > RW_ANSWER_ROWS_MAX ? RW_ANSWER_ROWS_MAX : q->limit;
	if (!q->cursor)
		return 0;
	if (q->step_ms > 0) {
		e = read_cursor_parse(q->cursor, CURSOR_BUCKETS, v, 3);
		if (e >= 0 && v[2] != q->step_ms)
			e = -EINVAL;
		pg->cursor = (struct read_sample_key){ .time = v[0], .process_id = v[1] };
	} else {
		e = read_cursor_parse(q->cursor, CURSOR_ROWS, v, 4);
		pg->cursor = (struct read_sample_key){ .time = v[0], .process_id = v[1], .resolution = v[2],
						       .stored = v[3] };
	}
	if (e < 0)
		return read_failf(r, -EINVAL, "cursor: \"%s\" is not the next page of this query", q->cursor);
	/* a time no row has: no arithmetic on it may overflow */
	pg->cursor.time = read_time_clamp(pg->cursor.time);
	pg->have_cursor = true;
	return 0;
}

static json_t *next_cursor(const struct store_history_query *q, const struct page *pg)
{
	if (q->step_ms > 0) {
		int64_t v[3] = { pg->last.time, pg->last.process_id, q->step_ms };
		return read_cursor_json(CURSOR_BUCKETS, v, 3);
	}
	int64_t v[4] = { pg->last.time, pg->last.process_id, pg->last.resolution, pg->last.stored };
	return read_cursor_json(CURSOR_ROWS, v, 4);
}

static int history(struct store_reader *r, const struct store_history_query *q, json_t **ret)
{
	struct page pg = { .r = r, .q = q };
	struct read_process *p = NULL;
	_cleanup_free_ char *classes = NULL;
	json_t *answer = NULL, *instances = NULL, *cs = NULL, *ms = NULL, *next = NULL;
	size_t n = 0;
	int e;

	e = check_query(r, q, &pg);
	if (e >= 0)
		e = class_list(r, q, &classes);
	if (e >= 0)
		e = read_select(r, &q->sel, false, &p, &n);
	if (e < 0)
		return e;
	instances = json_array();
	pg.samples = json_array();
	if (!instances || !pg.samples)
		e = -ENOMEM;
	for (size_t i = 0; e >= 0 && i < n; i++)
		if (json_array_append_new(instances, read_instance_json(&p[i])) < 0)
			e = -ENOMEM;
	if (e >= 0)
		e = q->step_ms > 0 ? page_buckets(&pg, p, n) : page_rows(&pg, p, n);

	/* the time this page covers, for its censuses and marks */
	int64_t lo = pg.have_cursor ? pg.cursor.time + 1 : q->since;
	int64_t hi = pg.more && pg.last.time < q->until ? pg.last.time : q->until;
	if (e >= 0)
		e = read_window(r, p, n, classes, read_time_clamp(lo), read_time_clamp(hi), &cs, &ms);
	read_processes_free(p, n);
	if (e >= 0 && pg.more && !(next = next_cursor(q, &pg)))
		e = -ENOMEM;
	if (e >= 0) {
		answer = json_object();
		e = answer ? 0 : -ENOMEM;
		e |= read_set(answer, "instances", json_incref(instances));
		e |= read_set(answer, "samples", json_incref(pg.samples));
		e |= read_set(answer, "censuses", json_incref(cs));
		e |= read_set(answer, "marks", json_incref(ms));
		e |= read_set(answer, "next", next ? json_incref(next) : json_null());
		e |= read_set(answer, "filtered_to_uid",
			      q->sel.only_uid >= 0 ? json_integer(q->sel.only_uid) : json_null());
	}
	json_decref(instances);
	json_decref(pg.samples);
	json_decref(cs);
	json_decref(ms);
	json_decref(next);
	if (e < 0) {
		json_decref(answer);
		return e;
	}
	*ret = answer;
	return 0;
}

int store_read_history(struct store_reader *r, const struct store_history_query *q, json_t **ret, struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = history(r, q, ret);
	return read_end(r, e, err);
}
