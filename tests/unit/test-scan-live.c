/* Censuses of real processes: identity, conservation against the kernel's
 * smaps_rollup, a process killed while its smaps is read, gone, a kernel
 * thread, and a fixture /proc tree. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "census.h"
#include "fileio.h"
#include "limits.h"
#include "proc-parse.h"
#include "scan.h"
#include "util.h"

/* Waits until the child sleeps in pause(): between its "ready" and that,
 * it still runs (and may touch memory), which a census racing it would see
 * and the kernel's sums read a moment later would not. */
static void wait_idle(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 2000; i++) {
		char *text;
		size_t len;
		if (read_full_fileat(AT_FDCWD, path, 4096, &text, &len) == 0) {
			long nr = strtol(text, NULL, 10);
			free(text);
#ifdef SYS_pause
			if (nr == SYS_pause)
				return;
#else
			if (nr == SYS_ppoll || nr == SYS_rt_sigsuspend)
				return;
#endif
		}
		usleep(1000);
	}
	fail_msg("child %d did not settle in pause()", (int)pid);
}

/* A child with n separate mappings (alternating protections so they do
 * not merge), idle until killed.  Returns its pid once it is ready. */
/* A child holding n pages of its own, in n regions; *at (when not NULL)
 * is where they start. */
static pid_t spawn_mappings_at(long n, uint64_t *at)
{
	int pipefd[2];
	assert_int_equal(pipe(pipefd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long page = sysconf(_SC_PAGESIZE);
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed test */
		char *base = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (base == MAP_FAILED)
			_exit(1);
		for (long i = 0; i < n; i++) {
			base[i * page] = 1;
			if (i % 2)
				mprotect(base + i * page, (size_t)page, PROT_READ);
		}
		uint64_t where = (uint64_t)(uintptr_t)base;
		if (write(pipefd[1], &where, sizeof(where)) != (ssize_t)sizeof(where))
			_exit(1);
		for (;;)
			pause();
	}
	uint64_t where;
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &where, sizeof(where)), sizeof(where));
	close(pipefd[0]);
	if (at)
		*at = where;
	wait_idle(pid);
	return pid;
}

static pid_t spawn_mappings(long n)
{
	return spawn_mappings_at(n, NULL);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static struct parsed rollup(pid_t pid)
{
	char path[64];
	char *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	assert_int_equal(read_full_fileat(AT_FDCWD, path, 1 << 20, &text, &len), 0);
	struct parsed p = parse_text_ex(text, len, false, NULL);
	free(text);
	assert_int_equal(p.error, 0);
	assert_int_equal(p.n, 1);
	return p;
}

static void test_live_child(void **state)
{
	(void)state;
	pid_t pid = spawn_mappings(500);
	struct census *c = NULL;
	struct error err;
	struct scan_options o = { .keep_regions = true };

	assert_int_equal(scan_process(pid, &o, &c, &err), 0);
	assert_int_equal(c->pid, pid);
	assert_true(c->totals.count >= 500);
	assert_int_equal(c->uid, (int64_t)getuid());
	assert_non_null(c->exe);
	assert_non_null(c->boot_id);
	assert_int_equal(strlen(c->boot_id), 36);
	assert_true(c->cmdline && strstr(c->cmdline, "test-scan-live"));
	struct proc_stat st;
	char path[64], *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	assert_int_equal(read_full_fileat(AT_FDCWD, path, 4096, &text, &len), 0);
	assert_int_equal(stat_parse(text, len, &st), 0);
	free(text);
	assert_int_equal(c->start_time, (int64_t)st.start_time);
	assert_true(c->wall_us > 0 && c->cpu_us >= 0 && c->bytes_read > 0);

	/* conservation against the kernel's own sums of the same moment (the
	 * child is idle) */
	struct parsed r = rollup(pid);
	assert_int_equal(c->totals.resident, region_field(&r.r[0], COUNT_RSS));
	assert_int_equal(c->totals.private,
			 region_field(&r.r[0], COUNT_ANONYMOUS) + region_field(&r.r[0], COUNT_SWAP));
	parsed_free(&r);
	/* Pss: smaps truncates each region's to a kB, the rollup sums first.
	 * A shared page's share moves whenever any process on the host maps
	 * or unmaps the libraries, so the census is compared with rollups
	 * read just before and after it that agree. */
	bool compared = false;
	for (int attempt = 0; attempt < 20 && !compared; attempt++) {
		struct census *again = NULL;
		struct parsed before = rollup(pid);
		assert_int_equal(scan_process(pid, &o, &again, &err), 0);
		struct parsed after = rollup(pid);
		uint64_t pss = region_field(&before.r[0], COUNT_PSS);
		if (pss == region_field(&after.r[0], COUNT_PSS)) {
			assert_true(again->totals.pss <= pss && pss - again->totals.pss <= again->totals.count * 1024);
			compared = true;
		}
		parsed_free(&before);
		parsed_free(&after);
		census_free(again);
	}
	assert_true(compared);
	struct census_totals sum;
	census_class_sum(c, &sum);
	assert_int_equal(sum.private, c->totals.private);
	assert_int_equal(sum.resident, c->totals.resident);
	census_free(c);
	reap(pid);
}

/* Two censuses of an idle process with many regions (read in many
 * chunks) agree. */
static void test_repeatable(void **state)
{
	(void)state;
	uint64_t base, page = (uint64_t)sysconf(_SC_PAGESIZE);
	pid_t pid = spawn_mappings_at(5000, &base);
	struct census *a = NULL, *b = NULL;
	struct error err;
	struct scan_options o = { .keep_regions = true };
	assert_int_equal(scan_process(pid, &o, &a, &err), 0);
	assert_int_equal(scan_process(pid, &o, &b, &err), 0);
	/* Not Pss, nor the private figure of the whole process: a page is
	 * private while one process maps it, so the parent writing pages
	 * shared since the fork, or any program starting with the same
	 * libraries, moves pages between shared and private.  The pages the
	 * child mapped after the fork are its alone; resident does not count
	 * mappers. */
	uint64_t own_a = 0, own_b = 0;
	assert_int_equal(a->n_regions, b->n_regions);
	for (size_t i = 0; i < a->n_regions; i++) {
		assert_int_equal(a->regions[i].start, b->regions[i].start);
		if (a->regions[i].start >= base && a->regions[i].end <= base + 5000 * page) {
			own_a += a->regions[i].private;
			own_b += b->regions[i].private;
		}
	}
	assert_int_equal(own_a, 5000 * page);
	assert_int_equal(own_a, own_b);
	assert_int_equal(a->totals.resident, b->totals.resident);
	assert_int_equal(a->totals.size, b->totals.size);
	assert_int_equal(a->totals.count, b->totals.count);
	assert_int_equal(a->n_regions, b->n_regions);
	assert_int_equal(a->bytes_read, b->bytes_read);
	assert_true(a->bytes_read > 16 * RW_SMAPS_READ_SIZE); /* many chunks */
	census_free(a);
	census_free(b);
	reap(pid);
}

struct killer {
	pid_t pid;
	bool reap;
	int calls;
};

static int kill_on_first_chunk(void *userdata, uint64_t bytes)
{
	struct killer *k = userdata;
	(void)bytes;
	if (k->calls++ == 0) {
		kill(k->pid, SIGKILL);
		if (k->reap)
			waitpid(k->pid, NULL, 0);
		else
			usleep(100000); /* let it become a zombie */
	}
	return 0;
}

/* The kernel ends an smaps cleanly, early, when the process dies during
 * the read: that must be "exited", never a short census. */
static void test_killed_mid_read(void **state)
{
	(void)state;
	for (int reap_it = 0; reap_it < 2; reap_it++) {
		pid_t pid = spawn_mappings(30000);
		struct killer k = { .pid = pid, .reap = reap_it };
		struct scan_options o = { .progress = kill_on_first_chunk, .userdata = &k };
		struct census *c = NULL;
		struct error err;
		int r = scan_process(pid, &o, &c, &err);
		if (r != -ESRCH)
			fail_msg("reap %d: %d %s (%lld regions)", reap_it, r, err.message,
				 c ? (long long)c->totals.count : -1LL);
		assert_null(c);
		assert_non_null(strstr(err.message, "exited during the scan"));
		assert_true(k.calls >= 1);
		if (!reap_it)
			waitpid(pid, NULL, 0);
	}
}

static int abort_scan(void *userdata, uint64_t bytes)
{
	(void)userdata;
	(void)bytes;
	return -ECANCELED;
}

static void test_progress_abort(void **state)
{
	(void)state;
	pid_t pid = spawn_mappings(10);
	struct scan_options o = { .progress = abort_scan };
	struct census *c = NULL;
	struct error err;
	assert_int_equal(scan_process(pid, &o, &c, &err), -ECANCELED);
	assert_null(c);
	reap(pid);
}

static void test_gone_and_kernel_threads(void **state)
{
	(void)state;
	struct census *c = NULL;
	struct error err;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	assert_int_equal(scan_process(pid, NULL, &c, &err), -ENOENT);
	assert_non_null(strstr(err.message, "no process"));

	/* a zombie: alive in /proc, its memory gone */
	pid = fork();
	if (pid == 0)
		_exit(0);
	usleep(100000);
	assert_int_equal(scan_process(pid, NULL, &c, &err), -ESRCH);
	assert_non_null(strstr(err.message, "has exited: a zombie"));
	waitpid(pid, NULL, 0);

	/* pid 2 is kthreadd on Linux */
	assert_int_equal(scan_process(2, NULL, &c, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.message, "kernel thread"));
	assert_null(c);
}

static void write_file_n(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	close(fd);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	write_file_n(dir, name, text, strlen(text));
}

/* The proc root is a parameter: a fixture tree stands for /proc. */
static void test_fixture_proc_root(void **state)
{
	(void)state;
	char root[] = "/tmp/ramwatch-proc-XXXXXX", dir[512];
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/4242", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/4242/task", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/4242/task/4243", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys/kernel", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/sys/kernel/random", root);
	mkdir(dir, 0755);

	snprintf(dir, sizeof(dir), "%s/4242", root);
	write_file(dir, "stat", "4242 (worker) S 1 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 2 0 5555 0 0\n");
	write_file(dir, "status", "Name:\tworker\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\n"
				  "VmHWM:\t   16384 kB\nVmRSS:\t    8204 kB\nRssAnon:\t    8200 kB\nVmSwap:\t       0 kB\n");
	static const char cmdline[] = "worker\0--jobs\0" "4\0";
	write_file_n(dir, "cmdline", cmdline, sizeof(cmdline) - 1);
	struct text t;
	FILE *f = text_open(&t);
	put_region(f, 0x7f0000000000, 0x7f0000001000, "---p", NULL, 0, 0, "mr mw me ");
	put_region(f, 0x7f0000001000, 0x7f0000801000, "rw-p", NULL, 8192 * 1024, 8192 * 1024, "rd wr mr mw me ac ");
	put_region(f, 0x7ffc00000000, 0x7ffc00002000, "rw-p", "[stack]", 8192, 8192, "rd wr mr mw me ac gd ");
	char *smaps = text_close(&t);
	write_file(dir, "smaps", smaps);
	free(smaps);
	snprintf(dir, sizeof(dir), "%s/4242/task/4243", root);
	write_file(dir, "syscall", "202 0x1 0x2 0x3 0x4 0x5 0x6 0x7f0000700000 0x7f0000123456\n");
	snprintf(dir, sizeof(dir), "%s/sys/kernel/random", root);
	write_file(dir, "boot_id", "0b4f0f6e-52a1-4c3f-9a53-8b2a6c6f1f00\n");

	struct scan_options o = { .proc_root = root, .keep_regions = true };
	struct census *c = NULL;
	struct error err;
	int r = scan_process(4242, &o, &c, &err);
	if (r < 0)
		fail_msg("%s", err.message);
	assert_int_equal(c->pid, 4242);
	assert_int_equal(c->start_time, 5555);
	assert_string_equal(c->comm, "worker");
	assert_string_equal(c->cmdline, "worker --jobs 4");
	assert_string_equal(c->boot_id, "0b4f0f6e-52a1-4c3f-9a53-8b2a6c6f1f00");
	assert_null(c->exe); /* no exe link in the tree: unknown */
	assert_int_equal(c->uid, 1000);
	assert_int_equal(c->stack_pointers, 1);
	assert_int_equal(c->regions[1].cls, CLASS_STACKS);
	assert_string_equal(c->regions[1].rule, "stack_pointer");
	assert_int_equal(census_private(c), 8200 * KiB);
	assert_int_equal(c->totals.private, 8200 * KiB);
	census_free(c);

	/* no such pid in the tree */
	assert_int_equal(scan_process(4343, &o, &c, &err), -ENOENT);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

static void test_self(void **state)
{
	(void)state;
	struct census *c = NULL;
	struct error err;
	assert_int_equal(scan_process(getpid(), NULL, &c, &err), 0);
	assert_true(c->totals.count > 10);
	assert_true(c->classes[CLASS_IMAGES].count > 0);
	assert_true(c->classes[CLASS_STACKS].count > 0);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_child),
		cmocka_unit_test(test_repeatable),
		cmocka_unit_test(test_killed_mid_read),
		cmocka_unit_test(test_progress_abort),
		cmocka_unit_test(test_gone_and_kernel_threads),
		cmocka_unit_test(test_fixture_proc_root),
		cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
