/* ramwatch top's rows: read from the daemon's answers, ordered, filtered, grouped,
 * and their bars and sparklines.  Pure (top-model.h). */
#include "top-model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "classes.h"
#include "macro.h"
#include "render-answer.h"
#include "text.h"
#include "util.h"

static const char *const sort_names[_TOP_SORT_MAX] = {
	[TOP_SORT_PRIVATE] = "private", [TOP_SORT_RESIDENT] = "resident", [TOP_SORT_PEAK] = "peak",
	[TOP_SORT_GROWTH] = "growth",   [TOP_SORT_VRAM] = "vram",
};

int top_sort_from_name(const char *name)
{
	for (int i = 0; i < _TOP_SORT_MAX; i++)
		if (name && streq(name, sort_names[i]))
			return i;
	return -1;
}

const char *top_sort_name(enum top_sort s)
{
	return (unsigned)s < _TOP_SORT_MAX ? sort_names[s] : "?";
}

static const char *const group_names[_TOP_GROUP_MAX] = {
	[TOP_GROUP_NONE] = "none",
	[TOP_GROUP_CGROUP] = "cgroup",
	[TOP_GROUP_UNIT] = "unit",
};

int top_group_from_name(const char *name)
{
	for (int i = 0; i < _TOP_GROUP_MAX; i++)
		if (name && streq(name, group_names[i]))
			return i;
	return -1;
}

const char *top_group_name(enum top_group_by by)
{
	return (unsigned)by < _TOP_GROUP_MAX ? group_names[by] : "?";
}

_Static_assert(_CLASS_MAX <= TOP_CLASSES_MAX, "a census's classes fit a row");

/* The class's glyph and colour (classes.h). */
struct top_class_look top_class_look(const char *key)
{
	int c = class_from_key(key);
	if (c < 0)
		return (struct top_class_look){ '?', CLASS_TERM_WHITE };
	return (struct top_class_look){ class_glyph((enum class_id)c), (int)class_term_colour((enum class_id)c) };
}

/* ---------------------------------------------------------------- reading answers */

/* A text of the daemon's as the terminal may show it (control characters
 * escaped), cut to max bytes at a character boundary. */
static void visible_into(char *buf, size_t max, const char *s)
{
	_cleanup_free_ char *v = s ? text_visible(s, strlen(s)) : NULL;
	buf[0] = '\0';
	if (v)
		(void)text_clean_into(buf, max, v, strlen(v));
}

static void census_of(struct top_row *r, const json_t *c)
{
	int64_t v;
	if (!json_is_object(c) || !answer_int(c, "census_id", &r->census_id))
		return;
	r->census_time = answer_int(c, "time", &v) ? v : -1;
	snprintf(r->census_trigger, sizeof(r->census_trigger), "%s", answer_str(c, "trigger") ?: "?");
	snprintf(r->census_status, sizeof(r->census_status), "%s", answer_str(c, "status") ?: "?");
}

int top_rows_parse(const json_t *answer, struct top_row **ret, size_t *ret_n)
{
	const json_t *list = json_object_get(answer, "processes"), *p;
	_cleanup_free_ struct top_row *rows = NULL;
	size_t i, n = 0;
	int64_t v;

	if (!json_is_array(list))
		return -EBADMSG;
	if (!(rows = calloc(json_array_size(list) + 1, sizeof(*rows))))
		return -ENOMEM;
	json_array_foreach(list, i, p) {
		struct top_row *r = &rows[n];
		int64_t pid, private;

		if (!json_is_true(json_object_get(p, "watched")))
			continue;
		if (!answer_int(p, "pid", &pid) || pid <= 0 || pid > INT32_MAX || !answer_int(p, "private", &private) ||
		    private < 0)
			return -EBADMSG;
		*r = (struct top_row){ .pid = (int)pid, .private = (uint64_t)private, .uid = -1, .first_seen = -1 };
		(void)answer_int(p, "process_id", &r->process_id);
		(void)answer_int(p, "uid", &r->uid);
		(void)answer_int(p, "first_seen", &r->first_seen);
		if (answer_int(p, "resident", &v) && v >= 0)
			r->resident = (uint64_t)v;
		if (answer_int(p, "peak_private", &v) && v >= 0)
			r->peak_private = (uint64_t)v;
		if (answer_int(p, "vram", &v) && v >= 0) {
			r->have_vram = true;
			r->vram = (uint64_t)v;
		}
		visible_into(r->user, TOP_NAME_MAX, answer_str(p, "user"));
		visible_into(r->comm, TOP_NAME_MAX, answer_str(p, "comm") ?: "?");
		const char *cmdline = answer_str(p, "cmdline");
		visible_into(r->command, TOP_COMMAND_MAX, cmdline && cmdline[0] ? cmdline : r->comm);
		if ((r->have_cgroup = answer_str(p, "cgroup")))
			visible_into(r->cgroup, TOP_GROUP_NAME_MAX, answer_str(p, "cgroup"));
		if ((r->have_unit = answer_str(p, "unit")))
			visible_into(r->unit, TOP_GROUP_NAME_MAX, answer_str(p, "unit"));
		census_of(r, json_object_get(p, "last_census"));
		n++;
	}
	*ret = TAKE_PTR(rows);
	*ret_n = n;
	return 0;
}

static int cmp_old(const void *x, const void *y)
{
	const struct top_row *const *a = x, *const *b = y;
	return (*a)->process_id < (*b)->process_id ? -1 : (*a)->process_id > (*b)->process_id;
}

void top_rows_carry(struct top_row *rows, size_t n, const struct top_row *old, size_t n_old)
{
	_cleanup_free_ const struct top_row **sorted = n_old ? calloc(n_old, sizeof(*sorted)) : NULL;

	if (!sorted)
		return; /* nothing to carry, or no memory: the next reads fill them */
	for (size_t i = 0; i < n_old; i++)
		sorted[i] = &old[i];
	qsort(sorted, n_old, sizeof(*sorted), cmp_old);
	for (size_t i = 0; i < n; i++) {
		struct top_row *r = &rows[i], key = { .process_id = r->process_id };
		const struct top_row *k = &key, **found;

		if (r->process_id == 0)
			continue;
		found = bsearch(&k, sorted, n_old, sizeof(*sorted), cmp_old);
		if (!found)
			continue;
		r->classes_census_id = (*found)->classes_census_id;
		r->classes_time = (*found)->classes_time;
		r->n_classes = (*found)->n_classes;
		memcpy(r->classes, (*found)->classes, sizeof(r->classes));
		r->have_in_use = (*found)->have_in_use;
		r->in_use = (*found)->in_use;
		r->free = (*found)->free;
		r->in_use_time = (*found)->in_use_time;
		memcpy(r->spark, (*found)->spark, sizeof(r->spark));
		memcpy(r->spark_known, (*found)->spark_known, sizeof(r->spark_known));
		r->have_start = (*found)->have_start;
		r->start_private = (*found)->start_private;
		r->have_growth = (*found)->have_growth;
		r->growth = (*found)->growth;
		if (r->have_start)
			r->growth = (int64_t)r->private - (int64_t)r->start_private;
		else if (r->have_growth) {
			/* the window's start is as read; now is this refresh's */
			for (size_t j = 0; j < TOP_SPARK_POINTS; j++)
				if (r->spark_known[j]) {
					r->growth = (int64_t)r->private - (int64_t)r->spark[j];
					break;
				}
		}
	}
}

void top_row_take_history(struct top_row *row, const json_t *history, int64_t since, int64_t step_ms)
{
	const json_t *samples = json_object_get(history, "samples"), *s;
	size_t i;

	memset(row->spark_known, 0, sizeof(row->spark_known));
	row->have_growth = false;
	if (step_ms <= 0)
		return;
	json_array_foreach(samples, i, s) {
		int64_t t, private, id;
		if (row->process_id && answer_int(s, "process_id", &id) && id != row->process_id)
			continue;
		if (!answer_int(s, "time", &t) || !answer_int(s, "private", &private) || private < 0 || t <= since)
			continue;
		int64_t b = (t - since - 1) / step_ms;
		if (b >= (int64_t)TOP_SPARK_POINTS)
			b = TOP_SPARK_POINTS - 1; /* a row of now, past the last bucket's end */
		/* rows come in time order: the last of a bucket is its value */
		row->spark[b] = (uint64_t)private;
		row->spark_known[b] = true;
	}
	for (i = 0; i < TOP_SPARK_POINTS; i++)
		if (row->spark_known[i]) {
			row->have_growth = true;
			row->growth = (int64_t)row->private - (int64_t)row->spark[i];
			break;
		}
	if (row->have_start) {
		row->have_growth = true;
		row->growth = (int64_t)row->private - (int64_t)row->start_private;
	}
}

void top_row_take_start(struct top_row *row, const json_t *history)
{
	const json_t *samples = json_object_get(history, "samples"), *s;
	size_t i;

	row->have_start = false;
	json_array_foreach(samples, i, s) {
		int64_t private, id;
		if (row->process_id && answer_int(s, "process_id", &id) && id != row->process_id)
			continue;
		if (!answer_int(s, "private", &private) || private < 0)
			continue;
		row->have_start = true;
		row->start_private = (uint64_t)private;
		row->have_growth = true;
		row->growth = (int64_t)row->private - private;
		return;
	}
}

static int cmp_share(const void *x, const void *y)
{
	const struct top_class_share *a = x, *b = y;
	if (a->private != b->private)
		return a->private > b->private ? -1 : 1;
	return strcmp(a->key, b->key);
}

int top_row_take_census(struct top_row *row, const json_t *history)
{
	const json_t *censuses = json_object_get(history, "censuses"), *c, *last = NULL;
	size_t i;

	json_array_foreach(censuses, i, c) {
		int64_t id;
		if (row->process_id && answer_int(c, "process_id", &id) && id != row->process_id)
			continue;
		if (streq_ptr(answer_str(c, "status"), "ok") && json_is_object(json_object_get(c, "classes")))
			last = c;
	}
	if (!last)
		return -ENOENT;

	const char *key;
	const json_t *v;
	size_t n = 0;
	struct top_class_share before[TOP_CLASSES_MAX];
	size_t n_before = row->n_classes;
	bool fresh = false;
	memcpy(before, row->classes, sizeof(before));
	json_object_foreach((json_t *)json_object_get(last, "classes"), key, v) {
		int64_t private, in_use, free_kept;
		struct top_class_share *s = &row->classes[n];
		if (n >= TOP_CLASSES_MAX)
			break;
		if (!answer_int(v, "private", &private) || private < 0)
			private = 0; /* a light census: the class is there, its memory not known */
		*s = (struct top_class_share){ .private = (uint64_t)private };
		snprintf(s->key, sizeof(s->key), "%s", key);
		if (answer_int(v, "in_use", &in_use) && answer_int(v, "free", &free_kept) && in_use >= 0 &&
		    free_kept >= 0) {
			s->have_in_use = true;
			s->in_use = (uint64_t)in_use;
			s->free = (uint64_t)free_kept;
			fresh = true;
		}
		n++;
	}
	/* where this census read no allocator, the last figures read stand */
	for (size_t j = 0; !fresh && j < n; j++)
		for (size_t k = 0; k < n_before; k++)
			if (before[k].have_in_use && streq(before[k].key, row->classes[j].key)) {
				row->classes[j].have_in_use = true;
				row->classes[j].in_use = before[k].in_use;
				row->classes[j].free = before[k].free;
			}
	qsort(row->classes, n, sizeof(row->classes[0]), cmp_share);
	row->n_classes = n;
	row->have_in_use = false;
	row->in_use = row->free = 0;
	for (size_t j = 0; j < n; j++)
		if (row->classes[j].have_in_use) {
			row->have_in_use = true;
			row->in_use += row->classes[j].in_use;
			row->free += row->classes[j].free;
		}
	(void)answer_int(last, "census_id", &row->classes_census_id);
	if (!answer_int(last, "time", &row->classes_time))
		row->classes_time = -1;
	if (fresh)
		row->in_use_time = row->classes_time;
	else if (!row->have_in_use)
		row->in_use_time = -1;
	return 0;
}

/* ---------------------------------------------------------------- order */

bool top_row_matches(const struct top_row *row, const char *name, const char *user)
{
	if (name && name[0] && !strcasestr(row->comm, name) && !strcasestr(row->command, name))
		return false;
	if (user && user[0]) {
		char uid[24];
		snprintf(uid, sizeof(uid), "%" PRId64, row->uid);
		if (!streq(user, row->user) && !streq(user, uid))
			return false;
	}
	return true;
}

/* The row's value for key, and whether it has one. */
static bool sort_value(const struct top_row *r, enum top_sort key, int64_t *ret)
{
	switch (key) {
	case TOP_SORT_PRIVATE: *ret = (int64_t)r->private; return true;
	case TOP_SORT_RESIDENT: *ret = (int64_t)r->resident; return true;
	case TOP_SORT_PEAK: *ret = (int64_t)r->peak_private; return true;
	case TOP_SORT_GROWTH: *ret = r->growth; return r->have_growth;
	case TOP_SORT_VRAM: *ret = (int64_t)r->vram; return r->have_vram;
	default: *ret = 0; return false;
	}
}

struct order_ctx {
	const struct top_row *rows;
	enum top_sort key;
};

static int cmp_order(const void *x, const void *y, void *data)
{
	const struct order_ctx *o = data;
	const struct top_row *a = &o->rows[*(const size_t *)x], *b = &o->rows[*(const size_t *)y];
	int64_t va, vb;
	bool ka = sort_value(a, o->key, &va), kb = sort_value(b, o->key, &vb);

	if (ka != kb)
		return ka ? -1 : 1;
	if (ka && va != vb)
		return va > vb ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

size_t top_order(const struct top_row *rows, size_t n, enum top_sort key, const char *name, const char *user,
		 size_t *ret_order)
{
	struct order_ctx o = { rows, key };
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (top_row_matches(&rows[i], name, user))
			ret_order[m++] = i;
	qsort_r(ret_order, m, sizeof(*ret_order), cmp_order, &o);
	return m;
}

/* ---------------------------------------------------------------- groups */

static const char *group_of(const struct top_row *r, enum top_group_by by)
{
	if (by == TOP_GROUP_CGROUP)
		return r->have_cgroup ? r->cgroup : NULL;
	if (by == TOP_GROUP_UNIT)
		return r->have_unit ? r->unit : NULL;
	return NULL;
}

/* Names in order, the unknown (NULL) last. */
static int cmp_name(const char *a, const char *b)
{
	if (!a || !b)
		return !a - !b;
	return strcmp(a, b);
}

struct group_ctx {
	const struct top_row *rows;
	const size_t *order;
	enum top_group_by by;
};

/* Positions in the order: by group name, then as they were. */
static int cmp_member(const void *x, const void *y, void *data)
{
	const struct group_ctx *g = data;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = cmp_name(group_of(&g->rows[g->order[a]], g->by), group_of(&g->rows[g->order[b]], g->by));
	return c ? c : (a > b) - (a < b);
}

/* Groups: the largest sum of the key first, a group without one last. */
static int cmp_group(const void *x, const void *y, void *data)
{
	const struct top_group *all = data, *a = &all[*(const size_t *)x], *b = &all[*(const size_t *)y];
	if (a->have_key != b->have_key)
		return a->have_key ? -1 : 1;
	if (a->have_key && a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return cmp_name(a->name, b->name);
}

int top_group_order(const struct top_row *rows, size_t *order, size_t n_order, enum top_group_by by, enum top_sort key,
		    struct top_group *ret_groups, size_t *ret_n_groups, struct top_line *ret_lines, size_t *ret_n_lines)
{
	_cleanup_free_ size_t *pos = NULL, *start = NULL, *rank = NULL, *was = NULL;
	_cleanup_free_ struct top_group *groups = NULL;
	size_t n_groups = 0, n_lines = 0, m = 0;

	*ret_n_groups = 0;
	for (size_t i = 0; i < n_order; i++)
		ret_lines[i] = (struct top_line){ .at = i };
	*ret_n_lines = n_order;
	if (by == TOP_GROUP_NONE || n_order == 0)
		return 0;
	pos = calloc(n_order, sizeof(*pos));
	start = calloc(n_order, sizeof(*start));
	rank = calloc(n_order, sizeof(*rank));
	was = calloc(n_order, sizeof(*was));
	groups = calloc(n_order, sizeof(*groups));
	if (!pos || !start || !rank || !was || !groups)
		return -ENOMEM;

	/* the positions by group, each group's in the order they had: a run
	 * of one name is a group, starting at start[k] of pos */
	struct group_ctx g = { rows, order, by };
	for (size_t i = 0; i < n_order; i++)
		pos[i] = i;
	qsort_r(pos, n_order, sizeof(*pos), cmp_member, &g);
	for (size_t i = 0; i < n_order; i++) {
		const struct top_row *r = &rows[order[pos[i]]];
		const char *name = group_of(r, by);
		int64_t v;
		if (i == 0 || cmp_name(name, groups[n_groups - 1].name) != 0) {
			start[n_groups] = i;
			groups[n_groups++] = (struct top_group){ .name = name };
		}
		struct top_group *t = &groups[n_groups - 1];
		t->processes++;
		t->private += r->private;
		t->resident += r->resident;
		if (r->have_vram) {
			t->have_vram = true;
			t->vram += r->vram;
		}
		if (sort_value(r, key, &v)) {
			t->have_key = true;
			t->key += v;
		}
	}
	for (size_t k = 0; k < n_groups; k++)
		rank[k] = k;
	qsort_r(rank, n_groups, sizeof(*rank), cmp_group, groups);

	memcpy(was, order, n_order * sizeof(*order));
	for (size_t j = 0; j < n_groups; j++) {
		size_t k = rank[j];
		ret_groups[j] = groups[k];
		ret_lines[n_lines++] = (struct top_line){ .header = true, .at = j };
		for (size_t i = start[k]; i < start[k] + groups[k].processes; i++) {
			order[m] = was[pos[i]];
			ret_lines[n_lines++] = (struct top_line){ .at = m++ };
		}
	}
	*ret_n_groups = n_groups;
	*ret_n_lines = n_lines;
	return 0;
}

size_t top_line_of(const struct top_line *lines, size_t n, size_t pos)
{
	for (size_t i = 0; i < n; i++)
		if (!lines[i].header && lines[i].at == pos)
			return i;
	return n;
}

size_t top_history_pick(const struct top_row *rows, size_t n, const size_t *order, size_t n_order, size_t *ret,
			size_t max)
{
	_cleanup_free_ size_t *by_private = n ? calloc(n, sizeof(*by_private)) : NULL;
	_cleanup_free_ bool *picked = n ? calloc(n, sizeof(*picked)) : NULL;
	size_t m = 0, k;

	if (!by_private || !picked)
		return 0;
	if (max > TOP_HISTORY_MAX)
		max = TOP_HISTORY_MAX;
	k = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, by_private);
	if (k > max)
		k = max;
	/* the largest are the candidates; those on screen among them first */
	for (size_t i = 0; i < k; i++)
		picked[by_private[i]] = true;
	for (size_t i = 0; i < n_order && m < max; i++)
		if (order[i] < n && picked[order[i]]) {
			ret[m++] = order[i];
			picked[order[i]] = false;
		}
	for (size_t i = 0; i < k && m < max; i++)
		if (picked[by_private[i]])
			ret[m++] = by_private[i];
	return m;
}

/* ---------------------------------------------------------------- drawing, as values */

unsigned top_bar_length(uint64_t private, uint64_t biggest, unsigned width)
{
	if (private == 0 || biggest == 0 || width == 0)
		return 0;
	if (private >= biggest)
		return width;
	/* in long double: sizes near 2^64 times a width would overflow */
	unsigned cells = (unsigned)((long double)private * width / (long double)biggest + 0.5L);
	return cells ? cells : 1;
}

unsigned top_bar_split(const struct top_class_share *classes, size_t n, unsigned length, unsigned *ret_cells)
{
	long double total = 0;
	unsigned given = 0;

	for (size_t i = 0; i < n; i++) {
		total += (long double)classes[i].private;
		ret_cells[i] = 0;
	}
	if (total <= 0 || length == 0)
		return 0;
	/* whole cells first, then one more to the largest remainders; ties go
	 * to the earlier (larger) class */
	long double rest[TOP_CLASSES_MAX] = { 0 };
	for (size_t i = 0; i < n && i < TOP_CLASSES_MAX; i++) {
		long double exact = (long double)classes[i].private * length / total;
		ret_cells[i] = (unsigned)exact;
		rest[i] = exact - ret_cells[i];
		given += ret_cells[i];
	}
	while (given < length) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < n && i < TOP_CLASSES_MAX; i++)
			if (rest[i] > 0 && (best == SIZE_MAX || rest[i] > rest[best]))
				best = i;
		if (best == SIZE_MAX)
			break;
		ret_cells[best]++;
		rest[best] = 0;
		given++;
	}
	return given;
}

size_t top_sparkline(const uint64_t *points, const bool *known, size_t n, bool ascii, char *buf, size_t size)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
					       "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char plain[] = "_.-~=+*#";
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t len = 0;

	if (size == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (known[i]) {
			lo = points[i] < lo ? points[i] : lo;
			hi = points[i] > hi ? points[i] : hi;
		}
	for (size_t i = 0; i < n; i++) {
		unsigned level = 0;
		if (known[i] && hi > lo)
			level = (unsigned)((long double)(points[i] - lo) * 7 / (long double)(hi - lo) + 0.5L);
		const char *g = !known[i] ? " " : ascii ? (char[2]){ plain[level], 0 } : blocks[level];
		size_t gl = strlen(g);
		if (len + gl + 1 > size)
			break;
		memcpy(buf + len, g, gl);
		len += gl;
	}
	buf[len] = '\0';
	return len;
}

bool top_system_line(const json_t *status, char *buf, size_t size)
{
	const json_t *s = json_object_get(status, "system"), *p;
	char total[FORMAT_BYTES_MAX], avail[FORMAT_BYTES_MAX], swap[FORMAT_BYTES_MAX], swap_total[FORMAT_BYTES_MAX];
	int64_t t, a, st, sf;

	if (!json_is_object(s) || !answer_int(s, "mem_total", &t) || !answer_int(s, "mem_available", &a) || t <= 0 ||
	    a < 0) {
		snprintf(buf, size, "machine: ramwatchd does not tell the machine's memory");
		return false;
	}
	int n = snprintf(buf, size, "machine: %s total, %s available (%.0f%%)", format_bytes(total, (uint64_t)t),
			 format_bytes(avail, (uint64_t)a), 100.0 * (double)a / (double)t);
	if (n < 0 || (size_t)n >= size)
		return true;
	if (answer_int(s, "swap_total", &st) && answer_int(s, "swap_free", &sf) && st > 0)
		n += snprintf(buf + n, size - (size_t)n, ", swap %s free of %s", format_bytes(swap, (uint64_t)sf),
			      format_bytes(swap_total, (uint64_t)st));
	if (n < 0 || (size_t)n >= size)
		return true;
	p = json_object_get(s, "pressure");
	if (json_is_object(p))
		snprintf(buf + n, size - (size_t)n, ", pressure some %.2f%% full %.2f%% (10 s)",
			 json_number_value(json_object_get(p, "some_avg10")),
			 json_number_value(json_object_get(p, "full_avg10")));
	else
		snprintf(buf + n, size - (size_t)n, ", pressure unknown (no PSI)");
	return true;
}
