/* The report as one self-contained HTML page (ramwatch report --html):
 * the report answer's figures and tables, and the charts drawn from the
 * history answer of the same instance (render-html-charts.c).  Everything
 * is inline, the CSS and the SVG, and nothing names a URL, so the page
 * reads the same offline and attached to a bug report.  Every text that
 * comes from the daemon goes through text_html_write. */
#include "render-answer.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "render-html.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;color:#222;background:#fff;margin:24px auto;max-width:1000px;padding:0 16px}"
	"h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
	"dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:0}"
	"dl.facts dt{color:#666}dl.facts dd{margin:0;font-family:monospace;overflow-wrap:anywhere}"
	"table{border-collapse:collapse;margin:6px 0 10px}th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left}"
	"th{background:#f5f5f5}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
	"td.path{font-family:monospace;overflow-wrap:anywhere}td.n,td.t{white-space:nowrap}"
	".chart{display:block;max-width:100%;height:auto}"
	".chart .grid{stroke:#e4e4e4}.chart .tick{stroke:#999}"
	".chart text{font:11px sans-serif;fill:#555}.chart text.size{text-anchor:end}.chart text.time{text-anchor:middle}"
	".chart .private{stroke:#d62728;fill:#d62728}.chart .resident{stroke:#1f77b4;fill:#1f77b4}"
	".chart path.line{fill:none;stroke-width:1.6}.chart path.band{stroke:none;fill-opacity:.2}"
	".chart .area{stroke:#fff;stroke-width:.5}"
	".chart .mark line{stroke:#333;stroke-dasharray:4 3}.chart .mark text{fill:#111;font-weight:600}"
	".chart .peak circle{fill:#fff;stroke:#d62728;stroke-width:2}.chart .peak text{fill:#a11;text-anchor:middle}"
	".chart .peak text.start{text-anchor:start}"
	"ul.legend{list-style:none;padding:0;margin:4px 0 0 64px;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px}"
	".key{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}"
	".key.peak{background:#fff;border:2px solid #d62728;width:8px;height:8px;border-radius:50%}.key.private{background:#d62728}.key.resident{background:#1f77b4}.key.band{background:#d6272838}"
	"p.caption{color:#666;font-size:12px;margin:2px 0 0 64px}p.none{color:#666;font-style:italic}"
	"footer{margin-top:32px;color:#888;font-size:12px}";

static void html(FILE *f, const char *s)
{
	text_html_write_cstr(f, s ? s : "?");
}

static void fact(FILE *f, const char *what, const char *value)
{
	fprintf(f, "<dt>%s</dt><dd>", what);
	html(f, value);
	fputs("</dd>\n", f);
}

static void facts(FILE *f, const json_t *p)
{
	char when[TIMEPARSE_FORMAT_MAX], buf[64];
	const char *cmdline = answer_str(p, "cmdline"), *exe = answer_str(p, "exe"), *user = answer_str(p, "user");
	int64_t uid, t;

	fputs("<dl class=\"facts\">\n", f);
	if (cmdline && cmdline[0])
		fact(f, "Command", cmdline);
	if (exe)
		fact(f, "Program", exe);
	if (answer_int(p, "uid", &uid)) {
		fputs("<dt>User</dt><dd>", f);
		html(f, user);
		fprintf(f, " (uid %" PRId64 ")</dd>\n", uid);
	}
	if (answer_int(p, "started_at", &t))
		fact(f, "Started", timeparse_format_local(when, t));
	if (answer_int(p, "first_seen", &t))
		fact(f, "First seen", timeparse_format_local(when, t));
	if (answer_int(p, "exited_at", &t))
		fact(f, "Exited", timeparse_format_local(when, t));
	else if (answer_int(p, "last_seen", &t)) {
		snprintf(buf, sizeof(buf), "%s (%s)", timeparse_format_local(when, t),
			 json_is_true(json_object_get(p, "watched")) ? "still watched" : "no longer watched");
		fact(f, "Last seen", buf);
	}
	fputs("</dl>\n", f);
}

static void peak(FILE *f, const json_t *report)
{
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], t1[TIMEPARSE_FORMAT_MAX], t2[TIMEPARSE_FORMAT_MAX];
	const json_t *p = json_object_get(report, "peak"), *proc = json_object_get(report, "process");
	int64_t v;

	if (!json_is_object(p) || !answer_int(p, "private", &v)) {
		fputs("<p class=\"none\">No samples are stored.</p>\n", f);
		return;
	}
	fprintf(f, "<p class=\"peak\">Peak private memory <strong>%s</strong> at %s; peak resident %s at %s.",
		answer_bytes(a, p, "private"), answer_time(t1, p, "time"), answer_bytes(b, p, "resident"),
		answer_time(t2, p, "resident_time"));
	if (answer_int(proc, "private", &v))
		fprintf(f, " Last: private %s, resident %s.", answer_bytes(a, proc, "private"),
			answer_bytes(b, proc, "resident"));
	if (answer_int(p, "vram", &v))
		fprintf(f, " Peak GPU memory (VRAM) %s at %s.", answer_bytes(a, p, "vram"), answer_time(t1, p, "vram_time"));
	fputs("</p>\n", f);
}

/* A table's head: each name, those starting with '>' for numbers. */
static void table_head(FILE *f, const char *const *names, size_t n)
{
	fputs("<table><thead><tr>", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, names[i][0] == '>' ? "<th class=\"n\">%s</th>" : "<th>%s</th>", names[i] + (names[i][0] == '>'));
	fputs("</tr></thead><tbody>\n", f);
}

static void cell(FILE *f, const char *text)
{
	fputs("<td>", f);
	html(f, text);
	fputs("</td>", f);
}

static void cell_t(FILE *f, const char *time)
{
	fprintf(f, "<td class=\"t\">%s</td>", time);
}

static void cell_n(FILE *f, const char *text)
{
	fprintf(f, "<td class=\"n\">%s</td>", text);
}

static void phases(FILE *f, const json_t *report)
{
	static const char *const head[] = { "phase", "from", "to", ">peak private", "at", ">peak resident",
					    ">private at start", ">at end", ">change" };
	const json_t *list = json_object_get(report, "phases"), *p;
	char s[4][FORMAT_BYTES_MAX], w[3][TIMEPARSE_FORMAT_MAX];
	size_t i;

	fputs("<h2>Peaks by phase</h2>\n", f);
	if (json_array_size(list) == 0) {
		fputs("<p class=\"none\">No phases: no samples are stored.</p>\n", f);
		return;
	}
	table_head(f, head, sizeof(head) / sizeof(head[0]));
	json_array_foreach(list, i, p) {
		int64_t a, b;
		fputs("<tr>", f);
		cell(f, answer_str(p, "name"));
		cell_t(f, answer_time(w[0], p, "start"));
		cell_t(f, answer_time(w[1], p, "end"));
		cell_n(f, answer_bytes(s[0], p, "peak_private"));
		cell_t(f, answer_time(w[2], p, "peak_time"));
		cell_n(f, answer_bytes(s[1], p, "peak_resident"));
		cell_n(f, answer_bytes(s[2], p, "private_at_start"));
		cell_n(f, answer_bytes(s[3], p, "private_at_end"));
		if (answer_int(p, "private_at_end", &a) && answer_int(p, "private_at_start", &b))
			cell_n(f, format_bytes_delta(s[0], a - b));
		else
			cell_n(f, "-");
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"caption\">A phase starts at a mark (ramwatch mark); the first runs from the "
	      "first sight of the process.</p>\n",
	      f);
}

/* A class's key as a swatch of its colour and its label. */
static void class_cell(FILE *f, const char *key)
{
	int c = key ? class_from_key(key) : -1;

	fputs("<td>", f);
	if (c >= 0) {
		fprintf(f, "<span class=\"key\" style=\"background:%s\"></span>", class_html_colour((enum class_id)c));
		html(f, class_label((enum class_id)c));
	} else
		html(f, key);
	fputs("</td>", f);
}

static void census_classes(FILE *f, const json_t *census)
{
	static const char *const head[] = { "class", ">private", ">resident", ">size", ">regions" };
	/* in use and free where a heap walk read some class's allocator */
	static const char *const head_heap[] = { "class", ">private", ">in use", ">free", ">resident", ">size",
						 ">regions" };
	const json_t *c;
	char s[5][FORMAT_BYTES_MAX];
	size_t i;
	bool heap = false;
	int64_t v;

	json_array_foreach(json_object_get(census, "classes"), i, c)
		heap |= answer_int(c, "in_use", &v);
	fputs("<h3>Memory by class</h3>\n", f);
	if (heap)
		table_head(f, head_heap, sizeof(head_heap) / sizeof(head_heap[0]));
	else
		table_head(f, head, sizeof(head) / sizeof(head[0]));
	json_array_foreach(json_object_get(census, "classes"), i, c) {
		int64_t count = 0;
		char n[24];
		answer_int(c, "count", &count);
		snprintf(n, sizeof(n), "%" PRId64, count);
		fputs("<tr>", f);
		class_cell(f, answer_str(c, "key"));
		cell_n(f, answer_bytes(s[0], c, "private"));
		if (heap) {
			cell_n(f, answer_bytes(s[3], c, "in_use"));
			cell_n(f, answer_bytes(s[4], c, "free"));
		}
		cell_n(f, answer_bytes(s[1], c, "resident"));
		cell_n(f, answer_bytes(s[2], c, "size"));
		cell_n(f, n);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void census_regions(FILE *f, const json_t *census)
{
	static const char *const head[] = { "region", "class", "path", ">private", ">resident", ">size" };
	const json_t *list = json_object_get(census, "largest"), *x;
	char s[3][FORMAT_BYTES_MAX], range[64];
	size_t i;

	fputs("<h3>Largest regions</h3>\n", f);
	if (json_array_size(list) == 0) {
		fputs("<p class=\"none\">The census kept no regions.</p>\n", f);
		return;
	}
	table_head(f, head, sizeof(head) / sizeof(head[0]));
	json_array_foreach(list, i, x) {
		const char *start = answer_str(x, "start"), *end = answer_str(x, "end"), *path = answer_str(x, "path");
		if (i == HTML_REGIONS_MAX)
			break;
		snprintf(range, sizeof(range), "%s-%s", start ? start : "?", end ? end : "?");
		fputs("<tr>", f);
		cell(f, range);
		class_cell(f, answer_str(x, "class"));
		fputs("<td class=\"path\">", f);
		html(f, path ? path : "[anonymous]");
		fputs("</td>", f);
		cell_n(f, answer_bytes(s[0], x, "private"));
		cell_n(f, answer_bytes(s[1], x, "resident"));
		cell_n(f, answer_bytes(s[2], x, "size"));
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (json_array_size(list) > HTML_REGIONS_MAX)
		fprintf(f, "<p class=\"caption\">The %u largest of %zu kept.</p>\n", HTML_REGIONS_MAX,
			json_array_size(list));
}

static void last_census(FILE *f, const json_t *report)
{
	const json_t *c = json_object_get(report, "last_census");
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t id = 0;

	fputs("<h2>The last census</h2>\n", f);
	if (!json_is_object(c)) {
		fputs("<p class=\"none\">No census of this process is stored.</p>\n", f);
		return;
	}
	answer_int(c, "census_id", &id);
	fprintf(f, "<p>Census #%" PRId64 " (", id);
	html(f, answer_str(c, "trigger"));
	fprintf(f, ") at %s.</p>\n", answer_time(when, c, "taken_at"));
	census_classes(f, c);
	census_regions(f, c);
}

/* Of each class a census read the allocator of: held or kept, as the
 * Markdown report says it. */
static int in_use_or_kept(FILE *f, const json_t *report)
{
	const json_t *list = json_object_get(report, "in_use_or_kept"), *e;
	size_t i, shown = 0;

	if (json_array_size(list) == 0)
		return 0;
	fputs("<h2>In use or kept</h2>\n<p>Of each class whose allocator a census read, from the first census that "
	      "read it to the last: memory in use that grew is held by the program (a leak candidate); free memory "
	      "that grew is kept by the allocator (fragmentation or caching).</p>\n<ul>\n",
	      f);
	json_array_foreach(list, i, e) {
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (!m)
			return -ENOMEM;
		bool any = render_report_heap_class(m, e, false);
		if (fclose(m) != 0) {
			free(text);
			return -ENOMEM;
		}
		if (any) {
			fputs("<li>", f);
			html(f, text);
			fputs("</li>\n", f);
			shown++;
		}
		free(text);
	}
	fputs("</ul>\n", f);
	if (shown == 0)
		fputs("<p class=\"none\">No class grew.</p>\n", f);
	return 0;
}

static void class_changes(FILE *f, const json_t *classes)
{
	static const char *const head[] = { "class", ">private before", ">private now", ">change" };
	const json_t *c;
	char s[3][FORMAT_BYTES_MAX];
	size_t i, rows = 0;

	json_array_foreach(classes, i, c) {
		int64_t change;
		if (!answer_int(c, "change", &change) || change == 0)
			continue;
		if (rows++ == 0) {
			fputs("<h3>Classes that changed</h3>\n", f);
			table_head(f, head, sizeof(head) / sizeof(head[0]));
		}
		fputs("<tr>", f);
		class_cell(f, answer_str(c, "class"));
		cell_n(f, answer_bytes(s[0], c, "private_before"));
		cell_n(f, answer_bytes(s[1], c, "private"));
		cell_n(f, format_bytes_delta(s[2], change));
		fputs("</tr>\n", f);
	}
	if (rows)
		fputs("</tbody></table>\n", f);
	else
		fputs("<p class=\"none\">No class changed.</p>\n", f);
}

static void file_list(FILE *f, const json_t *files, const char *what)
{
	static const char *const head[] = { "path", "kind", ">size", ">resident", ">private" };
	const json_t *x;
	char s[3][FORMAT_BYTES_MAX];
	size_t i;

	if (json_array_size(files) == 0) {
		fprintf(f, "<p class=\"none\">No %s files.</p>\n", what);
		return;
	}
	fprintf(f, "<h3>Files %s</h3>\n", what);
	table_head(f, head, sizeof(head) / sizeof(head[0]));
	json_array_foreach(files, i, x) {
		fputs("<tr><td class=\"path\">", f);
		html(f, answer_str(x, "path"));
		fputs("</td>", f);
		cell(f, answer_str(x, "kind"));
		cell_n(f, answer_bytes(s[0], x, "size"));
		cell_n(f, answer_bytes(s[1], x, "resident"));
		cell_n(f, answer_bytes(s[2], x, "private"));
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void since_previous(FILE *f, const json_t *report)
{
	const json_t *s = json_object_get(report, "since_previous");
	struct region_event_counts ev;
	const json_t *last = json_object_get(report, "last_census");
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t prev = 0, id = 0;

	fputs("<h2>New since the previous census</h2>\n", f);
	if (!json_is_object(s)) {
		fputs("<p class=\"none\">There is no earlier census to compare the last one with.</p>\n", f);
		return;
	}
	answer_int(s, "previous_census_id", &prev);
	answer_int(last, "census_id", &id);
	fprintf(f, "<p>From census #%" PRId64 " (%s) to census #%" PRId64 ".</p>\n", prev,
		answer_time(when, s, "previous_time"), id);
	class_changes(f, json_object_get(s, "classes"));
	file_list(f, json_object_get(s, "new_files"), "newly mapped");
	if (json_array_size(json_object_get(s, "gone_files")) > 0)
		file_list(f, json_object_get(s, "gone_files"), "no longer mapped");
	if (answer_region_event_counts(s, &ev))
		fprintf(f,
			"<p>Regions between the two censuses: %" PRId64 " appeared, %" PRId64 " disappeared, %" PRId64
			" grew, %" PRId64 " shrank (ramwatch events lists them).</p>\n",
			ev.appeared, ev.disappeared, ev.grew, ev.shrank);
}

/* t into [*lo, *hi] */
static void widen(int64_t t, int64_t *lo, int64_t *hi)
{
	if (t < *lo)
		*lo = t;
	if (t > *hi)
		*hi = t;
}

/* The window of both charts: from the first sight (or the first row) to
 * the last row, census or mark, or the exit. */
static struct html_window window(const json_t *report, const json_t *history)
{
	static const char *const lists[] = { "samples", "censuses", "marks" };
	const json_t *p = json_object_get(report, "process"), *x;
	int64_t lo = INT64_MAX, hi = INT64_MIN, t;
	size_t i;

	if (answer_int(p, "first_seen", &t))
		widen(t, &lo, &hi);
	if (answer_int(p, "exited_at", &t))
		widen(t, &lo, &hi);
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		json_array_foreach(json_object_get(history, lists[k]), i, x) {
			if (answer_int(x, "time", &t))
				widen(t, &lo, &hi);
			if (answer_int(x, "until", &t))
				widen(t, &lo, &hi);
		}
	if (lo > hi)
		lo = hi = 0;
	/* chart_time_ticks makes an empty window a second long; so must the
	 * scales */
	return (struct html_window){ lo, hi > lo ? hi : lo + 1000 };
}

int render_report_html(const json_t *report, const json_t *history, FILE *f)
{
	const json_t *p = json_object_get(report, "process");
	struct html_window w;
	char when[TIMEPARSE_FORMAT_MAX];
	int64_t pid = 0;
	int r;

	if (!json_is_object(report) || !json_is_object(p) || !json_is_object(history))
		return -EBADMSG;
	w = window(report, history);
	answer_int(p, "pid", &pid);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Memory report: ", f);
	html(f, answer_str(p, "comm"));
	fprintf(f, " (pid %" PRId64 ")</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Memory report: ", pid, style);
	html(f, answer_str(p, "comm"));
	fprintf(f, " (pid %" PRId64 ")</h1>\n", pid);
	facts(f, p);
	peak(f, report);
	fputs("<h2>Private and resident memory</h2>\n", f);
	if ((r = html_chart_memory(f, history, json_object_get(report, "phases"), &w)) < 0)
		return r;
	fprintf(f, "<p class=\"caption\">Time since %s; marks as dashed lines.</p>\n",
		timeparse_format_local(when, w.t0));
	fputs("<h2>Private memory by class</h2>\n", f);
	if ((r = html_chart_classes(f, history, &w)) < 0)
		return r;
	fputs("<p class=\"caption\">From the censuses: each census's classes hold until the next.</p>\n", f);
	phases(f, report);
	last_census(f, report);
	if ((r = in_use_or_kept(f, report)) < 0)
		return r;
	since_previous(f, report);
	fputs("<footer>Written by ramwatch " RAMWATCH_VERSION "; times are local.</footer>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}
