/* A traced program that forks, execs and ends threads while it allocates,
 * for tests/integration/test_trace_record.py's check that every event of
 * its threads is in its trace or counted as dropped.
 *
 *     trace-churn WAVES THREADS PAIRS
 *     trace-churn wide THREADS
 *
 * WAVES times, THREADS threads each do PAIRS malloc/free pairs of 64 KiB
 * (above the default threshold: every one traced) and end, while the main
 * thread waits for them; during the second wave it forks a child that
 * does the same pairs in its main thread and in a thread of its own, then
 * exits; during the third it forks a child that execs this program as
 * "trace-churn exec PAIRS", which does them in two threads.  Each
 * process's events are 2 * PAIRS a thread.  The program then writes
 * "made N" (the events of its own threads) and exits with status 7, so the
 * test sees that the traced program's output and status are its own.  It
 * writes with write(2), not stdio, whose buffer would be one more block
 * above the threshold.
 *
 * "wide" runs THREADS threads at once (up to WIDE_MAX, past the 4096
 * streams a trace file has), each allocating one block, holding it until
 * every thread has its own, then freeing it: 2 * THREADS events, those of
 * the threads past the streams dropped. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK (64 * 1024)
#define THREADS_MAX 64
#define WIDE_MAX 8192

static pthread_t wide[WIDE_MAX]; /* static: a malloc'd array would be a block above the threshold */
static pthread_barrier_t all_hold;

static long pairs;

static void *work(void *arg)
{
	(void)arg;
	for (long i = 0; i < pairs; i++) {
		char *volatile p = malloc(BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		free(p);
	}
	return NULL;
}

static void *hold_one(void *arg)
{
	char *volatile p = malloc(BLOCK);

	(void)arg;
	if (!p)
		abort();
	p[0] = 1;
	pthread_barrier_wait(&all_hold);
	free(p);
	return NULL;
}

/* n threads at once, each with a block while all have theirs */
static int wide_threads(int n)
{
	pthread_attr_t attr;

	if (pthread_barrier_init(&all_hold, NULL, (unsigned)n) != 0 || pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 64 * 1024) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (pthread_create(&wide[i], &attr, hold_one, NULL) != 0)
			return -1;
	for (int i = 0; i < n; i++)
		pthread_join(wide[i], NULL);
	return 0;
}

/* n threads doing their pairs, joined */
static int threads(int n)
{
	pthread_t t[THREADS_MAX];

	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, work, NULL) != 0)
			return -1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int wait_ok(pid_t pid)
{
	int status;

	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char line[64];
	int waves, n, len;
	pid_t forked = -1, execd = -1;

	if (argc == 3 && strcmp(argv[1], "wide") == 0) {
		n = atoi(argv[2]);
		if (n < 1 || n > WIDE_MAX)
			return 2;
		return wide_threads(n) < 0 ? 1 : 0;
	}
	if (argc == 3 && strcmp(argv[1], "exec") == 0) {
		pairs = atol(argv[2]);
		return threads(2) < 0 ? 1 : 0;
	}
	if (argc != 4 || (waves = atoi(argv[1])) < 3 || (n = atoi(argv[2])) < 1 || n > THREADS_MAX) {
		fprintf(stderr, "usage: trace-churn WAVES(3 or more) THREADS PAIRS\n");
		return 2;
	}
	pairs = atol(argv[3]);
	for (int w = 0; w < waves; w++) {
		pthread_t t[THREADS_MAX];
		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, work, NULL) != 0)
				return 1;
		if (w == 1 && (forked = fork()) == 0) {
			pthread_t own;
			if (pthread_create(&own, NULL, work, NULL) != 0)
				exit(1);
			work(NULL);
			pthread_join(own, NULL);
			exit(0);
		}
		if (w == 2 && (execd = fork()) == 0) {
			char count[24];
			snprintf(count, sizeof(count), "%ld", pairs);
			execl("/proc/self/exe", argv[0], "exec", count, (char *)NULL);
			_exit(127);
		}
		for (int i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	if (wait_ok(forked) < 0 || wait_ok(execd) < 0)
		return 1;
	len = snprintf(line, sizeof(line), "made %ld\n", 2L * waves * n * pairs);
	if (write(STDOUT_FILENO, line, (size_t)len) != len)
		return 1;
	return 7;
}
