/* The processes answer for people (a table) and for programs (CSV). */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "macro.h"
#include "table.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

/* The command line for a table cell: at most 100 bytes, cut at a
 * character boundary, "..." when cut. */
static void command_cell(char *buf, size_t size, const json_t *p)
{
	const char *cmdline = answer_str(p, "cmdline"), *comm = answer_str(p, "comm");
	const char *s = cmdline && cmdline[0] ? cmdline : comm ? comm : "?";
	size_t n = strlen(s), max = size - 4 < 100 ? size - 4 : 100;

	if (n <= max) {
		snprintf(buf, size, "%s", s);
		return;
	}
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	snprintf(buf, size, "%.*s...", (int)max, s);
}

static void state_cell(char *buf, size_t size, const json_t *p)
{
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t exited;

	if (answer_int(p, "exited_at", &exited))
		snprintf(buf, size, "exited %s", timeparse_format_local(when, exited));
	else if (json_is_true(json_object_get(p, "watched")))
		snprintf(buf, size, "watched");
	else
		snprintf(buf, size, "not watched");
}

static void census_cell(char *buf, size_t size, const json_t *p)
{
	char when[TIMEPARSE_FORMAT_MAX];
	const json_t *c = json_object_get(p, "last_census");
	const char *trigger = answer_str(c, "trigger"), *status = answer_str(c, "status");

	if (!json_is_object(c)) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(buf, size, "%s (%s%s%s)", answer_time(when, c, "time"), trigger ? trigger : "?",
		 status && !streq(status, "ok") ? ", " : "", status && !streq(status, "ok") ? status : "");
}

/* Whether any process holds GPU memory now or did: then the lists have a
 * column for it, which a host without NVIDIA GPUs never shows. */
static bool any_vram(const json_t *list)
{
	const json_t *p;
	size_t i;
	int64_t v;

	json_array_foreach(list, i, p)
		if (answer_int(p, "vram", &v) || (answer_int(p, "peak_vram", &v) && v > 0))
			return true;
	return false;
}

static int processes_table(const json_t *list, FILE *f)
{
	bool vram = any_vram(list);
	_cleanup_(table_freep) struct table *t =
		vram ? table_new(">PID", "USER", ">PRIVATE", ">RESIDENT", ">PEAK PRIVATE", ">VRAM", "LAST CENSUS", "STATE",
				 "COMMAND", NULL)
		     : table_new(">PID", "USER", ">PRIVATE", ">RESIDENT", ">PEAK PRIVATE", "LAST CENSUS", "STATE",
				 "COMMAND", NULL);
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], cell[160];
	const json_t *p;
	size_t i;
	int64_t v;

	if (!t)
		return -ENOMEM;
	json_array_foreach(list, i, p) {
		const char *user = answer_str(p, "user");
		if (answer_int(p, "pid", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
		if (user)
			table_add(t, user);
		else if (answer_int(p, "uid", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
		table_add(t, answer_bytes(a, p, "private"));
		table_add(t, answer_bytes(b, p, "resident"));
		table_add(t, answer_bytes(c, p, "peak_private"));
		if (vram)
			table_add(t, answer_bytes(a, p, "vram"));
		census_cell(cell, sizeof(cell), p);
		table_add(t, cell);
		state_cell(cell, sizeof(cell), p);
		table_add(t, cell);
		command_cell(cell, sizeof(cell), p);
		table_add(t, cell);
	}
	if (table_rows(t) == 0) {
		fputs("no processes\n", f);
		return ferror(f) ? -EIO : 0;
	}
	return table_print(t, f);
}

/* The columns of `ramwatch processes --format csv`, in order: the value
 * of key in the process (or in its last census), and its kind. */
enum csv_kind { CSV_INT, CSV_TIME, CSV_TEXT, CSV_BOOL };

static const struct csv_column {
	const char *name, *key;
	enum csv_kind kind;
	bool of_census; /* in the process's "last_census" */
	bool vram;      /* only when some process holds GPU memory */
} processes_columns[] = {
	{ "process_id", "process_id", CSV_INT, false, false },
	{ "pid", "pid", CSV_INT, false, false },
	{ "uid", "uid", CSV_INT, false, false },
	{ "user", "user", CSV_TEXT, false, false },
	{ "comm", "comm", CSV_TEXT, false, false },
	{ "watched", "watched", CSV_BOOL, false, false },
	{ "first_seen", "first_seen", CSV_TIME, false, false },
	{ "last_seen", "last_seen", CSV_TIME, false, false },
	{ "exited_at", "exited_at", CSV_TIME, false, false },
	{ "private", "private", CSV_INT, false, false },
	{ "resident", "resident", CSV_INT, false, false },
	{ "peak_private", "peak_private", CSV_INT, false, false },
	{ "peak_resident", "peak_resident", CSV_INT, false, false },
	{ "vram", "vram", CSV_INT, false, true },
	{ "peak_vram", "peak_vram", CSV_INT, false, true },
	{ "last_census_time", "time", CSV_TIME, true, false },
	{ "last_census_trigger", "trigger", CSV_TEXT, true, false },
	{ "cmdline", "cmdline", CSV_TEXT, false, false },
	/* last, so that the columns before keep their places */
	{ "cgroup", "cgroup", CSV_TEXT, false, false },
	{ "unit", "unit", CSV_TEXT, false, false },
};

static void csv_value(FILE *f, const json_t *o, const struct csv_column *col)
{
	int64_t v = 0;
	bool known;

	switch (col->kind) {
	case CSV_INT:
		if (answer_int(o, col->key, &v))
			fprintf(f, "%" PRId64, v);
		break;
	case CSV_TIME:
		known = answer_int(o, col->key, &v);
		answer_csv_time(f, known, v);
		break;
	case CSV_TEXT:
		text_csv_write_cstr(f, answer_str(o, col->key));
		break;
	case CSV_BOOL:
		fputs(json_is_true(json_object_get(o, col->key)) ? "true" : "false", f);
		break;
	}
}

static int processes_csv(const json_t *list, FILE *f)
{
	bool vram = any_vram(list);
	const char *sep = "";
	const json_t *p;
	size_t i;

	for (size_t k = 0; k < ELEMENTSOF(processes_columns); k++)
		if (vram || !processes_columns[k].vram) {
			fprintf(f, "%s%s", sep, processes_columns[k].name);
			sep = ",";
		}
	fputc('\n', f);
	json_array_foreach(list, i, p) {
		const json_t *census = json_object_get(p, "last_census");
		sep = "";
		for (size_t k = 0; k < ELEMENTSOF(processes_columns); k++) {
			const struct csv_column *col = &processes_columns[k];
			if (col->vram && !vram)
				continue;
			fputs(sep, f);
			csv_value(f, col->of_census ? census : p, col);
			sep = ",";
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ by cgroup or unit */

/* A group's entry of the "groups" array: its name (by's key: null for the
 * processes whose group is unknown), how many processes, the sums of
 * their private and resident memory and VRAM, and their pids, largest
 * first (the processes answer comes sorted). */
static json_t *group_new(const char *by, const char *name)
{
	return json_pack("{s:s?, s:i, s:I, s:I, s:I, s:[]}", by, name, "processes", 0, "private", (json_int_t)0,
			 "resident", (json_int_t)0, "vram", (json_int_t)0, "pids");
}

static int group_add(json_t *g, const json_t *p)
{
	static const char *const sums[] = { "private", "resident", "vram" };
	int64_t v;

	for (size_t k = 0; k < ELEMENTSOF(sums); k++)
		if (answer_int(p, sums[k], &v) &&
		    json_object_set_new(g, sums[k], json_integer(json_integer_value(json_object_get(g, sums[k])) + v)) < 0)
			return -ENOMEM;
	if (json_object_set_new(g, "processes", json_integer(json_integer_value(json_object_get(g, "processes")) + 1)) < 0)
		return -ENOMEM;
	if (answer_int(p, "pid", &v) && json_array_append_new(json_object_get(g, "pids"), json_integer(v)) < 0)
		return -ENOMEM;
	return 0;
}

static int group_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t px = json_integer_value(json_object_get(x, "private")),
		   py = json_integer_value(json_object_get(y, "private"));
	return px > py ? -1 : px < py;
}

/* The groups of list by key ("cgroup" or "unit"), largest private first,
 * as a new array in *ret.  Returns 0 or -ENOMEM. */
static int group_processes(const json_t *list, const char *by, json_t **ret)
{
	_cleanup_(json_decrefp) json_t *index = json_object(), *unknown = NULL;
	_cleanup_free_ json_t **all = calloc(json_array_size(list) + 1, sizeof(*all));
	size_t i, n = 0;
	const json_t *p;

	if (!index || !all)
		return -ENOMEM;
	json_array_foreach(list, i, p) {
		const char *name = answer_str(p, by);
		json_t *g = name ? json_object_get(index, name) : unknown;
		if (!g) {
			if (!(g = group_new(by, name)))
				return -ENOMEM;
			if (name ? json_object_set_new(index, name, g) < 0 : !(unknown = g))
				return -ENOMEM;
			all[n++] = g;
		}
		if (group_add(g, p) < 0)
			return -ENOMEM;
	}
	qsort_safe(all, n, sizeof(*all), group_cmp);
	_cleanup_(json_decrefp) json_t *out = json_array();
	if (!out)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (json_array_append(out, all[i]) < 0)
			return -ENOMEM;
	*ret = TAKE_PTR(out);
	return 0;
}

static int groups_table(const json_t *groups, const char *by, bool vram, FILE *f)
{
	_cleanup_(table_freep) struct table *t =
		vram ? table_new(streq(by, "unit") ? "UNIT" : "CGROUP", ">PROCESSES", ">PRIVATE", ">RESIDENT", ">VRAM",
				 "PIDS", NULL)
		     : table_new(streq(by, "unit") ? "UNIT" : "CGROUP", ">PROCESSES", ">PRIVATE", ">RESIDENT", "PIDS",
				 NULL);
	char a[FORMAT_BYTES_MAX], cell[160];
	const json_t *g, *pid;
	size_t i, k;

	if (!t)
		return -ENOMEM;
	json_array_foreach(groups, i, g) {
		const char *name = answer_str(g, by);
		size_t used = 0;
		table_add(t, name ? name : "(unknown)");
		table_addf(t, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(g, "processes")));
		table_add(t, answer_bytes(a, g, "private"));
		table_add(t, answer_bytes(a, g, "resident"));
		if (vram)
			table_add(t, answer_bytes(a, g, "vram"));
		cell[0] = '\0';
		json_array_foreach(json_object_get(g, "pids"), k, pid) {
			/* the largest few: the cell stays readable */
			int w = snprintf(cell + used, sizeof(cell) - used, "%s%" JSON_INTEGER_FORMAT, k ? " " : "",
					 json_integer_value(pid));
			if (k == 8 || w < 0 || (size_t)w >= sizeof(cell) - used - 4) {
				snprintf(cell + used, sizeof(cell) - used, " ...");
				break;
			}
			used += (size_t)w;
		}
		table_add(t, cell);
	}
	if (table_rows(t) == 0) {
		fputs("no processes\n", f);
		return ferror(f) ? -EIO : 0;
	}
	return table_print(t, f);
}

static int groups_csv(const json_t *groups, const char *by, FILE *f)
{
	const json_t *g;
	size_t i;

	fprintf(f, "%s,processes,private,resident,vram\n", by);
	json_array_foreach(groups, i, g) {
		text_csv_write_cstr(f, answer_str(g, by));
		fprintf(f, ",%" JSON_INTEGER_FORMAT ",%" JSON_INTEGER_FORMAT ",%" JSON_INTEGER_FORMAT ",%" JSON_INTEGER_FORMAT "\n",
			json_integer_value(json_object_get(g, "processes")), json_integer_value(json_object_get(g, "private")),
			json_integer_value(json_object_get(g, "resident")), json_integer_value(json_object_get(g, "vram")));
	}
	return ferror(f) ? -EIO : 0;
}

int render_process_groups(const json_t *answer, const char *by, enum answer_format format, FILE *f)
{
	const json_t *list = json_object_get(answer, "processes");
	_cleanup_(json_decrefp) json_t *groups = NULL;
	int r;

	if (!json_is_array(list))
		return -EBADMSG;
	if ((r = group_processes(list, by, &groups)) < 0)
		return r;
	if (format == ANSWER_CSV)
		return groups_csv(groups, by, f);
	if (format == ANSWER_JSON) {
		_cleanup_(json_decrefp) json_t *out = json_pack("{s:s, s:O}", "by", by, "groups", groups);
		return out ? answer_print_json(out, f) : -ENOMEM;
	}
	return groups_table(groups, by, any_vram(list), f);
}

int render_processes(const json_t *answer, enum answer_format format, FILE *f)
{
	const json_t *list = json_object_get(answer, "processes");

	if (!json_is_array(list))
		return -EBADMSG;
	if (format == ANSWER_CSV)
		return processes_csv(list, f);
	if (format == ANSWER_JSON)
		return answer_print_json(answer, f);
	return processes_table(list, f);
}
