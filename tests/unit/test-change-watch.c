/* The change watch on real processes: a child that sits idle, or writes
 * to a page it already holds, leaves its flag down; one that faults a new
 * page in, maps or unmaps memory, has its file pages reclaimed by another
 * process, or exits raises it.  Each change a test makes is checked in the
 * child's statm first, so a flag asserted up answers a real change.  Past
 * its capacity a process is not watched; a removed one's index serves the
 * next. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "change-watch.h"
#include "fileio.h"
#include "limits.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGES 64

struct child {
	int pid;
	int to, from; /* command pipe to it, answers from it */
};

/* What the child holds: one page written at the start, PAGES more mapped
 * and not touched, a file's pages read in. */
static volatile char *held;
static volatile char *fresh;
static volatile char *file_pages;
static size_t file_size;

static void child_loop(int in, int out)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t next = 0, protected = 0;
	void *mapped = NULL;
	char cmd;

	while (read(in, &cmd, 1) == 1) {
		switch (cmd) {
		case 'n': /* nothing */
			break;
		case 'w': /* a write to a page already resident */
			held[1]++;
			break;
		case 't': /* a new page faulted in */
			fresh[next++ * (size_t)page] = 1;
			break;
		case 'm': /* memory mapped, not touched */
			mapped = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (mapped == MAP_FAILED)
				_exit(2);
			break;
		case 'u':
			munmap(mapped, 1 << 20);
			break;
		case 'p': /* a page of fresh read-only: one mapping becomes three */
			if (mprotect((char *)fresh + (PAGES / 2 + 2 * protected++) * (size_t)page, (size_t)page,
				     PROT_READ) < 0)
				_exit(2);
			break;
		case 'x':
			_exit(0);
		}
		if (write(out, &cmd, 1) != 1)
			_exit(3);
	}
	_exit(0);
}

static struct child start(int file_fd)
{
	int to[2], from[2];
	long page = sysconf(_SC_PAGESIZE);
	struct child c;

	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		close(to[1]);
		close(from[0]);
		held = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		fresh = mmap(NULL, PAGES * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (held == MAP_FAILED || fresh == MAP_FAILED)
			_exit(2);
		held[0] = 1;
		if (file_fd >= 0) {
			file_pages = mmap(NULL, file_size, PROT_READ, MAP_PRIVATE, file_fd, 0);
			if (file_pages == MAP_FAILED)
				_exit(2);
			for (size_t i = 0; i < file_size; i += (size_t)page)
				(void)file_pages[i];
		}
		char ready = 'r';
		if (write(from[1], &ready, 1) != 1)
			_exit(3);
		child_loop(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	c.to = to[1];
	c.from = from[0];
	char ready;
	assert_int_equal(read(c.from, &ready, 1), 1);
	return c;
}

/* The child does cmd and says it is done. */
static void tell(const struct child *c, char cmd)
{
	char done;
	assert_int_equal(write(c->to, &cmd, 1), 1);
	assert_int_equal(read(c->from, &done, 1), 1);
	assert_int_equal(done, cmd);
}

static void stop(struct child *c)
{
	int status;
	kill(c->pid, SIGKILL);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
	close(c->to);
	close(c->from);
}

/* The child's statm as the kernel gives it. */
static void statm_of(int pid, char *text, size_t size)
{
	char path[64];
	_cleanup_free_ char *buf = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	assert_int_equal(read_full_fileat(AT_FDCWD, path, 4096, &buf, &len), 0);
	assert_true(len < size);
	memcpy(text, buf, len);
	text[len] = 0;
}

/* What the flag says of statm: the fast tier's bits. */
static unsigned take_statm(struct change_watch *w, uint32_t index)
{
	return change_watch_take(w, index, CHANGE_MOVED | CHANGE_SWAP);
}

static int setup(void **state)
{
	struct change_watch *w = NULL;
	int r = change_watch_new(8, &w);

	if (r < 0) {
		/* as root, with the kernel's BTF, it must load */
		if (change_watch_expected())
			fail_msg("change_watch_new: %s", strerror(-r));
		return 0;
	}
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	change_watch_free(*state);
	return 0;
}

#define WATCH_OR_SKIP(w)                        \
	struct change_watch *w = *state;        \
	if (!w)                                 \
		skip()

/* A flag stays down while nothing changes; each change raises it. */
static void test_changes(void **state)
{
	WATCH_OR_SKIP(w);
	char before[128], after[128];
	struct child c = start(-1);
	uint32_t index = change_watch_add(w, c.pid);

	assert_true(index > 0);
	/* up at the start: its first round reads it */
	assert_int_equal(take_statm(w, index), CHANGE_MOVED | CHANGE_SWAP);
	assert_int_equal(take_statm(w, index), 0);

	/* idle, talking over a pipe, writing a page it holds: down (each
	 * command once first, as the child's first run of its code faults it
	 * in) */
	for (const char *cmd = "nwmut"; *cmd; cmd++)
		tell(&c, *cmd);
	(void)take_statm(w, index);
	statm_of(c.pid, before, sizeof(before));
	usleep(100 * 1000);
	tell(&c, 'n');
	tell(&c, 'w');
	statm_of(c.pid, after, sizeof(after));
	assert_string_equal(before, after);
	assert_int_equal(take_statm(w, index), 0);

	/* a new page: resident grows, the flag is up */
	tell(&c, 't');
	statm_of(c.pid, after, sizeof(after));
	assert_string_not_equal(before, after);
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	assert_int_equal(take_statm(w, index), 0);

	/* mapped and not touched: only the size moves, under the mmap lock */
	statm_of(c.pid, before, sizeof(before));
	tell(&c, 'm');
	statm_of(c.pid, after, sizeof(after));
	assert_string_not_equal(before, after);
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	tell(&c, 'u');
	statm_of(c.pid, after, sizeof(after));
	/* the size as before the map */
	assert_int_equal(strtoull(before, NULL, 10), strtoull(after, NULL, 10));
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);

	/* the exit */
	assert_int_equal(take_statm(w, index), 0);
	int status;
	assert_int_equal(write(c.to, "x", 1), 1);
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	change_watch_remove(w, c.pid, index);
	close(c.to);
	close(c.from);
	assert_int_equal(change_watch_count(w), 0);
}

/* Another process reclaims the child's file pages (process_madvise):
 * the change is the child's, though the child did nothing. */
static void test_remote_change(void **state)
{
	WATCH_OR_SKIP(w);
	char dir[256], path[300], before[128], after[128];
	long page = sysconf(_SC_PAGESIZE);

	/* on a disk, not in memory (tmpfs pages cannot be reclaimed without swap) */
	snprintf(dir, sizeof(dir), "/var/tmp/ramwatch-test-watch-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/pages", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	file_size = 256 * (size_t)page;
	char *buf = calloc(1, file_size);
	assert_non_null(buf);
	memset(buf, 'x', file_size);
	assert_int_equal(write(fd, buf, file_size), (ssize_t)file_size);
	free(buf);
	assert_int_equal(fsync(fd), 0);

	struct child c = start(fd);
	uint32_t index = change_watch_add(w, c.pid);
	assert_true(index > 0);
	(void)take_statm(w, index);

	/* where the child mapped the file: the fork left it in our copy of
	 * the variable only in the child; ask its maps */
	char maps[64];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", c.pid);
	_cleanup_free_ char *text = NULL;
	size_t len;
	assert_int_equal(read_full_fileat(AT_FDCWD, maps, 1 << 20, &text, &len), 0);
	char *line = strstr(text, path);
	assert_non_null(line);
	while (line > text && line[-1] != '\n')
		line--;
	unsigned long start_addr = strtoul(line, NULL, 16);

	int pidfd = (int)syscall(SYS_pidfd_open, c.pid, 0);
	assert_true(pidfd >= 0);
	struct iovec iov = { .iov_base = (void *)start_addr, .iov_len = file_size };
	statm_of(c.pid, before, sizeof(before));
	long r = syscall(SYS_process_madvise, pidfd, &iov, 1, MADV_PAGEOUT, 0);
	assert_true(r >= 0);
	statm_of(c.pid, after, sizeof(after));
	/* the kernel reclaimed some of them: shared (file) pages fell */
	assert_string_not_equal(before, after);
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);

	close(pidfd);
	stop(&c);
	change_watch_remove(w, c.pid, index);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* The child's maps as the kernel gives it. */
static char *maps_of(int pid)
{
	char path[64];
	char *text = NULL;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	assert_int_equal(read_full_fileat(AT_FDCWD, path, 1 << 20, &text, &len), 0);
	return text;
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	assert_int_equal(uname(&u), 0);
	assert_int_equal(sscanf(u.release, "%d.%d", &a, &b), 2);
	return a > major || (a == major && b >= minor);
}

/* The mappings bit: a map, an unmap or a change of protection raises it,
 * with the totals the same for the last; a page touched raises the statm
 * bit alone, and a take of the statm bits leaves it for its reader. */
static void test_mappings(void **state)
{
	WATCH_OR_SKIP(w);
	/* Linux 6.12 tells the lock's "write" */
	if (kernel_at_least(6, 12))
		assert_true(change_watch_sees_mappings(w));
	if (!change_watch_sees_mappings(w))
		skip();
	char before[128], after[128];
	struct child c = start(-1);
	uint32_t index = change_watch_add(w, c.pid);

	assert_true(index > 0);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), CHANGE_MAPPINGS);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), 0);
	for (const char *cmd = "nwtp"; *cmd; cmd++)
		tell(&c, *cmd);
	(void)change_watch_take(w, index, CHANGE_MOVED | CHANGE_SWAP | CHANGE_MAPPINGS);

	/* a page touched: statm moved, the mappings did not */
	_cleanup_free_ char *maps_before = maps_of(c.pid);
	statm_of(c.pid, before, sizeof(before));
	tell(&c, 't');
	tell(&c, 'w');
	statm_of(c.pid, after, sizeof(after));
	_cleanup_free_ char *maps_after = maps_of(c.pid);
	assert_string_not_equal(before, after);
	assert_string_equal(maps_before, maps_after);
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), 0);

	/* mapped, not touched: up, and a take of the statm bits leaves it */
	tell(&c, 'm');
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), CHANGE_MAPPINGS);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), 0);
	/* unmapped: up */
	tell(&c, 'u');
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), CHANGE_MAPPINGS);

	/* protected differently: maps has two more lines; the size and the
	 * resident and shared pages are the same (the data, writable pages
	 * mapped, is one page less) */
	free(maps_before);
	maps_before = maps_of(c.pid);
	statm_of(c.pid, before, sizeof(before));
	(void)take_statm(w, index);
	tell(&c, 'p');
	statm_of(c.pid, after, sizeof(after));
	free(maps_after);
	maps_after = maps_of(c.pid);
	unsigned long long b[3], a[3];
	assert_int_equal(sscanf(before, "%llu %llu %llu", &b[0], &b[1], &b[2]), 3);
	assert_int_equal(sscanf(after, "%llu %llu %llu", &a[0], &a[1], &a[2]), 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(a[i], b[i]);
	assert_string_not_equal(maps_before, maps_after);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), CHANGE_MAPPINGS);

	/* idle: down */
	tell(&c, 'n');
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), 0);

	/* the exit raises it */
	stop(&c);
	assert_int_equal(change_watch_take(w, index, CHANGE_MAPPINGS), CHANGE_MAPPINGS);
	change_watch_remove(w, c.pid, index);
}

/* The census bit: raised by what raises the statm bit, and left up when
 * the sample rounds take theirs, so a census sees every event since the
 * last census, not since the last round. */
static void test_census(void **state)
{
	WATCH_OR_SKIP(w);
	struct child c = start(-1);
	uint32_t index = change_watch_add(w, c.pid);

	assert_true(index > 0);
	/* up when added: the first census reads */
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), CHANGE_CENSUS);
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), 0);
	for (const char *cmd = "nwtp"; *cmd; cmd++)
		tell(&c, *cmd);
	(void)change_watch_take(w, index, CHANGE_MOVED | CHANGE_SWAP | CHANGE_MAPPINGS | CHANGE_CENSUS);

	/* idle, however many commands: down */
	tell(&c, 'n');
	tell(&c, 'n');
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), 0);

	/* a page touched, a round's take first: still up for the census */
	tell(&c, 't');
	tell(&c, 'w');
	assert_int_equal(take_statm(w, index) & CHANGE_MOVED, CHANGE_MOVED);
	assert_int_equal(take_statm(w, index), 0);
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), CHANGE_CENSUS);
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), 0);
	/* a write to a page already resident and written: no event */
	tell(&c, 'w');
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), 0);

	/* mapped, not touched: up */
	tell(&c, 'm');
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), CHANGE_CENSUS);
	tell(&c, 'u');
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), CHANGE_CENSUS);

	/* the exit raises it */
	tell(&c, 'n');
	(void)change_watch_take(w, index, CHANGE_CENSUS);
	stop(&c);
	assert_int_equal(change_watch_take(w, index, CHANGE_CENSUS), CHANGE_CENSUS);
	change_watch_remove(w, c.pid, index);
}

/* Capacity: the ninth process is not watched; a removed one's index goes
 * to the next, its flag up. */
static void test_capacity(void **state)
{
	WATCH_OR_SKIP(w);
	struct child c[9];
	uint32_t index[9];

	assert_int_equal(change_watch_room(w), 8);
	for (int i = 0; i < 9; i++) {
		c[i] = start(-1);
		index[i] = change_watch_add(w, c[i].pid);
	}
	for (int i = 0; i < 8; i++) {
		assert_true(index[i] >= 1 && index[i] <= 8);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(index[i], index[j]);
	}
	assert_int_equal(index[8], 0);
	assert_int_equal(change_watch_count(w), 8);
	assert_int_equal(change_watch_room(w), 0);
	/* index 0, not watched: says everything, always */
	assert_int_equal(take_statm(w, 0), CHANGE_MOVED | CHANGE_SWAP);

	change_watch_remove(w, c[3].pid, index[3]);
	assert_int_equal(change_watch_room(w), 1);
	uint32_t again = change_watch_add(w, c[8].pid);
	assert_int_equal(again, index[3]);
	assert_int_equal(take_statm(w, again), CHANGE_MOVED | CHANGE_SWAP);
	tell(&c[8], 't');
	assert_int_equal(take_statm(w, again) & CHANGE_MOVED, CHANGE_MOVED);
	/* the one removed is not watched: its changes raise nothing */
	for (int i = 0; i < 8; i++)
		(void)take_statm(w, index[i]);
	tell(&c[3], 't');
	for (int i = 0; i < 8; i++)
		assert_int_equal(take_statm(w, index[i]), 0);

	for (int i = 0; i < 9; i++) {
		stop(&c[i]);
		if (i != 3)
			change_watch_remove(w, c[i].pid, i == 8 ? again : index[i]);
	}
	assert_int_equal(change_watch_count(w), 0);
	/* bad pids are refused */
	assert_int_equal(change_watch_add(w, 0), 0);
	assert_int_equal(change_watch_add(w, -1), 0);
}

/* A pid followed twice (a new instance found before the old one was let
 * go): the older one's removal leaves the newer one watched. */
static void test_same_pid_twice(void **state)
{
	WATCH_OR_SKIP(w);
	struct child c = start(-1);
	uint32_t older = change_watch_add(w, c.pid);
	uint32_t newer = change_watch_add(w, c.pid);
	int status;

	assert_true(older > 0 && newer > 0 && older != newer);
	change_watch_remove(w, c.pid, older);
	tell(&c, 't'); /* once first: the child's code faults in */
	(void)take_statm(w, newer);
	tell(&c, 't');
	assert_int_equal(take_statm(w, newer) & CHANGE_MOVED, CHANGE_MOVED);
	change_watch_remove(w, c.pid, newer);
	assert_int_equal(change_watch_count(w), 0);
	assert_int_equal(write(c.to, "x", 1), 1);
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	close(c.to);
	close(c.from);
}

static void test_bad_capacity(void **state)
{
	(void)state;
	struct change_watch *w = NULL;

	assert_int_equal(change_watch_new(0, &w), -EINVAL);
	assert_int_equal(change_watch_new(RW_TARGETS_MAX + 1u, &w), -EINVAL);
	assert_null(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_remote_change),
		cmocka_unit_test(test_mappings),
		cmocka_unit_test(test_census),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_same_pid_twice),
		cmocka_unit_test(test_bad_capacity),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
