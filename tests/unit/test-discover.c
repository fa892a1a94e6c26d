/* Discovery against a fixture proc root (a directory with PID/status, PID/statm,
 * PID/stat and PID/cmdline files): the processes the selectors pick and
 * only them, none twice, MaxProcesses gone past, and processes that vanish
 * between two reads of the listing passed over; what a pass remembers of
 * the processes it passed over, with the proc connector's events (handed
 * in as the connector would) and without, and the limits on it. */
#include "proc-fixture.h"

#include <errno.h>
#include <sys/resource.h>

#include "limits.h"

#include "change-watch.h"
#include "config.h"
#include "discover.h"
#include "fast-tier.h"
#include "procfs.h"
#include "target.h"
#include "watched.h"

/* What the follow callback was handed. */
struct followed {
	struct watched *w;
	unsigned max;
	unsigned calls;
	int pids[16];
	int fail; /* a negative errno to return (after freeing), or 0 */
};

static int follow(void *userdata, struct target *t)
{
	struct followed *f = userdata;

	if (f->fail) {
		target_free(t);
		return f->fail;
	}
	assert_true(f->calls < ELEMENTSOF(f->pids));
	f->pids[f->calls++] = t->pid;
	int r = watched_add(f->w, t, f->max);
	if (r < 0)
		target_free(t);
	return r;
}

static void load_config(struct daemon_config *c, const char *text)
{
	struct error err = { 0 };
	if (config_parse_text("test", text, strlen(text), c, &err) < 0)
		fail_msg("%s", err.message);
}

static void free_all(struct watched *w)
{
	for (struct target *t = watched_first(w), *next; t; t = next) {
		next = watched_next(t);
		watched_remove(w, t, false);
		target_free(t);
	}
	watched_free(w);
}

static bool followed_pid(const struct followed *f, int pid)
{
	for (unsigned i = 0; i < f->calls; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

static void discover_setup(struct discover *d, int root_fd, const struct daemon_config *c, struct followed *f)
{
	*d = (struct discover){
		.root_fd = root_fd,
		.config = c,
		.id = { .boot_id = "0b4f0f6e-52a1-4c3f-9a53-8b2a6c6f1f00", .boot_ms = 1700000000000, .ticks_per_second = 100 },
		.self = getpid(),
		.follow = follow,
		.userdata = f,
	};
	assert_int_equal(discover_init(d, false), 0);
}

static void test_selectors_pick(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 100 };
	int root_fd = procfs_open_root(root);

	assert_true(root_fd >= 0);
	load_config(&c, "[Watch]\nWatch=name:worker\nIgnore=cmdline:*--dry-run*\nMinPrivate=64M\n");
	discover_setup(&d, root_fd, &c, &f);
	assert_int_equal(discover_pass(&d, f.w), 0);

	assert_int_equal(f.calls, 2);
	assert_true(followed_pid(&f, PID(1)));
	assert_true(followed_pid(&f, PID(2)));
	assert_int_equal(watched_count(f.w), 2);
	struct target *t = watched_find(f.w, PID(1));
	assert_non_null(t);
	assert_string_equal(t->ref->info.comm, "worker");
	assert_string_equal(t->ref->info.cmdline, "worker --jobs 4");
	assert_int_equal(t->ref->info.uid, 1000);
	assert_int_equal(t->start_time, 1000 + PID(1) % 1000);
	/* started_at: boot time plus start time in clock ticks */
	assert_int_equal(t->ref->info.started_at, 1700000000000 + (int64_t)t->start_time * 10);
	/* the private memory of its status, its peak so far */
	assert_int_equal(t->ref->info.peak_private, 100 * MiB);
	assert_int_equal(watched_find(f.w, PID(2))->ref->info.peak_private, 200 * MiB);
	assert_int_equal(d.over_limit, 0);

	/* the next pass hands over none twice */
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(f.calls, 2);

	/* the selectors still pick them; after a change, no longer */
	assert_true(discover_still_selected(&c, t));
	struct daemon_config other;
	load_config(&other, "[Watch]\nWatch=user:root\n");
	assert_false(discover_still_selected(&other, t));
	config_done(&other);

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
}

/* Watch= empty: every process (above MinPrivate), still not the kernel
 * threads, zombies, vanished ones, nor the daemon itself. */
static void test_all_but(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 100 };
	int root_fd = procfs_open_root(root);

	load_config(&c, "[Watch]\nMinPrivate=64M\n");
	discover_setup(&d, root_fd, &c, &f);
	d.self = PID(3);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(f.calls, 3);
	assert_true(followed_pid(&f, PID(1)));
	assert_true(followed_pid(&f, PID(2)));
	assert_true(followed_pid(&f, PID(5)));
	for (int n = 6; n <= 10; n++)
		assert_false(followed_pid(&f, PID(n)));

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
}

/* MaxProcesses: the processes past it are not followed but counted, and
 * are followed once there is room. */
static void test_max_processes(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 1 };
	int root_fd = procfs_open_root(root);

	load_config(&c, "[Watch]\nWatch=name:worker\nMinPrivate=64M\nMaxProcesses=1\n");
	discover_setup(&d, root_fd, &c, &f);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(f.calls, 1);
	assert_int_equal(watched_count(f.w), 1);
	/* the other workers, the two that vanished included: the limit is
	 * checked before a process is opened */
	assert_int_equal(d.over_limit, 4);
	assert_true(d.over_limit_logged);

	/* the one followed exits (its directory goes): the next pass takes
	 * another */
	struct target *t = watched_first(f.w);
	int first = t->pid;
	char from[1024], to[1024];
	snprintf(from, sizeof(from), "%s/%d", root, first);
	snprintf(to, sizeof(to), "%s/exited", root);
	assert_int_equal(rename(from, to), 0);
	watched_remove(f.w, t, true);
	target_free(t);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(rename(to, from), 0);
	assert_int_equal(f.calls, 2);
	assert_int_equal(watched_count(f.w), 1);
	assert_int_not_equal(watched_first(f.w)->pid, first);
	/* full again: the others are counted again, not told again */
	assert_true(d.over_limit > 4);
	assert_true(d.over_limit_logged);

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
}

/* Out of memory in the caller ends the pass with its error. */
static void test_follow_fails(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 100, .fail = -ENOMEM };
	int root_fd = procfs_open_root(root);

	load_config(&c, "[Watch]\nWatch=name:worker\nMinPrivate=64M\n");
	discover_setup(&d, root_fd, &c, &f);
	assert_int_equal(discover_pass(&d, f.w), -ENOMEM);
	assert_int_equal(watched_count(f.w), 0);

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
}

/* The fixture's process pid now holds name and anon_kb (its status and
 * statm rewritten, as after an exec or growth). */
static void rewrite(int pid, const char *name, unsigned anon_kb)
{
	char dir[32], text[1024];
	snprintf(dir, sizeof(dir), "%d", pid);
	int n = snprintf(text, sizeof(text),
			 "Name:\t%s\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t%u kB\nRssAnon:\t%u kB\n"
			 "VmSwap:\t0 kB\nKthread:\t0\n",
			 name, anon_kb + 100, anon_kb);
	put(dir, "status", text, (size_t)n);
	n = snprintf(text, sizeof(text), "%u %u 25 1 0 %u 0\n", (anon_kb + 100) / 4 + 1000, (anon_kb + 100) / 4,
		     anon_kb / 4);
	put(dir, "statm", text, (size_t)n);
}

static void remove_process(int pid)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%d", root, pid);
	test_dir_remove(path);
}

static uint64_t reads_of_pass(struct discover *d, struct watched *w)
{
	uint64_t before = d->status_reads;
	assert_int_equal(discover_pass(d, w), 0);
	return d->status_reads - before;
}

/* With the connector: a pass reads only what it told, and the processes
 * below MinPrivate whose statm moved past what VmSize allows. */
static void test_events(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 100 };
	int root_fd = procfs_open_root(root);

	process(PID(20), "idle", 'S', 1000, 500 * 1024, false, CMD("idle\0"), ALL);
	process(PID(21), "worker", 'S', 1000, 1024, false, CMD("worker\0"), ALL);
	process(PID(22), "worker", 'S', 1000, 1024, false, CMD("worker\0"), ALL);
	load_config(&c, "[Watch]\nWatch=name:worker\nMinPrivate=64M\nMaxProcesses=100\n");
	discover_setup(&d, root_fd, &c, &f);
	/* as if the connector were open: its events come through discover_event */
	d.events_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(d.events_fd >= 0);

	/* the first pass lists everything */
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(d.full_passes, 1);
	assert_true(followed_pid(&f, PID(1)) && followed_pid(&f, PID(2)));
	assert_int_equal(known_get(&d.known, PID(3))->kind, KNOWN_PASSED);
	assert_int_equal(known_get(&d.known, PID(6))->kind, KNOWN_PASSED); /* a kernel thread */
	assert_int_equal(known_get(&d.known, PID(20))->kind, KNOWN_PASSED);
	struct known_slot *s = known_get(&d.known, PID(4));
	assert_int_equal(s->kind, KNOWN_SMALL);
	assert_true(s->statm_fd >= 0);
	assert_null(known_get(&d.known, PID(8))); /* vanished: not remembered */
	unsigned calls = f.calls;

	/* nothing told: nothing read */
	assert_int_equal(reads_of_pass(&d, f.w), 0);
	assert_int_equal(d.full_passes, 1);

	/* an exec into a selected name: unseen until told, then followed */
	rewrite(PID(20), "worker", 500 * 1024);
	assert_int_equal(reads_of_pass(&d, f.w), 0);
	assert_false(followed_pid(&f, PID(20)));
	assert_int_equal(discover_event(&d, PROC_CONNECTOR_CHANGED, PID(20)), 0);
	assert_int_equal(reads_of_pass(&d, f.w), 1);
	assert_true(followed_pid(&f, PID(20)));
	assert_null(known_get(&d.known, PID(20)));

	/* an exit forgets the process */
	assert_int_equal(discover_event(&d, PROC_CONNECTOR_GONE, PID(3)), 0);
	assert_null(known_get(&d.known, PID(3)));

	/* below MinPrivate: statm moves, but VmSize (5 MiB) is below it:
	 * not read; then it grows past: read and followed */
	assert_int_equal(known_get(&d.known, PID(22))->kind, KNOWN_SMALL);
	char dir[32];
	snprintf(dir, sizeof(dir), "%d", PID(22));
	put(dir, "statm", "1281 900 25 1 0 256 0\n", 22);
	assert_int_equal(reads_of_pass(&d, f.w), 0);
	assert_false(followed_pid(&f, PID(22)));
	rewrite(PID(22), "worker", 100 * 1024);
	assert_int_equal(reads_of_pass(&d, f.w), 1);
	assert_true(followed_pid(&f, PID(22)));

	/* another process on a known pid: its exit and fork told, it is
	 * considered afresh */
	assert_int_equal(known_get(&d.known, PID(21))->kind, KNOWN_SMALL);
	assert_int_equal(discover_event(&d, PROC_CONNECTOR_GONE, PID(21)), 0);
	assert_int_equal(discover_event(&d, PROC_CONNECTOR_NEW, PID(21)), 0);
	assert_int_equal(known_get(&d.known, PID(21))->kind, KNOWN_DIRTY);
	assert_int_equal(known_get(&d.known, PID(21))->statm_fd, -1);
	rewrite(PID(21), "worker", 300 * 1024);
	assert_int_equal(reads_of_pass(&d, f.w), 1);
	assert_true(followed_pid(&f, PID(21)));
	assert_int_equal(f.calls, calls + 3);

	/* past RW_DISCOVER_DIRTY_MAX told at once: the next pass lists the
	 * root, and forgets the pids it did not find */
	for (unsigned i = 0; i <= RW_DISCOVER_DIRTY_MAX; i++)
		assert_int_equal(discover_event(&d, PROC_CONNECTOR_NEW, 5000000 + (int)i), 0);
	assert_true(d.full_due);
	assert_int_equal(d.known.dirty, RW_DISCOVER_DIRTY_MAX);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(d.full_passes, 2);
	assert_int_equal(d.known.dirty, 0);
	assert_null(known_get(&d.known, 5000000));
	assert_int_equal(known_get(&d.known, PID(4))->kind, KNOWN_SMALL);

	/* RW_DISCOVER_FULL_MS after the last full pass: another */
	d.last_full_us -= RW_DISCOVER_FULL_MS * 1000ull + 1;
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(d.full_passes, 3);

	/* a reload: everything judged afresh */
	discover_reload(&d);
	assert_int_equal(known_count(&d.known), 0);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(d.full_passes, 4);
	assert_int_equal(known_get(&d.known, PID(4))->kind, KNOWN_SMALL);

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
	for (int n = 20; n <= 22; n++)
		remove_process(PID(n));
}

/* Without the connector every pass lists the root, and reads again every
 * process but those below MinPrivate whose statm did not move; a statm
 * that answers nothing (that instance gone) means another process on the
 * pid; a pid no longer listed is forgotten. */
static void test_listing(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 100 };
	int root_fd = procfs_open_root(root);
	char from[1024], to[1024];

	process(PID(23), "worker", 'S', 1000, 1024, false, CMD("worker\0"), ALL);
	process(PID(24), "worker", 'S', 1000, 1024, false, CMD("worker\0"), ALL);
	load_config(&c, "[Watch]\nWatch=name:worker\nMinPrivate=64M\nMaxProcesses=100\n");
	discover_setup(&d, root_fd, &c, &f);
	assert_int_equal(d.events_fd, -1);
	assert_int_equal(discover_pass(&d, f.w), 0);
	uint64_t first = d.status_reads;
	/* passed over: not remembered, since nothing would tell a change */
	assert_null(known_get(&d.known, PID(3)));
	assert_true(known_get(&d.known, PID(23))->statm_fd >= 0);
	/* the next pass reads all again but the three below MinPrivate */
	assert_int_equal(reads_of_pass(&d, f.w), first - 3 - 3 /* followed */);
	assert_int_equal(d.full_passes, 2);

	/* an exec into a selected name: the next pass sees it */
	rewrite(PID(3), "worker", 500 * 1024);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_true(followed_pid(&f, PID(3)));

	/* pid reuse: the old instance's statm answers nothing, the new one
	 * is above MinPrivate */
	snprintf(from, sizeof(from), "%s/%d", root, PID(23));
	snprintf(to, sizeof(to), "%s/old", root);
	assert_int_equal(rename(from, to), 0);
	put("old", "statm", "", 0);
	process(PID(23), "worker", 'S', 1000, 300 * 1024, false, CMD("worker\0"), ALL);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_true(followed_pid(&f, PID(23)));
	test_dir_remove(to);

	/* gone from the listing: forgotten, its descriptor closed */
	size_t fds = d.known.fds;
	snprintf(from, sizeof(from), "%s/%d", root, PID(24));
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_null(known_get(&d.known, PID(24)));
	assert_int_equal(d.known.fds, fds - 1);
	test_dir_remove(to);

	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
	rewrite(PID(3), "idle", 500 * 1024);
	remove_process(PID(23));
}

/* Descriptors: statm of processes below MinPrivate is kept open only while
 * MaxProcesses watched processes would still find theirs; past it, such a
 * process is read again each pass, and its growth still seen. */
static void test_descriptor_budget(void **state)
{
	(void)state;
	struct daemon_config c;
	struct discover d;
	struct followed f = { .w = watched_new(), .max = 2000 };
	int root_fd = procfs_open_root(root);
	struct rlimit was, low;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = 256; /* below 3 x 1000 + RW_FD_RESERVE */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	process(PID(25), "worker", 'S', 1000, 1024, false, CMD("worker\0"), ALL);
	load_config(&c, "[Watch]\nWatch=name:worker\nMinPrivate=64M\nMaxProcesses=1000\n");
	discover_setup(&d, root_fd, &c, &f);
	d.events_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_int_equal(known_get(&d.known, PID(25))->kind, KNOWN_SMALL);
	assert_int_equal(known_get(&d.known, PID(25))->statm_fd, -1);
	assert_int_equal(d.known.fds, 0);
	/* read again each pass (it and the other below MinPrivate) */
	assert_int_equal(reads_of_pass(&d, f.w), 2);
	rewrite(PID(25), "worker", 100 * 1024);
	assert_int_equal(discover_pass(&d, f.w), 0);
	assert_true(followed_pid(&f, PID(25)));

	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	discover_done(&d);
	free_all(f.w);
	config_done(&c);
	close(root_fd);
	remove_process(PID(25));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selectors_pick),
		cmocka_unit_test(test_all_but),
		cmocka_unit_test(test_max_processes),
		cmocka_unit_test(test_follow_fails),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_descriptor_budget),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
