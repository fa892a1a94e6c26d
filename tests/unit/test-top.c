/* ramwatch top's model and layout: rows from canned answers, their order
 * and filters, the bar's split, the sparkline's glyphs, the limit on
 * history reads, and the screen as text. */
#include "testlib.h"

#include <jansson.h>

#include "top-layout.h"
#include "text.h"
#include "top-model.h"
#include "util.h"

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("bad JSON in the test: %s", e.text);
	return j;
}

static const char PROCESSES[] =
	"{\"processes\": ["
	" {\"process_id\": 1, \"pid\": 100, \"uid\": 0, \"user\": \"root\", \"comm\": \"big\", \"cmdline\": \"big --run\","
	"  \"watched\": true, \"private\": 104857600, \"resident\": 110100480, \"peak_private\": 209715200,"
	"  \"vram\": null, \"first_seen\": 1000,"
	"  \"last_census\": {\"census_id\": 7, \"time\": 5000, \"trigger\": \"interval\", \"status\": \"ok\"}},"
	" {\"process_id\": 2, \"pid\": 200, \"uid\": 1000, \"user\": \"ana\", \"comm\": \"Python3\", \"cmdline\": \"python3 \\u001b[2Jtrain.py\","
	"  \"watched\": true, \"private\": 52428800, \"resident\": 209715200, \"peak_private\": 62914560,"
	"  \"vram\": 1073741824, \"last_census\": null},"
	" {\"process_id\": 3, \"pid\": 300, \"uid\": 1000, \"user\": null, \"comm\": \"small\", \"cmdline\": \"\","
	"  \"watched\": true, \"private\": 1048576, \"resident\": 2097152, \"peak_private\": 1048576, \"last_census\": null},"
	" {\"process_id\": 4, \"pid\": 400, \"uid\": 0, \"comm\": \"gone\", \"watched\": false, \"private\": 999999999}"
	"], \"filtered_to_uid\": null}";

static void parse(struct top_row **rows, size_t *n)
{
	json_t *a = load(PROCESSES);
	assert_int_equal(top_rows_parse(a, rows, n), 0);
	json_decref(a);
}

static void test_parse(void **state)
{
	(void)state;
	struct top_row *rows;
	size_t n;

	parse(&rows, &n);
	assert_int_equal(n, 3); /* the one not watched is left out */
	assert_int_equal(rows[0].pid, 100);
	assert_string_equal(rows[0].user, "root");
	assert_string_equal(rows[0].command, "big --run");
	assert_int_equal(rows[0].private, 100 * MiB);
	assert_int_equal(rows[0].peak_private, 200 * MiB);
	assert_false(rows[0].have_vram);
	assert_int_equal(rows[0].census_id, 7);
	assert_string_equal(rows[0].census_status, "ok");
	assert_true(rows[1].have_vram);
	assert_int_equal(rows[1].vram, GiB);
	/* an escape sequence in a command line is shown, not obeyed */
	assert_string_equal(rows[1].command, "python3 \\x1b[2Jtrain.py");
	assert_string_equal(rows[2].user, "");
	assert_string_equal(rows[2].command, "small"); /* no command line: its name */
	free(rows);

	json_t *bad = load("{\"processes\": [{\"watched\": true, \"private\": 1}]}");
	assert_int_equal(top_rows_parse(bad, &rows, &n), -EBADMSG);
	json_decref(bad);
	bad = load("{\"nothing\": 1}");
	assert_int_equal(top_rows_parse(bad, &rows, &n), -EBADMSG);
	json_decref(bad);
}

static const char HISTORY[] =
	"{\"samples\": ["
	" {\"process_id\": 1, \"time\": 10000, \"private\": 73400320},"  /* bucket 0: (0, 10000] */
	" {\"process_id\": 1, \"time\": 30000, \"private\": 83886080},"  /* bucket 2 */
	" {\"process_id\": 1, \"time\": 200000, \"private\": 104857600}," /* bucket 19 */
	" {\"process_id\": 9, \"time\": 40000, \"private\": 1}"          /* another instance */
	"], \"censuses\": ["
	" {\"process_id\": 1, \"census_id\": 6, \"time\": 4000, \"status\": \"ok\", \"classes\": {\"python\": {\"private\": 1}}},"
	" {\"process_id\": 1, \"census_id\": 7, \"time\": 5000, \"status\": \"ok\","
	"  \"classes\": {\"python\": {\"private\": 25165824}, \"malloc\": {\"private\": 75497472}, \"stacks\": {\"private\": 0}}},"
	" {\"process_id\": 1, \"census_id\": 8, \"time\": 6000, \"status\": \"exited\", \"classes\": {}}"
	"]}";

static void test_history_and_census(void **state)
{
	(void)state;
	struct top_row *rows;
	size_t n;
	json_t *h = load(HISTORY);

	parse(&rows, &n);
	top_row_take_history(&rows[0], h, 0, 10000);
	assert_true(rows[0].spark_known[0] && !rows[0].spark_known[1] && rows[0].spark_known[2]);
	assert_true(rows[0].spark_known[19]);
	assert_int_equal(rows[0].spark[0], 70 * MiB);
	assert_int_equal(rows[0].spark[19], 100 * MiB);
	for (size_t i = 3; i < 19; i++)
		assert_false(rows[0].spark_known[i]);
	assert_true(rows[0].have_growth);
	assert_int_equal(rows[0].growth, (int64_t)(30 * MiB)); /* 100 now, 70 at the window's start */

	assert_int_equal(top_row_take_census(&rows[0], h), 0);
	assert_int_equal(rows[0].classes_census_id, 7); /* the newest ok one */
	assert_int_equal(rows[0].n_classes, 3);
	assert_string_equal(rows[0].classes[0].key, "malloc");
	assert_int_equal(rows[0].classes[0].private, 72 * MiB);
	assert_string_equal(rows[0].classes[1].key, "python");
	assert_string_equal(rows[0].classes[2].key, "stacks");

	/* the window's first row, when asked for, is the start */
	json_t *first = load("{\"samples\": [{\"process_id\": 1, \"time\": 10, \"private\": 10485760},"
			     " {\"process_id\": 1, \"time\": 20, \"private\": 1}]}");
	top_row_take_start(&rows[0], first);
	assert_true(rows[0].have_start);
	assert_int_equal(rows[0].start_private, 10 * MiB);
	assert_int_equal(rows[0].growth, (int64_t)(90 * MiB));
	top_row_take_history(&rows[0], h, 0, 10000); /* the start stays the start */
	assert_int_equal(rows[0].growth, (int64_t)(90 * MiB));
	json_decref(first);

	json_t *none = load("{\"samples\": [], \"censuses\": [{\"status\": \"denied\", \"classes\": {}}]}");
	assert_int_equal(top_row_take_census(&rows[1], none), -ENOENT);
	assert_int_equal(rows[1].n_classes, 0);
	top_row_take_history(&rows[1], none, 0, 10000);
	assert_false(rows[1].have_growth);
	json_decref(none);

	/* the next refresh keeps what was read, by instance */
	struct top_row *again;
	size_t m;
	parse(&again, &m);
	again[0].private = 110 * MiB;
	top_rows_carry(again, m, rows, n);
	assert_int_equal(again[0].classes_census_id, 7);
	assert_int_equal(again[0].n_classes, 3);
	assert_int_equal(again[0].growth, (int64_t)(100 * MiB)); /* 110 now, 10 at the start */
	assert_int_equal(again[1].n_classes, 0);
	free(again);
	free(rows);
	json_decref(h);
}

static void test_order_and_filter(void **state)
{
	(void)state;
	struct top_row *rows;
	size_t n, order[8];

	parse(&rows, &n);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order), 3);
	assert_int_equal(rows[order[0]].pid, 100);
	assert_int_equal(rows[order[1]].pid, 200);
	assert_int_equal(rows[order[2]].pid, 300);
	assert_int_equal(top_order(rows, n, TOP_SORT_RESIDENT, NULL, NULL, order), 3);
	assert_int_equal(rows[order[0]].pid, 200);
	assert_int_equal(top_order(rows, n, TOP_SORT_PEAK, NULL, NULL, order), 3);
	assert_int_equal(rows[order[0]].pid, 100);
	/* VRAM: who has none comes last */
	assert_int_equal(top_order(rows, n, TOP_SORT_VRAM, NULL, NULL, order), 3);
	assert_int_equal(rows[order[0]].pid, 200);
	assert_int_equal(rows[order[1]].pid, 100);
	/* growth: known first, largest first, then unknown by pid */
	rows[2].have_growth = true;
	rows[2].growth = 5 * MiB;
	rows[0].have_growth = true;
	rows[0].growth = -(int64_t)MiB;
	assert_int_equal(top_order(rows, n, TOP_SORT_GROWTH, NULL, NULL, order), 3);
	assert_int_equal(rows[order[0]].pid, 300);
	assert_int_equal(rows[order[1]].pid, 100);
	assert_int_equal(rows[order[2]].pid, 200);

	/* name: a part of the name or command line, case ignored */
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, "python", NULL, order), 1);
	assert_int_equal(rows[order[0]].pid, 200);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, "RUN", NULL, order), 1);
	assert_int_equal(rows[order[0]].pid, 100);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, "nothing", NULL, order), 0);
	/* user: a name or a uid */
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, NULL, "ana", order), 1);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, NULL, "1000", order), 2);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, "small", "1000", order), 1);
	assert_int_equal(top_order(rows, n, TOP_SORT_PRIVATE, NULL, "an", order), 0);
	free(rows);

	assert_int_equal(top_sort_from_name("growth"), TOP_SORT_GROWTH);
	assert_int_equal(top_sort_from_name("size"), -1);
	assert_string_equal(top_sort_name(TOP_SORT_PEAK), "peak");
}

static void test_history_limit(void **state)
{
	(void)state;
	size_t n = TOP_HISTORY_MAX + 50;
	struct top_row *rows = calloc(n, sizeof(*rows));
	size_t *order = calloc(n, sizeof(*order)), *pick = calloc(n, sizeof(*pick));

	for (size_t i = 0; i < n; i++) {
		rows[i].pid = (int)i + 1;
		rows[i].private = (uint64_t)(i + 1) * MiB; /* the last is the largest */
	}
	/* the screen shows the smallest first: those of them among the
	 * largest TOP_HISTORY_MAX come first, the smallest 50 not at all */
	size_t shown = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	for (size_t i = 0; i < shown / 2; i++) {
		size_t t = order[i];
		order[i] = order[shown - 1 - i];
		order[shown - 1 - i] = t;
	}
	size_t m = top_history_pick(rows, n, order, shown, pick, n);
	assert_int_equal(m, TOP_HISTORY_MAX);
	assert_int_equal(rows[pick[0]].pid, 51);
	for (size_t i = 0; i < m; i++)
		assert_true(rows[pick[i]].pid > 50);
	assert_int_equal(top_history_pick(rows, n, order, shown, pick, 10), 10);
	free(rows);
	free(order);
	free(pick);
}

static void test_bar(void **state)
{
	(void)state;
	struct top_class_share c[3] = { { .key = "malloc", .private = 60 }, { .key = "python", .private = 30 }, { .key = "stacks", .private = 10 } };
	unsigned cells[3];

	assert_int_equal(top_bar_length(100, 100, 20), 20);
	assert_int_equal(top_bar_length(50, 100, 20), 10);
	assert_int_equal(top_bar_length(1, 1000000, 20), 1); /* any memory shows */
	assert_int_equal(top_bar_length(0, 100, 20), 0);
	assert_int_equal(top_bar_length(UINT64_MAX / 2, UINT64_MAX, 20), 10);

	assert_int_equal(top_bar_split(c, 3, 10, cells), 10);
	assert_int_equal(cells[0], 6);
	assert_int_equal(cells[1], 3);
	assert_int_equal(cells[2], 1);
	/* largest remainder: 7 cells of 60/30/10 are 4.2, 2.1, 0.7 */
	assert_int_equal(top_bar_split(c, 3, 7, cells), 7);
	assert_int_equal(cells[0], 4);
	assert_int_equal(cells[1], 2);
	assert_int_equal(cells[2], 1);
	struct top_class_share tiny[2] = { { .key = "malloc", .private = 1000000 }, { .key = "stacks", .private = 1 } };
	assert_int_equal(top_bar_split(tiny, 2, 5, cells), 5);
	assert_int_equal(cells[0], 5);
	assert_int_equal(cells[1], 0);
	struct top_class_share zero[1] = { { .key = "malloc", .private = 0 } };
	assert_int_equal(top_bar_split(zero, 1, 5, cells), 0);

	assert_int_equal(top_class_look("malloc").glyph, 'm');
	assert_int_equal(top_class_look("python").glyph, 'p');
	assert_int_equal(top_class_look("stacks").glyph, 't');
	assert_int_equal(top_class_look("not-a-class").glyph, '?');
}

static void test_sparkline(void **state)
{
	(void)state;
	uint64_t v[4] = { 10, 20, 30, 80 };
	bool known[4] = { true, true, false, true };
	char buf[TOP_SPARK_POINTS * 3 + 1];

	top_sparkline(v, known, 4, false, buf, sizeof(buf));
	assert_string_equal(buf, "\u2581\u2582 \u2588");
	top_sparkline(v, known, 4, true, buf, sizeof(buf));
	assert_string_equal(buf, "_. #");
	uint64_t flat[3] = { 5, 5, 5 };
	bool all[3] = { true, true, true };
	top_sparkline(flat, all, 3, true, buf, sizeof(buf));
	assert_string_equal(buf, "___");
	/* a buffer too short takes whole glyphs only */
	char small[5];
	assert_int_equal(top_sparkline(v, known, 4, false, small, sizeof(small)), 3);
	assert_string_equal(small, "\u2581");
}

static void test_system_line(void **state)
{
	(void)state;
	char buf[256];
	json_t *s = load("{\"system\": {\"mem_total\": 17179869184, \"mem_available\": 4294967296,"
			 " \"swap_total\": 0, \"swap_free\": 0, \"pressure\": {\"some_avg10\": 1.5, \"full_avg10\": 0.25}}}");

	assert_true(top_system_line(s, buf, sizeof(buf)));
	assert_string_equal(buf, "machine: 16.0 GiB total, 4.00 GiB available (25%), pressure some 1.50% full 0.25% (10 s)");
	json_decref(s);
	s = load("{\"system\": null}");
	assert_false(top_system_line(s, buf, sizeof(buf)));
	json_decref(s);
}

static char *frame_text(const struct top_frame *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	assert_int_equal(top_frame_print(f, out), 0);
	fclose(out);
	return buf;
}

/* Past the limits: more classes than a row keeps, a command line longer
 * than it keeps (cut at a character, not inside one). */
static void test_limits(void **state)
{
	(void)state;
	struct top_row row = { .process_id = 1 };
	json_t *classes = json_object();
	char key[24];

	for (unsigned i = 0; i < TOP_CLASSES_MAX + 8; i++) {
		snprintf(key, sizeof(key), "class%02u", i);
		json_object_set_new(classes, key, json_pack("{s:I}", "private", (json_int_t)(i + 1) * 1024));
	}
	json_t *h = json_pack("{s:[{s:I, s:I, s:I, s:s, s:o}]}", "censuses", "process_id", 1, "census_id", 3, "time", 9,
			      "status", "ok", "classes", classes);
	assert_int_equal(top_row_take_census(&row, h), 0);
	assert_int_equal(row.n_classes, TOP_CLASSES_MAX);
	assert_int_equal(row.classes[0].private >= row.classes[TOP_CLASSES_MAX - 1].private, true);
	json_decref(h);

	/* a command line of 300 two-byte characters */
	char cmdline[601];
	for (int i = 0; i < 300; i++)
		memcpy(cmdline + 2 * i, "\u00e9", 2);
	cmdline[600] = '\0';
	json_t *a = json_pack("{s:[{s:i, s:I, s:b, s:s, s:s}]}", "processes", "pid", 5, "private", (json_int_t)1, "watched",
			      1, "comm", "e", "cmdline", cmdline);
	struct top_row *rows;
	size_t n;
	assert_int_equal(top_rows_parse(a, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(strlen(rows[0].command), TOP_COMMAND_MAX);
	assert_true(text_utf8_valid(rows[0].command, strlen(rows[0].command), NULL));
	free(rows);
	json_decref(a);
}

static void test_layout(void **state)
{
	(void)state;
	struct top_row *rows;
	size_t n, order[4];
	json_t *h = load(HISTORY);

	parse(&rows, &n);
	assert_int_equal(top_row_take_census(&rows[0], h), 0);
	top_row_take_history(&rows[0], h, 0, 10000);
	size_t m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	struct top_view v = { .sort = TOP_SORT_PRIVATE, .selected = 1, .ascii = true, .window_ms = 300000,
			      .interval_ms = 2000, .only_uid = -1, .system_line = "machine: test" };
	struct top_frame *f = top_frame_new(10, 160);
	top_layout(f, &v, rows, order, m, NULL);
	char *text = frame_text(f);
	assert_non_null(strstr(text, "ramwatch top: 3 processes, by private, every 2s\n"));
	assert_non_null(strstr(text, "\nmachine: test\n"));
	assert_non_null(strstr(text, "classes: m malloc p python t stacks\n"));
	assert_non_null(strstr(text, "LAST 5min"));
	/* 100 MiB: the whole bar, 72 of 96 MiB malloc, 24 python */
	assert_non_null(strstr(text, "    100 root        100 MiB    105 MiB    200 MiB  +30.0 MiB          - "
				     "mmmmmmmmmmmmmmmppppp _ -                # big --run\n"));
	/* no census yet: the bar in '-', half as long */
	assert_non_null(strstr(text, "    200 ana        50.0 MiB    200 MiB   60.0 MiB          -   1.00 GiB ----------"));
	assert_non_null(strstr(text, "    300 1000"));
	assert_int_equal(f->cells[5 * f->cols].attr, TOP_ATTR_REVERSE); /* the picked row */
	assert_int_equal(f->cells[5 * f->cols + 75].attr, TOP_ATTR_REVERSE); /* its bar, without a census */
	assert_int_equal(f->cells[4 * f->cols].attr, TOP_ATTR_NONE);
	free(text);
	top_frame_free(f);

	/* a frame too short for all: the picked row is the first shown */
	f = top_frame_new(6, 80);
	v.first = 1;
	top_layout(f, &v, rows, order, m, NULL);
	text = frame_text(f);
	assert_non_null(strstr(text, "    200 ana"));
	assert_null(strstr(text, "    100 root"));
	free(text);
	top_frame_free(f);

	/* the detail view: classes, census, marks */
	json_t *d = load("{\"marks\": [{\"time\": 1764440005000, \"name\": \"load\\u0007\"}], \"censuses\": []}");
	f = top_frame_new(24, 120);
	v = (struct top_view){ .detail = true, .selected = 0, .ascii = true, .window_ms = 300000, .interval_ms = 2000,
			       .only_uid = -1 };
	top_layout(f, &v, rows, order, m, d);
	text = frame_text(f);
	assert_non_null(strstr(text, "ramwatch top: pid 100 (big) of user root\n"));
	assert_non_null(strstr(text, "command: big --run\n"));
	assert_non_null(strstr(text, "last census: "));
	assert_non_null(strstr(text, "  m malloc           72.0 MiB  75.0% "));
	assert_non_null(strstr(text, "  p python           24.0 MiB  25.0% "));
	assert_non_null(strstr(text, "marks (1):\n"));
	assert_non_null(strstr(text, "  load\\x07\n"));
	free(text);
	top_frame_free(f);
	json_decref(d);

	/* no rows: says why */
	f = top_frame_new(8, 80);
	v = (struct top_view){ .name_filter = "zzz", .window_ms = 300000, .interval_ms = 2000, .only_uid = 1000 };
	top_layout(f, &v, rows, order, 0, NULL);
	text = frame_text(f);
	assert_non_null(strstr(text, "ramwatch top: 0 processes (yours only), by private, name ~ 'zzz'"));
	assert_non_null(strstr(text, "no watched process matches the filter"));
	free(text);
	top_frame_free(f);
	free(rows);
	json_decref(h);
}

/* In use beside private: a census that read the allocators gives each
 * class its in use and free, and the row their sums; a later census that
 * read none keeps them (the daemon reads them at some censuses only); the
 * list shows an IN USE column where a row on screen has it, the detail
 * view the figures of each class. */
static void test_in_use(void **state)
{
	(void)state;
	struct top_row *rows;
	size_t n, order[4];
	json_t *walked = load("{\"censuses\": [{\"process_id\": 1, \"census_id\": 7, \"time\": 5000, \"status\": \"ok\","
			      " \"classes\": {\"malloc\": {\"private\": 75497472, \"in_use\": 52428800, \"free\": 20971520},"
			      "  \"python\": {\"private\": 25165824}}}]}");
	json_t *not_walked = load("{\"censuses\": [{\"process_id\": 1, \"census_id\": 9, \"time\": 9000, \"status\": \"ok\","
				  " \"classes\": {\"malloc\": {\"private\": 80000000, \"in_use\": null, \"free\": null},"
				  "  \"python\": {\"private\": 25165824}}}]}");

	parse(&rows, &n);
	assert_int_equal(top_row_take_census(&rows[0], walked), 0);
	assert_true(rows[0].have_in_use);
	assert_int_equal(rows[0].in_use, 50 * MiB);
	assert_int_equal(rows[0].free, 20 * MiB);
	assert_int_equal(rows[0].in_use_time, 5000);
	assert_string_equal(rows[0].classes[0].key, "malloc");
	assert_true(rows[0].classes[0].have_in_use);
	assert_false(rows[0].classes[1].have_in_use);

	assert_int_equal(top_row_take_census(&rows[0], not_walked), 0);
	assert_int_equal(rows[0].classes_census_id, 9);
	assert_int_equal(rows[0].classes[0].private, 80000000);
	assert_true(rows[0].have_in_use && rows[0].classes[0].have_in_use);
	assert_int_equal(rows[0].in_use, 50 * MiB);
	assert_int_equal(rows[0].in_use_time, 5000);

	size_t m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	struct top_view v = { .sort = TOP_SORT_PRIVATE, .ascii = true, .window_ms = 300000, .interval_ms = 2000,
			      .only_uid = -1 };
	struct top_frame *f = top_frame_new(10, 170);
	top_layout(f, &v, rows, order, m, NULL);
	char *text = frame_text(f);
	assert_non_null(strstr(text, "    PID USER        PRIVATE     IN USE   RESIDENT       PEAK     GROWTH"));
	assert_non_null(strstr(text, "    100 root        100 MiB   50.0 MiB    105 MiB    200 MiB"));
	assert_non_null(strstr(text, "    200 ana        50.0 MiB          -    200 MiB"));
	free(text);
	top_frame_free(f);

	json_t *d = load("{\"marks\": [], \"censuses\": []}");
	f = top_frame_new(24, 120);
	v = (struct top_view){ .detail = true, .ascii = true, .window_ms = 300000, .interval_ms = 2000, .only_uid = -1 };
	top_layout(f, &v, rows, order, m, d);
	text = frame_text(f);
	assert_non_null(strstr(text, "\nin use 50.0 MiB  free 20.0 MiB  (of the classes whose allocator the census of "));
	assert_non_null(strstr(text, "  m malloc           76.3 MiB  76.1%   50.0 MiB in use   20.0 MiB free "));
	assert_non_null(strstr(text, "  p python           24.0 MiB  23.9%                                   ppp"));
	free(text);
	top_frame_free(f);
	json_decref(d);

	/* no census read them: no column */
	free(rows);
	parse(&rows, &n);
	f = top_frame_new(10, 170);
	m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	v = (struct top_view){ .sort = TOP_SORT_PRIVATE, .ascii = true, .window_ms = 300000, .interval_ms = 2000,
			       .only_uid = -1 };
	top_layout(f, &v, rows, order, m, NULL);
	text = frame_text(f);
	assert_null(strstr(text, "IN USE"));
	free(text);
	top_frame_free(f);
	free(rows);
	json_decref(walked);
	json_decref(not_walked);
}

/* Five processes in two memory cgroups and one the daemon knows no
 * cgroup of; two of them in a unit. */
static const char GROUPED[] =
	"{\"processes\": ["
	" {\"process_id\": 1, \"pid\": 100, \"uid\": 0, \"user\": \"root\", \"comm\": \"web\", \"watched\": true,"
	"  \"private\": 10485760, \"resident\": 20971520, \"cgroup\": \"/a\", \"unit\": \"a.service\"},"
	" {\"process_id\": 2, \"pid\": 200, \"uid\": 0, \"user\": \"root\", \"comm\": \"db\", \"watched\": true,"
	"  \"private\": 31457280, \"resident\": 32505856, \"vram\": 1073741824, \"cgroup\": \"/b\", \"unit\": null},"
	" {\"process_id\": 3, \"pid\": 300, \"uid\": 0, \"user\": \"root\", \"comm\": \"web\", \"watched\": true,"
	"  \"private\": 26214400, \"resident\": 27262976, \"cgroup\": \"/a\", \"unit\": \"a.service\"},"
	" {\"process_id\": 4, \"pid\": 400, \"uid\": 0, \"user\": \"root\", \"comm\": \"lost\", \"watched\": true,"
	"  \"private\": 5242880, \"resident\": 5242880, \"cgroup\": null, \"unit\": null},"
	" {\"process_id\": 5, \"pid\": 500, \"uid\": 0, \"user\": \"root\", \"comm\": \"webcache\", \"watched\": true,"
	"  \"private\": 1048576, \"resident\": 41943040, \"cgroup\": \"/b\", \"unit\": null}"
	"]}";

/* The pids of the lines, a group's header as 0. */
static size_t line_pids(const struct top_row *rows, const size_t *order, const struct top_line *lines, size_t n,
			int *ret)
{
	for (size_t i = 0; i < n; i++)
		ret[i] = lines[i].header ? 0 : rows[order[lines[i].at]].pid;
	return n;
}

/* Grouped by cgroup or unit: the groups largest first by the sum of the
 * order's key, each under its header, its processes in the order's; the
 * filters choose the processes first; the cursor's positions are the
 * processes'. */
static void test_group(void **state)
{
	(void)state;
	json_t *a = load(GROUPED);
	struct top_row *rows;
	size_t n, order[5], n_groups, n_lines;
	struct top_group groups[5];
	struct top_line lines[10];
	int pids[10];

	assert_int_equal(top_rows_parse(a, &rows, &n), 0);
	assert_int_equal(n, 5);
	assert_true(rows[0].have_cgroup && rows[0].have_unit);
	assert_string_equal(rows[0].cgroup, "/a");
	assert_string_equal(rows[0].unit, "a.service");
	assert_false(rows[1].have_unit);
	assert_false(rows[3].have_cgroup);

	/* by private: /a 35 MiB, /b 31 MiB, the unknown 5 MiB */
	size_t m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_CGROUP, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_int_equal(n_groups, 3);
	assert_int_equal(n_lines, 8);
	line_pids(rows, order, lines, n_lines, pids);
	assert_memory_equal(pids, ((int[]){ 0, 300, 100, 0, 200, 500, 0, 400 }), 8 * sizeof(int));
	assert_string_equal(groups[0].name, "/a");
	assert_int_equal(groups[0].processes, 2);
	assert_int_equal(groups[0].private, 35 * MiB);
	assert_int_equal(groups[0].resident, 46 * MiB);
	assert_false(groups[0].have_vram);
	assert_string_equal(groups[1].name, "/b");
	assert_true(groups[1].have_vram);
	assert_int_equal(groups[1].vram, GiB);
	assert_null(groups[2].name);
	assert_int_equal(groups[2].processes, 1);
	/* the cursor's position 2 is pid 200, on line 4, below /b's header */
	assert_int_equal(rows[order[2]].pid, 200);
	assert_int_equal(top_line_of(lines, n_lines, 2), 4);
	assert_int_equal(top_line_of(lines, n_lines, 9), n_lines);

	/* by resident: /b (71 MiB) before /a (46 MiB); in /b, 500 first */
	m = top_order(rows, n, TOP_SORT_RESIDENT, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_CGROUP, TOP_SORT_RESIDENT, groups, &n_groups, lines,
					 &n_lines),
			 0);
	line_pids(rows, order, lines, n_lines, pids);
	assert_memory_equal(pids, ((int[]){ 0, 500, 200, 0, 300, 100, 0, 400 }), 8 * sizeof(int));

	/* growth known of none: the groups by name, the unknown last */
	m = top_order(rows, n, TOP_SORT_GROWTH, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_CGROUP, TOP_SORT_GROWTH, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_string_equal(groups[0].name, "/a");
	assert_string_equal(groups[1].name, "/b");
	assert_null(groups[2].name);

	/* the filter first: of /b, 500 alone, its sums its own; no unknown */
	m = top_order(rows, n, TOP_SORT_PRIVATE, "web", NULL, order);
	assert_int_equal(m, 3);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_CGROUP, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_int_equal(n_groups, 2);
	line_pids(rows, order, lines, n_lines, pids);
	assert_memory_equal(pids, ((int[]){ 0, 300, 100, 0, 500 }), 5 * sizeof(int));
	assert_string_equal(groups[1].name, "/b");
	assert_int_equal(groups[1].processes, 1);
	assert_int_equal(groups[1].private, MiB);
	assert_int_equal(groups[1].resident, 40 * MiB);
	assert_false(groups[1].have_vram);

	/* by unit: the three it is unknown of (36 MiB) are a group like any,
	 * here before a.service (35 MiB) */
	m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_UNIT, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_int_equal(n_groups, 2);
	assert_null(groups[0].name);
	assert_int_equal(groups[0].processes, 3);
	assert_string_equal(groups[1].name, "a.service");
	line_pids(rows, order, lines, n_lines, pids);
	assert_memory_equal(pids, ((int[]){ 0, 200, 400, 500, 0, 300, 100 }), 7 * sizeof(int));

	/* none: a line per process, the order untouched */
	m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_NONE, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_int_equal(n_groups, 0);
	line_pids(rows, order, lines, n_lines, pids);
	assert_memory_equal(pids, ((int[]){ 200, 300, 100, 400, 500 }), 5 * sizeof(int));
	assert_int_equal(top_group_order(rows, order, 0, TOP_GROUP_CGROUP, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	assert_int_equal(n_lines, 0);

	/* the screen: the headers with the sums, the picked process */
	m = top_order(rows, n, TOP_SORT_PRIVATE, NULL, NULL, order);
	assert_int_equal(top_group_order(rows, order, m, TOP_GROUP_CGROUP, TOP_SORT_PRIVATE, groups, &n_groups, lines,
					 &n_lines),
			 0);
	struct top_view v = { .sort = TOP_SORT_PRIVATE, .selected = 2, .ascii = true, .window_ms = 300000,
			      .interval_ms = 2000, .only_uid = -1, .by = TOP_GROUP_CGROUP, .lines = lines,
			      .n_lines = n_lines, .groups = groups, .n_groups = n_groups };
	struct top_frame *f = top_frame_new(14, 170);
	top_layout(f, &v, rows, order, m, NULL);
	char *text = frame_text(f);
	assert_non_null(strstr(text, "ramwatch top: 5 processes in 3 cgroups, by private, every 2s\n"));
	assert_non_null(strstr(text, "\n2 processes        35.0 MiB   46.0 MiB                                -"
				     " cgroup /a\n"));
	assert_non_null(strstr(text, "\n2 processes        31.0 MiB   71.0 MiB                         1.00 GiB"
				     " cgroup /b\n"));
	assert_non_null(strstr(text, "\n1 process          5.00 MiB   5.00 MiB                                -"
				     " cgroup (unknown)\n"));
	assert_non_null(strstr(text, "g group"));
	/* line 4 of the list (the screen's 8th) is the picked 200 */
	assert_non_null(strstr(text, "\n    200 root"));
	assert_int_equal(f->cells[8 * f->cols].attr, TOP_ATTR_REVERSE);
	assert_int_equal(f->cells[7 * f->cols].attr, TOP_ATTR_BOLD); /* /b's header */
	free(text);
	top_frame_free(f);

	/* scrolled to the line of 200: /a's lines are off the screen */
	f = top_frame_new(8, 170);
	v.first = 3;
	top_layout(f, &v, rows, order, m, NULL);
	text = frame_text(f);
	assert_non_null(strstr(text, "cgroup /b\n    200 root"));
	assert_null(strstr(text, "cgroup /a"));
	free(text);
	top_frame_free(f);
	free(rows);
	json_decref(a);
}

/* A cgroup's name past TOP_GROUP_NAME_MAX bytes is cut there. */
static void test_group_name_limit(void **state)
{
	(void)state;
	char name[TOP_GROUP_NAME_MAX + 40];
	memset(name, 'x', sizeof(name) - 1);
	name[0] = '/';
	name[sizeof(name) - 1] = '\0';
	json_t *a = json_pack("{s:[{s:i, s:i, s:b, s:i, s:s, s:s}]}", "processes", "process_id", 1, "pid", 1, "watched",
			      1, "private", 1, "comm", "e", "cgroup", name);
	struct top_row *rows;
	size_t n;
	assert_int_equal(top_rows_parse(a, &rows, &n), 0);
	assert_true(rows[0].have_cgroup);
	assert_int_equal(strlen(rows[0].cgroup), TOP_GROUP_NAME_MAX);
	assert_false(rows[0].have_unit);
	free(rows);
	json_decref(a);
}

static void test_frame(void **state)
{
	(void)state;
	struct top_frame *f = top_frame_new(2, 5);
	/* cut at the edge, one column per character */
	assert_int_equal(top_frame_put(f, 0, 0, "h\u00e9llo world", 0, 0), 5);
	assert_int_equal(top_frame_put(f, 1, 3, "\x01z", 0, 0), 5);
	assert_int_equal(top_frame_put(f, 9, 0, "x", 0, 0), 0); /* below the frame */
	char *text = frame_text(f);
	assert_string_equal(text, "h\u00e9llo\n   \xef\xbf\xbdz\n");
	free(text);
	top_frame_free(f);
	assert_null(top_frame_new(0, 10));
	f = top_frame_new(TOP_LINES_MAX + 5, TOP_COLS_MAX + 5);
	assert_int_equal(f->lines, TOP_LINES_MAX);
	assert_int_equal(f->cols, TOP_COLS_MAX);
	top_frame_free(f);
}

/* Every order of top has the name --sort and the s key take. */
static void test_sort_names(void **state)
{
	(void)state;
	assert_enum_names("top sort", _TOP_SORT_MAX, top_sort_name, top_sort_from_name);
	assert_enum_names("top group", _TOP_GROUP_MAX, top_group_name, top_group_from_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_names),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_history_and_census),
		cmocka_unit_test(test_order_and_filter),
		cmocka_unit_test(test_history_limit),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_sparkline),
		cmocka_unit_test(test_system_line),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_in_use),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_group_name_limit),
		cmocka_unit_test(test_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
