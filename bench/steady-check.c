/* What the daemon's steady check costs beside the full census it spares:
 * for one live process, interleaved rounds of
 *
 *   census  scan_process as the daemon calls it (regions kept, evidence
 *           as given), the census the daemon takes when anything changed
 *   ioctl   steady_read through PROCMAP_QUERY and smaps_rollup
 *   maps    steady_read through the text of maps and smaps_rollup
 *   kept    steady_read_kept: smaps_rollup and the names of the file
 *           mappings, the check the daemon makes when its change watch
 *           says the mappings did not change (0 when the process has too
 *           many file mappings for it, or the kernel no PROCMAP_QUERY)
 *   files   steady_read_files: statm, the file mappings at their starts
 *           through PROCMAP_QUERY and smaps_rollup, the check the daemon
 *           makes without the change watch between two reads of maps (0
 *           when the kernel has no PROCMAP_QUERY)
 *
 *   steady-check PID [ROUNDS] [--no-evidence]
 *
 * Prints, for each, the median wall and thread CPU time in microseconds,
 * and the ratios of the checks to the census:
 * "census_wall_us X census_cpu_us Y ioctl_wall_us ... ioctl_ratio R maps_ratio R
 * kept_ratio R files_ratio R"
 * (ratios of CPU time, the daemon's budget). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "macro.h"
#include "procfs.h"
#include "scan.h"
#include "steady.h"
#include "util.h"

enum { CENSUS, IOCTL, MAPS, KEPT, FILES, _KINDS };
static const char *const names[_KINDS] = { "census", "ioctl", "maps", "kept", "files" };

/* what the kept check compares with: a read with the names */
static struct steady_mark was;
static struct steady_files was_files;
/* what the check without the watch compares with: a read with the file mappings */
static struct steady_mark was_whole;
static struct steady_files was_whole_files;

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static int one(int kind, int pid, int pid_fd, bool evidence)
{
	if (kind == CENSUS) {
		struct scan_options o = { .keep_regions = true, .no_evidence = !evidence };
		struct census *c = NULL;
		int r = scan_process(pid, &o, &c, NULL);
		census_free(c);
		return r;
	}
	struct steady_mark m;
	uint64_t bytes = 0;
	bool have_ioctl = false;
	if (kind == KEPT) {
		if (!was.has_names)
			return -ENOTTY;
		/* the same work whether it finds the process changed or not */
		return steady_read_kept(pid_fd, &was, &was_files, &m, &bytes);
	}
	if (kind == FILES) {
		if (!was_whole.has_files)
			return -ENOTTY;
		return steady_read_files(pid_fd, &was_whole, &was_whole_files, &m, &bytes);
	}
	int r = steady_read(pid_fd, kind == IOCTL ? STEADY_READ_IOCTL : 0, &m, NULL, &have_ioctl, &bytes);
	if (r == 0 && kind == IOCTL && !have_ioctl)
		return -ENOTTY;
	return r;
}

int main(int argc, char **argv)
{
	int pid, rounds = argc > 2 ? atoi(argv[2]) : 21;
	bool evidence = !(argc > 3 && strcmp(argv[3], "--no-evidence") == 0);

	if (argc < 2 || parse_pid(argv[1], &pid) < 0 || rounds < 1) {
		fprintf(stderr, "usage: steady-check PID [ROUNDS] [--no-evidence]\n");
		return 2;
	}
	_cleanup_close_ int root = procfs_open_root(NULL);
	_cleanup_close_ int pid_fd = root >= 0 ? procfs_open_pid(root, pid) : -1;
	if (pid_fd < 0) {
		fprintf(stderr, "process %d: %s\n", pid, strerror(-pid_fd));
		return 1;
	}
	uint64_t unused = 0;
	if (steady_read(pid_fd, STEADY_READ_NAMES, &was, &was_files, NULL, &unused) < 0)
		was.has_names = false;
	if (steady_read(pid_fd, STEADY_READ_FILES, &was_whole, &was_whole_files, NULL, &unused) < 0)
		was_whole.has_files = false;
	uint64_t *wall[_KINDS], *cpu[_KINDS];
	for (int k = 0; k < _KINDS; k++) {
		wall[k] = calloc((size_t)rounds, sizeof(uint64_t));
		cpu[k] = calloc((size_t)rounds, sizeof(uint64_t));
		if (!wall[k] || !cpu[k])
			return 1;
		(void)one(k, pid, pid_fd, evidence); /* warm up */
	}
	for (int i = 0; i < rounds; i++)
		for (int j = 0; j < _KINDS; j++) {
			int k = (i + j) % _KINDS; /* each first in turn */
			uint64_t t0 = now_monotonic_us(), c0 = now_thread_cpu_us();
			int r = one(k, pid, pid_fd, evidence);
			if (r < 0 && !((k == IOCTL || k == KEPT || k == FILES) && r == -ENOTTY)) {
				fprintf(stderr, "%s of process %d: %s\n", names[k], pid, strerror(-r));
				return 1;
			}
			wall[k][i] = now_monotonic_us() - t0;
			cpu[k][i] = now_thread_cpu_us() - c0;
		}
	uint64_t w[_KINDS], c[_KINDS];
	for (int k = 0; k < _KINDS; k++) {
		w[k] = median(wall[k], rounds);
		c[k] = median(cpu[k], rounds);
		printf("%s_wall_us %llu %s_cpu_us %llu ", names[k], (unsigned long long)w[k], names[k],
		       (unsigned long long)c[k]);
	}
	printf("ioctl_ratio %.3f maps_ratio %.3f kept_ratio %.3f files_ratio %.3f\n",
	       c[CENSUS] ? (double)c[IOCTL] / (double)c[CENSUS] : 0.0,
	       c[CENSUS] ? (double)c[MAPS] / (double)c[CENSUS] : 0.0,
	       c[CENSUS] && was.has_names ? (double)c[KEPT] / (double)c[CENSUS] : 0.0,
	       c[CENSUS] && was_whole.has_files ? (double)c[FILES] / (double)c[CENSUS] : 0.0);
	return 0;
}
