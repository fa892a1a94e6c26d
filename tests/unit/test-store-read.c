/* The store's read side: opening (and refusing schemas), selections and who
 * may see what, the processes, census and report answers on known rows.
 * The events answer, the deadline and the interrupt are tested in
 * test-store-read-events.c, GPU memory and the query plans in
 * test-store-read-gpu.c, history in test-store-read-history.c. */
#include "test-store-read-lib.h"

#include <pthread.h>
#include <pwd.h>
#include <time.h>

#include "census-json.h"
#include "limits.h"
#include "store-migrations.h"
#include "store-read-internal.h"
#include "util.h"

/* Gives class k of c these figures (the rest of its private bytes
 * overhead), as a heap walk would. */
static void heap_of(struct census *c, enum class_id k, uint64_t private, uint64_t in_use, uint64_t free_kept,
		    uint64_t returnable)
{
	c->classes[k].private = private;
	assert_true(in_use + free_kept <= private);
	assert_int_equal(census_set_heap(c, k, in_use, free_kept, private - in_use - free_kept, 0, returnable,
					 k == CLASS_MALLOC ? "glibc 2.36: 1 arena" : "JVM (hsperfdata): G1"),
			 0);
}

/* The report's in_use_or_kept: malloc's memory in use rises at every
 * census that reads it (held, a slow rise, the censuses that show it cut
 * at RW_REPORT_HEAP_CENSUSES), the JVM heap grows once by memory it keeps
 * committed and unused (kept, with its returnable part), an interval
 * census between them read no allocator ("-" in the trend, no step), and
 * a class no census read the allocator of has no entry. */
static void test_report_in_use_or_kept(void **state)
{
	struct tmp *t = *state;
	struct store_reader *r = reader_of(t);
	struct store_select sel = by_pid(4242, -1);
	struct error err;
	json_t *o = NULL;
	const unsigned n = RW_REPORT_HEAP_CENSUSES + 3;
	int64_t ids[RW_REPORT_HEAP_CENSUSES + 3], unread = 0;

	begin(t);
	int64_t p = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "java", .first_seen = H0,
						     .last_seen = H0 + DAY, .exited_at = -1 });
	for (unsigned i = 0; i < n; i++) {
		struct census *c = java_census();
		heap_of(c, CLASS_MALLOC, 100 * MiB + i * 4 * MiB, 60 * MiB + i * 4 * MiB, 30 * MiB, 8 * MiB);
		bool grown = i >= n / 2;
		heap_of(c, CLASS_RUNTIME_HEAP, grown ? 400 * MiB : 300 * MiB, 200 * MiB, grown ? 190 * MiB : 90 * MiB,
			grown ? 150 * MiB : 50 * MiB);
		ids[i] = put_census(t, p, H0 + i * 15 * MINUTE, i ? TRIGGER_INTERVAL : TRIGGER_FIRST, CENSUS_OK, c);
		census_free(c);
		if (i == 2) {
			/* between two that read them, one that did not */
			c = java_census();
			unread = put_census(t, p, H0 + i * 15 * MINUTE + MINUTE, TRIGGER_INTERVAL, CENSUS_OK, c);
			census_free(c);
		}
	}
	commit(t);
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);

	/* the trend: in use and free of each census, null where it read none */
	const json_t *trend = jget(o, "trend"), *x;
	assert_int_equal(json_array_size(trend), n + 1);
	assert_int_equal(jint(jat(trend, 0), "in_use"), 60 * MiB + 200 * MiB);
	assert_int_equal(jint(jat(trend, 3), "census_id"), unread);
	assert_true(jnull(jat(trend, 3), "in_use"));
	assert_true(jnull(jat(trend, 3), "free"));

	const json_t *list = jget(o, "in_use_or_kept");
	assert_int_equal(json_array_size(list), 2); /* by class: malloc, runtime_heap */
	x = jat(list, 0);
	assert_string_equal(jstr(x, "class"), "malloc");
	assert_int_equal(jint(x, "censuses"), n);
	assert_string_equal(jstr(x, "growth"), "held");
	assert_int_equal(jint(jget(x, "first"), "census_id"), ids[0]);
	assert_int_equal(jint(jget(x, "last"), "census_id"), ids[n - 1]);
	assert_int_equal(jint(jget(x, "last"), "in_use"), 60 * MiB + (n - 1) * 4 * MiB);
	assert_string_equal(jstr(x, "how"), "glibc 2.36: 1 arena");
	/* every step after the first shows it: the last RW_REPORT_HEAP_CENSUSES */
	assert_int_equal(jint(x, "shown_by_count"), n - 1);
	const json_t *shown = jget(x, "shown_by");
	assert_int_equal(json_array_size(shown), RW_REPORT_HEAP_CENSUSES);
	assert_int_equal(jint(jat(shown, 0), "census_id"), ids[n - RW_REPORT_HEAP_CENSUSES]);
	assert_int_equal(jint(jat(shown, RW_REPORT_HEAP_CENSUSES - 1), "census_id"), ids[n - 1]);
	/* a slow rise: the last RW_HEAP_RISE_CENSUSES that read it */
	const json_t *rise = jget(x, "slow_rise");
	assert_true(json_is_true(jget(rise, "flagged")));
	assert_int_equal(jint(rise, "rises"), RW_HEAP_RISE_CENSUSES - 1);
	assert_int_equal(jint(jget(rise, "first"), "census_id"), ids[n - RW_HEAP_RISE_CENSUSES]);
	assert_int_equal(jint(rise, "change"), (RW_HEAP_RISE_CENSUSES - 1) * 4 * MiB);
	assert_int_equal(jint(rise, "span_ms"), (RW_HEAP_RISE_CENSUSES - 1) * 15 * MINUTE);
	assert_int_equal(jint(rise, "bytes_per_hour"), 16 * MiB);

	x = jat(list, 1);
	assert_string_equal(jstr(x, "class"), "runtime_heap");
	assert_string_equal(jstr(x, "growth"), "kept");
	assert_int_equal(jint(jget(x, "last"), "returnable"), 150 * MiB);
	assert_int_equal(jint(x, "shown_by_count"), 1);
	assert_int_equal(jint(jat(jget(x, "shown_by"), 0), "census_id"), ids[n / 2]);
	assert_true(jnull(x, "slow_rise"));
	json_decref(o);
}

/* ------------------------------------------------------------ opening */

static void test_open_refused(void **state)
{
	struct tmp *t = *state;
	struct store_reader *r = NULL;
	struct error err;
	char path[400];

	/* no database yet */
	snprintf(path, sizeof(path), "%s/none.db", t->dir);
	assert_int_equal(store_reader_open(path, &r, &err), -ENOENT);
	assert_null(r);

	/* a newer schema: upgrade ramwatch */
	snprintf(path, sizeof(path), "%s/newer.db", t->dir);
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TABLE future (x INTEGER); PRAGMA application_id = 1380011351;"
				      " PRAGMA user_version = 99",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_reader_open(path, &r, &err), -EPROTO);
	assert_non_null(strstr(err.message, "newer than this ramwatch knows"));
	assert_non_null(strstr(err.message, "upgrade ramwatch"));

	/* an older one: the daemon migrates it first */
	snprintf(path, sizeof(path), "%s/older.db", t->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, store_migrations[0].sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_reader_open(path, &r, &err), -EPROTO);
	assert_non_null(strstr(err.message, "older than this ramwatch's"));
	assert_non_null(strstr(err.message, "ramwatchd must migrate it"));

	/* another program's SQLite file */
	snprintf(path, sizeof(path), "%s/other.db", t->dir);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE notes (x TEXT)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_reader_open(path, &r, &err), -EBADMSG);
	assert_null(r);

	/* this build's: opens, and cannot write even by accident */
	writer_of(t);
	assert_int_equal(store_reader_open(t->db, &r, &err), 0);
	assert_int_equal(sqlite3_exec(r->db, "INSERT INTO marks (process_id, time, name) VALUES (1, 1, 'x')", NULL,
				      NULL, NULL),
			 SQLITE_READONLY);
	assert_null(store_reader_close(r));
	assert_null(store_reader_close(NULL));
}

/* ------------------------------------------------------------ selections and access */

/* pid 100 of ana (python3), then pid 100 again of root (bash), pid 200 of
 * uid 1001 (java), and pid 300 whose owner is not known. */
struct people {
	int64_t python, bash, java, nobody;
};

static struct people put_people(struct tmp *t)
{
	struct people p;
	begin(t);
	p.python = put_proc(t, &(struct proc_spec){ .pid = 100, .start_time = 10, .uid = 1000, .comm = "python3",
						     .cmdline = "python3 train.py --epochs 3", .first_seen = H0,
						     .last_seen = H0 + HOUR, .exited_at = H0 + HOUR,
						     .peak_private = 900, .peak_resident = 1900 });
	p.bash = put_proc(t, &(struct proc_spec){ .pid = 100, .start_time = 99, .uid = 0, .comm = "bash",
						   .cmdline = "-bash", .first_seen = H0 + 2 * HOUR,
						   .last_seen = H0 + 3 * HOUR, .exited_at = -1, .peak_private = 50,
						   .peak_resident = 60 });
	p.java = put_proc(t, &(struct proc_spec){ .boot = "boot-b", .pid = 200, .start_time = 5, .uid = 1001,
						   .comm = "java", .cmdline = "java -Xmx4g -jar app.jar",
						   .first_seen = H0, .last_seen = H0 + 3 * HOUR, .exited_at = -1,
						   .peak_private = 4000, .peak_resident = 5000 });
	p.nobody = put_proc(t, &(struct proc_spec){ .pid = 300, .start_time = 5, .uid = -1, .comm = "mystery",
						     .first_seen = H0, .last_seen = H0 + 30 * MINUTE,
						     .exited_at = -1 });
	commit(t);
	return p;
}

static void test_instances_and_access(void **state)
{
	struct tmp *t = *state;
	struct people p = put_people(t);
	struct store_reader *r = reader_of(t);
	struct store_select sel;
	json_t *a = NULL;
	struct error err;
	char owner[128], expected[256];

	/* the newest instance of a pid, by default */
	sel = by_pid(100, -1);
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.bash);
	assert_string_equal(jstr(jat(a, 0), "label"), "bash [100]");
	assert_true(jnull(jat(a, 0), "exited_at"));
	json_decref(a);

	/* every instance, newest first */
	sel.all_instances = true;
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 2);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.bash);
	assert_int_equal(jint(jat(a, 1), "process_id"), p.python);
	assert_int_equal(jint(jat(a, 1), "exited_at"), H0 + HOUR);
	assert_int_equal(jint(jat(a, 1), "uid"), 1000);
	assert_int_equal(jint(jat(a, 1), "start_time"), 10);
	assert_int_equal(jint(jat(a, 1), "first_seen"), H0);
	assert_string_equal(jstr(jat(a, 1), "cmdline"), "python3 train.py --epochs 3");
	json_decref(a);

	/* ana asks for pid 100: it is root's now, and she is told whose */
	sel = by_pid(100, 1000);
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EACCES);
	owner_text(owner, sizeof(owner), 0);
	snprintf(expected, sizeof(expected), "process 100 (bash) belongs to %s", owner);
	assert_string_equal(err.message, expected);
	/* of all its instances she sees her own */
	sel.all_instances = true;
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.python);
	json_decref(a);

	/* another user's process, by pid and by row id */
	sel = by_pid(200, 1000);
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EACCES);
	owner_text(owner, sizeof(owner), 1001);
	snprintf(expected, sizeof(expected), "process 200 (java) belongs to %s", owner);
	assert_string_equal(err.message, expected);
	sel = (struct store_select){ .process_id = p.java, .only_uid = 1000 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EACCES);
	assert_string_equal(err.message, expected);
	/* and its own user sees it */
	sel.only_uid = 1001;
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	json_decref(a);
	/* an owner nobody knows is nobody's */
	sel = by_pid(300, 1000);
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EACCES);
	assert_string_equal(err.message, "process 300 (mystery): its owner is not known");

	/* globs on comm or command line, others' left out silently */
	sel = (struct store_select){ .name = "py*", .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.python);
	json_decref(a);
	sel.name = "*app.jar";
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.java);
	json_decref(a);
	sel.name = "*";
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 4);
	json_decref(a);
	sel.only_uid = 1000;
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(jint(jat(a, 0), "process_id"), p.python);
	json_decref(a);
	sel.name = "java";
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -ENOENT);
	assert_string_equal(err.message, "no process of uid 1000 matches \"java\"");
	/* fnmatch, not SQL's GLOB or LIKE: case matters, [!...] negates */
	sel = (struct store_select){ .name = "JAVA", .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -ENOENT);
	sel.name = "[!b]ash";
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -ENOENT);
	sel.name = "[b]ash";
	assert_int_equal(store_read_instances(r, &sel, &a, &err), 0);
	json_decref(a);

	/* nothing there, and requests that name no process */
	sel = by_pid(999, -1);
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -ENOENT);
	assert_string_equal(err.message, "no process with pid 999 in the store");
	sel = (struct store_select){ .process_id = 12345, .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -ENOENT);
	sel = (struct store_select){ .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EINVAL);
	sel = (struct store_select){ .pid = 100, .name = "x", .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EINVAL);
	sel = (struct store_select){ .name = "", .only_uid = -1 };
	assert_int_equal(store_read_instances(r, &sel, &a, &err), -EINVAL);
}

/* ------------------------------------------------------------ processes */

static void test_processes(void **state)
{
	struct tmp *t = *state;
	struct people p = put_people(t);
	struct store_reader *r = reader_of(t);
	struct census *c = java_census();
	json_t *o = NULL;
	const json_t *list, *x;
	struct error err;

	begin(t);
	/* java's last row is a raw one; python3's rows were rolled up */
	put_sample(t, p.java, H0 + 3 * HOUR - 10 * SECOND, 1, 3800, 3000, 4500);
	put_sample(t, p.java, H0 + 3 * HOUR, 1, 3900, 3100, 4600);
	put_sample(t, p.bash, H0 + 3 * HOUR, 1, 50, 40, 60);
	put_census(t, p.java, H0 + 2 * HOUR, TRIGGER_INTERVAL, CENSUS_OK, c);
	put_census(t, p.java, H0 + 2 * HOUR + MINUTE, TRIGGER_GROWTH, CENSUS_EXITED, NULL);
	commit(t);
	raw_exec(t->db, "INSERT INTO samples (process_id, resolution, time, private_min, private_max, private_last,"
			" resident_min, resident_max, resident_last, swap_last, samples, until)"
			" VALUES (1, 60000, 472223 * 3600000 + 3540000, 1, 880, 870, 1, 1800, 1700,"
			" 0, 6, 472223 * 3600000 + 3540000)");

	/* alive only, largest private first */
	assert_int_equal(store_read_processes(r, -1, false, "private", 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 3);
	x = jat(list, 0);
	assert_int_equal(jint(x, "process_id"), p.java);
	assert_int_equal(jint(x, "pid"), 200);
	assert_string_equal(jstr(x, "boot_id"), "boot-b");
	assert_int_equal(jint(x, "private"), 3100);
	assert_int_equal(jint(x, "resident"), 4600);
	assert_int_equal(jint(x, "peak_private"), 4000);
	assert_int_equal(jint(x, "peak_resident"), 5000);
	assert_int_equal(jint(x, "uid"), 1001);
	assert_int_equal(jint(x, "started_at"), H0 - 500);
	assert_int_equal(jint(x, "first_seen"), H0);
	assert_int_equal(jint(x, "last_seen"), H0 + 3 * HOUR);
	assert_true(jnull(x, "exited_at"));
	assert_false(json_is_true(jget(x, "watched")));
	assert_string_equal(jstr(x, "exe"), "/usr/bin/test");
	/* the newest census, whatever its status */
	assert_string_equal(jstr(jget(x, "last_census"), "status"), "exited");
	assert_string_equal(jstr(jget(x, "last_census"), "trigger"), "growth");
	assert_int_equal(jint(jget(x, "last_census"), "time"), H0 + 2 * HOUR + MINUTE);
	assert_int_equal(jint(jat(list, 1), "process_id"), p.bash);
	assert_string_equal(jstr(jat(list, 1), "user"), "root");
	/* no sample, no census: nulls */
	x = jat(list, 2);
	assert_int_equal(jint(x, "process_id"), p.nobody);
	assert_true(jnull(x, "private"));
	assert_true(jnull(x, "last_census"));
	assert_true(jnull(x, "uid"));
	assert_true(jnull(x, "user"));
	assert_true(jnull(o, "filtered_to_uid"));
	json_decref(o);

	/* with the exited, after the living; by peak; at most 2 */
	assert_int_equal(store_read_processes(r, -1, true, "peak", 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 4);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.java);
	assert_int_equal(jint(jat(list, 1), "process_id"), p.bash);
	assert_int_equal(jint(jat(list, 3), "process_id"), p.python);
	/* its last row is a minute row */
	assert_int_equal(jint(jat(list, 3), "private"), 870);
	assert_int_equal(jint(jat(list, 3), "resident"), 1700);
	json_decref(o);
	assert_int_equal(store_read_processes(r, -1, true, "resident", 2, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 2);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.java);
	json_decref(o);

	/* ana's own */
	assert_int_equal(store_read_processes(r, 1000, true, NULL, RW_ANSWER_ROWS_MAX + 1, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.python);
	assert_int_equal(jint(o, "filtered_to_uid"), 1000);
	json_decref(o);

	assert_int_equal(store_read_processes(r, -1, true, "size", 0, &o, &err), -EINVAL);
	assert_string_equal(err.message, "sort: \"size\" is not private, resident, peak or vram");

	/* a Windows process: its platform, and its account as its user */
	raw_exec(t->db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen, peak_private,"
			" platform, owner) VALUES ('windows-boot', 300, 1700000000000, 'python.exe', 1, 2, 9999999,"
			" 'windows', 'DESKTOP-1\\ana')");
	assert_int_equal(store_read_processes(r, -1, true, "peak", 0, &o, &err), 0);
	x = jat(jget(o, "processes"), 0);
	assert_int_equal(jint(x, "pid"), 300);
	assert_string_equal(jstr(x, "platform"), "windows");
	assert_string_equal(jstr(x, "user"), "DESKTOP-1\\ana");
	assert_true(jnull(x, "uid"));
	assert_string_equal(jstr(jat(jget(o, "processes"), 1), "platform"), "linux");
	json_decref(o);
	census_free(c);
}

/* ------------------------------------------------------------ census */

static void assert_same_census(const struct census *a, const struct census *b)
{
	/* every counter of the totals, and of each class those a class keeps */
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++) {
		assert_int_equal(census_counter_value(&a->totals, i), census_counter_value(&b->totals, i));
		for (int k = 0; k < _CLASS_MAX && census_counters[i].per_class; k++)
			assert_int_equal(census_counter_value(&a->classes[k], i), census_counter_value(&b->classes[k], i));
	}
	/* unknown where the census taken did not know it, nowhere else (what a
	 * class row does not keep is unknown per class) */
	uint32_t per_class = 0;
	for (int i = 0; i < _CENSUS_N_COUNTERS; i++)
		per_class |= census_counters[i].per_class ? 1u << i : 0;
	assert_int_equal(b->unknown_totals, a->unknown_totals);
	for (int k = 0; k < _CLASS_MAX; k++)
		if (a->classes[k].count > 0)
			assert_int_equal(b->unknown_classes[k] & per_class, a->unknown_classes[k] & per_class);
	assert_int_equal(a->n_largest, b->n_largest);
	for (size_t i = 0; i < a->n_largest; i++) {
		assert_int_equal(a->largest[i].start, b->largest[i].start);
		assert_int_equal(a->largest[i].end, b->largest[i].end);
		assert_int_equal(a->largest[i].cls, b->largest[i].cls);
		assert_string_equal(a->largest[i].perms, b->largest[i].perms);
		assert_true(streq_ptr(a->largest[i].rule, b->largest[i].rule));
		assert_true(streq_ptr(a->largest[i].why, b->largest[i].why));
		assert_true(streq_ptr(a->largest[i].path, b->largest[i].path));
		assert_int_equal(a->largest[i].private, b->largest[i].private);
		assert_int_equal(a->largest[i].resident, b->largest[i].resident);
		assert_int_equal(a->largest[i].size, b->largest[i].size);
	}
	assert_int_equal(a->n_files, b->n_files);
	for (size_t i = 0; i < a->n_files; i++) {
		assert_string_equal(a->files[i].path, b->files[i].path);
		assert_int_equal(a->files[i].kind, b->files[i].kind);
		assert_int_equal(a->files[i].resident, b->files[i].resident);
		assert_int_equal(a->files[i].private, b->files[i].private);
		assert_int_equal(a->files[i].size, b->files[i].size);
		assert_int_equal(a->files[i].regions, b->files[i].regions);
	}
}

static void test_census(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census(), *back = NULL;
	struct store_reader *r;
	struct store_select sel = by_pid(4242, -1);
	json_t *o = NULL;
	struct error err;
	int64_t id, first, light;

	/* counters of the fixture made distinct, so that none stands in for
	 * another (the Java process read had no swap, shmem or locked pages) */
	static const struct { enum status_counter k; uint64_t v; } given[] = {
		{ STATUS_VM_SWAP, 3 << 20 },   { STATUS_RSS_SHMEM, 5 << 20 },	  { STATUS_VM_LCK, 64 << 10 },
		{ STATUS_HUGETLB_PAGES, 2 << 20 }, { STATUS_RSS_ANON, 84188 << 10 }, { STATUS_RSS_FILE, 20876 << 10 },
	};
	for (size_t i = 0; i < ELEMENTSOF(given); i++) {
		assert_true(status_has(&c->status, given[i].k));
		c->status.counter[given[i].k] = given[i].v;
	}
	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
					       .cmdline = "java -jar app.jar", .first_seen = H0, .last_seen = H0 + HOUR,
					       .exited_at = -1 });
	first = put_census(t, id, H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
	put_census(t, id, H0 + 2 * MINUTE, TRIGGER_INTERVAL, CENSUS_EXITED, NULL);
	c->light = true;
	light = put_census(t, id, H0 + 3 * MINUTE, TRIGGER_INTERVAL, CENSUS_OK, c);
	c->light = false;
	commit(t);
	r = reader_of(t);

	/* the census of a moment: the ok one at or before it */
	assert_int_equal(store_read_census(r, &sel, H0 + 2 * MINUTE + 30 * SECOND, &o, &err), 0);
	assert_int_equal(jint(o, "census_id"), first);
	assert_string_equal(jstr(o, "trigger"), "first");
	assert_string_equal(jstr(o, "status"), "ok");
	assert_string_equal(jstr(o, "format"), CENSUS_JSON_FORMAT);
	assert_int_equal(jint(o, "taken_at"), H0 + MINUTE);
	assert_int_equal(jint(jget(o, "process"), "pid"), 4242);
	assert_string_equal(jstr(jget(o, "process"), "boot_id"), "boot-a");
	assert_string_equal(jstr(jget(o, "process"), "cmdline"), "java -jar app.jar");
	assert_int_equal(jint(jget(o, "cost"), "wall_us"), 1500);
	/* every counter of the census as it was read, and none the store
	 * does not keep */
	const json_t *counters = jget(o, "counters");
	assert_int_equal(jint(counters, "private"), (84188 << 10) + (3 << 20));
	assert_int_equal(jint(counters, "resident"), c->status.counter[STATUS_VM_RSS]);
	assert_int_equal(jint(counters, "peak_resident"), c->status.counter[STATUS_VM_HWM]);
	assert_int_equal(jint(counters, "swap"), 3 << 20);
	assert_int_equal(jint(counters, "rss_anon"), 84188 << 10);
	assert_int_equal(jint(counters, "rss_file"), 20876 << 10);
	assert_int_equal(jint(counters, "rss_shmem"), 5 << 20);
	assert_int_equal(jint(counters, "locked"), 64 << 10);
	assert_int_equal(jint(counters, "hugetlb"), 2 << 20);
	/* the totals whole, those the store kept from schema 11 on too */
	assert_int_equal(jint(jget(o, "totals"), "locked"), c->totals.locked);
	assert_int_equal(jint(jget(o, "totals"), "hugetlb"), c->totals.hugetlb);
	assert_int_equal(jint(jget(o, "totals"), "confirmed"), c->totals.confirmed);
	assert_true(jnull(jat(jget(o, "largest"), 0), "inode"));
	assert_null(json_object_get(o, "light"));
	/* and census_from_json reads it: the same census as was stored */
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_same_census(c, back);
	for (size_t i = 0; i < ELEMENTSOF(given); i++) {
		assert_true(status_has(&back->status, given[i].k));
		assert_int_equal(back->status.counter[given[i].k], given[i].v);
	}
	assert_int_equal(back->taken_at_ms, H0 + MINUTE);
	assert_int_equal(census_resident(back), census_resident(c));
	back = census_free(back);
	json_decref(o);

	/* the last one is light: sizes only, and it says so */
	assert_int_equal(store_read_census(r, &sel, INT64_MAX, &o, &err), 0);
	assert_int_equal(jint(o, "census_id"), light);
	assert_true(json_is_true(jget(o, "light")));
	assert_int_equal(census_from_json(o, &back, &err), 0);
	assert_true(back->light);
	for (int k = 0; k < _CLASS_MAX; k++) {
		assert_int_equal(back->classes[k].size, c->classes[k].size);
		assert_int_equal(back->classes[k].private, 0);
	}
	back = census_free(back);
	json_decref(o);

	/* before the first: none */
	assert_int_equal(store_read_census(r, &sel, H0, &o, &err), -ENOENT);
	assert_string_equal(err.message, "no census of process 4242 (java) at or before 1700002800000");
	/* the first ok one, asked for by name */
	assert_int_equal(store_read_census(r, &sel, STORE_CENSUS_FIRST, &o, &err), 0);
	assert_int_equal(jint(o, "census_id"), first);
	assert_int_equal(jint(o, "taken_at"), H0 + MINUTE);
	json_decref(o);
	sel.only_uid = 1001;
	assert_int_equal(store_read_census(r, &sel, INT64_MAX, &o, &err), -EACCES);
	census_free(c);
}

/* A census stored before schema 7 kept three of the status counters: once
 * migrated it reads as before, the others unknown (null), not 0; a census
 * stored after the migration has them all. */
static void test_census_from_schema6(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_select sel = by_pid(42, -1);
	json_t *o = NULL;
	const json_t *counters;
	struct error err;
	sqlite3 *db = NULL;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	assert_true(store_n_migrations >= 7);
	for (size_t i = 0; i < 6; i++)
		if (sqlite3_exec(db, store_migrations[i].sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("migration %zu: %s", i + 1, msg);
	if (sqlite3_exec(db,
			 "PRAGMA user_version = 6;"
			 "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
			 " VALUES ('boot-a', 42, 7, 'old', 1000, 2000);"
			 "INSERT INTO censuses (process_id, time, trigger, status, private, resident, pss, swap, size,"
			 "  regions, counter_private, counter_resident, peak_resident)"
			 " VALUES (1, 1500, 'first', 'ok', 100, 200, 150, 0, 4096, 1, 8192, 12288, 16384);",
			 NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("schema 6: %s", msg);
	sqlite3_close(db);

	assert_int_equal(store_schema_version(writer_of(t)), STORE_SCHEMA_VERSION);
	assert_int_equal(store_read_census(reader_of(t), &sel, INT64_MAX, &o, &err), 0);
	counters = jget(o, "counters");
	assert_int_equal(jint(counters, "private"), 8192);
	assert_int_equal(jint(counters, "resident"), 12288);
	assert_int_equal(jint(counters, "peak_resident"), 16384);
	static const char *const unknown[] = { "swap", "rss_anon", "rss_file", "rss_shmem", "locked", "hugetlb" };
	for (size_t i = 0; i < ELEMENTSOF(unknown); i++)
		if (!jnull(counters, unknown[i]))
			fail_msg("%s of a census of schema 6 is not null", unknown[i]);
	assert_int_equal(jint(jget(o, "totals"), "private"), 100);
	json_decref(o);

	/* a census stored now has them */
	begin(t);
	put_census(t, 1, 2500, TRIGGER_INTERVAL, CENSUS_OK, c);
	commit(t);
	assert_int_equal(store_read_census(reader_of(t), &sel, INT64_MAX, &o, &err), 0);
	counters = jget(o, "counters");
	assert_int_equal(jint(counters, "rss_anon"), 84188 << 10);
	assert_int_equal(jint(counters, "rss_file"), 20876 << 10);
	assert_int_equal(jint(counters, "swap"), 0);
	assert_int_equal(jint(counters, "private"), 84188 << 10);
	json_decref(o);
	census_free(c);
}

/* A process names itself and a file name is any bytes; JSON text is UTF-8.
 * What is not UTF-8 comes out readable, not as an error. */
static void test_not_utf8(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_reader *r;
	struct store_select sel = by_pid(4242, -1);
	json_t *o = NULL;
	struct error err;
	int64_t id;

	assert_true(c->n_files > 0);
	c->files[0].path = "/data/caf\xe9.bin"; /* Latin-1 */
	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .uid = 1000, .comm = "\xff\xfejava",
					       .cmdline = "java -Dname=\xc3\xa9t\xc3", .first_seen = H0,
					       .last_seen = H0 + HOUR, .exited_at = -1 });
	put_census(t, id, H0 + MINUTE, TRIGGER_FIRST, CENSUS_OK, c);
	commit(t);
	r = reader_of(t);

	/* each byte that is not UTF-8 is U+FFFD, as in a live census; valid
	 * characters around it stay */
	assert_int_equal(store_read_instances(r, &sel, &o, &err), 0);
	assert_string_equal(jstr(jat(o, 0), "comm"), "\xef\xbf\xbd\xef\xbf\xbdjava");
	assert_string_equal(jstr(jat(o, 0), "label"), "\xef\xbf\xbd\xef\xbf\xbdjava [4242]");
	assert_string_equal(jstr(jat(o, 0), "cmdline"), "java -Dname=\xc3\xa9t\xef\xbf\xbd");
	json_decref(o);
	assert_int_equal(store_read_census(r, &sel, INT64_MAX, &o, &err), 0);
	assert_string_equal(jstr(jget(o, "process"), "comm"), "\xef\xbf\xbd\xef\xbf\xbdjava");
	/* the stored census's path reads as the live census showed it */
	json_t *live = census_to_json(c, false);
	assert_non_null(live);
	const char *live_path = jstr(jat(jget(live, "files"), 0), "path");
	assert_string_equal(live_path, "/data/caf\xef\xbf\xbd.bin");
	bool found = false;
	for (size_t i = 0; i < json_array_size(jget(o, "files")); i++)
		found |= streq(jstr(jat(jget(o, "files"), i), "path"), live_path);
	assert_true(found);
	json_decref(live);
	json_decref(o);
	/* and valid UTF-8 stays as it is */
	assert_true(read_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d", 14));
	assert_false(read_utf8_valid("\xc0\x80", 2));         /* overlong */
	assert_false(read_utf8_valid("\xed\xa0\x80", 3));     /* a surrogate */
	assert_false(read_utf8_valid("\xf4\x90\x80\x80", 4)); /* past U+10FFFF */
	assert_false(read_utf8_valid("a\0b", 3));
	census_free(c);
}

/* ------------------------------------------------------------ report */

/* Two ok censuses of one process: the second with more malloc, a file
 * gone and one new, and region events between them. */
static void test_report(void **state)
{
	struct tmp *t = *state;
	struct census *c = java_census();
	struct store_reader *r;
	struct store_select sel = { .process_id = 0, .only_uid = -1 };
	json_t *o = NULL;
	const json_t *x, *phases, *since, *classes;
	struct error err;
	int64_t id, c1, c2, failed;

	begin(t);
	id = put_proc(t, &(struct proc_spec){ .pid = 4242, .start_time = 77, .uid = 1000, .comm = "java",
					       .first_seen = H0, .last_seen = H0 + 10 * MINUTE, .exited_at = -1,
					       .peak_private = 2000, .peak_resident = 5000 });
	/* a row a minute; private_max peaks at 5 and 8 minutes */
	static const uint64_t maxes[] = { 100, 200, 300, 250, 900, 400, 500, 1000, 600, 700 };
	for (int i = 0; i < 10; i++)
		put_sample(t, id, H0 + (i + 1) * MINUTE, 10 * (uint64_t)i, maxes[i], 50 + (uint64_t)i, 1000 + (uint64_t)i);
	assert_int_equal(store_put_mark(t->s, id, H0 + 3 * MINUTE, "load", 1000), 0);
	assert_int_equal(store_put_mark(t->s, id, H0 + 6 * MINUTE + 30 * SECOND, "train", 1000), 0);
	c1 = put_census(t, id, H0 + 30 * SECOND, TRIGGER_FIRST, CENSUS_OK, c);
	failed = put_census(t, id, H0 + 4 * MINUTE, TRIGGER_GROWTH, CENSUS_DENIED, NULL);
	/* the second census: malloc +64 MiB, the first file gone, a new one */
	uint64_t malloc_before = c->classes[CLASS_MALLOC].private;
	assert_true(c->n_files >= 2);
	const char *gone = c->files[0].path;
	c->classes[CLASS_MALLOC].private += 64 * MiB;
	c->classes[CLASS_MALLOC].count = c->classes[CLASS_MALLOC].count ? c->classes[CLASS_MALLOC].count : 1;
	c->classes[CLASS_STACKS].private += 1 * MiB;
	c->files[0].path = "/data/model.bin";
	c->files[0].kind = FILE_DATA;
	c->files[0].size = 100 * MiB;
	c2 = put_census(t, id, H0 + 9 * MINUTE, TRIGGER_MARK, CENSUS_OK, c);
	struct region_event ev[] = {
		{ .kind = REGION_APPEARED, .start = 0x7f0000000000, .cls = CLASS_OTHER, .size = 64 * MiB },
		{ .kind = REGION_APPEARED, .start = 0x7f1000000000, .cls = CLASS_OTHER, .size = 64 * MiB },
		{ .kind = REGION_GREW, .start = 0x7f2000000000, .cls = CLASS_MALLOC, .size = 1 * MiB },
	};
	assert_int_equal(store_put_region_events(t->s, id, c2, H0 + 9 * MINUTE, ev, 3), 0);
	commit(t);
	r = reader_of(t);

	sel.process_id = id;
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	x = jget(o, "process");
	assert_int_equal(jint(x, "process_id"), id);
	assert_int_equal(jint(x, "private"), 59);
	assert_int_equal(jint(jget(x, "last_census"), "census_id"), c2);

	/* the peak over every row */
	x = jget(o, "peak");
	assert_int_equal(jint(x, "private"), 1000);
	assert_int_equal(jint(x, "time"), H0 + 8 * MINUTE);
	assert_int_equal(jint(x, "resident"), 2 * 1009);
	assert_int_equal(jint(x, "resident_time"), H0 + 10 * MINUTE);

	/* phases: (start) to the first mark, then each mark; the last ends at
	 * the last row */
	phases = jget(o, "phases");
	assert_int_equal(json_array_size(phases), 3);
	x = jat(phases, 0);
	assert_string_equal(jstr(x, "name"), "(start)");
	assert_int_equal(jint(x, "start"), H0);
	assert_int_equal(jint(x, "end"), H0 + 3 * MINUTE);
	assert_int_equal(jint(x, "peak_private"), 200);
	assert_int_equal(jint(x, "peak_time"), H0 + 2 * MINUTE);
	assert_int_equal(jint(x, "private_at_start"), 50);
	assert_int_equal(jint(x, "private_at_end"), 51);
	x = jat(phases, 1);
	assert_string_equal(jstr(x, "name"), "load");
	assert_int_equal(jint(x, "start"), H0 + 3 * MINUTE);
	assert_int_equal(jint(x, "end"), H0 + 6 * MINUTE + 30 * SECOND);
	assert_int_equal(jint(x, "peak_private"), 900);
	assert_int_equal(jint(x, "peak_time"), H0 + 5 * MINUTE);
	assert_int_equal(jint(x, "peak_resident"), 2 * 1005);
	assert_int_equal(jint(x, "private_at_start"), 52);
	assert_int_equal(jint(x, "private_at_end"), 55);
	x = jat(phases, 2);
	assert_string_equal(jstr(x, "name"), "train");
	assert_int_equal(jint(x, "end"), H0 + 10 * MINUTE);
	assert_int_equal(jint(x, "peak_private"), 1000);
	assert_int_equal(jint(x, "private_at_start"), 56);
	assert_int_equal(jint(x, "private_at_end"), 59);

	/* the last ok census in full; every census in the trend */
	x = jget(o, "last_census");
	assert_int_equal(jint(x, "census_id"), c2);
	assert_string_equal(jstr(x, "trigger"), "mark");
	assert_int_equal(jint(jget(x, "totals"), "private"), c->totals.private);
	x = jget(o, "trend");
	assert_int_equal(json_array_size(x), 3);
	assert_int_equal(jint(jat(x, 0), "census_id"), c1);
	assert_int_equal(jint(jat(x, 1), "census_id"), failed);
	assert_string_equal(jstr(jat(x, 1), "status"), "denied");
	assert_true(jnull(jat(x, 1), "private"));
	assert_int_equal(jint(jat(x, 2), "time"), H0 + 9 * MINUTE);
	assert_int_equal(jint(jat(x, 2), "resident"), c->totals.resident);

	/* since the ok census before: the failed one is skipped */
	since = jget(o, "since_previous");
	assert_int_equal(jint(since, "previous_census_id"), c1);
	assert_int_equal(jint(since, "previous_time"), H0 + 30 * SECOND);
	classes = jget(since, "classes");
	assert_string_equal(jstr(jat(classes, 0), "class"), "malloc");
	assert_int_equal(jint(jat(classes, 0), "private_before"), malloc_before);
	assert_int_equal(jint(jat(classes, 0), "private"), malloc_before + 64 * MiB);
	assert_int_equal(jint(jat(classes, 0), "change"), 64 * MiB);
	assert_string_equal(jstr(jat(classes, 1), "class"), "stacks");
	assert_int_equal(jint(jat(classes, 1), "change"), 1 * MiB);
	assert_int_equal(jint(jat(classes, 2), "change"), 0);
	x = jget(since, "new_files");
	assert_int_equal(json_array_size(x), 1);
	assert_string_equal(jstr(jat(x, 0), "path"), "/data/model.bin");
	assert_string_equal(jstr(jat(x, 0), "kind"), "data");
	assert_int_equal(jint(jat(x, 0), "size"), 100 * MiB);
	x = jget(since, "gone_files");
	assert_int_equal(json_array_size(x), 1);
	assert_string_equal(jstr(jat(x, 0), "path"), gone);
	x = jget(since, "region_events");
	assert_int_equal(jint(x, "appeared"), 2);
	assert_int_equal(jint(x, "grew"), 1);
	assert_int_equal(jint(x, "disappeared"), 0);
	assert_int_equal(jint(x, "shrank"), 0);
	json_decref(o);

	/* a process with nothing stored but itself */
	begin(t);
	int64_t bare = put_proc(t, &(struct proc_spec){ .pid = 7, .uid = 1000, .comm = "idle", .first_seen = H0,
							 .last_seen = H0 + MINUTE, .exited_at = H0 + MINUTE });
	commit(t);
	sel.process_id = bare;
	assert_int_equal(store_read_report(r, &sel, &o, &err), 0);
	assert_true(jnull(jget(o, "peak"), "private"));
	assert_int_equal(json_array_size(jget(o, "phases")), 1);
	assert_int_equal(jint(jat(jget(o, "phases"), 0), "end"), H0 + MINUTE);
	assert_true(jnull(jat(jget(o, "phases"), 0), "peak_private"));
	assert_true(jnull(o, "last_census"));
	assert_true(jnull(o, "since_previous"));
	assert_int_equal(json_array_size(jget(o, "trend")), 0);
	json_decref(o);

	sel = by_pid(4242, 0);
	assert_int_equal(store_read_report(r, &sel, &o, &err), -EACCES);
	sel = by_pid(4243, -1);
	assert_int_equal(store_read_report(r, &sel, &o, &err), -ENOENT);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_refused, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_instances_and_access, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_processes, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_census, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_census_from_schema6, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_not_utf8, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_report, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_report_in_use_or_kept, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
