/* The fast tier against the fixture proc root (proc-fixture.h): statm read
 * each sample and status only when due, repeats of an unchanged statm
 * counted without touching the process, and, with the change watch, a
 * quiet slot whose flag is down counted as a repeat without a read. */
#include "proc-fixture.h"

#include <errno.h>
#include <sys/resource.h>

#include "limits.h"

#include "change-watch.h"
#include "fast-tier.h"
#include "procfs.h"
#include "linux/target-os.h"

/* A sample of t by the fast tier at now_ms, its status read at least every
 * 10 s, at monotonic time 0 (no census trigger waits on it unless a test
 * says so with fast_tier_quiet).  Returns what fast_tier_sample does. */
static int sample_at(struct fast_tier *f, struct target *t, int64_t now_ms, uint64_t now)
{
	struct target *sampled = NULL;
	int r = fast_tier_sample(f, t->fast.slot, now_ms, now, 10000, &sampled);
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
	int proc_dir_fd = procfs_open_pid(root_fd, PID(11));
	assert_true(proc_dir_fd >= 0);
	assert_int_equal(procfs_read_status(proc_dir_fd, &st), 0);
	close(proc_dir_fd);
	assert_int_equal(target_new(root_fd, PID(11), &st, &id, &t), 0);
	assert_true(t->fast.statm_fd >= 0);
	assert_int_equal(fast_tier_add(&f, t), 0);
	assert_int_equal(target_fds(t), 2); /* no pidfd for a pid without a process */

	assert_int_equal(sample(&f, t, 1000), 0);
	assert_int_equal(t->fast.private, 1024 * KiB);
	assert_int_equal(t->fast.resident, 1124 * KiB);
	/* status changes, statm does not: the last status's figures stay */
	const char grown[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			     "RssAnon:\t2024 kB\nVmSwap:\t8 kB\n";
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample(&f, t, 2000), 0);
	assert_int_equal(t->fast.private, 1024 * KiB);
	assert_int_equal(t->fast.acc.samples, 2);
	/* a status interval after the last status read, nothing in swap then:
	 * not yet; a minute after it, read again */
	assert_int_equal(sample(&f, t, 11000), 0);
	assert_int_equal(t->fast.private, 1024 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS - 1), 0);
	assert_int_equal(t->fast.private, 1024 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS), 0);
	assert_int_equal(t->fast.private, 2032 * KiB);
	assert_int_equal(t->fast.swap, 8 * KiB);
	assert_int_equal(t->fast.resident, 2124 * KiB);
	/* with swap, every status interval: swapped pages may be freed
	 * without a change in statm */
	const char freed[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			     "RssAnon:\t2024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", freed, sizeof(freed) - 1);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 9999), 0);
	assert_int_equal(t->fast.swap, 8 * KiB);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 10000), 0);
	assert_int_equal(t->fast.swap, 0);
	assert_int_equal(t->fast.private, 2024 * KiB);
	/* statm moves: status is read at once */
	const char back[] = "Name:\tsampled\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t524 kB\n"
			    "RssAnon:\t424 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	put(dir, "statm", "9999 131 25 1 0 106 0\n", 22);
	assert_int_equal(sample(&f, t, 1000 + RW_STATUS_REFRESH_MS + 11000), 0);
	assert_int_equal(t->fast.private, 424 * KiB);
	assert_int_equal(t->fast.acc.private_min, 424 * KiB);
	assert_int_equal(t->fast.acc.private_max, 2032 * KiB);
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
	fast_tier_target_done(t);
	assert_int_equal(fast_tier_add(&f, t), 0);
	assert_int_equal(sample(&f, t, 1000), 0);
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample(&f, t, 2000), 0);
	assert_int_equal(t->fast.private, 2032 * KiB);
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
	int proc_dir_fd = procfs_open_pid(root_fd, PID(13));
	assert_true(proc_dir_fd >= 0);
	assert_int_equal(procfs_read_status(proc_dir_fd, &st), 0);
	close(proc_dir_fd);
	assert_int_equal(target_new(root_fd, PID(13), &st, &id, &a), 0);
	assert_int_equal(target_new(root_fd, PID(14), &st, &id, &b), 0);
	assert_int_equal(fast_tier_add(&f, a), 0);
	assert_int_equal(fast_tier_add(&f, b), 0);
	assert_int_equal(fast_tier_count(&f), 2);

	/* the first sample is a full one, and so is every one until the census
	 * tier says how long nothing can fall due */
	assert_int_equal(sample_at(&f, a, 1000, 1), 0);
	assert_int_equal(sample_at(&f, a, 2000, 2), 0);
	assert_int_equal(a->fast.acc.samples, 2);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 3000, 3), 1);
	assert_int_equal(sample_at(&f, a, 4000, 4), 1);
	assert_int_equal(a->fast.acc.samples, 2); /* not touched */
	assert_int_equal(a->ref->info.seen, 2000);
	fast_tier_settle(&f, a);
	assert_int_equal(a->fast.acc.samples, 4);
	assert_int_equal(a->ref->info.seen, 4000);
	assert_int_equal(a->fast.acc.private_min, 1024 * KiB);
	assert_int_equal(a->fast.acc.private_max, 1024 * KiB);

	/* a spike between repeats: statm's text moved, a full sample */
	assert_int_equal(sample_at(&f, a, 5000, 5), 1);
	const char spike[] = "Name:\trepeats\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t9124 kB\n"
			     "RssAnon:\t9024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", spike, sizeof(spike) - 1);
	put(dir, "statm", "9999 2281 25 1 0 2256 0\n", 24);
	assert_int_equal(sample_at(&f, a, 6000, 6), 0);
	assert_int_equal(a->fast.acc.samples, 6); /* the repeat at 5000 went in first */
	assert_int_equal(a->fast.acc.private_max, 9024 * KiB);
	assert_int_equal(a->ref->info.peak_private, 9024 * KiB);
	/* back as it was: the text differs from the last one kept, full again */
	put(dir, "statm", "1281 281 25 1 0 256 0\n", 22);
	const char back[] = "Name:\trepeats\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1124 kB\n"
			    "RssAnon:\t1024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	fast_tier_quiet(&f, a, quiet);
	assert_int_equal(sample_at(&f, a, 7000, 7), 0);
	assert_int_equal(a->fast.private, 1024 * KiB);
	assert_int_equal(a->fast.acc.private_min, 1024 * KiB);
	assert_int_equal(a->fast.acc.private_max, 9024 * KiB);

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
	uint32_t before = a->fast.acc.samples;
	fast_tier_remove(&f, a);
	assert_int_equal(a->fast.acc.samples, before + 1);
	assert_int_equal(a->ref->info.seen, 83000);
	assert_int_equal(fast_tier_count(&f), 1);
	assert_int_equal(b->fast.slot, 0);
	assert_int_equal(sample_at(&f, b, 85000, 21), 0);
	assert_int_equal(b->fast.private, 2048 * KiB);
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
 * after the read, takes that process out of the watch: it is read every
 * round, and the watch stays for the others (test_fast_tier_watch_misses). */
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
	int proc_dir_fd = procfs_open_pid(root_fd, PID(16));
	assert_true(proc_dir_fd >= 0);
	assert_int_equal(procfs_read_status(proc_dir_fd, &st), 0);
	close(proc_dir_fd);
	assert_int_equal(target_new(root_fd, PID(16), &st, &id, &a), 0);
	assert_int_equal(fast_tier_add(&f, a), 0);
	uint32_t index = f.slots[a->fast.slot].watch;
	assert_true(index > 0);

	/* a new slot's flag is up: the first sample reads */
	assert_int_equal(sample_at(&f, a, 1000, 1), 0);
	assert_int_equal(a->fast.private, 1024 * KiB);
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
	assert_int_equal(a->fast.private, 2024 * KiB);
	fast_tier_quiet(&f, a, quiet);
	/* the swap moved, statm did not: the status is read again */
	const char swapped[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t2124 kB\n"
			       "RssAnon:\t2024 kB\nVmSwap:\t64 kB\n";
	put(dir, "status", swapped, sizeof(swapped) - 1);
	assert_int_equal(sample_at(&f, a, 4000 + RW_STATUS_REFRESH_MS, 5), 1);
	change_watch_raise(f.watch, index, CHANGE_MOVED | CHANGE_SWAP);
	assert_int_equal(sample_at(&f, a, 5000 + RW_STATUS_REFRESH_MS, 6), 0);
	assert_int_equal(a->fast.swap, 64 * KiB);
	assert_int_equal(a->fast.private, 2088 * KiB);
	assert_true(fast_tier_watching(&f));

	/* the end of the quiet reads statm with the flag down: its size alone
	 * changed (an munmap of pages never touched, where the kernel
	 * downgrades its lock first): a full sample, the watch stays */
	put(dir, "statm", "1600 531 25 1 0 506 0\n", 22);
	assert_int_equal(sample_at(&f, a, 5500 + RW_STATUS_REFRESH_MS, quiet), 0);
	assert_true(fast_tier_watching(&f));
	/* its resident pages changed with the flag down: the change is
	 * sampled, and the watch waits a round, as the kernel fires rss_stat
	 * only after it changed the counter */
	put(dir, "statm", "1281 281 25 1 0 256 0\n", 22);
	const char back[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1124 kB\n"
			    "RssAnon:\t1024 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", back, sizeof(back) - 1);
	assert_int_equal(sample_at(&f, a, 6000 + RW_STATUS_REFRESH_MS, quiet), 0);
	assert_int_equal(a->fast.private, 1024 * KiB);
	assert_true(fast_tier_watching(&f));
	/* the event came before the next round: read (the same text, within
	 * a quiet: a repeat), the watch stays */
	fast_tier_quiet(&f, a, 2 * quiet);
	change_watch_raise(f.watch, index, CHANGE_MOVED);
	assert_int_equal(sample_at(&f, a, 6100 + RW_STATUS_REFRESH_MS, quiet + 1), 1);
	assert_true(fast_tier_watching(&f));
	/* flag down, within the quiet: a repeat, nothing read */
	assert_int_equal(sample_at(&f, a, 6200 + RW_STATUS_REFRESH_MS, quiet + 2), 1);
	/* changed again with the flag down (seen at the end of a quiet), and
	 * still down at the next round, within a quiet: read all the same,
	 * and now the kernel missed it: the process leaves the watch */
	put(dir, "statm", "1401 401 25 1 0 376 0\n", 22);
	const char mid[] = "Name:\twatched\nState:\tS (x)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t1604 kB\n"
			   "RssAnon:\t1504 kB\nVmSwap:\t0 kB\n";
	put(dir, "status", mid, sizeof(mid) - 1);
	assert_int_equal(sample_at(&f, a, 6300 + RW_STATUS_REFRESH_MS, 2 * quiet), 0);
	assert_int_equal(a->fast.private, 1504 * KiB);
	assert_true(fast_tier_watching(&f));
	fast_tier_quiet(&f, a, 3 * quiet);
	assert_int_equal(sample_at(&f, a, 6400 + RW_STATUS_REFRESH_MS, 2 * quiet + 1), 0);
	assert_true(fast_tier_watching(&f));
	assert_int_equal(f.slots[a->fast.slot].watch, 0);
	assert_int_equal(change_watch_count(f.watch), 0);
	assert_int_equal(f.watch_misses, 1);
	assert_int_equal(fast_tier_take_mappings(&f, a), STEADY_MAPPINGS_UNKNOWN);
	assert_int_equal(a->fast.private, 1504 * KiB);
	/* unwatched: statm read every round again, so its changes are seen */
	fast_tier_quiet(&f, a, 2 * quiet);
	put(dir, "statm", "1531 531 25 1 0 506 0\n", 22);
	put(dir, "status", grown, sizeof(grown) - 1);
	assert_int_equal(sample_at(&f, a, 7000 + RW_STATUS_REFRESH_MS, quiet + 1), 0);
	assert_int_equal(a->fast.private, 2024 * KiB);

	/* off and on again (a restart of the watch): slots present are
	 * watched, their flags up, no miss counted */
	assert_int_equal(fast_tier_watch(&f, false, 0), 0);
	assert_int_equal(fast_tier_watch(&f, true, 4), 0);
	assert_int_equal(f.watch_misses, 0);
	assert_true(f.slots[a->fast.slot].watch > 0);
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

/* A watched process t whose resident pages change to statm's text with
 * its flag down: read at the end of a quiet (a full sample), then a round
 * later with the flag still down: a miss the watch counts. */
static void missed_change(struct fast_tier *f, struct target *t, const char *statm, int64_t now_ms)
{
	const uint64_t quiet = 100 * 1000 * 1000;
	char dir[32];

	snprintf(dir, sizeof(dir), "%d", t->pid);
	fast_tier_quiet(f, t, quiet);
	put(dir, "statm", statm, strlen(statm));
	assert_int_equal(sample_at(f, t, now_ms, quiet), 0);
	fast_tier_quiet(f, t, 3 * quiet);
	assert_int_equal(sample_at(f, t, now_ms + 1000, 2 * quiet), 0);
}

/* Misses in fewer than RW_WATCH_MISSES_MAX processes take only those out
 * of the watch (a kernel may run no tracepoint in one process's context);
 * the RW_WATCH_MISSES_MAX-th turns the watch off for all. */
static void test_fast_tier_watch_misses(void **state)
{
	(void)state;
	char dir[32];
	struct proc_status st;
	struct target *t[RW_WATCH_MISSES_MAX + 1];
	struct fast_tier f = { 0 };
	int root_fd = procfs_open_root(root);
	const struct target_identity id = { .boot_id = "b", .boot_ms = -1, .ticks_per_second = 100, .now_ms = 0 };

	int r = fast_tier_watch(&f, true, RW_WATCH_MISSES_MAX + 1);
	if (r < 0) {
		assert_false(change_watch_expected());
		close(root_fd);
		skip();
	}
	assert_true(root_fd >= 0);
	for (unsigned i = 0; i <= RW_WATCH_MISSES_MAX; i++) {
		process(PID(17 + (int)i), "watched", 'S', 1000, 1024, false, CMD("watched\0"), ALL);
		int proc_dir_fd = procfs_open_pid(root_fd, PID(17 + (int)i));
		assert_true(proc_dir_fd >= 0);
		assert_int_equal(procfs_read_status(proc_dir_fd, &st), 0);
		close(proc_dir_fd);
		assert_int_equal(target_new(root_fd, PID(17 + (int)i), &st, &id, &t[i]), 0);
		assert_int_equal(fast_tier_add(&f, t[i]), 0);
		assert_true(f.slots[t[i]->fast.slot].watch > 0);
		/* a new slot's flag is up: the first sample reads */
		assert_int_equal(sample_at(&f, t[i], 1000, 1), 0);
	}
	assert_int_equal(change_watch_count(f.watch), RW_WATCH_MISSES_MAX + 1);

	for (unsigned i = 0; i + 1 < RW_WATCH_MISSES_MAX; i++) {
		missed_change(&f, t[i], "1401 401 25 1 0 376 0\n", 2000);
		assert_true(fast_tier_watching(&f));
		assert_int_equal(f.watch_misses, i + 1);
		assert_int_equal(f.slots[t[i]->fast.slot].watch, 0);
		assert_int_equal(change_watch_count(f.watch), RW_WATCH_MISSES_MAX - i);
		/* the others stay watched: flag down within a quiet, no read */
		fast_tier_quiet(&f, t[i + 1], 100 * 1000 * 1000);
		assert_int_equal(sample_at(&f, t[i + 1], 2500, 2), 1);
		assert_true(f.slots[t[i + 1]->fast.slot].watch > 0);
	}
	/* the process missed is read every round: its next change is seen */
	snprintf(dir, sizeof(dir), "%d", t[0]->pid);
	fast_tier_quiet(&f, t[0], 100 * 1000 * 1000);
	put(dir, "statm", "1531 531 25 1 0 506 0\n", 22);
	assert_int_equal(sample_at(&f, t[0], 3000, 2), 0);

	/* one more process missed: the watch is trusted for none */
	missed_change(&f, t[RW_WATCH_MISSES_MAX - 1], "1401 401 25 1 0 376 0\n", 4000);
	assert_false(fast_tier_watching(&f));
	assert_int_equal(f.watch_misses, 0);
	for (unsigned i = 0; i <= RW_WATCH_MISSES_MAX; i++)
		assert_int_equal(f.slots[t[i]->fast.slot].watch, 0);

	for (unsigned i = 0; i <= RW_WATCH_MISSES_MAX; i++) {
		fast_tier_remove(&f, t[i]);
		target_free(t[i]);
	}
	fast_tier_done(&f);
	close(root_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_reads),
		cmocka_unit_test(test_fast_tier_repeats),
		cmocka_unit_test(test_fast_tier_watch),
		cmocka_unit_test(test_fast_tier_watch_misses),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
