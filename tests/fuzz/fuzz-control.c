/* libFuzzer target: the control socket's request line and the store reads
 * that answer it.  Any local user may connect and send a line
 * (doc/protocol.md), so every byte of it is input: the parser
 * (control_request_parse) must refuse what is not a request with a
 * message, and what it accepts is run as the worker runs it
 * (control_query_run) against a real database, made once at start in a
 * temporary directory and written through the store's API: two boots,
 * processes of three users, two hours of samples, censuses of a Java
 * process, the region events between them and marks.  So history, report, census, events and processes
 * answer with fuzzed selections, windows, classes, steps, limits and
 * cursors, both for root and for a user who may see only their own
 * processes; an answer's "next" is followed for a few pages, each merged
 * into the first as the client does.
 *
 * The other ops answer from the daemon's memory on the event loop, not
 * from the store: only their parsing is fuzzed here.
 *
 * Nothing may crash, leak or read out of bounds; a refusal must say why;
 * an answer must be a JSON object. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "control-internal.h"
#include "limits.h"
#include "region-events.h"
#include "scan.h"
#include "store-read-page.h"
#include "store-read.h"
#include "store.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MINUTE 60000LL
#define HOUR (60 * MINUTE)
#define T0 1764424800000LL /* 2025-11-29 14:00 UTC, as in doc/protocol.md */
#define NOW (T0 + 2 * HOUR)
#define USER 1000

static char dir[64], db[96];
static struct store_reader *reader;

static void cleanup(void)
{
	char path[128];
	reader = store_reader_close(reader);
	static const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", db, suffixes[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void must(int r, struct store *s, const char *what)
{
	if (r < 0) {
		fprintf(stderr, "fuzz-control: %s: %s\n", what, s ? store_error(s) : strerror(-r));
		abort();
	}
}

/* A census of a real Java process, from the unit tests' fixtures. */
static struct census *java_census(void)
{
	const char *data = getenv("RAMWATCH_TEST_DATA");
	char smaps[512], status[512];
	struct scan_options o = { .top = 20 };
	struct error err = { 0 };
	struct census *c = NULL;

	if (!data)
		data = "tests/data";
	snprintf(smaps, sizeof(smaps), "%s/smaps/java17-g1.smaps", data);
	snprintf(status, sizeof(status), "%s/smaps/java17-g1.status", data);
	if (scan_smaps_file(smaps, status, &o, &c, &err) < 0) {
		fprintf(stderr, "fuzz-control: %s (run from the source tree, or set RAMWATCH_TEST_DATA)\n",
			err.message);
		abort();
	}
	return c;
}

static int64_t put_process(struct store *s, const char *boot, int pid, int64_t uid, const char *comm,
			   int64_t first, int64_t last, int64_t exited)
{
	struct store_process p = { .boot_id = boot, .pid = pid, .start_time = pid * 100, .started_at = first - 500,
				   .uid = uid, .comm = comm, .exe = "/usr/bin/test", .cmdline = comm,
				   .seen = first, .exited_at = -1, .peak_private = 64 << 20,
				   .peak_resident = 128 << 20 };
	int64_t id = -1;
	must(store_put_process(s, &p, &id), s, "put process");
	p.seen = last;
	p.exited_at = exited;
	must(store_put_process(s, &p, &id), s, "put process");
	return id;
}

/* Region events between two censuses: one of each kind, a file's among
 * them, so that events pages and the history's event counts have rows. */
static void put_events(struct store *s, int64_t id, int64_t census_id, int64_t time)
{
	const struct region_event events[] = {
		{ .kind = REGION_APPEARED, .start = 0x7f0000000000, .cls = 1, .size = 64 << 20, .private = 64 << 20,
		  .resident = 60 << 20 },
		{ .kind = REGION_DISAPPEARED, .start = 0x7f1000000000, .inode = 42, .path = "/usr/lib/libtest.so",
		  .cls = 2, .size_before = 1 << 20, .resident_before = 1 << 20 },
		{ .kind = REGION_GREW, .start = 0x7f2000000000, .cls = 1, .size = 8 << 20, .size_before = 4 << 20,
		  .private = 8 << 20, .private_before = 4 << 20, .resident = 8 << 20, .resident_before = 4 << 20 },
		{ .kind = REGION_SHRANK, .start = 0x7f3000000000, .cls = 3, .size = 1 << 20, .size_before = 1 << 20,
		  .private = 1 << 19, .private_before = 1 << 20, .resident = 1 << 19, .resident_before = 1 << 20 },
	};
	must(store_put_region_events(s, id, census_id, time, events, sizeof(events) / sizeof(events[0])), s,
	     "put region events");
}

static void fill(struct store *s)
{
	struct census *c = java_census();
	int64_t ids[4];

	must(store_begin(s), s, "begin");
	ids[0] = put_process(s, "boot-a", 4242, USER, "java", T0, NOW, -1);
	ids[1] = put_process(s, "boot-a", 4243, 0, "python3", T0, T0 + HOUR, T0 + HOUR);
	/* the same pid again after a reboot: another instance */
	ids[2] = put_process(s, "boot-b", 4242, USER, "java", T0 + HOUR, NOW, -1);
	ids[3] = put_process(s, "boot-b", 77, 1001, "postgres", T0, NOW, -1);
	for (int64_t t = T0; t <= NOW; t += MINUTE)
		for (size_t i = 0; i < 4; i++) {
			uint64_t v = (uint64_t)((t - T0) / MINUTE + 1) << (20 + i);
			struct store_sample x = { .time = t, .private_min = v, .private_max = 2 * v,
						  .private_last = v + 1, .resident_min = v, .resident_max = 3 * v,
						  .resident_last = 2 * v, .swap_last = 7, .samples = 10 };
			must(store_put_sample(s, ids[i], &x), s, "put sample");
		}
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < 4; i += 2) {
			struct store_census m = { .time = T0 + k * 30 * MINUTE + (int64_t)i, .trigger = TRIGGER_INTERVAL,
						  .status = k == 2 && i == 2 ? CENSUS_EXITED : CENSUS_OK,
						  .wall_us = 1500, .cpu_us = 1200, .bytes_read = 65536 };
			int64_t census_id;
			m.message = m.status == CENSUS_OK ? NULL : "the process exited during the census";
			must(store_put_census(s, ids[i], &m, m.status == CENSUS_OK ? c : NULL, &census_id), s,
			     "put census");
			if (k > 0 && m.status == CENSUS_OK)
				put_events(s, ids[i], census_id, m.time);
		}
	must(store_put_mark(s, ids[0], T0 + 10 * MINUTE, "load", USER), s, "put mark");
	must(store_put_mark(s, ids[0], T0 + 40 * MINUTE, "train", USER), s, "put mark");
	must(store_commit(s), s, "commit");
	census_free(c);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct store *s = NULL;
	struct error err = { 0 };
	(void)argc;
	(void)argv;

	snprintf(dir, sizeof(dir), "/tmp/fuzz-control.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	snprintf(db, sizeof(db), "%s/ramwatch.db", dir);
	atexit(cleanup);
	struct store_options o = { .path = db };
	if (store_open(&o, &s, &err) < 0) {
		fprintf(stderr, "fuzz-control: store_open: %s\n", err.message);
		abort();
	}
	fill(s);
	store_close(s);
	if (store_reader_open(db, &reader, &err) < 0) {
		fprintf(stderr, "fuzz-control: store_reader_open: %s\n", err.message);
		abort();
	}
	return 0;
}

/* Whether every process in an answer (an object with a "uid") belongs to
 * uid: what a user who may see only their own processes is shown. */
static bool only_of(const json_t *v, int64_t uid)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		const json_t *u = json_object_get(v, "uid");
		if (json_is_integer(u) && json_integer_value(u) != uid)
			return false;
		json_object_foreach((json_t *)v, key, x)
			if (!only_of(x, uid))
				return false;
	} else if (json_is_array(v))
		json_array_foreach(v, i, x)
			if (!only_of(x, uid))
				return false;
	return true;
}

/* Runs the request as the worker does, for an asker who sees everything
 * (only_uid -1) or only USER's processes.  Returns what control_query_run
 * does, with the answer in *ret. */
static int run(struct control_request *req, int64_t only_uid, json_t **ret)
{
	static char boot[] = "boot-a", comm[] = "java";
	struct control_live live[] = { {
		.process_id = 1, .pid = 4242, .start_time = 424200, .started_at = T0 - 500, .uid = USER,
		.last_seen = NOW, .boot_id = boot, .comm = comm, .private = 5 << 20,
		.resident = 9 << 20, .peak_private = 6 << 20, .peak_resident = 10 << 20, .vram = -1,
	} };
	struct control_live_set set = { .p = live, .n = 1 };
	struct control_query q = { .req = req, .only_uid = only_uid, .peer_uid = only_uid < 0 ? 0 : (uid_t)only_uid,
				   .live = &set };
	struct control_job j = { .data = &q, .deadline_us = now_monotonic_us() + RW_REQUEST_TIMEOUT_US };

	req->sel.only_uid = only_uid;
	store_reader_set_deadline(reader, j.deadline_us);
	int r = control_query_run(&j, reader);
	store_reader_set_deadline(reader, 0);
	if (r >= 0 && !json_is_object(j.result))
		abort();
	if (r >= 0 && only_uid >= 0 && !only_of(j.result, only_uid)) {
		fprintf(stderr, "op %s shows uid %lld another uid's process\n", request_table_name(req->op),
			(long long)only_uid);
		abort();
	}
	if (r < 0 && (j.result || j.error.message[0] == '\0')) {
		fprintf(stderr, "op %s failed with %d and no message\n", request_table_name(req->op), r);
		abort();
	}
	*ret = j.result;
	return r;
}

/* Answers the request and follows its "next" for a few pages, as
 * `ramwatch history` does: the cursor an answer gives must be taken by
 * the same query, and the pages must merge into one answer. */
#define PAGES_MAX 4
static void answer(struct control_request *req, int64_t only_uid)
{
	const char *cursor = req->cursor;
	json_t *first = NULL, *page = NULL;

	int r = run(req, only_uid, &first);
	for (int n = 1; r >= 0 && n < PAGES_MAX; n++) {
		const json_t *next = json_object_get(page ? page : first, "next");
		if (!json_is_string(next))
			break;
		req->cursor = json_string_value(next);
		json_t *later = NULL;
		r = run(req, only_uid, &later);
		if (r == -EINVAL) {
			fprintf(stderr, "op %s refuses its own cursor \"%s\"\n", request_table_name(req->op), req->cursor);
			abort();
		}
		if (r >= 0)
			(void)store_read_merge_page(first, later); /* fails only out of memory */
		json_decref(page);
		page = later;
	}
	req->cursor = cursor;
	json_decref(page);
	json_decref(first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct control_request *req = NULL;
	json_t *id = NULL;
	struct error err = { 0 };

	/* the connection refuses a longer line before it is parsed */
	if (size > RW_REQUEST_MAX)
		return 0;
	int r = control_request_parse((const char *)data, size, NOW, &req, &id, &err);
	if (r < 0) {
		if (req || err.message[0] == '\0')
			abort();
		json_decref(id);
		return 0;
	}
	switch (req->op) {
	case CONTROL_OP_PROCESSES:
	case CONTROL_OP_HISTORY:
	case CONTROL_OP_REPORT:
	case CONTROL_OP_CENSUS:
	case CONTROL_OP_EVENTS:
		answer(req, -1);
		answer(req, USER);
		break;
	default:
		break;
	}
	control_request_free(req);
	json_decref(id);
	return 0;
}
