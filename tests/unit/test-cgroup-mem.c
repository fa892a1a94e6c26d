/* Memory cgroups: the controller found in mountinfo (v1 as this machine
 * mounts it, v2 alone, v2 without the controller, a container's mount of
 * a subtree), a process's group from /proc/PID/cgroup, limit values (none
 * as v1 and v2 write it), memory.stat and the OOM counters of both
 * versions; and, as root where a memory controller is mounted, a real
 * group made by the test: a limit on its parent applies to it, a child
 * process's memory shows in its usage, the group read after it is gone is
 * -ENOENT. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-cgroup-lib.h"

static const char mountinfo_v1[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs ro,size=4096k,nr_inodes=1024,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static const char proc_cgroup_v1[] = "9:name=systemd:/\n"
				     "4:memory:/process_api/5ebcfb57\n"
				     "2:cpuacct:/\n"
				     "0::/\n";

static void test_mounts(void **state)
{
	(void)state;
	struct cgroup_mem_mount m;
	char path[256];

	/* v1 with the controller wins over a v2 mount without it */
	assert_int_equal(cgroup_mem_mount_parse(mountinfo_v1, strlen(mountinfo_v1), "cpu io pids", &m), 0);
	assert_int_equal(m.version, CGROUP_MEM_V1);
	assert_string_equal(m.mount_point, "/sys/fs/cgroup/memory");
	assert_string_equal(m.root, "/");
	assert_int_equal(cgroup_mem_path_parse(proc_cgroup_v1, strlen(proc_cgroup_v1), &m, path, sizeof(path)), 0);
	assert_string_equal(path, "/process_api/5ebcfb57");

	/* v2 alone, with memory among the root's controllers; a mount point
	 * with a space the kernel escapes */
	static const char v2[] = "25 20 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
				 "26 20 0:23 / /mnt/with\\040space rw - ext4 /dev/sda1 rw\n";
	assert_int_equal(cgroup_mem_mount_parse(v2, strlen(v2), "cpuset cpu io memory hugetlb pids\n", &m), 0);
	assert_int_equal(m.version, CGROUP_MEM_V2);
	assert_string_equal(m.mount_point, "/sys/fs/cgroup");
	static const char v2_cgroup[] = "0::/system.slice/redis.service\n";
	assert_int_equal(cgroup_mem_path_parse(v2_cgroup, strlen(v2_cgroup), &m, path, sizeof(path)), 0);
	assert_string_equal(path, "/system.slice/redis.service");
	/* the same v2 without the controller, or its controllers unread */
	assert_int_equal(cgroup_mem_mount_parse(v2, strlen(v2), "cpu io pids\n", &m), -ENOENT);
	assert_int_equal(cgroup_mem_mount_parse(v2, strlen(v2), NULL, &m), -ENOENT);
	/* a v1 process line without memory: no group */
	assert_int_equal(cgroup_mem_mount_parse(mountinfo_v1, strlen(mountinfo_v1), NULL, &m), 0);
	static const char no_memory[] = "2:cpuacct:/\n0::/\n";
	assert_int_equal(cgroup_mem_path_parse(no_memory, strlen(no_memory), &m, path, sizeof(path)), -ENODATA);

	/* a container mounts its own subtree: paths are below its root */
	static const char sub[] = "600 500 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n";
	assert_int_equal(cgroup_mem_mount_parse(sub, strlen(sub), NULL, &m), 0);
	assert_string_equal(m.root, "/docker/abc");
	static const char in_sub[] = "4:memory:/docker/abc/app\n", at_root[] = "4:memory:/docker/abc\n",
			  outside[] = "4:memory:/docker/abcd\n";
	assert_int_equal(cgroup_mem_path_parse(in_sub, strlen(in_sub), &m, path, sizeof(path)), 0);
	assert_string_equal(path, "/app");
	assert_int_equal(cgroup_mem_path_parse(at_root, strlen(at_root), &m, path, sizeof(path)), 0);
	assert_string_equal(path, "/");
	assert_int_equal(cgroup_mem_path_parse(outside, strlen(outside), &m, path, sizeof(path)), -ENODATA);

	/* a path too long for the buffer, lines that are not lines */
	assert_int_equal(cgroup_mem_path_parse(in_sub, strlen(in_sub), &m, path, 3), -ENAMETOOLONG);
	static const char broken[] = "garbage\n";
	assert_int_equal(cgroup_mem_path_parse(broken, strlen(broken), &m, path, sizeof(path)), -EBADMSG);
	static const char broken_mount[] = "1 2 3\n";
	assert_int_equal(cgroup_mem_mount_parse(broken_mount, strlen(broken_mount), NULL, &m), -EBADMSG);
}

static void test_figures(void **state)
{
	(void)state;
	uint64_t v = 7;
	struct cgroup_mem m = { 0 };

	assert_int_equal(cgroup_mem_limit_parse("max\n", 4, &v), 0);
	assert_int_equal(cgroup_mem_limit_parse("9223372036854771712\n", 20, &v), 0);
	assert_int_equal(cgroup_mem_limit_parse("209715200\n", 10, &v), 1);
	assert_int_equal(v, 209715200);
	assert_int_equal(cgroup_mem_limit_parse("-1\n", 3, &v), -EBADMSG);
	assert_int_equal(cgroup_mem_limit_parse("", 0, &v), -EBADMSG);

	/* v1: the hierarchy's totals, and the limit that applies */
	static const char v1_stat[] = "cache 11485184\nrss 6176768\nshmem 10551296\n"
				      "hierarchical_memory_limit 52428800\nhierarchical_memsw_limit 9223372036854771712\n"
				      "total_cache 2427588608\ntotal_rss 185311232\ntotal_shmem 19988480\n";
	assert_int_equal(cgroup_mem_stat_parse(v1_stat, strlen(v1_stat), CGROUP_MEM_V1, &m), 0);
	assert_int_equal(m.anon, 185311232);
	assert_int_equal(m.file, 2427588608ull);
	assert_int_equal(m.shmem, 19988480);
	assert_true(m.have_applies);
	assert_int_equal(m.applies, 52428800);
	assert_false(m.have_kernel || m.have_sock);

	static const char v1_unlimited[] = "hierarchical_memory_limit 9223372036854771712\n";
	struct cgroup_mem u = { 0 };
	assert_int_equal(cgroup_mem_stat_parse(v1_unlimited, strlen(v1_unlimited), CGROUP_MEM_V1, &u), 0);
	assert_false(u.have_applies);

	static const char v2_stat[] = "anon 104857600\nfile 52428800\nkernel 8388608\nkernel_stack 65536\n"
				      "sock 4096\nshmem 1048576\nfile_mapped 0\n";
	struct cgroup_mem m2 = { 0 };
	assert_int_equal(cgroup_mem_stat_parse(v2_stat, strlen(v2_stat), CGROUP_MEM_V2, &m2), 0);
	assert_int_equal(m2.anon, 104857600);
	assert_int_equal(m2.file, 52428800);
	assert_true(m2.have_kernel && m2.have_sock);
	assert_int_equal(m2.kernel, 8388608);
	assert_int_equal(m2.sock, 4096);
	assert_int_equal(m2.shmem, 1048576);

	static const char oom_control[] = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
	assert_int_equal(cgroup_mem_events_parse(oom_control, strlen(oom_control), CGROUP_MEM_V1, &m), 0);
	assert_true(m.have_events);
	assert_int_equal(m.oom_kill, 3);
	static const char v2_events[] = "low 0\nhigh 12\nmax 40\noom 4\noom_kill 4\noom_group_kill 0\n";
	assert_int_equal(cgroup_mem_events_parse(v2_events, strlen(v2_events), CGROUP_MEM_V2, &m2), 0);
	assert_int_equal(m2.events_high, 12);
	assert_int_equal(m2.events_max, 40);
	assert_int_equal(m2.oom, 4);
	assert_int_equal(m2.oom_kill, 4);

	static const char *const bad[] = { "anon\n", "anon x\n", " 5\n", "anon 99999999999999999999999\n" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct cgroup_mem b = { 0 };
		assert_int_equal(cgroup_mem_stat_parse(bad[i], strlen(bad[i]), CGROUP_MEM_V2, &b), -EBADMSG);
		assert_int_equal(cgroup_mem_events_parse(bad[i], strlen(bad[i]), CGROUP_MEM_V2, &b), -EBADMSG);
	}
}

/* A real group: parent limited to 64 MiB, a child group with a process
 * holding 8 MiB written. */
static void test_live_group(void **state)
{
	(void)state;
	struct cgroup_mem_mount m;
	if (geteuid() != 0)
		skip();
	int r = cgroup_test_mount(&m);
	if (r == -ENOENT)
		skip();
	assert_int_equal(r, 0);

	char parent[CGROUP_MEM_PATH_MAX + 64], child[CGROUP_MEM_PATH_MAX + 80];
	snprintf(parent, sizeof(parent), "%s/rw-test-cgroup-mem-%d", m.mount_point, (int)getpid());
	snprintf(child, sizeof(child), "%s/child", parent);
	if (mkdir(parent, 0755) < 0)
		skip(); /* a read-only or delegated hierarchy */
	if (m.version == CGROUP_MEM_V2) {
		/* the child's controller must be enabled by its parent */
		assert_int_equal(cgroup_test_write(parent, "cgroup.subtree_control", "+memory"), 0);
	}
	assert_int_equal(mkdir(child, 0755), 0);
	assert_int_equal(cgroup_test_write(parent, m.version == CGROUP_MEM_V1 ? "memory.limit_in_bytes" : "memory.max",
				    "67108864"),
			 0);

	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[32];
		snprintf(buf, sizeof(buf), "%d", (int)getpid());
		if (cgroup_test_write(child, "cgroup.procs", buf) < 0)
			_exit(1);
		size_t n = 8u << 20;
		char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		memset(p, 1, n);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);

	int mount_fd = open(m.mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(mount_fd >= 0);
	char rel[700];
	snprintf(rel, sizeof(rel), "/rw-test-cgroup-mem-%d/child", (int)getpid());
	struct cgroup_mem g;
	assert_int_equal(cgroup_mem_read(mount_fd, &m, rel, &g), 0);
	assert_int_equal(g.version, m.version);
	/* the child has no limit of its own; its parent's applies */
	assert_false(g.have_limit);
	assert_true(g.have_applies);
	assert_int_equal(g.applies, 64u << 20);
	assert_true(g.usage >= 8u << 20 && g.usage < 64u << 20);
	assert_true(g.anon >= 8u << 20);
	assert_true(g.have_events);
	assert_int_equal(g.oom_kill, 0);

	/* the process's own /proc/PID/cgroup names the group */
	char procfile[64], *text = NULL, path[700];
	size_t tlen;
	snprintf(procfile, sizeof(procfile), "/proc/%d/cgroup", (int)pid);
	assert_int_equal(read_full_fileat(AT_FDCWD, procfile, 65536, &text, &tlen), 0);
	assert_int_equal(cgroup_mem_path_parse(text, tlen, &m, path, sizeof(path)), 0);
	free(text);
	assert_string_equal(path, rel);

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(rmdir(child), 0);
	assert_int_equal(cgroup_mem_read(mount_fd, &m, rel, &g), -ENOENT);
	assert_int_equal(rmdir(parent), 0);
	close(mount_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_live_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
