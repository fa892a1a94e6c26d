/* The store's read side: opening (and refusing schemas), selections and who
 * may see what, the processes and census answers on known rows.  The
 * events answer, the deadline and the interrupt are tested in
 * test-store-read-events.c, GPU memory and the query plans in
 * test-store-read-gpu.c, history in test-store-read-history.c, the report
 * in test-store-read-report.c. */
#include "test-store-read-lib.h"

#include <pthread.h>
#include <pwd.h>
#include <time.h>

#include "census-json.h"
#include "limits.h"
#include "store-migrations.h"
#include "store-read-internal.h"
#include "util.h"

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
	assert_int_equal(store_read_processes(r, -1, NULL, false, "private", 0, &o, &err), 0);
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
	assert_int_equal(store_read_processes(r, -1, NULL, true, "peak", 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 4);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.java);
	assert_int_equal(jint(jat(list, 1), "process_id"), p.bash);
	assert_int_equal(jint(jat(list, 3), "process_id"), p.python);
	/* its last row is a minute row */
	assert_int_equal(jint(jat(list, 3), "private"), 870);
	assert_int_equal(jint(jat(list, 3), "resident"), 1700);
	json_decref(o);
	assert_int_equal(store_read_processes(r, -1, NULL, true, "resident", 2, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 2);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.java);
	json_decref(o);

	/* ana's own */
	assert_int_equal(store_read_processes(r, 1000, NULL, true, NULL, RW_ANSWER_ROWS_MAX + 1, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.python);
	assert_int_equal(jint(o, "filtered_to_uid"), 1000);
	json_decref(o);

	assert_int_equal(store_read_processes(r, -1, NULL, true, "size", 0, &o, &err), -EINVAL);
	assert_string_equal(err.message, "sort: \"size\" is not private, resident, peak or vram");

	/* a Windows process: its platform, and its account as its user */
	raw_exec(t->db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen, peak_private,"
			" platform, owner) VALUES ('windows-boot', 300, 1700000000000, 'python.exe', 1, 2, 9999999,"
			" 'windows', 'DESKTOP-1\\ana')");
	assert_int_equal(store_read_processes(r, -1, NULL, true, "peak", 0, &o, &err), 0);
	x = jat(jget(o, "processes"), 0);
	assert_int_equal(jint(x, "pid"), 300);
	assert_string_equal(jstr(x, "platform"), "windows");
	assert_string_equal(jstr(x, "user"), "DESKTOP-1\\ana");
	assert_true(jnull(x, "uid"));
	assert_string_equal(jstr(jat(jget(o, "processes"), 1), "platform"), "linux");
	json_decref(o);

	/* a Windows asker sees the processes of its account (its name
	 * compared without case), none of uid's; the Linux filter still
	 * holds beside it */
	assert_int_equal(store_read_processes(r, (int64_t)UINT32_MAX, "desktop-1\\ANA", true, NULL, 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(jint(jat(list, 0), "pid"), 300);
	json_decref(o);
	assert_int_equal(store_read_processes(r, (int64_t)UINT32_MAX, "DESKTOP-1\\bob", true, NULL, 0, &o, &err), 0);
	assert_int_equal(json_array_size(jget(o, "processes")), 0);
	json_decref(o);
	assert_int_equal(store_read_processes(r, 1000, "DESKTOP-1\\bob", true, NULL, 0, &o, &err), 0);
	list = jget(o, "processes");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(jint(jat(list, 0), "process_id"), p.python);
	json_decref(o);

	/* by pid and by name, the same account's, or denied naming the owner */
	/* (pid 300 is also the Linux process of nobody known, seen last) */
	struct store_select sel = { .pid = 300, .all_instances = true, .only_uid = UINT32_MAX,
				    .only_owner = "Desktop-1\\Ana" };
	assert_int_equal(store_read_instances(r, &sel, &o, &err), 0);
	assert_int_equal(json_array_size(o), 1);
	assert_string_equal(jstr(jat(o, 0), "comm"), "python.exe");
	json_decref(o);
	sel.only_owner = "DESKTOP-1\\bob";
	assert_int_equal(store_read_instances(r, &sel, &o, &err), -EACCES);
	sel = (struct store_select){ .name = "python*", .only_uid = UINT32_MAX, .only_owner = "DESKTOP-1\\bob" };
	assert_int_equal(store_read_instances(r, &sel, &o, &err), -ENOENT);
	assert_string_equal(err.message, "no process of DESKTOP-1\\bob matches \"python*\"");
	sel.only_owner = "DESKTOP-1\\ana";
	assert_int_equal(store_read_instances(r, &sel, &o, &err), 0);
	assert_int_equal(json_array_size(o), 1);
	json_decref(o);
	census_free(c);

	/* the rule itself, as the daemon's lists of watched processes and
	 * its metrics apply it */
	assert_true(store_owner_visible(-1, NULL, 1000, NULL));
	assert_true(store_owner_visible(1000, NULL, 1000, NULL));
	assert_false(store_owner_visible(1000, NULL, 1001, NULL));
	assert_true(store_owner_visible(UINT32_MAX, "DESKTOP-1\\ana", -1, "desktop-1\\ANA"));
	assert_false(store_owner_visible(UINT32_MAX, "DESKTOP-1\\ana", -1, "DESKTOP-1\\bob"));
	assert_false(store_owner_visible(UINT32_MAX, "DESKTOP-1\\ana", -1, NULL));
	assert_false(store_owner_visible(UINT32_MAX, NULL, -1, "DESKTOP-1\\ana"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_refused, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_instances_and_access, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_processes, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_census, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_census_from_schema6, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_not_utf8, tmp_setup, tmp_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
