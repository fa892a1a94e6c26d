/* One database written through the store (schema/store.c), the same rows
 * on either platform, so that a file written on Windows can be read on
 * Linux and the other way round, and their answers compared.
 *
 *   storewrite DB CAPTURE
 *
 * CAPTURE is a saved Windows region list (as in tests/data/windows).  The
 * program creates DB and writes, in one transaction as the daemon does:
 * the captured process as a Windows process (its account as owner, its
 * creation time as start time) with six fast-tier rows, a mark and a
 * census built from the capture; a Linux process (uid 1000) with six rows
 * of its own; and a row of the machine's memory.  Every time is fixed, so
 * the file holds the same rows wherever it was written.  Prints the row
 * ids as one line of JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "census.h"
#include "store.h"
#include "win-capture.h"
#include "win-census.h"

/* 2023-11-14 22:13:20 UTC: the first row's time */
#define T0 INT64_C(1700000000000)
#define STEP_MS 10000
#define ROWS 6
#define MiB (UINT64_C(1) << 20)
/* FILETIME of 1970-01-01 (100 ns ticks since 1601) */
#define FILETIME_UNIX_EPOCH INT64_C(116444736000000000)

static int fail(const char *what, int r, const char *why)
{
	fprintf(stderr, "storewrite: %s: %s (%s)\n", what, why, strerror(-r));
	return 1;
}

/* Six rows of a process whose private memory grows by step a row. */
static int put_rows(struct store *s, int64_t id, uint64_t base, uint64_t step)
{
	for (int i = 0; i < ROWS; i++) {
		uint64_t private = base + (uint64_t)i * step;
		struct store_sample x = {
			.time = T0 + (int64_t)i * STEP_MS,
			.private_last = private,
			.private_min = private - step / 2,
			.private_max = private,
			.resident_last = private / 2,
			.resident_min = private / 2,
			.resident_max = private / 2,
			.swap_last = 0,
			.samples = 10,
		};
		int r = store_put_sample(s, id, &x);
		if (r < 0)
			return r;
	}
	return 0;
}

static int write_rows(struct store *s, const struct win_capture *cap, int64_t ret_ids[3])
{
	const struct win_process *wp = &cap->process;
	int64_t created_ms = (wp->creation_time - FILETIME_UNIX_EPOCH) / 10000;
	struct census *c = NULL;
	struct error err = { 0 };
	const char *image = wp->image ? wp->image : "?";
	const char *comm = strrchr(image, '\\') ? strrchr(image, '\\') + 1 : image;
	struct store_process win = {
		.platform = PLATFORM_WINDOWS,
		.boot_id = "windows-boot-1699990000",
		.pid = wp->pid,
		.start_time = created_ms,
		.started_at = created_ms,
		.uid = -1,
		.owner = wp->owner,
		.comm = comm,
		.exe = wp->image,
		.cmdline = wp->cmdline,
		.seen = T0,
		.exited_at = -1,
		.peak_private = 150 * MiB,
		.peak_resident = 75 * MiB,
	};
	struct store_process lin = {
		.platform = PLATFORM_LINUX,
		.boot_id = "6c9d4e1a-1b2c-4d3e-8f40-5a6b7c8d9e0f",
		.pid = 4242,
		.start_time = 123456,
		.started_at = T0 - 60000,
		.uid = 1000,
		.comm = "worker",
		.exe = "/usr/bin/worker",
		.cmdline = "worker --jobs 4",
		.seen = T0,
		.exited_at = -1,
		.peak_private = 75 * MiB,
		.peak_resident = 37 * MiB,
	};
	struct store_census m = {
		.time = T0 + 3 * STEP_MS,
		.trigger = TRIGGER_GROWTH,
		.status = CENSUS_OK,
		.wall_us = 1500,
		.cpu_us = 1200,
		.bytes_read = 0,
	};
	struct store_system sys = {
		.time = T0,
		.mem_total = 16384 * MiB,
		.mem_available = 8192 * MiB,
		.swap_total = 4096 * MiB,
		.swap_free = 4096 * MiB,
		.committed_as = 9000 * MiB,
		.commit_limit = 20480 * MiB,
	};
	int r;

	r = win_census_build(cap->regions, cap->n, wp, 10, false, &c, &err);
	if (r < 0) {
		fprintf(stderr, "storewrite: the census: %s\n", err.message);
		return r;
	}
	r = store_begin(s);
	if (r >= 0)
		r = store_put_process(s, &win, &ret_ids[0]);
	if (r >= 0)
		r = put_rows(s, ret_ids[0], 100 * MiB, 10 * MiB);
	if (r >= 0)
		r = store_put_mark(s, ret_ids[0], T0 + 2 * STEP_MS, "load", -1);
	if (r >= 0)
		r = store_put_census(s, ret_ids[0], &m, c, &ret_ids[2]);
	if (r >= 0)
		r = store_put_process(s, &lin, &ret_ids[1]);
	if (r >= 0)
		r = put_rows(s, ret_ids[1], 50 * MiB, 5 * MiB);
	if (r >= 0)
		r = store_put_system(s, &sys);
	if (r >= 0)
		r = store_commit(s);
	if (r < 0)
		store_rollback(s);
	census_free(c);
	return r;
}

int main(int argc, char **argv)
{
	struct store_options o = { 0 };
	struct win_capture *cap = NULL;
	struct store *s = NULL;
	struct error err = { 0 };
	int64_t ids[3] = { 0 };
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: storewrite DB CAPTURE\n");
		return 2;
	}
	r = win_capture_load_file(argv[2], &cap, &err);
	if (r < 0)
		return fail(argv[2], r, err.message);
	o.path = argv[1];
	r = store_open(&o, &s, &err);
	if (r < 0) {
		win_capture_free(cap);
		return fail(argv[1], r, err.message);
	}
	r = write_rows(s, cap, ids);
	if (r < 0) {
		fail(argv[1], r, store_error(s));
		store_close(s);
		win_capture_free(cap);
		return 1;
	}
	store_close(s);
	win_capture_free(cap);
	printf("{\"windows_process\": %" PRId64 ", \"linux_process\": %" PRId64 ", \"census\": %" PRId64 "}\n", ids[0],
	       ids[1], ids[2]);
	return 0;
}
