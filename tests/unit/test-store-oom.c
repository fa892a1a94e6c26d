/* OOM kills and memory cgroups in a real store: written as the daemon
 * writes them, read back as the oom, cgroups, cgroup_history and report
 * answers give them, rolled up and expired by retention, and a database of
 * schema 14 migrated with its rows kept. */
#include "test-store-read-lib.h"

#include "limits.h"
#include "store-migrations.h"
#include "units.h"

/* The first column of the first row as text, in buf ("NULL" for NULL). */
static const char *q_text_at(const char *path, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	const unsigned char *v = sqlite3_column_text(st, 0);
	snprintf(buf, size, "%s", v ? (const char *)v : "NULL");
	sqlite3_finalize(st);
	sqlite3_close(db);
	sqlite3_free(sql);
	return buf;
}

/* A kill as the daemon gives one told by both sources. */
static struct store_oom_kill full_kill(int64_t time, int pid, int64_t process_id, const char *cgroup,
				       const char *limit_cgroup)
{
	return (struct store_oom_kill){
		.time = time, .sources = STORE_OOM_BPF | STORE_OOM_KMSG, .pid = pid, .process_id = process_id,
		.comm = "grow", .have_uid = true, .uid = 1000, .constraint = "memcg", .cgroup = cgroup,
		.limit_cgroup = limit_cgroup, .have_limit = true, .limit = 200 * MiB, .usage = 200 * MiB - 4096,
		.have_kernel = true, .total_vm = 210 * MiB, .anon_rss = 195 * MiB, .file_rss = 2 * MiB,
		.shmem_rss = 0, .have_pgtables = true, .pgtables = 420 * KiB, .have_oom_score_adj = true,
		.oom_score_adj = 200,
	};
}

static int64_t put_kill(struct tmp *t, const struct store_oom_kill *k)
{
	int64_t id = 0;
	if (store_put_oom_kill(writer_of(t), k, &id) < 0)
		fail_msg("put_oom_kill: %s", store_error(t->s));
	return id;
}

static json_t *read_kills(struct tmp *t, const struct store_oom_query *q)
{
	struct error err;
	json_t *o = NULL;
	if (store_read_oom_kills(reader_of(t), q, &o, &err) < 0)
		fail_msg("read_oom_kills: %s", err.message);
	return o;
}

/* The keys of o, in order, joined by ",". */
static void keys_of(const json_t *o, char *buf, size_t size)
{
	const char *key;
	json_t *v;
	size_t len = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)o, key, v)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", key);
}

/* A watched process killed at its cgroup's limit: the kill links to the
 * last ok census before it and the last fast-tier row, and reads back in
 * the answer's shape, key by key; a process not watched, and a kill only
 * counted, have no census and say only what is known. */
static void test_kill_round_trip(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_oom_query q = { .since = 0, .until = INT64_MAX, .only_uid = -1 };
	char keys[512];

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "grow", .first_seen = H0,
						     .last_seen = H0 + 30 * SECOND, .exited_at = H0 + 30 * SECOND });
	put_sample(t, p, H0 + 10 * SECOND, 50 * MiB, 60 * MiB, 60 * MiB, 70 * MiB);
	put_sample(t, p, H0 + 20 * SECOND, 60 * MiB, 180 * MiB, 180 * MiB, 190 * MiB);
	int64_t first = put_census(t, p, H0 + 1 * SECOND, TRIGGER_FIRST, CENSUS_OK, c);
	int64_t near = put_census(t, p, H0 + 25 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	(void)put_census(t, p, H0 + 26 * SECOND, TRIGGER_GROWTH, CENSUS_EXITED, NULL);
	struct store_oom_kill k = full_kill(H0 + 30 * SECOND, 4242, p, "/test.slice/grow.service",
					    "/test.slice");
	int64_t watched = put_kill(t, &k);
	/* not watched: no process row */
	struct store_oom_kill other = full_kill(H0 + 40 * SECOND, 5151, 0, "/test.slice/other.service",
						"/test.slice/other.service");
	other.comm = "other";
	other.have_kernel = other.have_pgtables = other.have_oom_score_adj = false;
	other.sources = STORE_OOM_KMSG;
	(void)put_kill(t, &other);
	/* counted only: nothing known but its time */
	(void)put_kill(t, &(struct store_oom_kill){ .time = H0 + 50 * SECOND, .sources = STORE_OOM_COUNTER });
	commit(t);

	assert_true(first > 0);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills WHERE id = %lld", (long long)watched), near);
	assert_int_equal(q_int_at(t->db, "SELECT sample_time FROM oom_kills WHERE id = %lld", (long long)watched),
			 H0 + 20 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills WHERE sources = 'bpf,kmsg'"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills WHERE sources = 'counter' AND pid IS NULL"
					 " AND comm IS NULL AND oom_constraint IS NULL AND census_id IS NULL"),
			 1);

	json_t *o = read_kills(t, &q);
	const json_t *kills = jget(o, "kills");
	assert_int_equal(json_array_size(kills), 3);
	assert_true(json_is_false(jget(o, "truncated")));
	/* newest first */
	const json_t *counted = jat(kills, 0), *unwatched = jat(kills, 1), *x = jat(kills, 2);
	keys_of(x, keys, sizeof(keys));
	assert_string_equal(keys, "time,pid,comm,uid,cgroup,limit_cgroup,constraint,limit,usage,kernel,census");
	assert_int_equal(jint(x, "time"), H0 + 30 * SECOND);
	assert_int_equal(jint(x, "pid"), 4242);
	assert_string_equal(jstr(x, "comm"), "grow");
	assert_int_equal(jint(x, "uid"), 1000);
	assert_string_equal(jstr(x, "cgroup"), "/test.slice/grow.service");
	assert_string_equal(jstr(x, "limit_cgroup"), "/test.slice");
	assert_string_equal(jstr(x, "constraint"), "memcg");
	assert_int_equal(jint(x, "limit"), 200 * MiB);
	assert_int_equal(jint(x, "usage"), 200 * MiB - 4096);
	const json_t *kernel = jget(x, "kernel");
	keys_of(kernel, keys, sizeof(keys));
	assert_string_equal(keys, "total_vm,anon_rss,file_rss,shmem_rss,pgtables,oom_score_adj");
	assert_int_equal(jint(kernel, "anon_rss"), 195 * MiB);
	assert_int_equal(jint(kernel, "shmem_rss"), 0);
	assert_int_equal(jint(kernel, "oom_score_adj"), 200);
	const json_t *census = jget(x, "census");
	keys_of(census, keys, sizeof(keys));
	assert_string_equal(keys, "id,time,private,classes");
	assert_int_equal(jint(census, "id"), near);
	assert_int_equal(jint(census, "time"), H0 + 25 * SECOND);
	assert_int_equal(jint(census, "private"), (int64_t)c->totals.private);
	const json_t *classes = jget(census, "classes");
	assert_true(json_array_size(classes) > 2);
	/* largest first, each as the census stored it */
	const json_t *top = jat(classes, 0);
	keys_of(top, keys, sizeof(keys));
	assert_string_equal(keys, "class,private,resident,swap");
	assert_int_equal(jint(top, "private"),
			 q_int_at(t->db, "SELECT max(private) FROM census_classes WHERE census_id = %lld", (long long)near));
	assert_true(jint(top, "private") >= jint(jat(classes, 1), "private"));

	assert_int_equal(jint(unwatched, "pid"), 5151);
	assert_true(jnull(unwatched, "kernel"));
	assert_true(jnull(unwatched, "census"));
	assert_true(jnull(counted, "pid"));
	assert_true(jnull(counted, "comm"));
	assert_true(jnull(counted, "constraint"));
	assert_true(jnull(counted, "limit"));
	assert_true(jnull(counted, "kernel"));
	assert_true(jnull(counted, "census"));
	json_decref(o);
	census_free(c);
}

/* The census the daemon took as the process neared its limit may be
 * stored after the kill: storing it links the kill to it; a census
 * stored later that is older than the linked one does not replace it. */
static void test_census_after_kill(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 77, .uid = 1000, .comm = "grow", .first_seen = H0,
						     .last_seen = H0 + 10 * SECOND, .exited_at = H0 + 10 * SECOND });
	int64_t first = put_census(t, p, H0, TRIGGER_FIRST, CENSUS_OK, c);
	struct store_oom_kill k = full_kill(H0 + 10 * SECOND, 77, p, "/a", "/a");
	int64_t kill = put_kill(t, &k);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills"), first);

	begin(t);
	int64_t near = put_census(t, p, H0 + 9 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills"), near);

	begin(t);
	(void)put_census(t, p, H0 + 5 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	/* a census after the kill's time is another moment: not its */
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills"), near);

	/* set by hand: the daemon's own link */
	begin(t);
	assert_int_equal(store_link_oom_kill(t->s, kill, first, H0 + 3 * SECOND), 0);
	assert_int_equal(store_link_oom_kill(t->s, kill + 100, first, 0), -ENOENT);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills"), first);
	assert_int_equal(q_int_at(t->db, "SELECT sample_time FROM oom_kills"), H0 + 3 * SECOND);
	census_free(c);
}

/* What the schema refuses is refused with -EINVAL, and nothing of it
 * stays. */
static void test_kill_refused(void **state)
{
	struct tmp *t = *state;
	struct store *s = writer_of(t);

	begin(t);
	assert_int_equal(store_put_oom_kill(s, &(struct store_oom_kill){ .time = H0 }, NULL), -EINVAL);
	assert_int_equal(store_put_oom_kill(s, &(struct store_oom_kill){ .time = H0, .sources = 1u << 3 }, NULL),
			 -EINVAL);
	assert_int_equal(store_put_oom_kill(s,
					    &(struct store_oom_kill){ .time = H0, .sources = STORE_OOM_KMSG,
								      .constraint = "CONSTRAINT_MEMCG" },
					    NULL),
			 -EINVAL);
	assert_int_equal(store_put_oom_kill(s,
					    &(struct store_oom_kill){ .time = H0, .sources = STORE_OOM_KMSG,
								      .process_id = 999 },
					    NULL),
			 -EINVAL);
	/* "unknown" is the daemon's word for no constraint */
	assert_int_equal(store_put_oom_kill(s,
					    &(struct store_oom_kill){ .time = H0, .sources = STORE_OOM_KMSG,
								      .constraint = "unknown" },
					    NULL),
			 0);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills WHERE oom_constraint IS NULL"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills"), 1);
}

/* --since, --until, --cgroup (the group itself or below it, the victim's
 * or the one whose limit was hit), only the asker's kills, and a limit
 * that cuts the list. */
static void test_kill_filters(void **state)
{
	struct tmp *t = *state;
	struct store_oom_kill k;

	begin(t);
	k = full_kill(H0 + 1 * SECOND, 10, 0, "/machine.slice/a.scope/payload", "/machine.slice/a.scope");
	(void)put_kill(t, &k);
	k = full_kill(H0 + 2 * SECOND, 11, 0, "/machine.slice/ab.scope", "/machine.slice/ab.scope");
	k.uid = 2000;
	(void)put_kill(t, &k);
	k = full_kill(H0 + 3 * SECOND, 12, 0, "/system.slice/x.service", "/");
	k.constraint = "none";
	(void)put_kill(t, &k);
	commit(t);

	struct store_oom_query q = { .since = H0 + 2 * SECOND, .until = INT64_MAX, .only_uid = -1 };
	json_t *o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 2);
	json_decref(o);

	q = (struct store_oom_query){ .since = 0, .until = H0 + 2 * SECOND, .only_uid = -1 };
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 2);
	assert_int_equal(jint(jat(jget(o, "kills"), 0), "pid"), 11);
	json_decref(o);

	/* "/machine.slice/a.scope" is not "/machine.slice/ab.scope"'s parent */
	q = (struct store_oom_query){ .until = INT64_MAX, .cgroup = "/machine.slice/a.scope/", .only_uid = -1 };
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 1);
	assert_int_equal(jint(jat(jget(o, "kills"), 0), "pid"), 10);
	json_decref(o);
	q.cgroup = "/machine.slice";
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 2);
	json_decref(o);
	q.cgroup = "/";
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 3);
	json_decref(o);
	q.cgroup = "/machine";
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 0);
	json_decref(o);

	q = (struct store_oom_query){ .until = INT64_MAX, .only_uid = 2000 };
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 1);
	assert_int_equal(jint(jat(jget(o, "kills"), 0), "uid"), 2000);
	json_decref(o);

	/* an account's kills are those of its processes (Windows's owner,
	 * compared without case), beside the uid's */
	raw_exec(t->db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen, platform, owner)"
			" VALUES ('windows-boot', 13, 1700000000000, 'python.exe', 1, 2, 'windows', 'DESKTOP-1\\ana')");
	begin(t);
	k = full_kill(H0 + 4 * SECOND, 13, q_int_at(t->db, "SELECT id FROM processes WHERE pid = %d", 13), "/", "/");
	k.have_uid = false;
	(void)put_kill(t, &k);
	commit(t);
	q = (struct store_oom_query){ .until = INT64_MAX, .only_uid = UINT32_MAX, .only_owner = "desktop-1\\ANA" };
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 1);
	assert_int_equal(jint(jat(jget(o, "kills"), 0), "pid"), 13);
	json_decref(o);
	q.only_owner = "DESKTOP-1\\bob";
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 0);
	json_decref(o);

	q = (struct store_oom_query){ .until = INT64_MAX, .only_uid = -1, .limit = 2 };
	o = read_kills(t, &q);
	assert_int_equal(json_array_size(jget(o, "kills")), 2);
	assert_true(json_is_true(jget(o, "truncated")));
	json_decref(o);

	struct error err;
	q = (struct store_oom_query){ .since = 5, .until = 4, .only_uid = -1 };
	assert_int_equal(store_read_oom_kills(reader_of(t), &q, &o, &err), -EINVAL);
}

/* ------------------------------------------------------------ cgroups */

static int64_t put_group(struct tmp *t, int version, const char *path, int64_t time)
{
	int64_t id = 0;
	struct store_cgroup g = { .version = version, .path = path, .inode = 4026531835u };
	if (store_put_cgroup(writer_of(t), time, &g, &id) < 0)
		fail_msg("put_cgroup: %s", store_error(t->s));
	return id;
}

/* A v2 group's row: usage, a limit on its parent, and its processes. */
static void put_row(struct tmp *t, int64_t id, int64_t time, uint64_t usage, uint64_t processes_private)
{
	struct store_cgroup_sample x = {
		.time = time, .usage = usage, .have_applies = true, .applies = 200 * MiB, .have_high = true,
		.high = 180 * MiB, .have_swap = true, .swap = 0, .anon = usage - 20 * MiB, .file = 16 * MiB,
		.shmem = 1 * MiB, .have_kernel = true, .kernel = 3 * MiB, .have_sock = true, .sock = 0,
		.have_events = true, .oom = 1, .oom_kill = 1, .have_high_max_events = true, .events_high = 7,
		.events_max = 2, .processes = 2, .processes_private = processes_private,
		.processes_resident = processes_private + MiB,
	};
	if (store_put_cgroup_sample(writer_of(t), id, &x) < 0)
		fail_msg("put_cgroup_sample: %s", store_error(t->s));
}

static void test_cgroup_rows(void **state)
{
	struct tmp *t = *state;
	struct store *s = writer_of(t);
	struct error err;
	json_t *o = NULL;
	int64_t id = 0;
	char buf[64];

	begin(t);
	int64_t svc = put_group(t, 2, "/system.slice/grow.service", H0);
	int64_t box = put_group(t, 2, "/machine.slice/libpod-abc.scope/container", H0);
	int64_t v1 = put_group(t, 1, "/docker/abc", H0);
	int64_t root = put_group(t, 2, "/", H0);
	/* the same group again: the same row, seen later */
	assert_int_equal(put_group(t, 2, "/system.slice/grow.service", H0 + MINUTE), svc);
	assert_int_equal(store_put_cgroup(s, H0, &(struct store_cgroup){ .version = 3, .path = "/x" }, &id), -EINVAL);
	assert_int_equal(store_put_cgroup(s, H0, &(struct store_cgroup){ .version = 2, .path = "x" }, &id), -EINVAL);
	assert_int_equal(store_put_cgroup(s, H0, &(struct store_cgroup){ .version = 2 }, &id), -EINVAL);
	/* 10 MiB/s for 10 s, then the latest row: 150 MiB of 200 */
	for (int i = 0; i <= 10; i++)
		put_row(t, svc, H0 + i * SECOND, 50 * MiB + (uint64_t)i * 10 * MiB, 40 * MiB + (uint64_t)i * 10 * MiB);
	put_row(t, box, H0, 30 * MiB, 10 * MiB);
	/* a v1 group: no high, no socket memory, no v2 events */
	struct store_cgroup_sample x = { .time = H0, .usage = 5 * MiB, .have_applies = true, .applies = 5 * MiB,
					 .have_limit = true, .limit = 5 * MiB, .have_events = true, .oom_kill = 3 };
	assert_int_equal(store_put_cgroup_sample(s, v1, &x), 0);
	assert_int_equal(store_put_cgroup_sample(s, 12345, &x), -EINVAL);
	commit(t);

	assert_string_equal(q_text_at(t->db, buf, sizeof(buf), "SELECT unit FROM cgroups WHERE id = %lld", (long long)svc),
			    "grow.service");
	assert_string_equal(q_text_at(t->db, buf, sizeof(buf), "SELECT unit FROM cgroups WHERE id = %lld", (long long)box),
			    "libpod-abc.scope");
	assert_string_equal(q_text_at(t->db, buf, sizeof(buf), "SELECT unit FROM cgroups WHERE id = %lld", (long long)v1),
			    "NULL");
	assert_int_equal(q_int_at(t->db, "SELECT last_seen - first_seen FROM cgroups WHERE id = %lld", (long long)svc),
			 MINUTE);
	assert_int_equal(q_int_at(t->db, "SELECT high FROM cgroup_samples WHERE cgroup_id = %lld", (long long)v1), -1);
	assert_int_equal(q_int_at(t->db, "SELECT events_max FROM cgroup_samples WHERE cgroup_id = %lld", (long long)v1),
			 -1);
	/* the views: headroom, and the memory beyond the processes */
	assert_int_equal(q_int_at(t->db, "SELECT headroom FROM cgroup_timeline WHERE cgroup_id = %lld ORDER BY time DESC",
				  (long long)svc),
			 50 * MiB);
	assert_int_equal(q_int_at(t->db, "SELECT beyond_processes FROM cgroup_timeline WHERE cgroup_id = %lld",
				  (long long)svc),
			 10 * MiB);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_cgroup_timeline WHERE metric = 'grow.service limit'"),
			 11);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_cgroup_timeline WHERE metric = '/docker/abc high'"),
			 0);

	assert_int_equal(store_read_cgroups(reader_of(t), 10 * SECOND, true, &o, &err), 0);
	const json_t *list = jget(o, "cgroups");
	assert_int_equal(json_array_size(list), 4);
	/* largest usage first; the group without rows last */
	const json_t *g = jat(list, 0);
	assert_string_equal(jstr(g, "path"), "/system.slice/grow.service");
	assert_string_equal(jstr(g, "unit"), "grow.service");
	assert_int_equal(jint(g, "version"), 2);
	assert_int_equal(jint(g, "time"), H0 + 10 * SECOND);
	assert_int_equal(jint(g, "usage"), 150 * MiB);
	assert_int_equal(jint(g, "limit"), 200 * MiB);
	assert_true(jnull(g, "limit_own"));
	assert_int_equal(jint(g, "high"), 180 * MiB);
	assert_int_equal(jint(g, "headroom"), 50 * MiB);
	assert_int_equal(jint(g, "processes_private"), 140 * MiB);
	assert_int_equal(jint(g, "beyond_processes"), 10 * MiB);
	assert_int_equal(jint(g, "growth_per_s"), 10 * MiB);
	assert_int_equal(jint(g, "time_to_limit_ms"), 5 * SECOND);
	/* one row: no growth; at its limit: no time left */
	g = jat(list, 2);
	assert_string_equal(jstr(g, "path"), "/docker/abc");
	assert_true(jnull(g, "growth_per_s"));
	assert_int_equal(jint(g, "time_to_limit_ms"), 0);
	assert_true(jnull(g, "high"));
	g = jat(list, 3);
	assert_int_equal(jint(g, "cgroup_id"), root);
	assert_true(jnull(g, "time"));
	json_decref(o);

	/* a user who sees only their own processes: not the others' sums */
	assert_int_equal(store_read_cgroups(reader_of(t), 10 * SECOND, false, &o, &err), 0);
	g = jat(jget(o, "cgroups"), 0);
	assert_true(jnull(g, "processes_private"));
	assert_true(jnull(g, "beyond_processes"));
	assert_int_equal(jint(g, "usage"), 150 * MiB);
	json_decref(o);
}

/* A group's timeline by path or by unit, across the tiers once retention
 * rolled the older rows up: a minute row holds the largest usage of its
 * minute and the last of the rest. */
static void test_cgroup_history(void **state)
{
	struct tmp *t = *state;
	struct error err;
	json_t *o = NULL;
	bool more = true;

	begin(t);
	int64_t svc = put_group(t, 2, "/system.slice/grow.service", H0);
	/* two minutes of rows every 10 s, a peak in the first minute */
	for (int i = 1; i <= 12; i++)
		put_row(t, svc, H0 + i * 10 * SECOND, i == 3 ? 190 * MiB : 100 * MiB + (uint64_t)i * MiB, 90 * MiB);
	commit(t);

	struct store_cgroup_history_query q = { .cgroup = "/system.slice/grow.service", .since = 0, .until = INT64_MAX,
						.processes_figures = true };
	assert_int_equal(store_read_cgroup_history(reader_of(t), &q, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "cgroups")), 1);
	assert_int_equal(json_array_size(jget(o, "samples")), 12);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "cgroup_id"), svc);
	assert_true(json_is_false(jget(o, "truncated")));
	json_decref(o);

	/* the first minute rolled up (raw rows older than H0 + 90 s) */
	struct store_retention rt = { .now = H0 + 90 * SECOND + MINUTE, .raw_for = MINUTE };
	while (more)
		assert_int_equal(store_retention_step(writer_of(t), &rt, &more), 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM cgroup_samples WHERE resolution = 60000"), 2);
	assert_int_equal(q_int_at(t->db, "SELECT usage_max FROM cgroup_samples WHERE resolution = 60000 AND time = %lld",
				  H0 + MINUTE),
			 190 * MiB);
	assert_int_equal(q_int_at(t->db, "SELECT usage FROM cgroup_samples WHERE resolution = 60000 AND time = %lld",
				  H0 + MINUTE),
			 106 * MiB);

	q = (struct store_cgroup_history_query){ .unit = "grow.service", .since = 0, .until = INT64_MAX };
	assert_int_equal(store_read_cgroup_history(reader_of(t), &q, &o, &err), 0);
	const json_t *rows = jget(o, "samples");
	/* the minute rows of H0 + 1 min and H0 + 2 min (rolled up in part:
	 * its minute began before the first raw row left, H0 + 90 s), and the
	 * four raw rows, in time order */
	assert_int_equal(json_array_size(rows), 2 + 4);
	assert_int_equal(jint(jat(rows, 0), "resolution"), MINUTE);
	assert_int_equal(jint(jat(rows, 0), "usage_max"), 190 * MiB);
	assert_int_equal(jint(jat(rows, 1), "resolution"), 0);
	assert_int_equal(jint(jat(rows, 1), "time"), H0 + 90 * SECOND);
	assert_int_equal(jint(jat(rows, 4), "resolution"), MINUTE);
	for (size_t i = 1; i < json_array_size(rows); i++)
		assert_true(jint(jat(rows, i), "time") >= jint(jat(rows, i - 1), "time"));
	/* without the asker's right to others' processes */
	assert_true(jnull(jat(rows, 0), "processes_private"));
	json_decref(o);

	q.limit = 3;
	assert_int_equal(store_read_cgroup_history(reader_of(t), &q, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "samples")), 3);
	assert_true(json_is_true(jget(o, "truncated")));
	json_decref(o);

	q = (struct store_cgroup_history_query){ .unit = "nothing.service", .until = INT64_MAX };
	assert_int_equal(store_read_cgroup_history(reader_of(t), &q, &o, &err), -ENOENT);
	q = (struct store_cgroup_history_query){ .until = INT64_MAX };
	assert_int_equal(store_read_cgroup_history(reader_of(t), &q, &o, &err), -EINVAL);
}

/* Retention: kills, cgroup rows and cgroups older than Retention go; a
 * kill's census going leaves the kill without one. */
static void test_retention(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	bool more = true;

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 9, .uid = 1000, .comm = "grow", .first_seen = H0,
						     .last_seen = H0 + DAY, .exited_at = -1 });
	(void)put_census(t, p, H0, TRIGGER_FIRST, CENSUS_OK, c);
	struct store_oom_kill k = full_kill(H0 + HOUR, 9, p, "/a", "/a");
	(void)put_kill(t, &k);
	k = full_kill(H0 + 3 * DAY, 10, 0, "/a", "/a");
	(void)put_kill(t, &k);
	int64_t old = put_group(t, 2, "/old.service", H0);
	put_row(t, old, H0 + HOUR, 50 * MiB, 0);
	int64_t now = put_group(t, 2, "/now.service", H0 + 3 * DAY);
	put_row(t, now, H0 + 3 * DAY, 50 * MiB, 0);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills WHERE census_id IS NOT NULL"), 1);

	/* the census goes first (kept 1 day from H0 + 1 day - 1 ms) */
	struct store_retention rt = { .now = H0 + DAY + 30 * MINUTE, .keep = DAY };
	while (more)
		assert_int_equal(store_retention_step(writer_of(t), &rt, &more), 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM censuses"), 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills"), 2);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills WHERE census_id IS NOT NULL"), 0);

	rt.now = H0 + 2 * DAY;
	more = true;
	while (more)
		assert_int_equal(store_retention_step(writer_of(t), &rt, &more), 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT pid FROM oom_kills"), 10);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM cgroup_samples"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM cgroups"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT id FROM cgroups"), now);
	census_free(c);
}

/* The report of a killed process ends with its kill and the census before
 * its death; that of another process has none. */
static void test_report_kill(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct error err;
	json_t *o = NULL;

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "grow", .first_seen = H0,
						     .last_seen = H0 + MINUTE, .exited_at = H0 + MINUTE });
	put_sample(t, p, H0 + 10 * SECOND, 50 * MiB, 60 * MiB, 60 * MiB, 70 * MiB);
	int64_t near = put_census(t, p, H0 + 50 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	struct store_oom_kill k = full_kill(H0 + MINUTE, 4242, p, "/g", "/g");
	(void)put_kill(t, &k);
	int64_t alive = put_proc(t, &(struct proc_spec){ .pid = 5000, .uid = 1000, .comm = "calm", .first_seen = H0,
							 .last_seen = H0 + MINUTE, .exited_at = -1 });
	put_sample(t, alive, H0 + 10 * SECOND, 1 * MiB, 1 * MiB, 1 * MiB, 1 * MiB);
	commit(t);

	struct store_select sel = by_pid(4242, -1);
	assert_int_equal(store_read_report(reader_of(t), &sel, &o, &err), 0);
	const json_t *kill = jget(o, "oom_kill");
	assert_int_equal(jint(kill, "time"), H0 + MINUTE);
	assert_int_equal(jint(kill, "limit"), 200 * MiB);
	assert_int_equal(jint(jget(kill, "census"), "id"), near);
	assert_int_equal(jint(jget(o, "last_census"), "census_id"), near);
	json_decref(o);

	sel = by_pid(5000, -1);
	assert_int_equal(store_read_report(reader_of(t), &sel, &o, &err), 0);
	assert_true(jnull(o, "oom_kill"));
	json_decref(o);
	census_free(c);
}

/* A database of schema 14 with rows: migrated, its rows kept, the new
 * tables empty and ready. */
static void test_migrate_from_14(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(t->db, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = WAL; BEGIN", NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < store_n_migrations && store_migrations[i].version <= 14; i++)
		assert_int_equal(sqlite3_exec(db, store_migrations[i].sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "PRAGMA user_version = 14; COMMIT;"
				      "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
				      " VALUES ('b', 42, 7, 'old', 1000, 2000);"
				      "INSERT INTO censuses (process_id, time, trigger, status, private)"
				      " VALUES (1, 1500, 'first', 'ok', 99);"
				      "INSERT INTO samples (process_id, resolution, time, until, private_min, private_max,"
				      " private_last, resident_min, resident_max, resident_last, swap_last, samples)"
				      " VALUES (1, 0, 1600, 1600, 1, 2, 2, 3, 4, 4, 0, 10)",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	struct store *s = writer_of(t);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int_at(t->db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM processes"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT private FROM censuses"), 99);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM oom_kills"), 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_oom_kills"), 0);

	/* a kill of the old process links to its old census */
	begin(t);
	struct store_oom_kill k = full_kill(3000, 42, 1, "/g", "/g");
	(void)put_kill(t, &k);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT census_id FROM oom_kills"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT sample_time FROM oom_kills"), 1600);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_oom_kills WHERE label = 'grow [42]'"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kill_round_trip, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_census_after_kill, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_kill_refused, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_kill_filters, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_rows, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_history, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_retention, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_report_kill, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_14, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
