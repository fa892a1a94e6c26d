/* The process watch on real processes: as root on a kernel with BTF, a
 * child that starts a thread, renames itself, execs and exits is told new,
 * renamed, exec'd and gone, in that order, and its thread never; a ring
 * too small for a burst of children tells the loss (the limit the daemon
 * sizes its ring by, gone past) and keeps telling what it held.  Elsewhere
 * the watch must fail to load with a negative errno (skipped, not
 * passed). */
#include "testlib.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "limits.h"
#include "process-watch.h"

struct heard {
	unsigned n;
	enum process_watch_kind kind[8192];
	int pid[8192];
};

static int on_event(void *userdata, enum process_watch_kind kind, int pid)
{
	struct heard *h = userdata;
	if (h->n < ELEMENTSOF(h->kind)) {
		h->kind[h->n] = kind;
		h->pid[h->n] = pid;
	}
	h->n++;
	return 0;
}

/* The kinds told of pid, in order, as letters (n new, x exec, r renamed,
 * g gone) into buf. */
static const char *told(const struct heard *h, int pid, char *buf, size_t size)
{
	static const char letter[] = { [PROCESS_WATCH_NEW] = 'n', [PROCESS_WATCH_EXEC] = 'x',
				       [PROCESS_WATCH_RENAMED] = 'r', [PROCESS_WATCH_GONE] = 'g' };
	size_t k = 0;
	for (unsigned i = 0; i < h->n && i < ELEMENTSOF(h->kind) && k + 1 < size; i++)
		if (h->pid[i] == pid)
			buf[k++] = letter[h->kind[i]];
	buf[k] = 0;
	return buf;
}

/* Reads until pid's exit is told (at most 5 s). */
static void wait_gone(struct process_watch *w, struct heard *h, int pid)
{
	char buf[64];
	for (int i = 0; i < 50 && !strchr(told(h, pid, buf, sizeof(buf)), 'g'); i++) {
		struct pollfd p = { .fd = process_watch_fd(w), .events = POLLIN };
		poll(&p, 1, 100);
		assert_true(process_watch_read(w) >= 0);
	}
}

static int tid_pipe[2];

static void *thread_main(void *arg)
{
	(void)arg;
	int tid = (int)syscall(SYS_gettid);
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(3);
	return NULL;
}

static struct process_watch *load(struct heard *h, size_t ring)
{
	struct process_watch *w = NULL;
	int r = process_watch_new(ring, on_event, h, &w);
	if (!change_watch_expected()) {
		assert_true(r < 0);
		return NULL;
	}
	assert_int_equal(r, 0);
	return w;
}

static void test_a_life_told(void **state)
{
	(void)state;
	static struct heard h;
	struct process_watch *w = load(&h, RW_PROCESS_WATCH_RING);
	char buf[64];
	int status, tid = 0;

	if (!w)
		skip();
	assert_int_equal(pipe(tid_pipe), 0);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
			_exit(2);
		prctl(PR_SET_NAME, "rw-renamed");
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	close(tid_pipe[1]);
	assert_int_equal(read(tid_pipe[0], &tid, sizeof(tid)), sizeof(tid));
	close(tid_pipe[0]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	wait_gone(w, &h, child);

	/* new, renamed (by prctl, then by the exec, which names it "true"
	 * before the program is told loaded), exec'd, gone */
	const char *kinds = told(&h, child, buf, sizeof(buf));
	size_t len = strlen(kinds);
	assert_true(len >= 4);
	assert_int_equal(kinds[0], 'n');
	assert_string_equal(kinds + len - 2, "xg");
	assert_int_equal(strspn(kinds + 1, "r"), len - 3);
	/* the thread was born, named (glibc does not) and died untold */
	assert_true(tid > 0 && tid != child);
	assert_string_equal(told(&h, tid, buf, sizeof(buf)), "");
	assert_int_equal(process_watch_lost(w), 0);
	process_watch_free(w);
}

/* One page of ring holds 256 records of 16 bytes (8 of header): 400
 * children told new and gone cannot fit. */
static void test_a_full_ring_tells_its_loss(void **state)
{
	(void)state;
	static struct heard h;
	long page = sysconf(_SC_PAGESIZE);
	struct process_watch *w = load(&h, (size_t)page);
	pid_t last = 0;

	if (!w)
		skip();
	for (int i = 0; i < 400; i++) {
		pid_t p = fork();
		assert_true(p >= 0);
		if (p == 0)
			_exit(0);
		last = p;
		assert_int_equal(waitpid(p, NULL, 0), p);
	}
	assert_int_equal(process_watch_read(w), -ENOBUFS);
	assert_true(process_watch_lost(w) > 0);
	/* what the ring held was handed over: the first children */
	assert_true(h.n > 100);
	char buf[64];
	assert_string_equal(told(&h, last, buf, sizeof(buf)), "");
	/* the loss is told once */
	int r = process_watch_read(w);
	assert_true(r >= 0 || r == -ENOBUFS);
	if (r == -ENOBUFS) /* another burst of the host's own: then it settles */
		assert_true(process_watch_read(w) >= 0 || process_watch_read(w) >= 0);
	process_watch_free(w);
}

static void test_a_ring_of_a_bad_size_is_refused(void **state)
{
	(void)state;
	struct process_watch *w = NULL;
	long page = sysconf(_SC_PAGESIZE);

	assert_int_equal(process_watch_new((size_t)page / 2, on_event, NULL, &w), -EINVAL);
	assert_int_equal(process_watch_new(3 * (size_t)page, on_event, NULL, &w), -EINVAL);
	assert_null(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_life_told),
		cmocka_unit_test(test_a_full_ring_tells_its_loss),
		cmocka_unit_test(test_a_ring_of_a_bad_size_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
