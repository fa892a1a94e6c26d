/* Writing OOM kills: one row per kill the daemon learnt of, linked to the
 * victim's last census and fast-tier row where the daemon watched it.
 *
 * The workload: kills are rare (a few an hour on a troubled host, bursts
 * of a few dozen), so each is a row of its own with two indexed lookups.
 * What makes the link worth having is the census taken as the victim
 * neared its limit, which the daemon may store after the kill (the
 * census and the kill are written by different paths of one cycle): so
 * every census stored also looks for kills of its process it came before
 * (store_oom_link_census), one indexed lookup that finds nothing for
 * nearly every census. */
#include <errno.h>
#include <string.h>

#include "store-internal.h"
#include "util.h"

/* The names of the sources in oom_kills.sources, in enum store_oom_source's
 * bit order. */
static const char *const source_names[] = { "bpf", "kmsg", "counter" };

/* The constraints oom_kills.oom_constraint holds (its CHECK). */
static const char *const constraints[] = { "memcg", "none", "cpuset", "memory_policy" };

/* "bpf,kmsg" for sources into buf.  Returns 0, or -EINVAL for no source
 * or a bit that names none. */
static int sources_text(unsigned sources, char *buf, size_t size)
{
	size_t len = 0;

	if (sources == 0 || sources >> ELEMENTSOF(source_names))
		return -EINVAL;
	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(source_names); i++) {
		if (!(sources & (1u << i)))
			continue;
		size_t k = strlen(source_names[i]);
		if (len + (len > 0) + k + 1 > size)
			return -EINVAL;
		if (len > 0)
			buf[len++] = ',';
		memcpy(buf + len, source_names[i], k + 1);
		len += k;
	}
	return 0;
}

/* The stored constraint, NULL for unknown; -EINVAL in *ret_r for a word the
 * schema does not know. */
static const char *constraint_text(const char *c, int *ret_r)
{
	*ret_r = 0;
	if (!c || streq(c, "unknown"))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(constraints); i++)
		if (streq(c, constraints[i]))
			return constraints[i];
	*ret_r = -EINVAL;
	return NULL;
}

int store_put_oom_kill(struct store *s, const struct store_oom_kill *k, int64_t *ret_id)
{
	/* the census and sample the caller did not give: the process's last
	 * ok census and fast-tier row at or before the kill (subqueries on
	 * censuses_by_process and the samples' key) */
	static const char sql[] =
		"INSERT INTO oom_kills (time, sources, pid, process_id, comm, uid, oom_constraint, cgroup, limit_cgroup,"
		"  limit_hit, usage, total_vm, anon_rss, file_rss, shmem_rss, pgtables, oom_score_adj, census_id,"
		"  sample_time)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
		"  coalesce(?18, (SELECT id FROM censuses WHERE process_id = ?4 AND status = 'ok' AND time <= ?1"
		"                 ORDER BY time DESC, id DESC LIMIT 1)),"
		"  coalesce(?19, (SELECT max(time) FROM samples WHERE process_id = ?4 AND time <= ?1)))";
	char sources[32];
	const char *constraint;
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	if (sources_text(k->sources, sources, sizeof(sources)) < 0)
		return store_failf(s, -EINVAL, "OOM kill: sources %#x name no source", k->sources);
	constraint = constraint_text(k->constraint, &r);
	if (r < 0)
		return store_failf(s, -EINVAL, "OOM kill: unknown constraint \"%s\"", k->constraint);

	r = store_stmt(s, STMT_OOM_PUT, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, k->time);
	rc |= store_bind_text(st, 2, sources);
	rc |= k->pid > 0 ? sqlite3_bind_int(st, 3, k->pid) : SQLITE_OK;
	rc |= k->process_id > 0 ? sqlite3_bind_int64(st, 4, k->process_id) : SQLITE_OK;
	rc |= store_bind_text(st, 5, k->comm);
	rc |= k->have_uid ? sqlite3_bind_int64(st, 6, k->uid) : SQLITE_OK;
	rc |= store_bind_text(st, 7, constraint);
	rc |= store_bind_text(st, 8, k->cgroup);
	rc |= store_bind_text(st, 9, k->limit_cgroup);
	if (k->have_limit) {
		rc |= store_bind_u64(st, 10, k->limit);
		rc |= store_bind_u64(st, 11, k->usage);
	}
	if (k->have_kernel) {
		rc |= store_bind_u64(st, 12, k->total_vm);
		rc |= store_bind_u64(st, 13, k->anon_rss);
		rc |= store_bind_u64(st, 14, k->file_rss);
		rc |= store_bind_u64(st, 15, k->shmem_rss);
	}
	rc |= k->have_pgtables ? store_bind_u64(st, 16, k->pgtables) : SQLITE_OK;
	rc |= k->have_oom_score_adj ? sqlite3_bind_int(st, 17, k->oom_score_adj) : SQLITE_OK;
	rc |= k->census_id > 0 ? sqlite3_bind_int64(st, 18, k->census_id) : SQLITE_OK;
	rc |= k->sample_time > 0 ? sqlite3_bind_int64(st, 19, k->sample_time) : SQLITE_OK;
	/* unbound parameters are NULL: unknown */
	r = store_bound_run(s, st, rc, "OOM kill");
	if (r < 0)
		return r;
	if (ret_id)
		*ret_id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int store_link_oom_kill(struct store *s, int64_t kill_id, int64_t census_id, int64_t sample_time)
{
	static const char sql[] =
		"UPDATE oom_kills SET census_id = coalesce(?2, census_id), sample_time = coalesce(?3, sample_time)"
		" WHERE id = ?1";
	sqlite3_stmt *st;
	int r, rc;

	r = store_writable(s);
	if (r < 0)
		return r;
	r = store_stmt(s, STMT_OOM_LINK, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, kill_id);
	rc |= census_id > 0 ? sqlite3_bind_int64(st, 2, census_id) : SQLITE_OK;
	rc |= sample_time > 0 ? sqlite3_bind_int64(st, 3, sample_time) : SQLITE_OK;
	r = store_bound_run(s, st, rc, "OOM kill");
	if (r < 0)
		return r;
	if (sqlite3_changes(s->db) == 0)
		return store_failf(s, -ENOENT, "OOM kill: no kill %lld", (long long)kill_id);
	return 0;
}

int store_oom_link_census(struct store *s, int64_t process_id, int64_t census_id, int64_t time)
{
	/* a kill's census is its process's last before it: a later census
	 * (by time, then id) replaces an earlier link */
	static const char sql[] =
		"UPDATE oom_kills SET census_id = ?2"
		" WHERE process_id = ?1 AND time >= ?3"
		"  AND (census_id IS NULL OR (SELECT time FROM censuses c WHERE c.id = oom_kills.census_id) <= ?3)"
		"  AND census_id IS NOT ?2";
	sqlite3_stmt *st;
	int r, rc;

	r = store_stmt(s, STMT_OOM_LINK_CENSUS, sql, &st);
	if (r < 0)
		return r;
	rc = sqlite3_bind_int64(st, 1, process_id);
	rc |= sqlite3_bind_int64(st, 2, census_id);
	rc |= sqlite3_bind_int64(st, 3, time);
	return store_bound_run(s, st, rc, "linking OOM kills to their census");
}
