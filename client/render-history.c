/* The history answer: per process instance, its timeline as one line per
 * stored sample row, with the censuses (trigger and classes) and the marks
 * on lines of their own where they fall in time; or the same as CSV rows
 * for programs.  GPU memory (VRAM) gets columns of its own where there is
 * any, so that on a host without NVIDIA GPUs nothing changes. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "sample-row.h"
#include "table.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

/* Classes named on a census line when --class does not choose them. */
#define CENSUS_LINE_CLASSES 4

enum line_kind { LINE_MARK, LINE_CENSUS, LINE_SAMPLE }; /* at one time: in this order */

struct line {
	int64_t time;
	enum line_kind kind;
	size_t index; /* in its array: keeps the answer's order among equals */
	const json_t *v;
};

static int cmp_line(const void *x, const void *y)
{
	const struct line *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Whether an element belongs to the instance: by process_id, or, when the
 * answer is about one instance, any element without one. */
static bool belongs(const json_t *v, int64_t process_id, bool single)
{
	int64_t id;
	if (answer_int(v, "process_id", &id))
		return id == process_id;
	return single;
}

/* The lines of one instance, sorted by time. */
static int collect(const json_t *answer, int64_t process_id, bool single, struct line **ret, size_t *ret_n)
{
	static const struct {
		const char *key;
		enum line_kind kind;
	} arrays[] = { { "marks", LINE_MARK }, { "censuses", LINE_CENSUS }, { "samples", LINE_SAMPLE } };
	size_t n = 0, total = 0, i;
	struct line *v;
	const json_t *x;

	for (size_t k = 0; k < ELEMENTSOF(arrays); k++)
		total += json_array_size(json_object_get(answer, arrays[k].key));
	if (!(v = calloc(total ? total : 1, sizeof(*v))))
		return -ENOMEM;
	for (size_t k = 0; k < ELEMENTSOF(arrays); k++)
		json_array_foreach(json_object_get(answer, arrays[k].key), i, x) {
			int64_t t;
			if (!belongs(x, process_id, single) || !answer_int(x, "time", &t))
				continue;
			v[n++] = (struct line){ .time = t, .kind = arrays[k].kind, .index = i, .v = x };
		}
	qsort_safe(v, n, sizeof(*v), cmp_line);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Whether any element of the answer's key array holds a GPU memory figure. */
static bool any_vram(const json_t *answer, const char *key)
{
	const json_t *x;
	size_t i;
	int64_t v;

	json_array_foreach(json_object_get(answer, key), i, x)
		if (answer_int(x, "vram", &v))
			return true;
	return false;
}

/* ---------------------------------------------------------------- census lines */

struct class_entry {
	const char *key;
	const json_t *v;
	int64_t weight;
};

static int cmp_class(const void *x, const void *y)
{
	const struct class_entry *a = x, *b = y;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* Whether any class of any census of the answer knows its memory in use
 * (a heap walk read its allocator). */
static bool any_in_use(const json_t *answer)
{
	const json_t *c, *k;
	const char *key;
	size_t i;
	int64_t v;

	json_array_foreach(json_object_get(answer, "censuses"), i, c)
		json_object_foreach(json_object_get(c, "classes"), key, k)
			if (answer_int(k, "in_use", &v))
				return true;
	return false;
}

/* A class on a census line: "malloc 200 MiB", and where a heap walk read
 * its allocator, " (120 MiB in use)". */
static void census_class(FILE *f, const char *key, const json_t *v, const char *field, bool first)
{
	char a[FORMAT_BYTES_MAX];
	int64_t in_use;

	fprintf(f, "%s%s %s", first ? "" : ", ", key, v ? answer_bytes(a, v, field) : "0 B");
	if (v && answer_int(v, "in_use", &in_use))
		fprintf(f, " (%s in use)", answer_bytes(a, v, "in_use"));
}

/* "python 600 MiB, malloc 200 MiB": the chosen classes, else the largest
 * by private (by size in a light census, whose memory counts are null). */
static void census_classes(FILE *f, const json_t *classes, bool light, const struct history_options *o)
{
	struct class_entry top[64];
	const char *key, *field = light ? "size" : "private";
	const json_t *v;
	size_t n = 0;

	if (o->n_classes > 0) {
		for (size_t i = 0; i < o->n_classes; i++)
			census_class(f, o->classes[i], json_object_get(classes, o->classes[i]), field, i == 0);
		return;
	}
	json_object_foreach((json_t *)classes, key, v) {
		int64_t w = 0;
		answer_int(v, field, &w);
		if (w > 0 && n < ELEMENTSOF(top))
			top[n++] = (struct class_entry){ key, v, w };
	}
	qsort_safe(top, n, sizeof(top[0]), cmp_class);
	for (size_t i = 0; i < n && i < CENSUS_LINE_CLASSES; i++)
		census_class(f, top[i].key, top[i].v, field, i == 0);
	if (n > CENSUS_LINE_CLASSES)
		fprintf(f, ", +%zu more", n - CENSUS_LINE_CLASSES);
}

/* Whether a class of census c knows its memory in use. */
static bool census_in_use(const json_t *c)
{
	const json_t *k;
	const char *key;
	int64_t v;

	json_object_foreach(json_object_get(c, "classes"), key, k)
		if (answer_int(k, "in_use", &v))
			return true;
	return false;
}

/* A census on its line; in_use: other censuses of the answer read memory
 * in use, so one that did not says so. */
static void census_line(FILE *f, const json_t *c, const struct history_options *o, bool in_use)
{
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
	const char *trigger = answer_str(c, "trigger"), *status = answer_str(c, "status");
	const char *message = answer_str(c, "message");
	bool light = json_is_true(json_object_get(c, "light"));
	int64_t id;

	fputs("census", f);
	if (answer_int(c, "census_id", &id))
		fprintf(f, " #%" PRId64, id);
	fprintf(f, " (%s%s)", trigger ? trigger : "?", light ? ", light" : "");
	if (status && !streq(status, "ok")) {
		fprintf(f, ": %s%s%s\n", status, message ? ": " : "", message ? message : "");
		return;
	}
	fprintf(f, ": ");
	int64_t repeats;
	if (answer_int(c, "repeats", &repeats))
		fprintf(f, "unchanged since census #%" PRId64 ", ", repeats);
	fprintf(f, "private %s, resident %s", answer_bytes(a, c, "private"), answer_bytes(b, c, "resident"));
	int64_t vram;
	if (answer_int(c, "vram", &vram))
		fprintf(f, ", VRAM %s", answer_bytes(a, c, "vram"));
	const json_t *classes = json_object_get(c, "classes");
	if (json_is_object(classes) && json_object_size(classes) > 0) {
		fputs(light ? "; by size: " : "; ", f);
		census_classes(f, classes, light, o);
	}
	/* the daemon reads in use at some censuses only (InUseInterval) */
	if (in_use && !light && !census_in_use(c))
		fputs("; in use not read", f);
	fputc('\n', f);
}

/* ---------------------------------------------------------------- table */

static void heading(FILE *f, const json_t *instance)
{
	char when[TIMEPARSE_FORMAT_MAX];
	const char *label = answer_str(instance, "label"), *comm = answer_str(instance, "comm");
	int64_t pid = 0, t;

	if (label)
		fputs(label, f);
	else {
		answer_int(instance, "pid", &pid);
		fprintf(f, "%s [%" PRId64 "]", comm ? comm : "?", pid);
	}
	if (answer_int(instance, "started_at", &t))
		fprintf(f, " started %s", timeparse_format_local(when, t));
	else if (answer_int(instance, "first_seen", &t))
		fprintf(f, " first seen %s", timeparse_format_local(when, t));
	if (answer_int(instance, "exited_at", &t))
		fprintf(f, ", exited %s", timeparse_format_local(when, t));
	fputc('\n', f);
}

/* The sample rows as an aligned table, printed into a buffer so the other
 * lines can go between its rows; with vram, the GPU memory's columns. */
static int sample_table(const struct line *lines, size_t n, bool vram, char **ret, size_t *ret_width)
{
	_cleanup_(table_freep) struct table *t =
		vram ? table_new("TIME", ">PRIVATE", ">PRIVATE MAX", ">RESIDENT", ">RESIDENT MAX", ">VRAM", ">VRAM MAX", NULL)
		     : table_new("TIME", ">PRIVATE", ">PRIVATE MAX", ">RESIDENT", ">RESIDENT MAX", NULL);
	char when[TIMEPARSE_FORMAT_MAX], s[6][FORMAT_BYTES_MAX];
	size_t width = strlen("TIME"), len = 0;
	char *buf = NULL;
	FILE *f;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const json_t *v = lines[i].v;
		if (lines[i].kind != LINE_SAMPLE)
			continue;
		timeparse_format_local(when, lines[i].time);
		if (strlen(when) > width)
			width = strlen(when);
		if (table_add(t, when) < 0 || table_add(t, answer_bytes(s[0], v, "private")) < 0 ||
		    table_add(t, answer_bytes(s[1], v, "private_max")) < 0 ||
		    table_add(t, answer_bytes(s[2], v, "resident")) < 0 ||
		    table_add(t, answer_bytes(s[3], v, "resident_max")) < 0)
			return -ENOMEM;
		if (vram && (table_add(t, answer_bytes(s[4], v, "vram")) < 0 ||
			     table_add(t, answer_bytes(s[5], v, "vram_max")) < 0))
			return -ENOMEM;
	}
	if (!(f = open_memstream(&buf, &len)))
		return -ENOMEM;
	int r = table_print(t, f);
	if (fclose(f) != 0 || r < 0) {
		free(buf);
		return r < 0 ? r : -ENOMEM;
	}
	*ret = buf;
	*ret_width = width;
	return 0;
}

static int instance_table(FILE *f, const struct line *lines, size_t n, const struct history_options *o,
			  bool in_use)
{
	_cleanup_free_ char *table = NULL;
	char when[TIMEPARSE_FORMAT_MAX];
	size_t width, samples = 0;
	bool vram = false;
	const char *row;
	int64_t v;
	int r;

	for (size_t i = 0; i < n && !vram; i++)
		vram = lines[i].kind == LINE_SAMPLE && answer_int(lines[i].v, "vram", &v);
	if ((r = sample_table(lines, n, vram, &table, &width)) < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		samples += lines[i].kind == LINE_SAMPLE;
	row = table;
	if (samples > 0) { /* the header */
		const char *nl = strchr(row, '\n');
		fwrite(row, 1, (size_t)(nl - row) + 1, f);
		row = nl + 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (lines[i].kind == LINE_SAMPLE) {
			const char *nl = strchr(row, '\n');
			fwrite(row, 1, (size_t)(nl - row) + 1, f);
			row = nl + 1;
			continue;
		}
		fprintf(f, "%-*s  ", (int)width, timeparse_format_local(when, lines[i].time));
		if (lines[i].kind == LINE_CENSUS) {
			census_line(f, lines[i].v, o, in_use);
		} else {
			const char *name = answer_str(lines[i].v, "name");
			const char *line = o->decorated ? "──" : "--";
			fprintf(f, "%s mark: %s %s\n", line, name ? name : "?", line);
		}
	}
	if (n == 0)
		fputs("(nothing stored in this time range)\n", f);
	return ferror(f) ? -EIO : 0;
}

/* ---------------------------------------------------------------- CSV */

static void csv_int(FILE *f, const json_t *o, const char *key)
{
	int64_t v;
	fputc(',', f);
	if (answer_int(o, key, &v))
		fprintf(f, "%" PRId64, v);
}

static void csv_head(FILE *f, int64_t time, int64_t process_id, int64_t pid, const char *kind, const char *name,
		     const char *status)
{
	answer_csv_time(f, true, time);
	fprintf(f, ",%" PRId64 ",%" PRId64 ",%s,", process_id, pid, kind);
	text_csv_write_cstr(f, name);
	fputc(',', f);
	text_csv_write_cstr(f, status);
}

static bool class_chosen(const struct history_options *o, const char *key)
{
	if (o->n_classes == 0)
		return true;
	for (size_t i = 0; i < o->n_classes; i++)
		if (streq(o->classes[i], key))
			return true;
	return false;
}

/* The value columns of a line: each counter of SAMPLE_COLUMNS that the
 * CSV has (sample-row.h), then, when the CSV has them, the GPU memory's.
 * A line fills a column with its own value of the same name (a census and
 * a class their private and resident, a census its vram), and leaves the
 * others empty. */
/* The columns a class has where a heap walk read its allocator. */
static const char *const in_use_columns[] = { "in_use", "free", "returnable" };

static void csv_values(FILE *f, const json_t *v, bool vram, bool in_use)
{
	for (size_t k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if (sample_columns[k].csv)
			csv_int(f, v, sample_columns[k].key);
	if (vram) {
		csv_int(f, v, "vram");
		csv_int(f, v, "vram_max");
	}
	for (size_t k = 0; in_use && k < ELEMENTSOF(in_use_columns); k++)
		csv_int(f, v, in_use_columns[k]);
	fputc('\n', f);
}

static void csv_header(FILE *f, bool vram, bool in_use)
{
	fputs("time,process_id,pid,kind,name,status", f);
	for (size_t k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if (sample_columns[k].csv)
			fprintf(f, ",%s", sample_columns[k].key);
	if (vram)
		fputs(",vram,vram_max", f);
	for (size_t k = 0; in_use && k < ELEMENTSOF(in_use_columns); k++)
		fprintf(f, ",%s", in_use_columns[k]);
	fputc('\n', f);
}

static void instance_csv(FILE *f, const struct line *lines, size_t n, int64_t process_id, int64_t pid,
			 const struct history_options *o, bool vram, bool in_use)
{
	for (size_t i = 0; i < n; i++) {
		const json_t *v = lines[i].v, *classes, *c;
		const char *key;
		switch (lines[i].kind) {
		case LINE_SAMPLE:
			csv_head(f, lines[i].time, process_id, pid, "sample", NULL, NULL);
			csv_values(f, v, vram, in_use);
			break;
		case LINE_CENSUS:
			csv_head(f, lines[i].time, process_id, pid, "census", answer_str(v, "trigger"),
				 answer_str(v, "status"));
			csv_values(f, v, vram, in_use);
			classes = json_object_get(v, "classes");
			json_object_foreach((json_t *)classes, key, c) {
				if (!class_chosen(o, key))
					continue;
				csv_head(f, lines[i].time, process_id, pid, "class", key, NULL);
				csv_values(f, c, vram, in_use);
			}
			break;
		case LINE_MARK:
			csv_head(f, lines[i].time, process_id, pid, "mark", answer_str(v, "name"), NULL);
			csv_values(f, v, vram, in_use);
			break;
		}
	}
}

/* ---------------------------------------------------------------- the answer */

struct instance {
	const json_t *v;
	int64_t process_id, pid, since;
};

static int cmp_instance(const void *x, const void *y)
{
	const struct instance *a = x, *b = y;
	if (a->since != b->since)
		return a->since < b->since ? -1 : 1;
	return a->process_id < b->process_id ? -1 : a->process_id > b->process_id;
}

int render_history(const json_t *answer, const struct history_options *o, FILE *f)
{
	const json_t *list = json_object_get(answer, "instances"), *v;
	_cleanup_free_ struct instance *inst = NULL;
	size_t n = 0, i;
	int r = 0;

	if (!json_is_array(list))
		return -EBADMSG;
	if (!(inst = calloc(json_array_size(list) + 1, sizeof(*inst))))
		return -ENOMEM;
	json_array_foreach(list, i, v) {
		struct instance *x = &inst[n++];
		x->v = v;
		answer_int(v, "process_id", &x->process_id);
		answer_int(v, "pid", &x->pid);
		if (!answer_int(v, "started_at", &x->since))
			answer_int(v, "first_seen", &x->since);
	}
	qsort_safe(inst, n, sizeof(*inst), cmp_instance);
	bool vram = any_vram(answer, "samples") || any_vram(answer, "censuses"), in_use = any_in_use(answer);
	if (o->format == ANSWER_CSV)
		csv_header(f, vram, in_use);
	if (n == 0 && o->format != ANSWER_CSV)
		fputs("no process matches\n", f);
	for (i = 0; i < n && r == 0; i++) {
		_cleanup_free_ struct line *lines = NULL;
		size_t n_lines;
		if ((r = collect(answer, inst[i].process_id, n == 1, &lines, &n_lines)) < 0)
			break;
		if (o->format == ANSWER_CSV) {
			instance_csv(f, lines, n_lines, inst[i].process_id, inst[i].pid, o, vram, in_use);
			continue;
		}
		if (i > 0)
			fputc('\n', f);
		heading(f, inst[i].v);
		r = instance_table(f, lines, n_lines, o, in_use);
	}
	if (r < 0)
		return r;
	return ferror(f) ? -EIO : 0;
}
