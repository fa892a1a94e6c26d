/* The fast tier as answers read it: raw rows, minute rows and hour rows of
 * one or more instances merged into one series per instance, each sample
 * counted once, in a total order that a cursor can continue.
 *
 * Retention rolls raw rows older than a cutoff into minute rows, and minute
 * rows into hours, deleting what it rolled up in the same transaction; so
 * for one instance the hour rows are the oldest, then the minute rows, then
 * the raw rows.  Where two meet, the coarser row's bucket may hold the
 * finer tier's first rows (a rollup stopped inside a bucket): both are
 * kept, since their samples differ, and the coarser one is given just
 * before the finer tier starts.  A coarser row whose whole bucket lies
 * where finer rows exist repeats them (a database edited by hand, or by a
 * newer ramwatch): it is left out.
 *
 * So the tiers of one instance follow each other in time: one instance
 * (the usual question, "history --pid") is read tier after tier, each an
 * ordered walk of the samples primary key, with nothing to sort.  Several
 * instances are one statement that merges them (SQLite sorts, keeping
 * only what the page needs).  Both give the order of read_sample_key: a
 * clamped coarser row can share its time with another row of its tier, so
 * the resolution and the time as stored break ties. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-read-internal.h"

static const int64_t tier_resolution[3] = { RESOLUTION_HOUR, RESOLUTION_MINUTE, RESOLUTION_RAW };

int read_sample_key_compare(const struct read_sample_key *a, const struct read_sample_key *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->process_id != b->process_id)
		return a->process_id < b->process_id ? -1 : 1;
	if (a->resolution != b->resolution)
		return a->resolution > b->resolution ? -1 : 1; /* coarser first */
	if (a->stored != b->stored)
		return a->stored < b->stored ? -1 : 1;
	return 0;
}

static int64_t column_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* The counters of a row (sample-row.h), then its until. */
#define VALUES SAMPLE_COLUMNS(VALUE_) ", s.until"
#define VALUE_(name, ...) ", s." #name

/* The GPU memory rows of sample row s, summed over devices, when the flag
 * parameter F says there are any for these instances: SQLite evaluates a
 * CASE lazily, so without them a row costs nothing more.  With them, two
 * lookups of the gpu_samples primary key per row. */
#define VRAM_OF(F, column)                                                                                 \
	"CASE WHEN " F " THEN (SELECT sum(g." column ") FROM gpu_samples g WHERE g.process_id = s.process_id" \
	" AND g.resolution = s.resolution AND g.time = s.time) END"
#define VRAM_VALUES(F) VRAM_OF(F, "used_last") " AS vram_last, " VRAM_OF(F, "used_max") " AS vram_max"

/* The columns of VALUES and VRAM_VALUES, from the first of them: the
 * counters in SAMPLE_COLUMNS's order, then these. */
enum value_column {
	V_UNTIL = _SAMPLE_N_COLUMNS,
	V_VRAM_LAST,
	V_VRAM_MAX,
};
#define VALUE_COLUMN_(name, ...) { #name, READ_KEY },
#define VALUE_COLUMNS SAMPLE_COLUMNS(VALUE_COLUMN_) { "until", READ_KEY }, { "vram_last", READ_KEY }, { "vram_max", READ_KEY }

/* VALUES, then VRAM_VALUES, from column first. */
static void load(sqlite3_stmt *st, int first, struct read_sample *x)
{
#define LOAD_(name, ...) x->name = sqlite3_column_int64(st, first + SAMPLE_COLUMN_##name);
	SAMPLE_COLUMNS(LOAD_)
#undef LOAD_
	x->until = sqlite3_column_int64(st, first + V_UNTIL);
	x->vram_last = column_opt(st, first + V_VRAM_LAST);
	x->vram_max = column_opt(st, first + V_VRAM_MAX);
}

/* Whether any of the n instances p has GPU memory rows.  Returns 0 or a
 * negative errno. */
static int any_vram(struct read_samples *w, const struct read_process *p, size_t n)
{
	static const struct read_column columns[] = { { "any_vram", READ_KEY } };
	static const struct read_query q = READ_QUERY(RS_VRAM_ANY,
						      "SELECT EXISTS (SELECT 1 FROM gpu_samples"
						      " WHERE process_id IN (SELECT value FROM json_each(?1))) AS any_vram",
						      columns);
	_cleanup_free_ char *ids = NULL;
	sqlite3_stmt *st = NULL;
	int e;

	w->vram = false;
	e = read_process_ids(p, n, &ids);
	if (e >= 0)
		e = read_query_prepare(w->r, &q, &st);
	if (e >= 0)
		e = read_bound(w->r, st, sqlite3_bind_text(st, 1, ids, -1, SQLITE_STATIC), "reading GPU memory");
	if (e >= 0)
		e = read_step(w->r, st, "reading GPU memory");
	if (e > 0)
		w->vram = sqlite3_column_int(st, 0) != 0;
	read_done(st);
	return e < 0 ? e : 0;
}

/* ------------------------------------------------------------ one instance */

/* Where each tier's rows stop: hour rows before the first minute or raw
 * row, minute rows before the first raw row; raw rows anywhere. */
static int edges(struct read_samples *w)
{
	static const struct read_column columns[] = { { "raw", READ_KEY }, { "minute", READ_KEY } };
	static const struct read_query q =
		READ_QUERY(RS_SAMPLES_EDGES,
			   "SELECT (SELECT min(time) FROM samples WHERE process_id = ?1 AND resolution = 0) AS raw,"
			   "       (SELECT min(time) FROM samples WHERE process_id = ?1 AND resolution = 60000) AS minute",
			   columns);
	sqlite3_stmt *st = NULL;
	int64_t raw = READ_TIME_MAX, minute = READ_TIME_MAX;
	int e;

	e = read_query_prepare(w->r, &q, &st);
	if (e >= 0)
		e = read_bound(w->r, st, sqlite3_bind_int64(st, 1, w->process_id), "reading samples");
	if (e >= 0)
		e = read_step(w->r, st, "reading samples");
	if (e > 0) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			raw = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			minute = sqlite3_column_int64(st, 1);
	}
	read_done(st);
	w->edge[0] = raw < minute ? raw : minute;
	w->edge[1] = raw;
	w->edge[2] = READ_TIME_MAX;
	return e < 0 ? e : 0;
}

/* One tier of one instance, in time order: the time as stored, then the
 * values. */
#define TIER_TIME 0
#define TIER_FIRST_VALUE 1
static const struct read_column tier_columns[] = { { "time", READ_KEY }, VALUE_COLUMNS };
static const struct read_query tier_query =
	READ_QUERY(RS_SAMPLES_TIER,
		   "SELECT s.time" VALUES ", " VRAM_VALUES("?5") " FROM samples s"
		   " WHERE s.process_id = ?1 AND s.resolution = ?2 AND s.time <= ?4 AND s.until >= ?3"
		   "  AND s.time >= coalesce((SELECT max(p.time) FROM samples p WHERE p.process_id = ?1"
		   "   AND p.resolution = ?2 AND p.time < ?3), ?3)"
		   " ORDER BY s.time",
		   tier_columns);

/* Starts the walk of tier w->tier. */
static int tier_start(struct read_samples *w)
{
	const int64_t res = tier_resolution[w->tier], edge = w->edge[w->tier];
	sqlite3_stmt *st = NULL;
	/* A coarser row is given at min(time, edge - 1), so a row in the
	 * window has time >= lo; its bucket starts before the edge, so its
	 * time is below edge + res; and time - res < given <= hi. */
	int64_t upto = w->hi + res < edge + res - 1 ? w->hi + res : edge + res - 1;
	int e, rc;

	e = read_query_prepare(w->r, &tier_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, w->process_id);
	rc |= sqlite3_bind_int64(st, 2, res);
	rc |= sqlite3_bind_int64(st, 3, w->lo);
	rc |= sqlite3_bind_int64(st, 4, res == RESOLUTION_RAW ? w->hi : upto);
	rc |= sqlite3_bind_int(st, 5, w->vram);
	e = read_bound(w->r, st, rc, "reading samples");
	if (e < 0)
		return e;
	w->st = st;
	return 0;
}

static int next_one(struct read_samples *w, struct read_sample *x)
{
	int e;

	while (w->tier < 3) {
		if (!w->st) {
			e = tier_start(w);
			if (e < 0)
				return e;
		}
		e = read_step(w->r, w->st, "reading samples");
		if (e < 0)
			return e;
		if (e == 0) {
			read_done(w->st);
			w->st = NULL;
			w->tier++;
			continue;
		}
		int64_t stored = sqlite3_column_int64(w->st, TIER_TIME), edge = w->edge[w->tier];
		struct read_sample_key key = {
			.time = stored < edge - 1 ? stored : edge - 1,
			.process_id = w->process_id,
			.resolution = tier_resolution[w->tier],
			.stored = stored,
		};
		/* a coalesced row that began before the window still stands for
		 * the rows of its span inside it */
		/* a coalesced row that began before the window stands for its
		 * rows inside it from the window's start */
		if (key.resolution == RESOLUTION_RAW && key.time < w->since)
			key.time = w->since;
		if (key.time < w->lo || key.time > w->hi)
			continue;
		if (w->have_after && read_sample_key_compare(&key, &w->after) <= 0)
			continue;
		x->process_id = key.process_id;
		x->time = key.time;
		x->resolution = key.resolution;
		x->stored = stored;
		load(w->st, TIER_FIRST_VALUE, x);
		if (x->resolution != RESOLUTION_RAW)
			x->until = x->time;
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ several instances */

/* One statement for any number of instances (a JSON array of ids, read with
 * json_each): the same tiers and edges as above, merged and sorted. */
static const char merged_sql[] =
	"WITH sel (id) AS (SELECT value FROM json_each(?1)),"
	" tiers (id, raw, minute) AS ("
	"  SELECT sel.id,"
	"   coalesce((SELECT min(time) FROM samples WHERE process_id = sel.id AND resolution = 0), ?9),"
	"   coalesce((SELECT min(time) FROM samples WHERE process_id = sel.id AND resolution = 60000), ?9)"
	"  FROM sel),"
	" edge (id, raw, fine) AS MATERIALIZED (SELECT id, raw, min(raw, minute) FROM tiers),"
	" merged AS ("
	"  SELECT s.process_id, max(s.time, ?11) AS t, s.resolution, s.time AS stored" VALUES ", " VRAM_VALUES("?10")
	"  FROM edge CROSS JOIN samples s ON s.process_id = edge.id AND s.resolution = 0"
	"   AND s.time >= coalesce((SELECT max(p.time) FROM samples p WHERE p.process_id = edge.id"
	"    AND p.resolution = 0 AND p.time < ?2), ?2)"
	"   AND s.time <= ?3 AND s.until >= ?2"
	"  UNION ALL"
	"  SELECT s.process_id, min(s.time, edge.raw - 1), s.resolution, s.time" VALUES ", " VRAM_VALUES("?10")
	"  FROM edge CROSS JOIN samples s ON s.process_id = edge.id AND s.resolution = 60000"
	"   AND s.time >= ?2 AND s.time <= ?3 + 60000 AND s.time < edge.raw + 60000"
	"  UNION ALL"
	"  SELECT s.process_id, min(s.time, edge.fine - 1), s.resolution, s.time" VALUES ", " VRAM_VALUES("?10")
	"  FROM edge CROSS JOIN samples s ON s.process_id = edge.id AND s.resolution = 3600000"
	"   AND s.time >= ?2 AND s.time <= ?3 + 3600000 AND s.time < edge.fine + 3600000)"
	" SELECT * FROM merged"
	" WHERE t >= ?2 AND t <= ?3 AND (t, process_id, -resolution, stored) > (?4, ?5, ?6, ?7)"
	" ORDER BY t, process_id, resolution DESC, stored"
	" LIMIT ?8";

/* The rows of several instances: which row, its place in the order, then
 * the values. */
enum merged_column { M_PROCESS_ID, M_TIME, M_RESOLUTION, M_STORED, M_FIRST_VALUE };
static const struct read_column merged_columns[] = {
	[M_PROCESS_ID] = { "process_id", READ_KEY },
	[M_TIME] = { "t", READ_KEY },
	[M_RESOLUTION] = { "resolution", READ_KEY },
	[M_STORED] = { "stored", READ_KEY },
	VALUE_COLUMNS,
};
static const struct read_query merged_query = READ_QUERY(RS_SAMPLES, merged_sql, merged_columns);

static int start_merged(struct read_samples *w, const struct read_process *p, size_t n, unsigned limit)
{
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_process_ids(p, n, &w->ids);
	if (e < 0)
		return e;
	e = read_query_prepare(w->r, &merged_query, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_text(st, 1, w->ids, -1, SQLITE_STATIC);
	rc |= sqlite3_bind_int64(st, 2, w->lo);
	rc |= sqlite3_bind_int64(st, 3, w->hi);
	if (w->have_after) {
		rc |= sqlite3_bind_int64(st, 4, w->after.time);
		rc |= sqlite3_bind_int64(st, 5, w->after.process_id);
		rc |= sqlite3_bind_int64(st, 6, -w->after.resolution);
		rc |= sqlite3_bind_int64(st, 7, w->after.stored);
	} else {
		rc |= sqlite3_bind_int64(st, 4, READ_TIME_MIN);
		rc |= sqlite3_bind_int64(st, 5, 0);
		rc |= sqlite3_bind_int64(st, 6, 0);
		rc |= sqlite3_bind_int64(st, 7, 0);
	}
	rc |= sqlite3_bind_int64(st, 8, limit > 0 ? (int64_t)limit : -1);
	/* no tier: its first row is after anything a request can ask */
	rc |= sqlite3_bind_int64(st, 9, READ_TIME_MAX);
	rc |= sqlite3_bind_int(st, 10, w->vram);
	rc |= sqlite3_bind_int64(st, 11, w->since);
	e = read_bound(w->r, st, rc, "reading samples");
	if (e < 0)
		return e;
	w->st = st;
	return 0;
}

static int next_merged(struct read_samples *w, struct read_sample *x)
{
	int e = read_step(w->r, w->st, "reading samples");

	if (e <= 0)
		return e;
	x->process_id = sqlite3_column_int64(w->st, M_PROCESS_ID);
	x->time = sqlite3_column_int64(w->st, M_TIME);
	x->resolution = sqlite3_column_int64(w->st, M_RESOLUTION);
	x->stored = sqlite3_column_int64(w->st, M_STORED);
	load(w->st, M_FIRST_VALUE, x);
	if (x->resolution != RESOLUTION_RAW)
		x->until = x->time;
	return 1;
}

/* ------------------------------------------------------------ either */

int read_samples_start(struct store_reader *r, const struct read_process *p, size_t n, int64_t lo, int64_t hi,
		       const struct read_sample_key *after, unsigned limit, struct read_samples *w)
{
	int e;

	*w = (struct read_samples){ .r = r, .one = n == 1, .lo = read_time_clamp(lo), .hi = read_time_clamp(hi) };
	w->since = w->lo;
	if (after) {
		w->have_after = true;
		w->after = *after;
		/* rows before the cursor's time cannot come after it */
		if (w->lo < after->time)
			w->lo = read_time_clamp(after->time);
	}
	if (n == 0) {
		w->tier = 3;
		w->one = true;
		return 0;
	}
	e = any_vram(w, p, n);
	if (e >= 0 && w->one) {
		w->process_id = p->id;
		e = edges(w);
	} else if (e >= 0) {
		e = start_merged(w, p, n, limit);
	}
	if (e < 0)
		read_samples_done(w);
	return e;
}

int read_samples_next(struct read_samples *w, struct read_sample *x)
{
	return w->one ? next_one(w, x) : next_merged(w, x);
}

void read_samples_done(struct read_samples *w)
{
	read_done(w->st);
	w->st = NULL;
	free(w->ids);
	w->ids = NULL;
}
