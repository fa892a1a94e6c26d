/* /proc/meminfo and /proc/pressure/memory parsing, and the reader over a
 * fixture proc root. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysmem.h"

static const char meminfo[] = "MemTotal:       24684084 kB\n"
			      "MemFree:        23000000 kB\n"
			      "MemAvailable:   24110204 kB\n"
			      "SwapTotal:       2097148 kB\n"
			      "SwapFree:        1048576 kB\n"
			      "CommitLimit:    12342040 kB\n"
			      "Committed_AS:     738376 kB\n"
			      "HugePages_Total:       0\n";

static void test_meminfo(void **state)
{
	(void)state;
	struct store_system s = { .time = 7 };
	assert_int_equal(meminfo_parse(meminfo, strlen(meminfo), &s), 0);
	assert_int_equal(s.time, 7);
	assert_int_equal(s.mem_total, 24684084ull * 1024);
	assert_int_equal(s.mem_available, 24110204ull * 1024);
	assert_int_equal(s.swap_total, 2097148ull * 1024);
	assert_int_equal(s.swap_free, 1048576ull * 1024);
	assert_int_equal(s.commit_limit, 12342040ull * 1024);
	assert_int_equal(s.committed_as, 738376ull * 1024);
}

static void test_meminfo_bad(void **state)
{
	(void)state;
	struct store_system s = { 0 };
	/* a wanted line missing (MemAvailable came in Linux 3.14) */
	const char *old = "MemTotal: 100 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\nCommitLimit: 1 kB\nCommitted_AS: 1 kB\n";
	assert_int_equal(meminfo_parse(old, strlen(old), &s), -EBADMSG);
	const char *unit = "MemTotal: 100 MB\nMemAvailable: 1 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
			   "CommitLimit: 1 kB\nCommitted_AS: 1 kB\n";
	assert_int_equal(meminfo_parse(unit, strlen(unit), &s), -EBADMSG);
	const char *huge = "MemTotal: 99999999999999999999 kB\nMemAvailable: 1 kB\nSwapTotal: 0 kB\n"
			   "SwapFree: 0 kB\nCommitLimit: 1 kB\nCommitted_AS: 1 kB\n";
	assert_int_equal(meminfo_parse(huge, strlen(huge), &s), -EBADMSG);
	/* a prefix of another name is not that name */
	const char *prefix = "MemTotalX: 1 kB\n";
	assert_int_equal(meminfo_parse(prefix, strlen(prefix), &s), -EBADMSG);
	assert_int_equal(s.mem_total, 0); /* untouched on failure */
}

static void test_pressure(void **state)
{
	(void)state;
	struct store_system s = { 0 };
	const char *p = "some avg10=1.50 avg60=0.25 avg300=0.01 total=123456\n"
			"full avg10=0.75 avg60=0.10 avg300=0.00 total=65432\n";
	assert_int_equal(pressure_parse(p, strlen(p), &s), 0);
	assert_true(s.have_pressure);
	assert_true(s.some_avg10 == 1.50 && s.some_avg60 == 0.25);
	assert_true(s.full_avg10 == 0.75 && s.full_avg60 == 0.10);
	assert_int_equal(s.some_total_us, 123456);
	assert_int_equal(s.full_total_us, 65432);

	/* before Linux 5.2 memory had no "full" line */
	struct store_system t = { 0 };
	const char *some = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	assert_int_equal(pressure_parse(some, strlen(some), &t), 0);
	assert_true(t.have_pressure);

	struct store_system u = { 0 };
	const char *bad = "some avg10=x avg60=0.00 avg300=0.00 total=0\n";
	assert_int_equal(pressure_parse(bad, strlen(bad), &u), -EBADMSG);
	assert_false(u.have_pressure);
	assert_int_equal(pressure_parse("", 0, &u), -EBADMSG);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_read_tree(void **state)
{
	(void)state;
	char dir[] = "/tmp/ramwatch-sysmem-XXXXXX", sub[4200];
	assert_non_null(mkdtemp(dir));
	write_file(dir, "meminfo", meminfo);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);

	/* no PSI: a row without pressure */
	struct store_system s;
	assert_int_equal(sysmem_read(fd, 1000, &s), 0);
	assert_int_equal(s.time, 1000);
	assert_false(s.have_pressure);
	assert_int_equal(s.mem_total, 24684084ull * 1024);

	snprintf(sub, sizeof(sub), "%s/pressure", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	write_file(dir, "pressure/memory", "some avg10=2.00 avg60=1.00 avg300=0.50 total=99\n"
					   "full avg10=1.00 avg60=0.50 avg300=0.25 total=42\n");
	assert_int_equal(sysmem_read(fd, 2000, &s), 0);
	assert_true(s.have_pressure);
	assert_int_equal(s.full_total_us, 42);

	/* a broken meminfo is an error, not a row of zeros */
	write_file(dir, "meminfo", "MemTotal: lots\n");
	assert_int_equal(sysmem_read(fd, 3000, &s), -EBADMSG);
	close(fd);
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_real_proc(void **state)
{
	(void)state;
	int fd = open("/proc", O_RDONLY | O_DIRECTORY);
	struct store_system s;
	assert_true(fd >= 0);
	assert_int_equal(sysmem_read(fd, 1, &s), 0);
	assert_true(s.mem_total > 0 && s.mem_available <= s.mem_total);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meminfo),	  cmocka_unit_test(test_meminfo_bad), cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_read_tree), cmocka_unit_test(test_real_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
