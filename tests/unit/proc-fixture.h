/* The fixture proc root of the discovery and fast-tier tests: a directory
 * with PID/status, PID/statm, PID/stat and PID/cmdline files for ten
 * processes of known shapes (picked by the selectors, or not, a kernel
 * thread, a zombie, and three that vanish between two reads). */
#pragma once

#include "testlib.h"

#include <fcntl.h>
#include <sys/stat.h>

/* Pids no live process holds (above the default pid_max of 4194304 they
 * could not be parsed; below it, past what a test machine reaches). */
#define PID(n) (3990000 + (n))

static char root[512];

static inline void put(const char *pid_dir, const char *name, const char *text, size_t len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s/%s", root, pid_dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

enum { HAS_STATUS = 1, HAS_STAT = 2, HAS_CMDLINE = 4, ALL = 7 };

/* A process in the fixture: its status (name, state, uid, private memory
 * in kB) and statm, its stat, its cmdline (NUL-separated as the kernel gives it). */
static inline void process(int pid, const char *name, char state, int uid, unsigned anon_kb, bool kthread,
		    const char *cmdline, size_t cmdline_len, unsigned files)
{
	char dir[32], path[1024], text[1024];

	snprintf(dir, sizeof(dir), "%d", pid);
	snprintf(path, sizeof(path), "%s/%s", root, dir);
	assert_int_equal(mkdir(path, 0755), 0);
	if (files & HAS_STATUS) {
		int n;
		if (kthread)
			n = snprintf(text, sizeof(text), "Name:\t%s\nState:\t%c\nUid:\t0\t0\t0\t0\nKthread:\t1\n", name,
				     state);
		else
			n = snprintf(text, sizeof(text),
				     "Name:\t%s\nState:\t%c (x)\nUid:\t%d\t%d\t%d\t%d\nVmRSS:\t%u kB\nRssAnon:\t%u kB\n"
				     "VmSwap:\t0 kB\nKthread:\t0\n",
				     name, state, uid, uid, uid, uid, anon_kb + 100, anon_kb);
		put(dir, "status", text, (size_t)n);
		/* the statm that goes with it, in 4 KiB pages: anonymous = resident - shared */
		n = kthread ? snprintf(text, sizeof(text), "0 0 0 0 0 0 0\n")
			    : snprintf(text, sizeof(text), "%u %u 25 1 0 %u 0\n", (anon_kb + 100) / 4 + 1000,
				       (anon_kb + 100) / 4, anon_kb / 4);
		put(dir, "statm", text, (size_t)n);
	}
	if (files & HAS_STAT) {
		int n = snprintf(text, sizeof(text), "%d (%s) %c 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n",
				 pid, name, state, pid, pid, 1000 + pid % 1000);
		put(dir, "stat", text, (size_t)n);
	}
	if (files & HAS_CMDLINE)
		put(dir, "cmdline", cmdline, cmdline_len);
}

#define CMD(s) s, sizeof(s) - 1

static inline int setup(void **state)
{
	(void)state;
	assert_int_equal(test_dir_make(root, sizeof(root), "proc"), 0);
	/* picked: a worker above MinPrivate */
	process(PID(1), "worker", 'S', 1000, 100 * 1024, false, CMD("worker\0--jobs\0" "4\0"), ALL);
	process(PID(2), "worker", 'R', 1001, 200 * 1024, false, CMD("worker\0--jobs\0" "8\0"), ALL);
	/* not picked: another name; below MinPrivate; Ignore= */
	process(PID(3), "idle", 'S', 1000, 500 * 1024, false, CMD("idle\0"), ALL);
	process(PID(4), "worker", 'S', 1000, 1024, false, CMD("worker\0--small\0"), ALL);
	process(PID(5), "worker", 'S', 1000, 300 * 1024, false, CMD("worker\0--dry-run\0"), ALL);
	/* never: a kernel thread, a zombie */
	process(PID(6), "worker", 'S', 0, 0, true, CMD(""), ALL);
	process(PID(7), "worker", 'Z', 1000, 300 * 1024, false, CMD(""), ALL);
	/* vanished mid-listing: gone before its status was read; between
	 * the status and the cmdline; between the status and the stat */
	process(PID(8), "worker", 'S', 1000, 300 * 1024, false, CMD("worker\0"), 0);
	process(PID(9), "worker", 'S', 1000, 300 * 1024, false, CMD("worker\0"), HAS_STATUS | HAS_STAT);
	process(PID(10), "worker", 'S', 1000, 300 * 1024, false, CMD("worker\0"), HAS_STATUS | HAS_CMDLINE);
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	test_dir_remove(root);
	return 0;
}
