/* Discovery against a fixture proc root (a directory with PID/status, PID/statm,
 * PID/stat and PID/cmdline files): the processes the selectors pick and
 * only them, none twice, MaxProcesses gone past, and processes that vanish
 * between two reads of the listing passed over; what a pass remembers of
 * the processes it passed over, with the proc connector's events (handed
 * in as the connector would) and without, and the limits on it. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "limits.h"

#include "change-watch.h"
#include "config.h"
#include "discover.h"
#include "fast-tier.h"
#include "procfs.h"
#include "target.h"
#include "watched.h"

/* Pids no live process holds (above the default pid_max of 4194304 they
 * could not be parsed; below it, past what a test machine reaches). */
#define PID(n) (3990000 + (n))

static char root[512];

static void put(const char *pid_dir, const char *name, const char *text, size_t len)
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
static void process(int pid, const char *name, char state, int uid, unsigned anon_kb, bool kthread,
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

static int setup(void **state)
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

static int teardown(void **state)
{
	(void)state;
	test_dir_remove(root);
	return 0;
}

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

/* A sample of t by the fast tier at now_ms, its status read at least every
 * 10 s, at monotonic time 0 (no census trigger waits on it unless a test
 * says so with fast_tier_quiet).  Returns what fast_tier_sample does. */
static int sample_at(struct fast_tier *f, struct target *t, int64_t now_ms, uint64_t now)
{
	struct target *sampled = NULL;
	int r = fast_tier_sample(f, t->fast_slot, now_ms, now, 10000, &sampled);
	if (r <= 0)
		assert_ptr_equal(sampled, t);
	else
		assert_null(sampled);
	return r;
}

static int sample(struct fast_tier *f, struct target *t, int64_t now_ms)
{
	return sample_at(f, t, now_ms, 0);
}

/* The fast tier reads statm each sample and status only when statm moved,
 * at the first sample and once per status interval: a status that changed
 * under an unchanged statm is seen at that interval, not before. */
static void test_sample_reads(void **state)
{
	(void)state;
	char dir[32];
	struct proc_status st;
	struct target *t;
	struct fast_tier f = { 0 };
	int root_fd = procfs_open_root(root);
	const struct target_identity id = { .boot_id = "b", .boot_ms = -1, .ticks_per_second = 100, .now_ms = 0 };

	assert_true(root_fd >= 0);
	snprintf(dir, sizeof(dir), "%d", PID(11));
	process(PID(11), "sampled", 'S', 1000, 1024, false, CMD("sampled\0"), ALL);
	int pid_fd = procfs_open_pid(root_fd, PID(11));
	assert_true(pid_fd >= 0);
	assert_int_equal(procfs_read_status(pid_fd, &st), 0);
	close(pid_fd);
	assert_int_equal(target_new(root_fd, PID(11), &st, &id, &t), 0);
	assert_true(t->statm_fd >= 0);
	assert_int_equal(fast_tier_add(&f, t), 0);
	assert_int_equal(t->fds, 2); /* no pidfd for a pid without a process */

	assert_int_equal(sample(&f, t, 1000), 0);
	assert_int_equal(t->private, 1024 * KiB);
	assert_int_equal(t->resident, 1124 * KiB);
	/* status changes, statm does not: the last status's figures stay */
	const char grown[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			     "RssAnon:\t2024 kB\nVmSwap:\t8 kB\n";
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample(&f, t, 2000), 0);
	assert_int_equal(t->private, 1024 * KiB);
	assert_int_equal(t->acc.n, 2);
	/* a status interval after the last status read, nothing in swap then:
	 * not yet; a minute after it, read again */
	assert_int_equal(sample(&f, t, 11000), 0);
	assert_int_equal(t->private, 1024 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS - 1), 0);
	assert_int_equal(t->private, 1024 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS), 0);
	assert_int_equal(t->private, 2032 * KiB);
	assert_int_equal(t->swap, 8 * KiB);
	assert_int_equal(t->resident, 2124 * KiB);
	/* with swap, every status interval: swapped pages may be freed
	 * without a change in statm */
	const char freed[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			     "RssAnon:\t2024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", freed, sizeof(freed) - 1);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 9999), 0);
	assert_int_equal(t->swap, 8 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 10000), 0);
	assert_int_equal(t->swap, 0);
	assert_int_equal(t->private, 2024 * KiB);
	/* statm moves: status is read at once */
	const char back[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t524 kB\n"
			    "RssAnon:\t424 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	put(dir, "statm", "9999 131 25 1 0 106 0\n", 22);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 11000), 0);
	assert_int_equal(t->private, 424 * KiB);
	assert_int_equal(t->acc.private_min, 424 * KiB);
	assert_int_equal(t->acc.private_max, 2032 * KiB);
	/* statm unreadable as statm: an error, not a sample */
	put(dir, "statm", "garbage\n", 8);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 12000), -EBADMSG);
	/* the process is gone: statm reads as nothing */
	put(dir, "statm", "", 0);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 13000), -ESRCH);
	assert_int_equal(f.sample_errors, 1); /* the garbage, not the exit */
	fast_tier_remove(&f, t);
	target_free(t);

	/* without statm (as out of descriptors), status every time */
	process(PID(12), "sampled", 'S', 1000, 1024, false, CMD("sampled\0"), ALL);
	snprintf(dir, sizeof(dir), "%d", PID(12));
	assert_int_equal(target_new(root_fd, PID(12), &st, &id, &t), 0);
	close(t->statm_fd);
	t->statm_fd = -1;
	assert_int_equal(fast_tier_add(&f, t), 0);
	assert_int_equal(sample(&f, t, 1000), 0);
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample(&f, t, 2000), 0);
	assert_int_equal(t->private, 2032 * KiB);
	/* a zombie: gone */
	const char zombie[] = "Name:\tsampled\nState:\tZ (zombie)\nUid:\t1000\t1000\t1000\t1000\n";
	put(dir, "status", zombie, sizeof(zombie) - 1);
	assert_int_equal(sample(&f, t, 3000), -ESRCH);
	fast_tier_remove(&f, t);
	target_free(t);
	fast_tier_done(&f);
	close(root_fd);
}


/* A sample that finds statm's text as it was, before anything is due
 * (a status, a census trigger), leaves the target alone and counts a
 * repeat; the repeats reach the target before anything reads it, so its
 * row, peaks and last-seen time are those of full samples. */
static void test_fast_tier_repeats(void **state)
{
	(void)state;
	char dir[32];
	struct proc_status st;
	struct target *a, *b;
	struct fast_tier f = { 0 };
	int root_fd = procfs_open_root(root);
	const struct target_identity id = { .boot_id = "b", .boot_ms = -1, .ticks_per_second = 100, .now_ms = 0 };
	const uint64_t quiet = 100 * 1000 * 1000; /* monotonic us */

	assert_true(root_fd >= 0);
	process(PID(13), "repeats", 'S', 1000, 1024, false, CMD("repeats\0"), ALL);
	process(PID(14), "repeats", 'S', 1000, 2048, false, CMD("repeats\0"), ALL);
	snprintf(dir, sizeof(dir), "%d", PID(13));
	int pid_fd = procfs_open_pid(root_fd, PID(13));
	assert_true(pid_fd >= 0);
	assert_int_equal(procfs_read_status(pid_fd, &st), 0);
	close(pid_fd);
	assert_int_equal(target_new(root_fd, PID(13), &st, &id, &a), 0);
	assert_int_equal(target_new(root_fd, PID(14), &st, &id, &b), 0);
	assert_int_equal(fast_tier_add(&f, a), 0);
	assert_int_equal(fast_tier_add(&f, b), 0);
	assert_int_equal(fast_tier_count(&f), 2);

	/* the first sample is a full one, and so is every one until the census
	 * tier says how long nothing can fall due */
	assert_int_equal(sample_at(&f, a, 1000, 1), 0);
	assert_int_equal(sample_at(&f, a, 2000, 2), 0);
	assert_int_equal(a->acc.n, 2);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 3000, 3), 1);
	assert_int_equal(sample_at(&f, a, 4000, 4), 1);
	assert_int_equal(a->acc.n, 2); /* not touched */
	assert_int_equal(a->ref->info.seen, 2000);
	fast_tier_settle(&f, a);
	assert_int_equal(a->acc.n, 4);
	assert_int_equal(a->ref->info.seen, 4000);
	assert_int_equal(a->acc.private_min, 1024 * KiB);
	assert_int_equal(a->acc.private_max, 1024 * KiB);

	/* a spike between repeats: statm's text moved, a full sample */
	assert_int_equal(sample_at(&f, a, 5000, 5), 1);
	const char spike[] = "Name:\trepeats\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t9124 kB\n"
			     "RssAnon:\t9024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", spike, sizeof(spike) - 1);
	put(dir, "statm", "9999 2281 25 1 0 2256 0\n", 24);
	assert_int_equal(sample_at(&f, a, 6000, 6), 0);
	assert_int_equal(a->acc.n, 6); /* the repeat at 5000 went in first */
	assert_int_equal(a->acc.private_max, 9024 * KiB);
	assert_int_equal(a->ref->info.peak_private, 9024 * KiB);
	/* back as it was: the text differs from the last one kept, full again */
	put(dir, "statm", "1281 281 25 1 0 256 0\n", 22);
	const char back[] = "Name:\trepeats\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1124 kB\n"
			    "RssAnon:\t1024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 7000, 7), 0);
	assert_int_equal(a->private, 1024 * KiB);
	assert_int_equal(a->acc.private_min, 1024 * KiB);
	assert_int_equal(a->acc.private_max, 9024 * KiB);

	/* a full sample forgets the quiet until it is told again */
	assert_int_equal(sample_at(&f, a, 8000, 8), 0);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 9000, 9), 1);
	/* the end of the quiet (a census trigger may fall due): full */
	assert_int_equal(sample_at(&f, a, 10000, quiet), 0);
	/* woken (a census, a request, a mark): full */
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 11000, 11), 1);
	fast_tier_wake(&f, a);
	assert_int_equal(sample_at(&f, a, 12000, 12), 0);
	fast_tier_quiet(&f, b, quiet);
	fast_tier_quiet(&f, a, quiet);
	fast_tier_wake_all(&f);
	assert_int_equal(sample_at(&f, a, 13000, 13), 0);
	/* status is due (RW_STATUS_REFRESH_MS after the last read at 7000:
	 * a swap-out and a fault may cancel out in statm): full */
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 7000 + RW_STATUS_REFRESH_MS - 1, 14), 1);
	assert_int_equal(sample_at(&f, a, 7000 + RW_STATUS_REFRESH_MS, 15), 0);

	/* a statm text longer than a slot keeps: never a repeat */
	char longer[128];
	const char *big = "12345678901234567";
	int n = snprintf(longer, sizeof(longer), "%s 281 25 %s %s %s %s\n", big, big, big, big, big);
	assert_true(n > FAST_STATM_KEPT);
	put(dir, "statm", longer, (size_t)n);
	assert_int_equal(sample_at(&f, a, 80000, 16), 0);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 81000, 17), 0);
	put(dir, "statm", "1281 281 25 1 0 256 0\n", 22);

	/* statm read as nothing (gone) while quiet: the exit is told */
	assert_int_equal(sample_at(&f, a, 82000, 18), 0);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 83000, 19), 1);
	put(dir, "statm", "", 0);
	assert_int_equal(sample_at(&f, a, 84000, 20), -ESRCH);

	/* removed: its repeats reach it, the last slot takes its place */
	uint32_t before = a->acc.n;
	fast_tier_remove(&f, a);
	assert_int_equal(a->acc.n, before + 1);
	assert_int_equal(a->ref->info.seen, 83000);
	assert_int_equal(fast_tier_count(&f), 1);
	assert_int_equal(b->fast_slot, 0);
	assert_int_equal(sample_at(&f, b, 85000, 21), 0);
	assert_int_equal(b->private, 2048 * KiB);
	fast_tier_remove(&f, b);
	assert_int_equal(fast_tier_count(&f), 0);
	target_free(a);
	target_free(b);
	fast_tier_done(&f);
	close(root_fd);
}

/* With the change watch, a quiet slot whose flag is down is a repeat
 * without a read (statm changed under it is not seen: the kernel would
 * have raised the flag); a raised flag reads it; the swap bit reads the
 * status too; and statm found changed with the flag down, both before and
 * after the read, turns the watch off: every process read every round. */
static void test_fast_tier_watch(void **state)
{
	(void)state;
	char dir[32];
	struct proc_status st;
	struct target *a;
	struct fast_tier f = { 0 };
	int root_fd = procfs_open_root(root);
	const struct target_identity id = { .boot_id = "b", .boot_ms = -1, .ticks_per_second = 100, .now_ms = 0 };
	const uint64_t quiet = 100 * 1000 * 1000;

	int r = fast_tier_watch(&f, true, 4);
	if (r < 0) {
		/* as root, with the kernel's BTF, the watch must load */
		assert_false(change_watch_expected());
		close(root_fd);
		skip();
	}
	assert_true(fast_tier_watching(&f));
	assert_true(root_fd >= 0);
	process(PID(16), "watched", 'S', 1000, 1024, false, CMD("watched\0"), ALL);
	snprintf(dir, sizeof(dir), "%d", PID(16));
	int pid_fd = procfs_open_pid(root_fd, PID(16));
	assert_true(pid_fd >= 0);
	assert_int_equal(procfs_read_status(pid_fd, &st), 0);
	close(pid_fd);
	assert_int_equal(target_new(root_fd, PID(16), &st, &id, &a), 0);
	assert_int_equal(fast_tier_add(&f, a), 0);
	uint32_t index = f.slots[a->fast_slot].watch;
	assert_true(index > 0);

	/* a new slot's flag is up: the first sample reads */
	assert_int_equal(sample_at(&f, a, 1000, 1), 0);
	assert_int_equal(a->private, 1024 * KiB);
	fast_tier_quiet(&f, a, quiet);
	/* flag down: no read, whatever the file says now */
	const char grown[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			     "RssAnon:\t2024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", grown, sizeof(grown) - 1);
	put(dir, "statm", "1531 531 25 1 0 506 0\n", 22);
	assert_int_equal(sample_at(&f, a, 2000, 2), 1);
	/* no status falls due by time: a minute later, still a repeat */
	assert_int_equal(sample_at(&f, a, 1000 + RW_STATUS_REFRESH_MS, 3), 1);
	/* the kernel says it moved: read, and the status with it */
	change_watch_raise(f.watch, index, CHANGE_MOVED);
	assert_int_equal(sample_at(&f, a, 3000 + RW_STATUS_REFRESH_MS, 4), 0);
	assert_int_equal(a->private, 2024 * KiB);
	fast_tier_quiet(&f, a, quiet);
	/* the swap moved, statm did not: the status is read again */
	const char swapped[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			       "RssAnon:\t2024 kB\nVmSwap:\t64 kB\n";
	put(dir, "status", swapped, sizeof(swapped) - 1);
	assert_int_equal(sample_at(&f, a, 4000 + RW_STATUS_REFRESH_MS, 5), 1);
	change_watch_raise(f.watch, index, CHANGE_MOVED | CHANGE_SWAP);
	assert_int_equal(sample_at(&f, a, 5000 + RW_STATUS_REFRESH_MS, 6), 0);
	assert_int_equal(a->swap, 64 * KiB);
	assert_int_equal(a->private, 2088 * KiB);
	assert_true(fast_tier_watching(&f));

	/* the end of the quiet reads statm with the flag down: its size alone
	 * changed (an munmap of pages never touched, where the kernel
	 * downgrades its lock first): a full sample, the watch stays */
	put(dir, "statm", "1600 531 25 1 0 506 0\n", 22);
	assert_int_equal(sample_at(&f, a, 5500 + RW_STATUS_REFRESH_MS, quiet), 0);
	assert_true(fast_tier_watching(&f));
	/* its resident pages changed: the kernel missed it, the watch goes;
	 * the change itself is sampled */
	put(dir, "statm", "1281 281 25 1 0 256 0\n", 22);
	const char back[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1124 kB\n"
			    "RssAnon:\t1024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	assert_int_equal(sample_at(&f, a, 6000 + RW_STATUS_REFRESH_MS, quiet), 0);
	assert_false(fast_tier_watching(&f));
	assert_int_equal(f.slots[a->fast_slot].watch, 0);
	assert_int_equal(a->private, 1024 * KiB);
	/* unwatched: statm read every round again, so its changes are seen */
	fast_tier_quiet(&f, a, 2 * quiet);
	put(dir, "statm", "1531 531 25 1 0 506 0\n", 22);
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample_at(&f, a, 7000 + RW_STATUS_REFRESH_MS, quiet + 1), 0);
	assert_int_equal(a->private, 2024 * KiB);

	/* on again: slots present are watched, their flags up */
	assert_int_equal(fast_tier_watch(&f, true, 4), 0);
	assert_true(f.slots[a->fast_slot].watch > 0);
	fast_tier_quiet(&f, a, 2 * quiet);
	assert_int_equal(sample_at(&f, a, 8000 + RW_STATUS_REFRESH_MS, quiet + 2), 0);
	fast_tier_quiet(&f, a, 2 * quiet);
	assert_int_equal(sample_at(&f, a, 9000 + RW_STATUS_REFRESH_MS, quiet + 3), 1);
	fast_tier_remove(&f, a);
	target_free(a);
	fast_tier_done(&f);
	assert_null(f.watch);
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
		cmocka_unit_test(test_sample_reads), cmocka_unit_test(test_fast_tier_repeats),
		cmocka_unit_test(test_fast_tier_watch),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_descriptor_budget),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
