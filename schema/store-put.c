/* Writing the small rows: process instances, fast-tier rows, marks and the
 * machine's memory.  Each is one prepared statement, bound and stepped;
 * the caller groups them in a transaction (store_begin .. store_commit). */
#include <errno.h>

#include "store-internal.h"

int store_put_process(struct store *s, const struct store_process *p, int64_t *ret_id)
{
	/* Same instance, later sight: last seen and peaks only go up, the exit
	 * is kept once known, and what was unknown is filled in. */
	static const char sql[] =
		"INSERT INTO processes (boot_id, pid, start_time, started_at, uid, comm, exe, cmdline,"
		"                       first_seen, last_seen, exited_at, peak_private, peak_resident, peak_vram)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13)"
		" ON CONFLICT (boot_id, pid, start_time) DO UPDATE SET"
		"  started_at = coalesce(started_at, excluded.started_at),"
		"  uid = coalesce(uid, excluded.uid),"
		"  comm = coalesce(comm, excluded.comm),"
		"  exe = coalesce(exe, excluded.exe),"
		"  cmdline = coalesce(cmdline, excluded.cmdline),"
		"  first_seen = min(first_seen, excluded.first_seen),"
		"  last_seen = max(last_seen, excluded.last_seen),"
		"  exited_at = coalesce(exited_at, excluded.exited_at),"
		"  peak_private = max(peak_private, excluded.peak_private),"
		"  peak_resident = max(peak_resident, excluded.peak_resident),"
		"  peak_vram = max(peak_vram, excluded.peak_vram)"
		" RETURNING id";
	sqlite3_stmt *st;
	int64_t id = 0;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (!p->boot_id || p->pid <= 0)
		return store_failf(s, -EINVAL, "process: a boot id and a pid are needed (pid %d)", p->pid);
	r = store_stmt(s, STMT_PROCESS_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = store_bind_text(st, 1, p->boot_id);
	rc |= sqlite3_bind_int(st, 2, p->pid);
	rc |= sqlite3_bind_int64(st, 3, p->start_time);
	rc |= store_bind_opt(st, 4, p->started_at);
	rc |= store_bind_opt(st, 5, p->uid);
	rc |= store_bind_text(st, 6, p->comm);
	rc |= store_bind_text(st, 7, p->exe);
	rc |= store_bind_text(st, 8, p->cmdline);
	rc |= sqlite3_bind_int64(st, 9, p->seen);
	rc |= store_bind_opt(st, 10, p->exited_at);
	rc |= store_bind_u64(st, 11, p->peak_private);
	rc |= store_bind_u64(st, 12, p->peak_resident);
	rc |= store_bind_u64(st, 13, p->peak_vram);
	r = store_bound(s, st, rc, "process");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "process", &id);
	if (r < 0)
		return r;
	if (r == 0) /* RETURNING gives a row for an insert and an update alike */
		return store_failf(s, -EIO, "process: no row id returned");
	if (ret_id)
		*ret_id = id;
	/* an exited process writes no more rows: its run is forgotten, so the
	 * runs kept stay as many as the processes followed */
	if (p->exited_at >= 0)
		hashtab_remove(&s->runs, (uint64_t)id, NULL);
	return 0;
}

static bool sample_steady(const struct store_sample *x)
{
	return x->private_min == x->private_last && x->private_max == x->private_last &&
	       x->resident_min == x->resident_last && x->resident_max == x->resident_last;
}

int store_update_process(struct store *s, int64_t id, const struct store_process *p)
{
	/* What store_put_process's update does, on the row found by its id
	 * (and checked against the instance: a row deleted and its id given
	 * again names another process).  One row by its id: SQLite runs it
	 * without the statement journal the upsert needs, which was most of
	 * the cost of a store tick (BENCHMARKS.md). */
	static const char sql[] = "UPDATE processes SET"
				  "  last_seen = max(last_seen, ?5),"
				  "  exited_at = coalesce(exited_at, ?6),"
				  "  peak_private = max(peak_private, ?7),"
				  "  peak_resident = max(peak_resident, ?8),"
				  "  peak_vram = max(peak_vram, ?9)"
				  " WHERE id = ?1 AND boot_id = ?2 AND pid = ?3 AND start_time = ?4";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (!p->boot_id || p->pid <= 0 || id <= 0)
		return store_failf(s, -EINVAL, "process: a row id, a boot id and a pid are needed (pid %d)", p->pid);
	r = store_stmt(s, STMT_PROCESS_UPDATE, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, id);
	rc |= store_bind_text(st, 2, p->boot_id);
	rc |= sqlite3_bind_int(st, 3, p->pid);
	rc |= sqlite3_bind_int64(st, 4, p->start_time);
	rc |= sqlite3_bind_int64(st, 5, p->seen);
	rc |= store_bind_opt(st, 6, p->exited_at);
	rc |= store_bind_u64(st, 7, p->peak_private);
	rc |= store_bind_u64(st, 8, p->peak_resident);
	rc |= store_bind_u64(st, 9, p->peak_vram);
	r = store_bound_run(s, st, rc, "process");
	if (r < 0)
		return r;
	if (sqlite3_changes(s->db) == 0)
		return -ENOENT;
	if (p->exited_at >= 0)
		hashtab_remove(&s->runs, (uint64_t)id, NULL);
	return 0;
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

static int insert_sample(struct store *s, int64_t process_id, const struct store_sample *x)
{
	/* A second row for the same moment (a clock that stepped back) merges
	 * into the first instead of failing the whole batch. */
	static const char sql[] =
		"INSERT INTO samples (process_id, resolution, time, until, private_min, private_max, private_last,"
		"                     resident_min, resident_max, resident_last, swap_last, samples)"
		" VALUES (?1, 0, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
		" ON CONFLICT (process_id, resolution, time) DO UPDATE SET"
		"  private_min = min(private_min, excluded.private_min),"
		"  private_max = max(private_max, excluded.private_max),"
		"  private_last = excluded.private_last,"
		"  resident_min = min(resident_min, excluded.resident_min),"
		"  resident_max = max(resident_max, excluded.resident_max),"
		"  resident_last = excluded.resident_last,"
		"  swap_last = excluded.swap_last,"
		"  samples = samples + excluded.samples";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_SAMPLE_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, x->time);
	rc |= store_bind_u64(st, 3, x->private_min);
	rc |= store_bind_u64(st, 4, x->private_max);
	rc |= store_bind_u64(st, 5, x->private_last);
	rc |= store_bind_u64(st, 6, x->resident_min);
	rc |= store_bind_u64(st, 7, x->resident_max);
	rc |= store_bind_u64(st, 8, x->resident_last);
	rc |= store_bind_u64(st, 9, x->swap_last);
	rc |= sqlite3_bind_int64(st, 10, x->samples);
	return store_bound_run(s, st, rc, "sample");
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
		return insert_sample(s, process_id, x);

	/* Only a steady row joins a steady one: then every moment of the span
	 * had the same values, and min, max and last of any part of it are
	 * those values.  A row at or before the run's end (a clock that
	 * stepped back) is never folded into it. */
	steady = sample_steady(x);
	u = hashtab_get(&s->runs, (uint64_t)process_id);
	if (u && !u->apart && steady && u->steady && x->time > u->until && x->private_last == u->private_last &&
	    x->resident_last == u->resident_last && x->swap_last == u->swap_last) {
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
	r = insert_sample(s, process_id, x);
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
		.apart = !is_new && u->apart,
		.private_last = x->private_last,
		.resident_last = x->resident_last,
		.swap_last = x->swap_last,
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
	x = (struct store_sample){ .time = time, .private_min = u->private_last, .private_max = u->private_last,
				   .private_last = u->private_last, .resident_min = u->resident_last,
				   .resident_max = u->resident_last, .resident_last = u->resident_last,
				   .swap_last = u->swap_last, .samples = u->samples };
	r = insert_sample(s, process_id, &x);
	if (r < 0)
		return r;
	u->time = u->until = u->until_before = time;
	return 0;
}

int store_put_mark(struct store *s, int64_t process_id, int64_t time, const char *name, int64_t by_uid)
{
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (!name || !name[0])
		return store_failf(s, -EINVAL, "mark: a mark needs a name");
	r = store_stmt(s, STMT_MARK_PUT, "INSERT INTO marks (process_id, time, name, by_uid) VALUES (?1, ?2, ?3, ?4)",
		       &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, time);
	rc |= store_bind_text(st, 3, name);
	rc |= store_bind_opt(st, 4, by_uid);
	return store_bound_run(s, st, rc, "mark");
}

int store_put_system(struct store *s, const struct store_system *x)
{
	/* time is the key: a second row for the same millisecond replaces it */
	static const char sql[] =
		"INSERT OR REPLACE INTO system (time, mem_total, mem_available, swap_total, swap_free, committed_as,"
		"  commit_limit, pressure_some_avg10, pressure_some_avg60, pressure_full_avg10, pressure_full_avg60,"
		"  pressure_some_total_us, pressure_full_total_us)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_SYSTEM_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, x->time);
	rc |= store_bind_u64(st, 2, x->mem_total);
	rc |= store_bind_u64(st, 3, x->mem_available);
	rc |= store_bind_u64(st, 4, x->swap_total);
	rc |= store_bind_u64(st, 5, x->swap_free);
	rc |= store_bind_u64(st, 6, x->committed_as);
	rc |= store_bind_u64(st, 7, x->commit_limit);
	if (x->have_pressure) {
		rc |= sqlite3_bind_double(st, 8, x->some_avg10);
		rc |= sqlite3_bind_double(st, 9, x->some_avg60);
		rc |= sqlite3_bind_double(st, 10, x->full_avg10);
		rc |= sqlite3_bind_double(st, 11, x->full_avg60);
		rc |= store_bind_u64(st, 12, x->some_total_us);
		rc |= store_bind_u64(st, 13, x->full_total_us);
	}
	/* else: unbound parameters are NULL, which is what "no PSI" stores */
	return store_bound_run(s, st, rc, "system");
}
