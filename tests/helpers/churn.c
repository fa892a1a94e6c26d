/* churn: thousands of short-lived processes with some memory, for the
 * daemon's tests: each child maps and touches SIZE MiB, lives a random
 * few milliseconds (up to MAX_MS), exits.  At most PARALLEL live at once.
 *
 *   churn COUNT PARALLEL SIZE_MIB MAX_MS
 *
 * Prints how many children it ran. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void child(size_t bytes, unsigned max_ms, unsigned seed)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	memset(p, 1, bytes);
	struct timespec ts = { 0, (long)(rand_r(&seed) % (max_ms + 1)) * 1000000L };
	nanosleep(&ts, NULL);
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: churn COUNT PARALLEL SIZE_MIB MAX_MS\n");
		return 2;
	}
	unsigned count = (unsigned)atoi(argv[1]), parallel = (unsigned)atoi(argv[2]);
	size_t bytes = (size_t)atoi(argv[3]) << 20;
	unsigned max_ms = (unsigned)atoi(argv[4]), live = 0, done = 0;

	for (unsigned i = 0; i < count; i++) {
		while (live >= parallel) {
			if (wait(NULL) > 0) {
				live--;
				done++;
			}
		}
		pid_t pid = fork();
		if (pid == 0)
			child(bytes, max_ms, i * 2654435761u);
		if (pid > 0)
			live++;
	}
	while (live > 0 && wait(NULL) > 0) {
		live--;
		done++;
	}
	printf("%u\n", done);
	return 0;
}
