/* Database bytes per process-day of the fast tier, coalesced (as the
 * daemon writes it) beside uncoalesced (as before schema 6), for steady
 * processes at the default settings; and of the fast tier with the
 * censuses of CensusInterval=5min (its default), stored as changes (as
 * the daemon writes them) beside whole (as before schema 9).
 *
 *   store-size [--processes N] [--dir DIR] [--smaps FILE]
 *
 * Writes into DIR/coalesced.db and DIR/plain.db, through the store's API,
 * what a day of StoreInterval=10s rows of N steady processes is (8,640 raw
 * rows each, of 10 samples), one transaction a store tick as the daemon
 * writes them; and, for a process that changes now and then, the same
 * with a new level every 10 minutes.  The censuses are FILE's (a Java
 * process's smaps, 20 largest regions): for a steady process a full one,
 * then repeats (nothing changed); for one that changes a little, each
 * census has a few classes and regions that moved.  Reports the growth of
 * each file over the empty store (store_size: the pages in use), per
 * process. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "census.h"
#include "classes.h"
#include "scan.h"
#include "store.h"

#define DAY_MS (24LL * 3600 * 1000)
#define STORE_INTERVAL_MS 10000LL
#define CENSUS_INTERVAL_MS (5LL * 60 * 1000)
#define T0 1700000000000LL

enum censuses { NO_CENSUSES, STEADY_CENSUSES, CHANGING_CENSUSES };

static void die(const char *what, const char *why)
{
	fprintf(stderr, "store-size: %s: %s\n", what, why);
	exit(1);
}

static struct store *open_fresh(const char *path, bool coalesce, bool whole)
{
	struct store_options o = { .path = path, .coalesce = coalesce, .whole_censuses = whole };
	struct store *s = NULL;
	struct error err;
	char side[600];

	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	if (store_open(&o, &s, &err) < 0)
		die(path, err.message);
	return s;
}

static uint64_t size_of(struct store *s)
{
	uint64_t b = 0;
	if (store_size(s, &b) < 0)
		die("size", store_error(s));
	return b;
}

/* A few classes and regions of c move, as between two censuses of a
 * process that lives; which ones goes round with step. */
static void change_a_little(struct census *c, int64_t step)
{
	for (int i = 0; i < 3; i++) {
		struct census_totals *k = &c->classes[(step + i) % _CLASS_MAX];
		if (k->count)
			k->private += 4096;
	}
	for (int i = 0; i < 2 && c->n_largest; i++)
		c->largest[(size_t)(step + i) % c->n_largest].resident += 4096;
}

static void put_census(struct store *s, int64_t process_id, int64_t t, struct census *c, enum censuses kind,
		       int64_t step)
{
	struct store_census m = { .time = t, .trigger = step ? TRIGGER_INTERVAL : TRIGGER_FIRST, .status = CENSUS_OK,
				  .wall_us = -1, .cpu_us = -1, .bytes_read = -1 };
	if (kind == STEADY_CENSUSES && step > 0)
		m.repeats_time = T0; /* the first, which nothing changed since */
	else if (step > 0)
		change_a_little(c, step);
	if (store_put_census(s, process_id, &m, m.repeats_time ? NULL : c, NULL) < 0)
		die("census", store_error(s));
}

/* Bytes per process-day: a day of rows of n processes, steady or with a
 * new level every change_ms (0: never), with censuses of kind. */
static double per_process_day(const char *path, bool coalesce, bool whole, int n, int64_t change_ms,
			      enum censuses kind, struct census *c)
{
	struct store *s = open_fresh(path, coalesce, whole);
	int64_t *ids = calloc((size_t)n, sizeof(*ids));
	uint64_t empty;

	if (!ids)
		die("memory", "out of memory");
	if (store_begin(s) < 0)
		die("begin", store_error(s));
	for (int p = 0; p < n; p++) {
		struct store_process x = { .boot_id = "bench", .pid = 1000 + p, .start_time = p, .started_at = -1,
					   .uid = 1000, .comm = "steady", .seen = T0, .exited_at = -1 };
		if (store_put_process(s, &x, &ids[p]) < 0)
			die("process", store_error(s));
	}
	if (store_commit(s) < 0)
		die("commit", store_error(s));
	empty = size_of(s);
	for (int64_t t = T0; t <= T0 + DAY_MS; t += STORE_INTERVAL_MS) {
		if (store_begin(s) < 0)
			die("begin", store_error(s));
		if (kind != NO_CENSUSES && (t - T0) % CENSUS_INTERVAL_MS == 0)
			for (int p = 0; p < n; p++)
				put_census(s, ids[p], t, c, kind, (t - T0) / CENSUS_INTERVAL_MS);
		if (t == T0) {
			if (store_commit(s) < 0)
				die("commit", store_error(s));
			continue;
		}
		for (int p = 0; p < n; p++) {
			uint64_t level = change_ms > 0 ? (uint64_t)((t - T0) / change_ms) : 0;
			uint64_t v = ((uint64_t)100 << 20) + (uint64_t)p * 4096 + level * 65536;
			struct store_sample x = { .time = t, .private_min = v, .private_max = v, .private_last = v,
						  .resident_min = 2 * v, .resident_max = 2 * v, .resident_last = 2 * v,
						  .swap_last = 0, .samples = 10 };
			if (store_put_sample(s, ids[p], &x) < 0)
				die("sample", store_error(s));
		}
		if (store_commit(s) < 0)
			die("commit", store_error(s));
	}
	double bytes = (double)(size_of(s) - empty) / n;
	store_close(s);
	free(ids);
	return bytes;
}

int main(int argc, char **argv)
{
	static const struct option options[] = { { "processes", required_argument, NULL, 'n' },
						  { "dir", required_argument, NULL, 'd' },
						  { "smaps", required_argument, NULL, 's' },
						  { 0 } };
	const char *dir = ".", *smaps = "tests/data/smaps/java17-g1.smaps";
	char coalesced[512], plain[512];
	int n = 100, c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (c == 'n')
			n = atoi(optarg);
		else if (c == 'd')
			dir = optarg;
		else if (c == 's')
			smaps = optarg;
		else
			return 2;
	}
	if (n < 1)
		die("--processes", "at least 1");
	mkdir(dir, 0755);
	snprintf(coalesced, sizeof(coalesced), "%s/coalesced.db", dir);
	snprintf(plain, sizeof(plain), "%s/plain.db", dir);

	const struct {
		const char *name;
		int64_t change_ms;
	} kinds[] = { { "steady", 0 }, { "a new level every 10 min", 600000 } };
	printf("%d processes, a day of StoreInterval=10s rows (8,640 each)\n\n", n);
	printf("| processes | coalesced MiB per process-day | uncoalesced MiB per process-day |\n");
	printf("|---|---:|---:|\n");
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		double a = per_process_day(coalesced, true, false, n, kinds[k].change_ms, NO_CENSUSES, NULL);
		double b = per_process_day(plain, false, false, n, kinds[k].change_ms, NO_CENSUSES, NULL);
		printf("| %s | %.4f | %.4f |\n", kinds[k].name, a / (1 << 20), b / (1 << 20));
	}

	struct scan_options so = { .top = 20 };
	struct error err;
	const struct {
		const char *name;
		enum censuses kind;
	} census_kinds[] = { { "steady (repeats)", STEADY_CENSUSES },
			     { "a few classes and regions change each census", CHANGING_CENSUSES } };
	printf("\nThe same with censuses at CensusInterval=5min (288 a day), fast tier coalesced and steady\n\n");
	printf("| censuses | as changes MiB per process-day | whole MiB per process-day | ratio |\n");
	printf("|---|---:|---:|---:|\n");
	for (size_t k = 0; k < sizeof(census_kinds) / sizeof(census_kinds[0]); k++) {
		struct census *a_census = NULL, *b_census = NULL;
		if (scan_smaps_file(smaps, NULL, &so, &a_census, &err) < 0 ||
		    scan_smaps_file(smaps, NULL, &so, &b_census, &err) < 0)
			die(smaps, err.message);
		double a = per_process_day(coalesced, true, false, n, 0, census_kinds[k].kind, a_census);
		double b = per_process_day(plain, true, true, n, 0, census_kinds[k].kind, b_census);
		printf("| %s | %.4f | %.4f | %.2f |\n", census_kinds[k].name, a / (1 << 20), b / (1 << 20), a / b);
		census_free(a_census);
		census_free(b_census);
	}
	return 0;
}
