/* statm-reader: the floor of the fast tier.  Reads what ramwatchd's fast
 * tier must read of the given pids and does nothing with it: statm through
 * a descriptor kept open (pread at offset 0) every INTERVAL_MS, and status
 * once per STATUS_MS (the StoreInterval; an idle process's statm does not
 * change, so the daemon reads its status no more often than that).
 *
 *   statm-reader INTERVAL_MS STATUS_MS PID... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long ms = atol(argv[1]), status_ms = atol(argv[2]);
	int n = argc - 3;
	int *dirs = calloc((size_t)n, sizeof(int)), *statm = calloc((size_t)n, sizeof(int));
	char buf[8192];

	if (!dirs || !statm || ms <= 0)
		return 2;
	for (int i = 0; i < n; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%s", argv[i + 3]);
		dirs[i] = open(path, O_RDONLY | O_DIRECTORY);
		statm[i] = dirs[i] >= 0 ? openat(dirs[i], "statm", O_RDONLY) : -1;
	}
	long since_status = status_ms; /* the first round reads status too */
	for (;;) {
		for (int i = 0; i < n; i++)
			if (statm[i] >= 0)
				(void)!pread(statm[i], buf, sizeof(buf), 0);
		if (since_status >= status_ms) {
			for (int i = 0; i < n; i++) {
				int fd = openat(dirs[i], "status", O_RDONLY);
				if (fd >= 0) {
					while (read(fd, buf, sizeof(buf)) > 0)
						;
					close(fd);
				}
			}
			since_status = 0;
		}
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		since_status += ms;
	}
}
