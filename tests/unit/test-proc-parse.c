/* The small /proc parsers: status, statm, stat, cmdline, task syscall. */
#include "testlib.h"

#include <errno.h>

#include "proc-parse.h"

static void test_status_fixture(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp(fixture("smaps/java17-g1.status"), &len);
	struct proc_status st;
	uint64_t private;
	assert_int_equal(status_parse(text, len, &st), 0);
	assert_string_equal(st.name, "java");
	assert_int_equal(st.uid, 0);
	assert_int_equal(st.state, 'S');
	assert_true(st.threads > 10);
	assert_false(st.kthread);
	assert_true(status_has(&st, STATUS_RSS_ANON));
	assert_true(status_private(&st, &private));
	assert_int_equal(private, st.counter[STATUS_RSS_ANON] + st.counter[STATUS_VM_SWAP]);
	assert_true(st.counter[STATUS_VM_RSS] >= st.counter[STATUS_RSS_ANON]);
	assert_true(st.counter[STATUS_VM_HWM] >= st.counter[STATUS_VM_RSS]);
	free(text);
}

static void test_status_variants(void **state)
{
	(void)state;
	struct proc_status st;
	uint64_t private = 7;
	/* Linux 4.4: no RssAnon: private is unknown, not zero */
	const char old[] = "Name:\tdaemon\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\n"
			   "VmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\nVmSwap:\t       0 kB\nThreads:\t1\n";
	assert_int_equal(status_parse(old, strlen(old), &st), 0);
	assert_int_equal(st.uid, 1000);
	assert_false(status_private(&st, &private));
	assert_int_equal(private, 7);
	assert_int_equal(st.counter[STATUS_VM_RSS], 1024 * KiB);
	/* a kernel thread: no memory lines at all */
	const char kthread[] = "Name:\tkthreadd\nUmask:\t0000\nState:\tS (sleeping)\nTgid:\t2\nUid:\t0\t0\t0\t0\n"
			       "Kthread:\t1\nThreads:\t1\n";
	assert_int_equal(status_parse(kthread, strlen(kthread), &st), 0);
	assert_true(st.kthread);
	assert_int_equal(st.present, 0);
	/* malformed */
	const char bad[] = "Name:\tx\nVmRSS:\t  lots kB\n";
	assert_int_equal(status_parse(bad, strlen(bad), &st), -EBADMSG);
	const char nounit[] = "Name:\tx\nVmRSS:\t  12\n";
	assert_int_equal(status_parse(nounit, strlen(nounit), &st), -EBADMSG);
	assert_int_equal(status_parse("hello", 5, &st), -EBADMSG);
	assert_int_equal(status_parse("", 0, &st), -EBADMSG);
}

static void test_statm(void **state)
{
	(void)state;
	struct proc_statm m = { 1, 2, 3 }, kept = m;
	const char live[] = "6275 1543 1184 1 0 3442 0\n";
	assert_int_equal(statm_parse(live, strlen(live), &m), 0);
	assert_int_equal(m.size, 6275);
	assert_int_equal(m.resident, 1543);
	assert_int_equal(m.shared, 1184);
	assert_false(statm_equal(&m, &kept));
	kept = m;
	assert_true(statm_equal(&m, &kept));
	/* a zombie's: its memory is gone */
	assert_int_equal(statm_parse("0 0 0 0 0 0 0\n", 14, &m), 0);
	assert_int_equal(m.resident, 0);
	/* the largest figures a 64-bit kernel prints; without a newline */
	const char big[] = "18446744073709551615 18446744073709551615 0 0 0 0 0";
	assert_int_equal(statm_parse(big, strlen(big), &m), 0);
	assert_true(m.resident == UINT64_MAX);

	/* malformed: each refused, and the result untouched */
	m = kept;
	static const char *const bad[] = {
		"",
		"\n",
		"6275 1543 1184 1 0 3442\n",        /* six fields */
		"6275 1543 1184 1 0 3442 0 9\n",    /* eight */
		"6275 1543 1184 1 0 3442 0\n\n",   /* two newlines */
		"6275  1543 1184 1 0 3442 0\n",     /* two spaces */
		" 6275 1543 1184 1 0 3442 0\n",     /* a leading space */
		"6275 -1543 1184 1 0 3442 0\n",     /* a sign */
		"6275 15x3 1184 1 0 3442 0\n",      /* not a number */
		"6275 1543 1184 1 0 3442 0 \n",     /* a trailing space */
		"6275 1184 1543 1 0 3442 0\n",      /* shared above resident */
		"18446744073709551616 1 0 0 0 0 0\n", /* past 64 bits */
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		assert_int_equal(statm_parse(bad[i], strlen(bad[i]), &m), -EBADMSG);
		assert_true(statm_equal(&m, &kept));
	}
	/* a NUL inside is not a separator */
	const char nul[] = "6275 1543\0001184 1 0 3442 0\n";
	assert_int_equal(statm_parse(nul, sizeof(nul) - 1, &m), -EBADMSG);
}

static void test_stat(void **state)
{
	(void)state;
	struct proc_stat st;
	/* a comm may hold spaces and parentheses: fields count from the last ')' */
	const char tricky[] = "4242 (evil ) (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 6 0 0 20 0 3 0 987654 "
			      "1000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	assert_int_equal(stat_parse(tricky, strlen(tricky), &st), 0);
	assert_string_equal(st.comm, "evil ) (x");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.start_time, 987654);
	assert_int_equal(st.flags, 4194560);
	assert_false(st.flags & PROC_PF_KTHREAD);
	const char kthreadd[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 "
				"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	assert_int_equal(stat_parse(kthreadd, strlen(kthreadd), &st), 0);
	assert_true(st.flags & PROC_PF_KTHREAD);
	assert_int_equal(st.start_time, 25);
	assert_int_equal(stat_parse("4242 (x S 1", 11, &st), -EBADMSG);
	assert_int_equal(stat_parse("4242 (x) S 1 2 3", 16, &st), -EBADMSG);
	const char badstart[] = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 notanumber 0\n";
	assert_int_equal(stat_parse(badstart, strlen(badstart), &st), -EBADMSG);
}

static void test_cmdline(void **state)
{
	(void)state;
	char buf[16];
	const char raw[] = "python3\0train.py\0--lr\0";
	size_t n = cmdline_join(raw, sizeof(raw) - 1, buf, sizeof(buf));
	assert_string_equal(buf, "python3 train.p"); /* cut to the buffer */
	assert_int_equal(n, 15);
	char big[64];
	cmdline_join(raw, sizeof(raw) - 1, big, sizeof(big));
	assert_string_equal(big, "python3 train.py --lr");
	cmdline_join("", 0, big, sizeof(big));
	assert_string_equal(big, "");
}

static void test_syscall(void **state)
{
	(void)state;
	uint64_t sp = 0;
	const char blocked[] = "202 0xb1fe630 0x189 0x0 0x0 0x0 0xffffffff 0x7f194f71bc70 0x7f194ffa3f16\n";
	assert_int_equal(syscall_parse_sp(blocked, strlen(blocked), &sp), 1);
	assert_int_equal(sp, 0x7f194f71bc70ull);
	const char user[] = "-1 0x7ffc12345678 0x401000\n";
	assert_int_equal(syscall_parse_sp(user, strlen(user), &sp), 1);
	assert_int_equal(sp, 0x7ffc12345678ull);
	assert_int_equal(syscall_parse_sp("running\n", 8, &sp), 0);
	assert_int_equal(syscall_parse_sp("1 2\n", 4, &sp), -EBADMSG);
	assert_int_equal(syscall_parse_sp("-1 zz 0x1\n", 10, &sp), -EBADMSG);
}

static void test_cgroup(void **state)
{
	(void)state;
	char buf[64];
	const char *unified = "0::/system.slice/postgresql.service\n";
	assert_int_equal(cgroup_parse_unified(unified, strlen(unified), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/system.slice/postgresql.service");
	/* a hybrid hierarchy: v1 controllers first, the v2 line among them */
	const char *hybrid = "12:memory:/user.slice\n1:name=systemd:/user.slice/x.scope\n0::/user.slice/x.scope";
	assert_int_equal(cgroup_parse_unified(hybrid, strlen(hybrid), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/user.slice/x.scope");
	const char *v1 = "4:memory:/\n1:name=systemd:/init.scope\n";
	assert_int_equal(cgroup_parse_unified(v1, strlen(v1), buf, sizeof(buf)), -ENODATA);
	const char *bad = "0::relative\n";
	assert_int_equal(cgroup_parse_unified(bad, strlen(bad), buf, sizeof(buf)), -EBADMSG);
	/* past the caller's buffer: refused, not cut */
	assert_int_equal(cgroup_parse_unified(unified, strlen(unified), buf, 8), -ENAMETOOLONG);
	assert_int_equal(cgroup_parse_unified("", 0, buf, sizeof(buf)), -ENODATA);
}

/* Every counter of status has the kernel's name. */
static void test_status_names(void **state)
{
	(void)state;
	assert_enum_names("status counter", _STATUS_COUNTER_MAX, status_counter_name, NULL);
	assert_null(status_counter_name(_STATUS_COUNTER_MAX));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_status_fixture), cmocka_unit_test(test_status_variants),
		cmocka_unit_test(test_statm),          cmocka_unit_test(test_stat),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_syscall),        cmocka_unit_test(test_cgroup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
