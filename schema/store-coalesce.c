/* Coalescing the fast tier's raw rows.  A process that holds still gives
 * the same row every StoreInterval: a row that is steady (every counter
 * of a figure equal to its last value: the figure did not move inside the
 * interval) and the same as the process's last raw row, itself steady,
 * extends that row (its until moves to the new row's time, its samples
 * add up) instead of adding one.  Every moment of the span then had the
 * same values, so min, max and last over any part of it are still exact.
 *
 * The check that two rows may coalesce compares every counter of
 * SAMPLE_COLUMNS but samples (sample-row.h): a counter added there is
 * compared without a change here.
 *
 * The last raw row of each process (a run) is kept in memory, so an
 * identical row costs one UPDATE by the primary key and no read.  Runs
 * start empty when the store opens: a restart starts new rows.  Inserting
 * a row (and merging one of the same time) is store-put.c's. */
#include <errno.h>

#include "store-coalesce.h"
#include "store-internal.h"

SAMPLE_DEFINE_STEADY(sample_steady, struct store_sample)
SAMPLE_DEFINE_SAME(sample_same, struct store_sample)

void store_coalesce_forget(struct store *s, int64_t process_id)
{
	hashtab_remove(&s->runs, (uint64_t)process_id, NULL);
}

/* Extends run u to x: 1 when its row was there and now covers x, 0 when
 * it was not (rolled up, expired, or a rolled-back transaction's), or a
 * negative errno. */
static int extend_run(struct store *s, const struct store_run *u, const struct store_sample *x)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_SAMPLE_EXTEND,
		       "UPDATE samples SET until = ?3, samples = samples + ?4"
		       " WHERE process_id = ?1 AND resolution = 0 AND time = ?2 AND until < ?3",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, u->process_id);
	rc |= sqlite3_bind_int64(st, 2, u->time);
	rc |= sqlite3_bind_int64(st, 3, x->time);
	rc |= sqlite3_bind_int64(st, 4, x->samples);
	r = store_bound_run(s, st, rc, "sample");
	if (r < 0)
		return r;
	return sqlite3_changes(s->db) > 0;
}

int store_put_sample(struct store *s, int64_t process_id, const struct store_sample *x)
{
	struct store_run *u;
	bool steady, is_new;
	int r;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (x->samples == 0)
		return store_failf(s, -EINVAL, "sample: a row sums up at least one sample");
	if (!s->coalesce)
		return store_insert_sample(s, process_id, x);

	/* Only a steady row joins a steady one.  A row at or before the
	 * run's end (a clock that stepped back) is never folded into it. */
	steady = sample_steady(x);
	u = hashtab_get(&s->runs, (uint64_t)process_id);
	if (u && !u->apart && steady && u->steady && x->time > u->until && sample_same(x, &u->values)) {
		r = extend_run(s, u, x);
		if (r < 0)
			return r;
		if (r > 0) {
			u->until_before = u->until;
			u->until = x->time;
			u->samples = x->samples;
			return 0;
		}
	}
	r = store_insert_sample(s, process_id, x);
	if (r < 0)
		return r;
	u = hashtab_upsert(&s->runs, (uint64_t)process_id, &is_new);
	if (!u)
		return 0; /* out of memory: the next row starts a new one */
	*u = (struct store_run){
		.process_id = process_id,
		.time = x->time,
		.until = x->time,
		.until_before = x->time,
		.samples = x->samples,
		.values = *x,
		.apart = !is_new && u->apart,
		.steady = steady,
	};
	return 0;
}

int store_sample_apart(struct store *s, int64_t process_id, int64_t time)
{
	struct store_run *u = hashtab_get(&s->runs, (uint64_t)process_id);
	struct store_sample x;
	sqlite3_stmt *st;
	int r, rc;

	if (!u)
		return 0;
	u->apart = true;
	if (u->until != time || u->time == time)
		return 0; /* the row of that time is a row of its own */
	r = store_stmt(s, STMT_SAMPLE_UNEXTEND,
		       "UPDATE samples SET until = ?3, samples = samples - ?4"
		       " WHERE process_id = ?1 AND resolution = 0 AND time = ?2",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, u->time);
	rc |= sqlite3_bind_int64(st, 3, u->until_before);
	rc |= sqlite3_bind_int64(st, 4, u->samples);
	r = store_bound_run(s, st, rc, "sample");
	if (r < 0)
		return r;
	/* the run is steady: its values held at every moment of it, the
	 * last row's included */
	x = u->values;
	x.time = time;
	x.samples = u->samples;
	r = store_insert_sample(s, process_id, &x);
	if (r < 0)
		return r;
	u->time = u->until = u->until_before = time;
	return 0;
}
