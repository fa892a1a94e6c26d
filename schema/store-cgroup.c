/* Writing memory cgroups: each group stored once (cgroups, by version
 * and path, with the systemd unit its path names), and a row of its
 * memory every StoreInterval (cgroup_samples), rolled up and expired with
 * the fast tier (store-retention.c).
 *
 * The workload: one row per group that holds watched processes, per
 * cycle: a handful to a few hundred on a host of containers.  The group
 * is looked up by its unique key every time, as a GPU is, so no cached id
 * outlives a rollback. */
#include <errno.h>
#include <string.h>

#include "cgroup-unit.h"
#include "store-internal.h"

int store_put_cgroup(struct store *s, int64_t time, const struct store_cgroup *g, int64_t *ret_id)
{
	static const char sql[] =
		"INSERT INTO cgroups (version, path, unit, inode, first_seen, last_seen)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?5)"
		" ON CONFLICT (path, version) DO UPDATE SET"
		"  inode = coalesce(excluded.inode, inode),"
		"  first_seen = min(first_seen, excluded.first_seen),"
		"  last_seen = max(last_seen, excluded.last_seen)"
		" RETURNING id";
	const char *unit = NULL;
	sqlite3_stmt *st;
	size_t n;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (g->version != 1 && g->version != 2)
		return store_failf(s, -EINVAL, "cgroup: version %d", g->version);
	if (!g->path || g->path[0] != '/')
		return store_failf(s, -EINVAL, "cgroup: the path \"%s\" does not start with /", g->path ? g->path : "");
	n = cgroup_unit_of_path(g->path, &unit);

	r = store_stmt(s, STMT_CGROUP_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int(st, 1, g->version);
	rc |= store_bind_text(st, 2, g->path);
	/* SQLITE_STATIC: unit lies inside the caller's path */
	rc |= n > 0 ? sqlite3_bind_text(st, 3, unit, (int)n, SQLITE_STATIC) : SQLITE_OK;
	rc |= g->inode > 0 ? store_bind_u64(st, 4, g->inode) : SQLITE_OK;
	rc |= sqlite3_bind_int64(st, 5, time);
	r = store_bound(s, st, rc, "cgroup");
	if (r < 0)
		return r;
	r = store_stmt_int(s, st, "cgroup", ret_id);
	if (r < 0)
		return r;
	if (r == 0)
		return store_failf(s, -EIO, "cgroup: no row id returned");
	return 0;
}

int store_put_cgroup_sample(struct store *s, int64_t cgroup_id, const struct store_cgroup_sample *x)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO cgroup_samples (cgroup_id, resolution, time, usage, usage_max, limit_applies,"
		"  limit_own, high, swap, anon, file, kernel, shmem, sock, oom, oom_kill, events_high, events_max,"
		"  processes, processes_private, processes_resident)"
		" VALUES (?1, 0, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_CGROUP_SAMPLE_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, cgroup_id);
	rc |= sqlite3_bind_int64(st, 2, x->time);
	rc |= store_bind_u64(st, 3, x->usage);
	rc |= x->have_applies ? store_bind_u64(st, 4, x->applies) : SQLITE_OK;
	rc |= x->have_limit ? store_bind_u64(st, 5, x->limit) : SQLITE_OK;
	rc |= x->have_high ? store_bind_u64(st, 6, x->high) : SQLITE_OK;
	rc |= x->have_swap ? store_bind_u64(st, 7, x->swap) : SQLITE_OK;
	rc |= store_bind_u64(st, 8, x->anon);
	rc |= store_bind_u64(st, 9, x->file);
	rc |= x->have_kernel ? store_bind_u64(st, 10, x->kernel) : SQLITE_OK;
	rc |= store_bind_u64(st, 11, x->shmem);
	rc |= x->have_sock ? store_bind_u64(st, 12, x->sock) : SQLITE_OK;
	if (x->have_events) {
		rc |= store_bind_u64(st, 13, x->oom);
		rc |= store_bind_u64(st, 14, x->oom_kill);
	}
	if (x->have_high_max_events) {
		rc |= store_bind_u64(st, 15, x->events_high);
		rc |= store_bind_u64(st, 16, x->events_max);
	}
	rc |= store_bind_u64(st, 17, x->processes);
	rc |= store_bind_u64(st, 18, x->processes_private);
	rc |= store_bind_u64(st, 19, x->processes_resident);
	return store_bound_run(s, st, rc, "cgroup sample");
}
