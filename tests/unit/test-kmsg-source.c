/* The kernel's log as a source of OOM kills, on the real /dev/kmsg (as
 * root, with a memory cgroup controller; skipped elsewhere): a kill line
 * a program writes into the log, with any prefix, is not a kill; a real
 * OOM kill of a child the test grows in a memory cgroup it makes is read
 * with its pid, the group's path and limit; records read stop at the
 * number asked. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmsg-source.h"
#include "test-cgroup-lib.h"

struct kills {
	unsigned n;
	struct oom_kmsg_kill k[16];
};

static int on_kill(void *userdata, const struct oom_kmsg_kill *k)
{
	struct kills *s = userdata;
	if (s->n < ELEMENTSOF(s->k))
		s->k[s->n] = *k;
	s->n++;
	return 0;
}

static void read_all(struct kmsg_source *s)
{
	while (kmsg_source_read(s, 64) > 0)
		;
}

static void test_fake_and_real(void **state)
{
	(void)state;
	struct kills seen = { 0 };
	struct kmsg_source *s;
	struct cgroup_mem_mount m;

	if (geteuid() != 0 || kmsg_source_open(NULL, on_kill, &seen, &s) < 0)
		skip();
	if (cgroup_test_mount(&m) == -ENOENT) {
		kmsg_source_free(s);
		skip();
	}

	/* lines a program writes, even with the kernel's level prefix */
	static const char *const fakes[] = {
		"<3>Memory cgroup out of memory: Killed process 1 (init) total-vm:1kB, anon-rss:1kB, file-rss:0kB, "
		"shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n",
		"Out of memory: Killed process 1 (init) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(fakes); i++)
		assert_int_equal(cgroup_test_write("/dev", "kmsg", fakes[i]), 0);
	read_all(s);
	assert_int_equal(seen.n, 0);

	char dir[CGROUP_MEM_PATH_MAX + 64];
	snprintf(dir, sizeof(dir), "%s/rw-test-kmsg-source-%d", m.mount_point, (int)getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(cgroup_test_write(dir, m.version == CGROUP_MEM_V1 ? "memory.limit_in_bytes" : "memory.max",
				    "33554432"),
			 0);
	pid_t pid = cgroup_test_child(dir, true);
	assert_true(pid >= 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	for (int i = 0; i < 50 && seen.n == 0; i++) {
		read_all(s);
		usleep(20 * 1000);
	}
	assert_int_equal(seen.n, 1);
	const struct oom_kmsg_kill *k = &seen.k[0];
	assert_int_equal(k->pid, pid);
	assert_true(k->memcg);
	assert_int_equal(k->constraint, OOM_CONSTRAINT_MEMCG);
	assert_true(k->anon_rss_kb >= 16 * 1024);
	char rel[CGROUP_MEM_PATH_MAX + 64];
	snprintf(rel, sizeof(rel), "/rw-test-kmsg-source-%d", (int)getpid());
	/* the paths and usage come from lines the kernel rate-limits: where
	 * they came, they name the group */
	if (k->have_task_memcg)
		assert_string_equal(k->task_memcg, rel);
	if (k->have_usage)
		assert_int_equal(k->limit_kb, 32 * 1024);

	struct kmsg_source_stats st;
	kmsg_source_stats(s, &st);
	assert_true(st.records >= 3);
	assert_int_equal(rmdir(dir), 0);
	kmsg_source_free(s);
}

static void test_open_errors(void **state)
{
	(void)state;
	struct kmsg_source *s;
	assert_int_equal(kmsg_source_open("/nonexistent/kmsg", on_kill, NULL, &s), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_and_real),
		cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
