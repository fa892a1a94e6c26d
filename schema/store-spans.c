/* Coalesced raw rows as retention meets them.  A coalesced row stands for
 * identical rows over [time, until] (store_put_sample); retention works on
 * rows by their time, so before a rollup a row whose span crosses the
 * boundary of a coarser bucket is cut into one row per bucket, and before
 * expiry a row that began before the cutoff but reaches past it keeps its
 * part from the cutoff on.  A row's samples are shared out as its rows
 * were: evenly over its span, so the parts add up to the whole; its other
 * counters (SAMPLE_COLUMNS) are the row's in every part, since only a
 * steady row is coalesced.
 *
 * Workload: a few rows per process at a time, those at the edge of what
 * retention takes; every other row has until = time and is left alone. */
#include <errno.h>

#include "store-internal.h"

/* The samples of a row over [time, until] that lie at or before t. */
static int64_t through(int64_t time, int64_t until, int64_t samples, int64_t t)
{
	if (t < time)
		return 0;
	if (t >= until)
		return samples;
	return (int64_t)((__int128)samples * (t - time + 1) / (until - time + 1));
}

static int64_t bucket_end(int64_t t, int64_t res)
{
	return (t / res + (t % res > 0)) * res;
}

/* One raw row with its values, as a span is cut. */
struct span {
	int64_t process_id, time, until;
	int64_t samples;            /* the row's: a long span may hold more than a row's type */
	struct store_sample values; /* every other counter */
};

/* Writes the part [time, until] of span x, with samples of its samples:
 * the same counters, since the row was steady over its whole span. */
static int put_part(struct store *s, const struct span *x, int64_t time, int64_t until, int64_t samples)
{
	static const char sql[] = "INSERT OR REPLACE INTO samples (process_id, resolution, time, until" SAMPLE_SQL_NAMES
				  ") VALUES (?1, 0, ?2, ?3" SAMPLE_SQL_PARAMS ")";
	sqlite3_stmt *st;
	int r, rc, i = 4;

	if (samples <= 0)
		return 0; /* no rows of the span fell there: nothing to stand for */
	r = store_stmt(s, STMT_SPAN_PART, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, x->process_id);
	rc |= sqlite3_bind_int64(st, 2, time);
	rc |= sqlite3_bind_int64(st, 3, until);
#define BIND(name, ...) rc |= store_bind_u64(st, i++, x->values.name);
	SAMPLE_COLUMNS(BIND)
#undef BIND
	rc |= sqlite3_bind_int64(st, 4 + SAMPLE_COLUMN_samples, samples);
	return store_bound_run(s, st, rc, "cutting a coalesced row");
}

static int drop(struct store *s, const struct span *x)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_SPAN_DROP, "DELETE FROM samples WHERE process_id = ?1 AND resolution = 0 AND time = ?2",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, x->process_id);
	rc |= sqlite3_bind_int64(st, 2, x->time);
	return store_bound_run(s, st, rc, "cutting a coalesced row");
}

/* The first raw row with a time at or before upto whose span goes past
 * end(time) (res > 0: the end of its bucket of res; res 0: upto itself).
 * Returns 1 with *x, 0 when there is none, or a negative errno. */
static int next_span(struct store *s, int64_t upto, int64_t res, struct span *x)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_SPAN_FIND,
		       "SELECT process_id, time, until" SAMPLE_SQL_NAMES " FROM samples"
		       " WHERE resolution = 0 AND time <= ?1 AND until > time"
		       "  AND until > CASE WHEN ?2 > 0 THEN (time + ?2 - 1) / ?2 * ?2 ELSE ?1 END"
		       " ORDER BY time LIMIT 1",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, upto);
	rc |= sqlite3_bind_int64(st, 2, res);
	r = store_bound(s, st, rc, "finding coalesced rows");
	if (r < 0)
		return r;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*x = (struct span){
			.process_id = sqlite3_column_int64(st, 0),
			.time = sqlite3_column_int64(st, 1),
			.until = sqlite3_column_int64(st, 2),
			.samples = sqlite3_column_int64(st, 3 + SAMPLE_COLUMN_samples),
		};
#define LOAD(name, ...) x->values.name = sqlite3_column_int64(st, 3 + SAMPLE_COLUMN_##name);
		SAMPLE_COLUMNS(LOAD)
#undef LOAD
		sqlite3_reset(st);
		return 1;
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	return store_fail(s, rc, "finding coalesced rows");
}

int store_spans_cut(struct store *s, int64_t upto, int64_t res)
{
	const int64_t last_end = bucket_end(upto, res);
	struct span x;
	int r;

	while ((r = next_span(s, upto, res, &x)) > 0) {
		int64_t t = x.time;

		r = drop(s, &x);
		/* one part per bucket up to upto's, then the rest as one row */
		while (r >= 0 && t <= x.until) {
			int64_t end = bucket_end(t, res), until = x.until < end ? x.until : end;
			if (end > last_end)
				until = x.until;
			r = put_part(s, &x, t, until,
				     through(x.time, x.until, x.samples, until) -
					     through(x.time, x.until, x.samples, t - 1));
			t = until + 1;
		}
		if (r < 0)
			return r;
	}
	return r;
}

int store_spans_trim(struct store *s, int64_t cutoff)
{
	struct span x;
	int r;

	while ((r = next_span(s, cutoff - 1, 0, &x)) > 0) {
		int64_t kept = x.samples - through(x.time, x.until, x.samples, cutoff - 1);

		r = drop(s, &x);
		if (r >= 0)
			r = put_part(s, &x, cutoff, x.until, kept > 0 ? kept : 1);
		if (r < 0)
			return r;
	}
	return r;
}
