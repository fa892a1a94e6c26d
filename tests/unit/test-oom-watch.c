/* The OOM watch on real kills: as root on a kernel with BTF and a memory
 * cgroup controller, a child that grows past its group's 32 MiB limit is
 * marked and killed, and the watch tells it with the group's inode,
 * its limit and usage; a limit on the parent group is the one told as
 * hit; a kill -9 of another child is not told.  Elsewhere the watch must
 * fail to load with a negative errno (skipped, not passed). */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-cgroup-lib.h"
#include "oom-watch.h"

#define PAGE 4096ull

struct seen {
	unsigned n;
	struct oom_watch_event e[64];
};

static int on_event(void *userdata, const struct oom_watch_event *e)
{
	struct seen *s = userdata;
	if (s->n < ELEMENTSOF(s->e))
		s->e[s->n] = *e;
	s->n++;
	return 0;
}

/* Waits for the watch to tell n events (at most 5 s). */
static void wait_events(struct oom_watch *w, struct seen *s, unsigned n)
{
	for (int i = 0; i < 50 && s->n < n; i++) {
		struct pollfd p = { .fd = oom_watch_fd(w), .events = POLLIN };
		poll(&p, 1, 100);
		assert_true(oom_watch_read(w) >= 0);
	}
}

static const struct oom_watch_event *find(const struct seen *s, uint32_t kind, int pid)
{
	for (unsigned i = 0; i < s->n && i < ELEMENTSOF(s->e); i++)
		if (s->e[i].kind == kind && (int)s->e[i].pid == pid)
			return &s->e[i];
	return NULL;
}

static void test_real_kills(void **state)
{
	(void)state;
	struct seen seen = { 0 };
	struct oom_watch *w = NULL;
	struct cgroup_mem_mount m;

	int r = oom_watch_new(on_event, &seen, &w);
	if (!change_watch_expected()) {
		assert_true(r < 0);
		skip();
	}
	assert_int_equal(r, 0);
	if (cgroup_test_mount(&m) == -ENOENT) {
		oom_watch_free(w);
		skip();
	}

	char parent[CGROUP_MEM_PATH_MAX + 64], child[CGROUP_MEM_PATH_MAX + 80];
	snprintf(parent, sizeof(parent), "%s/rw-test-oom-watch-%d", m.mount_point, (int)getpid());
	snprintf(child, sizeof(child), "%s/child", parent);
	assert_int_equal(mkdir(parent, 0755), 0);
	if (m.version == CGROUP_MEM_V2)
		assert_int_equal(cgroup_test_write(parent, "cgroup.subtree_control", "+memory"), 0);
	assert_int_equal(mkdir(child, 0755), 0);
	const char *limit_file = m.version == CGROUP_MEM_V1 ? "memory.limit_in_bytes" : "memory.max";
	struct stat st_parent, st_child;
	assert_int_equal(stat(parent, &st_parent), 0);
	assert_int_equal(stat(child, &st_child), 0);

	/* 1: the child group's own limit is hit */
	assert_int_equal(cgroup_test_write(child, limit_file, "33554432"), 0);
	pid_t a = cgroup_test_child(child, true);
	int status;
	assert_int_equal(waitpid(a, &status, 0), a);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	wait_events(w, &seen, 1);
	const struct oom_watch_event *v = find(&seen, OOM_WATCH_VICTIM, a);
	assert_non_null(v);
	assert_true(v->killed);
	assert_true(v->kill_time_ns <= v->time_ns && v->time_ns - v->kill_time_ns < 1000000000ull);
	assert_int_equal(v->uid, 0);
	assert_true(v->total_vm * PAGE >= 16 * MiB);
	assert_int_equal(v->memcg_id, (uint64_t)st_child.st_ino);
	assert_int_equal(v->memcg_max, 32 * MiB / PAGE);
	assert_int_equal(v->limit_id, (uint64_t)st_child.st_ino);
	assert_int_equal(v->limit_max, 32 * MiB / PAGE);
	assert_true(v->limit_usage * PAGE >= 30 * MiB);
	assert_true(v->levels >= 2);

	/* 2: the limit is on the parent: the group told as hit is the parent */
	assert_int_equal(cgroup_test_write(child, limit_file, m.version == CGROUP_MEM_V1 ? "-1" : "max"), 0);
	assert_int_equal(cgroup_test_write(parent, limit_file, "25165824"), 0);
	seen.n = 0;
	pid_t b = cgroup_test_child(child, true);
	assert_int_equal(waitpid(b, &status, 0), b);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	wait_events(w, &seen, 1);
	v = find(&seen, OOM_WATCH_VICTIM, b);
	assert_non_null(v);
	assert_true(v->killed);
	assert_int_equal(v->memcg_id, (uint64_t)st_child.st_ino);
	assert_int_equal(v->limit_id, (uint64_t)st_parent.st_ino);
	assert_int_equal(v->limit_max, 24 * MiB / PAGE);

	/* 3: a kill -9 is no OOM kill */
	seen.n = 0;
	pid_t c = cgroup_test_child(child, false);
	usleep(100 * 1000);
	kill(c, SIGKILL);
	assert_int_equal(waitpid(c, &status, 0), c);
	wait_events(w, &seen, 1);
	assert_null(find(&seen, OOM_WATCH_VICTIM, c));
	/* the watch tells every OOM kill of the machine: another program's
	 * may come meanwhile, but none in the test's groups */
	for (unsigned i = 0; i < seen.n && i < ELEMENTSOF(seen.e); i++)
		assert_true(seen.e[i].memcg_id != (uint64_t)st_child.st_ino &&
			    seen.e[i].memcg_id != (uint64_t)st_parent.st_ino);

	oom_watch_free(w);
	assert_int_equal(rmdir(child), 0);
	assert_int_equal(rmdir(parent), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_kills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
