/* Helpers of the store-read tests: a database of their own in a temporary
 * directory, written through the store's API (as the daemon writes it),
 * read through a reader, and small JSON accessors that fail the test with
 * the answer printed when a field is missing. */
#pragma once

#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <jansson.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "census.h"
#include "fixtures-census.h"
#include "region-events.h"
#include "scan.h"
#include "store-read.h"
#include "store.h"

#define SECOND 1000LL
#define MINUTE 60000LL
#define HOUR 3600000LL
#define DAY (24 * HOUR)
#define H0 (472223LL * HOUR) /* an hour boundary, November 2023 */

struct tmp {
	char dir[256];
	char db[300];
	struct store *s;        /* the writer */
	struct store_reader *r; /* a reader, opened by reader_of */
};

static inline int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));
	if (!t || test_dir_make(t->dir, sizeof(t->dir), "store-read") < 0) {
		free(t);
		return -1;
	}
	snprintf(t->db, sizeof(t->db), "%s/ramwatch.db", t->dir);
	*state = t;
	return 0;
}

static inline int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	store_reader_close(t->r);
	store_close(t->s);
	test_dir_remove(t->dir);
	free(t);
	return 0;
}

/* The writer, opened on first use. */
static inline struct store *writer_of(struct tmp *t)
{
	if (!t->s) {
		struct store_options o = { .path = t->db };
		struct error err;
		if (store_open(&o, &t->s, &err) < 0)
			fail_msg("store_open: %s", err.message);
	}
	return t->s;
}

static inline struct store_reader *reader_of(struct tmp *t)
{
	if (!t->r) {
		struct error err;
		writer_of(t);
		if (store_reader_open(t->db, &t->r, &err) < 0)
			fail_msg("store_reader_open: %s", err.message);
	}
	return t->r;
}

struct proc_spec {
	const char *boot;
	int pid;
	int64_t start_time;
	int64_t uid;
	const char *comm, *cmdline;
	int64_t first_seen, last_seen, exited_at; /* exited_at -1: alive */
	uint64_t peak_private, peak_resident;
};

static inline int64_t put_proc(struct tmp *t, const struct proc_spec *x)
{
	struct store *s = writer_of(t);
	struct store_process p = { .boot_id = x->boot ? x->boot : "boot-a", .pid = x->pid,
				   .start_time = x->start_time, .started_at = x->first_seen - 500, .uid = x->uid,
				   .comm = x->comm, .exe = "/usr/bin/test", .cmdline = x->cmdline,
				   .seen = x->first_seen, .exited_at = -1, .peak_private = x->peak_private,
				   .peak_resident = x->peak_resident };
	int64_t id = -1;
	if (store_put_process(s, &p, &id) < 0)
		fail_msg("put_process: %s", store_error(s));
	p.seen = x->last_seen > x->first_seen ? x->last_seen : x->first_seen;
	p.exited_at = x->exited_at;
	if (store_put_process(s, &p, &id) < 0)
		fail_msg("put_process: %s", store_error(s));
	return id;
}

static inline void put_sample(struct tmp *t, int64_t id, int64_t time, uint64_t private_min, uint64_t private_max,
			      uint64_t private_last, uint64_t resident_last)
{
	struct store_sample x = { .time = time, .private_min = private_min, .private_max = private_max,
				  .private_last = private_last, .resident_min = resident_last / 2,
				  .resident_max = resident_last * 2, .resident_last = resident_last,
				  .swap_last = 7, .samples = 10 };
	if (store_put_sample(writer_of(t), id, &x) < 0)
		fail_msg("put_sample: %s", store_error(t->s));
}

static inline void begin(struct tmp *t)
{
	if (store_begin(writer_of(t)) < 0)
		fail_msg("begin: %s", store_error(t->s));
}

static inline void commit(struct tmp *t)
{
	if (store_commit(t->s) < 0)
		fail_msg("commit: %s", store_error(t->s));
}

/* Runs SQL on a connection of its own, as a user (or a hand) would. */
static inline void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

/* The first column of the first row of a query (printf-style, sqlite3
 * formats: %lld, %Q) on the database at path, opened read-only as a
 * user's; -1 for NULL.  Fails the test when there is no row. */
static inline int64_t q_int_at(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	int64_t v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	sqlite3_free(sql);
	return v;
}

static inline int64_t put_census(struct tmp *t, int64_t id, int64_t time, enum store_trigger trigger,
				 enum census_status status, const struct census *c)
{
	struct store_census m = { .time = time, .trigger = trigger, .status = status, .light = c && c->light,
				  .message = status == CENSUS_OK ? NULL : "the process exited during the census",
				  .wall_us = 1500, .cpu_us = 1200, .bytes_read = 65536 };
	int64_t census_id = -1;
	if (store_put_census(writer_of(t), id, &m, status == CENSUS_OK ? c : NULL, &census_id) < 0)
		fail_msg("put_census: %s", store_error(t->s));
	return census_id;
}

/* A GPU's row at time (its memory, or present false); returns its id. */
static inline int64_t put_gpu(struct tmp *t, int64_t time, unsigned index, const char *uuid, uint64_t total,
			      uint64_t used, bool present)
{
	struct gpu_device d = { .index = index, .total = total, .used = used, .free = total - used,
				.present = present, .parent = -1 };
	int64_t id = 0;
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	snprintf(d.name, sizeof(d.name), "NVIDIA Test %u", index);
	if (!present)
		snprintf(d.error, sizeof(d.error), "nvmlDeviceGetMemoryInfo: GPU is lost");
	if (store_put_gpu_device(writer_of(t), time, &d, &id) < 0)
		fail_msg("put_gpu: %s", store_error(t->s));
	return id;
}

/* The GPU memory a process holds on a device at time. */
static inline void put_vram(struct tmp *t, int64_t id, int64_t gpu_id, int64_t time, uint64_t used)
{
	if (store_put_gpu_sample(writer_of(t), id, gpu_id, time, used) < 0)
		fail_msg("put_vram: %s", store_error(t->s));
}

/* Gives census c a GPU section (NVML ok) holding used bytes on one device,
 * GPU index with that UUID (80 GiB). */
static inline void gpu_section(struct census *c, unsigned index, const char *uuid, uint64_t used)
{
	free(c->gpu.uses);
	c->gpu = (struct census_gpu){ .taken = true, .state = GPU_OK, .driver_version = 12040, .nvidia_mapped = true };
	c->gpu.uses = calloc(1, sizeof(*c->gpu.uses));
	if (!c->gpu.uses)
		fail_msg("out of memory");
	c->gpu.uses[0] = (struct census_gpu_use){ .index = index, .used = used, .total = 80ull << 30 };
	snprintf(c->gpu.uses[0].uuid, sizeof(c->gpu.uses[0].uuid), "%s", uuid);
	snprintf(c->gpu.uses[0].name, sizeof(c->gpu.uses[0].name), "NVIDIA Test %u", index);
	c->gpu.n_uses = 1;
}

static inline struct store_select by_pid(int pid, int64_t only_uid)
{
	return (struct store_select){ .pid = pid, .only_uid = only_uid };
}

/* "uid N (name)" as a message names the owner, or "uid N" where the
 * machine has no such user. */
static inline void owner_text(char *buf, size_t size, int64_t uid)
{
	struct passwd *pw = getpwuid((uid_t)uid);
	if (pw)
		snprintf(buf, size, "uid %lld (%s)", (long long)uid, pw->pw_name);
	else
		snprintf(buf, size, "uid %lld", (long long)uid);
}

/* ------------------------------------------------------------ JSON */

static inline void json_fail(const json_t *o, const char *what)
{
	char *text = json_dumps(o, JSON_COMPACT);
	fail_msg("%s in %.2000s", what, text ? text : "?");
}

static inline const json_t *jget(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (!v)
		json_fail(o, key);
	return v;
}

static inline int64_t jint(const json_t *o, const char *key)
{
	const json_t *v = jget(o, key);
	if (!json_is_integer(v))
		json_fail(o, key);
	return json_integer_value(v);
}

static inline bool jnull(const json_t *o, const char *key)
{
	return json_is_null(jget(o, key));
}

static inline const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = jget(o, key);
	if (!json_is_string(v))
		json_fail(o, key);
	return json_string_value(v);
}

static inline const json_t *jat(const json_t *a, size_t i)
{
	const json_t *v = json_array_get(a, i);
	if (!v)
		json_fail(a, "index");
	return v;
}
