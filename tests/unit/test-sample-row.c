/* The fast tier's row is declared once (schema/sample-row.h): every
 * counter of SAMPLE_COLUMNS must reach every place a row goes, and each
 * place must treat it by its how.  The table is walked here against what
 * a user sees: the columns of a new database (PRAGMA table_info), a row
 * written and read back through SQL, the history answer, its JSON and
 * CSV, the views that name it, rows merged (same time, rollups, history's
 * buckets, the fast tier's accumulator), the coalescing check, a
 * coalesced row cut by retention, and the metrics of the last sample.
 * A counter added to the table that one of these places misses fails
 * here. */
#include "test-store-read-lib.h"

#include "export-text.h"
#include "man-testlib.h"
#include "render-answer.h"
#include "sample-row.h"
#include "sample.h"
#include "util.h"

/* Columns of samples that are no counter: the row's key and its span. */
static const char *const structural[] = { "process_id", "resolution", "time", "until" };

static uint64_t get(const struct store_sample *x, int k)
{
	switch (k) {
#define GET_(name, ...)             \
	case SAMPLE_COLUMN_##name: \
		return x->name;
		SAMPLE_COLUMNS(GET_)
#undef GET_
	}
	fail_msg("no column %d", k);
	return 0;
}

static void set(struct store_sample *x, int k, uint64_t v)
{
	switch (k) {
#define SET_(name, ctype, ...)                \
	case SAMPLE_COLUMN_##name:           \
		x->name = (ctype)v;          \
		return;
		SAMPLE_COLUMNS(SET_)
#undef SET_
	}
	fail_msg("no column %d", k);
}

static int figure_of(int k)
{
	for (int f = 0; f < _SAMPLE_N_FIGURES; f++)
		if (streq(sample_figures[f].name, sample_columns[k].figure))
			return f;
	return -1;
}

/* A row whose counters all differ: column k holds base + 1000 * (k + 1). */
static struct store_sample distinct(int64_t time, uint64_t base)
{
	struct store_sample x = { .time = time };
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		set(&x, k, base + 1000 * (uint64_t)(k + 1));
	return x;
}

/* A steady row: every counter of figure f at v[f], samples n. */
static struct store_sample steady(int64_t time, const uint64_t v[_SAMPLE_N_FIGURES], uint32_t n)
{
	struct store_sample x = { .time = time };
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		set(&x, k, sample_columns[k].how == SAMPLE_SUM ? n : v[figure_of(k)]);
	return x;
}

/* What column k of a merge of a then b (b the later) holds, by its how. */
static uint64_t merged(int k, uint64_t a, uint64_t b)
{
	switch (sample_columns[k].how) {
	case SAMPLE_MIN: return a < b ? a : b;
	case SAMPLE_MAX: return a > b ? a : b;
	case SAMPLE_LAST: return b;
	case SAMPLE_SUM: return a + b;
	}
	return 0;
}

static int64_t proc(struct tmp *t)
{
	return put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
						 .first_seen = H0, .last_seen = H0, .exited_at = -1 });
}

static void put(struct store *s, int64_t id, const struct store_sample *x)
{
	if (store_put_sample(s, id, x) < 0)
		fail_msg("put_sample: %s", store_error(s));
}

/* The history answer of pid 4242 over [since, until], step_ms 0: as stored. */
static json_t *history(struct tmp *t, int64_t since, int64_t until, int64_t step_ms)
{
	struct store_history_query q = { .sel = by_pid(4242, -1), .since = since, .until = until, .step_ms = step_ms };
	struct error err;
	json_t *a = NULL;
	if (store_read_history(reader_of(t), &q, &a, &err) < 0)
		fail_msg("history: %s", err.message);
	return a;
}

static int64_t json_int(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v)) {
		char *s = json_dumps(o, 0);
		fail_msg("no integer \"%s\" in %s", key, s);
	}
	return json_integer_value(v);
}

/* ------------------------------------------------------------ the database */

static void test_table_is_the_database(void **state)
{
	struct tmp *t = *state;
	bool seen[_SAMPLE_N_COLUMNS] = { false };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	writer_of(t);
	assert_int_equal(sqlite3_open_v2(t->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name, type, \"notnull\" FROM pragma_table_info('samples')", -1, &st,
					    NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0), *type = (const char *)sqlite3_column_text(st, 1);
		bool found = false;
		for (size_t i = 0; i < ELEMENTSOF(structural); i++)
			found |= streq(structural[i], name);
		for (int k = 0; k < _SAMPLE_N_COLUMNS && !found; k++) {
			if (!streq(sample_columns[k].name, name))
				continue;
			found = seen[k] = true;
			assert_string_equal(type, sample_columns[k].sqltype);
			if (sqlite3_column_int(st, 2) != 1)
				fail_msg("samples.%s may be NULL: a counter's column is NOT NULL, with a DEFAULT that "
					 "rows written before it read back as",
					 name);
		}
		if (!found)
			fail_msg("samples.%s is in the database and not in SAMPLE_COLUMNS", name);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if (!seen[k])
			fail_msg("SAMPLE_COLUMNS has %s and the database has no such column: a migration must add it",
				 sample_columns[k].name);

	/* the table itself: figures with a LAST counter, one SUM (samples) */
	int sums = 0;
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		if (sample_columns[k].how == SAMPLE_SUM) {
			sums++;
			assert_string_equal(sample_columns[k].name, "samples");
			assert_string_equal(sample_columns[k].figure, "none");
			continue;
		}
		assert_true(figure_of(k) >= 0);
	}
	assert_int_equal(sums, 1);
	for (int f = 0; f < _SAMPLE_N_FIGURES; f++) {
		bool last = false;
		for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
			last |= figure_of(k) == f && sample_columns[k].how == SAMPLE_LAST;
		if (!last)
			fail_msg("figure %s has no LAST counter", sample_figures[f].name);
	}
}

/* ------------------------------------------------------------ every output */

/* Field i (from 0) of a CSV line without quotes, into buf; NULL past the
 * last. */
static const char *csv_nth(const char *line, int i, char *buf, size_t size)
{
	for (; i > 0; i--) {
		line = strchr(line, ',');
		if (!line)
			return NULL;
		line++;
	}
	snprintf(buf, size, "%.*s", (int)strcspn(line, ",\n"), line);
	return buf;
}

/* The field of line in the column the header names key; NULL when the
 * header has no such column. */
static const char *csv_field(const char *line, const char *head, const char *key, char *buf, size_t size)
{
	char name[64];
	for (int i = 0; csv_nth(head, i, name, sizeof(name)); i++)
		if (streq(name, key))
			return csv_nth(line, i, buf, size);
	return NULL;
}

static void test_every_column_reaches_every_output(void **state)
{
	struct tmp *t = *state;
	struct store_sample x = distinct(H0 + 10 * SECOND, 7);
	int64_t id;

	begin(t);
	id = proc(t);
	put(t->s, id, &x);
	commit(t);

	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		const struct sample_column_info *c = &sample_columns[k];
		/* the database */
		assert_int_equal(q_int_at(t->db, "SELECT \"%w\" FROM samples WHERE process_id = %lld", c->name, (long long)id),
				 get(&x, k));
		/* the views that show it, by their own names */
		char views[512], *save = NULL;
		snprintf(views, sizeof(views), "%s", c->views);
		for (char *v = strtok_r(views, " ", &save); v; v = strtok_r(NULL, " ", &save)) {
			char *column = strchr(v, '.'), *filter = strchr(v, '/'), *value = NULL;
			assert_non_null(column);
			*column++ = '\0';
			if (filter) {
				*filter++ = '\0';
				value = strchr(filter, '=');
				assert_non_null(value);
				*value++ = '\0';
			}
			int64_t got = filter ? q_int_at(t->db, "SELECT \"%w\" FROM \"%w\" WHERE process_id = %lld AND \"%w\" = %Q",
						     column, v, (long long)id, filter, value)
					     : q_int_at(t->db, "SELECT \"%w\" FROM \"%w\" WHERE process_id = %lld", column, v,
						     (long long)id);
			if ((uint64_t)got != get(&x, k))
				fail_msg("view %s.%s gives %lld for %s, stored %llu", v, column, (long long)got, c->name,
					 (unsigned long long)get(&x, k));
		}
	}

	/* the history answer, under each column's key, in the table's order */
	json_t *a = history(t, H0, H0 + MINUTE, 0), *row = json_array_get(json_object_get(a, "samples"), 0);
	assert_non_null(row);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		assert_int_equal(json_int(row, sample_columns[k].key), get(&x, k));
	const char *key;
	json_t *v;
	int order = 0;
	json_object_foreach(row, key, v) {
		if (order < _SAMPLE_N_COLUMNS && streq(key, sample_columns[order].key))
			order++;
	}
	assert_int_equal(order, _SAMPLE_N_COLUMNS);

	/* ramwatch history --format json: the same keys and values */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(answer_print_json(a, f), 0);
	fclose(f);
	json_t *printed = json_loads(text, 0, NULL), *prow = json_array_get(json_object_get(printed, "samples"), 0);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		assert_int_equal(json_int(prow, sample_columns[k].key), get(&x, k));
	json_decref(printed);
	free(text);

	/* ramwatch history --format csv: a column for each csv counter, named
	 * by its key, and none for the others */
	struct history_options o = { .format = ANSWER_CSV };
	f = open_memstream(&text, &len);
	assert_int_equal(render_history(a, &o, f), 0);
	fclose(f);
	char *head = text, *line = strchr(text, '\n');
	assert_non_null(line);
	*line++ = '\0';
	assert_non_null(strstr(line, ",sample,"));
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		char buf[64];
		const char *got = csv_field(line, head, sample_columns[k].key, buf, sizeof(buf));
		if (!sample_columns[k].csv) {
			assert_null(got);
			continue;
		}
		if (!got)
			fail_msg("the CSV has no column %s: %s", sample_columns[k].key, head);
		assert_int_equal(strtoull(got, NULL, 10), get(&x, k));
	}
	free(text);
	json_decref(a);
}

/* ------------------------------------------------------------ merging */

static void test_rows_merge_by_each_columns_how(void **state)
{
	struct tmp *t = *state;
	struct store_sample a = distinct(H0 + 10 * SECOND, 500), b = distinct(H0 + 10 * SECOND, 100);
	int64_t id;

	/* b's counters are below a's, but for two: above */
	set(&b, 0, get(&a, 0) + 3);
	set(&b, _SAMPLE_N_COLUMNS - 1, 5);
	begin(t);
	id = proc(t);
	put(t->s, id, &a);
	put(t->s, id, &b); /* the same time: merged into a's row */
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if ((uint64_t)q_int_at(t->db, "SELECT \"%w\" FROM samples", sample_columns[k].name) !=
		    merged(k, get(&a, k), get(&b, k)))
			fail_msg("a second row of the same time merged %s wrongly", sample_columns[k].name);

	/* rolled up into a minute with a later row c: the same merge */
	struct store_sample ab = a, c = distinct(H0 + 40 * SECOND, 300);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		set(&ab, k, merged(k, get(&a, k), get(&b, k)));
	set(&c, 1, 1);
	begin(t);
	put(t->s, id, &c);
	commit(t);

	/* history in a bucket of a minute: the same merge, read */
	json_t *h = history(t, H0, H0 + MINUTE, MINUTE), *row = json_array_get(json_object_get(h, "samples"), 0);
	assert_int_equal(json_array_size(json_object_get(h, "samples")), 1);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if ((uint64_t)json_int(row, sample_columns[k].key) != merged(k, get(&ab, k), get(&c, k)))
			fail_msg("history's bucket merged %s wrongly", sample_columns[k].name);
	json_decref(h);

	bool more = true;
	struct store_retention rt = { .now = H0 + 2 * HOUR, .raw_for = HOUR, .batch = 100 };
	while (more)
		if (store_retention_step(t->s, &rt, &more) < 0)
			fail_msg("retention: %s", store_error(t->s));
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE resolution = 0"), 0);
	assert_int_equal(q_int_at(t->db, "SELECT time FROM samples WHERE resolution = 60000"), H0 + MINUTE);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++)
		if ((uint64_t)q_int_at(t->db, "SELECT \"%w\" FROM samples WHERE resolution = 60000", sample_columns[k].name) !=
		    merged(k, get(&ab, k), get(&c, k)))
			fail_msg("the rollup merged %s wrongly", sample_columns[k].name);
}

static void test_accumulator_gathers_each_column(void **state)
{
	(void)state;
	struct sample_acc acc = { 0 };
	struct sample_figures f1 = { 0 }, f2 = { 0 }, f3 = { 0 };
	uint64_t v1[_SAMPLE_N_FIGURES], v2[_SAMPLE_N_FIGURES], v3[_SAMPLE_N_FIGURES];
	struct store_sample x;

	/* figure i: 10 + i, then 50 + i (the peak), then 30 + i */
	for (int i = 0; i < _SAMPLE_N_FIGURES; i++) {
		v1[i] = 10 + (uint64_t)i;
		v2[i] = 50 + (uint64_t)i;
		v3[i] = 30 + (uint64_t)i;
	}
#define FIG_(name, ...)                              \
	f1.name = v1[SAMPLE_FIGURE_##name];          \
	f2.name = v2[SAMPLE_FIGURE_##name];          \
	f3.name = v3[SAMPLE_FIGURE_##name];
	SAMPLE_FIGURES(FIG_)
#undef FIG_
	sample_acc_add(&acc, &f1, 1);
	sample_acc_add(&acc, &f2, 2);
	sample_acc_add(&acc, &f3, 1);
	assert_true(sample_acc_take(&acc, 99, &x));
	assert_int_equal(x.time, 99);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		int f = figure_of(k);
		uint64_t want = sample_columns[k].how == SAMPLE_SUM   ? 4
				: sample_columns[k].how == SAMPLE_MIN ? v1[f]
				: sample_columns[k].how == SAMPLE_MAX ? v2[f]
								      : v3[f];
		if (get(&x, k) != want)
			fail_msg("the accumulator gathered %s as %llu, not %llu", sample_columns[k].name,
				 (unsigned long long)get(&x, k), (unsigned long long)want);
	}
}

/* ------------------------------------------------------------ coalescing */

static struct store *coalescing_writer(struct tmp *t)
{
	struct store_options o = { .path = t->db, .coalesce = true };
	struct error err;
	if (store_open(&o, &t->s, &err) < 0)
		fail_msg("store_open: %s", err.message);
	return t->s;
}

static void test_every_column_keeps_rows_apart(void **state)
{
	struct tmp *t = *state;
	uint64_t v[_SAMPLE_N_FIGURES];
	int64_t id, time = H0 + 10 * SECOND, rows = 1;
	struct store_sample x;

	for (int f = 0; f < _SAMPLE_N_FIGURES; f++)
		v[f] = 1000 * (uint64_t)(f + 1);
	coalescing_writer(t);
	begin(t);
	id = proc(t);
	x = steady(time, v, 10);
	put(t->s, id, &x);
	x = steady(time += 10 * SECOND, v, 10); /* the same: coalesced */
	put(t->s, id, &x);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 0); /* not committed yet */
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), rows);

	/* a figure that moved (still steady at its new value): a row of its own */
	for (int f = 0; f < _SAMPLE_N_FIGURES; f++) {
		v[f]++;
		begin(t);
		x = steady(time += 10 * SECOND, v, 10);
		put(t->s, id, &x);
		x = steady(time += 10 * SECOND, v, 10);
		put(t->s, id, &x);
		commit(t);
		if (q_int_at(t->db, "SELECT count(*) FROM samples") != ++rows)
			fail_msg("a row whose %s changed joined the row before", sample_figures[f].name);
	}
	/* a counter that moved inside the interval (the row is not steady) */
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		if (sample_columns[k].how == SAMPLE_SUM || sample_columns[k].how == SAMPLE_LAST)
			continue;
		begin(t);
		x = steady(time += 10 * SECOND, v, 10);
		set(&x, k, get(&x, k) + (sample_columns[k].how == SAMPLE_MAX ? 1 : -1));
		put(t->s, id, &x);
		commit(t);
		if (q_int_at(t->db, "SELECT count(*) FROM samples") != ++rows)
			fail_msg("a row whose %s moved inside its interval joined the row before", sample_columns[k].name);
		begin(t);
		x = steady(time += 10 * SECOND, v, 10);
		put(t->s, id, &x); /* after an unsteady row: one of its own */
		commit(t);
		rows++;
	}
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), rows);
}

/* A coalesced row cut by a rollup: each part keeps every counter. */
static void test_coalesced_row_cut_keeps_every_column(void **state)
{
	struct tmp *t = *state;
	uint64_t v[_SAMPLE_N_FIGURES];
	int64_t id;

	for (int f = 0; f < _SAMPLE_N_FIGURES; f++)
		v[f] = 7000 + (uint64_t)f;
	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 12; i++) { /* 10 s apart: two minutes */
		struct store_sample x = steady(H0 + i * 10 * SECOND, v, 10);
		put(t->s, id, &x);
	}
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);

	bool more = true;
	struct store_retention rt = { .now = H0 + MINUTE + HOUR, .raw_for = HOUR, .batch = 100 };
	while (more)
		if (store_retention_step(t->s, &rt, &more) < 0)
			fail_msg("retention: %s", store_error(t->s));
	/* the first minute rolled up, the rest a raw row: each with every
	 * counter of the span, the samples shared out */
	struct store_sample want = steady(0, v, 0);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE resolution = 60000 AND time = %lld",
			       (long long)(H0 + MINUTE)),
			 1);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE resolution = 0"), 1);
	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		if (sample_columns[k].how == SAMPLE_SUM) {
			assert_int_equal(q_int_at(t->db, "SELECT sum(\"%w\") FROM samples", sample_columns[k].name), 120);
			continue;
		}
		if ((uint64_t)q_int_at(t->db, "SELECT min(\"%w\") FROM samples", sample_columns[k].name) != get(&want, k) ||
		    (uint64_t)q_int_at(t->db, "SELECT max(\"%w\") FROM samples", sample_columns[k].name) != get(&want, k))
			fail_msg("a part cut from a coalesced row lost %s", sample_columns[k].name);
	}
}

/* ------------------------------------------------------------ metrics */

static void test_figures_reach_the_metrics(void **state)
{
	(void)state;
	struct export_process p = { .comm = "java", .uid = 1000, .user = "ana" };
	struct export_daemon d = { .version = "0" };
	char *text = NULL, line[160];
	size_t len = 0;

#define FIG_(name, ...) p.name = 1000 + SAMPLE_FIGURE_##name;
	SAMPLE_FIGURES(FIG_)
#undef FIG_
	assert_int_equal(export_text_build(&d, &p, 1, EXPORT_GROUP_COMM, &text, &len), 0);
	for (int f = 0; f < _SAMPLE_N_FIGURES; f++) {
		snprintf(line, sizeof(line), "\nramwatch_process_memory_bytes{group=\"java\",kind=\"%s\"} %d\n",
			 sample_figures[f].name, 1000 + f);
		if (sample_figures[f].metric && !strstr(text, line))
			fail_msg("the metrics do not give %s:\n%s", sample_figures[f].name, text);
		snprintf(line, sizeof(line), "kind=\"%s\"}", sample_figures[f].name);
		if (!sample_figures[f].metric && strstr(text, line))
			fail_msg("the metrics give %s, which the table says they do not", sample_figures[f].name);
	}
	free(text);
}

/* ------------------------------------------------------------ the manual */

static void test_every_column_is_documented(void **state)
{
	(void)state;
	char *schema = man_section("ramwatch-schema.7", ".Ss samples", ".Ss "),
	     *history = man_section("ramwatch.1", ".It Cm history", ".It Cm report");

	for (int k = 0; k < _SAMPLE_N_COLUMNS; k++) {
		if (!man_names(schema, sample_columns[k].name))
			fail_msg("ramwatch-schema(7) does not describe samples.%s", sample_columns[k].name);
		if (sample_columns[k].csv && !man_names(history, sample_columns[k].key))
			fail_msg("ramwatch(1) does not list the CSV column %s of history", sample_columns[k].key);
	}
	free(schema);
	free(history);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_table_is_the_database, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_every_column_reaches_every_output, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_rows_merge_by_each_columns_how, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_accumulator_gathers_each_column),
		cmocka_unit_test_setup_teardown(test_every_column_keeps_rows_apart, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_coalesced_row_cut_keeps_every_column, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_figures_reach_the_metrics),
		cmocka_unit_test(test_every_column_is_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
