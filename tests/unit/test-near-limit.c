/* The census before death's watch (near-limit.h) and the OOM sources'
 * pure parts (oom-sources.h): the levels and their hysteresis, the polling
 * intervals, vmstat and the kept count, the clocks; then, as root, a real
 * memory cgroup with a child growing into its limit, whose group is told
 * near it before the kernel kills the child. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgroup-watch.h"
#include "event-loop.h"
#include "near-limit.h"
#include "oom-sources.h"
#include "test-cgroup-lib.h"
#include "util.h"

#define MiB (1024ull * 1024)

static void test_level(void **state)
{
	(void)state;
	/* rising: the share reached */
	assert_int_equal(near_limit_level(50, 100, 0.9, 0.97, 0), 0);
	assert_int_equal(near_limit_level(90, 100, 0.9, 0.97, 0), 1);
	assert_int_equal(near_limit_level(97, 100, 0.9, 0.97, 0), 2);
	assert_int_equal(near_limit_level(100, 100, 0.9, 0.97, 1), 2);
	/* falling: kept within the hysteresis, dropped past it */
	assert_int_equal(near_limit_level(93, 100, 0.9, 0.97, 2), 2);
	assert_int_equal(near_limit_level(91, 100, 0.9, 0.97, 2), 1);
	assert_int_equal(near_limit_level(86, 100, 0.9, 0.97, 1), 1);
	assert_int_equal(near_limit_level(84, 100, 0.9, 0.97, 1), 0);
	assert_int_equal(near_limit_level(10, 100, 0.9, 0.97, 2), 0);
	/* a share turned off */
	assert_int_equal(near_limit_level(99, 100, 0.9, 0, 0), 1);
	assert_int_equal(near_limit_level(99, 100, 0, 0, 0), 0);
	assert_int_equal(near_limit_level(99, 100, 0, 0.97, 0), 2);
	/* no limit */
	assert_int_equal(near_limit_level(99, 0, 0.9, 0.97, 0), 0);
}

static void test_poll_interval(void **state)
{
	(void)state;
	assert_int_equal(near_limit_poll_interval(0.1, 0.9), 1000 * 1000);
	assert_int_equal(near_limit_poll_interval(0.5, 0.9), 250 * 1000);
	assert_int_equal(near_limit_poll_interval(0.7, 0.9), 100 * 1000);
	assert_int_equal(near_limit_poll_interval(0.85, 0.9), 50 * 1000);
	assert_int_equal(near_limit_poll_interval(0.9, 0.9), 20 * 1000);
	assert_int_equal(near_limit_poll_interval(1.2, 0.9), 20 * 1000);
	/* faster as it nears, never slower */
	uint64_t last = UINT64_MAX;
	for (double s = 0; s <= 1.0; s += 0.01) {
		uint64_t v = near_limit_poll_interval(s, 0.9);
		assert_true(v <= last);
		last = v;
	}
}

static void test_vmstat(void **state)
{
	(void)state;
	static const char text[] = "nr_free_pages 12\noom_kill_x 5\noom_kill 42\npgfault 7\n";
	uint64_t v;
	assert_int_equal(oom_sources_parse_vmstat(text, strlen(text), &v), 0);
	assert_int_equal(v, 42);
	static const char last[] = "nr_free_pages 12\noom_kill 7";
	assert_int_equal(oom_sources_parse_vmstat(last, strlen(last), &v), 0);
	assert_int_equal(v, 7);
	static const char none[] = "nr_free_pages 12\n";
	assert_int_equal(oom_sources_parse_vmstat(none, strlen(none), &v), -ENOENT);
	static const char bad[] = "oom_kill x1\n";
	assert_int_equal(oom_sources_parse_vmstat(bad, strlen(bad), &v), -EBADMSG);
}

static void test_count_file(void **state)
{
	(void)state;
	static const char text[] = "0b5c3d 17\n";
	uint64_t v = 0;
	assert_int_equal(oom_sources_parse_count(text, strlen(text), "0b5c3d", &v), 0);
	assert_int_equal(v, 17);
	assert_int_equal(oom_sources_parse_count(text, strlen(text), "ffff", &v), -ESTALE);
	assert_int_equal(oom_sources_parse_count(text, strlen(text), "0b5c3", &v), -ESTALE);
	assert_int_equal(oom_sources_parse_count("0b5c3d", 6, "0b5c3d", &v), -EBADMSG);
	assert_int_equal(oom_sources_parse_count("0b5c3d x\n", 9, "0b5c3d", &v), -EBADMSG);
	assert_int_equal(oom_sources_parse_count(" 5\n", 3, "0b5c3d", &v), -EBADMSG);
}

static void test_clocks(void **state)
{
	(void)state;
	/* 1.5 s before now on the monotonic clock is 1.5 s before now */
	assert_int_equal(oom_sources_unix_ms(10000000000ull, 1700000000000, 11500000000ull), 1700000000000 - 1500);
	/* a time ahead of now (the log's clock drifts) is now */
	assert_int_equal(oom_sources_unix_ms(12000000000ull, 1700000000000, 11500000000ull), 1700000000000);
}

static void test_path_within(void **state)
{
	(void)state;
	assert_true(cgroup_watch_path_within("/a/b", "/a"));
	assert_true(cgroup_watch_path_within("/a", "/a"));
	assert_true(cgroup_watch_path_within("/a/b", "/"));
	assert_false(cgroup_watch_path_within("/ab", "/a"));
	assert_false(cgroup_watch_path_within("/a", "/a/b"));
}

/* ------------------------------------------------------------ a real group */

struct told {
	char path[CGROUP_MEM_PATH_MAX];
	uint64_t usage, limit;
	int level, times;
};

static void on_near(void *userdata, const char *path, uint64_t usage, uint64_t limit, int level)
{
	struct told *t = userdata;
	if (!path)
		return; /* the host: not this test's */
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->usage = usage;
	t->limit = limit;
	t->level = level;
	t->times++;
}

/* What test_real_group made, undone by its teardown even when it fails:
 * the child killed, the group removed. */
static pid_t made_child = -1;
static char made_dir[1024];

static int remove_group(void **state)
{
	(void)state;
	if (made_child > 0) {
		kill(made_child, SIGKILL);
		waitpid(made_child, NULL, 0);
		made_child = -1;
	}
	for (int i = 0; made_dir[0] && i < 50 && rmdir(made_dir) < 0 && errno != ENOENT; i++)
		usleep(100 * 1000);
	made_dir[0] = 0;
	return 0;
}

static void test_real_group(void **state)
{
	(void)state;
	struct cgroup_mem_mount m;
	struct cgroup_watch *cw;
	char *dir = made_dir, rel[256];

	if (geteuid() != 0 || cgroup_test_mount(&m) < 0 || cgroup_watch_new(NULL, &cw) < 0)
		skip();
	snprintf(rel, sizeof(rel), "/rw-test-near-limit-%d", (int)getpid());
	snprintf(made_dir, sizeof(made_dir), "%.700s%s", m.mount_point, rel);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgroup_test_write(dir, m.version == CGROUP_MEM_V1 ? "memory.limit_in_bytes" : "memory.max",
					   "67108864"), 0);
	if (m.version == CGROUP_MEM_V2)
		(void)cgroup_test_write(dir, "memory.swap.max", "0");
	pid_t child = made_child = cgroup_test_child(dir, false);
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/%d", (int)child);
	usleep(100 * 1000);

	/* the group of the child, its limit, its id */
	int pfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(pfd >= 0);
	cgroup_watch_begin(cw);
	cgroup_watch_add_process(cw, pfd, 5 * MiB, 6 * MiB);
	cgroup_watch_end(cw, NULL, 0);
	close(pfd);
	size_t n;
	const struct export_cgroup *e = cgroup_watch_export(cw, &n);
	assert_int_equal(n, 1);
	assert_string_equal(e[0].path, rel);
	assert_true(e[0].have_limit);
	assert_int_equal(e[0].limit, 64 * MiB);
	const struct cgroup_watch_limit *l = cgroup_watch_limits(cw, &n);
	assert_int_equal(n, 1);
	assert_string_equal(l[0].path, rel);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	char found[CGROUP_MEM_PATH_MAX];
	assert_int_equal(cgroup_watch_path_of_id(cw, st.st_ino, found, sizeof(found)), 0);
	assert_string_equal(found, rel);
	assert_int_equal(cgroup_watch_path_of_id(cw, UINT64_MAX - 1, found, sizeof(found)), -ENOENT);

	/* told near the limit before the kill: a child that grows */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	made_child = -1;
	struct event_loop *loop;
	struct near_limit *nl;
	struct told t = { 0 };
	struct near_limit_settings s = { .near = 0.5, .again = 0.8 };
	assert_int_equal(event_loop_new(&loop), 0);
	assert_int_equal(near_limit_new(loop, cw, AT_FDCWD, &s, on_near, &t, &nl), 0);
	near_limit_update(nl, l, n);
	assert_int_equal(t.times, 0); /* empty: not near */
	child = made_child = cgroup_test_child(dir, true);
	int status = 0;
	for (int i = 0; i < 2000 && waitpid(child, &status, WNOHANG) == 0; i++)
		(void)event_loop_run_once(loop, 5000);
	(void)event_loop_run_once(loop, 0);
	if (WIFSIGNALED(status))
		made_child = -1;
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(t.times, 2); /* both shares, once each */
	assert_int_equal(t.level, 2);
	assert_string_equal(t.path, rel);
	assert_int_equal(t.limit, 64 * MiB);
	assert_true(t.usage >= 51 * MiB);

	near_limit_free(nl);
	event_loop_free(loop);
	cgroup_watch_free(cw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level),	  cmocka_unit_test(test_poll_interval), cmocka_unit_test(test_vmstat),
		cmocka_unit_test(test_count_file), cmocka_unit_test(test_clocks),	cmocka_unit_test(test_path_within),
		cmocka_unit_test_teardown(test_real_group, remove_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
