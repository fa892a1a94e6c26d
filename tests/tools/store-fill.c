/* store-fill: writes into a ramwatch database, through the store as the
 * daemon writes it, what only the daemon's OOM and cgroup sources write:
 * a watched process that grew into its cgroup's limit and was killed
 * (its samples, a census at its start and one near its limit, its kill
 * told by both sources), a process not watched killed when the machine
 * ran out, a kill only counted, and the memory cgroup of the first with
 * a minute of rows.  The integration tests start ramwatchd on the file and
 * check what the client shows of it.
 *
 * Usage: store-fill DB SMAPS STATUS NOW_MS UID
 *   SMAPS, STATUS  a saved /proc/PID/smaps and status: the censuses' content
 *   NOW_MS         the kill of the watched process is 10 s before it
 *   UID            the watched process's owner */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "census.h"
#include "scan.h"
#include "store.h"
#include "units.h"

#define PID 4242

static int die(const char *what, const char *why)
{
	fprintf(stderr, "store-fill: %s: %s\n", what, why);
	return 1;
}

int main(int argc, char **argv)
{
	struct store_options so = { .path = NULL };
	struct scan_options o = { .top = 20 };
	struct census *c = NULL;
	struct store *s = NULL;
	struct error err;
	int64_t now, uid, process_id = 0, group = 0;
	int r;

	if (argc != 6)
		return die("usage", "store-fill DB SMAPS STATUS NOW_MS UID");
	so.path = argv[1];
	now = strtoll(argv[4], NULL, 10);
	uid = strtoll(argv[5], NULL, 10);
	if (scan_smaps_file(argv[2], argv[3], &o, &c, &err) < 0)
		return die(argv[2], err.message);
	if (store_open(&so, &s, &err) < 0)
		return die(argv[1], err.message);

	int64_t start = now - 60 * 1000, death = now - 10 * 1000;
	struct store_process p = { .boot_id = "store-fill", .pid = PID, .start_time = 4242, .started_at = start,
				   .uid = uid, .comm = "grow", .exe = "/usr/bin/grow", .cmdline = "grow --to 300M",
				   .seen = start, .exited_at = -1, .peak_private = 190 * MiB,
				   .peak_resident = 195 * MiB };
	r = store_begin(s);
	if (r >= 0)
		r = store_put_process(s, &p, &process_id);
	/* a row every 10 s, up to the limit */
	for (int i = 1; r >= 0 && i <= 5; i++) {
		uint64_t v = (uint64_t)i * 38 * MiB;
		struct store_sample x = { .time = start + i * 10000, .private_min = v - 38 * MiB, .private_max = v,
					  .private_last = v, .resident_min = v - 38 * MiB, .resident_max = v + MiB,
					  .resident_last = v + MiB, .samples = 100 };
		r = store_put_sample(s, process_id, &x);
	}
	struct store_census first = { .time = start + 1000, .trigger = TRIGGER_FIRST, .status = CENSUS_OK,
				      .wall_us = -1, .cpu_us = -1, .bytes_read = -1 };
	struct store_census near = first;
	near.time = death - 2000;
	near.trigger = TRIGGER_LIMIT;
	if (r >= 0)
		r = store_put_census(s, process_id, &first, c, NULL);
	if (r >= 0)
		r = store_put_census(s, process_id, &near, c, NULL);
	p.seen = death;
	p.exited_at = death;
	if (r >= 0)
		r = store_put_process(s, &p, &process_id);

	struct store_oom_kill k = {
		.time = death, .sources = STORE_OOM_BPF | STORE_OOM_KMSG, .pid = PID, .process_id = process_id,
		.comm = "grow", .have_uid = true, .uid = uid, .constraint = "memcg",
		.cgroup = "/test.slice/grow.service", .limit_cgroup = "/test.slice", .have_limit = true,
		.limit = 200 * MiB, .usage = 200 * MiB - 8192, .have_kernel = true, .total_vm = 320 * MiB,
		.anon_rss = 190 * MiB, .file_rss = 3 * MiB, .shmem_rss = 0, .have_pgtables = true,
		.pgtables = 512 * KiB, .have_oom_score_adj = true, .oom_score_adj = 0,
	};
	if (r >= 0)
		r = store_put_oom_kill(s, &k, NULL);
	struct store_oom_kill global = {
		.time = now - 5000, .sources = STORE_OOM_KMSG, .pid = 5151, .comm = "hog", .have_uid = true,
		.uid = 0, .constraint = "none", .cgroup = "/system.slice/hog.service", .have_kernel = true,
		.total_vm = 900 * MiB, .anon_rss = 850 * MiB, .file_rss = MiB, .shmem_rss = 0,
	};
	if (r >= 0)
		r = store_put_oom_kill(s, &global, NULL);
	if (r >= 0)
		r = store_put_oom_kill(s, &(struct store_oom_kill){ .time = now - 2000, .sources = STORE_OOM_COUNTER },
				       NULL);

	/* its group: 1 MiB/s for a minute, 160 MiB of 200 at the end */
	struct store_cgroup g = { .version = 2, .path = "/test.slice/grow.service", .inode = 4242 };
	if (r >= 0)
		r = store_put_cgroup(s, start, &g, &group);
	for (int i = 0; r >= 0 && i <= 6; i++) {
		uint64_t usage = 100 * MiB + (uint64_t)i * 10 * MiB;
		struct store_cgroup_sample x = {
			.time = start + i * 10000, .usage = usage, .have_applies = true, .applies = 200 * MiB,
			.have_swap = true, .anon = usage - 30 * MiB, .file = 24 * MiB, .shmem = 2 * MiB,
			.have_kernel = true, .kernel = 4 * MiB, .have_sock = true, .have_events = true,
			.oom = 1, .oom_kill = 1, .have_high_max_events = true, .events_max = 3, .processes = 1,
			.processes_private = usage - 40 * MiB, .processes_resident = usage - 39 * MiB,
		};
		r = store_put_cgroup_sample(s, group, &x);
	}
	if (r >= 0)
		r = store_commit(s);
	if (r < 0)
		return die(argv[1], store_error(s));
	store_close(s);
	census_free(c);
	return 0;
}
