/* The store's read side, continued (test-store-read.c): GPU memory in the
 * answers, and that every query the reader runs walks an index. */
#include "test-store-read-lib.h"

#include "census-json.h"
#include "limits.h"
#include "store-migrations.h"
#include "store-read-internal.h"
#include "util.h"

/* ------------------------------------------------------------ GPU memory */

/* A process on a GPU (4242) and one on none (4243): the answers give the
 * GPU memory rows beside the samples of the same time (null where there
 * are none), the peak and when, by phase and by census, the census's GPU
 * section as stored, and the processes' current and peak VRAM. */
static void test_vram(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census(), *plain = java_census(), *back = NULL;
	struct store_select sel = by_pid(4242, -1), other = by_pid(4243, -1);
	struct store_reader *r;
	const json_t *s, *list;
	json_t *o = NULL;
	struct error err;
	int64_t gpu, mig;

	begin(t);
	int64_t id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "python3", .first_seen = H0,
						       .last_seen = H0 + HOUR, .exited_at = -1 });
	int64_t none = put_proc(t, &(struct proc_spec){ .pid = 4243, .uid = 1000, .comm = "bash", .first_seen = H0,
							 .last_seen = H0 + HOUR, .exited_at = -1 });
	gpu = put_gpu(t, H0, 0, "GPU-aaaa", 80ull << 30, 5ull << 30, true);
	mig = put_gpu(t, H0, 1, "MIG-bbbb", 10ull << 30, 1ull << 30, true);
	for (int i = 0; i < 6; i++) {
		put_sample(t, id, H0 + i * 10 * SECOND, 1, 2, 3, 4);
		put_sample(t, none, H0 + i * 10 * SECOND, 1, 2, 3, 4);
	}
	/* no row at the first sample's time; two devices at the third; the
	 * largest at the fourth */
	put_vram(t, id, gpu, H0 + 10 * SECOND, 100);
	put_vram(t, id, gpu, H0 + 20 * SECOND, 200);
	put_vram(t, id, mig, H0 + 20 * SECOND, 50);
	put_vram(t, id, gpu, H0 + 30 * SECOND, 900);
	put_vram(t, id, gpu, H0 + 40 * SECOND, 300);
	put_vram(t, id, gpu, H0 + 50 * SECOND, 400);
	gpu_section(c, 0, "GPU-aaaa", 300);
	put_census(t, id, H0 + 45 * SECOND, TRIGGER_GROWTH, CENSUS_OK, c);
	put_census(t, none, H0 + 45 * SECOND, TRIGGER_FIRST, CENSUS_OK, plain);
	assert_int_equal(store_put_mark(t->s, id, H0 + 35 * SECOND, "serve", 1000), 0);
	struct store_process peak = { .boot_id = "boot-a", .pid = 4242, .seen = H0 + HOUR, .exited_at = -1,
				      .peak_vram = 900 };
	assert_int_equal(store_put_process(t->s, &peak, NULL), 0);
	commit(t);
	r = reader_of(t);

	/* history: rows as stored */
	struct store_history_query q = { .sel = sel, .since = H0, .until = H0 + HOUR };
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	s = jget(o, "samples");
	assert_int_equal(json_array_size(s), 6);
	assert_true(jnull(jat(s, 0), "vram") && jnull(jat(s, 0), "vram_max"));
	assert_int_equal(jint(jat(s, 1), "vram"), 100);
	assert_int_equal(jint(jat(s, 2), "vram"), 250); /* both devices */
	assert_int_equal(jint(jat(s, 3), "vram_max"), 900);
	assert_int_equal(jint(jat(jget(o, "censuses"), 0), "vram"), 300);
	json_decref(o);
	/* in buckets of 30 s: (H0, H0+30] holds 10, 20, 30; the largest
	 * stays, the last is the last row's */
	q.since = H0 + 1;
	q.step_ms = 30 * SECOND;
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	s = jget(o, "samples");
	assert_int_equal(json_array_size(s), 2);
	assert_int_equal(jint(jat(s, 0), "vram"), 900);
	assert_int_equal(jint(jat(s, 0), "vram_max"), 900);
	assert_int_equal(jint(jat(s, 1), "vram"), 400);
	assert_int_equal(jint(jat(s, 1), "vram_max"), 400);
	json_decref(o);
	/* a process on no GPU: null everywhere */
	q = (struct store_history_query){ .sel = other, .since = H0, .until = H0 + HOUR };
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	assert_true(jnull(jat(jget(o, "samples"), 3), "vram"));
	assert_true(jnull(jat(jget(o, "censuses"), 0), "vram"));
	json_decref(o);
	/* both together (one statement for several instances) */
	q = (struct store_history_query){ .sel = { .name = "*", .only_uid = -1 }, .since = H0, .until = H0 + HOUR };
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	s = jget(o, "samples");
	assert_int_equal(json_array_size(s), 12);
	for (size_t i = 0; i < 12; i++) {
		const json_t *x = jat(s, i);
		if (jint(x, "process_id") == none || jint(x, "time") == H0)
			assert_true(jnull(x, "vram"));
		else if (jint(x, "time") == H0 + 30 * SECOND)
			assert_int_equal(jint(x, "vram"), 900);
	}
	json_decref(o);

	/* report: the peak and when, by phase, by census, the census's section */
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	assert_int_equal(jint(jget(o, "peak"), "vram"), 900);
	assert_int_equal(jint(jget(o, "peak"), "vram_time"), H0 + 30 * SECOND);
	list = jget(o, "phases");
	assert_int_equal(json_array_size(list), 2);
	assert_int_equal(jint(jat(list, 0), "peak_vram"), 900);
	assert_int_equal(jint(jat(list, 1), "peak_vram"), 400);
	assert_int_equal(jint(jat(jget(o, "trend"), 0), "vram"), 300);
	assert_int_equal(jint(jget(o, "process"), "peak_vram"), 900);
	assert_int_equal(jint(jget(o, "process"), "vram"), 400);
	assert_int_equal(census_from_json(jget(o, "last_census"), &back, &err), 0);
	assert_true(back->gpu.taken);
	assert_int_equal(back->gpu.state, GPU_OK);
	assert_int_equal(back->gpu.driver_version, 12040);
	assert_true(back->gpu.nvidia_mapped);
	assert_int_equal(back->gpu.n_uses, 1);
	assert_int_equal(back->gpu.uses[0].index, 0);
	assert_string_equal(back->gpu.uses[0].uuid, "GPU-aaaa");
	assert_string_equal(back->gpu.uses[0].name, "NVIDIA Test 0");
	assert_int_equal(back->gpu.uses[0].used, 300);
	assert_int_equal(back->gpu.uses[0].total, 80ull << 30);
	assert_false(back->gpu.uses[0].graphics);
	back = census_free(back);
	json_decref(o);
	assert_int_equal(store_read_report(r, &other, &o, &err), 0);
	assert_true(jnull(jget(o, "peak"), "vram") && jnull(jget(o, "peak"), "vram_time"));
	assert_true(jnull(jat(jget(o, "phases"), 0), "peak_vram"));
	assert_true(jnull(jget(o, "last_census"), "gpu"));
	assert_true(jnull(jget(o, "process"), "vram"));
	assert_int_equal(jint(jget(o, "process"), "peak_vram"), 0);
	json_decref(o);

	/* processes: sorted by GPU memory, the one on a GPU first */
	assert_int_equal(store_read_processes(r, -1, NULL, true, "vram", 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(jint(jat(list, 0), "pid"), 4242);
	assert_int_equal(jint(jat(list, 0), "vram"), 400);
	assert_true(jnull(jat(list, 1), "vram"));
	json_decref(o);
	census_free(c);
	census_free(plain);
}

/* ------------------------------------------------------------ query plans */

/* Asks SQLite how it runs each statement the reader prepared: none may
 * scan a table of rows.  Returns how many statements it looked at. */
static int check_plans(struct store_reader *r)
{
	/* what a plan may walk whole: the list of instances a statement was
	 * given, its own common table expressions, a constant row */
	static const char *const derived[] = { "json_each", "sel", "tiers", "edge", "merged", "boots", "CONSTANT",
					       "(subquery" };
	int prepared = 0;
	for (int i = 0; i < _RS_MAX; i++) {
		sqlite3_stmt *st = r->stmt[i], *plan = NULL;
		if (!st)
			continue;
		prepared++;
		char *sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sqlite3_sql(st));
		assert_int_equal(sqlite3_prepare_v2(r->db, sql, -1, &plan, NULL), SQLITE_OK);
		while (sqlite3_step(plan) == SQLITE_ROW) {
			const char *detail = (const char *)sqlite3_column_text(plan, 3);
			bool allowed = false;
			if (getenv("RAMWATCH_TEST_PLANS"))
				printf("%d: %s\n", i, detail);
			if (!startswith(detail, "SCAN "))
				continue;
			for (size_t k = 0; k < ELEMENTSOF(derived); k++)
				allowed |= startswith(detail + 5, derived[k]) != NULL;
			/* the processes table, one row per instance, by the list
			 * and by a glob (no index can serve one) */
			if (i == RS_PROCESS_LIST || i == RS_PROCESS_BY_NAME)
				allowed |= streq(detail, "SCAN p");
			/* the cgroups table, one row per group, listed whole in
			 * the order of its unique index */
			if (i == RS_CGROUP_LIST)
				allowed |= startswith(detail, "SCAN cgroups USING INDEX") != NULL;
			if (!allowed)
				fail_msg("statement %d: %s: %s", i, detail, sqlite3_sql(st));
		}
		sqlite3_finalize(plan);
		sqlite3_free(sql);
	}
	return prepared;
}

/* Fills a database with every kind of row for a few processes (an OOM
 * kill and a memory cgroup's rows too), runs every answer, then asks SQLite how it runs each statement the reader
 * prepared: none may scan a table of rows.  Only the processes table may
 * be read whole, by the list and by a name glob, which cannot use an index. */
static void test_query_plans(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_reader *r;
	struct store_select sel = by_pid(4242, -1);
	json_t *o = NULL;
	struct error err;
	int64_t id = 0;

	begin(t);
	/* the GPU memory rows too: the answers read them beside the samples */
	int64_t gpu = put_gpu(t, H0, 0, "GPU-0", 80ull << 30, 1ull << 30, true);
	gpu_section(c, 0, "GPU-0", 1ull << 30);
	for (int p = 0; p < 20; p++) {
		int64_t x = put_proc(t, &(struct proc_spec){ .boot = p % 2 ? "boot-a" : "boot-b", .pid = 4230 + p,
							      .uid = 1000, .comm = "java", .first_seen = H0,
							      .last_seen = H0 + HOUR, .exited_at = -1 });
		if (p == 12)
			id = x;
		for (int i = 0; i < 200; i++) {
			put_sample(t, x, H0 + i * 10 * SECOND, 1, 2, 3, 4);
			if (p % 2)
				put_vram(t, x, gpu, H0 + i * 10 * SECOND, 1 << 20);
		}
		int64_t census_id = put_census(t, x, H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
		put_census(t, x, H0 + 2 * MINUTE, TRIGGER_INTERVAL, CENSUS_OK, c);
		struct region_event ev = { .kind = REGION_GREW, .start = 0x1000, .cls = CLASS_MALLOC };
		assert_int_equal(store_put_region_events(t->s, x, census_id, H0 + MINUTE, &ev, 1), 0);
		assert_int_equal(store_put_mark(t->s, x, H0 + 5 * MINUTE, "phase", 1000), 0);
	}
	/* a kill of one of them, and its memory cgroup's rows */
	struct store_oom_kill k = { .time = H0 + HOUR, .sources = STORE_OOM_KMSG, .pid = 4242, .process_id = id,
				    .have_uid = true, .uid = 1000, .comm = "java", .cgroup = "/a.service",
				    .limit_cgroup = "/a.service" };
	assert_int_equal(store_put_oom_kill(t->s, &k, NULL), 0);
	int64_t group = 0;
	assert_int_equal(store_put_cgroup(t->s, H0, &(struct store_cgroup){ .version = 2, .path = "/a.service" }, &group),
			 0);
	for (int i = 0; i < 200; i++)
		assert_int_equal(store_put_cgroup_sample(t->s, group,
							 &(struct store_cgroup_sample){ .time = H0 + i * 10 * SECOND,
											.usage = 1 << 20 }),
				 0);
	commit(t);
	r = reader_of(t);
	struct store_oom_query oq = { .until = INT64_MAX, .cgroup = "/a.service", .only_uid = 1000 };
	assert_int_equal(store_read_oom_kills(r, &oq, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "kills")), 1);
	json_decref(o);
	assert_int_equal(store_read_cgroups(r, MINUTE, true, &o, &err), 0);
	json_decref(o);
	struct store_cgroup_history_query cq = { .unit = "a.service", .until = INT64_MAX };
	assert_int_equal(store_read_cgroup_history(r, &cq, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_instances(r, &sel, &o, &err), 0);
	assert_int_equal(jint(jat(o, 0), "process_id"), id);
	json_decref(o);
	struct store_select by_row = { .process_id = id, .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &by_row, &o, &err), 0);
	json_decref(o);

	struct store_history_query q = { .sel = sel, .since = H0, .until = H0 + HOUR, .limit = 100 };
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
	q.sel = (struct store_select){ .name = "jav?", .only_uid = -1 };
	q.step_ms = MINUTE;
	assert_int_equal(store_read_history(r, &q, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_census(r, &sel, INT64_MAX, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_census(r, &sel, STORE_CENSUS_FIRST, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_events(r, &sel, H0, H0 + HOUR, 10, NULL, &o, &err), 0);
	json_decref(o);
	assert_int_equal(store_read_processes(r, -1, NULL, true, "private", 10, &o, &err), 0);
	json_decref(o);

	/* as the daemon leaves a database (no statistics), then with them;
	 * every statement but ROLLBACK (only after a failed COMMIT) */
	assert_int_equal(check_plans(r), _RS_MAX - 1);
	raw_exec(t->db, "ANALYZE");
	assert_int_equal(check_plans(r), _RS_MAX - 1);
	census_free(c);
}

/* A table of columns that does not match its SELECT (swapped, one column
 * more or fewer, an expression without its name) is refused when the
 * statement is prepared, and the statement is not kept: the answer that
 * uses it next prepares its own.  The table that matches reads each row
 * under its keys, a page at a time. */
static void test_column_tables(void **state)
{
	static const struct read_column pair[] = { { "time", READ_INT }, { "name", READ_STR } };
	static const struct read_column one[] = { { "time", READ_INT } };
	static const struct read_column three[] = { { "time", READ_INT }, { "name", READ_STR }, { "by_uid", READ_INT } };
	static const struct {
		const char *sql;
		const struct read_column *columns;
		size_t n;
		const char *why;
	} wrong[] = {
		{ "SELECT name, time FROM marks", pair, ELEMENTSOF(pair), "column 1 is \"name\" where its table has \"time\"" },
		{ "SELECT time, name FROM marks", one, ELEMENTSOF(one), "column 2 is \"name\" where its table has \"(none)\"" },
		{ "SELECT time, name FROM marks", three, ELEMENTSOF(three), "column 3 is \"(none)\" where its table has \"by_uid\"" },
		{ "SELECT time + 0, name FROM marks", pair, ELEMENTSOF(pair), "column 1 is \"time + 0\"" },
		{ "SELECT time AS name, name AS time FROM marks", pair, ELEMENTSOF(pair), "column 1 is \"name\"" },
	};
	struct tmp *t = *state;
	struct store_reader *r;
	struct store_select sel = by_pid(4242, -1);
	sqlite3_stmt *st = NULL;
	json_t *o = NULL, *a;
	struct error err;
	int64_t id;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
					       .last_seen = H0 + HOUR, .exited_at = -1 });
	assert_int_equal(store_put_mark(t->s, id, H0 + MINUTE, "load", 1000), 0);
	assert_int_equal(store_put_mark(t->s, id, H0 + 2 * MINUTE, "train", 1000), 0);
	commit(t);
	r = reader_of(t);

	for (size_t i = 0; i < ELEMENTSOF(wrong); i++) {
		struct read_query q = { .id = RS_MARKS_WINDOW, .sql = wrong[i].sql, .columns = wrong[i].columns,
					.n_columns = wrong[i].n };
		assert_int_equal(read_query_prepare(r, &q, &st), -EPROTO);
		assert_null(r->stmt[RS_MARKS_WINDOW]);
		if (!strstr(r->error.message, wrong[i].why))
			fail_msg("%s: \"%s\" does not say %s", wrong[i].sql, r->error.message, wrong[i].why);
	}
	/* history prepares the statement of its own table, and reads it */
	struct store_history_query hq = { .sel = sel, .since = H0, .until = H0 + HOUR };
	assert_int_equal(store_read_history(r, &hq, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "marks")), 2);
	assert_string_equal(jstr(jat(jget(o, "marks"), 1), "name"), "train");
	assert_int_equal(jint(jat(jget(o, "marks"), 1), "by_uid"), 1000);
	json_decref(o);

	/* the report's statement of marks, with a table that matches it */
	struct read_query q = READ_QUERY(RS_MARKS, "SELECT time, name FROM marks WHERE process_id = ?1 ORDER BY time, id",
					 pair);
	a = json_array();
	assert_int_equal(read_query_prepare(r, &q, &st), 0);
	assert_int_equal(sqlite3_bind_int64(st, 1, id), SQLITE_OK);
	/* a page of one: the second row says another page follows */
	assert_int_equal(read_rows(r, st, &q, 1, a, NULL, NULL, "reading marks"), 1);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(sqlite3_bind_int64(st, 1, id), SQLITE_OK);
	assert_int_equal(read_rows(r, st, &q, 2, a, NULL, NULL, "reading marks"), 0);
	assert_int_equal(json_array_size(a), 3);
	_cleanup_free_ char *text = json_dumps(a, JSON_COMPACT);
	char want[256];
	snprintf(want, sizeof(want),
		 "[{\"time\":%lld,\"name\":\"load\"},{\"time\":%lld,\"name\":\"load\"},{\"time\":%lld,\"name\":\"train\"}]",
		 (long long)(H0 + MINUTE), (long long)(H0 + MINUTE), (long long)(H0 + 2 * MINUTE));
	assert_string_equal(text, want);
	json_decref(a);
}

/* A GPU section that is not ok keeps why (NVML's words) since schema 11:
 * the census read back says it as the census taken did. */
static void test_gpu_section_not_ok(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census(), *back = NULL;
	struct store_select sel = by_pid(4242, -1);
	struct error err;
	json_t *o = NULL;

	c->gpu = (struct census_gpu){ .taken = true, .state = GPU_ERROR, .nvidia_mapped = true };
	snprintf(c->gpu.message, sizeof(c->gpu.message), "nvmlInit: driver/library version mismatch");
	begin(t);
	put_census(t, put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "python3", .first_seen = H0,
							.last_seen = H0 + HOUR, .exited_at = -1 }),
		   H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
	commit(t);
	assert_int_equal(store_read_census(reader_of(t), &sel, INT64_MAX, &o, &err), 0);
	assert_string_equal(jstr(jget(o, "gpu"), "message"), "nvmlInit: driver/library version mismatch");
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_int_equal(back->gpu.state, GPU_ERROR);
	assert_string_equal(back->gpu.message, c->gpu.message);
	census_free(back);
	census_free(c);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vram, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_query_plans, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_column_tables, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_gpu_section_not_ok, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
