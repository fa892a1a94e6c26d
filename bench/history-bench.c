/* How long the history and report answers take on a week of one process's
 * timeline, beside the floor: SQLite counting the same fast-tier rows.
 *
 *   history-bench [--runs N] [--dir DIR] [--keep] [--whole-censuses]
 *
 * Fills DIR/history.db (--keep reuses one a previous run filled) through
 * the store's API, as the daemon writes it at the default settings: for the
 * process under test and for 50 others in the background, a raw row every
 * 10 s for the last day and minute rows for the 6 days before (what
 * retention leaves), a census every 5 minutes with 12 classes (6 of them
 * changing from one census to the next), the 20 largest regions and 20
 * files, 6 region events a census; and 5 marks for
 * the process under test.  Then times, N times each, store_read_history
 * over the last 24 hours and over the 7 days (rows as stored, and in
 * steps), store_read_report, then json_dumps and json_decref of each
 * answer; and the floor, SELECT count(*) FROM samples WHERE process_id = ?
 * AND time BETWEEN ..., on a plain SQLite connection of its own (hence
 * sqlite3.h here, outside schema/).  Prints a markdown table of medians and
 * 95th percentiles.  --whole-censuses stores every census whole, as before
 * schema 9, rather than as changes from a key census. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "census.h"
#include "classes.h"
#include "limits.h"
#include "store-read.h"
#include "store.h"
#include "strpool.h"
#include "util.h"

#define SECOND 1000LL
#define MINUTE (60 * SECOND)
#define HOUR (60 * MINUTE)
#define DAY (24 * HOUR)

/* The end of the timeline: an hour boundary (November 2023). */
#define T_END (472223LL * HOUR)
#define T_START (T_END - 7 * DAY)

#define PROCESSES 51 /* the one under test and 50 others */
#define TARGET_PID 4242
#define RAW_EVERY (10 * SECOND)
#define CENSUS_EVERY (5 * MINUTE)
#define CLASSES 12
#define TOP 20
#define EVENTS_PER_CENSUS 6
#define MARKS 5

static void die(const char *what, const char *why)
{
	fprintf(stderr, "history-bench: %s: %s\n", what, why);
	exit(1);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ------------------------------------------------------------ filling */

/* A census of process p at step k of its timeline.  Half the classes move
 * from one census to the next (heaps, arenas, anonymous memory), half keep
 * their totals (images, stacks, shared memory), as in a real process. */
static struct census *make_census(int p, int64_t k)
{
	struct census *c = census_new();

	if (!c)
		die("census", "out of memory");
	c->light = false;
	for (int i = 0; i < CLASSES; i++) {
		struct census_totals *t = &c->classes[i];
		uint64_t wave = i % 2 ? 0 : (uint64_t)((k * (i + 3)) % 97) * 1024 * 1024;
		t->private = (uint64_t)(i + 1) * 64 * 1024 * 1024 + wave + (uint64_t)p * 4096;
		t->resident = t->private + (uint64_t)i * 1024 * 1024;
		t->pss = t->resident;
		t->size = t->resident * 2;
		t->count = (uint64_t)(i + 1) * 3;
		c->totals.private += t->private;
		c->totals.resident += t->resident;
		c->totals.pss += t->pss;
		c->totals.size += t->size;
		c->totals.count += t->count;
	}
	c->largest = calloc(TOP, sizeof(*c->largest));
	c->files = calloc(TOP, sizeof(*c->files));
	if (!c->largest || !c->files)
		die("census", "out of memory");
	for (int i = 0; i < TOP; i++) {
		char path[128];
		struct census_region *x = &c->largest[i];
		x->start = 0x7f0000000000ull + (uint64_t)i * 0x10000000ull;
		x->end = x->start + (uint64_t)(TOP - i) * 16 * 1024 * 1024;
		x->cls = (enum class_id)(i % CLASSES);
		x->rule = "anonymous";
		x->private = x->end - x->start;
		x->resident = x->private / 2;
		snprintf(x->perms, sizeof(x->perms), "rw-p");
		snprintf(path, sizeof(path), "/usr/lib/x86_64-linux-gnu/libbench-%02d.so.%d", i, p % 3);
		x->path = i % 3 == 0 ? strpool_intern(c->strings, path, strlen(path)) : NULL;

		snprintf(path, sizeof(path), "/var/lib/bench/data-%02d-%lld.bin", i, (long long)(k / 288));
		c->files[i] = (struct census_file){ .path = strpool_intern(c->strings, path, strlen(path)),
						    .kind = i < 10 ? FILE_IMAGE : FILE_DATA,
						    .private = 4096 * (uint64_t)i,
						    .resident = (uint64_t)(TOP - i) * 1024 * 1024,
						    .size = (uint64_t)(TOP - i) * 4 * 1024 * 1024,
						    .regions = 4 };
	}
	c->n_largest = TOP;
	c->n_files = TOP;
	c->wall_us = 20000;
	c->cpu_us = 15000;
	c->bytes_read = 700 * 1000;
	return c;
}

static void check(struct store *s, int r, const char *what)
{
	if (r < 0)
		die(what, store_error(s));
}

/* Minute rows go in by SQL: retention makes them from raw rows, and a
 * week of raw rows only to roll them up would triple the filling time. */
static void put_minutes(sqlite3 *db, int64_t process_id, int p)
{
	sqlite3_stmt *st = NULL;
	const char *sql = "INSERT INTO samples (process_id, resolution, time, until, private_min, private_max,"
			  " private_last, resident_min, resident_max, resident_last, swap_last, samples)"
			  " VALUES (?1, 60000, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, 60)";

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		die("minute rows", sqlite3_errmsg(db));
	for (int64_t t = T_START + MINUTE; t <= T_END - DAY; t += MINUTE) {
		int64_t v = (int64_t)1 << 30 | (t / MINUTE % 1000) << 20 | p;
		sqlite3_bind_int64(st, 1, process_id);
		sqlite3_bind_int64(st, 2, t);
		sqlite3_bind_int64(st, 3, v - 4096);
		sqlite3_bind_int64(st, 4, v + 4096);
		sqlite3_bind_int64(st, 5, v);
		sqlite3_bind_int64(st, 6, 2 * v - 4096);
		sqlite3_bind_int64(st, 7, 2 * v + 4096);
		sqlite3_bind_int64(st, 8, 2 * v);
		if (sqlite3_step(st) != SQLITE_DONE)
			die("minute rows", sqlite3_errmsg(db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void fill(const char *path, bool whole)
{
	struct store_options o = { .path = path, .whole_censuses = whole };
	struct store *s = NULL;
	sqlite3 *db = NULL;
	struct error err = { 0 };
	int64_t ids[PROCESSES];

	if (store_open(&o, &s, &err) < 0)
		die(path, err.message);
	/* the minute rows through a second connection, committed first */
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		die(path, "cannot open");
	sqlite3_busy_timeout(db, 10000);

	for (int p = 0; p < PROCESSES; p++) {
		char comm[32], cmdline[64];
		snprintf(comm, sizeof(comm), p == 0 ? "python3" : "worker-%d", p);
		snprintf(cmdline, sizeof(cmdline), p == 0 ? "python3 train.py" : "worker --id %d", p);
		struct store_process proc = { .boot_id = "bench-boot", .pid = p == 0 ? TARGET_PID : 10000 + p,
					      .start_time = 1000 + p, .started_at = T_START, .uid = 1000,
					      .comm = comm, .exe = "/usr/bin/python3", .cmdline = cmdline,
					      .seen = T_START, .exited_at = -1, .peak_private = 3ull << 30,
					      .peak_resident = 4ull << 30 };
		check(s, store_begin(s), "begin");
		check(s, store_put_process(s, &proc, &ids[p]), "process");
		proc.seen = T_END;
		check(s, store_put_process(s, &proc, &ids[p]), "process");
		check(s, store_commit(s), "commit");

		sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		put_minutes(db, ids[p], p);
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			die("minute rows", sqlite3_errmsg(db));

		check(s, store_begin(s), "begin");
		for (int64_t t = T_END - DAY + RAW_EVERY; t <= T_END; t += RAW_EVERY) {
			uint64_t v = 1ull << 30 | (uint64_t)(t / RAW_EVERY % 5000) << 18 | (uint64_t)p;
			struct store_sample x = { .time = t, .private_min = v - 4096, .private_max = v + 4096,
						  .private_last = v, .resident_min = 2 * v - 4096,
						  .resident_max = 2 * v + 4096, .resident_last = 2 * v, .samples = 10 };
			check(s, store_put_sample(s, ids[p], &x), "sample");
		}
		int64_t k = 0;
		for (int64_t t = T_START + CENSUS_EVERY / 2; t <= T_END; t += CENSUS_EVERY, k++) {
			struct census *c = make_census(p, k);
			struct store_census m = { .time = t, .trigger = k == 0 ? TRIGGER_FIRST : TRIGGER_INTERVAL,
						  .status = CENSUS_OK, .wall_us = -1, .cpu_us = -1, .bytes_read = -1 };
			struct region_event ev[EVENTS_PER_CENSUS];
			int64_t census_id;
			check(s, store_put_census(s, ids[p], &m, c, &census_id), "census");
			for (int i = 0; i < EVENTS_PER_CENSUS; i++)
				ev[i] = (struct region_event){ .kind = (enum region_event_kind)(i % 4),
							       .start = 0x7f0000000000ull + (uint64_t)(k * 8 + i) * 4096,
							       .cls = CLASS_OTHER, .size = 64ull << 20,
							       .private = 32ull << 20, .resident = 32ull << 20 };
			check(s, store_put_region_events(s, ids[p], census_id, t, ev, EVENTS_PER_CENSUS), "events");
			census_free(c);
		}
		if (p == 0)
			for (int i = 0; i < MARKS; i++)
				check(s, store_put_mark(s, ids[p], T_START + (i + 1) * DAY + 17 * MINUTE, "phase", 1000),
				      "mark");
		check(s, store_commit(s), "commit");
	}
	sqlite3_close(db);
	store_close(s);
}

/* ------------------------------------------------------------ measuring */

struct timing {
	double median, p95;
};

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct timing summarise(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare_double);
	/* nearest rank */
	int p95 = (int)(0.95 * n + 0.999999) - 1;
	return (struct timing){ .median = v[n / 2], .p95 = v[p95 < 0 ? 0 : p95 >= n ? n - 1 : p95] };
}

struct scenario {
	const char *name;
	int64_t since, until, step_ms;
	unsigned limit;
	bool report;
	int64_t floor_since, floor_until;
	double target_ms;
};

/* The floor: SQLite counting the rows of the window, no more. */
static struct timing floor_time(sqlite3 *db, int64_t id, int64_t since, int64_t until, int runs, int64_t *ret_rows)
{
	sqlite3_stmt *st = NULL;
	double *v = calloc((size_t)runs, sizeof(*v));

	if (!v || sqlite3_prepare_v2(db, "SELECT count(*) FROM samples WHERE process_id = ?1 AND time BETWEEN ?2 AND ?3",
				     -1, &st, NULL) != SQLITE_OK)
		die("floor", sqlite3_errmsg(db));
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms();
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, since);
		sqlite3_bind_int64(st, 3, until);
		if (sqlite3_step(st) != SQLITE_ROW)
			die("floor", sqlite3_errmsg(db));
		*ret_rows = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		v[i] = now_ms() - t0;
	}
	sqlite3_finalize(st);
	struct timing t = summarise(v, runs);
	free(v);
	return t;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "runs", required_argument, NULL, 'n' },
		{ "dir", required_argument, NULL, 'd' },
		{ "keep", no_argument, NULL, 'k' },
		{ "whole-censuses", no_argument, NULL, 'w' },
		{ 0 },
	};
	const char *dir = "build/bench-history";
	int runs = 21, opt;
	bool keep = false, whole = false;
	char path[4096];
	struct error err = { 0 };
	struct stat stb;

	while ((opt = getopt_long(argc, argv, "n:d:kw", options, NULL)) >= 0) {
		switch (opt) {
		case 'n':
			runs = atoi(optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'k':
			keep = true;
			break;
		case 'w':
			whole = true;
			break;
		default:
			fprintf(stderr, "usage: history-bench [--runs N] [--dir DIR] [--keep] [--whole-censuses]\n");
			return 2;
		}
	}
	if (runs < 1)
		runs = 1;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/history.db", dir);

	double fill_ms = 0;
	if (!keep || stat(path, &stb) < 0) {
		static const char *const suffixes[] = { "", "-wal", "-shm" };
		for (size_t i = 0; i < 3; i++) {
			char p[4200];
			snprintf(p, sizeof(p), "%s%s", path, suffixes[i]);
			unlink(p);
		}
		double t0 = now_ms();
		fill(path, whole);
		fill_ms = now_ms() - t0;
	}
	stat(path, &stb);

	struct store_reader *r = NULL;
	if (store_reader_open(path, &r, &err) < 0)
		die(path, err.message);
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(path, "cannot open");
	int64_t target = 0;
	{
		sqlite3_stmt *st = NULL;
		sqlite3_prepare_v2(db, "SELECT id FROM processes WHERE pid = 4242", -1, &st, NULL);
		if (sqlite3_step(st) == SQLITE_ROW)
			target = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}

	const struct scenario scenarios[] = {
		{ "history, 24 h", T_END - DAY, T_END, 0, RW_ANSWER_ROWS_MAX, false, T_END - DAY, T_END, 50 },
		{ "history, 7 days", T_START, T_END, 0, RW_ANSWER_ROWS_MAX, false, T_START, T_END, 50 },
		{ "history, 7 days, first page (limit 10000)", T_START, T_END, 0, 0, false, T_START, T_END, 50 },
		{ "history, 24 h, step 1 min", T_END - DAY, T_END, MINUTE, RW_ANSWER_ROWS_MAX, false, T_END - DAY, T_END,
		  50 },
		{ "history, 7 days, step 10 min", T_START, T_END, 10 * MINUTE, RW_ANSWER_ROWS_MAX, false, T_START, T_END,
		  50 },
		{ "report", 0, 0, 0, 0, true, T_START, T_END, 200 },
	};

	struct utsname u;
	uname(&u);
	printf("ramwatch history-bench: %d processes (one under test), 7 days each; %d runs; database %.1f MiB%s\n",
	       PROCESSES, runs, (double)stb.st_size / (1024 * 1024), fill_ms > 0 ? "" : " (kept)");
	if (fill_ms > 0)
		printf("filled in %.1f s\n", fill_ms / 1000);
	printf("SQLite %s, jansson %s, %s %s\n\n", sqlite3_libversion(), JANSSON_VERSION, u.sysname, u.release);
	printf("| answer | sample rows | censuses | answer size | median | p95 | floor median | median / floor | "
	       "target | JSON text | free |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");

	double *v = calloc((size_t)runs, sizeof(*v)), *text = calloc((size_t)runs, sizeof(*text));
	double *release = calloc((size_t)runs, sizeof(*release));
	if (!v || !text || !release)
		die("timing", "out of memory");
	for (size_t k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++) {
		const struct scenario *sc = &scenarios[k];
		struct store_select sel = { .pid = TARGET_PID, .only_uid = -1 };
		struct store_history_query q = { .sel = sel, .since = sc->since, .until = sc->until,
						  .step_ms = sc->step_ms, .limit = sc->limit };
		size_t rows = 0, censuses = 0, bytes = 0;

		for (int i = 0; i < runs; i++) {
			json_t *o = NULL;
			double t0 = now_ms();
			int e = sc->report ? store_read_report(r, &sel, &o, &err)
					   : store_read_history(r, &q, &o, &err);
			double t1 = now_ms();
			if (e < 0)
				die(sc->name, err.message);
			char *s = json_dumps(o, JSON_COMPACT);
			double t2 = now_ms();
			if (!s)
				die(sc->name, "json_dumps failed");
			bytes = strlen(s);
			free(s);
			v[i] = t1 - t0;
			text[i] = t2 - t1;
			rows = sc->report ? 0 : json_array_size(json_object_get(o, "samples"));
			censuses = json_array_size(json_object_get(o, sc->report ? "trend" : "censuses"));
			/* What the caller pays after sending it.  glibc leaves part
			 * of freeing this many small blocks (merging them) to the
			 * next large allocation: inside the next answer, which is
			 * where a daemon answering one request after another pays
			 * it too. */
			double t3 = now_ms();
			json_decref(o);
			release[i] = now_ms() - t3;
		}
		struct timing t = summarise(v, runs), tt = summarise(text, runs), tf = summarise(release, runs);
		int64_t floor_rows = 0;
		struct timing f = floor_time(db, target, sc->floor_since, sc->floor_until, runs, &floor_rows);
		bool met = t.median < sc->target_ms;
		char rows_text[32];
		if (sc->report)
			snprintf(rows_text, sizeof(rows_text), "%lld (walked)", (long long)floor_rows);
		else
			snprintf(rows_text, sizeof(rows_text), "%zu", rows);
		printf("| %s | %s | %zu | %.0f KiB | %.2f ms | %.2f ms | %.3f ms | %.0fx | < %.0f ms: %s | %.2f ms | "
		       "%.2f ms |\n",
		       sc->name, rows_text, censuses, (double)bytes / 1024, t.median, t.p95, f.median,
		       f.median > 0 ? t.median / f.median : 0, sc->target_ms, met ? "met" : "missed", tt.median,
		       tf.median);
	}
	free(v);
	free(text);
	free(release);
	sqlite3_close(db);
	store_reader_close(r);
	return 0;
}
