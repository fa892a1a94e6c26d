/* The report answer as Markdown: what a person reads after the fact to
 * know what grew, when and in which class, and how it ended when the
 * kernel killed it for memory.  The last census is rendered by
 * render_census, as `ramwatch scan --markdown` prints it. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "census-json.h"
#include "census.h"
#include "classes.h"
#include "heap-words.h"
#include "limits.h"
#include "macro.h"
#include "render-census.h"
#include "table.h"
#include "timeparse.h"
#include "units.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

/* The trend table shows every census up to this many; beyond, the first
 * TREND_HEAD and the last TREND_MAX - TREND_HEAD, with a row saying how
 * many are left out. */
#define TREND_MAX 60u
#define TREND_HEAD 10u

static const char *delta(char *buf, const json_t *o, const char *after, const char *before)
{
	int64_t a, b;
	if (!answer_int(o, after, &a) || !answer_int(o, before, &b))
		return "-";
	return format_bytes_delta(buf, a - b);
}

/* key of after less key of before, or "-" when either is unknown */
static const char *change(char *buf, const json_t *before, const json_t *after, const char *key)
{
	int64_t a, b;
	if (!answer_int(after, key, &a) || !answer_int(before, key, &b))
		return "-";
	return format_bytes_delta(buf, a - b);
}

static void title(FILE *f, const json_t *p)
{
	char when[TIMEPARSE_FORMAT_MAX];
	const char *comm = answer_str(p, "comm"), *user = answer_str(p, "user"), *cmdline = answer_str(p, "cmdline");
	const char *exe = answer_str(p, "exe");
	int64_t pid = 0, uid, t;

	answer_int(p, "pid", &pid);
	fprintf(f, "# Memory report: %s (pid %" PRId64 ")\n\n", comm ? comm : "?", pid);
	if (cmdline && cmdline[0])
		fprintf(f, "Command: `%s`  \n", cmdline);
	if (exe)
		fprintf(f, "Program: `%s`  \n", exe);
	if (answer_int(p, "uid", &uid))
		fprintf(f, "User: %s (uid %" PRId64 ")  \n", user ? user : "?", uid);
	if (answer_int(p, "started_at", &t))
		fprintf(f, "Started: %s  \n", timeparse_format_local(when, t));
	if (answer_int(p, "first_seen", &t))
		fprintf(f, "First seen: %s  \n", timeparse_format_local(when, t));
	if (answer_int(p, "exited_at", &t))
		fprintf(f, "Exited: %s\n\n", timeparse_format_local(when, t));
	else if (answer_int(p, "last_seen", &t))
		fprintf(f, "Last seen: %s (%s)\n\n", timeparse_format_local(when, t),
			json_is_true(json_object_get(p, "watched")) ? "still watched" : "no longer watched");
	else
		fputs("\n", f);
}

static void peak(FILE *f, const json_t *report)
{
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], t1[TIMEPARSE_FORMAT_MAX], t2[TIMEPARSE_FORMAT_MAX];
	const json_t *p = json_object_get(report, "peak"), *proc = json_object_get(report, "process");

	fputs("## Peak\n\n", f);
	if (!json_is_object(p)) {
		fputs("No samples are stored.\n\n", f);
		return;
	}
	fprintf(f, "Peak private memory **%s** at %s; peak resident %s at %s.", answer_bytes(a, p, "private"),
		answer_time(t1, p, "time"), answer_bytes(b, p, "resident"), answer_time(t2, p, "resident_time"));
	if (json_is_object(proc))
		fprintf(f, " Last: private %s, resident %s.", answer_bytes(a, proc, "private"),
			answer_bytes(b, proc, "resident"));
	fputs("\n\n", f);
	/* GPU memory, where the process held any */
	int64_t v;
	if (answer_int(p, "vram", &v)) {
		fprintf(f, "Peak GPU memory (VRAM) **%s** at %s.", answer_bytes(a, p, "vram"), answer_time(t1, p, "vram_time"));
		if (json_is_object(proc) && answer_int(proc, "vram", &v))
			fprintf(f, " Last: %s.", answer_bytes(a, proc, "vram"));
		fputs("\n\n", f);
	}
}

/* Whether any element of the report's key array has a GPU memory figure
 * at field. */
static bool any_vram(const json_t *report, const char *key, const char *field)
{
	const json_t *x;
	size_t i;
	int64_t v;

	json_array_foreach(json_object_get(report, key), i, x)
		if (answer_int(x, field, &v))
			return true;
	return false;
}

static int phases(FILE *f, const json_t *report)
{
	bool vram = any_vram(report, "phases", "peak_vram");
	_cleanup_(table_freep) struct table *t =
		vram ? table_new("phase", "from", "to", ">peak private", "at", ">peak resident", ">private at start",
				 ">at end", ">change", ">peak VRAM", NULL)
		     : table_new("phase", "from", "to", ">peak private", "at", ">peak resident", ">private at start",
				 ">at end", ">change", NULL);
	const json_t *list = json_object_get(report, "phases"), *p;
	char s[6][FORMAT_BYTES_MAX], w[3][TIMEPARSE_FORMAT_MAX];
	size_t i;

	if (!t)
		return -ENOMEM;
	fputs("## Peaks by phase\n\n", f);
	if (!json_is_array(list) || json_array_size(list) == 0) {
		fputs("No phases: no samples are stored.\n\n", f);
		return 0;
	}
	json_array_foreach(list, i, p) {
		const char *name = answer_str(p, "name");
		table_add(t, name ? name : "?");
		table_add(t, answer_time(w[0], p, "start"));
		table_add(t, answer_time(w[1], p, "end"));
		table_add(t, answer_bytes(s[0], p, "peak_private"));
		table_add(t, answer_time(w[2], p, "peak_time"));
		table_add(t, answer_bytes(s[1], p, "peak_resident"));
		table_add(t, answer_bytes(s[2], p, "private_at_start"));
		table_add(t, answer_bytes(s[3], p, "private_at_end"));
		table_add(t, delta(s[4], p, "private_at_end", "private_at_start"));
		if (vram)
			table_add(t, answer_bytes(s[5], p, "peak_vram"));
	}
	int r = table_print_markdown(t, f);
	fputs("\nA phase starts at a mark (`ramwatch mark`); the first runs from the first sight of the process.\n\n",
	      f);
	return r;
}

static int last_census(FILE *f, const json_t *report)
{
	_cleanup_(census_freep) struct census *c = NULL;
	const json_t *j = json_object_get(report, "last_census");
	struct render_options o = { .format = RENDER_MARKDOWN, .top = RW_TOP_DEFAULT };
	struct error err = { 0 };
	char when[TIMEPARSE_FORMAT_MAX];
	const char *trigger = answer_str(j, "trigger");
	int64_t id = 0;

	fputs("## The last census\n\n", f);
	if (!json_is_object(j)) {
		fputs("No census of this process is stored.\n\n", f);
		return 0;
	}
	if (census_from_json(j, &c, &err) < 0) {
		fprintf(f, "The stored census cannot be read: %s.\n\n", err.message);
		return 0;
	}
	answer_int(j, "census_id", &id);
	fprintf(f, "Census #%" PRId64 " (%s) at %s", id, trigger ? trigger : "?",
		timeparse_format_local(when, c->taken_at_ms));
	if (trigger && streq(trigger, "limit"))
		fputs(", taken as its memory cgroup neared its limit, or the host ran short of memory", f);
	int64_t repeats;
	if (answer_int(j, "repeats", &repeats))
		fprintf(f, ", unchanged since census #%" PRId64 ": its content follows", repeats);
	fputs(".\n\n", f);
	int r = render_census(c, &o, f);
	fputs("\n", f);
	return r;
}

static void trend_row(struct table *t, const json_t *e, const json_t *first, bool vram, bool in_use)
{
	char s[6][FORMAT_BYTES_MAX], when[TIMEPARSE_FORMAT_MAX];
	const char *trigger = answer_str(e, "trigger"), *status = answer_str(e, "status");
	int64_t id, a, b;

	if (answer_int(e, "census_id", &id))
		table_addf(t, "#%" PRId64, id);
	else
		table_add(t, "-");
	table_add(t, answer_time(when, e, "time"));
	int64_t repeats;
	if (status && !streq(status, "ok"))
		table_addf(t, "%s (%s)", trigger ? trigger : "?", status);
	else if (answer_int(e, "repeats", &repeats))
		table_addf(t, "%s, unchanged since #%" PRId64, trigger ? trigger : "?", repeats);
	else
		table_add(t, trigger ? trigger : "?");
	table_add(t, answer_bytes(s[0], e, "private"));
	table_add(t, answer_bytes(s[1], e, "resident"));
	if (answer_int(e, "private", &a) && answer_int(first, "private", &b))
		table_add(t, format_bytes_delta(s[2], a - b));
	else
		table_add(t, "-");
	if (vram)
		table_add(t, answer_bytes(s[3], e, "vram"));
	if (in_use) {
		table_add(t, answer_bytes(s[4], e, "in_use"));
		table_add(t, answer_bytes(s[5], e, "free"));
	}
}

static int trend(FILE *f, const json_t *report)
{
	bool vram = any_vram(report, "trend", "vram"), in_use = any_vram(report, "trend", "in_use");
	/* VRAM where the process held any, in use and free where a census
	 * read them: otherwise the table is as it always was */
	const char *headers[9] = { "census", "time", "trigger", ">private", ">resident", ">private since the first" };
	size_t n_headers = 6;
	if (vram)
		headers[n_headers++] = ">VRAM";
	if (in_use) {
		headers[n_headers++] = ">in use";
		headers[n_headers++] = ">free";
	}
	_cleanup_(table_freep) struct table *t = table_new_v(headers, n_headers);
	const json_t *list = json_object_get(report, "trend"), *first = NULL, *last = NULL, *e;
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
	size_t n = json_array_size(list), i;

	if (!t)
		return -ENOMEM;
	fputs("## RAM after each census\n\n", f);
	if (n == 0) {
		fputs("No census is stored.\n\n", f);
		return 0;
	}
	/* the change is counted from the first census that read memory */
	json_array_foreach(list, i, e) {
		int64_t v;
		if (!answer_int(e, "private", &v))
			continue;
		if (!first)
			first = e;
		last = e;
	}
	json_array_foreach(list, i, e) {
		if (n > TREND_MAX && i == TREND_HEAD) {
			table_addf(t, "(%zu more)", n - TREND_MAX);
			for (size_t k = 1; k < n_headers; k++)
				table_add(t, "");
		}
		if (n > TREND_MAX && i >= TREND_HEAD && i < n - (TREND_MAX - TREND_HEAD))
			continue;
		trend_row(t, e, first, vram, in_use);
	}
	int r = table_print_markdown(t, f);
	if (first && last && first != last)
		fprintf(f, "\nChange from the first census to the last: private %s, resident %s.\n",
			change(a, first, last, "private"), change(b, first, last, "resident"));
	if (in_use)
		fputs("\nIn use and free: the sums over the classes whose allocator the census read; `-` where it read "
		      "none (ramwatchd reads them at the first census, at growth, marks and requests, and at most every "
		      "InUseInterval otherwise).\n",
		      f);
	fputs("\n", f);
	return r;
}

/* A census of a class as the report's in_use_or_kept gives it. */
static struct heap_point heap_point_of(const json_t *o)
{
	int64_t v[6] = { 0 };
	static const char *const keys[] = { "time", "private", "in_use", "free", "unknown", "returnable" };
	bool known = json_is_object(o);

	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		known &= answer_int(o, keys[i], &v[i]);
	return (struct heap_point){ .time_ms = v[0],
				    .private = (uint64_t)v[1],
				    .known = known,
				    .in_use = (uint64_t)v[2],
				    .free = (uint64_t)v[3],
				    .unknown = (uint64_t)v[4],
				    .returnable = (uint64_t)v[5] };
}

/* "#120 (2026-11-29 14:00:15), #130 (...)" */
static void census_list(FILE *f, const json_t *list)
{
	char when[TIMEPARSE_FORMAT_MAX];
	const json_t *x;
	size_t i;
	int64_t id;

	json_array_foreach(list, i, x) {
		if (!answer_int(x, "census_id", &id))
			continue;
		fprintf(f, "%s#%" PRId64 " (%s)", i ? ", " : "", id, answer_time(when, x, "time"));
	}
}

bool render_report_heap_class(FILE *f, const json_t *e, bool md)
{
	const char *key = answer_str(e, "class"), *growth = answer_str(e, "growth"), *how = answer_str(e, "how");
	const json_t *first = json_object_get(e, "first"), *last = json_object_get(e, "last");
	const json_t *rise = json_object_get(e, "slow_rise"), *shown = json_object_get(e, "shown_by");
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], d[UNITS_FORMAT_MAX];
	int cls = key ? class_from_key(key) : -1;
	int64_t id1 = 0, id2 = 0, n = 0;
	bool grew = growth && !streq(growth, "none");

	if (cls < 0 || (!grew && !json_is_object(rise)))
		return false;
	fprintf(f, md ? "- **%s**" : "%s", key);
	if (grew) {
		struct heap_point x = heap_point_of(first), y = heap_point_of(last);
		enum heap_growth g = streq(growth, "held")	 ? HEAP_GROWTH_HELD
				     : streq(growth, "kept")	 ? HEAP_GROWTH_KEPT
				     : streq(growth, "both")	 ? HEAP_GROWTH_BOTH
				     : streq(growth, "overhead") ? HEAP_GROWTH_OVERHEAD
								 : HEAP_GROWTH_UNKNOWN;
		answer_int(first, "census_id", &id1);
		answer_int(last, "census_id", &id2);
		fprintf(f, ", from census #%" PRId64 " to #%" PRId64 ", ", id1, id2);
		heap_words_growth(f, (enum class_id)cls, g, &x, &y, how);
		fputc('.', f);
		answer_int(e, "shown_by_count", &n);
		if (n > 0) {
			fputs(g == HEAP_GROWTH_KEPT ? " Free memory rose at census " : " Memory in use rose at census ", f);
			census_list(f, shown);
			if (n > (int64_t)json_array_size(shown))
				fprintf(f, " (the last %zu of %" PRId64 ")", json_array_size(shown), n);
			fputc('.', f);
		}
	}
	if (json_is_object(rise)) {
		int64_t rises = 0, steps = 0, span = 0, change = 0, rate = 0;
		answer_int(rise, "rises", &rises);
		answer_int(rise, "steps", &steps);
		answer_int(rise, "span_ms", &span);
		answer_int(rise, "change", &change);
		answer_int(rise, "bytes_per_hour", &rate);
		answer_int(json_object_get(rise, "first"), "census_id", &id1);
		answer_int(json_object_get(rise, "last"), "census_id", &id2);
		fprintf(f,
			" %sA slow, steady rise of memory in use%s: it rose at %" PRId64 " of the %" PRId64
			" censuses after #%" PRId64 " up to #%" PRId64 ", by %s over %s (%s an hour): a leak candidate "
			"that no single growth shows.",
			md ? "**" : "", md ? "**" : "", rises, steps, id1, id2, format_bytes_delta(a, change),
			units_format_duration(d, (uint64_t)(span > 0 ? span / 60000 : 0) * 60000000u),
			format_bytes(b, (uint64_t)(rate > 0 ? rate : 0)));
	}
	if (md)
		fputc('\n', f);
	return true;
}

/* Of each class a census read the allocator of: held or kept. */
static void in_use_or_kept(FILE *f, const json_t *report)
{
	const json_t *list = json_object_get(report, "in_use_or_kept"), *e;
	size_t i;
	bool any = false;

	if (json_array_size(list) == 0)
		return;
	fputs("## In use or kept\n\n"
	      "Of each class whose allocator a census read (ramwatchd reads it at the first census, at growth, marks and "
	      "requests, and at most every InUseInterval otherwise), from the first census that read it to the last: "
	      "memory in use that grew is held by the program (a leak candidate); free memory that grew is kept by "
	      "the allocator (fragmentation or caching), and its returnable part could be given back.\n\n",
	      f);
	json_array_foreach(list, i, e)
		any |= render_report_heap_class(f, e, true);
	if (!any)
		fputs("No class grew.\n", f);
	fputc('\n', f);
}

static int class_changes(FILE *f, const json_t *classes)
{
	_cleanup_(table_freep) struct table *t = table_new("class", ">private before", ">private now", ">change", NULL);
	char s[3][FORMAT_BYTES_MAX];
	const json_t *c;
	size_t i;

	if (!t)
		return -ENOMEM;
	json_array_foreach(classes, i, c) {
		int64_t change;
		const char *key = answer_str(c, "class");
		if (!answer_int(c, "change", &change) || change == 0)
			continue;
		table_add(t, key ? key : "?");
		table_add(t, answer_bytes(s[0], c, "private_before"));
		table_add(t, answer_bytes(s[1], c, "private"));
		table_add(t, format_bytes_delta(s[2], change));
	}
	if (table_rows(t) == 0) {
		fputs("No class changed.\n\n", f);
		return 0;
	}
	fputs("Classes that changed, largest change first:\n\n", f);
	int r = table_print_markdown(t, f);
	fputs("\n", f);
	return r;
}

static int file_list(FILE *f, const json_t *files, const char *what)
{
	_cleanup_(table_freep) struct table *t = table_new("path", "kind", ">size", ">resident", ">private", NULL);
	char s[3][FORMAT_BYTES_MAX];
	const json_t *x;
	size_t i;

	if (!t)
		return -ENOMEM;
	if (json_array_size(files) == 0) {
		fprintf(f, "No %s files.\n\n", what);
		return 0;
	}
	json_array_foreach(files, i, x) {
		const char *path = answer_str(x, "path"), *kind = answer_str(x, "kind");
		table_add(t, path ? path : "?");
		table_add(t, kind ? kind : "-");
		table_add(t, answer_bytes(s[0], x, "size"));
		table_add(t, answer_bytes(s[1], x, "resident"));
		table_add(t, answer_bytes(s[2], x, "private"));
	}
	fprintf(f, "%c%s files:\n\n", what[0] - 'a' + 'A', what + 1);
	int r = table_print_markdown(t, f);
	fputs("\n", f);
	return r;
}

static int since_previous(FILE *f, const json_t *report)
{
	const json_t *s = json_object_get(report, "since_previous");
	struct region_event_counts ev;
	const json_t *last = json_object_get(report, "last_census");
	char t1[TIMEPARSE_FORMAT_MAX];
	int64_t prev = 0, id = 0;
	int r;

	fputs("## New since the previous census\n\n", f);
	if (!json_is_object(s)) {
		fputs("There is no earlier census to compare the last one with.\n\n", f);
		return 0;
	}
	answer_int(s, "previous_census_id", &prev);
	answer_int(last, "census_id", &id);
	fprintf(f, "From census #%" PRId64 " (%s) to census #%" PRId64 ".\n\n", prev,
		answer_time(t1, s, "previous_time"), id);
	if ((r = class_changes(f, json_object_get(s, "classes"))) < 0 ||
	    (r = file_list(f, json_object_get(s, "new_files"), "newly mapped")) < 0)
		return r;
	if (json_array_size(json_object_get(s, "gone_files")) > 0 &&
	    (r = file_list(f, json_object_get(s, "gone_files"), "no longer mapped")) < 0)
		return r;
	if (answer_region_event_counts(s, &ev))
		fprintf(f,
			"Regions between the two censuses: %" PRId64 " appeared, %" PRId64 " disappeared, %" PRId64
			" grew, %" PRId64 " shrank (`ramwatch events` lists them).\n\n",
			ev.appeared, ev.disappeared, ev.grew, ev.shrank);
	return 0;
}

int render_report(const json_t *report, FILE *f)
{
	int r;

	if (!json_is_object(report) || !json_is_object(json_object_get(report, "process")))
		return -EBADMSG;
	title(f, json_object_get(report, "process"));
	peak(f, report);
	if ((r = phases(f, report)) < 0 || (r = last_census(f, report)) < 0 || (r = trend(f, report)) < 0)
		return r;
	in_use_or_kept(f, report);
	if ((r = since_previous(f, report)) < 0)
		return r;
	/* how it ended, last: what a person reads the report of a killed
	 * process for */
	render_report_oom_kill(report, f);
	return ferror(f) ? -EIO : 0;
}
