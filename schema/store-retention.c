/* Retention: what keeps the database as large as the user allows and no
 * larger.  Each step is one transaction of bounded work, so the daemon can
 * run steps between its sampling cycles without holding the write lock for
 * long:
 *   1. rows older than Retention go (samples, censuses with their classes,
 *      regions, files, GPU devices and region events, marks, system rows,
 *      each GPU's rows and the GPU memory rows of processes, OOM kills,
 *      memory cgroups' rows), then the processes and cgroups that left
 *      nothing behind (their GPU memory rows with them);
 *   2. raw fast-tier rows older than raw_for become per-minute rows, and
 *      minute rows older than minutes_for per-hour rows; the GPU memory
 *      rows and the cgroups' rows of the same times go along, so the
 *      tables keep the same rows' times and readers find them together;
 *   3. above MaxDatabaseSize, the oldest rows of every kind go, oldest first
 *      across tables, so what remains is the most recent stretch of time;
 *   4. paths nothing refers to any more go;
 *   5. an incremental vacuum gives free pages back to the file system.
 * The devices themselves (gpus) stay: a few rows per host, which the
 * device rows of every age refer to.
 * Expiry runs before the rollups so no work is spent rolling up rows about
 * to go, and so a database at its ceiling frees pages before it needs any. */
#include <errno.h>
#include <stdio.h>

#include "store-internal.h"

#define RESOLUTION_RAW 0
#define RESOLUTION_MINUTE 60000
#define RESOLUTION_HOUR 3600000

#define RETENTION_BATCH_DEFAULT 1000

/* Deleting can take pages: a b-tree cell removed from an interior page is
 * replaced by one from a leaf, which may not fit, and the rebalancing that
 * follows may split the page.  So a step may go this far above the
 * max_page_count ceiling, to free space in a database that reached it. */
#define RETENTION_HEADROOM_PAGES(batch) (64 + (batch) / 16)

struct step {
	struct store *s;
	int64_t batch;
	bool more;       /* some part had more work than its batch */
	int64_t deleted; /* rows deleted by expiry in this step */
};

/* Runs a DELETE bound to (?1 cutoff, ?2 batch[, ?3 resolution]) and counts
 * what it deleted; a full batch means there may be more. */
static int delete_batch(struct step *x, enum store_stmt id, const char *sql, int64_t cutoff, int64_t resolution,
			const char *what)
{
	sqlite3_stmt *st;
	int r, rc, n;

	r = store_stmt(x->s, id, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, cutoff);
	rc |= sqlite3_bind_int64(st, 2, x->batch);
	if (sqlite3_bind_parameter_count(st) >= 3)
		rc |= sqlite3_bind_int64(st, 3, resolution);
	r = store_bound_run(x->s, st, rc, what);
	if (r < 0)
		return r;
	/* direct deletes only: rows removed by ON DELETE CASCADE are not counted */
	n = sqlite3_changes(x->s->db);
	x->deleted += n;
	if (n >= x->batch)
		x->more = true;
	return 0;
}

/* What expiry deletes, in this order (marks before processes, so a process
 * whose last rows go in this step can go in the same step).  A statement
 * "per resolution" runs once for each of raw, minute and hour rows, so each
 * walks its table's time index in order. */
static const struct expiry {
	enum store_stmt id;
	bool per_resolution;
	const char *what;
	const char *sql; /* bound to ?1 cutoff, ?2 batch[, ?3 resolution] */
} expiries[] = {
	{ STMT_EXPIRE_CENSUSES, false, "expiring censuses",
	  "DELETE FROM censuses WHERE id IN"
	  " (SELECT id FROM censuses WHERE time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_SAMPLES, true, "expiring samples",
	  "DELETE FROM samples WHERE (process_id, resolution, time) IN"
	  " (SELECT process_id, resolution, time FROM samples"
	  "  WHERE resolution = ?3 AND time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_SYSTEM, false, "expiring system rows",
	  "DELETE FROM system WHERE time IN"
	  " (SELECT time FROM system WHERE time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_GPU_SAMPLES, true, "expiring GPU memory rows",
	  "DELETE FROM gpu_samples WHERE (process_id, resolution, time, gpu_id) IN"
	  " (SELECT process_id, resolution, time, gpu_id FROM gpu_samples"
	  "  WHERE resolution = ?3 AND time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_GPU_DEVICES, false, "expiring GPU device rows",
	  "DELETE FROM gpu_devices WHERE (gpu_id, time) IN"
	  " (SELECT gpu_id, time FROM gpu_devices WHERE time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_CGROUP_SAMPLES, true, "expiring cgroup rows",
	  "DELETE FROM cgroup_samples WHERE (cgroup_id, resolution, time) IN"
	  " (SELECT cgroup_id, resolution, time FROM cgroup_samples"
	  "  WHERE resolution = ?3 AND time < ?1 ORDER BY time LIMIT ?2)" },
	{ STMT_EXPIRE_OOM_KILLS, false, "expiring OOM kills",
	  "DELETE FROM oom_kills WHERE id IN"
	  " (SELECT id FROM oom_kills WHERE time < ?1 ORDER BY time LIMIT ?2)" },
	/* a group last seen before the cutoff with no rows left */
	{ STMT_EXPIRE_CGROUPS, false, "expiring cgroups",
	  "DELETE FROM cgroups WHERE id IN"
	  " (SELECT id FROM cgroups g WHERE g.last_seen < ?1"
	  "   AND NOT EXISTS (SELECT 1 FROM cgroup_samples x WHERE x.cgroup_id = g.id)"
	  "  LIMIT ?2)" },
	{ STMT_EXPIRE_MARKS, false, "expiring marks",
	  "DELETE FROM marks WHERE id IN"
	  " (SELECT id FROM marks WHERE time < ?1 ORDER BY time LIMIT ?2)" },
	/* A process the daemon never saw exit (it was stopped, the machine
	 * rebooted) goes by its last sight. */
	{ STMT_EXPIRE_PROCESSES, false, "expiring processes",
	  "DELETE FROM processes WHERE id IN"
	  " (SELECT id FROM processes p"
	  "  WHERE max(p.last_seen, coalesce(p.exited_at, 0)) < ?1"
	  "   AND NOT EXISTS (SELECT 1 FROM samples x WHERE x.process_id = p.id)"
	  "   AND NOT EXISTS (SELECT 1 FROM censuses x WHERE x.process_id = p.id)"
	  "   AND NOT EXISTS (SELECT 1 FROM marks x WHERE x.process_id = p.id)"
	  "   AND NOT EXISTS (SELECT 1 FROM region_events x WHERE x.process_id = p.id)"
	  "  LIMIT ?2)" },
};

/* Deletes rows with a time before cutoff, at most a batch per table and
 * statement.  A census takes its classes, regions, files and region events
 * with it (ON DELETE CASCADE); a process goes once it was last seen before
 * cutoff and has no rows left. */
static int expire(struct step *x, int64_t cutoff)
{
	static const int64_t resolutions[] = { RESOLUTION_RAW, RESOLUTION_MINUTE, RESOLUTION_HOUR };
	/* a coalesced row that reaches the cutoff keeps its part after it */
	int r = store_spans_trim(x->s, cutoff);

	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(expiries); i++) {
		const struct expiry *e = &expiries[i];
		size_t runs = e->per_resolution ? ELEMENTSOF(resolutions) : 1;

		for (size_t k = 0; k < runs; k++) {
			r = delete_batch(x, e->id, e->sql, cutoff, e->per_resolution ? resolutions[k] : 0, e->what);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* The GPU memory rows of resolution from up to upto, rolled up into rows of
 * resolution to as rollup does the samples of the same times (same
 * buckets, same bound): a bucket's row holds the largest figure and the
 * last one of the latest row, per process and device. */
static int rollup_gpu(struct step *x, int64_t from, int64_t to, int64_t upto)
{
	static const char sql[] =
		"INSERT INTO gpu_samples (process_id, resolution, time, gpu_id, used_max, used_last)"
		" SELECT g.process_id, ?2, g.bucket, g.gpu_id, g.used_max, l.used_last"
		" FROM (SELECT process_id, gpu_id, (time + ?2 - 1) / ?2 * ?2 AS bucket, max(time) AS last_time,"
		"              max(used_max) AS used_max"
		"       FROM gpu_samples WHERE resolution = ?1 AND time <= ?3"
		"       GROUP BY process_id, gpu_id, bucket) g"
		" JOIN gpu_samples l ON l.process_id = g.process_id AND l.resolution = ?1 AND l.time = g.last_time"
		"  AND l.gpu_id = g.gpu_id"
		" WHERE true"
		" ON CONFLICT (process_id, resolution, time, gpu_id) DO UPDATE SET"
		"  used_max = max(used_max, excluded.used_max),"
		"  used_last = excluded.used_last";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(x->s, STMT_GPU_ROLLUP, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, to);
	rc |= sqlite3_bind_int64(st, 3, upto);
	r = store_bound_run(x->s, st, rc, "rolling up GPU memory");
	if (r < 0)
		return r;

	r = store_stmt(x->s, STMT_GPU_ROLLUP_DELETE, "DELETE FROM gpu_samples WHERE resolution = ?1 AND time <= ?2",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, upto);
	return store_bound_run(x->s, st, rc, "rolling up GPU memory");
}

/* The cgroups' rows of resolution from up to upto, rolled up into rows
 * of resolution to as rollup does the samples of the same times: a
 * bucket's row holds the largest usage, and every other figure of its
 * latest row (the counters only grow, the limits are as last set). */
static int rollup_cgroups(struct step *x, int64_t from, int64_t to, int64_t upto)
{
	static const char sql[] =
		"INSERT INTO cgroup_samples (cgroup_id, resolution, time, usage, usage_max, limit_applies, limit_own,"
		"  high, swap, anon, file, kernel, shmem, sock, oom, oom_kill, events_high, events_max, processes,"
		"  processes_private, processes_resident)"
		" SELECT g.cgroup_id, ?2, g.bucket, l.usage, g.usage_max, l.limit_applies, l.limit_own, l.high, l.swap,"
		"  l.anon, l.file, l.kernel, l.shmem, l.sock, l.oom, l.oom_kill, l.events_high, l.events_max,"
		"  l.processes, l.processes_private, l.processes_resident"
		" FROM (SELECT cgroup_id, (time + ?2 - 1) / ?2 * ?2 AS bucket, max(time) AS last_time,"
		"              max(usage_max) AS usage_max"
		"       FROM cgroup_samples WHERE resolution = ?1 AND time <= ?3"
		"       GROUP BY cgroup_id, bucket) g"
		" JOIN cgroup_samples l ON l.cgroup_id = g.cgroup_id AND l.resolution = ?1 AND l.time = g.last_time"
		" WHERE true"
		" ON CONFLICT (cgroup_id, resolution, time) DO UPDATE SET"
		"  usage = excluded.usage, usage_max = max(usage_max, excluded.usage_max),"
		"  limit_applies = excluded.limit_applies, limit_own = excluded.limit_own, high = excluded.high,"
		"  swap = excluded.swap, anon = excluded.anon, file = excluded.file, kernel = excluded.kernel,"
		"  shmem = excluded.shmem, sock = excluded.sock, oom = excluded.oom, oom_kill = excluded.oom_kill,"
		"  events_high = excluded.events_high, events_max = excluded.events_max,"
		"  processes = excluded.processes, processes_private = excluded.processes_private,"
		"  processes_resident = excluded.processes_resident";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(x->s, STMT_CGROUP_ROLLUP, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, to);
	rc |= sqlite3_bind_int64(st, 3, upto);
	r = store_bound_run(x->s, st, rc, "rolling up cgroup rows");
	if (r < 0)
		return r;

	r = store_stmt(x->s, STMT_CGROUP_ROLLUP_DELETE,
		       "DELETE FROM cgroup_samples WHERE resolution = ?1 AND time <= ?2", &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, upto);
	return store_bound_run(x->s, st, rc, "rolling up cgroup rows");
}

/* A bucket's value of each counter (sample-row.h): the min, max or sum
 * over the bucket's rows (g), or the value of its latest row (l). */
#define ROLLUP_VALUE_MIN(n) ", g." #n
#define ROLLUP_VALUE_MAX ROLLUP_VALUE_MIN
#define ROLLUP_VALUE_SUM ROLLUP_VALUE_MIN
#define ROLLUP_VALUE_LAST(n) ", l." #n
#define ROLLUP_VALUE(name, ctype, sqltype, figure, how, ...) ROLLUP_VALUE_##how(name)
#define ROLLUP_AGGREGATE_MIN(n) ", min(" #n ") AS " #n
#define ROLLUP_AGGREGATE_MAX(n) ", max(" #n ") AS " #n
#define ROLLUP_AGGREGATE_SUM(n) ", sum(" #n ") AS " #n
#define ROLLUP_AGGREGATE_LAST(n)
#define ROLLUP_AGGREGATE(name, ctype, sqltype, figure, how, ...) ROLLUP_AGGREGATE_##how(name)

/* Rolls the rows of resolution from older than cutoff up into rows of
 * resolution to (also the bucket's width), oldest first, a batch at a time.
 *
 * A bucket's row is at the end of its bucket and holds the min of the mins,
 * the max of the maxes, the sum of the sample counts, and the last values
 * of the latest row in it: each counter by its how (sample-row.h).  A
 * bucket already rolled up in part (a batch ended inside it, or the cutoff
 * did) merges with what comes later: its last values give way to the
 * later rows', which is right because rows are rolled up in time order. */
static int rollup(struct step *x, int64_t from, int64_t to, int64_t cutoff)
{
	static const char sql[] =
		"INSERT INTO samples (process_id, resolution, time, until" SAMPLE_SQL_NAMES ")"
		" SELECT g.process_id, ?2, g.bucket, g.bucket" SAMPLE_COLUMNS(ROLLUP_VALUE)
		" FROM (SELECT process_id, (time + ?2 - 1) / ?2 * ?2 AS bucket, max(time) AS last_time"
		SAMPLE_COLUMNS(ROLLUP_AGGREGATE)
		"       FROM samples WHERE resolution = ?1 AND time <= ?3"
		"       GROUP BY process_id, bucket) g"
		" JOIN samples l ON l.process_id = g.process_id AND l.resolution = ?1 AND l.time = g.last_time"
		" WHERE true" /* an upsert after a join needs it (SQLite's parser) */
		" ON CONFLICT (process_id, resolution, time) DO UPDATE SET until = until" SAMPLE_SQL_MERGE;
	sqlite3_stmt *st;
	int64_t upto;
	int r, rc;

	/* The batch ends at the time of its last row; rows sharing that time
	 * (every process's row of one cycle) go along, so a step always
	 * progresses whatever the batch. */
	r = store_stmt(x->s, STMT_ROLLUP_BOUNDARY,
		       "SELECT time FROM samples WHERE resolution = ?1 AND time < ?2 ORDER BY time LIMIT 1 OFFSET ?3",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, cutoff);
	rc |= sqlite3_bind_int64(st, 3, x->batch - 1);
	r = store_bound(x->s, st, rc, "rolling up");
	if (r < 0)
		return r;
	r = store_stmt_int(x->s, st, "rolling up", &upto);
	if (r < 0)
		return r;
	if (r > 0)
		x->more = true;
	else
		upto = cutoff - 1;
	if (from == RESOLUTION_RAW) {
		r = store_spans_cut(x->s, upto, to);
		if (r < 0)
			return r;
	}

	r = store_stmt(x->s, STMT_ROLLUP, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, to);
	rc |= sqlite3_bind_int64(st, 3, upto);
	r = store_bound_run(x->s, st, rc, "rolling up");
	if (r < 0)
		return r;

	r = store_stmt(x->s, STMT_ROLLUP_DELETE, "DELETE FROM samples WHERE resolution = ?1 AND time <= ?2", &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, from);
	rc |= sqlite3_bind_int64(st, 2, upto);
	r = store_bound_run(x->s, st, rc, "rolling up");
	if (r < 0)
		return r;
	r = rollup_gpu(x, from, to, upto);
	if (r < 0)
		return r;
	return rollup_cgroups(x, from, to, upto);
}

/* Above max_size: the oldest batch of rows across censuses, samples and
 * system rows goes (every table up to the same moment), then whatever
 * expire takes with them. */
static int shrink(struct step *x, uint64_t max_size)
{
	sqlite3_stmt *st;
	uint64_t size;
	int64_t horizon, deleted = x->deleted;
	bool more = x->more;
	int r;

	r = store_size(x->s, &size);
	if (r < 0 || size <= max_size)
		return r;

	/* a merge of five index walks (UNION ALL under ORDER BY): it reads
	 * about a batch of rows, not the tables */
	r = store_stmt(x->s, STMT_OLDEST_ROWS,
		       "SELECT time FROM censuses"
		       " UNION ALL SELECT time FROM samples WHERE resolution = 0"
		       " UNION ALL SELECT time FROM samples WHERE resolution = 60000"
		       " UNION ALL SELECT time FROM samples WHERE resolution = 3600000"
		       " UNION ALL SELECT time FROM system"
		       " ORDER BY 1 LIMIT 1 OFFSET ?1",
		       &st);
	if (r < 0)
		return r;
	r = store_bound(x->s, st, sqlite3_bind_int64(st, 1, x->batch - 1), "shrinking");
	if (r < 0)
		return r;
	r = store_stmt_int(x->s, st, "shrinking", &horizon);
	if (r < 0)
		return r;
	if (r == 0) /* less than a batch left: all of it */
		horizon = INT64_MAX - 1;

	x->deleted = 0;
	r = expire(x, horizon + 1);
	if (r < 0)
		return r;
	r = store_size(x->s, &size);
	if (r < 0)
		return r;
	/* Still too large means another step has work, unless nothing was
	 * left to delete (a limit below what the schema itself takes); rows
	 * left at the horizon do not matter once the size is under it. */
	x->more = more || (size > max_size && x->deleted > 0);
	x->deleted += deleted;
	return 0;
}

/* Deletes the paths that no census region, file or region event refers to,
 * a window of a batch of ids at a time, going round the table.  A lap
 * starts when rows were deleted; a lap under way means another step has
 * work.  *sweep is the state to keep once the step is committed. */
static int sweep_paths(struct step *x, struct store_sweep *sweep)
{
	sqlite3_stmt *st;
	int64_t end;
	int r, rc;

	if (x->deleted > 0)
		sweep->due = true;
	if (!sweep->active) {
		if (!sweep->due)
			return 0;
		*sweep = (struct store_sweep){ .active = true };
	}

	r = store_stmt(x->s, STMT_PATHS_WINDOW, "SELECT id FROM paths WHERE id > ?1 ORDER BY id LIMIT 1 OFFSET ?2",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, sweep->cursor);
	rc |= sqlite3_bind_int64(st, 2, x->batch - 1);
	r = store_bound(x->s, st, rc, "deleting unused paths");
	if (r < 0)
		return r;
	r = store_stmt_int(x->s, st, "deleting unused paths", &end);
	if (r < 0)
		return r;
	if (r == 0) /* the last window: the lap ends here */
		end = INT64_MAX;

	r = store_stmt(x->s, STMT_PATHS_DELETE,
		       "DELETE FROM paths WHERE id IN"
		       " (SELECT id FROM paths p WHERE id > ?1 AND id <= ?2"
		       "   AND NOT EXISTS (SELECT 1 FROM census_file_rows x WHERE x.path_id = p.id)"
		       "   AND NOT EXISTS (SELECT 1 FROM census_region_rows x WHERE x.path_id = p.id)"
		       "   AND NOT EXISTS (SELECT 1 FROM region_events x WHERE x.path_id = p.id))",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, sweep->cursor);
	rc |= sqlite3_bind_int64(st, 2, end);
	r = store_bound_run(x->s, st, rc, "deleting unused paths");
	if (r < 0)
		return r;
	if (end == INT64_MAX)
		sweep->active = false;
	else
		sweep->cursor = end;
	if (sweep->active || sweep->due)
		x->more = true;
	return 0;
}

/* Gives up to a batch of free pages back to the file system.  Pages left
 * on the free list mean another step has work. */
static int vacuum(struct step *x)
{
	sqlite3_stmt *st;
	char sql[64];
	int64_t free_pages = 0;
	int r;

	if (!x->s->incremental_vacuum)
		return 0;
	snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%lld)", (long long)x->batch);
	r = store_exec(x->s, sql, "vacuuming");
	if (r < 0)
		return r;
	r = store_stmt(x->s, STMT_FREELIST_COUNT, "PRAGMA freelist_count", &st);
	if (r >= 0)
		r = store_stmt_int(x->s, st, "counting free pages", &free_pages);
	if (r < 0)
		return r;
	if (free_pages > 0)
		x->more = true;
	return 0;
}

int store_retention_step(struct store *s, const struct store_retention *rt, bool *ret_more)
{
	struct step x = { .s = s, .batch = rt->batch > 0 ? rt->batch : RETENTION_BATCH_DEFAULT };
	struct store_sweep sweep = s->sweep;
	int r;

	r = store_begin(s);
	if (r < 0)
		return r;
	if (s->ceiling_pages > 0)
		r = store_set_max_pages(s, s->ceiling_pages + RETENTION_HEADROOM_PAGES(x.batch));
	if (r >= 0 && rt->keep > 0)
		r = expire(&x, rt->now - rt->keep);
	if (r >= 0 && rt->raw_for > 0)
		r = rollup(&x, RESOLUTION_RAW, RESOLUTION_MINUTE, rt->now - rt->raw_for);
	if (r >= 0 && rt->minutes_for > 0)
		r = rollup(&x, RESOLUTION_MINUTE, RESOLUTION_HOUR, rt->now - rt->minutes_for);
	if (r >= 0 && rt->max_size > 0)
		r = shrink(&x, rt->max_size);
	if (r >= 0)
		r = sweep_paths(&x, &sweep);
	if (r >= 0)
		r = vacuum(&x);
	if (r >= 0)
		r = store_commit(s);
	if (r < 0)
		store_rollback(s);
	else
		s->sweep = sweep; /* only once what it swept is committed */

	/* back to the ceiling (or to the page count, if the step ended above it) */
	if (s->ceiling_pages > 0) {
		int q = store_set_max_pages(s, s->ceiling_pages);
		if (r >= 0 && q < 0)
			r = q;
	}
	if (r < 0)
		return r;
	if (ret_more)
		*ret_more = x.more;
	return 0;
}
