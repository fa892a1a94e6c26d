/* status-reader: the floor of the fast tier.  Reads /proc/PID/status of
 * the given pids every INTERVAL_MS and does nothing with it: what any
 * sampler of these processes must at least pay the kernel.
 *
 *   status-reader INTERVAL_MS PID... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long ms = atol(argv[1]);
	int n = argc - 2;
	int *dirs = calloc((size_t)n, sizeof(int));
	char buf[8192];

	for (int i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%s", argv[i + 2]);
		dirs[i] = open(path, O_RDONLY | O_DIRECTORY);
	}
	for (;;) {
		for (int i = 0; i < n; i++) {
			int fd = openat(dirs[i], "status", O_RDONLY);
			if (fd >= 0) {
				while (read(fd, buf, sizeof(buf)) > 0)
					;
				close(fd);
			}
		}
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
}
