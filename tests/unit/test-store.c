/* The store: creating, migrating and refusing databases, every kind of row
 * written and read back (through the tables and the views a user queries),
 * process instances; readers, a locked and a full database are in
 * test-store-failures.c.  Every test works on a real SQLite file in a
 * directory of its own; a second, plain SQLite connection checks what a
 * user of the database would see. */
#include "test-store-lib.h"

#include "man-testlib.h"

/* ------------------------------------------------------------ creating */

static void test_create(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	uint64_t size = 0;
	char buf[64];

	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	assert_int_equal(store_size(s, &size), 0);
	assert_true(size > 0);
	assert_int_equal(store_check(s, 0), 0);

	sqlite3 *db = raw_open(t->db, true);
	assert_string_equal(q_text(db, buf, sizeof(buf), "PRAGMA journal_mode"), "wal");
	assert_int_equal(q_int(db, "PRAGMA auto_vacuum"), 2); /* incremental */
	assert_int_equal(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int(db, "PRAGMA application_id"), 0x52414d57);
	/* every table is STRICT */
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND type = 'table'"
				   " AND name NOT LIKE 'sqlite_%%' AND NOT strict"),
			 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name IN"
				   " ('process_labels', 'memory_timeline', 'class_timeline', 'file_timeline',"
				   "  'census_log', 'annotations', 'region_changes', 'machine_memory')"),
			 8);
	sqlite3_close(db);
	store_close(s);

	/* opening again changes nothing */
	s = open_store(t->db, 0, 0);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);
	assert_null(store_close(NULL));
}

/* ramwatch-schema(7) describes the schema of this version, and says which
 * it is: a migration added without its notes there fails here. */
static void test_manual_names_the_version(void **state)
{
	(void)state;
	char *text = man_section("ramwatch-schema.7", ".Li PRAGMA user_version", ".Pp"), want[64];
	snprintf(want, sizeof(want), "the schema version (%d for this description)", STORE_SCHEMA_VERSION);
	if (!strstr(text, want))
		fail_msg("ramwatch-schema(7) does not say \"%s\": a new migration's columns and views are "
			 "described there, and the version said",
			 want);
	free(text);
}

static void test_migrate_from_v1(void **state)
{
	struct test_db *t = *state;
	char buf[64];

	/* a database as a ramwatch of schema 1 left it */
	sqlite3 *db = raw_open(t->db, false);
	assert_int_equal(store_migrations[0].version, 1);
	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "BEGIN");
	raw_exec(db, store_migrations[0].sql);
	raw_exec(db, "PRAGMA user_version = 1");
	raw_exec(db, "COMMIT");
	raw_exec(db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
		     " VALUES ('b', 42, 7, 'old', 1000, 2000)");
	raw_exec(db, "INSERT INTO censuses (process_id, time, trigger, status, private) VALUES (1, 1500, 'first', 'ok', 99)");
	raw_exec(db, "INSERT INTO census_classes VALUES (1, 'malloc', 99, 99, 99, 0, 4096, 1)");
	sqlite3_close(db);

	/* a reader must wait for the daemon to migrate it */
	assert_int_equal(try_open(t->db, true, NULL), -EPROTO);

	struct store *s = open_store(t->db, 0, 0);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	/* the old rows are there, and the new views see them */
	assert_int_equal(put_proc(s, "b", 42, 7, 3000, 0), 1);
	store_close(s);

	db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT label FROM process_labels"), "old [42]");
	assert_int_equal(q_int(db, "SELECT private FROM class_timeline WHERE class = 'malloc'"), 99);
	assert_int_equal(q_int(db, "SELECT last_seen FROM processes"), 3000);
	/* what schema 4 added: nothing of it in the old rows */
	assert_int_equal(q_int(db, "SELECT peak_vram FROM process_labels"), 0);
	/* schema 14: a row of before is a Linux process, whose owner the views
	 * give as its uid (known since the sight above) */
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT platform FROM process_labels"), "linux");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT owner FROM processes"), "NULL");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT owner FROM process_labels"), "1000");
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE gpu_state IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples"), 0);
	sqlite3_close(db);
}

/* Schema 10 renamed the class cuda_driver gpu_driver: every stored key is
 * rewritten, in key censuses and deltas, regions and region events, so
 * every view a user or a Grafana panel reads says gpu_driver; the rows of
 * other classes are as they were. */
static void test_migrate_gpu_driver_key(void **state)
{
	struct test_db *t = *state;
	char buf[64];

	/* a database as a ramwatch of schema 9 left it */
	sqlite3 *db = raw_open(t->db, false);
	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "BEGIN");
	for (size_t i = 0; i < store_n_migrations && store_migrations[i].version <= 9; i++)
		raw_exec(db, store_migrations[i].sql);
	raw_exec(db, "PRAGMA user_version = 9");
	raw_exec(db, "COMMIT");
	raw_exec(db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
		     " VALUES ('b', 42, 7, 'train', 1000, 2000)");
	raw_exec(db, "INSERT INTO paths (path) VALUES ('/dev/nvidia0')");
	/* a key census, and a delta whose GPU driver row differs from it */
	raw_exec(db, "INSERT INTO censuses (process_id, time, trigger, status, private) VALUES (1, 1500, 'first', 'ok', 300)");
	raw_exec(db, "INSERT INTO censuses (process_id, time, trigger, status, private, base)"
		     " VALUES (1, 1600, 'interval', 'ok', 300, 1)");
	raw_exec(db, "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count)"
		     " VALUES (1, 'cuda_driver', 0, 0, 0, 0, 4096, 2), (1, 'malloc', 300, 300, 300, 0, 8192, 1),"
		     " (2, 'cuda_driver', 0, 0, 0, 0, 8192, 3)");
	raw_exec(db, "INSERT INTO census_region_rows (census_id, rank, start, \"end\", perms, class, rule, private,"
		     " resident, path_id) VALUES (1, 0, 8192, 16384, 'rw-p', 'malloc', 'brk_heap', 300, 300, NULL),"
		     " (1, 1, 4096, 8192, 'rw-s', 'cuda_driver', 'nvidia_device', 0, 0, 1)");
	raw_exec(db, "INSERT INTO region_events (process_id, census_id, time, kind, start, inode, path_id, class, size,"
		     " size_before, private, private_before, resident, resident_before)"
		     " VALUES (1, 2, 1600, 'grew', 4096, 0, 1, 'cuda_driver', 8192, 4096, 0, 0, 0, 0)");
	sqlite3_close(db);

	struct store *s = open_store(t->db, 0, 0);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);

	db = raw_open(t->db, true);
	assert_true(q_int(db, "PRAGMA user_version") >= 10);
	/* no table holds the former key */
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_class_rows WHERE class = 'cuda_driver'"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_region_rows WHERE class = 'cuda_driver'"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM region_events WHERE class = 'cuda_driver'"), 0);
	/* the views read the new one, for the key census and its delta */
	assert_int_equal(q_int(db, "SELECT count FROM census_classes WHERE census_id = 1 AND class = 'gpu_driver'"), 2);
	assert_int_equal(q_int(db, "SELECT count FROM census_classes WHERE census_id = 2 AND class = 'gpu_driver'"), 3);
	assert_int_equal(q_int(db, "SELECT private FROM census_classes WHERE census_id = 2 AND class = 'malloc'"), 300);
	assert_int_equal(q_int(db, "SELECT count(*) FROM class_timeline WHERE class = 'gpu_driver'"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM grafana_process_classes WHERE metric = 'gpu_driver'"), 2);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT class FROM census_regions WHERE census_id = 2 AND rank = 1"),
			    "gpu_driver");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT class FROM region_events"), "gpu_driver");
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_class_rows WHERE class = 'malloc'"), 1);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT class FROM census_regions WHERE census_id = 1 AND rank = 0"),
			    "malloc");
	sqlite3_close(db);
}

static void test_newer_refused(void **state)
{
	struct test_db *t = *state;
	struct error err;
	size_t len_before, len_after;

	sqlite3 *db = raw_open(t->db, false);
	raw_exec(db, "CREATE TABLE future (x INTEGER); INSERT INTO future VALUES (1);"
		     "PRAGMA application_id = 1380011351; PRAGMA user_version = 99");
	sqlite3_close(db);
	char *before = file_bytes(t->db, &len_before);

	assert_int_equal(try_open(t->db, false, &err), -EPROTO);
	char expected[128];
	snprintf(expected, sizeof(expected),
		 "database schema version 99 is newer than this ramwatch knows (%d); upgrade ramwatch",
		 STORE_SCHEMA_VERSION);
	assert_non_null(strstr(err.message, expected));
	assert_int_equal(try_open(t->db, true, &err), -EPROTO);

	/* untouched: same bytes, no WAL beside it */
	char *after = file_bytes(t->db, &len_after);
	assert_int_equal(len_before, len_after);
	assert_memory_equal(before, after, len_before);
	assert_false(exists(t->db, "-wal"));
	free(before);
	free(after);
}

static void test_not_ours(void **state)
{
	struct test_db *t = *state;
	struct error err;
	char other[400];
	size_t len_before, len_after;

	/* not SQLite at all: as a destroyed header would be, damage
	 * (SQLITE_NOTADB), which the daemon moves aside; opening it changes
	 * nothing */
	FILE *f = fopen(t->db, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is a text file, not a database\n", f);
	fclose(f);
	char *before = file_bytes(t->db, &len_before);
	assert_int_equal(try_open(t->db, false, &err), -EUCLEAN);
	assert_non_null(strstr(err.message, "not a SQLite database"));
	assert_int_equal(try_open(t->db, true, &err), -EUCLEAN);
	char *after = file_bytes(t->db, &len_after);
	assert_int_equal(len_before, len_after);
	assert_memory_equal(before, after, len_before);
	free(before);
	free(after);

	/* SQLite, but another program's */
	snprintf(other, sizeof(other), "%s/other.db", t->dir);
	sqlite3 *db = raw_open(other, false);
	raw_exec(db, "CREATE TABLE notes (text TEXT)");
	sqlite3_close(db);
	assert_int_equal(try_open(other, false, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not a ramwatch database"));

	/* and no database at all, for a reader */
	snprintf(other, sizeof(other), "%s/none.db", t->dir);
	assert_int_equal(try_open(other, true, &err), -ENOENT);
	assert_false(exists(other, ""));
}

/* ------------------------------------------------------------ rows */

static void test_process_upsert(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	char buf[128];
	int64_t id, again, other;

	struct store_process p = { .boot_id = "boot-a", .pid = 100, .start_time = 5000, .started_at = -1,
				   .uid = -1, .comm = "java", .seen = T0, .exited_at = -1,
				   .peak_private = 10 * MiB, .peak_resident = 12 * MiB };
	assert_int_equal(store_put_process(s, &p, &id), 0);

	/* the same instance later: lower peak, exe and uid now known, a new comm */
	p.seen = T0 + 60000;
	p.peak_private = 5 * MiB;
	p.peak_resident = 20 * MiB;
	p.exe = "/usr/bin/java";
	p.uid = 1000;
	p.started_at = T0 - 1000;
	p.comm = "renamed";
	assert_int_equal(store_put_process(s, &p, &again), 0);
	assert_int_equal(again, id);

	/* it exits */
	p.seen = T0 + 70000;
	p.exited_at = T0 + 70000;
	p.exe = NULL;
	assert_int_equal(store_put_process(s, &p, &again), 0);
	assert_int_equal(again, id);

	/* the pid again, another start time: another process; and another boot */
	p.start_time = 9000;
	p.exited_at = -1;
	assert_int_equal(store_put_process(s, &p, &other), 0);
	assert_true(other != id);
	p.boot_id = "boot-b";
	p.start_time = 5000;
	assert_int_equal(store_put_process(s, &p, &again), 0);
	assert_true(again != id && again != other);

	/* what is refused */
	p.boot_id = NULL;
	assert_int_equal(store_put_process(s, &p, &again), -EINVAL);
	assert_non_null(strstr(store_error(s), "boot id"));
	store_close(s);

	sqlite3 *db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "SELECT count(*) FROM processes"), 3);
	assert_int_equal(q_int(db, "SELECT peak_private FROM processes WHERE id = %lld", (long long)id), 10 * MiB);
	assert_int_equal(q_int(db, "SELECT peak_resident FROM processes WHERE id = %lld", (long long)id), 20 * MiB);
	assert_int_equal(q_int(db, "SELECT first_seen FROM processes WHERE id = %lld", (long long)id), T0);
	assert_int_equal(q_int(db, "SELECT last_seen FROM processes WHERE id = %lld", (long long)id), T0 + 70000);
	assert_int_equal(q_int(db, "SELECT exited_at FROM processes WHERE id = %lld", (long long)id), T0 + 70000);
	assert_int_equal(q_int(db, "SELECT uid FROM processes WHERE id = %lld", (long long)id), 1000);
	assert_int_equal(q_int(db, "SELECT started_at FROM processes WHERE id = %lld", (long long)id), T0 - 1000);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT exe FROM processes WHERE id = %lld", (long long)id),
			    "/usr/bin/java");
	/* a known comm stays: the first one named the instance */
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT comm FROM processes WHERE id = %lld", (long long)id),
			    "java");
	assert_string_equal(
		q_text(db, buf, sizeof(buf), "SELECT exited_at FROM processes WHERE id = %lld", (long long)other),
		"NULL");
	sqlite3_close(db);
}

/* A Windows process: its platform and its account stored, no uid; the
 * account stays as first stored, as comm does; the same pid and start
 * time on Linux under another boot is another row.  A platform out of
 * range is refused, and the schema refuses a name it does not know. */
static void test_process_platform_owner(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	char buf[128];
	int64_t id, again, lin;

	struct store_process p = { .platform = PLATFORM_WINDOWS, .boot_id = "windows-boot", .pid = 1234,
				   .start_time = T0 - 5000, .started_at = T0 - 5000, .uid = -1,
				   .owner = "DESKTOP-1\\ana", .comm = "python.exe", .seen = T0, .exited_at = -1 };
	assert_int_equal(store_put_process(s, &p, &id), 0);
	p.owner = "S-1-5-21-1-2-3-1001";
	p.seen = T0 + 1000;
	assert_int_equal(store_put_process(s, &p, &again), 0);
	assert_int_equal(again, id);
	struct store_process q = { .boot_id = "linux-boot", .pid = 1234, .start_time = T0 - 5000, .started_at = -1,
				   .uid = 1000, .comm = "python3", .seen = T0, .exited_at = -1 };
	assert_int_equal(store_put_process(s, &q, &lin), 0);
	assert_true(lin != id);

	q.platform = _PLATFORM_MAX;
	assert_int_equal(store_put_process(s, &q, &again), -EINVAL);
	assert_non_null(strstr(store_error(s), "platform"));
	store_close(s);

	sqlite3 *db = raw_open(t->db, false);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT platform FROM processes WHERE id = %lld", (long long)id),
			    "windows");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT owner FROM processes WHERE id = %lld", (long long)id),
			    "DESKTOP-1\\ana");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT uid FROM processes WHERE id = %lld", (long long)id),
			    "NULL");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT platform FROM processes WHERE id = %lld", (long long)lin),
			    "linux");
	/* the views: the account on Windows, the uid as text on Linux */
	assert_string_equal(
		q_text(db, buf, sizeof(buf), "SELECT owner FROM process_labels WHERE process_id = %lld", (long long)id),
		"DESKTOP-1\\ana");
	assert_string_equal(
		q_text(db, buf, sizeof(buf), "SELECT owner FROM process_labels WHERE process_id = %lld", (long long)lin),
		"1000");
	assert_int_not_equal(sqlite3_exec(db, "UPDATE processes SET platform = 'macos'", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_round_trip(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	struct census *c = java_census();
	char buf[256];
	int64_t pid_id, census_id, failed_id;

	assert_int_equal(store_begin(s), 0);
	pid_id = put_proc(s, "boot", 4242, 77, T0, 0);

	struct store_sample x = { .time = T0 + 10000, .private_min = 100 * MiB, .private_max = 180 * MiB,
				  .private_last = 150 * MiB, .resident_min = 200 * MiB, .resident_max = 260 * MiB,
				  .resident_last = 250 * MiB, .swap_last = 3 * MiB, .samples = 10 };
	assert_int_equal(store_put_sample(s, pid_id, &x), 0);
	x.samples = 0;
	assert_int_equal(store_put_sample(s, pid_id, &x), -EINVAL);

	struct store_census m = { .time = T0 + 20000, .trigger = TRIGGER_FIRST, .status = CENSUS_OK,
				  .wall_us = 1500, .cpu_us = 1200, .bytes_read = 65536 };
	assert_int_equal(store_put_census(s, pid_id, &m, c, &census_id), 0);

	struct store_census bad = { .time = T0 + 30000, .trigger = TRIGGER_GROWTH, .status = CENSUS_EXITED,
				    .message = "the process exited during the census", .wall_us = -1, .cpu_us = -1,
				    .bytes_read = -1 };
	assert_int_equal(store_put_census(s, pid_id, &bad, NULL, &failed_id), 0);
	assert_true(failed_id > census_id);
	bad.status = CENSUS_OK;
	assert_int_equal(store_put_census(s, pid_id, &bad, NULL, &failed_id), -EINVAL);
	bad.status = _CENSUS_STATUS_MAX;
	assert_int_equal(store_put_census(s, pid_id, &bad, NULL, &failed_id), -EINVAL);

	struct region_event ev[] = {
		{ .kind = REGION_GREW, .start = 0xe0000000, .cls = CLASS_RUNTIME_HEAP, .size = 512 * MiB,
		  .size_before = 512 * MiB, .private = 300 * MiB, .private_before = 100 * MiB, .resident = 300 * MiB,
		  .resident_before = 100 * MiB },
		{ .kind = REGION_APPEARED, .start = 0x7f0000000000, .inode = 1234, .path = "/data/model.bin",
		  .cls = CLASS_MAPPED_FILES, .size = 64 * MiB, .private = 0, .resident = 8 * MiB },
		/* above INT64_MAX: stored as a negative integer, shown in hex */
		{ .kind = REGION_DISAPPEARED, .start = 0xffffffffff600000ull, .path = "[vsyscall]",
		  .cls = CLASS_IMAGES, .size_before = 4096 },
	};
	assert_int_equal(store_put_region_events(s, pid_id, census_id, m.time, ev, 3), 0);
	assert_int_equal(store_put_mark(s, pid_id, T0 + 15000, "load model", 1000), 0);
	assert_int_equal(store_put_mark(s, pid_id, T0 + 15000, "", 1000), -EINVAL);

	struct store_system sys = { .time = T0 + 10000, .mem_total = 64 * GiB, .mem_available = 40 * GiB,
				    .swap_total = 8 * GiB, .swap_free = 6 * GiB, .committed_as = 30 * GiB,
				    .commit_limit = 40 * GiB, .have_pressure = true, .some_avg10 = 1.5,
				    .some_avg60 = 0.5, .full_avg10 = 0.25, .full_avg60 = 0.125, .some_total_us = 123456,
				    .full_total_us = 654 };
	assert_int_equal(store_put_system(s, &sys), 0);
	sys.time += 10000;
	sys.have_pressure = false;
	assert_int_equal(store_put_system(s, &sys), 0);
	assert_int_equal(store_commit(s), 0);
	store_close(s);

	sqlite3 *db = raw_open(t->db, true);
	/* the sample, as written and through the view (seconds) */
	assert_int_equal(q_int(db, "SELECT private_max FROM samples WHERE process_id = %lld", (long long)pid_id),
			 180 * MiB);
	assert_int_equal(q_int(db, "SELECT samples FROM samples"), 10);
	assert_true(q_double(db, "SELECT time FROM memory_timeline") == (double)(T0 + 10000) / 1000.0);
	assert_int_equal(q_int(db, "SELECT private FROM memory_timeline"), 150 * MiB);
	assert_int_equal(q_int(db, "SELECT swap FROM memory_timeline"), 3 * MiB);

	/* the census row: totals, counters from status, cost */
	assert_int_equal(q_int(db, "SELECT private FROM censuses WHERE id = %lld", (long long)census_id),
			 c->totals.private);
	assert_int_equal(q_int(db, "SELECT pss FROM censuses WHERE id = %lld", (long long)census_id), c->totals.pss);
	assert_int_equal(q_int(db, "SELECT regions FROM censuses WHERE id = %lld", (long long)census_id),
			 c->totals.count);
	assert_int_equal(q_int(db, "SELECT counter_resident FROM censuses WHERE id = %lld", (long long)census_id),
			 c->status.counter[STATUS_VM_RSS]);
	assert_int_equal(q_int(db, "SELECT wall_us FROM censuses WHERE id = %lld", (long long)census_id), 1500);
	assert_string_equal(
		q_text(db, buf, sizeof(buf), "SELECT trigger FROM censuses WHERE id = %lld", (long long)census_id),
		"first");

	/* the class totals, one row per class with regions, adding up */
	int classes = 0;
	for (int k = 0; k < _CLASS_MAX; k++)
		classes += c->classes[k].count > 0;
	assert_true(classes >= 3);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)census_id),
			 classes);
	assert_int_equal(q_int(db, "SELECT sum(private) FROM census_classes WHERE census_id = %lld",
			       (long long)census_id),
			 c->totals.private);

	/* class_timeline: "what grew, when, in which class" */
	assert_true(c->classes[CLASS_RUNTIME_HEAP].private > 0);
	assert_int_equal(q_int(db, "SELECT private FROM class_timeline WHERE class = 'runtime_heap'"),
			 c->classes[CLASS_RUNTIME_HEAP].private);
	assert_int_equal(q_int(db, "SELECT count FROM class_timeline WHERE class = 'runtime_heap'"),
			 c->classes[CLASS_RUNTIME_HEAP].count);
	assert_true(q_double(db, "SELECT time FROM class_timeline LIMIT 1") == (double)(T0 + 20000) / 1000.0);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT label FROM class_timeline LIMIT 1"), "java [4242]");
	assert_int_equal(q_int(db, "SELECT count(*) FROM class_timeline"), classes); /* the failed census is not there */

	/* the largest regions, in rank order, with their paths */
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = %lld", (long long)census_id),
			 c->n_largest);
	assert_int_equal(q_int(db, "SELECT start FROM census_regions WHERE rank = 0"), (int64_t)c->largest[0].start);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT rule FROM census_regions WHERE rank = 0"),
			    c->largest[0].rule);
	for (size_t i = 0; i < c->n_largest; i++)
		if (c->largest[i].path)
			assert_string_equal(q_text(db, buf, sizeof(buf),
						   "SELECT p.path FROM census_regions r JOIN paths p ON p.id = r.path_id"
						   " WHERE r.rank = %lld",
						   (long long)i),
					    c->largest[i].path);

	/* the files, and file_timeline */
	assert_true(c->n_files > 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld", (long long)census_id),
			 c->n_files);
	assert_int_equal(q_int(db, "SELECT resident FROM file_timeline WHERE path = %Q", c->files[0].path),
			 c->files[0].resident);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT kind FROM file_timeline WHERE path = %Q",
				   c->files[0].path),
			    file_kind_name(c->files[0].kind));
	/* each path once */
	assert_int_equal(q_int(db, "SELECT count(*) FROM paths"), q_int(db, "SELECT count(DISTINCT path) FROM paths"));

	/* the failed census: a row with its message and no totals */
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT status FROM census_log WHERE census_id = %lld",
				   (long long)failed_id),
			    "exited");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT message FROM census_log WHERE census_id = %lld",
				   (long long)failed_id),
			    "the process exited during the census");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT private FROM censuses WHERE id = %lld",
				   (long long)failed_id),
			    "NULL");

	/* region events, through region_changes */
	assert_int_equal(q_int(db, "SELECT private_change FROM region_changes WHERE kind = 'grew'"), 200 * MiB);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT start FROM region_changes WHERE kind = 'grew'"),
			    "0xe0000000");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT path FROM region_changes WHERE kind = 'appeared'"),
			    "/data/model.bin");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT start FROM region_changes WHERE kind = 'disappeared'"),
			    "0xffffffffff600000");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT path FROM region_changes WHERE kind = 'grew'"),
			    "NULL");

	/* marks as annotations; the machine */
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT title FROM annotations"), "load model");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT tags FROM annotations"), "pid=4242");
	assert_int_equal(q_int(db, "SELECT mem_used FROM machine_memory ORDER BY time LIMIT 1"), 24 * GiB);
	assert_true(q_double(db, "SELECT pressure_some_avg10 FROM machine_memory ORDER BY time LIMIT 1") == 1.5);
	assert_int_equal(q_int(db, "SELECT pressure_full_total_us FROM system ORDER BY time LIMIT 1"), 654);
	assert_string_equal(q_text(db, buf, sizeof(buf),
				   "SELECT pressure_some_avg10 FROM machine_memory ORDER BY time DESC LIMIT 1"),
			    "NULL");
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
	census_free(c);
}

/* ------------------------------------------------------------ GPU memory */

static struct gpu_device gpu_device(unsigned index, const char *uuid, const char *name, uint64_t total, uint64_t used)
{
	struct gpu_device d = { .index = index, .total = total, .used = used, .free = total - used, .present = true,
				.parent = -1 };
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}

/* Devices once in gpus whatever their rows; a device that does not
 * answer; a process's GPU memory merging; a census's GPU section; what
 * the store refuses; a process's GPU rows going with it. */
static void test_gpu_rows(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db, 0, 0);
	struct gpu_device a100 = gpu_device(0, "GPU-1111", "NVIDIA A100", 80ull << 30, 4ull << 30);
	struct gpu_device l4 = gpu_device(1, "GPU-2222", "NVIDIA L4", 24ull << 30, 0);
	struct census *c = java_census();
	int64_t id, a, a_again, b, census_id;
	char buf[128];

	assert_int_equal(store_begin(s), 0);
	id = put_proc(s, "b", 42, 7, 1000, 0);
	assert_int_equal(store_put_gpu_device(s, 1000, &a100, &a), 0);
	assert_int_equal(store_put_gpu_device(s, 1000, &l4, &b), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(store_put_gpu_sample(s, id, a, 1000, 3ull << 30), 0);
	/* the same process, device and time: merged, the largest kept */
	assert_int_equal(store_put_gpu_sample(s, id, a, 1000, 1ull << 30), 0);
	/* later: the L4 fell off the bus; its name and total stay known */
	l4.present = false;
	l4.total = l4.used = l4.free = 0;
	snprintf(l4.error, sizeof(l4.error), "nvmlDeviceGetMemoryInfo: GPU is lost");
	assert_int_equal(store_put_gpu_device(s, 2000, &a100, &a_again), 0);
	assert_int_equal(a_again, a);
	assert_int_equal(store_put_gpu_device(s, 2000, &l4, NULL), 0);
	assert_int_equal(store_put_gpu_sample(s, id, a, 2000, 2ull << 30), 0);

	/* a census with its GPU section, one without */
	c->gpu = (struct census_gpu){ .taken = true, .state = GPU_OK, .driver_version = 12040, .nvidia_mapped = true };
	c->gpu.uses = calloc(2, sizeof(*c->gpu.uses));
	c->gpu.uses[0] = (struct census_gpu_use){ .index = 0, .used = 2ull << 30, .total = 80ull << 30 };
	snprintf(c->gpu.uses[0].uuid, sizeof(c->gpu.uses[0].uuid), "GPU-1111");
	snprintf(c->gpu.uses[0].name, sizeof(c->gpu.uses[0].name), "NVIDIA A100");
	c->gpu.uses[1] = (struct census_gpu_use){ .index = 2, .used = GPU_BYTES_UNKNOWN, .graphics = true };
	snprintf(c->gpu.uses[1].uuid, sizeof(c->gpu.uses[1].uuid), "GPU-3333");
	snprintf(c->gpu.uses[1].name, sizeof(c->gpu.uses[1].name), "NVIDIA T4");
	c->gpu.n_uses = 2;
	struct store_census m = { .time = 2500, .trigger = TRIGGER_GROWTH, .status = CENSUS_OK, .wall_us = -1,
				  .cpu_us = -1, .bytes_read = -1 };
	assert_int_equal(store_put_census(s, id, &m, c, &census_id), 0);
	c->gpu.taken = false;
	m.time = 2600;
	assert_int_equal(store_put_census(s, id, &m, c, NULL), 0);

	/* refused: a device without a UUID, a figure NVML could not give */
	struct gpu_device nameless = gpu_device(3, "", "", 0, 0);
	assert_int_equal(store_put_gpu_device(s, 3000, &nameless, NULL), -EINVAL);
	assert_int_equal(store_put_gpu_sample(s, id, a, 3000, GPU_BYTES_UNKNOWN), -EINVAL);
	assert_int_equal(store_commit(s), 0);

	sqlite3 *db = raw_open(t->db, true);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpus"), 3);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT name FROM gpus WHERE uuid = 'GPU-2222'"), "NVIDIA L4");
	assert_int_equal(q_int(db, "SELECT total FROM gpus WHERE uuid = 'GPU-2222'"), 24ll << 30);
	assert_int_equal(q_int(db, "SELECT last_seen FROM gpus WHERE uuid = 'GPU-2222'"), 2000);
	assert_int_equal(q_int(db, "SELECT first_seen FROM gpus WHERE uuid = 'GPU-1111'"), 1000);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpus WHERE uuid = 'GPU-3333' AND total IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT used FROM gpu_devices WHERE gpu_id = %lld AND time = 1000", (long long)a),
			 4ll << 30);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_devices d JOIN gpus g ON g.id = d.gpu_id"
				   " WHERE g.uuid = 'GPU-2222' AND d.time = 2000 AND NOT d.present AND d.used IS NULL"
				   " AND d.error = 'nvmlDeviceGetMemoryInfo: GPU is lost'"),
			 1);
	assert_int_equal(q_int(db, "SELECT used_max FROM gpu_samples WHERE time = 1000"), 3ll << 30);
	assert_int_equal(q_int(db, "SELECT used_last FROM gpu_samples WHERE time = 1000"), 1ll << 30);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples WHERE resolution = 0"), 2);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT gpu_state FROM censuses WHERE id = %lld",
				   (long long)census_id),
			    "ok");
	assert_int_equal(q_int(db, "SELECT gpu_driver_version FROM censuses WHERE id = %lld", (long long)census_id),
			 12040);
	assert_int_equal(q_int(db, "SELECT nvidia_mapped FROM censuses WHERE id = %lld", (long long)census_id), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE time = 2600 AND gpu_state IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_gpu"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_gpu x JOIN gpus g ON g.id = x.gpu_id"
				   " WHERE g.uuid = 'GPU-3333' AND x.used IS NULL AND x.graphics"),
			 1);
	/* the views */
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_timeline"), 4);
	assert_int_equal(q_int(db, "SELECT value FROM grafana_process_vram WHERE time_ms = 2000"), 2ll << 30);
	assert_int_equal(q_int(db, "SELECT count(*) FROM grafana_gpu_devices WHERE time_ms = 2000"), 2);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT group_concat(metric, ';') FROM"
				   " (SELECT metric FROM grafana_gpu_devices WHERE time_ms = 1000 ORDER BY metric)"),
			    "GPU 0 total;GPU 0 used;GPU 1 total;GPU 1 used");
	sqlite3_close(db);

	/* a process's GPU memory rows go with it; the devices stay */
	db = raw_open(t->db, false);
	raw_exec(db, "PRAGMA foreign_keys = ON");
	raw_exec(db, "DELETE FROM processes");
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpu_samples"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_gpu"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM gpus"), 3);
	sqlite3_close(db);
	census_free(c);
	store_close(s);
}

/* The schema of the database at path as SQLite keeps it, every object's
 * statement in name order, into buf. */
static const char *schema_text(const char *path, char *buf, size_t size)
{
	sqlite3 *db = raw_open(path, true);
	q_text(db, buf, size, "SELECT group_concat(type || ' ' || name || ': ' || coalesce(sql, ''), char(10))"
			      " FROM (SELECT * FROM sqlite_master ORDER BY type, name)");
	sqlite3_close(db);
	return buf;
}

/* Schema 16 made the censuses table again for the trigger limit: every
 * census of a schema 15 database is there with its id and its columns,
 * what refers to it (class rows, regions, a delta's key, a repeat, region
 * events, an OOM kill) still finds it, its triggers still run, and the
 * schema is that of a database made new.  A row that referred to nothing
 * before (left by hand with foreign keys off) does not stop it. */
static void test_migrate_census_limit_trigger(void **state)
{
	struct test_db *t = *state;
	static char migrated[256 * 1024], fresh[256 * 1024];
	char buf[64], path[400];

	/* a database as a ramwatch of schema 15 left it */
	sqlite3 *db = raw_open(t->db, false);
	raw_exec(db, "PRAGMA journal_mode = WAL");
	raw_exec(db, "BEGIN");
	for (size_t i = 0; i < store_n_migrations && store_migrations[i].version <= 15; i++)
		raw_exec(db, store_migrations[i].sql);
	raw_exec(db, "PRAGMA user_version = 15");
	raw_exec(db, "COMMIT");
	raw_exec(db, "INSERT INTO processes (boot_id, pid, start_time, comm, first_seen, last_seen)"
		     " VALUES ('b', 42, 7, 'grow', 1000, 9000)");
	/* a key, a delta against it, a repeat of the delta, one that failed */
	raw_exec(db, "INSERT INTO censuses (id, process_id, time, trigger, status, private, resident, in_use, gpu_state)"
		     " VALUES (10, 1, 1500, 'first', 'ok', 300, 400, 250, 'no_library')");
	raw_exec(db, "INSERT INTO censuses (id, process_id, time, trigger, status, private, base)"
		     " VALUES (11, 1, 1600, 'growth', 'ok', 500, 10)");
	raw_exec(db, "INSERT INTO censuses (id, process_id, time, trigger, status, private, repeats)"
		     " VALUES (12, 1, 1700, 'interval', 'ok', 500, 11)");
	raw_exec(db, "INSERT INTO censuses (id, process_id, time, trigger, status, message)"
		     " VALUES (13, 1, 1800, 'request', 'exited', 'process 42 exited')");
	raw_exec(db, "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count)"
		     " VALUES (10, 'malloc', 200, 200, 200, 0, 8192, 1), (10, 'stack', 100, 100, 100, 0, 4096, 1),"
		     " (11, 'malloc', 400, 400, 400, 0, 8192, 1)");
	raw_exec(db, "INSERT INTO census_region_rows (census_id, rank, start, \"end\", perms, class, rule, private,"
		     " resident, path_id) VALUES (10, 0, 8192, 16384, 'rw-p', 'malloc', 'brk_heap', 200, 200, NULL)");
	raw_exec(db, "INSERT INTO region_events (process_id, census_id, time, kind, start, inode, path_id, class, size,"
		     " size_before, private, private_before, resident, resident_before)"
		     " VALUES (1, 11, 1600, 'grew', 8192, 0, NULL, 'malloc', 16384, 8192, 400, 200, 400, 200)");
	raw_exec(db, "INSERT INTO oom_kills (time, sources, pid, process_id, comm, census_id)"
		     " VALUES (1900, 'bpf,kmsg', 42, 1, 'grow', 12)");
	/* the sqlite3 shell's default: nothing checks what this refers to */
	raw_exec(db, "PRAGMA foreign_keys = OFF");
	raw_exec(db, "INSERT INTO census_class_rows (census_id, class, private, resident, pss, swap, size, count)"
		     " VALUES (99, 'malloc', 1, 1, 1, 0, 4096, 1)");
	/* 'limit' is what schema 15 refuses */
	assert_int_not_equal(sqlite3_exec(db, "INSERT INTO censuses (process_id, time, trigger, status)"
					      " VALUES (1, 2000, 'limit', 'ok')", NULL, NULL, NULL),
			     SQLITE_OK);
	sqlite3_close(db);

	struct store *s = open_store(t->db, 0, 0);
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);

	db = raw_open(t->db, false);
	assert_int_equal(q_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 4);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT group_concat(id || ':' || trigger, ' ')"
							   " FROM (SELECT * FROM censuses ORDER BY id)"),
			    "10:first 11:growth 12:interval 13:request");
	assert_int_equal(q_int(db, "SELECT in_use FROM censuses WHERE id = 10"), 250);
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT gpu_state FROM censuses WHERE id = 10"), "no_library");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT message FROM censuses WHERE id = 13"),
			    "process 42 exited");
	/* the views still read a delta whole, through its key */
	assert_int_equal(q_int(db, "SELECT private FROM census_classes WHERE census_id = 11 AND class = 'stack'"), 100);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = 11"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_log"), 4);
	assert_int_equal(q_int(db, "SELECT census_id FROM oom_kills"), 12);
	assert_int_equal(q_int(db, "SELECT count(*) FROM region_events WHERE census_id = 11"), 1);
	/* the row that referred to nothing is as it was, and only it */
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_class_rows WHERE census_id = 99"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 1);
	raw_exec(db, "DELETE FROM census_class_rows WHERE census_id = 99");
	/* the new trigger is stored; another word still is not */
	raw_exec(db, "PRAGMA foreign_keys = ON");
	raw_exec(db, "INSERT INTO censuses (process_id, time, trigger, status) VALUES (1, 2000, 'limit', 'ok')");
	assert_int_not_equal(sqlite3_exec(db, "INSERT INTO censuses (process_id, time, trigger, status)"
					      " VALUES (1, 2100, 'near', 'ok')", NULL, NULL, NULL),
			     SQLITE_OK);
	/* the triggers are back: the key deleted, its delta is made whole
	 * and becomes the key; the foreign keys still act (the kill's link
	 * goes with its census) */
	raw_exec(db, "DELETE FROM censuses WHERE id = 10");
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses WHERE id = 11 AND base IS NULL"), 1);
	assert_int_equal(q_int(db, "SELECT private FROM census_classes WHERE census_id = 11 AND class = 'stack'"), 100);
	raw_exec(db, "DELETE FROM censuses WHERE id = 12");
	assert_string_equal(q_text(db, buf, sizeof(buf), "SELECT census_id FROM oom_kills"), "NULL");
	raw_exec(db, "DELETE FROM processes");
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_class_rows"), 0);
	sqlite3_close(db);

	/* the schema is the one a new database has */
	snprintf(path, sizeof(path), "%s.new", t->db);
	s = open_store(path, 0, 0);
	store_close(s);
	assert_string_equal(schema_text(t->db, migrated, sizeof(migrated)), schema_text(path, fresh, sizeof(fresh)));
	assert_non_null(strstr(fresh, "'request', 'limit')"));
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(store_trigger_name(TRIGGER_GROWTH), "growth");
	assert_string_equal(store_trigger_name(TRIGGER_REQUEST), "request");
	assert_string_equal(store_trigger_name(TRIGGER_LIMIT), "limit");
	assert_null(store_trigger_name(_TRIGGER_MAX));
	assert_string_equal(store_census_status_name(CENSUS_DENIED), "denied");
	assert_null(store_census_status_name(_CENSUS_STATUS_MAX));
	assert_string_equal(store_error(NULL), "no database");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, test_db_setup, test_db_teardown),
		cmocka_unit_test(test_manual_names_the_version),
		cmocka_unit_test_setup_teardown(test_migrate_from_v1, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_gpu_driver_key, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_census_limit_trigger, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_newer_refused, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_process_upsert, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_process_platform_owner, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_round_trip, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_gpu_rows, test_db_setup, test_db_teardown),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
