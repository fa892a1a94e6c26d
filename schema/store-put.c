/* Writing the small rows: process instances, fast-tier rows, marks and the
 * machine's memory.  Each is one prepared statement, bound and stepped;
 * the caller groups them in a transaction (store_begin .. store_commit).
 * Whether a fast-tier row is inserted at all, or extends the row before it,
 * is store-coalesce.c's to decide. */
#include <errno.h>

#include "store-coalesce.h"
#include "store-internal.h"

int store_put_process(struct store *s, const struct store_process *p, int64_t *ret_id)
{
	/* Same instance, later sight: last seen and peaks only go up, the exit
	 * is kept once known, and what was unknown is filled in. */
	static const char sql[] =
		"INSERT INTO processes (boot_id, pid, start_time, started_at, uid, comm, exe, cmdline,"
		"                       first_seen, last_seen, exited_at, peak_private, peak_resident, peak_vram,"
		"                       platform, owner)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
		" ON CONFLICT (boot_id, pid, start_time) DO UPDATE SET"
		"  started_at = coalesce(started_at, excluded.started_at),"
		"  uid = coalesce(uid, excluded.uid),"
		"  owner = coalesce(owner, excluded.owner),"
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
	if ((unsigned)p->platform >= _PLATFORM_MAX)
		return store_failf(s, -EINVAL, "process %d: no platform %d", p->pid, (int)p->platform);
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
	rc |= store_bind_text(st, 14, census_platform_name(p->platform));
	rc |= store_bind_text(st, 15, p->owner);
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
	if (p->exited_at >= 0)
		store_coalesce_forget(s, id);
	return 0;
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
		store_coalesce_forget(s, id);
	return 0;
}

int store_insert_sample(struct store *s, int64_t process_id, const struct store_sample *x)
{
	/* A second row for the same moment (a clock that stepped back) merges
	 * into the first instead of failing the whole batch. */
	static const char sql[] = "INSERT INTO samples (process_id, resolution, time, until" SAMPLE_SQL_NAMES ")"
				  " VALUES (?1, 0, ?2, ?2" SAMPLE_SQL_PARAMS ")"
				  " ON CONFLICT (process_id, resolution, time) DO UPDATE SET until = until"
				  SAMPLE_SQL_MERGE;
	sqlite3_stmt *st;
	int r, rc, i = 3;

	r = store_stmt(s, STMT_SAMPLE_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, x->time);
#define BIND(name, ...) rc |= store_bind_u64(st, i++, x->name);
	SAMPLE_COLUMNS(BIND)
#undef BIND
	return store_bound_run(s, st, rc, "sample");
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
