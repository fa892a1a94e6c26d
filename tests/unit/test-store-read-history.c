/* The "history" answer: its shape and values on known rows, the merging of
 * raw, minute and hour rows that retention leaves (every sample counted
 * once), resampling into steps, and paging: over many pages, with rows of
 * several instances at the same times, every row comes exactly once. */
#include "test-store-read-lib.h"

#include "limits.h"
#include "util.h"

/* The columns of a row written by hand, in the order of the values below:
 * a column added to samples later takes its default. */
#define ROW_COLUMNS                                                                                             \
	"(process_id, resolution, time, private_min, private_max, private_last, resident_min, resident_max,"      \
	" resident_last, swap_last, samples, until)"

static struct store_history_query query(int pid, int64_t since, int64_t until)
{
	return (struct store_history_query){ .sel = { .pid = pid, .only_uid = -1 }, .since = since, .until = until,
					     .limit = RW_ANSWER_ROWS_MAX };
}

static json_t *history(struct tmp *t, const struct store_history_query *q)
{
	json_t *o = NULL;
	struct error err;
	if (store_read_history(reader_of(t), q, &o, &err) < 0)
		fail_msg("history: %s", err.message);
	return o;
}

/* A raw row of exactly one sample whose values say which it was. */
static void put_one(struct tmp *t, int64_t id, int64_t time, uint64_t v)
{
	struct store_sample x = { .time = time, .private_min = v, .private_max = v, .private_last = v,
				  .resident_min = 2 * v, .resident_max = 2 * v, .resident_last = 2 * v,
				  .swap_last = 0, .samples = 1 };
	if (store_put_sample(writer_of(t), id, &x) < 0)
		fail_msg("put_sample: %s", store_error(t->s));
}

/* ------------------------------------------------------------ shape */

static void test_shape(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_history_query q = query(4242, H0, H0 + 30 * SECOND);
	const char *classes[] = { "runtime_heap", "malloc" };
	json_t *o;
	const json_t *x, *cs, *k;
	int64_t id, ok, light, failed;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
					       .cmdline = "java -jar app.jar", .first_seen = H0, .last_seen = H0 + HOUR,
					       .exited_at = -1 });
	put_sample(t, id, H0 + 10 * SECOND, 100, 300, 200, 1000);
	put_sample(t, id, H0 + 20 * SECOND, 150, 350, 250, 1100);
	put_sample(t, id, H0 + 30 * SECOND, 170, 370, 270, 1200);
	put_sample(t, id, H0 + 40 * SECOND, 1, 1, 1, 1);
	ok = put_census(t, id, H0 + 15 * SECOND, TRIGGER_FIRST, CENSUS_OK, c);
	c->light = true;
	light = put_census(t, id, H0 + 25 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	c->light = false;
	failed = put_census(t, id, H0 + 28 * SECOND, TRIGGER_INTERVAL, CENSUS_EXITED, NULL);
	put_census(t, id, H0 + 35 * SECOND, TRIGGER_INTERVAL, CENSUS_OK, c);
	assert_int_equal(store_put_mark(t->s, id, H0 + 12 * SECOND, "load model", 1000), 0);
	assert_int_equal(store_put_mark(t->s, id, H0 + 31 * SECOND, "later", 1000), 0);
	commit(t);

	q.classes = classes;
	q.n_classes = 2;
	o = history(t, &q);

	x = jget(o, "instances");
	assert_int_equal(json_array_size(x), 1);
	assert_int_equal(jint(jat(x, 0), "process_id"), id);
	assert_string_equal(jstr(jat(x, 0), "label"), "java [4242]");
	assert_true(jnull(o, "next"));
	assert_true(jnull(o, "filtered_to_uid"));

	/* samples: as stored, in the window (its ends included) */
	x = jget(o, "samples");
	assert_int_equal(json_array_size(x), 3);
	const json_t *s0 = jat(x, 0);
	assert_int_equal(jint(s0, "process_id"), id);
	assert_int_equal(jint(s0, "time"), H0 + 10 * SECOND);
	assert_int_equal(jint(s0, "resolution"), 0);
	assert_int_equal(jint(s0, "private"), 200);
	assert_int_equal(jint(s0, "private_min"), 100);
	assert_int_equal(jint(s0, "private_max"), 300);
	assert_int_equal(jint(s0, "resident"), 1000);
	assert_int_equal(jint(s0, "resident_min"), 500);
	assert_int_equal(jint(s0, "resident_max"), 2000);
	assert_int_equal(jint(s0, "swap"), 7);
	assert_int_equal(jint(s0, "samples"), 10);
	assert_int_equal(jint(jat(x, 2), "time"), H0 + 30 * SECOND);
	assert_int_equal(jint(jat(x, 2), "private"), 270);

	/* censuses, each with the asked classes */
	cs = jget(o, "censuses");
	assert_int_equal(json_array_size(cs), 3);
	x = jat(cs, 0);
	assert_int_equal(jint(x, "census_id"), ok);
	assert_int_equal(jint(x, "process_id"), id);
	assert_int_equal(jint(x, "time"), H0 + 15 * SECOND);
	assert_string_equal(jstr(x, "trigger"), "first");
	assert_string_equal(jstr(x, "status"), "ok");
	assert_false(json_is_true(jget(x, "light")));
	assert_true(jnull(x, "message"));
	assert_int_equal(jint(x, "private"), c->totals.private);
	assert_int_equal(jint(x, "resident"), c->totals.resident);
	k = jget(x, "classes");
	size_t expected = (c->classes[CLASS_RUNTIME_HEAP].count > 0) + (c->classes[CLASS_MALLOC].count > 0);
	assert_true(expected >= 1);
	assert_int_equal(json_object_size(k), expected);
	const json_t *heap = jget(k, "runtime_heap");
	assert_int_equal(jint(heap, "private"), c->classes[CLASS_RUNTIME_HEAP].private);
	assert_int_equal(jint(heap, "resident"), c->classes[CLASS_RUNTIME_HEAP].resident);
	assert_int_equal(jint(heap, "size"), c->classes[CLASS_RUNTIME_HEAP].size);
	assert_int_equal(jint(heap, "count"), c->classes[CLASS_RUNTIME_HEAP].count);
	/* a light census: sizes known, memory per class not */
	x = jat(cs, 1);
	assert_int_equal(jint(x, "census_id"), light);
	assert_true(json_is_true(jget(x, "light")));
	heap = jget(jget(x, "classes"), "runtime_heap");
	assert_true(jnull(heap, "private"));
	assert_true(jnull(heap, "resident"));
	assert_int_equal(jint(heap, "size"), c->classes[CLASS_RUNTIME_HEAP].size);
	/* a census that failed: its message, no classes */
	x = jat(cs, 2);
	assert_int_equal(jint(x, "census_id"), failed);
	assert_string_equal(jstr(x, "status"), "exited");
	assert_string_equal(jstr(x, "message"), "the process exited during the census");
	assert_true(jnull(x, "private"));
	assert_int_equal(json_object_size(jget(x, "classes")), 0);

	x = jget(o, "marks");
	assert_int_equal(json_array_size(x), 1);
	assert_int_equal(jint(jat(x, 0), "process_id"), id);
	assert_int_equal(jint(jat(x, 0), "time"), H0 + 12 * SECOND);
	assert_string_equal(jstr(jat(x, 0), "name"), "load model");
	assert_int_equal(jint(jat(x, 0), "by_uid"), 1000);
	json_decref(o);

	/* every class when none is named */
	q.classes = NULL;
	q.n_classes = 0;
	o = history(t, &q);
	size_t all = 0;
	for (int i = 0; i < _CLASS_MAX; i++)
		all += c->classes[i].count > 0;
	assert_int_equal(json_object_size(jget(jat(jget(o, "censuses"), 0), "classes")), all);
	/* written out and read back, as the socket carries it: the same */
	q.until = H0 + HOUR;
	json_decref(o);
	o = history(t, &q);
	char *text = json_dumps(o, JSON_COMPACT);
	assert_non_null(text);
	json_t *back = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(back);
	assert_true(json_equal(o, back));
	/* the first and last ok censuses have the same classes */
	cs = jget(o, "censuses");
	assert_int_equal(json_array_size(cs), 4);
	assert_true(json_equal(jget(jat(cs, 0), "classes"), jget(jat(cs, 3), "classes")));
	json_decref(back);
	free(text);
	json_decref(o);

	/* a window that holds nothing: empty lists, no error */
	q = query(4242, H0 + DAY, H0 + 2 * DAY);
	o = history(t, &q);
	assert_int_equal(json_array_size(jget(o, "samples")), 0);
	assert_int_equal(json_array_size(jget(o, "censuses")), 0);
	assert_int_equal(json_array_size(jget(o, "instances")), 1);
	json_decref(o);
	census_free(c);
}

/* ------------------------------------------------------------ rollups */

/* Three hours of raw rows of one sample each, rolled up by retention as
 * the daemon does (the cutoffs inside a minute and inside an hour, so a
 * minute row and an hour row are rolled up in part), then read back:
 * every sample exactly once, times increasing, tiers in order. */
static void test_rollup_merge(void **state)
{
	struct tmp *t = *state;
	const int n = 3 * 360;
	struct store_history_query q = query(4242, H0, H0 + 4 * HOUR);
	json_t *o;
	const json_t *a;
	int64_t id, sum = 0, last = INT64_MIN, res = INT64_MAX, max = 0, min = INT64_MAX;
	bool more = true;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
					       .last_seen = H0 + 3 * HOUR, .exited_at = -1 });
	for (int i = 1; i <= n; i++)
		put_one(t, id, H0 + i * 10 * SECOND, 1000 + (uint64_t)((i * 7919) % n));
	commit(t);
	struct store_retention rt = { .now = H0 + 3 * HOUR, .raw_for = HOUR + 25 * SECOND,
				      .minutes_for = 2 * HOUR + 7 * MINUTE, .batch = 100 };
	for (int steps = 0; more && steps < 1000; steps++)
		if (store_retention_step(t->s, &rt, &more) < 0)
			fail_msg("retention: %s", store_error(t->s));

	o = history(t, &q);
	a = jget(o, "samples");
	int64_t first_raw = -1, first_minute = -1, clamped_minute = -1, clamped_hour = -1;
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *x = jat(a, i);
		int64_t time = jint(x, "time"), r = jint(x, "resolution");
		assert_true(time > last);
		assert_true(r <= res);
		if (r == 0 && first_raw < 0)
			first_raw = time;
		if (r == MINUTE && first_minute < 0)
			first_minute = time;
		if (r == MINUTE && time % MINUTE != 0)
			clamped_minute = time;
		if (r == HOUR && time % HOUR != 0)
			clamped_hour = time;
		last = time;
		res = r;
		sum += jint(x, "samples");
		max = jint(x, "private_max") > max ? jint(x, "private_max") : max;
		min = jint(x, "private_min") < min ? jint(x, "private_min") : min;
	}
	assert_int_equal(sum, n);
	assert_int_equal(max, 1000 + n - 1);
	assert_int_equal(min, 1000);
	/* the rows that straddle a tier's start sit just before it */
	assert_int_equal(first_raw, H0 + HOUR + 59 * MINUTE + 40 * SECOND);
	assert_int_equal(clamped_minute, first_raw - 1);
	assert_int_equal(first_minute, H0 + 53 * MINUTE);
	assert_int_equal(clamped_hour, first_minute - 1);
	json_decref(o);

	/* Rows that repeat finer ones (a hand-made database, a minute row
	 * over raw rows, an hour row over minute rows) are left out. */
	raw_exec(t->db, "INSERT INTO samples " ROW_COLUMNS
			" VALUES (1, 60000, 472223 * 3600000 + 9000000, 0, 99999, 0, 0, 99999, 0, 0,"
			" 999, 472223 * 3600000 + 9000000),"
			" (1, 3600000, 472223 * 3600000 + 7200000, 0, 99999, 0, 0, 99999, 0,"
			" 0, 999, 472223 * 3600000 + 7200000)");
	o = history(t, &q);
	a = jget(o, "samples");
	sum = 0;
	for (size_t i = 0; i < json_array_size(a); i++) {
		sum += jint(jat(a, i), "samples");
		assert_true(jint(jat(a, i), "private_max") < 99999);
	}
	assert_int_equal(sum, n);

	/* Several instances go through one merged statement, one instance
	 * through its tiers in turn: the same rows either way (the other
	 * instance matched here has none). */
	begin(t);
	put_proc(t, &(struct proc_spec){ .pid = 4243, .uid = 1000, .comm = "java", .first_seen = H0,
					  .last_seen = H0 + HOUR, .exited_at = -1 });
	commit(t);
	struct store_history_query both = q;
	both.sel = (struct store_select){ .name = "java", .only_uid = -1 };
	json_t *merged = history(t, &both);
	assert_int_equal(json_array_size(jget(merged, "instances")), 2);
	assert_true(json_equal(jget(merged, "samples"), jget(o, "samples")));
	json_decref(merged);
	json_decref(o);

	/* a window inside: rows whose time is in it, nothing else */
	q = query(4242, H0 + HOUR, H0 + 2 * HOUR + 30 * MINUTE);
	o = history(t, &q);
	a = jget(o, "samples");
	assert_true(json_array_size(a) > 0);
	for (size_t i = 0; i < json_array_size(a); i++) {
		int64_t time = jint(jat(a, i), "time");
		assert_true(time >= q.since && time <= q.until);
	}
	json_decref(o);
}

/* ------------------------------------------------------------ steps */

static void test_step(void **state)
{
	struct tmp *t = *state;
	struct store_history_query q = query(4242, H0, H0 + HOUR);
	json_t *o;
	const json_t *a, *b;
	int64_t id;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
					       .last_seen = H0 + HOUR, .exited_at = -1 });
	/* 12 rows, 10 s apart: (H0, H0 + 60 s] and (H0 + 60 s, H0 + 120 s] */
	for (int i = 1; i <= 12; i++) {
		struct store_sample x = { .time = H0 + i * 10 * SECOND, .private_min = 100 - (uint64_t)i,
					  .private_max = 200 + (uint64_t)(i == 3 ? 50 : i), .private_last = 150 + (uint64_t)i,
					  .resident_min = 1000 - (uint64_t)i, .resident_max = 2000 + (uint64_t)i,
					  .resident_last = 1500 + (uint64_t)i, .swap_last = (uint64_t)i, .samples = 10 };
		assert_int_equal(store_put_sample(t->s, id, &x), 0);
	}
	commit(t);

	q.step_ms = MINUTE;
	o = history(t, &q);
	a = jget(o, "samples");
	assert_int_equal(json_array_size(a), 2);
	b = jat(a, 0);
	assert_int_equal(jint(b, "time"), H0 + MINUTE);
	assert_int_equal(jint(b, "resolution"), MINUTE);
	assert_int_equal(jint(b, "private_min"), 100 - 6); /* min of mins */
	assert_int_equal(jint(b, "private_max"), 250);     /* max of maxes */
	assert_int_equal(jint(b, "private"), 156);         /* last of lasts */
	assert_int_equal(jint(b, "resident_min"), 1000 - 6);
	assert_int_equal(jint(b, "resident_max"), 2006);
	assert_int_equal(jint(b, "resident"), 1506);
	assert_int_equal(jint(b, "swap"), 6);
	assert_int_equal(jint(b, "samples"), 60);
	b = jat(a, 1);
	assert_int_equal(jint(b, "time"), H0 + 2 * MINUTE);
	assert_int_equal(jint(b, "private_min"), 100 - 12);
	assert_int_equal(jint(b, "private_max"), 212);
	assert_int_equal(jint(b, "private"), 162);
	json_decref(o);

	/* a window that starts inside a bucket takes only its rows */
	q.since = H0 + 35 * SECOND;
	o = history(t, &q);
	a = jget(o, "samples");
	assert_int_equal(json_array_size(a), 2);
	assert_int_equal(jint(jat(a, 0), "private_min"), 100 - 6);
	assert_int_equal(jint(jat(a, 0), "private_max"), 206);
	assert_int_equal(jint(jat(a, 0), "samples"), 30);
	json_decref(o);

	/* a step wider than the rows: one bucket; narrower than an hour row:
	 * the row's own resolution */
	q.since = H0;
	q.step_ms = HOUR;
	o = history(t, &q);
	assert_int_equal(json_array_size(jget(o, "samples")), 1);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "samples"), 120);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "time"), H0 + HOUR);
	json_decref(o);
	raw_exec(t->db, "INSERT INTO samples " ROW_COLUMNS " VALUES (1, 3600000, 472223 * 3600000, 5, 6, 7, 8, 9, 10, 0, 360,"
			" 472223 * 3600000)");
	q = query(4242, H0 - HOUR, H0);
	q.step_ms = MINUTE;
	o = history(t, &q);
	assert_int_equal(json_array_size(jget(o, "samples")), 1);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "resolution"), HOUR);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "time"), H0);
	json_decref(o);
}

/* ------------------------------------------------------------ paging */

struct row {
	int64_t process_id, time, resolution, samples;
};

/* Every sample row of every page of q (limit per page), in order; and the
 * census ids and mark times of all pages.  Returns the number of pages. */
static int all_pages(struct tmp *t, struct store_history_query q, struct row *rows, size_t *n_rows, int64_t *censuses,
		     size_t *n_censuses, int64_t *marks, size_t *n_marks, size_t max)
{
	char cursor[128] = "";
	int pages = 0;

	*n_rows = *n_censuses = *n_marks = 0;
	do {
		q.cursor = pages ? cursor : NULL;
		json_t *o = history(t, &q);
		const json_t *a = jget(o, "samples");
		assert_true(json_array_size(a) <= q.limit);
		for (size_t i = 0; i < json_array_size(a); i++) {
			const json_t *x = jat(a, i);
			assert_true(*n_rows < max);
			rows[(*n_rows)++] = (struct row){ jint(x, "process_id"), jint(x, "time"), jint(x, "resolution"),
							  jint(x, "samples") };
		}
		a = jget(o, "censuses");
		for (size_t i = 0; i < json_array_size(a); i++)
			censuses[(*n_censuses)++] = jint(jat(a, i), "census_id");
		a = jget(o, "marks");
		for (size_t i = 0; i < json_array_size(a); i++)
			marks[(*n_marks)++] = jint(jat(a, i), "time");
		if (jnull(o, "next"))
			cursor[0] = '\0';
		else
			snprintf(cursor, sizeof(cursor), "%s", jstr(o, "next"));
		json_decref(o);
		pages++;
		assert_true(pages < 1000);
	} while (cursor[0]);
	return pages;
}

static void assert_same_rows(const struct row *a, size_t n_a, const struct row *b, size_t n_b)
{
	assert_int_equal(n_a, n_b);
	for (size_t i = 0; i < n_a; i++) {
		assert_int_equal(a[i].process_id, b[i].process_id);
		assert_int_equal(a[i].time, b[i].time);
		assert_int_equal(a[i].resolution, b[i].resolution);
		assert_int_equal(a[i].samples, b[i].samples);
	}
}

static void test_paging(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	enum { MAX = 2000 };
	static struct row whole[MAX], paged[MAX];
	static int64_t cs_whole[MAX], cs_paged[MAX], mk_whole[MAX], mk_paged[MAX];
	size_t n_whole, n_paged, ncs_whole, ncs_paged, nmk_whole, nmk_paged;
	int64_t id[3];

	/* three workers with rows at the same times; the third's rows also
	 * of two minute rows given the same time (a hand-made database) */
	begin(t);
	for (int p = 0; p < 3; p++) {
		id[p] = put_proc(t, &(struct proc_spec){ .pid = 10 + p, .uid = 1000, .comm = "worker",
							  .first_seen = H0, .last_seen = H0 + HOUR, .exited_at = -1 });
		for (int i = 1; i <= 60; i++)
			put_one(t, id[p], p < 2 ? H0 + MINUTE + i * 10 * SECOND : H0 + MINUTE + (i - 1) * 10 * SECOND + 1,
				(uint64_t)(100 * p + i));
		for (int k = 0; k < 4; k++)
			put_census(t, id[p], H0 + MINUTE + k * 100 * SECOND, TRIGGER_INTERVAL, CENSUS_OK, c);
		assert_int_equal(store_put_mark(t->s, id[p], H0 + MINUTE + 150 * SECOND, "m", 1000), 0);
	}
	commit(t);
	/* minute rows ending at H0 + 1 min and H0 + 2 min: the second holds
	 * the first raw row (H0 + 1 min + 1 ms), so it is given just before
	 * it, at H0 + 1 min, the first's own time */
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "INSERT INTO samples " ROW_COLUMNS " VALUES (%lld, 60000, %lld, 1, 1, 1, 1, 1, 1, 0, 6, %lld);"
		 "INSERT INTO samples " ROW_COLUMNS " VALUES (%lld, 60000, %lld, 2, 2, 2, 2, 2, 2, 0, 5, %lld)",
		 (long long)id[2], (long long)(H0 + MINUTE), (long long)(H0 + MINUTE), (long long)id[2],
		 (long long)(H0 + 2 * MINUTE), (long long)(H0 + 2 * MINUTE));
	raw_exec(t->db, sql);

	struct store_history_query q = { .sel = { .name = "worker", .only_uid = -1 }, .since = H0,
					  .until = H0 + HOUR, .limit = MAX };
	assert_int_equal(all_pages(t, q, whole, &n_whole, cs_whole, &ncs_whole, mk_whole, &nmk_whole, MAX), 1);
	assert_int_equal(n_whole, 3 * 60 + 2);
	assert_int_equal(ncs_whole, 12);
	assert_int_equal(nmk_whole, 3);
	/* ordered by time, then instance */
	for (size_t i = 1; i < n_whole; i++)
		assert_true(whole[i].time > whole[i - 1].time ||
			    (whole[i].time == whole[i - 1].time && whole[i].process_id >= whole[i - 1].process_id));

	/* every page size, including those that end between equal times */
	static const unsigned limits[] = { 1, 2, 3, 7, 60, 181, 182, 183 };
	for (size_t l = 0; l < ELEMENTSOF(limits); l++) {
		q.limit = limits[l];
		int pages = all_pages(t, q, paged, &n_paged, cs_paged, &ncs_paged, mk_paged, &nmk_paged, MAX);
		assert_int_equal(pages, (n_whole + limits[l] - 1) / limits[l]);
		assert_same_rows(whole, n_whole, paged, n_paged);
		assert_int_equal(ncs_paged, ncs_whole);
		assert_memory_equal(cs_paged, cs_whole, ncs_whole * sizeof(int64_t));
		assert_int_equal(nmk_paged, nmk_whole);
		assert_memory_equal(mk_paged, mk_whole, nmk_whole * sizeof(int64_t));
	}

	/* one instance alone pages the same way: the third worker, whose two
	 * minute rows share a time */
	struct store_history_query one = q;
	one.sel = (struct store_select){ .pid = 12, .only_uid = -1 };
	one.limit = MAX;
	assert_int_equal(all_pages(t, one, whole, &n_whole, cs_whole, &ncs_whole, mk_whole, &nmk_whole, MAX), 1);
	assert_int_equal(n_whole, 62);
	assert_int_equal(whole[0].time, whole[1].time);
	assert_int_equal(whole[0].samples, 6);
	assert_int_equal(whole[1].samples, 5);
	for (unsigned limit = 1; limit <= 4; limit++) {
		one.limit = limit;
		all_pages(t, one, paged, &n_paged, cs_paged, &ncs_paged, mk_paged, &nmk_paged, MAX);
		assert_same_rows(whole, n_whole, paged, n_paged);
		assert_int_equal(ncs_paged, 4);
		assert_int_equal(nmk_paged, 1);
	}

	/* buckets page the same way */
	q.step_ms = MINUTE;
	q.limit = MAX;
	assert_int_equal(all_pages(t, q, whole, &n_whole, cs_whole, &ncs_whole, mk_whole, &nmk_whole, MAX), 1);
	assert_true(n_whole >= 3 * 10);
	for (unsigned limit = 1; limit <= 8; limit++) {
		q.limit = limit;
		all_pages(t, q, paged, &n_paged, cs_paged, &ncs_paged, mk_paged, &nmk_paged, MAX);
		assert_same_rows(whole, n_whole, paged, n_paged);
		assert_int_equal(ncs_paged, ncs_whole);
		assert_int_equal(nmk_paged, nmk_whole);
	}
	census_free(c);
}

/* ------------------------------------------------------------ limits and mistakes */

static void test_limits(void **state)
{
	struct tmp *t = *state;
	const int n = RW_ANSWER_ROWS_DEFAULT + 5;
	struct store_history_query q = query(4242, H0, H0 + DAY);
	json_t *o = NULL;
	struct error err;
	int64_t id;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
					       .last_seen = H0 + DAY, .exited_at = -1 });
	for (int i = 0; i < n; i++)
		put_one(t, id, H0 + i * SECOND, (uint64_t)i);
	commit(t);

	/* no limit: the default; past the most: the most */
	q.limit = 0;
	o = history(t, &q);
	assert_int_equal(json_array_size(jget(o, "samples")), RW_ANSWER_ROWS_DEFAULT);
	q.cursor = jstr(o, "next");
	json_t *second = history(t, &q);
	assert_int_equal(json_array_size(jget(second, "samples")), 5);
	assert_true(jnull(second, "next"));
	json_decref(second);
	json_decref(o);
	q.cursor = NULL;
	q.limit = RW_ANSWER_ROWS_MAX + 1;
	o = history(t, &q);
	assert_int_equal(json_array_size(jget(o, "samples")), n);
	json_decref(o);

	struct store_reader *r = reader_of(t);
	q.since = H0 + 1;
	q.until = H0;
	assert_int_equal(store_read_history(r, &q, &o, &err), -EINVAL);
	assert_non_null(strstr(err.message, "since"));
	q = query(4242, H0, H0 + DAY);
	q.step_ms = -1;
	assert_int_equal(store_read_history(r, &q, &o, &err), -EINVAL);
	q.step_ms = 0;
	const char *bad[] = { "nonsense" };
	q.classes = bad;
	q.n_classes = 1;
	assert_int_equal(store_read_history(r, &q, &o, &err), -EINVAL);
	assert_string_equal(err.message, "classes: \"nonsense\" is not a class");
	q.classes = NULL;
	q.n_classes = 0;
	static const char *const cursors[] = { "", "h", "h:1:2:3", "h:1:2:3:4:5", "h:x:2:3:4", "s:1:2:60000",
					       "e:1:2", "h:1:2:3:4 ", "h:1:2:3:+4", "h:99999999999999999999:1:1:1" };
	for (size_t i = 0; i < ELEMENTSOF(cursors); i++) {
		q.cursor = cursors[i];
		assert_int_equal(store_read_history(r, &q, &o, &err), -EINVAL);
		assert_non_null(strstr(err.message, "cursor"));
	}
	/* a cursor of buckets of another step */
	q.cursor = "s:1:2:60000";
	q.step_ms = 1000;
	assert_int_equal(store_read_history(r, &q, &o, &err), -EINVAL);
	q.step_ms = 60000;
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
	/* nobody's process and others' */
	q = query(4243, H0, H0 + DAY);
	assert_int_equal(store_read_history(r, &q, &o, &err), -ENOENT);
	q = query(4242, H0, H0 + DAY);
	q.sel.only_uid = 1001;
	assert_int_equal(store_read_history(r, &q, &o, &err), -EACCES);
	q.sel = (struct store_select){ .name = "java", .only_uid = 1001 };
	assert_int_equal(store_read_history(r, &q, &o, &err), -ENOENT);
	q.sel.only_uid = 1000;
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	assert_int_equal(jint(o, "filtered_to_uid"), 1000);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shape, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_rollup_merge, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_step, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_paging, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_limits, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
