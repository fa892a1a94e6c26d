/* The store: ramwatch's timelines in SQLite.  schema/ is the only place that
 * includes sqlite3.h; everything else speaks this API.
 *
 * One writer (the daemon) and any number of readers (the client, Grafana,
 * `ramwatch sql`).  Writes are grouped: store_begin, any number of
 * store_put_*, store_commit — one transaction per sampling cycle.  When a
 * transaction fails (a full disk, a locked database, an I/O error) it is
 * rolled back whole and the caller keeps its rows to try again: nothing is
 * half written.
 *
 * Times are unix milliseconds; sizes are bytes.  Functions return 0 or a
 * negative errno: -ENOSPC (disk or database full), -EBUSY (locked),
 * -EIO (I/O error), -EROFS (read-only), -EPROTO (a newer schema than this
 * program knows), -EBADMSG (not a ramwatch database, or corrupt), -ENOMEM;
 * store_error() then says what happened in words. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census.h"
#include "region-events.h"

struct store;

/* The schema version this program writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 2

struct store_options {
	const char *path;
	bool read_only;          /* readers: no migration, no writes */
	int busy_timeout_ms;     /* 0: 2000 */
	uint64_t max_size;       /* bytes, 0: no limit (MaxDatabaseSize) */
};

/* Opens (creating it unless read_only) and migrates the database.  A
 * database of a newer schema is refused (-EPROTO) and left untouched.
 * Returns 0 with *ret, or a negative errno with the reason in err. */
int store_open(const struct store_options *o, struct store **ret, char *err, size_t err_size);
/* Closes; accepts NULL, returns NULL. */
struct store *store_close(struct store *s);

/* What went wrong last, in words. */
const char *store_error(const struct store *s);

/* The schema version of the open database. */
int store_schema_version(const struct store *s);

/* ------------------------------------------------------------ writing */

int store_begin(struct store *s);
int store_commit(struct store *s);
/* Rolls back the open transaction, if any. */
void store_rollback(struct store *s);

/* A process instance: (boot_id, pid, start_time) names it; a reused pid is
 * another instance. */
struct store_process {
	const char *boot_id;
	int pid;
	int64_t start_time;     /* clock ticks after boot (stat field 22) */
	int64_t started_at;     /* unix ms, -1 unknown */
	int64_t uid;            /* -1 unknown */
	const char *comm, *exe, *cmdline; /* NULL unknown */
	int64_t seen;           /* unix ms: first seen on insert, last seen on update */
	int64_t exited_at;      /* unix ms, -1 while alive */
	uint64_t peak_private, peak_resident; /* the largest seen so far */
};

/* Inserts or updates a process instance (last seen, exit, peaks, and the
 * fields that were unknown); returns its row id in *ret_id. */
int store_put_process(struct store *s, const struct store_process *p, int64_t *ret_id);

/* One fast-tier row: min, max and last of the samples of one StoreInterval,
 * so no peak between two rows is lost. */
struct store_sample {
	int64_t time; /* end of the interval */
	uint64_t private_min, private_max, private_last;
	uint64_t resident_min, resident_max, resident_last;
	uint64_t swap_last;
	uint32_t samples;
};

int store_put_sample(struct store *s, int64_t process_id, const struct store_sample *x);

enum store_trigger {
	TRIGGER_FIRST,    /* first sight of the process */
	TRIGGER_INTERVAL, /* CensusInterval passed */
	TRIGGER_GROWTH,   /* private grew by max(256 MiB, 5 %) */
	TRIGGER_MARK,     /* a phase was marked */
	TRIGGER_REQUEST,  /* a client asked */
	_TRIGGER_MAX
};

enum store_status {
	STATUS_OK,
	STATUS_EXITED,
	STATUS_DENIED,
	STATUS_ERROR,
	_STATUS_MAX
};

const char *store_trigger_name(enum store_trigger t);
const char *store_status_name(enum store_status s);

struct store_census {
	int64_t time;
	enum store_trigger trigger;
	enum store_status status;
	bool light;          /* smaps_rollup and maps only (HugeProcess) */
	const char *message; /* why, when status is not ok; NULL */
	int64_t wall_us, cpu_us, bytes_read; /* -1 unknown */
};

/* A census: its row, and with status ok (census not NULL) its class
 * totals, largest regions and files (paths interned in their own table).
 * Returns its row id in *ret_id. */
int store_put_census(struct store *s, int64_t process_id, const struct store_census *m, const struct census *c,
		     int64_t *ret_id);

/* The region events found between the previous census and census_id. */
int store_put_region_events(struct store *s, int64_t process_id, int64_t census_id, int64_t time,
			    const struct region_event *events, size_t n);

/* A mark: a named phase of a process starts at time. */
int store_put_mark(struct store *s, int64_t process_id, int64_t time, const char *name, int64_t by_uid);

/* The machine's memory: /proc/meminfo and /proc/pressure/memory. */
struct store_system {
	int64_t time;
	uint64_t mem_total, mem_available, swap_total, swap_free, committed_as, commit_limit;
	bool have_pressure;
	double some_avg10, some_avg60, full_avg10, full_avg60;
	uint64_t some_total_us, full_total_us;
};

int store_put_system(struct store *s, const struct store_system *x);

/* ------------------------------------------------------------ housekeeping */

struct store_retention {
	int64_t now;
	int64_t keep;        /* Retention: rows older than this go, ms */
	int64_t raw_for;     /* raw fast-tier rows are rolled up into minutes after this, ms */
	int64_t minutes_for; /* minute rows are rolled up into hours after this, ms */
	uint64_t max_size;   /* MaxDatabaseSize: the oldest rows go until under it; 0: none */
	unsigned batch;      /* rows per step, at most */
};

/* One bounded step of retention (a transaction of its own): roll up, then
 * delete what is older than keep, then, above max_size, the oldest
 * censuses and rows, then an incremental vacuum.  *ret_more tells whether
 * another step has work.  Returns 0 or a negative errno. */
int store_retention_step(struct store *s, const struct store_retention *r, bool *ret_more);

/* The database's size in bytes (pages in use times page size). */
int store_size(struct store *s, uint64_t *ret_bytes);

/* Runs PRAGMA quick_check; 0 when ok, -EBADMSG with the reason otherwise. */
int store_check(struct store *s);
