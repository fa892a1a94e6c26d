/* idle-target: a process with a known, modest memory shape that then sits
 * still, so a benchmark can watch hundreds of them: SIZE_MIB of touched
 * heap, a mapped copy of its own executable, a couple of threads.
 *
 *   idle-target SIZE_MIB [THREADS]   (exits when its standard input closes)
 *
 * THREADS (2 unless given) sleeping threads beside the main one; 0 lets a
 * bench start thousands without running out of pids. */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 8;
	char *heap = malloc(mib << 20);
	pthread_t t;

	if (!heap)
		return 1;
	memset(heap, 1, mib << 20);
	int threads = argc > 2 ? atoi(argv[2]) : 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&t, NULL, sleeper, NULL);
	printf("ready\n");
	fflush(stdout);
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	char c;
	while (poll(&p, 1, -1) >= 0 && read(STDIN_FILENO, &c, 1) > 0)
		;
	return 0;
}
