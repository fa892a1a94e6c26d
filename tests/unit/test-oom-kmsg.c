/* OOM kills read from kernel log records: a memory cgroup's kill as
 * Linux 6.18 logged it on cgroup v1 (a real kill, copied from /dev/kmsg),
 * a global one, the summary rate-limited away, an older kernel's shorter
 * line; hostile comms and paths that hold the words the parser looks for;
 * records and lines that do not read, refused with the reason and with no
 * trace in the next kill. */
#include "testlib.h"

#include <errno.h>

#include "oom-kmsg.h"

/* Feeds raw records; returns the number of kills, the last in *last. */
static int feed_all(struct oom_kmsg *st, const char *const *recs, size_t n, struct oom_kmsg_kill *last)
{
	int kills = 0;
	for (size_t i = 0; i < n; i++) {
		struct kmsg_record r;
		struct oom_kmsg_kill k;
		char why[160];
		assert_int_equal(kmsg_record_parse(recs[i], strlen(recs[i]), &r, why, sizeof(why)), 0);
		int e = oom_kmsg_feed(st, &r, &k, why, sizeof(why));
		if (e < 0)
			fail_msg("record %zu refused: %s", i, why);
		if (e == 1) {
			kills++;
			*last = k;
		}
	}
	return kills;
}

/* The lines of a kill by a memory cgroup v1 limit, as this kernel wrote
 * them (the call trace and the task table left out: they change nothing). */
static const char *const memcg_kill[] = {
	"4,377,18829831709,-;python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n",
	"4,378,18829831737,-;CPU: 0 UID: 0 PID: 9312 Comm: python3 Not tainted 6.18.44 #1 PREEMPT(none) \n",
	"6,406,18829832156,-;memory: usage 51200kB, limit 51200kB, failcnt 35\n",
	"6,407,18829832169,-;memory+swap: usage 51200kB, limit 9007199254740988kB, failcnt 0\n",
	"6,409,18829832172,-;Memory cgroup stats for /rwkmsgtest:\n",
	"6,430,18829832286,-;hierarchical_memory_limit 52428800\n",
	"6,455,18829832478,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
	"oom_memcg=/rwkmsgtest,task_memcg=/rwkmsgtest,task=python3,pid=9312,uid=0\n",
	"3,456,18829832494,-;Memory cgroup out of memory: Killed process 9312 (python3) total-vm:62264kB, "
	"anon-rss:50944kB, file-rss:5452kB, shmem-rss:0kB, UID:0 pgtables:160kB oom_score_adj:0\n",
};

static void test_record(void **state)
{
	(void)state;
	struct kmsg_record r;
	char why[160];
	const char *rec = "30,7,123456,c,caller=T1;hello world\n SUBSYSTEM=x\n";

	assert_int_equal(kmsg_record_parse(rec, strlen(rec), &r, why, sizeof(why)), 0);
	assert_int_equal(r.level, 6);
	assert_int_equal(r.facility, 3);
	assert_int_equal(r.seq, 7);
	assert_int_equal(r.usec, 123456);
	assert_true(r.continued);
	assert_int_equal(r.text_len, strlen("hello world"));
	assert_memory_equal(r.text, "hello world", r.text_len);

	static const char *const broken[] = {
		"no prefix at all\n", "6,1,2;text\n", "6,x,2,-;text\n", ",1,2,-;text\n", "6,1,2,-\n",
		"99999999999999999999999,1,2,-;text\n", "",
	};
	for (size_t i = 0; i < ELEMENTSOF(broken); i++) {
		why[0] = 0;
		assert_int_equal(kmsg_record_parse(broken[i], strlen(broken[i]), &r, why, sizeof(why)), -EBADMSG);
		assert_true(strlen(why) > 10);
	}
}

static void test_memcg_kill(void **state)
{
	(void)state;
	struct oom_kmsg st;
	struct oom_kmsg_kill k;

	oom_kmsg_init(&st);
	assert_int_equal(feed_all(&st, memcg_kill, ELEMENTSOF(memcg_kill), &k), 1);
	assert_int_equal(k.seq, 456);
	assert_int_equal(k.usec, 18829832494ull);
	assert_true(k.memcg);
	assert_int_equal(k.pid, 9312);
	assert_string_equal(k.comm, "python3");
	assert_int_equal(k.total_vm_kb, 62264);
	assert_int_equal(k.anon_rss_kb, 50944);
	assert_int_equal(k.file_rss_kb, 5452);
	assert_int_equal(k.shmem_rss_kb, 0);
	assert_true(k.have_uid && k.have_pgtables && k.have_oom_score_adj);
	assert_int_equal(k.uid, 0);
	assert_int_equal(k.pgtables_kb, 160);
	assert_int_equal(k.oom_score_adj, 0);
	assert_int_equal(k.constraint, OOM_CONSTRAINT_MEMCG);
	assert_string_equal(oom_constraint_name(k.constraint), "memcg");
	assert_true(k.have_oom_memcg && k.have_task_memcg);
	assert_string_equal(k.oom_memcg, "/rwkmsgtest");
	assert_string_equal(k.task_memcg, "/rwkmsgtest");
	assert_true(k.have_usage);
	assert_int_equal(k.usage_kb, 51200);
	assert_int_equal(k.limit_kb, 51200);
	assert_string_equal(k.invoker, "python3");

	/* the report is spent: a second kill without its header has none
	 * of the first's figures */
	static const char *const alone[] = {
		"3,500,18829900000,-;Memory cgroup out of memory: Killed process 9400 (python3) total-vm:1kB, "
		"anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:4kB oom_score_adj:-17\n",
	};
	assert_int_equal(feed_all(&st, alone, 1, &k), 1);
	assert_int_equal(k.pid, 9400);
	assert_int_equal(k.uid, 1000);
	assert_int_equal(k.oom_score_adj, -17);
	assert_int_equal(k.constraint, OOM_CONSTRAINT_MEMCG);
	assert_false(k.have_oom_memcg || k.have_task_memcg);
	assert_false(k.have_usage);
	assert_string_equal(k.invoker, "");
}

static void test_global_and_older(void **state)
{
	(void)state;
	struct oom_kmsg st;
	struct oom_kmsg_kill k;

	/* a global OOM: no usage line, the summary without memcgs */
	static const char *const global[] = {
		"4,10,100,-;stress invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), "
		"order=0, oom_score_adj=0\n",
		"6,40,200,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
		"task_memcg=/user.slice/user-1000.slice/session-3.scope,task=stress,pid=4242,uid=1000\n",
		"3,41,201,-;Out of memory: Killed process 4242 (stress) total-vm:8396804kB, anon-rss:7854524kB, "
		"file-rss:4kB, shmem-rss:0kB, UID:1000 pgtables:15412kB oom_score_adj:0\n",
	};
	oom_kmsg_init(&st);
	assert_int_equal(feed_all(&st, global, ELEMENTSOF(global), &k), 1);
	assert_false(k.memcg);
	assert_int_equal(k.constraint, OOM_CONSTRAINT_NONE);
	assert_false(k.have_usage);
	assert_int_equal(k.anon_rss_kb, 7854524);
	assert_string_equal(k.invoker, "stress");
	assert_false(k.have_oom_memcg);
	assert_true(k.have_task_memcg);
	assert_string_equal(k.task_memcg, "/user.slice/user-1000.slice/session-3.scope");

	/* the summary rate-limited away: a global kill's constraint unknown */
	static const char *const bare[] = {
		"3,42,300,-;Out of memory: Killed process 4243 (stress) total-vm:10kB, anon-rss:9kB, file-rss:1kB, "
		"shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n",
	};
	assert_int_equal(feed_all(&st, bare, 1, &k), 1);
	assert_int_equal(k.constraint, OOM_CONSTRAINT_UNKNOWN);
	assert_string_equal(oom_constraint_name(k.constraint), "unknown");

	/* before 5.1: the line ends after shmem-rss; the uid comes from the
	 * summary of the same pid */
	static const char *const old[] = {
		"6,50,400,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
		"oom_memcg=/a,task_memcg=/a/b,task=java,pid=77,uid=33\n",
		"3,51,401,-;Memory cgroup out of memory: Killed process 77 (java) total-vm:100kB, anon-rss:90kB, "
		"file-rss:5kB, shmem-rss:1kB\n",
	};
	assert_int_equal(feed_all(&st, old, ELEMENTSOF(old), &k), 1);
	assert_true(k.have_uid);
	assert_int_equal(k.uid, 33);
	assert_false(k.have_pgtables);
	assert_false(k.have_oom_score_adj);
	assert_string_equal(k.oom_memcg, "/a");
	assert_string_equal(k.task_memcg, "/a/b");

	/* a summary of another pid lends nothing to this kill */
	static const char *const other[] = {
		"6,60,500,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
		"oom_memcg=/x,task_memcg=/x,task=a,pid=5,uid=7\n",
		"3,61,501,-;Memory cgroup out of memory: Killed process 6 (b) total-vm:1kB, anon-rss:1kB, "
		"file-rss:0kB, shmem-rss:0kB\n",
	};
	assert_int_equal(feed_all(&st, other, ELEMENTSOF(other), &k), 1);
	assert_int_equal(k.pid, 6);
	assert_false(k.have_uid);
	assert_false(k.have_oom_memcg || k.have_task_memcg);
}

/* Names chosen to mislead: a comm holding ") total-vm:" or ",pid=", a
 * cgroup holding ",task_memcg=" and commas, bytes the kernel escapes. */
static void test_hostile_names(void **state)
{
	(void)state;
	struct oom_kmsg st;
	struct oom_kmsg_kill k;

	static const char *const recs[] = {
		"6,70,600,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
		"oom_memcg=/evil,task_memcg=/x,task_memcg=/evil/c,d,task=a,pid=1,uid=9,pid=88,uid=1001\n",
		"3,71,601,-;Memory cgroup out of memory: Killed process 88 (x) total-vm:1kB) total-vm:2kB, "
		"anon-rss:3kB, file-rss:4kB, shmem-rss:5kB, UID:1001 pgtables:6kB oom_score_adj:7\n",
	};
	oom_kmsg_init(&st);
	assert_int_equal(feed_all(&st, recs, ELEMENTSOF(recs), &k), 1);
	assert_int_equal(k.pid, 88);
	assert_string_equal(k.comm, "x) total-vm:1kB");
	assert_int_equal(k.total_vm_kb, 2);
	assert_int_equal(k.uid, 1001);
	assert_true(k.have_oom_memcg && k.have_task_memcg);
	assert_string_equal(k.oom_memcg, "/evil,task_memcg=/x");
	assert_string_equal(k.task_memcg, "/evil/c,d");

	/* escaped bytes come back, control characters shown as '?' */
	static const char *const esc[] = {
		"3,72,602,-;Out of memory: Killed process 90 (a\\x5cb\\x0ac\\xc3\\xa9) total-vm:1kB, anon-rss:1kB, "
		"file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n",
	};
	assert_int_equal(feed_all(&st, esc, 1, &k), 1);
	assert_string_equal(k.comm, "a\\b?c\xc3\xa9");
}

static void test_bad_lines(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"3,1,1,-;Out of memory: Killed process x (a) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
		"3,1,1,-;Out of memory: Killed process 0 (a) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
		"3,1,1,-;Out of memory: Killed process 5 (a) total-vm:1, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
		"3,1,1,-;Out of memory: Killed process 5 (a) total-vm:99999999999999999999999kB, anon-rss:1kB, "
		"file-rss:0kB, shmem-rss:0kB\n",
		"3,1,1,-;Out of memory: Killed process 5 (a) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, "
		"UID:-1 pgtables:4kB oom_score_adj:0\n",
		"3,1,1,-;Out of memory: Killed process 5 (a) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, "
		"UID:0 pgtables:4kB oom_score_adj:0 trailing\n",
		"3,1,1,-;Out of memory: Killed process 5 (0123456789012345678901234567890123456789012345678901234567890123"
		"456789) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
		"6,1,1,-;oom-kill:constraint=CONSTRAINT_WHATEVER,task=a,pid=1,uid=0\n",
		"6,1,1,-;oom-kill:constraint=CONSTRAINT_NONE,task=a,pid=1\n",
		"6,1,1,-;oom-kill:constraint=CONSTRAINT_NONE,task=a,pid=x,uid=0\n",
		"6,1,1,-;oom-kill:constraint=CONSTRAINT_NONE,pid=1,uid=0\n",
		"6,1,1,-;oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/a,task=a,pid=1,uid=0\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct oom_kmsg st;
		struct kmsg_record r;
		struct oom_kmsg_kill k;
		char why[160] = "";
		oom_kmsg_init(&st);
		assert_int_equal(kmsg_record_parse(bad[i], strlen(bad[i]), &r, why, sizeof(why)), 0);
		if (oom_kmsg_feed(&st, &r, &k, why, sizeof(why)) != -EBADMSG)
			fail_msg("line %zu was taken: %s", i, bad[i]);
		assert_true(strlen(why) > 10);
	}

	/* a usage line that does not read drops the report: the kill after
	 * it has no usage, and no invoker */
	struct oom_kmsg st;
	struct kmsg_record r;
	struct oom_kmsg_kill k;
	char why[160];
	static const char *const seq[] = {
		"4,1,1,-;p invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n",
		"6,2,2,-;memory: usage lots, limit 5kB, failcnt 0\n",
		"3,3,3,-;Memory cgroup out of memory: Killed process 5 (p) total-vm:1kB, anon-rss:1kB, file-rss:0kB, "
		"shmem-rss:0kB\n",
	};
	oom_kmsg_init(&st);
	assert_int_equal(kmsg_record_parse(seq[0], strlen(seq[0]), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), 0);
	assert_int_equal(kmsg_record_parse(seq[1], strlen(seq[1]), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), -EBADMSG);
	assert_int_equal(kmsg_record_parse(seq[2], strlen(seq[2]), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), 1);
	assert_false(k.have_usage);
	assert_string_equal(k.invoker, "");

	/* other lines are nobody's business */
	static const char *const other = "6,9,9,-;memory+swap: usage 51200kB, limit 9kB, failcnt 0\n";
	assert_int_equal(kmsg_record_parse(other, strlen(other), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), 0);
}

/* A path longer than a kill holds is cut, still a C string. */
static void test_long_path(void **state)
{
	(void)state;
	char rec[4096];
	char path[1500];
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = 0;
	snprintf(rec, sizeof(rec),
		 "6,1,1,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
		 "oom_memcg=%s,task_memcg=%s,task=a,pid=3,uid=0\n",
		 path, path);
	struct oom_kmsg st;
	struct kmsg_record r;
	struct oom_kmsg_kill k;
	char why[160];
	oom_kmsg_init(&st);
	assert_int_equal(kmsg_record_parse(rec, strlen(rec), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), 0);
	static const char *const kill = "3,2,2,-;Memory cgroup out of memory: Killed process 3 (a) total-vm:1kB, "
					"anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n";
	assert_int_equal(kmsg_record_parse(kill, strlen(kill), &r, why, sizeof(why)), 0);
	assert_int_equal(oom_kmsg_feed(&st, &r, &k, why, sizeof(why)), 1);
	assert_true(k.have_oom_memcg);
	assert_int_equal(strlen(k.oom_memcg), OOM_KMSG_PATH_MAX - 1);
	assert_int_equal(k.oom_memcg[0], '/');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record),         cmocka_unit_test(test_memcg_kill),
		cmocka_unit_test(test_global_and_older), cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_bad_lines),       cmocka_unit_test(test_long_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
