/* The "report" answer for one instance: the process, its peaks, its phases
 * (cut by marks), its last census in full, the trend of every census, what
 * changed since the ok census before the last, and for each allocator
 * class whether its growth is held by the program or kept by its
 * allocator (store-read-heap.c), and how it ended when the kernel killed
 * it for memory (its OOM kill, with the census before its death).
 *
 * The peaks and phases come from one walk of the instance's merged fast
 * tier (read_samples_start): at the default settings a day of raw rows
 * and a week of minute rows, some 17,000 rows read in index order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store-read-internal.h"

/* The report's name for the phase before the first mark. */
#define PHASE_START_NAME "(start)"

struct phase {
	char *name; /* NULL: PHASE_START_NAME */
	int64_t start, end;
	bool any;   /* it holds at least one row */
	int64_t peak_private, peak_time, peak_resident;
	int64_t peak_vram; /* -1: no GPU memory in the phase */
	int64_t private_at_start, private_at_end;
};

struct peaks {
	bool any;
	int64_t private, time, resident, resident_time;
	int64_t vram, vram_time; /* -1: no GPU memory rows */
};

static void phases_free(struct phase *ph, size_t n)
{
	for (size_t i = 0; ph && i < n; i++)
		free(ph[i].name);
	free(ph);
}

/* The phases of p: "(start)" from its first sight unless a mark is there
 * already, then one from each mark.  Ends are set by the caller once the
 * last row is known.  Returns 0 with *ret and *ret_n or a negative errno. */
static int load_phases(struct store_reader *r, const struct read_process *p, struct phase **ret, size_t *ret_n)
{
	static const struct read_column columns[] = { { "time", READ_KEY }, { "name", READ_KEY } };
	static const struct read_query q =
		READ_QUERY(RS_MARKS, "SELECT time, name FROM marks WHERE process_id = ?1 ORDER BY time, id", columns);
	sqlite3_stmt *st = NULL;
	struct phase *ph = NULL;
	size_t n = 0, allocated = 0;
	int e;

	e = read_query_prepare(r, &q, &st);
	if (e < 0)
		return e;
	e = read_bound(r, st, sqlite3_bind_int64(st, 1, p->id), "reading marks");
	while (e >= 0 && (e = read_step(r, st, "reading marks")) > 0) {
		int64_t time = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		if (n + 2 > allocated) {
			size_t more = allocated ? 2 * allocated : 8;
			struct phase *grown = realloc(ph, more * sizeof(*ph));
			if (!grown) {
				e = -ENOMEM;
				break;
			}
			ph = grown;
			allocated = more;
		}
		if (n == 0 && time > p->first_seen)
			ph[n++] = (struct phase){ .start = p->first_seen };
		ph[n] = (struct phase){ .start = time, .name = strdup(name ? name : "") };
		if (!ph[n].name) {
			e = -ENOMEM;
			break;
		}
		n++;
	}
	read_done(st);
	if (e >= 0 && n == 0) {
		ph = calloc(1, sizeof(*ph));
		if (!ph)
			e = -ENOMEM;
		else
			ph[n++] = (struct phase){ .start = p->first_seen };
	}
	if (e < 0) {
		phases_free(ph, n);
		return e;
	}
	*ret = ph;
	*ret_n = n;
	return 0;
}

static void account(struct phase *ph, const struct read_sample *x)
{
	if (!ph->any || x->private_max > ph->peak_private) {
		ph->peak_private = x->private_max;
		ph->peak_time = x->time;
	}
	if (!ph->any || x->resident_max > ph->peak_resident)
		ph->peak_resident = x->resident_max;
	if (!ph->any || x->vram_max > ph->peak_vram)
		ph->peak_vram = x->vram_max;
	if (!ph->any)
		ph->private_at_start = x->private_last;
	ph->private_at_end = x->private_last;
	ph->any = true;
}

/* Walks the whole merged fast tier of p once: the peaks overall and per
 * phase, and the time of the last row (-1 when there is none). */
static int walk(struct store_reader *r, const struct read_process *p, struct phase *ph, size_t n,
		struct peaks *peaks, int64_t *ret_last)
{
	struct read_samples w;
	struct read_sample x;
	size_t k = 0;
	int e;

	*ret_last = -1;
	peaks->vram = peaks->vram_time = -1;
	e = read_samples_start(r, p, 1, READ_TIME_MIN, READ_TIME_MAX, NULL, 0, &w);
	if (e < 0)
		return e;
	while ((e = read_samples_next(&w, &x)) > 0) {
		/* a row belongs to the phase its interval ends in; a coalesced
		 * row's values held over its whole span, so it belongs to every
		 * phase the span reaches, from the phase's start on */
		while (k + 1 < n && x.time >= ph[k + 1].start)
			k++;
		account(&ph[k], &x);
		while (k + 1 < n && x.until >= ph[k + 1].start) {
			struct read_sample y = x;
			k++;
			y.time = ph[k].start;
			account(&ph[k], &y);
		}
		if (!peaks->any || x.private_max > peaks->private) {
			peaks->private = x.private_max;
			peaks->time = x.time;
		}
		if (!peaks->any || x.resident_max > peaks->resident) {
			peaks->resident = x.resident_max;
			peaks->resident_time = x.time;
		}
		if (x.vram_max > peaks->vram) {
			peaks->vram = x.vram_max;
			peaks->vram_time = x.time;
		}
		peaks->any = true;
		*ret_last = x.until;
	}
	read_samples_done(&w);
	return e < 0 ? e : 0;
}

static json_t *peaks_json(const struct peaks *pk)
{
	json_t *o = json_object();
	int e;

	if (!o)
		return NULL;
	e = read_set(o, "private", pk->any ? json_integer(pk->private) : json_null());
	e |= read_set(o, "time", pk->any ? json_integer(pk->time) : json_null());
	e |= read_set(o, "resident", pk->any ? json_integer(pk->resident) : json_null());
	e |= read_set(o, "resident_time", pk->any ? json_integer(pk->resident_time) : json_null());
	e |= read_set(o, "vram", json_field_int_or_null(pk->vram));
	e |= read_set(o, "vram_time", json_field_int_or_null(pk->vram_time));
	if (e < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *phases_json(const struct phase *ph, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		const struct phase *x = &ph[i];
		json_t *o = json_object();
		int e = o ? 0 : -ENOMEM;

		e |= read_set(o, "name", json_string(x->name ? x->name : PHASE_START_NAME));
		e |= read_set(o, "start", json_integer(x->start));
		e |= read_set(o, "end", json_integer(x->end));
		e |= read_set(o, "peak_private", x->any ? json_integer(x->peak_private) : json_null());
		e |= read_set(o, "peak_time", x->any ? json_integer(x->peak_time) : json_null());
		e |= read_set(o, "peak_resident", x->any ? json_integer(x->peak_resident) : json_null());
		e |= read_set(o, "peak_vram", x->any ? json_field_int_or_null(x->peak_vram) : json_null());
		e |= read_set(o, "private_at_start", x->any ? json_integer(x->private_at_start) : json_null());
		e |= read_set(o, "private_at_end", x->any ? json_integer(x->private_at_end) : json_null());
		if (e < 0 || json_array_append_new(a, o) < 0) {
			json_decref(o);
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static const struct read_column trend_columns[] = {
	{ "census_id", READ_INT },
	{ "time", READ_INT },
	{ "trigger", READ_STR },
	{ "status", READ_STR },
	{ "private", READ_INT },
	{ "resident", READ_INT },
	{ "vram", READ_INT },
	{ "repeats", READ_INT },
	{ "in_use", READ_INT },
	{ "free", READ_INT },
};
/* a repeat's GPU memory is the repeated census's; its in use and free
 * are copied in its row */
static const struct read_query trend_query =
	READ_QUERY(RS_TREND,
		   "SELECT c.id AS census_id, c.time, c.trigger, c.status, c.private, c.resident,"
		   "  (SELECT sum(g.used) FROM census_gpu g WHERE g.census_id = coalesce(c.repeats, c.id)) AS vram,"
		   "  c.repeats, c.in_use, c.free"
		   " FROM censuses c WHERE c.process_id = ?1 ORDER BY c.time, c.id",
		   trend_columns);

/* Every census of process id, oldest first: the trend. */
static int trend(struct store_reader *r, int64_t id, json_t **ret)
{
	sqlite3_stmt *st = NULL;
	json_t *a = json_array();
	int e;

	if (!a)
		return -ENOMEM;
	e = read_query_prepare(r, &trend_query, &st);
	if (e >= 0)
		e = read_bound(r, st, sqlite3_bind_int64(st, 1, id), "reading censuses");
	if (e >= 0)
		e = read_rows(r, st, &trend_query, 0, a, NULL, NULL, "reading censuses");
	if (e < 0) {
		json_decref(a);
		return e;
	}
	*ret = a;
	return 0;
}

static int report(struct store_reader *r, const struct store_select *sel, json_t **ret)
{
	struct read_process *p = NULL;
	struct phase *ph = NULL;
	struct peaks peaks = { 0 };
	json_t *answer = NULL, *process = NULL, *census = NULL, *trend_list = NULL, *since = NULL, *heap = NULL,
	       *oom_kill = NULL;
	size_t n = 0, n_phases = 0;
	int64_t last_row, census_id, census_time;
	int e;

	e = read_select(r, sel, true, &p, &n);
	if (e < 0)
		return e;
	e = read_process_json(r, p, &process);
	if (e >= 0)
		e = load_phases(r, p, &ph, &n_phases);
	if (e >= 0)
		e = walk(r, p, ph, n_phases, &peaks, &last_row);
	if (e >= 0) {
		/* the last phase ends with the process, or at its last row */
		int64_t end = p->exited_at >= 0 ? p->exited_at : last_row >= 0 ? last_row : p->last_seen;
		for (size_t i = 0; i < n_phases; i++)
			ph[i].end = i + 1 < n_phases ? ph[i + 1].start : end < ph[i].start ? ph[i].start : end;
		e = read_last_census(r, p->id, &census_id, &census_time);
	}
	if (e > 0)
		e = read_census_json(r, p, census_id, &census);
	if (e >= 0) {
		if (!census)
			census = json_null();
		e = trend(r, p->id, &trend_list);
	}
	if (e >= 0) {
		if (json_is_null(census))
			since = json_null();
		else
			e = read_since_previous(r, p->id, census_id, census_time, &since);
	}
	if (e >= 0)
		e = read_heap_report(r, p->id, &heap);
	if (e >= 0)
		e = read_oom_kill_of(r, p->id, &oom_kill);
	if (e >= 0) {
		answer = json_object();
		e = answer ? 0 : -ENOMEM;
		e |= read_set(answer, "process", json_incref(process));
		e |= read_set(answer, "peak", peaks_json(&peaks));
		e |= read_set(answer, "phases", phases_json(ph, n_phases));
		e |= read_set(answer, "last_census", json_incref(census));
		e |= read_set(answer, "trend", json_incref(trend_list));
		e |= read_set(answer, "since_previous", json_incref(since));
		e |= read_set(answer, "in_use_or_kept", json_incref(heap));
		e |= read_set(answer, "oom_kill", json_incref(oom_kill));
	}
	read_processes_free(p, n);
	phases_free(ph, n_phases);
	json_decref(process);
	json_decref(census);
	json_decref(trend_list);
	json_decref(since);
	json_decref(heap);
	json_decref(oom_kill);
	if (e < 0) {
		json_decref(answer);
		return e;
	}
	*ret = answer;
	return 0;
}

int store_read_report(struct store_reader *r, const struct store_select *sel, json_t **ret, struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = report(r, sel, ret);
	return read_end(r, e, err);
}
