/* Reading the store for the control socket's history, report, census,
 * events, processes, oom, cgroups and cgroup_history answers, as JSON
 * objects in the shapes of doc/protocol.md.
 *
 * A reader is a read-only connection of its own (query_only, its own
 * prepared statements), meant for one thread: the daemon runs its queries
 * on a worker thread so that sampling never waits for them.  A query can
 * be bounded in time (store_reader_set_deadline) and interrupted from
 * another thread (store_reader_interrupt).
 *
 * Functions return 0 with *ret (a new reference, json_decref), or a
 * negative errno with the reason in err (for a person):
 *   -ENOENT    nothing matches (no such process, no census at that time)
 *   -EACCES    what matches belongs to another uid than only_uid (and
 *              another account than only_owner): err names the process and
 *              its owner
 *   -ETIME     the deadline passed
 *   -EINTR     interrupted
 *   -EINVAL    a bad argument (err names it)
 *   -EBUSY, -EIO, -EUCLEAN (damaged), -ENOMEM  the database could not be read
 *   -EPROTO    a query's SELECT list and the table of its columns differ
 *              (a defect of this build, found when the query is prepared) */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct store_reader;

/* Opens path read-only.  Returns 0 with *ret, -EPROTO for a schema this
 * program does not know (newer, or older and not yet migrated by the
 * daemon), or another negative errno, with the reason in err. */
int store_reader_open(const char *path, struct store_reader **ret, struct error *err);
/* Accepts NULL, returns NULL. */
struct store_reader *store_reader_close(struct store_reader *r);

/* Queries after this monotonic time (microseconds, now_monotonic_us) stop
 * with -ETIME; 0: none. */
void store_reader_set_deadline(struct store_reader *r, uint64_t deadline_us);
/* Stops the query running now with -EINTR; safe from any thread.  An
 * interrupt that comes while no query runs is forgotten when the next one
 * starts. */
void store_reader_interrupt(struct store_reader *r);

/* Which process instances a request is about (one of pid, name,
 * process_id), and whose processes the asker may see. */
struct store_select {
	int pid;                /* 0: not by pid */
	bool all_instances;     /* with pid: every instance, not only the latest */
	const char *name;       /* glob on comm or command line; NULL: not by name */
	int64_t process_id;     /* 0: not by row id */
	int64_t only_uid;       /* -1: any; else only processes of this real uid */
	/* with only_uid set, also the processes of this account (Windows's
	 * text owner: DOMAIN\account, or the SID where it has no name),
	 * compared as Windows compares names, without case; NULL: none */
	const char *only_owner;
};

/* Whether a process of uid (-1: none, as on Windows) and owner text (NULL:
 * unknown) is one an asker limited to only_uid (-1: no limit) and
 * only_owner (NULL: none) may see: its uid is only_uid, or its owner is
 * only_owner, compared without case as Windows compares accounts.  The
 * one rule every read and every answer built from the watched processes
 * follows. */
bool store_owner_visible(int64_t only_uid, const char *only_owner, int64_t uid, const char *owner);

/* The instances a selection names, as the "instances" array of history
 * (newest first).  With pid or process_id and only_uid set, a match owned
 * by another uid (and account than only_owner) is -EACCES (not an empty answer); with name, others'
 * processes are left out silently (the caller says it filtered). */
int store_read_instances(struct store_reader *r, const struct store_select *sel, json_t **ret, struct error *err);

/* The "processes" answer from the store: the instances it knows (alive
 * first, then the most recently seen), with their last stored sample and
 * their last census.  sort: "private", "resident" or "peak" (NULL:
 * "private").  exited: also the processes that exited (else only those
 * without an exit time).  limit 0: RW_ANSWER_ROWS_DEFAULT; above
 * RW_ANSWER_ROWS_MAX: that.  Only the processes of only_uid (-1: anyone's)
 * and, with it, of the account only_owner (NULL: none; store_select says
 * how it is compared). */
int store_read_processes(struct store_reader *r, int64_t only_uid, const char *only_owner, bool exited,
			 const char *sort, unsigned limit, json_t **ret, struct error *err);

struct store_history_query {
	struct store_select sel;
	int64_t since, until;          /* unix ms */
	const char *const *classes;    /* class keys; NULL/0: all */
	size_t n_classes;
	int64_t step_ms;               /* 0: rows as stored */
	unsigned limit;                /* sample rows; 0: RW_ANSWER_ROWS_DEFAULT; at most RW_ANSWER_ROWS_MAX */
	const char *cursor;            /* from a previous answer's "next", or NULL */
};

/* The "history" answer. */
int store_read_history(struct store_reader *r, const struct store_history_query *q, json_t **ret, struct error *err);

/* The "report" answer for one instance (the latest that sel names). */
int store_read_report(struct store_reader *r, const struct store_select *sel, json_t **ret, struct error *err);

/* at of store_read_census: the first census of the instance. */
#define STORE_CENSUS_FIRST INT64_C(-1)

/* The stored ok census of one instance taken at or before at (unix ms;
 * INT64_MAX: the last; STORE_CENSUS_FIRST: the first), in the JSON form of census_to_json (census-json.h)
 * plus "census_id", "trigger" and "status": census_from_json reads it. */
int store_read_census(struct store_reader *r, const struct store_select *sel, int64_t at, json_t **ret, struct error *err);

/* The "events" answer: the region events of one instance, oldest first;
 * limit and cursor as in history. */
int store_read_events(struct store_reader *r, const struct store_select *sel, int64_t since, int64_t until,
		      unsigned limit, const char *cursor, json_t **ret, struct error *err);

/* Which OOM kills the "oom" answer gives: those in [since, until], of a
 * cgroup (the victim's group or the one whose limit was hit is it or
 * lies below it; NULL: any), of only_uid's processes (-1: anyone's) and,
 * with it, of the account only_owner's (NULL: none; as store_select),
 * newest first, at most limit (0: RW_ANSWER_ROWS_DEFAULT; at most
 * RW_ANSWER_ROWS_MAX). */
struct store_oom_query {
	int64_t since, until;
	const char *cgroup;
	int64_t only_uid;
	const char *only_owner;
	unsigned limit;
};

/* The "oom" answer: {"kills": [...], "truncated": bool}, each kill with
 * the kernel's figures and the victim's last census (null where none). */
int store_read_oom_kills(struct store_reader *r, const struct store_oom_query *q, json_t **ret, struct error *err);

/* The "cgroups" answer: every memory cgroup the store knows, with its
 * latest row, its headroom, and its growth over the window_ms before that
 * row with the time to its limit at that growth; largest usage first.
 * Without processes_figures, the sums of the groups' processes (others'
 * processes, for a user who may see only their own) are null. */
int store_read_cgroups(struct store_reader *r, int64_t window_ms, bool processes_figures, json_t **ret,
		       struct error *err);

/* Which cgroup's timeline: by path (exact), or every group of a unit. */
struct store_cgroup_history_query {
	const char *cgroup; /* one of cgroup and unit */
	const char *unit;
	int64_t since, until;  /* unix ms */
	unsigned limit;        /* rows; 0: RW_ANSWER_ROWS_DEFAULT; at most RW_ANSWER_ROWS_MAX */
	bool processes_figures; /* as store_read_cgroups */
};

/* The "cgroup_history" answer: the groups matched and their rows, each
 * group's oldest first, merged across resolutions as history's are.
 * -ENOENT when no group matches. */
int store_read_cgroup_history(struct store_reader *r, const struct store_cgroup_history_query *q, json_t **ret,
			      struct error *err);
