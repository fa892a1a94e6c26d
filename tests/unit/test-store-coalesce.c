/* Coalesced fast-tier rows (schema 6): identical steady raw rows stored as
 * one row over their span, a row that differs kept as it is, a new row
 * after a restart, and a database of schema 5 migrated with every old row
 * still there.  Each test writes the same rows to two databases, one
 * coalesced as the daemon writes it and one not, so that what is read
 * back can be compared with what the rows were. */
#include "test-store-read-lib.h"

#include "limits.h"
#include "store-migrations.h"
#include "util.h"

/* A writer of t's database with coalescing on (writer_of opens one
 * without). */
static struct store *coalescing_writer(struct tmp *t)
{
	if (!t->s) {
		struct store_options o = { .path = t->db, .coalesce = true };
		struct error err;
		if (store_open(&o, &t->s, &err) < 0)
			fail_msg("store_open: %s", err.message);
	}
	return t->s;
}

/* A row of 10 samples: steady at v (private v, resident 2v, swap 3: each
 * counter of a figure at its value, sample-row.h) unless spike > 0, which
 * is the private maximum inside the interval. */
static struct store_sample row(int64_t time, uint64_t v, uint64_t spike)
{
	/* a figure more is steady at 0; samples is set below */
	const uint64_t f[_SAMPLE_N_FIGURES + 1] = { [SAMPLE_FIGURE_private] = v, [SAMPLE_FIGURE_resident] = 2 * v,
						   [SAMPLE_FIGURE_swap] = 3 };
	struct store_sample x = { .time = time };

#define SAMPLE_FIGURE_none _SAMPLE_N_FIGURES
#define SET_(name, ctype, sqltype, figure, how, ...) x.name = (ctype)f[SAMPLE_FIGURE_##figure];
	SAMPLE_COLUMNS(SET_)
#undef SET_
#undef SAMPLE_FIGURE_none
	x.samples = 10;
	if (spike > v)
		x.private_max = spike;
	return x;
}

static void put(struct tmp *t, int64_t id, const struct store_sample *x)
{
	if (store_put_sample(t->s, id, x) < 0)
		fail_msg("put_sample: %s", store_error(t->s));
}

static int64_t proc(struct tmp *t)
{
	return put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
						 .first_seen = H0, .last_seen = H0, .exited_at = -1 });
}

/* ------------------------------------------------------------ writing */

static void test_identical_rows_coalesce(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 100; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);

	/* one row stands for the hundred: its span, all their samples */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT time FROM samples"), H0 + SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples"), H0 + 100 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT samples FROM samples"), 1000);
	assert_int_equal(q_int_at(t->db, "SELECT private_max FROM samples"), 1000);
	assert_int_equal(q_int_at(t->db, "SELECT resident_last FROM samples"), 2000);
	assert_int_equal(q_int_at(t->db, "SELECT swap_last FROM samples"), 3);
}

static void test_spike_kept(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 30; i++) {
		/* a peak inside row 11 that is gone by its end */
		struct store_sample x = row(H0 + i * SECOND, 1000, i == 11 ? 9000 : 0);
		put(t, id, &x);
	}
	commit(t);

	/* the run before the spike, the spike, the run after it */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 3);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + SECOND), H0 + 10 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT private_max FROM samples WHERE time = %lld", H0 + 11 * SECOND), 9000);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 11 * SECOND),
			 H0 + 11 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 12 * SECOND), H0 + 30 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT sum(samples) FROM samples"), 300);
	assert_int_equal(q_int_at(t->db, "SELECT max(private_max) FROM samples"), 9000);
}

static void test_changes_end_a_run(void **state)
{
	struct tmp *t = *state;
	struct store_sample a = row(H0 + SECOND, 1000, 0), b = row(H0 + 2 * SECOND, 1000, 0),
			    c = row(H0 + 3 * SECOND, 1000, 0), d = row(H0 + 4 * SECOND, 1000, 0),
			    e = row(H0 + 5 * SECOND, 1000, 0);
	int64_t id;

	b.swap_last = 4;          /* swap moved */
	c.resident_last = 2001;   /* resident moved */
	d.resident_min = 1999;    /* resident was not steady inside the interval */
	coalescing_writer(t);
	begin(t);
	id = proc(t);
	put(t, id, &a);
	put(t, id, &b);
	put(t, id, &c);
	put(t, id, &d);
	put(t, id, &e);
	commit(t);
	/* none is the same steady row as the one before it */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 5);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE until = time"), 5);
}

static void test_restart_starts_a_row(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 5; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	t->s = store_close(t->s);

	coalescing_writer(t);
	begin(t);
	for (int i = 6; i <= 10; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	/* the first row after opening is a row of its own, then extended */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 2);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + SECOND), H0 + 5 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + 6 * SECOND), H0 + 10 * SECOND);
}

static void test_rolled_back_run(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	commit(t);
	/* a batch that failed: the daemon keeps its rows and writes them
	 * again, and the store must not extend a row that is not there */
	begin(t);
	for (int i = 1; i <= 3; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	store_rollback(t->s);
	begin(t);
	for (int i = 1; i <= 4; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples"), H0 + 4 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT samples FROM samples"), 40);
}

static void test_clock_back(void **state)
{
	struct tmp *t = *state;
	struct store_sample a = row(H0 + SECOND, 1000, 0), b = row(H0 + 2 * SECOND, 1000, 0),
			    back = row(H0 + 2 * SECOND, 1000, 0);
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	put(t, id, &a);
	put(t, id, &b);
	/* a second row inside the span: not folded in twice, kept once */
	put(t, id, &back);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT sum(samples) FROM samples"), 30);
	assert_int_equal(q_int_at(t->db, "SELECT max(until) FROM samples"), H0 + 2 * SECOND);
}

static void test_off_by_default(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	begin(t);
	id = proc(t);
	for (int i = 1; i <= 5; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE until = time"), 5);
}

static void test_gpu_rows_keep_rows_apart(void **state)
{
	struct tmp *t = *state;
	struct gpu_device d = { .index = 0, .name = "NVIDIA A100", .uuid = "GPU-1111", .total = 80ull << 30,
				.used = 4ull << 30, .free = 76ull << 30, .present = true, .parent = -1 };
	int64_t id, gpu;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 3; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	/* the process's first GPU memory row comes after the row of its time,
	 * which had joined the run: that row is taken out of it */
	assert_int_equal(store_put_gpu_device(t->s, H0 + 3 * SECOND, &d, &gpu), 0);
	assert_int_equal(store_put_gpu_sample(t->s, id, gpu, H0 + 3 * SECOND, 1ull << 30), 0);
	for (int i = 4; i <= 6; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
		assert_int_equal(store_put_gpu_sample(t->s, id, gpu, H0 + i * SECOND, 1ull << 30), 0);
	}
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples WHERE time = %lld", H0 + SECOND), H0 + 2 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT samples FROM samples WHERE time = %lld", H0 + SECOND), 20);
	/* and every row from then on is its own, beside its GPU rows */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE time >= %lld AND until = time",
			       H0 + 3 * SECOND),
			 4);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples s JOIN gpu_samples g USING (process_id, time)"),
			 4);
	assert_int_equal(q_int_at(t->db, "SELECT sum(samples) FROM samples"), 60);
}

static void test_views_give_both_ends(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 50; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, i == 30 ? 5000 : 0);
		put(t, id, &x);
	}
	commit(t);
	/* two runs and the spike between: the runs at both ends */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 3);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM memory_timeline"), 5);
	assert_int_equal(q_int_at(t->db, "SELECT max(time) FROM memory_timeline") , (H0 + 50 * SECOND) / 1000);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM memory_timeline WHERE time = %lld", (H0 + 29 * SECOND) / 1000),
			 1);
	assert_int_equal(q_int_at(t->db, "SELECT max(private_max) FROM memory_timeline"), 5000);
	/* Grafana's panel: its time filter finds the ends of a span */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_process_memory WHERE kind = 'private'"), 5);
	assert_int_equal(q_int_at(t->db, "SELECT max(value) FROM grafana_process_memory WHERE kind = 'private'"
				      " AND time_ms >= %lld AND time_ms <= %lld",
			       H0 + 29 * SECOND, H0 + 31 * SECOND),
			 5000);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM grafana_process_memory WHERE kind = 'resident'"
				      " AND time_ms = %lld",
			       H0 + 50 * SECOND),
			 1);
}

/* ------------------------------------------------------------ migrating */

static void test_migrate_from_v5(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db = NULL;
	char *msg = NULL;

	/* a database as a ramwatch of schema 5 left it, with raw, minute and
	 * hour rows */
	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	assert_true(store_n_migrations >= 6);
	for (size_t i = 0; i < 5; i++)
		if (sqlite3_exec(db, store_migrations[i].sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("migration %zu: %s", i + 1, msg);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 5;"
					  "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
					  " VALUES ('b', 42, 7, 'old', 1000, 2000);"
					  "INSERT INTO samples VALUES (1, 3600000, 3600000, 1, 9, 5, 2, 8, 6, 0, 360);"
					  "INSERT INTO samples VALUES (1, 60000, 3660000, 2, 7, 4, 3, 9, 5, 1, 6);"
					  "INSERT INTO samples VALUES (1, 0, 3661000, 4, 4, 4, 5, 5, 5, 2, 10);"
					  "INSERT INTO samples VALUES (1, 0, 3662000, 4, 4, 4, 5, 5, 5, 2, 10);",
				  NULL, NULL, &msg),
			 SQLITE_OK);
	sqlite3_close(db);

	coalescing_writer(t);
	assert_int_equal(store_schema_version(t->s), STORE_SCHEMA_VERSION);
	/* every old row is there, each standing for itself */
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 4);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE until = time"), 4);
	assert_int_equal(q_int_at(t->db, "SELECT sum(samples) FROM samples"), 386);
	assert_int_equal(q_int_at(t->db, "SELECT private_max FROM samples WHERE resolution = 3600000"), 9);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM memory_timeline"), 4);
	/* the answers read them as before */
	struct store_history_query hq = { .sel = { .pid = 42, .only_uid = -1 }, .since = 0, .until = 4000000,
					  .limit = RW_ANSWER_ROWS_MAX };
	json_t *o = NULL;
	struct error err;
	if (store_read_history(reader_of(t), &hq, &o, &err) < 0)
		fail_msg("history: %s", err.message);
	assert_int_equal(json_array_size(jget(o, "samples")), 4);
	assert_int_equal(jint(jat(jget(o, "samples"), 0), "private_max"), 9);
	assert_int_equal(jint(jat(jget(o, "samples"), 3), "until"), 3662000);
	json_decref(o);

	/* and a new identical row after them starts a row of its own */
	begin(t);
	struct store_sample x = { .time = 3663000, .private_min = 4, .private_max = 4, .private_last = 4,
				  .resident_min = 5, .resident_max = 5, .resident_last = 5, .swap_last = 2,
				  .samples = 10 };
	put(t, 1, &x);
	commit(t);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples WHERE resolution = 0"), 3);
}

/* ------------------------------------------------------------ reading */

/* Two databases written with the same rows: one coalesced, one not. */
struct twin {
	struct tmp a, b; /* a coalesced, b as before schema 6 */
	int64_t id;
};

static void twin_open(struct twin *w)
{
	void *st = NULL;
	memset(w, 0, sizeof(*w));
	assert_int_equal(tmp_setup(&st), 0);
	w->a = *(struct tmp *)st;
	free(st);
	assert_int_equal(tmp_setup(&st), 0);
	w->b = *(struct tmp *)st;
	free(st);
	coalescing_writer(&w->a);
	writer_of(&w->b);
	begin(&w->a);
	begin(&w->b);
	w->id = proc(&w->a);
	assert_int_equal(proc(&w->b), w->id);
}

static void twin_put(struct twin *w, const struct store_sample *x)
{
	put(&w->a, w->id, x);
	put(&w->b, w->id, x);
}

static void twin_commit(struct twin *w)
{
	commit(&w->a);
	commit(&w->b);
}

static void twin_close(struct twin *w)
{
	void *st = malloc(sizeof(struct tmp));
	*(struct tmp *)st = w->a;
	tmp_teardown(&st);
	st = malloc(sizeof(struct tmp));
	*(struct tmp *)st = w->b;
	tmp_teardown(&st);
}

static json_t *history_of(struct tmp *t, int64_t since, int64_t until, int64_t step)
{
	struct store_history_query q = { .sel = { .pid = 4242, .only_uid = -1 }, .since = since, .until = until,
					 .step_ms = step, .limit = RW_ANSWER_ROWS_MAX };
	json_t *o = NULL;
	struct error err;
	if (store_read_history(reader_of(t), &q, &o, &err) < 0)
		fail_msg("history: %s", err.message);
	return o;
}

/* The history of both in buckets of step: the same buckets with the same
 * min, max and last (samples are shared out over a span by time, so
 * only their sum is the same). */
static void same_history(struct twin *w, int64_t since, int64_t until, int64_t step)
{
	static const char *const exact[] = { "time", "resolution", "private", "private_min", "private_max",
					     "resident", "resident_min", "resident_max", "swap" };
	json_t *oa = history_of(&w->a, since, until, step), *ob = history_of(&w->b, since, until, step);
	const json_t *sa = jget(oa, "samples"), *sb = jget(ob, "samples");
	int64_t na = 0, nb = 0;

	if (json_array_size(sa) != json_array_size(sb))
		fail_msg("step %lld: %zu buckets coalesced, %zu not", (long long)step, json_array_size(sa),
			 json_array_size(sb));
	for (size_t i = 0; i < json_array_size(sa); i++) {
		for (size_t k = 0; k < ELEMENTSOF(exact); k++)
			if (jint(jat(sa, i), exact[k]) != jint(jat(sb, i), exact[k]))
				fail_msg("step %lld, bucket %zu (%lld): %s %lld coalesced, %lld not", (long long)step, i,
					 (long long)jint(jat(sb, i), "time"), exact[k],
					 (long long)jint(jat(sa, i), exact[k]), (long long)jint(jat(sb, i), exact[k]));
		na += jint(jat(sa, i), "samples");
		nb += jint(jat(sb, i), "samples");
	}
	if (since <= H0 && until >= H0 + DAY)
		assert_int_equal(na, nb);
	json_decref(oa);
	json_decref(ob);
}

static json_t *report_of(struct tmp *t)
{
	struct store_select sel = { .pid = 4242, .only_uid = -1 };
	json_t *o = NULL;
	struct error err;
	if (store_read_report(reader_of(t), &sel, &o, &err) < 0)
		fail_msg("report: %s", err.message);
	return o;
}

static void same_report(struct twin *w)
{
	json_t *oa = report_of(&w->a), *ob = report_of(&w->b);
	const char *keys[] = { "peak", "phases" };

	for (size_t k = 0; k < ELEMENTSOF(keys); k++)
		if (!json_equal(jget(oa, keys[k]), jget(ob, keys[k]))) {
			char *ta = json_dumps(jget(oa, keys[k]), JSON_SORT_KEYS), *tb = json_dumps(jget(ob, keys[k]), JSON_SORT_KEYS);
			fail_msg("report %s: coalesced %s, not %s", keys[k], ta, tb);
		}
	json_decref(oa);
	json_decref(ob);
}

static void test_history_and_report_as_before(void **state)
{
	struct twin w;
	(void)state;

	twin_open(&w);
	for (int i = 1; i <= 600; i++) {
		/* steady at 1000, a spike inside row 200, steady at 3000 from 400 */
		struct store_sample x = row(H0 + i * SECOND, i < 400 ? 1000 : 3000, i == 200 ? 50000 : 0);
		twin_put(&w, &x);
	}
	assert_int_equal(store_put_mark(w.a.s, w.id, H0 + 300 * SECOND, "load", 1000), 0);
	assert_int_equal(store_put_mark(w.b.s, w.id, H0 + 300 * SECOND, "load", 1000), 0);
	twin_commit(&w);
	assert_int_equal(q_int_at(w.a.db, "SELECT count(*) FROM samples"), 4);
	assert_int_equal(q_int_at(w.b.db, "SELECT count(*) FROM samples"), 600);

	const int64_t steps[] = { SECOND, 7 * SECOND, MINUTE, HOUR };
	for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
		same_history(&w, H0, H0 + DAY, steps[i]);
		/* a window that begins inside a span */
		same_history(&w, H0 + 250 * SECOND, H0 + 500 * SECOND, steps[i]);
	}
	/* the spike is in history and in the report */
	json_t *o = history_of(&w.a, H0, H0 + DAY, MINUTE);
	assert_int_equal(jint(jat(jget(o, "samples"), 3), "private_max"), 50000);
	json_decref(o);
	o = report_of(&w.a);
	assert_int_equal(jint(jget(o, "peak"), "private"), 50000);
	assert_int_equal(jint(jget(o, "peak"), "time"), H0 + 200 * SECOND);
	json_decref(o);
	same_report(&w);
	twin_close(&w);
}

/* A small deterministic generator, so a failure can be run again. */
static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 33;
}

static void test_random_sequences(void **state)
{
	(void)state;
	for (uint64_t round = 0; round < 20; round++) {
		uint64_t seed = round + 1;
		struct twin w;
		int64_t t = H0;
		uint64_t v = 1000;

		twin_open(&w);
		for (int i = 0; i < 400; i++) {
			uint64_t r = next_random(&seed) % 100, spike = 0;
			if (r < 5)
				v = 1000 + next_random(&seed) % 4 * 500; /* a new level */
			else if (r < 10)
				spike = v + 1 + next_random(&seed) % 10000; /* a peak inside the interval */
			/* intervals not all alike: a timer is late now and then (by
			 * less than a step, so every bucket holds a row; a bucket
			 * that none fell in inside a span would show its values) */
			t += SECOND + (next_random(&seed) % 10 == 0 ? (int64_t)(next_random(&seed) % 900) : 0);
			struct store_sample x = row(t, v, spike);
			twin_put(&w, &x);
		}
		twin_commit(&w);
		assert_true(q_int_at(w.a.db, "SELECT count(*) FROM samples") < 400);
		assert_int_equal(q_int_at(w.a.db, "SELECT sum(samples) FROM samples"),
				 q_int_at(w.b.db, "SELECT sum(samples) FROM samples"));
		const int64_t steps[] = { 2 * SECOND, 3 * SECOND, 10 * SECOND, MINUTE };
		for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
			same_history(&w, H0, H0 + DAY, steps[i]);
			/* a window from inside a span (not at a bucket's end, where
			 * the bucket would hold the span's values at that moment and
			 * the rows as stored none) */
			same_history(&w, H0 + 100 * SECOND + 500, H0 + 300 * SECOND, steps[i]);
		}
		same_report(&w);
		twin_close(&w);
	}
}

/* ------------------------------------------------------------ retention */

static void retain(struct tmp *t, const struct store_retention *rt)
{
	bool more = true;
	for (int i = 0; more && i < 1000; i++)
		if (store_retention_step(t->s, rt, &more) < 0)
			fail_msg("retention: %s", store_error(t->s));
}

/* The fast tier's rows, as text: resolution, time and values (not the
 * samples, shared out by time across a cut span). */
static char *rows_text(const char *path, const char *where)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *sql = sqlite3_mprintf("SELECT group_concat(x, ' ') FROM (SELECT resolution || ':' || time || ':' ||"
				    " private_min || '/' || private_max || '/' || private_last || ':' || resident_max"
				    " AS x FROM samples WHERE %s ORDER BY resolution, time)",
				    where);
	char *out;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	out = strdup(sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	sqlite3_close(db);
	sqlite3_free(sql);
	return out;
}

static void test_rollup_as_before(void **state)
{
	struct twin w;
	(void)state;

	twin_open(&w);
	for (int i = 1; i <= 3 * 3600; i++) {
		/* three hours: steady, a spike at 50 min, another level from 100 min */
		struct store_sample x = row(H0 + i * SECOND, i < 6000 ? 1000 : 2000, i == 3000 ? 70000 : 0);
		twin_put(&w, &x);
	}
	twin_commit(&w);
	/* raw rows older than an hour and a half become minutes */
	struct store_retention rt = { .now = H0 + 3 * HOUR, .raw_for = 90 * MINUTE, .batch = 100 };
	retain(&w.a, &rt);
	retain(&w.b, &rt);
	char *ma = rows_text(w.a.db, "resolution = 60000"), *mb = rows_text(w.b.db, "resolution = 60000");
	assert_string_equal(ma, mb);
	free(ma);
	free(mb);
	assert_int_equal(q_int_at(w.a.db, "SELECT count(*) FROM samples WHERE resolution = 60000"), 90);
	assert_int_equal(q_int_at(w.a.db, "SELECT max(private_max) FROM samples WHERE resolution = 60000"), 70000);
	/* the raw part still after the cutoff: one coalesced row from it */
	assert_int_equal(q_int_at(w.a.db, "SELECT count(*) FROM samples WHERE resolution = 0"), 2);
	assert_int_equal(q_int_at(w.a.db, "SELECT min(time) FROM samples WHERE resolution = 0"), H0 + 90 * MINUTE + 1);
	assert_int_equal(q_int_at(w.a.db, "SELECT sum(samples) FROM samples"), q_int_at(w.b.db, "SELECT sum(samples) FROM samples"));
	for (int64_t step = MINUTE; step <= HOUR; step *= 60)
		same_history(&w, H0, H0 + DAY, step);
	same_report(&w);
	twin_close(&w);
}

static void test_expiry_across_a_span(void **state)
{
	struct tmp *t = *state;
	int64_t id;

	coalescing_writer(t);
	begin(t);
	id = proc(t);
	for (int i = 1; i <= 100; i++) {
		struct store_sample x = row(H0 + i * SECOND, 1000, 0);
		put(t, id, &x);
	}
	commit(t);
	/* rows older than H0 + 60 s go: the span keeps its part from there */
	struct store_retention rt = { .now = H0 + 60 * SECOND + DAY, .keep = DAY };
	retain(t, &rt);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 1);
	assert_int_equal(q_int_at(t->db, "SELECT time FROM samples"), H0 + 60 * SECOND);
	assert_int_equal(q_int_at(t->db, "SELECT until FROM samples"), H0 + 100 * SECOND);
	/* 41 of its 100 rows are from H0 + 60 s on: its samples are shared
	 * out by time, to within a row's */
	int64_t kept = q_int_at(t->db, "SELECT samples FROM samples");
	assert_true(kept >= 400 && kept <= 420);
	assert_int_equal(q_int_at(t->db, "SELECT private_max FROM samples"), 1000);

	/* and once the whole span is older, it goes */
	rt.now = H0 + 101 * SECOND + DAY;
	retain(t, &rt);
	assert_int_equal(q_int_at(t->db, "SELECT count(*) FROM samples"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identical_rows_coalesce, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_spike_kept, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_changes_end_a_run, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_restart_starts_a_row, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_rolled_back_run, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_clock_back, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_off_by_default, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_gpu_rows_keep_rows_apart, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_views_give_both_ends, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_v5, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_history_and_report_as_before),
		cmocka_unit_test(test_random_sequences),
		cmocka_unit_test(test_rollup_as_before),
		cmocka_unit_test_setup_teardown(test_expiry_across_a_span, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
