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
 * program knows), -EBADMSG (a SQLite database of another program),
 * -EUCLEAN (the file is damaged: SQLITE_CORRUPT or SQLITE_NOTADB, from any
 * read or write), -ENOMEM; store_error() then says what happened in
 * words.  After -EUCLEAN nothing more is written into the file, not even
 * the checkpoint of closing: the caller moves it aside. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census.h"
#include "error.h"
#include "region-events.h"
#include "sample-row.h"

struct store;

/* The schema version this program writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 16

struct store_options {
	const char *path;
	bool read_only;          /* readers: no migration, no writes */
	int busy_timeout_ms;     /* 0: 2000 */
	uint64_t max_size;       /* bytes, 0: no limit (MaxDatabaseSize); see store_set_max_size */
	unsigned check_ms;       /* writers: > 0, store_check (so bounded) before the first write */
	bool coalesce;           /* writers: an identical steady raw row extends the last one (store_put_sample) */
	bool whole_censuses;     /* writers: every census a key, stored whole as before schema 9 (for comparison) */
};

/* Opens (creating it unless read_only) and migrates the database.  A
 * database of a newer schema is refused (-EPROTO) and left untouched; so is
 * a database older than this program's schema when read_only (the daemon
 * migrates it).  A SQLite file of another program is -EBADMSG; a damaged
 * file (a header that is not SQLite's, or damage check_ms found) is
 * -EUCLEAN; one that cannot be opened, the system's errno (-ENOENT,
 * -EACCES).
 * Returns 0 with *ret, or a negative errno with the reason in err. */
int store_open(const struct store_options *o, struct store **ret, struct error *err);
/* Closes; accepts NULL, returns NULL. */
struct store *store_close(struct store *s);

/* Changes MaxDatabaseSize of an open writer (a configuration reload): the
 * hard ceiling, a little above it (max_size / 16, at least 64 pages), moves
 * with it; 0 lifts it.  Retention is what brings the size under a lowered
 * limit.  Returns 0 or a negative errno. */
int store_set_max_size(struct store *s, uint64_t max_size);

/* What went wrong last, in words: the database, what was being done, and
 * SQLite's own message.  Valid until the next call on s. */
const char *store_error(const struct store *s);

/* The schema version of the open database: STORE_SCHEMA_VERSION. */
int store_schema_version(const struct store *s);

/* ------------------------------------------------------------ writing */

/* Begins a transaction and takes the write lock at once, waiting up to
 * the busy timeout: -EBUSY when another writer holds it.  -EINVAL when a
 * transaction is already open, -EROFS for a reader.  Returns 0 on success. */
int store_begin(struct store *s);
/* Commits the open transaction.  Returns 0, or a negative errno after
 * which the caller rolls back (-EINVAL when none is open). */
int store_commit(struct store *s);
/* Rolls back the open transaction, if any; nothing of it stays, in the
 * database or in the store. */
void store_rollback(struct store *s);

/* Every store_put_* returns 0 or a negative errno: -ENOSPC, -EBUSY, -EIO as
 * above; -EINVAL for a row the schema refuses (an unknown process_id or
 * census_id, a missing name), which retrying cannot help; -EROFS for a
 * reader; -ECANCELED when SQLite itself rolled the transaction back after
 * an earlier error (then store_commit says so too): nothing is written
 * outside the transaction.  Strings are copied: the caller's may go once a
 * call returns. */

/* A process instance: (boot_id, pid, start_time) names it; a reused pid is
 * another instance.  A Windows process (platform PLATFORM_WINDOWS) has no
 * uid but an owner, and its creation time as start_time. */
struct store_process {
	enum census_platform platform; /* where it runs; PLATFORM_LINUX is 0 */
	const char *boot_id;
	int pid;
	int64_t start_time;     /* Linux: clock ticks after boot (stat field 22); Windows: creation, unix ms */
	int64_t started_at;     /* unix ms, -1 unknown */
	int64_t uid;            /* -1 unknown (always on Windows) */
	const char *owner;      /* Windows: DOMAIN\user or a SID; NULL unknown (always on Linux) */
	const char *comm, *exe, *cmdline; /* NULL unknown */
	int64_t seen;           /* unix ms: first seen on insert, last seen on update */
	int64_t exited_at;      /* unix ms, -1 while alive */
	uint64_t peak_private, peak_resident; /* the largest seen so far */
	uint64_t peak_vram;     /* the largest GPU memory held, over all devices */
};

/* Inserts or updates a process instance (last seen, exit, peaks, and the
 * fields that were unknown: a known comm, exe, cmdline or owner stays as
 * first stored, and so does the platform); returns its row id in *ret_id,
 * the same for the same instance.  -EINVAL for a platform out of range. */
int store_put_process(struct store *s, const struct store_process *p, int64_t *ret_id);
/* The same for an instance stored before as row id: its last sight, exit
 * and peaks (the other fields are as first stored).  Cheaper than
 * store_put_process.  Returns 0, -ENOENT when no such row is there (the
 * row was deleted, the id is of another file), or a negative errno. */
int store_update_process(struct store *s, int64_t id, const struct store_process *p);

/* One fast-tier row: min, max and last of the samples of one StoreInterval,
 * so no peak between two rows is lost.  Its counters are SAMPLE_COLUMNS
 * (sample-row.h): private_last, private_min, private_max, resident_...,
 * swap_last, samples. */
struct store_sample {
	int64_t time; /* end of the interval */
	SAMPLE_COLUMNS(SAMPLE_MEMBER)
};

/* A raw row (samples >= 1).  A second row of the same process and time
 * merges into the first.  With store_options.coalesce, a row that is
 * steady (min = max = last, private and resident) and the same as the
 * process's last row written since opening, itself steady, extends that
 * row instead (until = x->time, samples added): ramwatch-schema(7),
 * COALESCED ROWS. */
int store_put_sample(struct store *s, int64_t process_id, const struct store_sample *x);

enum store_trigger {
	TRIGGER_FIRST,    /* first sight of the process */
	TRIGGER_INTERVAL, /* CensusInterval passed */
	TRIGGER_GROWTH,   /* private grew by max(256 MiB, 5 %) */
	TRIGGER_MARK,     /* a phase was marked */
	TRIGGER_REQUEST,  /* a client asked */
	TRIGGER_LIMIT,    /* its memory cgroup neared its limit, or the host ran short (schema 16) */
	_TRIGGER_MAX
};

enum census_status {
	CENSUS_OK,
	CENSUS_EXITED,
	CENSUS_DENIED,
	CENSUS_ERROR,
	_CENSUS_STATUS_MAX
};

/* The names stored in censuses.trigger and .status ("growth", "exited"),
 * or NULL for a value out of range. */
const char *store_trigger_name(enum store_trigger t);
const char *store_census_status_name(enum census_status s);

struct store_census {
	int64_t time;
	enum store_trigger trigger;
	enum census_status status;
	bool light;          /* smaps_rollup and maps only (HugeProcess) */
	const char *message; /* why, when status is not ok; NULL */
	int64_t wall_us, cpu_us, bytes_read; /* -1 unknown */
	/* > 0: the census found nothing changed since the census of the same
	 * process taken at this time (a full one, itself no repeat): stored
	 * as a repeat of it (censuses.repeats), without a census of its own */
	int64_t repeats_time;
};

/* A census: its row, and with status ok (census not NULL) its totals, class
 * totals, largest regions and files (paths interned in their own table),
 * and its GPU section when taken (the devices interned in gpus).
 * With another status, census may be NULL and no totals are stored.  Costs
 * of -1 in m are taken from the census when it has them.
 * With m->repeats_time, a repeat (status ok, census NULL): its row names
 * the census it repeats and copies its totals; -EINVAL when the store has
 * no such census (the row that held it was dropped or lost with a damaged
 * file).
 * Returns its row id in *ret_id. */
int store_put_census(struct store *s, int64_t process_id, const struct store_census *m, const struct census *c,
		     int64_t *ret_id);

/* The region events found between the previous census and census_id. */
int store_put_region_events(struct store *s, int64_t process_id, int64_t census_id, int64_t time,
			    const struct region_event *events, size_t n);

/* A mark: a named phase of a process starts at time. */
int store_put_mark(struct store *s, int64_t process_id, int64_t time, const char *name, int64_t by_uid);

/* The machine's memory: /proc/meminfo and /proc/pressure/memory (NULL in
 * the database without have_pressure).  A second row of the same time
 * replaces the first. */
struct store_system {
	int64_t time;
	uint64_t mem_total, mem_available, swap_total, swap_free, committed_as, commit_limit;
	bool have_pressure;
	double some_avg10, some_avg60, full_avg10, full_avg60;
	uint64_t some_total_us, full_total_us;
};

int store_put_system(struct store *s, const struct store_system *x);

/* ------------------------------------------------------------ GPU memory */

/* One device's row of one StoreInterval: its memory, or that it did not
 * answer (present false).  The device itself (UUID, name, index, total) is
 * stored once, in gpus, found by its UUID; a device without one (it never
 * answered) is refused with -EINVAL.  Returns its id in gpus in
 * *ret_gpu_id (may be NULL), for store_put_gpu_sample in the same
 * transaction.  A second row of the same device and time replaces the
 * first. */
int store_put_gpu_device(struct store *s, int64_t time, const struct gpu_device *d, int64_t *ret_gpu_id);

/* The GPU memory (bytes) a process holds on the device gpu_id at time: a
 * raw row, at the time of the process's row in samples so that readers
 * find the two together.  A figure NVML could not give
 * (GPU_BYTES_UNKNOWN) is refused with -EINVAL.  A second row of the same
 * process, device and time merges into the first. */
int store_put_gpu_sample(struct store *s, int64_t process_id, int64_t gpu_id, int64_t time, uint64_t used);

/* ------------------------------------------------------------ OOM kills, memory cgroups */

/* Who told of an OOM kill (store_oom_kill.sources): the OOM watch, the
 * kernel's log, or only a counter of the kernel's. */
enum store_oom_source {
	STORE_OOM_BPF = 1u << 0,
	STORE_OOM_KMSG = 1u << 1,
	STORE_OOM_COUNTER = 1u << 2, /* counted, told by no source: its details are unknown */
};

/* An OOM kill.  Zero is "unknown" or "none" for every field but time, so
 * a caller sets what it knows. */
struct store_oom_kill {
	int64_t time;             /* unix ms */
	unsigned sources;         /* enum store_oom_source's bits, at least one */
	int pid;                  /* 0: unknown (a kill only counted) */
	int64_t process_id;       /* the victim's row where it was watched; 0: not watched */
	const char *comm;         /* NULL: unknown */
	bool have_uid;
	int64_t uid;
	/* what confined the kernel's choice: "memcg", "none" (the whole
	 * machine), "cpuset", "memory_policy"; NULL or "unknown": unknown */
	const char *constraint;
	const char *cgroup;       /* the victim's memory cgroup; NULL: unknown */
	const char *limit_cgroup; /* the group whose limit was hit; NULL: unknown */
	bool have_limit;
	uint64_t limit, usage;    /* of limit_cgroup at the kill */
	/* the kernel's figures for the victim at the kill */
	bool have_kernel;
	uint64_t total_vm, anon_rss, file_rss, shmem_rss;
	bool have_pgtables, have_oom_score_adj;
	uint64_t pgtables;
	int oom_score_adj;
	int64_t census_id;        /* the victim's last census; 0: the store finds it */
	int64_t sample_time;      /* its last fast-tier row's time; 0: the store finds it */
};

/* Stores an OOM kill; its row id in *ret_id (may be NULL).  With a
 * process_id, a census_id or sample_time of 0 is found in the store: the
 * process's last census (ok) and fast-tier row at or before the kill; a
 * census of the process stored later with a time at or before the kill's
 * becomes the kill's census then (store_put_census does it), so the census
 * taken as the process neared its limit is linked even when it is written
 * after the kill.  -EINVAL for no source or a constraint the schema does
 * not know, or an unknown process_id or census_id. */
int store_put_oom_kill(struct store *s, const struct store_oom_kill *k, int64_t *ret_id);

/* Sets the census (> 0) and sample time (> 0) of the kill kill_id; 0
 * leaves either as it is.  -ENOENT when there is no such kill. */
int store_link_oom_kill(struct store *s, int64_t kill_id, int64_t census_id, int64_t sample_time);

/* A memory cgroup: its version (1 or 2), its path below the memory
 * controller's mount ("/" for the mount's root) and its directory's inode
 * (0: unknown).  Stored once, found by version and path; its unit is
 * taken from the path (cgroup-unit.h). */
struct store_cgroup {
	int version;
	const char *path;
	uint64_t inode;
};

/* The cgroup's id in cgroups, added or brought up to date (last seen at
 * time, the inode when known).  -EINVAL for a version other than 1 or 2,
 * or a path that does not start with "/".  Returns 0 with *ret_id. */
int store_put_cgroup(struct store *s, int64_t time, const struct store_cgroup *g, int64_t *ret_id);

/* A memory cgroup at a moment (the fields of daemon/cgroup-mem.h's struct
 * cgroup_mem, and its watched processes).  Figures its version does not
 * give are marked absent and stored NULL. */
struct store_cgroup_sample {
	int64_t time;             /* unix ms */
	uint64_t usage;
	bool have_limit, have_applies, have_high, have_swap;
	uint64_t limit;           /* its own */
	uint64_t applies;         /* the one that applies: its own or an ancestor's */
	uint64_t high, swap;
	uint64_t anon, file, shmem; /* memory.stat */
	bool have_kernel, have_sock;
	uint64_t kernel, sock;
	bool have_events;         /* oom and oom_kill read */
	uint64_t oom, oom_kill;
	bool have_high_max_events; /* v2: memory.events high and max */
	uint64_t events_high, events_max;
	/* the watched processes in the group, and the sums of their last
	 * private and resident figures */
	uint64_t processes, processes_private, processes_resident;
};

/* A raw row of the group cgroup_id (from store_put_cgroup).  A second row
 * of the same group and time replaces the first.  -EINVAL for an unknown
 * cgroup_id. */
int store_put_cgroup_sample(struct store *s, int64_t cgroup_id, const struct store_cgroup_sample *x);

/* ------------------------------------------------------------ housekeeping */

/* "Older than" is strict: a row at now - keep stays. */
struct store_retention {
	int64_t now;         /* unix ms */
	int64_t keep;        /* Retention: rows older than this go, ms; 0: kept for ever */
	int64_t raw_for;     /* raw fast-tier rows are rolled up into minutes after this, ms; 0: never */
	int64_t minutes_for; /* minute rows are rolled up into hours after this, ms; 0: never */
	uint64_t max_size;   /* MaxDatabaseSize: the oldest rows go until under it; 0: none */
	unsigned batch;      /* rows per statement, at most (give or take rows of one time); 0: 1000 */
};

/* One bounded step of retention (a transaction of its own): delete what is
 * older than keep (GPU rows, OOM kills and cgroup rows included), roll up
 * (GPU memory and cgroup rows with the fast-tier rows of their times), then, above max_size, the oldest censuses and
 * rows, then paths nothing refers to, then an incremental vacuum.  A
 * census's classes, regions, files and region events go with it; a process
 * goes once last seen before the cutoff with no rows left.  The step may go
 * a little above the max_page_count ceiling, since deleting can itself need
 * pages.  *ret_more tells whether another step has work.  Returns 0 or a
 * negative errno (the step is then rolled back whole). */
int store_retention_step(struct store *s, const struct store_retention *r, bool *ret_more);

/* The database's size in bytes: pages in use (PRAGMA page_count minus
 * freelist_count) times the page size.  The WAL is not counted.  Returns 0
 * with *ret_bytes or a negative errno. */
int store_size(struct store *s, uint64_t *ret_bytes);

/* Runs PRAGMA quick_check for at most max_ms (0: no bound).  Returns 0
 * when the whole file is ok, 1 when the bound stopped it with nothing
 * found so far, -EUCLEAN with what it found (the first problem) in
 * store_error, or another negative errno. */
int store_check(struct store *s, unsigned max_ms);
/* Whether the last store_check (the one at open, with check_ms) went
 * through the whole file, and in *ret_us (may be NULL) how long it took. */
bool store_checked_whole(const struct store *s, uint64_t *ret_us);

/* ------------------------------------------------------------ salvage */

/* What store_salvage copied from a damaged file, and what it could not. */
struct store_salvage {
	uint64_t processes, censuses;             /* rows kept */
	uint64_t skipped_processes, skipped_censuses; /* rows that could not be read */
	bool unreadable;                          /* the list of processes ended early */
	char why[160];                            /* why nothing (or not more) was kept; else "" */
};

/* Copies into the writer s, which is new and empty, what can still be
 * read of the damaged ramwatch database at damaged_path (opened read-only,
 * never written): every process row, and the last census of each with its
 * classes, regions, files and GPU rows, with their ids.  A row that cannot
 * be read is skipped and counted; a census is copied whole or not at all.
 * A file of another schema version gives nothing (why says so).  Returns
 * 0 with *ret, or a negative errno when s itself could not be written
 * (what was copied until then stays; why says so). */
int store_salvage(struct store *s, const char *damaged_path, struct store_salvage *ret);
