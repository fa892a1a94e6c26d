/* The HTML report from canned answers: the charts' path data to the tenth
 * of a pixel (the figures worked out by hand below), marks labelled, text
 * from the daemon escaped, nothing that names a URL, and the page for a
 * process with nothing stored yet. */
#include "testlib.h"

#include <jansson.h>

#include "chart.h"
#include "render-answer.h"
#include "render-html.h"
#include "util.h"

#define T "17644400"
/* first seen at T000000 ms; the samples at +1s, +2s and +3s (that one
 * coalesced until +5s), the censuses at +0.5s, +2.5s (ok), +3s (light),
 * +4s (failed), a mark at +1.5s; sizes in MiB: 1048576 */
static const char report_json[] =
	"{\"process\": {\"process_id\": 3, \"pid\": 42, \"comm\": \"a<b>&\", \"cmdline\": \"run \\\"x\\\" 'y'\","
	" \"exe\": \"/bin/\\u00e9\", \"uid\": 0, \"user\": \"root\", \"first_seen\": " T "000000,"
	" \"last_seen\": " T "005000, \"exited_at\": null, \"watched\": true, \"private\": 31457280, \"resident\": 41943040},"
	" \"peak\": {\"private\": 31457280, \"time\": " T "002000, \"resident\": 44040192, \"resident_time\": " T "002000,"
	" \"vram\": null, \"vram_time\": null},"
	" \"phases\": [{\"name\": \"(start)\", \"start\": " T "000000, \"end\": " T "001500, \"peak_private\": 12582912,"
	"   \"peak_time\": " T "001000, \"peak_resident\": 23068672, \"peak_vram\": null,"
	"   \"private_at_start\": 10485760, \"private_at_end\": 10485760},"
	"  {\"name\": \"go & <stop>\", \"start\": " T "001500, \"end\": " T "005000, \"peak_private\": 31457280,"
	"   \"peak_time\": " T "002000, \"peak_resident\": 44040192, \"peak_vram\": null,"
	"   \"private_at_start\": 31457280, \"private_at_end\": 31457280}],"
	" \"last_census\": {\"census_id\": 7, \"trigger\": \"growth\", \"status\": \"ok\", \"taken_at\": " T "002500,"
	"   \"classes\": [{\"key\": \"other\", \"label\": \"x\", \"private\": 20971520, \"resident\": 20971520,"
	"     \"size\": 20971520, \"count\": 2}],"
	"   \"largest\": [{\"start\": \"0x1000\", \"end\": \"0x2000\", \"class\": \"other\", \"path\": \"/tmp/<evil>\","
	"     \"private\": 4096, \"resident\": 4096, \"size\": 4096}]},"
	" \"trend\": [],"
	" \"since_previous\": {\"previous_census_id\": 6, \"previous_time\": " T "000500,"
	"   \"classes\": [{\"class\": \"other\", \"private_before\": 10485760, \"private\": 20971520, \"change\": 10485760}],"
	"   \"new_files\": [{\"path\": \"/data/a&b.bin\", \"kind\": \"data\", \"size\": 8192, \"resident\": 0, \"private\": 0}],"
	"   \"gone_files\": [], \"region_events\": {\"appeared\": 1, \"disappeared\": 0, \"grew\": 2, \"shrank\": 0}}}";

static const char history_json[] =
	"{\"instances\": [], \"samples\": ["
	" {\"time\": " T "001000, \"until\": " T "001000, \"private\": 10485760, \"private_min\": 8388608,"
	"  \"private_max\": 12582912, \"resident\": 20971520, \"resident_min\": 18874368, \"resident_max\": 23068672},"
	" {\"time\": " T "002000, \"until\": " T "002000, \"private\": 31457280, \"private_min\": 10485760,"
	"  \"private_max\": 31457280, \"resident\": 41943040, \"resident_min\": 23068672, \"resident_max\": 44040192},"
	" {\"time\": " T "003000, \"until\": " T "005000, \"private\": 31457280, \"private_min\": 31457280,"
	"  \"private_max\": 31457280, \"resident\": 41943040, \"resident_min\": 41943040, \"resident_max\": 41943040},"
	" {\"time\": " T "003500, \"until\": " T "003500, \"private\": null}],"
	" \"censuses\": ["
	" {\"census_id\": 6, \"time\": " T "000500, \"trigger\": \"first\", \"status\": \"ok\", \"light\": false,"
	"  \"classes\": {\"other\": {\"private\": 10485760}, \"malloc\": {\"private\": 5242880}}},"
	" {\"census_id\": 7, \"time\": " T "002500, \"trigger\": \"growth\", \"status\": \"ok\", \"light\": false,"
	"  \"classes\": {\"other\": {\"private\": 20971520}, \"malloc\": {\"private\": 5242880}}},"
	" {\"census_id\": 8, \"time\": " T "003000, \"trigger\": \"request\", \"status\": \"ok\", \"light\": true,"
	"  \"classes\": {\"other\": {\"private\": null}}},"
	" {\"census_id\": 9, \"time\": " T "004000, \"trigger\": \"interval\", \"status\": \"error\", \"light\": false,"
	"  \"classes\": {}}],"
	" \"marks\": [{\"time\": " T "001500, \"name\": \"go & <stop>\"}], \"next\": null}";

static char *page_of(const char *report_text, const char *history_text, int expect)
{
	json_error_t e;
	json_t *report = json_loads(report_text, 0, &e), *history = json_loads(history_text, 0, &e);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(report);
	assert_non_null(history);
	assert_non_null(f);
	assert_int_equal(render_report_html(report, history, f), expect);
	assert_int_equal(fclose(f), 0);
	json_decref(report);
	json_decref(history);
	return buf;
}

/* The d of the first path of class cls after the svg with that id. */
static char *path_d(const char *page, const char *id, const char *cls)
{
	char want[128];
	const char *svg, *p, *end;

	snprintf(want, sizeof(want), "<svg id=\"%s\"", id);
	assert_non_null(svg = strstr(page, want));
	snprintf(want, sizeof(want), "<path class=\"%s\"", cls);
	assert_non_null(p = strstr(svg, want));
	assert_true(p < strstr(svg, "</svg>"));
	assert_non_null(p = strstr(p, " d=\""));
	p += 4;
	end = strchr(p, '"');
	return strndup(p, (size_t)(end - p));
}

static void test_charts(void **state)
{
	char *page = page_of(report_json, history_json, 0), *d;

	(void)state;
	/* the window is first sight to +5s: x from 64 to 944, 176 px a second;
	 * the memory chart's axis goes to 48M (16M steps), 5 px a MiB from 274 */
	d = path_d(page, "memory", "line private");
	assert_string_equal(d, "M240.0 224.0L416.0 124.0L592.0 124.0L944.0 124.0");
	free(d);
	d = path_d(page, "memory", "band resident");
	assert_string_equal(d, "M240.0 164.0L416.0 64.0L592.0 74.0L944.0 74.0"
			       "L944.0 74.0L592.0 74.0L416.0 164.0L240.0 184.0Z");
	free(d);
	assert_non_null(strstr(page, "<text class=\"size\" x=\"58\" y=\"38.0\">48M</text>"));
	assert_non_null(strstr(page, "<text class=\"time\" x=\"944.0\" y=\"292\">5s</text>"));
	/* the peak of each phase on the private line, its size above */
	assert_non_null(strstr(page, "<g class=\"peak\"><circle cx=\"240.0\" cy=\"214.0\" r=\"3.5\"/>"
				     "<text x=\"240.0\" y=\"207.0\">12.0 MiB</text><title>(start): 12.0 MiB at "));
	assert_non_null(strstr(page, "<g class=\"peak\"><circle cx=\"416.0\" cy=\"124.0\" r=\"3.5\"/>"
				     "<text x=\"416.0\" y=\"117.0\">30.0 MiB</text><title>go &amp; &lt;stop&gt;: 30.0 MiB at "));
	/* the classes: other (the larger at the last census) at the bottom,
	 * each census held until the next, the last until the window's end;
	 * the light and the failed census left out; the axis to 32M, 7.5 px
	 * a MiB */
	d = path_d(page, "classes", "area other");
	assert_string_equal(d, "M152.0 199.0L504.0 199.0L504.0 124.0L944.0 124.0"
			       "L944.0 274.0L504.0 274.0L504.0 274.0L152.0 274.0Z");
	free(d);
	d = path_d(page, "classes", "area malloc");
	assert_string_equal(d, "M152.0 161.5L504.0 161.5L504.0 86.5L944.0 86.5"
			       "L944.0 124.0L504.0 124.0L504.0 199.0L152.0 199.0Z");
	free(d);
	assert_true(strstr(page, "area other") < strstr(page, "area malloc"));
	/* the mark on both charts, at +1.5s, its name escaped */
	const char *mark = "<g class=\"mark\"><line x1=\"328.0\" x2=\"328.0\" y1=\"18\" y2=\"274\"/>"
			   "<text x=\"331.0\" y=\"16\">go &amp; &lt;stop&gt;</text></g>";
	const char *first = strstr(page, mark);
	assert_non_null(first);
	assert_non_null(strstr(first + 1, mark));
	assert_true(first > strstr(page, "<svg id=\"memory\"") && first < strstr(page, "<svg id=\"classes\""));
	free(page);
}

static void test_page(void **state)
{
	char *page = page_of(report_json, history_json, 0);

	(void)state;
	assert_true(startswith(page, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"));
	assert_non_null(strstr(page, "<title>Memory report: a&lt;b&gt;&amp; (pid 42)</title>"));
	assert_non_null(strstr(page, "<h1>Memory report: a&lt;b&gt;&amp; (pid 42)</h1>"));
	assert_non_null(strstr(page, "<dt>Command</dt><dd>run &quot;x&quot; &#39;y&#39;</dd>"));
	assert_non_null(strstr(page, "<dd>/bin/\xc3\xa9</dd>"));
	assert_non_null(strstr(page, "Peak private memory <strong>30.0 MiB</strong>"));
	/* the phases, the last census's class and region, what is new */
	assert_non_null(strstr(page, "<tr><td>go &amp; &lt;stop&gt;</td><td class=\"t\">"));
	assert_non_null(strstr(page, "<p>Census #7 (growth) at "));
	assert_non_null(strstr(page, "Other anonymous memory"));
	assert_non_null(strstr(page, "<td class=\"path\">/tmp/&lt;evil&gt;</td>"));
	assert_non_null(strstr(page, "<p>From census #6 ("));
	assert_non_null(strstr(page, "<td class=\"n\">+10.0 MiB</td>"));
	assert_non_null(strstr(page, "<td class=\"path\">/data/a&amp;b.bin</td>"));
	assert_non_null(strstr(page, "1 appeared, 0 disappeared, 2 grew, 0 shrank"));
	/* self-contained: nothing to fetch, nothing to run */
	assert_null(strstr(page, "http"));
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "<evil>"));
	assert_true(endswith(page, "</body>\n</html>\n"));
	free(page);
}

/* In use or kept: the last census's classes get in use and free where a
 * heap walk read them, and each class that grew its sentence, escaped;
 * without them the page is as before. */
static void test_in_use_or_kept(void **state)
{
	(void)state;
	json_error_t e;
	json_t *report = json_loads(report_json, 0, &e);
	assert_non_null(report);
	json_t *other = json_array_get(json_object_get(json_object_get(report, "last_census"), "classes"), 0);
	json_object_set_new(other, "in_use", json_integer(15728640));
	json_object_set_new(other, "free", json_integer(4194304));
	json_object_set_new(report, "in_use_or_kept",
			    json_loads("[{\"class\": \"malloc\", \"growth\": \"held\","
				       " \"first\": {\"census_id\": 6, \"time\": " T "000500, \"private\": 0, \"in_use\": 0,"
				       "  \"free\": 0, \"unknown\": 0, \"returnable\": 0},"
				       " \"last\": {\"census_id\": 7, \"time\": " T "002500, \"private\": 5242880,"
				       "  \"in_use\": 5242880, \"free\": 0, \"unknown\": 0, \"returnable\": 0},"
				       " \"shown_by\": [], \"shown_by_count\": 0, \"slow_rise\": null,"
				       " \"how\": \"glibc <2.36> & co\"}]",
				       0, &e));
	char *text = json_dumps(report, 0);
	char *page = page_of(text, history_json, 0);
	assert_non_null(strstr(page, "<th>class</th><th class=\"n\">private</th><th class=\"n\">in use</th>"
				     "<th class=\"n\">free</th>"));
	assert_non_null(strstr(page, "<td class=\"n\">20.0 MiB</td><td class=\"n\">15.0 MiB</td>"
				     "<td class=\"n\">4.00 MiB</td>"));
	assert_non_null(strstr(page, "<h2>In use or kept</h2>"));
	assert_non_null(strstr(page, "<li>malloc, from census #6 to #7, grew by 5.00 MiB (in use +5.00 MiB, free 0 B): "
				     "held by the program, a leak candidate.</li>"));
	assert_null(strstr(page, "<2.36>"));
	free(page);
	free(text);
	json_decref(report);

	page = page_of(report_json, history_json, 0);
	assert_null(strstr(page, "In use or kept"));
	assert_null(strstr(page, ">in use<"));
	free(page);
}

static void test_nothing_stored(void **state)
{
	char *page;

	(void)state;
	page = page_of("{\"process\": {\"pid\": 5, \"comm\": \"idle\", \"first_seen\": 1000},"
		       " \"peak\": {\"private\": null}, \"phases\": [], \"last_census\": null, \"trend\": [],"
		       " \"since_previous\": null}",
		       "{\"samples\": [], \"censuses\": [], \"marks\": []}", 0);
	assert_non_null(strstr(page, "No samples of this process are stored."));
	assert_non_null(strstr(page, "No census with classes of this process is stored."));
	assert_non_null(strstr(page, "No census of this process is stored."));
	assert_non_null(strstr(page, "There is no earlier census"));
	assert_null(strstr(page, "<svg"));
	free(page);
	/* answers this client cannot read */
	free(page_of("{\"peak\": {}}", "{}", -EBADMSG));
	free(page_of("{\"process\": {}}", "[]", -EBADMSG));
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* n censuses a second apart from T000000, "other" (i + 1) MiB at the
 * i-th, and as many regions in the last census's largest. */
static void write_many(size_t censuses, size_t regions, char **ret_report, char **ret_history)
{
	json_t *list = json_array(), *largest = json_array(), *report, *history;

	for (size_t i = 0; i < censuses; i++)
		json_array_append_new(list, json_pack("{s:I, s:s, s:b, s:{s:{s:I}}}", "time",
						      (json_int_t)(1764440000000 + 1000 * (int64_t)i), "status", "ok",
						      "light", 0, "classes", "other", "private",
						      (json_int_t)((i + 1) * MiB)));
	for (size_t i = 0; i < regions; i++)
		json_array_append_new(largest, json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I}", "start", "0x1000",
							 "end", "0x2000", "class", "other", "path", "/r",
							 "private", (json_int_t)4096, "resident", (json_int_t)4096,
							 "size", (json_int_t)4096));
	report = json_pack("{s:{s:i, s:s, s:I}, s:[], s:{s:I, s:s, s:I, s:[], s:o}}", "process", "pid", 1, "comm", "x",
			   "first_seen", (json_int_t)1764440000000, "phases", "last_census", "census_id", (json_int_t)1,
			   "trigger", "interval", "taken_at", (json_int_t)1764440000000, "classes", "largest", largest);
	history = json_pack("{s:[], s:o, s:[]}", "samples", "censuses", list, "marks");
	assert_non_null(report);
	assert_non_null(history);
	*ret_report = json_dumps(report, 0);
	*ret_history = json_dumps(history, 0);
	json_decref(report);
	json_decref(history);
}

static void test_limits(void **state)
{
	char *report, *history, *page, *d;

	(void)state;
	/* CHART_POINTS censuses are drawn each, two points up and two down */
	write_many(CHART_POINTS, 1, &report, &history);
	page = page_of(report, history, 0);
	d = path_d(page, "classes", "area other");
	assert_int_equal(count(d, "L"), 4 * CHART_POINTS - 1);
	free(d);
	free(page);
	free(report);
	free(history);
	/* past it, the last of each of CHART_POINTS buckets: 1000 censuses a
	 * second apart, buckets of 1666 ms, the last census kept (its top
	 * is 1000 MiB on an axis to 1024M: 274 - 240 * 1000 / 1024) */
	write_many(1000, HTML_REGIONS_MAX + 1, &report, &history);
	page = page_of(report, history, 0);
	d = path_d(page, "classes", "area other");
	assert_int_equal(count(d, "L"), 4 * CHART_POINTS - 1);
	assert_non_null(strstr(d, "L944.0 39.6L944.0 274.0"));
	free(d);
	/* the largest regions listed, at most 20 */
	assert_int_equal(count(page, "<td class=\"path\">/r</td>"), HTML_REGIONS_MAX);
	assert_non_null(strstr(page, "The 20 largest of 21 kept."));
	free(page);
	free(report);
	free(history);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charts),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_in_use_or_kept),
		cmocka_unit_test(test_nothing_stored),
		cmocka_unit_test(test_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
