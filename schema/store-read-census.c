/* A stored census read back as a struct census and given in the JSON form
 * of `ramwatch scan --json` (census_to_json), so the client renders and
 * compares it as it does a census it took itself; and the "census" answer.
 *
 * What the store does not keep is given as unknown (null), not as zero
 * (ramwatch-schema(7), NOT STORED): the largest regions' inodes and the
 * census's source; and what a census stored before the store kept it
 * lacks: the status counters other than private, resident and peak
 * resident before schema 7, the totals' locked and hugetlb (and confirmed,
 * where its classes do not give it) and four figures of the cost before
 * schema 11 (struct census's unknown counters, and -1).  A light census's
 * counters per class, region and file are not known either; the census
 * JSON form says so with "light": true. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "census-json.h"
#include "census.h"
#include "store-read-internal.h"
#include "text.h"

DEFINE_CLEANUP(struct census *, census_free)

static int dup_into(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = read_utf8_valid(src, strlen(src)) ? strdup(src) : text_clean(src, strlen(src), true, NULL);
	return *dst ? 0 : -ENOMEM;
}

/* What census_to_json writes as zero but the store does not know becomes
 * null; the private counter (kept only as the sum RssAnon + VmSwap) is
 * set as stored. */
static int unknowns(json_t *o, int64_t counter_private)
{
	json_t *counters = json_object_get(o, "counters");
	json_t *largest = json_object_get(o, "largest"), *x;
	size_t i;
	int e;

	e = read_set(counters, "private", json_field_int_or_null(counter_private));
	json_array_foreach(largest, i, x)
		e |= read_set(x, "inode", json_null());
	return e;
}

int read_census_json(struct store_reader *r, const struct read_process *p, int64_t census_id, json_t **ret)
{
	_cleanup_(census_freep) struct census *c = census_new();
	json_t *meta = NULL, *o = NULL;
	int64_t counter_private = -1;
	int e;

	if (!c)
		return -ENOMEM;
	c->pid = p->pid;
	c->start_time = p->start_time;
	c->uid = p->uid;
	e = dup_into(&c->boot_id, p->boot_id);
	e |= dup_into(&c->comm, p->comm);
	e |= dup_into(&c->cmdline, p->cmdline);
	e |= dup_into(&c->exe, p->exe);
	if (e >= 0)
		e = read_census_load(r, census_id, c, &counter_private, &meta);
	if (e >= 0) {
		o = census_to_json(c, false);
		e = o ? unknowns(o, counter_private) : -ENOMEM;
		e |= read_set(o, "census_id", json_integer(census_id));
		e |= json_object_update(o, meta) < 0 ? -ENOMEM : 0;
	}
	json_decref(meta);
	if (e < 0) {
		json_decref(o);
		return e;
	}
	*ret = o;
	return 0;
}

/* The newest ok census of process id taken at or before at, or with at
 * STORE_CENSUS_FIRST the oldest.  Returns 1 with *ret_id and *ret_time, 0
 * when there is none, or a negative errno. */
static int census_at(struct store_reader *r, int64_t id, int64_t at, int64_t *ret_id, int64_t *ret_time)
{
	static const struct read_column columns[] = { { "id", READ_KEY }, { "time", READ_KEY } };
	static const struct read_query at_or_before = READ_QUERY(
		RS_CENSUS_AT,
		"SELECT id, time FROM censuses WHERE process_id = ?1 AND time <= ?2 AND status = 'ok'"
		" ORDER BY time DESC, id DESC LIMIT 1",
		columns);
	static const struct read_query first = READ_QUERY(
		RS_CENSUS_FIRST,
		"SELECT id, time FROM censuses WHERE process_id = ?1 AND status = 'ok'"
		" ORDER BY time, id LIMIT 1",
		columns);
	sqlite3_stmt *st = NULL;
	int e, rc;

	e = read_query_prepare(r, at == STORE_CENSUS_FIRST ? &first : &at_or_before, &st);
	if (e < 0)
		return e;
	rc = sqlite3_bind_int64(st, 1, id);
	if (at != STORE_CENSUS_FIRST)
		rc |= sqlite3_bind_int64(st, 2, at);
	e = read_bound(r, st, rc, "finding a census");
	if (e < 0)
		return e;
	e = read_step(r, st, "finding a census");
	if (e > 0) {
		*ret_id = sqlite3_column_int64(st, 0);
		*ret_time = sqlite3_column_int64(st, 1);
	}
	read_done(st);
	return e;
}

int read_last_census(struct store_reader *r, int64_t process_id, int64_t *ret_id, int64_t *ret_time)
{
	return census_at(r, process_id, INT64_MAX, ret_id, ret_time);
}

static int census(struct store_reader *r, const struct store_select *sel, int64_t at, json_t **ret)
{
	struct read_process *p = NULL;
	size_t n = 0;
	int64_t id, time;
	int e;

	e = read_select(r, sel, true, &p, &n);
	if (e < 0)
		return e;
	e = census_at(r, p->id, at, &id, &time);
	if (e == 0) {
		if (at == INT64_MAX || at == STORE_CENSUS_FIRST)
			e = read_failf(r, -ENOENT, "no census of process %d (%s) in the store", p->pid,
				       p->comm ? p->comm : "?");
		else
			e = read_failf(r, -ENOENT, "no census of process %d (%s) at or before %lld", p->pid,
				       p->comm ? p->comm : "?", (long long)at);
	}
	if (e > 0)
		e = read_census_json(r, p, id, ret);
	read_processes_free(p, n);
	return e;
}

int store_read_census(struct store_reader *r, const struct store_select *sel, int64_t at, json_t **ret, struct error *err)
{
	int e = read_begin(r);

	if (e >= 0)
		e = census(r, sel, at, ret);
	return read_end(r, e < 0 ? e : 0, err);
}
