/* Merging the watched processes with the store's record of processes.
 *
 * Up to RW_TARGETS_MAX live processes meet up to RW_ANSWER_ROWS_MAX stored
 * ones, so matching goes through sorted indexes, not pairs. */
#include "control-processes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup-unit.h"
#include "control-answer.h"
#include "control-request.h"
#include "json-field.h"
#include "macro.h"
#include "util.h"

void control_live_set_free(void *userdata)
{
	struct control_live_set *set = userdata;
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++) {
		free(set->p[i].boot_id);
		free(set->p[i].comm);
		free(set->p[i].exe);
		free(set->p[i].cmdline);
		free(set->p[i].cgroup);
		free(set->p[i].memcg);
	}
	free(set->p);
	free(set);
}

/* The stored entries by (process_id) and by (pid, start_time). */
struct key {
	int64_t a, b;
	size_t index;
};

static int key_cmp(const void *x, const void *y)
{
	const struct key *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return 0;
}

static struct key *key_find(struct key *keys, size_t n, int64_t a, int64_t b)
{
	struct key probe = { .a = a, .b = b };
	if (n == 0)
		return NULL;
	return bsearch(&probe, keys, n, sizeof(*keys), key_cmp);
}

/* The stored entry of the same instance: same pid and start time (found
 * in by_pid) and the same boot, as a start time counts from the boot. */
static struct key *instance_find(const json_t *stored, struct key *by_pid, size_t n, const struct control_live *l)
{
	struct key *k = key_find(by_pid, n, l->pid, l->start_time);
	if (!k)
		return NULL;
	while (k > by_pid && key_cmp(k - 1, k) == 0)
		k--;
	for (; k < by_pid + n && k->a == l->pid && k->b == l->start_time; k++) {
		const char *boot = json_string_value(json_object_get(json_array_get(stored, k->index), "boot_id"));
		if (!boot || !l->boot_id || streq(boot, l->boot_id))
			return k;
	}
	return NULL;
}

/* What sorting needs of an entry of the answer. */
struct row {
	json_t *entry;
	bool watched;
	int64_t value; /* the sort key */
	int pid;
	size_t order;  /* the store's order, for the processes not watched */
};

static int row_cmp(const void *x, const void *y)
{
	const struct row *p = x, *q = y;
	if (p->watched != q->watched)
		return p->watched ? -1 : 1;
	if (p->watched) {
		if (p->value != q->value)
			return p->value > q->value ? -1 : 1;
		return p->pid < q->pid ? -1 : p->pid > q->pid;
	}
	return p->order < q->order ? -1 : p->order > q->order;
}

static const char *sort_key(const char *sort)
{
	if (sort && streq(sort, "resident"))
		return "resident";
	if (sort && streq(sort, "peak"))
		return "peak_private";
	if (sort && streq(sort, "vram"))
		return "vram";
	return "private";
}

static int set_int(json_t *o, const char *key, int64_t v)
{
	return json_object_set_new(o, key, json_field_int_or_null(v));
}

static json_t *unref_json(json_t *j)
{
	json_decref(j);
	return NULL;
}

/* "cgroup" and "unit": where a process is, for grouping by either; null
 * where unknown (a process not watched now: the store keeps no cgroup).
 * The cgroup is its memory cgroup, the one whose limit and usage
 * `ramwatch cgroups` shows; the unit is named by the systemd hierarchy
 * (the unified one), else by the memory cgroup's path, as systemd names
 * them alike where it manages the memory controller too. */
static int set_cgroup(json_t *e, const struct control_live *l)
{
	const char *unit = NULL;
	size_t len = l ? cgroup_unit_of_path(l->cgroup, &unit) : 0;

	if (!len && l)
		len = cgroup_unit_of_path(l->memcg, &unit);
	json_t *u = len ? json_stringn(unit, len) : json_null();
	if (!u || json_object_set_new(e, "unit", u) < 0)
		return -ENOMEM;
	return json_object_set_new(e, "cgroup", control_json_string(l ? l->memcg : NULL));
}

int control_process_set_live(json_t *e, const struct control_live *l)
{
	int64_t peak_private = json_field_int_or(e, "peak_private", -1);
	int64_t peak_resident = json_field_int_or(e, "peak_resident", -1);
	int64_t peak_vram = json_field_int_or(e, "peak_vram", -1);
	if (peak_private < (int64_t)l->peak_private)
		peak_private = (int64_t)l->peak_private;
	if (peak_resident < (int64_t)l->peak_resident)
		peak_resident = (int64_t)l->peak_resident;
	if (peak_vram < (int64_t)l->peak_vram)
		peak_vram = (int64_t)l->peak_vram;
	if (json_object_set_new(e, "watched", json_true()) < 0 || set_int(e, "private", (int64_t)l->private) < 0 ||
	    set_int(e, "resident", (int64_t)l->resident) < 0 || set_int(e, "peak_private", peak_private) < 0 ||
	    set_int(e, "peak_resident", peak_resident) < 0 || set_int(e, "vram", l->vram) < 0 ||
	    set_int(e, "peak_vram", peak_vram) < 0 ||
	    (l->last_seen >= 0 && set_int(e, "last_seen", l->last_seen) < 0) ||
	    json_object_set_new(e, "exited_at", json_null()) < 0 || set_cgroup(e, l) < 0)
		return -ENOMEM;
	return 0;
}

/* The live values over a stored entry (a copy). */
static json_t *overlay(const json_t *stored, const struct control_live *l)
{
	json_t *e = json_copy((json_t *)stored);
	if (e && control_process_set_live(e, l) < 0)
		e = unref_json(e);
	return e;
}

/* A watched process the store has not written yet. */
static json_t *from_live(const struct control_live *l)
{
	json_t *e = json_pack("{s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:I, s:I, s:I, s:I, "
			 "s:o, s:I, s:o}",
			 "process_id", json_field_int_or_null(l->process_id > 0 ? l->process_id : -1), "pid", l->pid,
			 "boot_id", control_json_string(l->boot_id), "start_time", json_field_int_or_null(l->start_time),
			 "started_at", json_field_int_or_null(l->started_at), "uid", json_field_int_or_null(l->uid),
			 "user", json_null(), "comm", control_json_string(l->comm), "exe", control_json_string(l->exe),
			 "cmdline", control_json_string(l->cmdline), "watched", 1, "first_seen", json_null(),
			 "last_seen", json_field_int_or_null(l->last_seen), "exited_at", json_null(), "private",
			 (json_int_t)l->private, "resident", (json_int_t)l->resident, "peak_private",
			 (json_int_t)l->peak_private, "peak_resident", (json_int_t)l->peak_resident, "vram",
			 json_field_int_or_null(l->vram), "peak_vram", (json_int_t)l->peak_vram, "last_census",
			 json_null());
	if (e && set_cgroup(e, l) < 0)
		e = unref_json(e);
	return e;
}

/* A few uids cover most processes of a machine: their names are looked up
 * once per answer. */
struct name_cache {
	struct {
		uid_t uid;
		bool known;
		char name[64];
	} e[32];
	size_t n, next;
};

static int fill_user(json_t *e, control_user_name_t user_name, struct name_cache *cache)
{
	const json_t *u = json_object_get(e, "user");
	int64_t uid = json_field_int_or(e, "uid", -1);
	const char *name = NULL;

	if (!user_name || (u && !json_is_null(u)) || uid < 0)
		return 0;
	size_t i;
	for (i = 0; i < cache->n; i++)
		if (cache->e[i].uid == (uid_t)uid)
			break;
	if (i == cache->n) {
		i = cache->n < ELEMENTSOF(cache->e) ? cache->n++ : cache->next++ % ELEMENTSOF(cache->e);
		cache->e[i].uid = (uid_t)uid;
		cache->e[i].known = user_name((uid_t)uid, cache->e[i].name, sizeof(cache->e[i].name)) != NULL;
	}
	if (cache->e[i].known)
		name = cache->e[i].name;
	return json_object_set_new(e, "user", control_json_string(name));
}

int control_processes_merge(const json_t *stored, const struct control_live *live, size_t n_live,
			    const struct control_processes_query *q, control_user_name_t user_name, json_t **ret)
{
	size_t n_stored = json_is_array(stored) ? json_array_size(stored) : 0, n_rows = 0;
	_cleanup_free_ struct key *by_id = calloc(n_stored + 1, sizeof(*by_id));
	_cleanup_free_ struct key *by_pid = calloc(n_stored + 1, sizeof(*by_pid));
	_cleanup_free_ struct row *rows = calloc(n_live + n_stored + 1, sizeof(*rows));
	_cleanup_free_ bool *used = calloc(n_stored + 1, sizeof(*used));
	_cleanup_free_ struct name_cache *cache = calloc(1, sizeof(*cache));
	const char *key = sort_key(q->sort);
	json_t *out = NULL;
	int r = -ENOMEM;

	if (!by_id || !by_pid || !rows || !used || !cache)
		return -ENOMEM;
	for (size_t i = 0; i < n_stored; i++) {
		const json_t *e = json_array_get(stored, i);
		by_id[i] = (struct key){ .a = json_field_int_or(e, "process_id", -1), .index = i };
		by_pid[i] = (struct key){ .a = json_field_int_or(e, "pid", -1),
					  .b = json_field_int_or(e, "start_time", -1),
					  .index = i };
	}
	qsort_safe(by_id, n_stored, sizeof(*by_id), key_cmp);
	qsort_safe(by_pid, n_stored, sizeof(*by_pid), key_cmp);

	for (size_t i = 0; i < n_live; i++) {
		const struct control_live *l = &live[i];
		struct key *k = l->process_id > 0 ? key_find(by_id, n_stored, l->process_id, 0) : NULL;
		if (!k)
			k = instance_find(stored, by_pid, n_stored, l);
		json_t *e = k && !used[k->index] ? overlay(json_array_get(stored, k->index), l) : from_live(l);
		if (!e)
			goto out;
		if (k)
			used[k->index] = true;
		rows[n_rows++] = (struct row){ .entry = e, .watched = true, .value = json_field_int_or(e, key, -1), .pid = l->pid };
	}
	if (q->all)
		for (size_t i = 0; i < n_stored; i++) {
			if (used[i])
				continue;
			json_t *e = json_copy(json_array_get(stored, i));
			if (!e)
				goto out;
			rows[n_rows++] = (struct row){ .entry = e, .order = i };
			if (json_object_set_new(e, "watched", json_false()) < 0 || set_cgroup(e, NULL) < 0)
				goto out;
		}
	qsort_safe(rows, n_rows, sizeof(*rows), row_cmp);

	out = json_array();
	if (!out)
		goto out;
	for (size_t i = 0; i < n_rows && i < q->limit; i++) {
		if (fill_user(rows[i].entry, user_name, cache) < 0 || json_array_append(out, rows[i].entry) < 0)
			goto out;
	}
	*ret = TAKE_PTR(out);
	r = 0;
out:
	json_decref(out);
	for (size_t i = 0; i < n_rows; i++)
		json_decref(rows[i].entry);
	return r;
}
