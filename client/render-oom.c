/* The oom, cgroups and cgroup_history answers for people (tables) and for
 * programs (CSV; JSON is the answer itself), and the end of a report of
 * a process the kernel killed for memory: its kill and the census before
 * its death.  Pure: JSON in, text out. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "macro.h"
#include "table.h"
#include "text.h"
#include "timeparse.h"
#include "units.h"
#include "util.h"

/* A cell of text from the answer, "-" when unknown. */
static const char *text_or_dash(const json_t *o, const char *key)
{
	const char *s = answer_str(o, key);
	return s && s[0] ? s : "-";
}

/* How a CSV column is written: an integer, a time (unix seconds), text. */
enum csv_kind { CSV_INT, CSV_TIME, CSV_TEXT };

struct csv_column {
	const char *name;   /* its header */
	const char *object; /* NULL: the row; else the row's object at this key */
	const char *key;
	enum csv_kind kind;
};

static void csv_header(FILE *f, const struct csv_column *cols, size_t n)
{
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s%s", k ? "," : "", cols[k].name);
	fputc('\n', f);
}

static void csv_row(FILE *f, const json_t *row, const struct csv_column *cols, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const json_t *o = cols[k].object ? json_object_get(row, cols[k].object) : row;
		int64_t v = 0;
		bool known = answer_int(o, cols[k].key, &v);

		if (k)
			fputc(',', f);
		switch (cols[k].kind) {
		case CSV_INT:
			if (known)
				fprintf(f, "%" PRId64, v);
			break;
		case CSV_TIME:
			answer_csv_time(f, known, v);
			break;
		case CSV_TEXT:
			text_csv_write_cstr(f, answer_str(o, cols[k].key));
			break;
		}
	}
	fputc('\n', f);
}

/* list (an array of objects) as CSV: the header, a row each.  Returns 0
 * or -EIO. */
static int csv_list(FILE *f, const json_t *list, const struct csv_column *cols, size_t n)
{
	const json_t *row;
	size_t i;

	csv_header(f, cols, n);
	json_array_foreach(list, i, row)
		csv_row(f, row, cols, n);
	return ferror(f) ? -EIO : 0;
}

/* ------------------------------------------------------------ oom */

static const struct csv_column oom_columns[] = {
	{ "time", NULL, "time", CSV_TIME },
	{ "pid", NULL, "pid", CSV_INT },
	{ "comm", NULL, "comm", CSV_TEXT },
	{ "uid", NULL, "uid", CSV_INT },
	{ "constraint", NULL, "constraint", CSV_TEXT },
	{ "cgroup", NULL, "cgroup", CSV_TEXT },
	{ "limit_cgroup", NULL, "limit_cgroup", CSV_TEXT },
	{ "limit", NULL, "limit", CSV_INT },
	{ "usage", NULL, "usage", CSV_INT },
	{ "total_vm", "kernel", "total_vm", CSV_INT },
	{ "anon_rss", "kernel", "anon_rss", CSV_INT },
	{ "file_rss", "kernel", "file_rss", CSV_INT },
	{ "shmem_rss", "kernel", "shmem_rss", CSV_INT },
	{ "pgtables", "kernel", "pgtables", CSV_INT },
	{ "oom_score_adj", "kernel", "oom_score_adj", CSV_INT },
	{ "census_id", "census", "id", CSV_INT },
	{ "census_time", "census", "time", CSV_TIME },
	{ "census_private", "census", "private", CSV_INT },
};

/* "2026-11-29T14:00:01 (180 MiB private)" of a kill's census, or "-". */
static const char *census_cell(char *buf, size_t size, const json_t *k)
{
	char when[TIMEPARSE_FORMAT_MAX], b[FORMAT_BYTES_MAX];
	const json_t *c = json_object_get(k, "census");

	if (!json_is_object(c))
		return "-";
	snprintf(buf, size, "%s (%s private)", answer_time(when, c, "time"), answer_bytes(b, c, "private"));
	return buf;
}

/* "limit": the group whose limit was hit, or the kind of OOM. */
static const char *limit_cell(char *buf, size_t size, const json_t *k)
{
	const char *constraint = answer_str(k, "constraint"), *group = answer_str(k, "limit_cgroup");

	if (constraint && streq(constraint, "none"))
		return "the machine";
	if (group)
		return group;
	if (constraint) {
		snprintf(buf, size, "(%s)", constraint);
		return buf;
	}
	return "-";
}

static int oom_table(const json_t *list, FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("TIME", ">PID", "COMM", ">UID", "LIMIT OF", ">LIMIT",
							    ">USAGE", ">ANON RSS", "LAST CENSUS", NULL);
	char when[TIMEPARSE_FORMAT_MAX], a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
	char cell[160], lim[64];
	const json_t *k;
	size_t i;
	int64_t v;

	if (!t)
		return -ENOMEM;
	json_array_foreach(list, i, k) {
		table_add(t, answer_time(when, k, "time"));
		if (answer_int(k, "pid", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
		table_add(t, answer_str(k, "comm") ? answer_str(k, "comm") : "(counted only)");
		if (answer_int(k, "uid", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
		table_add(t, limit_cell(lim, sizeof(lim), k));
		table_add(t, answer_bytes(a, k, "limit"));
		table_add(t, answer_bytes(b, k, "usage"));
		table_add(t, answer_bytes(c, json_object_get(k, "kernel"), "anon_rss"));
		table_add(t, census_cell(cell, sizeof(cell), k));
	}
	if (table_rows(t) == 0) {
		fputs("no OOM kills\n", f);
		return ferror(f) ? -EIO : 0;
	}
	return table_print(t, f);
}

int render_oom(const json_t *answer, enum answer_format format, FILE *f)
{
	const json_t *list = json_object_get(answer, "kills");
	int r;

	if (!json_is_array(list))
		return -EBADMSG;
	if (format == ANSWER_JSON) {
		/* the kills, and nothing of the answer's bookkeeping */
		json_t *out = json_pack("{s:O}", "kills", list);
		if (!out)
			return -ENOMEM;
		r = answer_print_json(out, f);
		json_decref(out);
		return r;
	}
	if (format != ANSWER_CSV)
		return oom_table(list, f);
	return csv_list(f, list, oom_columns, ELEMENTSOF(oom_columns));
}

/* ------------------------------------------------------------ cgroups */

static const struct csv_column cgroup_columns[] = {
	{ "cgroup_id", NULL, "cgroup_id", CSV_INT },
	{ "path", NULL, "path", CSV_TEXT },
	{ "unit", NULL, "unit", CSV_TEXT },
	{ "version", NULL, "version", CSV_INT },
	{ "time", NULL, "time", CSV_TIME },
	{ "usage", NULL, "usage", CSV_INT },
	{ "limit", NULL, "limit", CSV_INT },
	{ "high", NULL, "high", CSV_INT },
	{ "headroom", NULL, "headroom", CSV_INT },
	{ "growth_per_s", NULL, "growth_per_s", CSV_INT },
	{ "time_to_limit_ms", NULL, "time_to_limit_ms", CSV_INT },
	{ "swap", NULL, "swap", CSV_INT },
	{ "anon", NULL, "anon", CSV_INT },
	{ "file", NULL, "file", CSV_INT },
	{ "kernel", NULL, "kernel", CSV_INT },
	{ "shmem", NULL, "shmem", CSV_INT },
	{ "sock", NULL, "sock", CSV_INT },
	{ "oom", NULL, "oom", CSV_INT },
	{ "oom_kill", NULL, "oom_kill", CSV_INT },
	{ "processes", NULL, "processes", CSV_INT },
	{ "processes_private", NULL, "processes_private", CSV_INT },
	{ "beyond_processes", NULL, "beyond_processes", CSV_INT },
};

/* "2h 30min", "at the limit", or "-" (no limit, not growing). */
static const char *eta_cell(char *buf, size_t size, const json_t *g)
{
	int64_t ms;

	if (!answer_int(g, "time_to_limit_ms", &ms))
		return "-";
	if (ms <= 0)
		return "at the limit";
	/* whole seconds under an hour, whole minutes above: an estimate */
	uint64_t unit = ms >= 3600000 ? 60000 : 1000;
	uint64_t rounded = ((uint64_t)ms + unit / 2) / unit * unit;
	if (size < UNITS_FORMAT_MAX)
		return "?";
	return units_format_duration(buf, (rounded ? rounded : unit) * 1000);
}

static int cgroups_table(const json_t *list, FILE *f)
{
	_cleanup_(table_freep) struct table *t =
		table_new("CGROUP", ">USAGE", ">LIMIT", ">HEADROOM", ">BEYOND PROCESSES", ">GROWTH/S", "TIME TO LIMIT",
			  ">OOM KILLS", NULL);
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX], cell[64];
	const json_t *g;
	size_t i;
	int64_t v;

	if (!t)
		return -ENOMEM;
	json_array_foreach(list, i, g) {
		const char *unit = answer_str(g, "unit"), *path = answer_str(g, "path");
		/* the unit names a service; a container's or a slice's path is
		 * its name */
		if (unit && path && !strstr(path, ".slice/") && strcmp(unit, path + 1) != 0)
			table_addf(t, "%s (%s)", unit, path);
		else
			table_add(t, unit ? unit : text_or_dash(g, "path"));
		table_add(t, answer_bytes(a, g, "usage"));
		table_add(t, answer_int(g, "limit", &v) ? answer_bytes(b, g, "limit") : "none");
		table_add(t, answer_bytes(c, g, "headroom"));
		table_add(t, answer_bytes(d, g, "beyond_processes"));
		if (answer_int(g, "growth_per_s", &v))
			table_add(t, format_bytes_delta(a, v));
		else
			table_add(t, "-");
		table_add(t, eta_cell(cell, sizeof(cell), g));
		if (answer_int(g, "oom_kill", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
	}
	if (table_rows(t) == 0) {
		fputs("no memory cgroups stored\n", f);
		return ferror(f) ? -EIO : 0;
	}
	return table_print(t, f);
}

int render_cgroups(const json_t *answer, enum answer_format format, FILE *f)
{
	const json_t *list = json_object_get(answer, "cgroups");

	if (!json_is_array(list))
		return -EBADMSG;
	if (format == ANSWER_JSON)
		return answer_print_json(answer, f);
	if (format != ANSWER_CSV)
		return cgroups_table(list, f);
	return csv_list(f, list, cgroup_columns, ELEMENTSOF(cgroup_columns));
}

/* ------------------------------------------------------------ a cgroup's timeline */

static const struct csv_column row_columns[] = {
	{ "cgroup_id", NULL, "cgroup_id", CSV_INT },
	{ "time", NULL, "time", CSV_TIME },
	{ "resolution", NULL, "resolution", CSV_INT },
	{ "usage", NULL, "usage", CSV_INT },
	{ "usage_max", NULL, "usage_max", CSV_INT },
	{ "limit", NULL, "limit", CSV_INT },
	{ "high", NULL, "high", CSV_INT },
	{ "headroom", NULL, "headroom", CSV_INT },
	{ "swap", NULL, "swap", CSV_INT },
	{ "anon", NULL, "anon", CSV_INT },
	{ "file", NULL, "file", CSV_INT },
	{ "kernel", NULL, "kernel", CSV_INT },
	{ "shmem", NULL, "shmem", CSV_INT },
	{ "sock", NULL, "sock", CSV_INT },
	{ "oom", NULL, "oom", CSV_INT },
	{ "oom_kill", NULL, "oom_kill", CSV_INT },
	{ "processes", NULL, "processes", CSV_INT },
	{ "processes_private", NULL, "processes_private", CSV_INT },
	{ "beyond_processes", NULL, "beyond_processes", CSV_INT },
};

/* The group of id among the answer's groups, by its unit or path. */
static const char *group_name(const json_t *groups, int64_t id)
{
	const json_t *g;
	size_t i;
	int64_t v;

	json_array_foreach(groups, i, g)
		if (answer_int(g, "cgroup_id", &v) && v == id)
			return answer_str(g, "unit") ? answer_str(g, "unit") : text_or_dash(g, "path");
	return "-";
}

int render_cgroup_history(const json_t *answer, enum answer_format format, FILE *f)
{
	const json_t *rows = json_object_get(answer, "samples"), *groups = json_object_get(answer, "cgroups"), *x;
	char when[TIMEPARSE_FORMAT_MAX], a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
	char d[FORMAT_BYTES_MAX], e[FORMAT_BYTES_MAX], g[FORMAT_BYTES_MAX];
	size_t i;
	int64_t v;

	if (!json_is_array(rows) || !json_is_array(groups))
		return -EBADMSG;
	if (format == ANSWER_JSON)
		return answer_print_json(answer, f);
	if (format == ANSWER_CSV)
		return csv_list(f, rows, row_columns, ELEMENTSOF(row_columns));
	bool several = json_array_size(groups) > 1;
	_cleanup_(table_freep) struct table *t =
		several ? table_new("TIME", "CGROUP", ">USAGE", ">LIMIT", ">HEADROOM", ">ANON", ">FILE", ">KERNEL",
				    ">BEYOND PROCESSES", ">OOM KILLS", NULL)
			: table_new("TIME", ">USAGE", ">LIMIT", ">HEADROOM", ">ANON", ">FILE", ">KERNEL",
				    ">BEYOND PROCESSES", ">OOM KILLS", NULL);
	if (!t)
		return -ENOMEM;
	json_array_foreach(rows, i, x) {
		table_add(t, answer_time(when, x, "time"));
		if (several)
			table_add(t, group_name(groups, answer_int(x, "cgroup_id", &v) ? v : 0));
		table_add(t, answer_bytes(a, x, "usage"));
		table_add(t, answer_int(x, "limit", &v) ? answer_bytes(b, x, "limit") : "none");
		table_add(t, answer_bytes(c, x, "headroom"));
		table_add(t, answer_bytes(d, x, "anon"));
		table_add(t, answer_bytes(e, x, "file"));
		table_add(t, answer_bytes(g, x, "kernel"));
		table_add(t, answer_bytes(a, x, "beyond_processes"));
		if (answer_int(x, "oom_kill", &v))
			table_addf(t, "%" PRId64, v);
		else
			table_add(t, "-");
	}
	if (table_rows(t) == 0) {
		fputs("no rows in that time\n", f);
		return ferror(f) ? -EIO : 0;
	}
	if (json_is_true(json_object_get(answer, "truncated")))
		fputs("(the rows end early: narrow the time range)\n", stderr);
	return table_print(t, f);
}

/* ------------------------------------------------------------ a report's end */

/* The trigger of census id among the report's trend (every census of the
 * process), or NULL. */
static const char *trend_trigger(const json_t *report, int64_t id)
{
	const json_t *e;
	int64_t v;
	size_t i;

	json_array_foreach(json_object_get(report, "trend"), i, e)
		if (answer_int(e, "census_id", &v) && v == id)
			return answer_str(e, "trigger");
	return NULL;
}

void render_report_oom_kill(const json_t *report, FILE *f)
{
	char when[TIMEPARSE_FORMAT_MAX], a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
	char d[FORMAT_BYTES_MAX];
	const json_t *k = json_object_get(report, "oom_kill"), *kernel, *census, *x;
	const char *constraint, *group;
	size_t i;

	if (!json_is_object(k))
		return;
	constraint = answer_str(k, "constraint");
	group = answer_str(k, "limit_cgroup");
	fprintf(f, "## Killed for memory\n\n");
	fprintf(f, "The kernel killed it at %s", answer_time(when, k, "time"));
	if (constraint && streq(constraint, "none"))
		fputs(": the machine ran out of memory", f);
	else if (group)
		fprintf(f, " at the memory limit of cgroup `%s`: %s used of %s", group, answer_bytes(a, k, "usage"),
			answer_bytes(b, k, "limit"));
	else if (constraint)
		fprintf(f, " (constraint %s)", constraint);
	fputs(".  \n", f);
	if (answer_str(k, "cgroup") && (!group || !streq(group, answer_str(k, "cgroup"))))
		fprintf(f, "Its own cgroup: `%s`  \n", answer_str(k, "cgroup"));
	kernel = json_object_get(k, "kernel");
	if (json_is_object(kernel))
		fprintf(f, "The kernel's figures: anonymous %s, file %s, shared %s resident; %s of address space.  \n",
			answer_bytes(a, kernel, "anon_rss"), answer_bytes(b, kernel, "file_rss"),
			answer_bytes(c, kernel, "shmem_rss"), answer_bytes(d, kernel, "total_vm"));
	census = json_object_get(k, "census");
	if (!json_is_object(census)) {
		fputs("\nNo census was taken before it died.\n\n", f);
		return;
	}
	int64_t id = 0;
	const char *trigger = answer_int(census, "id", &id) ? trend_trigger(report, id) : NULL;
	fprintf(f, "\nIts last census before it died, at %s%s: %s private.\n\n", answer_time(when, census, "time"),
		trigger && streq(trigger, "limit")
			? (group ? ", taken as its group neared its memory limit" : ", taken as the host's memory ran short")
			: "",
		answer_bytes(a, census, "private"));
	_cleanup_(table_freep) struct table *t = table_new("Class", ">Private", ">Resident", ">Swap", NULL);
	if (!t)
		return;
	json_array_foreach(json_object_get(census, "classes"), i, x) {
		table_add(t, text_or_dash(x, "class"));
		table_add(t, answer_bytes(a, x, "private"));
		table_add(t, answer_bytes(b, x, "resident"));
		table_add(t, answer_bytes(c, x, "swap"));
	}
	if (table_rows(t) > 0)
		table_print_markdown(t, f);
	fputc('\n', f);
}
