/* The status and processes answers for people (and processes as CSV). */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "macro.h"
#include "table.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

static void row(FILE *f, const char *name, const char *fmt, ...) _printf_(3, 4);

static void row(FILE *f, const char *name, const char *fmt, ...)
{
	va_list ap;
	fprintf(f, "%-14s ", name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static void database_row(FILE *f, const json_t *db)
{
	char size[FORMAT_BYTES_MAX];
	const char *path = answer_str(db, "path"), *error = answer_str(db, "error");
	int64_t schema, queued = 0, dropped = 0;
	const json_t *writing = json_object_get(db, "writing");

	answer_int(db, "queued_rows", &queued);
	answer_int(db, "dropped_rows", &dropped);
	fprintf(f, "%-14s %s, %s", "database", path ? path : "-", answer_bytes(size, db, "size"));
	if (answer_int(db, "schema_version", &schema))
		fprintf(f, ", schema %" PRId64, schema);
	if (json_is_boolean(writing))
		fprintf(f, ", %s", json_is_true(writing) ? "writing" : "not writing");
	if (queued || dropped)
		fprintf(f, " (%" PRId64 " rows waiting, %" PRId64 " dropped)", queued, dropped);
	fputc('\n', f);
	if (error)
		row(f, "", "store error: %s", error);
}

static void censuses_row(FILE *f, const json_t *status)
{
	static const char *const kinds[] = { "ok", "exited", "denied", "error", "light" };
	const json_t *per_minute = json_object_get(status, "censuses_per_minute");
	const json_t *counts = json_object_get(status, "censuses");
	int64_t v;

	fprintf(f, "%-14s ", "censuses");
	if (json_is_number(per_minute))
		fprintf(f, "%.1f per minute", json_number_value(per_minute));
	else
		fputs("-", f);
	if (json_is_object(counts)) {
		const char *sep = "; ";
		for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
			if (answer_int(counts, kinds[i], &v)) {
				fprintf(f, "%s%" PRId64 " %s", sep, v, kinds[i]);
				sep = ", ";
			}
	}
	fputc('\n', f);
}

static void budget_row(FILE *f, const json_t *budget)
{
	const json_t *share = json_object_get(budget, "share"), *used = json_object_get(budget, "used");
	fprintf(f, "%-14s ", "budget");
	if (json_is_number(used))
		fprintf(f, "%.2f%% of one CPU used", 100.0 * json_number_value(used));
	else
		fputs("- used", f);
	if (json_is_number(share))
		fprintf(f, " of %.2f%% allowed (ScanBudget=)", 100.0 * json_number_value(share));
	fputc('\n', f);
}

int render_status(const json_t *status, FILE *f)
{
	char span[TIMEPARSE_FORMAT_MAX], when[TIMEPARSE_FORMAT_MAX];
	const char *version = answer_str(status, "version"), *config = answer_str(status, "config");
	const json_t *errors = json_object_get(status, "last_errors"), *e;
	int64_t pid, uptime, watched, deferred;
	size_t i;

	fprintf(f, "ramwatchd %s", version ? version : "(version unknown)");
	if (answer_int(status, "pid", &pid))
		fprintf(f, " (pid %" PRId64 ")", pid);
	if (answer_int(status, "uptime_ms", &uptime))
		fprintf(f, ", up %s", timeparse_format_span(span, uptime));
	fputc('\n', f);
	row(f, "configuration", "%s", config ? config : "(none: the defaults)");
	database_row(f, json_object_get(status, "database"));
	if (answer_int(status, "watched", &watched))
		row(f, "watched", "%" PRId64 " process%s", watched, watched == 1 ? "" : "es");
	censuses_row(f, status);
	budget_row(f, json_object_get(status, "budget"));
	if (answer_int(status, "deferred", &deferred))
		row(f, "deferred", "%" PRId64 " census%s waiting for the budget", deferred,
		    deferred == 1 ? "" : "es");
	if (!json_is_array(errors) || json_array_size(errors) == 0) {
		row(f, "last errors", "none");
	} else {
		row(f, "last errors", "%zu", json_array_size(errors));
		json_array_foreach(errors, i, e) {
			const char *message = answer_str(e, "message");
			fprintf(f, "  %s  %s\n", answer_time(when, e, "time"), message ? message : "?");
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ---------------------------------------------------------------- processes */

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
