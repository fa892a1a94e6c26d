/* What the files of the store's read side share: the reader and its
 * statements, how SQLite's answers become negative errno values (with the
 * deadline and the interrupt), the tables that name each query's columns
 * and turn its rows into JSON objects, the process instances a selection
 * names, the merged fast tier, and small JSON helpers.  Only
 * schema/store-read*.c include this; every helper here is named read_*. */
#pragma once

#include <jansson.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json-field.h"
#include "store-internal.h"
#include "store-read.h"
#include "text.h"

#define RESOLUTION_RAW 0
#define RESOLUTION_MINUTE 60000
#define RESOLUTION_HOUR 3600000

/* Times are clamped to this (about 146 million years in ms), so the
 * arithmetic on them in SQL (a bound plus an hour) never overflows. */
#define READ_TIME_MAX (INT64_C(1) << 62)
#define READ_TIME_MIN (-READ_TIME_MAX)

/* Every statement a reader runs, prepared on first use and kept until
 * store_reader_close. */
enum read_stmt {
	RS_BEGIN,
	RS_COMMIT,
	RS_ROLLBACK,
	RS_PROCESS_BY_ID,
	RS_PROCESS_BOOTS,
	RS_PROCESS_BY_PID,
	RS_PROCESS_BY_NAME,
	RS_PROCESS_LIST,
	RS_LAST_SAMPLE,
	RS_LAST_CENSUS,
	RS_SAMPLES,
	RS_SAMPLES_EDGES,
	RS_SAMPLES_TIER,
	RS_CENSUSES_WINDOW,
	RS_CLASSES_WINDOW,
	RS_MARKS_WINDOW,
	RS_EVENTS,
	RS_CENSUS_AT,
	RS_CENSUS_FIRST,
	RS_CENSUS_ROW,
	RS_CENSUS_CLASSES,
	RS_CENSUS_REGIONS,
	RS_CENSUS_FILES,
	RS_CENSUS_PREVIOUS,
	RS_CENSUS_CONTENT,
	RS_CLASSES_COMPARED,
	RS_FILES_NEW,
	RS_FILES_GONE,
	RS_EVENT_COUNTS,
	RS_TREND,
	RS_MARKS,
	RS_VRAM_ANY,
	RS_CENSUS_GPU,
	RS_HEAP_CLASSES,
	RS_OOM_KILLS,
	RS_OOM_KILL_OF,
	RS_OOM_CENSUS_CLASSES,
	RS_CGROUP_LIST,
	RS_CGROUP_FINEST,
	RS_CGROUP_LATEST,
	RS_CGROUP_EARLIEST,
	RS_CGROUP_FIRST_AT,
	RS_CGROUP_MATCH,
	RS_CGROUP_ROWS,
	_RS_MAX
};

struct store_reader {
	struct store *store; /* opened read-only; only the reader uses its connection */
	sqlite3 *db;         /* store->db */
	sqlite3_stmt *stmt[_RS_MAX];
	uint64_t deadline_us; /* 0: none */
	atomic_bool interrupted;
	bool timed_out; /* the progress handler stopped a statement for the deadline */
	bool ending;    /* ending a transaction: neither the deadline nor the interrupt stops that */
	unsigned ticks; /* checks since the clock was last read */
	struct error error; /* the last failure, copied to the caller by read_end */
};

/* ------------------------------------------------------------ errors, statements */

/* Records what failed (what, then SQLite's message) and returns the negative
 * errno: -ETIME or -EINTR for a statement the deadline or an interrupt
 * stopped, else store_errno(rc). */
int read_fail(struct store_reader *r, int rc, const char *what);
/* Records a message of the reader's own and returns e (a negative errno). */
int read_failf(struct store_reader *r, int e, const char *fmt, ...) _printf_(3, 4);

/* The statement id, prepared from sql on first use.  Returns 0 with *ret
 * (owned by the reader; finish with read_done) or a negative errno.  For
 * statements without rows (a transaction's); a query that reads rows is
 * prepared with read_query_prepare, which checks its columns. */
int read_prepare(struct store_reader *r, enum read_stmt id, const char *sql, sqlite3_stmt **ret);
/* Checks the ORed result of a run of binds: 0, or read_fail. */
int read_bound(struct store_reader *r, sqlite3_stmt *st, int rc, const char *what);
/* Steps st.  Returns 1 for a row, 0 when done, or read_fail(what); it
 * also stops (-ETIME, -EINTR) between rows, so a loop over rows in C is
 * bounded like the statement. */
int read_step(struct store_reader *r, sqlite3_stmt *st, const char *what);
/* Resets st and clears its bindings. */
void read_done(sqlite3_stmt *st);

/* -ETIME once the deadline passed, -EINTR once interrupted, else 0.  Cheap:
 * reads the clock every few dozen calls. */
int read_check(struct store_reader *r);

/* An answer reads one snapshot of the database: read_begin opens a read
 * transaction (and forgets an earlier interrupt), read_end closes it,
 * whatever happened, and copies the reader's message into err when r < 0.
 * read_end returns r. */
int read_begin(struct store_reader *r);
int read_end(struct store_reader *r, int result, struct error *err);

/* ------------------------------------------------------------ process instances */

/* A processes row; unknown numbers are -1, unknown strings NULL. */
struct read_process {
	int64_t id;
	int pid;
	int64_t start_time, started_at, uid;
	int64_t first_seen, last_seen, exited_at;
	int64_t peak_private, peak_resident, peak_vram;
	enum census_platform platform;
	char *boot_id, *comm, *exe, *cmdline;
	char *owner; /* Windows: the account; NULL on Linux */
};

/* The SELECT list read_process_load reads, in the order of the table
 * read_process_prepare checks it against. */
#define READ_PROCESS_COLUMNS                                                                          \
	"p.id, p.pid, p.start_time, p.started_at, p.uid, p.first_seen, p.last_seen, p.exited_at, p.peak_private," \
	" p.peak_resident, p.boot_id, p.comm, p.exe, p.cmdline, p.peak_vram, p.platform, p.owner"

/* read_query_prepare for sql, a statement whose SELECT list is
 * READ_PROCESS_COLUMNS. */
int read_process_prepare(struct store_reader *r, enum read_stmt id, const char *sql, sqlite3_stmt **ret);
/* Reads READ_PROCESS_COLUMNS from st's current row (st prepared with
 * read_process_prepare).  Returns 0 or -ENOMEM. */
int read_process_load(sqlite3_stmt *st, struct read_process *ret);
void read_process_clear(struct read_process *p);
/* Frees n processes and the array; accepts NULL. */
void read_processes_free(struct read_process *p, size_t n);

/* The instances sel names, newest first (by last sight), with the access
 * rules of store_read_instances; latest: only the newest one.  Returns 0
 * with *ret, *ret_n >= 1 (read_processes_free), -ENOENT, -EACCES or
 * -EINVAL with the reason recorded, or another negative errno. */
int read_select(struct store_reader *r, const struct store_select *sel, bool latest, struct read_process **ret,
		size_t *ret_n);

/* The ids of n processes as a JSON array in text ("[17,18]"), bound to the
 * statements that take a list of instances (json_each).  Returns 0 with
 * *ret (free()) or -ENOMEM. */
int read_process_ids(const struct read_process *p, size_t n, char **ret);

/* The instance as history's "instances" lists it.  NULL when out of memory. */
json_t *read_instance_json(const struct read_process *p);

/* The process as "processes" lists it: identity, user, its last stored
 * sample and last census.  Returns 0 with *ret or a negative errno. */
int read_process_json(struct store_reader *r, const struct read_process *p, json_t **ret);

/* ------------------------------------------------------------ the fast tier */

/* One row of the fast tier as answers give it.  time is the end of the
 * row's interval; see read_samples_start for the rows at the edge of a
 * finer resolution.  vram_last and vram_max are the GPU memory rows of the
 * same process, resolution and time, summed over devices (-1: none). */
struct read_sample {
	int64_t process_id, time, resolution;
	SAMPLE_COLUMNS(SAMPLE_MEMBER_INT64) /* private_last, ..., samples */
	int64_t vram_last, vram_max;
	int64_t stored; /* the row's time in the table */
	/* the time of the last row a coalesced raw row stands for (its values
	 * held over [stored, until]); time for every other row.  One that
	 * began before the window and reaches into it is given at the
	 * window's start. */
	int64_t until;
};

/* A row's place in the order of read_samples_start, which a cursor
 * names: (time, process_id, resolution descending, stored). */
struct read_sample_key {
	int64_t time, process_id, resolution, stored;
};

/* A walk through the fast tier of some instances. */
struct read_samples {
	struct store_reader *r;
	sqlite3_stmt *st;
	char *ids; /* several instances: their ids, a JSON array bound to st */
	/* one instance: its tiers one after the other, hours first */
	bool one;
	int tier; /* the tier being read; 3 when done */
	int64_t process_id, lo, hi;
	int64_t since;   /* lo as asked, before a cursor moved it */
	int64_t edge[3]; /* each tier's rows are given before this time */
	bool vram;       /* some instance has GPU memory rows: read them */
	bool have_after;
	struct read_sample_key after;
};

/* Starts reading the fast tier of the n instances p with a time in
 * [lo, hi], merged across resolutions so that every sample is counted once:
 * raw rows where they exist, minute rows before the first raw row, hour
 * rows before the first minute (or raw) row.  A minute or hour row rolled
 * up in part (its interval holds the first finer row) is given at the
 * finer rows' first time less 1 ms, the latest its own samples can be, so
 * times within an instance never go back.  Rows come in the order of
 * struct read_sample_key, after after (NULL: from the start); limit 0: no
 * limit.  Returns 0 with *w (read it with read_samples_next, end it with
 * read_samples_done) or a negative errno. */
int read_samples_start(struct store_reader *r, const struct read_process *p, size_t n, int64_t lo, int64_t hi,
		       const struct read_sample_key *after, unsigned limit, struct read_samples *w);
/* Returns 1 with *x, 0 at the end, or a negative errno. */
int read_samples_next(struct read_samples *w, struct read_sample *x);
void read_samples_done(struct read_samples *w);

/* Compares two keys in the order of read_samples_start: <0, 0, >0. */
int read_sample_key_compare(const struct read_sample_key *a, const struct read_sample_key *b);

/* ------------------------------------------------------------ censuses */

/* The censuses and marks of the n instances p with a time in [lo, hi], as
 * history lists them (classes: a JSON array of class keys in text, whose
 * totals alone each census gives; NULL: all).  Returns 0 with
 * *ret_censuses and *ret_marks (new references) or a negative errno. */
int read_window(struct store_reader *r, const struct read_process *p, size_t n, const char *classes, int64_t lo,
		int64_t hi, json_t **ret_censuses, json_t **ret_marks);

struct census;
/* Reads the stored census census_id into c (made by census_new, its
 * process filled in): its totals, counters, cost, classes, largest
 * regions, files and GPU section.  Returns 0 with *ret_counter_private
 * (-1: unknown) and *ret_meta ({"trigger", "status"}, a new reference),
 * -ENOENT when there is no such census, or a negative errno. */
int read_census_load(struct store_reader *r, int64_t census_id, struct census *c, int64_t *ret_counter_private,
		     json_t **ret_meta);

/* The stored census census_id of process p in the JSON form of
 * census_to_json plus census_id, trigger and status.  Returns 0 with *ret
 * or a negative errno (-ENOENT: no such census). */
int read_census_json(struct store_reader *r, const struct read_process *p, int64_t census_id, json_t **ret);

/* The newest ok census of process_id.  Returns 1 with *ret_id and
 * *ret_time, 0 when there is none, or a negative errno. */
int read_last_census(struct store_reader *r, int64_t process_id, int64_t *ret_id, int64_t *ret_time);

/* The report's "since_previous": census census_id (taken at time) of
 * process_id against the ok census before it; null when there is none.
 * Returns 0 with *ret or a negative errno. */
int read_since_previous(struct store_reader *r, int64_t process_id, int64_t census_id, int64_t time,
			json_t **ret);

/* ------------------------------------------------------------ rows as JSON objects */

/* How a column's value is written in an answer. */
enum read_kind {
	READ_INT,     /* an integer; null for NULL */
	READ_STR,     /* a string (read_column_str); null for NULL */
	READ_BOOL,    /* true or false (NULL: false) */
	READ_ADDRESS, /* an address stored as signed 64-bit, as "0x..." */
	READ_INODE,   /* an integer; null when stored negative (past 2^63) */
	READ_KEY,     /* read by the code (a cursor, a join), not written */
};

/* A column of a query: its name in the SELECT list (the AS, or the
 * table's column name) is its key in the answer. */
struct read_column {
	const char *key;
	enum read_kind kind;
};

/* A query whose rows become JSON objects: its statement and its columns
 * in the order of its SELECT list. */
struct read_query {
	enum read_stmt id;
	const char *sql;
	const struct read_column *columns;
	size_t n_columns;
};

#define READ_QUERY(stmt, text, table) { .id = (stmt), .sql = (text), .columns = (table), .n_columns = ELEMENTSOF(table) }

/* read_prepare for q; when the statement is prepared (its first use), its
 * columns are checked against q's table, count and names.  Returns 0 with
 * *ret, -EPROTO (and the statement not kept) when they differ, or a
 * negative errno. */
int read_query_prepare(struct store_reader *r, const struct read_query *q, sqlite3_stmt **ret);

/* The current row of st (prepared from q) as an object of q's columns but
 * the READ_KEY ones, in their order.  NULL when out of memory. */
json_t *read_row_json(sqlite3_stmt *st, const struct read_query *q);

/* Called with each row read_rows appended, for what the code reads from
 * it (a cursor). */
typedef void (*read_row_seen_fn)(sqlite3_stmt *st, void *userdata);

/* Steps st (bound, prepared from q) to its end, appending each row as
 * read_row_json to a and calling seen (NULL: none), at most limit rows (0:
 * no limit).  st is reset either way.  Returns 1 when a row beyond limit
 * was there (another page follows), 0 at the end, or a negative errno
 * (read_step's what). */
int read_rows(struct store_reader *r, sqlite3_stmt *st, const struct read_query *q, unsigned limit, json_t *a,
	      read_row_seen_fn seen, void *userdata, const char *what);

/* ------------------------------------------------------------ in use or kept */

/* The report's "in_use_or_kept" of instance process_id: an entry for each
 * class some census read in use and free of (store-read-heap.c).  Returns
 * 0 with *ret (an array) or a negative errno. */
int read_heap_report(struct store_reader *r, int64_t process_id, json_t **ret);

/* ------------------------------------------------------------ OOM kills */

/* The last OOM kill of process_id as "oom" lists it (store-read-oom.c),
 * or null when it was not killed.  Returns 0 with *ret or a negative
 * errno. */
int read_oom_kill_of(struct store_reader *r, int64_t process_id, json_t **ret);

/* ------------------------------------------------------------ JSON */

/* Column i of st as a JSON integer or string (bytes that are not UTF-8,
 * and NUL, as U+FFFD: text_json_stringn), null for NULL.  NULL when out of memory. */
json_t *read_column_int(sqlite3_stmt *st, int i);
json_t *read_column_str(sqlite3_stmt *st, int i);

/* Whether s (len bytes) is UTF-8, as JSON text must be, without NUL.  A
 * process sets its own comm and command line, and a file name is any
 * bytes: what the store holds need not be. */
bool read_utf8_valid(const char *s, size_t len);

/* Sets key in o to v (a new reference, taken even on failure).  Returns 0
 * or -ENOMEM; so a run of them can be ORed together. */
int read_set(json_t *o, const char *key, json_t *v);

/* Parses a cursor "<tag>:<n>:<n>..." of exactly n integers into v.
 * Returns 0 or -EINVAL. */
int read_cursor_parse(const char *cursor, char tag, int64_t *v, size_t n);
/* Formats a cursor of n integers; NULL when out of memory. */
json_t *read_cursor_json(char tag, const int64_t *v, size_t n);

/* The name of uid from the user database, into buf; NULL when unknown. */
const char *read_user_name(int64_t uid, char *buf, size_t size);

/* Clamps a time from a request to [READ_TIME_MIN, READ_TIME_MAX]. */
static inline int64_t read_time_clamp(int64_t t)
{
	return t < READ_TIME_MIN ? READ_TIME_MIN : t > READ_TIME_MAX ? READ_TIME_MAX : t;
}
