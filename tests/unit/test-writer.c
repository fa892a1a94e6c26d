/* The writer over a real store: rows queued and written in one
 * transaction, kept while the database is locked and written after,
 * the queue's bound with drops counted, shared process references that
 * outlive the process, a GPU snapshot's rows written together; and what
 * the daemon tells of GPUs that stop answering (gpu-watch.h). */
#include "testlib.h"

#include <errno.h>
#include <sqlite3.h>
#include <unistd.h>

#include "census.h"
#include "gpu-watch.h"
#include "limits.h"
#include "log.h"
#include "scan.h"
#include "store.h"
#include "writer.h"

struct fixture {
	char dir[128], db[192];
	struct store *store;
	struct writer *w;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct store_options o = { .busy_timeout_ms = 100 };
	struct error err;
	snprintf(f->dir, sizeof(f->dir), "/tmp/ramwatch-writer-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db, sizeof(f->db), "%s/ramwatch.db", f->dir);
	o.path = f->db;
	assert_int_equal(store_open(&o, &f->store, &err), 0);
	f->w = writer_new(f->store);
	assert_non_null(f->w);
	log_set_max_level(LOG_ERR); /* the failures below are expected */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[256];
	writer_free(f->w);
	store_close(f->store);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static int64_t count(const char *db, const char *sql)
{
	sqlite3 *c;
	sqlite3_stmt *st;
	int64_t n = -1;
	assert_int_equal(sqlite3_open_v2(db, &c, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(c, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(c);
	return n;
}

static struct proc_ref *new_ref(int pid)
{
	struct store_process info = {
		.boot_id = "b0",
		.pid = pid,
		.start_time = 100 + pid,
		.started_at = -1,
		.uid = 0,
		.comm = "worker",
		.exe = "/usr/bin/worker",
		.cmdline = "worker --serve",
		.seen = 1000,
		.exited_at = -1,
	};
	struct proc_ref *p = proc_ref_new(&info);
	assert_non_null(p);
	return p;
}

static struct store_sample sample_at(int64_t t, uint64_t v)
{
	return (struct store_sample){ .time = t, .private_min = v, .private_max = v, .private_last = v,
				      .resident_min = v, .resident_max = v, .resident_last = v, .samples = 10 };
}

static void test_one_transaction(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(10);
	struct store_sample s1 = sample_at(1000, 5), s2 = sample_at(2000, 7);
	struct store_system sys = { .time = 2000, .mem_total = 1 << 30, .mem_available = 1 << 29 };

	assert_int_equal(writer_flush(f->w), 0); /* nothing queued */
	assert_int_equal(writer_add_sample(f->w, p, &s1), 0);
	assert_int_equal(writer_add_sample(f->w, p, &s2), 0);
	assert_int_equal(writer_add_mark(f->w, p, 1500, "warmup", 0), 0);
	assert_int_equal(writer_add_system(f->w, &sys), 0);

	/* a census of a saved file, with its regions dropped as the daemon does */
	struct scan_options o = { .keep_regions = false };
	struct error err;
	struct census *c = NULL;
	assert_int_equal(scan_smaps_file(fixture("smaps/java17-g1.smaps"), NULL, &o, &c, &err), 0);
	struct store_census meta = { .time = 1800, .trigger = TRIGGER_FIRST, .status = CENSUS_OK, .wall_us = 5,
				     .cpu_us = 4, .bytes_read = 100 };
	struct region_event *ev = calloc(1, sizeof(*ev));
	*ev = (struct region_event){ .kind = REGION_APPEARED, .start = 0x1000, .size = 4096, .cls = CLASS_OTHER };
	assert_int_equal(writer_add_census(f->w, p, &meta, NULL, c, ev, 1), 0);

	/* the process exits before the rows are written: they outlive it */
	p->info.exited_at = 2500;
	assert_int_equal(writer_add_process(f->w, p), 0);
	proc_ref_unref(p);

	struct writer_stats ws;
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.queued, 6);
	assert_int_equal(writer_flush(f->w), 0);
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.queued, 0);
	assert_int_equal(ws.written[WRITER_SAMPLE], 2);
	assert_int_equal(ws.written[WRITER_CENSUS], 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM processes"), 1);
	assert_int_equal(count(f->db, "SELECT exited_at FROM processes"), 2500);
	assert_int_equal(count(f->db, "SELECT count(*) FROM samples"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM marks"), 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM system"), 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM region_events"), 1);
	assert_true(count(f->db, "SELECT count(*) FROM census_classes") > 3);
}

/* OOM kills and memory cgroups: a kill of a watched process linked to
 * its row and its census (queued before it), a kill of one not watched,
 * the strings copied; a group's row with its sample. */
static void test_oom_and_cgroup_rows(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(12);
	struct writer_stats ws;
	char comm[16] = "worker", cg[32] = "/box";

	struct store_census meta = { .time = 1800, .trigger = TRIGGER_GROWTH, .status = CENSUS_ERROR, .wall_us = -1,
				     .cpu_us = -1, .bytes_read = -1 };
	assert_int_equal(writer_add_census(f->w, p, &meta, "x", NULL, NULL, 0), 0);
	struct store_oom_kill k = {
		.time = 2000, .sources = STORE_OOM_BPF | STORE_OOM_KMSG, .pid = 12, .comm = comm, .have_uid = true,
		.uid = 0, .constraint = "memcg", .cgroup = cg, .limit_cgroup = cg, .have_limit = true,
		.limit = 200u << 20, .usage = 199u << 20,
	};
	assert_int_equal(writer_add_oom_kill(f->w, p, &k), 0);
	k.pid = 13;
	assert_int_equal(writer_add_oom_kill(f->w, NULL, &k), 0);
	memset(comm, 0, sizeof(comm)); /* copied */
	proc_ref_unref(p);

	struct store_cgroup g = { .version = 1, .path = cg, .inode = 77 };
	struct store_cgroup_sample x = { .time = 2000, .usage = 150u << 20, .have_limit = true, .have_applies = true,
					 .limit = 200u << 20, .applies = 200u << 20, .processes = 1,
					 .processes_private = 120u << 20, .processes_resident = 130u << 20 };
	assert_int_equal(writer_add_cgroup(f->w, &g, &x), 0);
	memset(cg, 0, sizeof(cg));

	assert_int_equal(writer_flush(f->w), 0);
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.written[WRITER_OOM_KILL], 2);
	assert_int_equal(ws.written[WRITER_CGROUP], 1);
	assert_string_equal(writer_row_name(WRITER_OOM_KILL), "oom_kill");
	assert_string_equal(writer_row_name(WRITER_CGROUP), "cgroup");
	assert_int_equal(count(f->db, "SELECT count(*) FROM oom_kills WHERE comm = 'worker' AND cgroup = '/box'"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM oom_kills k JOIN processes p ON p.id = k.process_id"
				      " WHERE p.pid = 12 AND k.pid = 12"),
			 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM oom_kills WHERE pid = 13 AND process_id IS NULL"), 1);
	assert_int_equal(count(f->db, "SELECT limit_applies FROM cgroup_samples s JOIN cgroups g ON g.id = s.cgroup_id"
				      " WHERE g.path = '/box' AND g.inode = 77"),
			 200ll << 20);
}

/* One StoreInterval's GPU rows: each device's, then each process's on
 * the device it uses, in one queued row; a device never named, and a
 * figure NVML could not give, are left out; the processes' rows come
 * with them. */
static void test_gpu_rows(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(10), *q = new_ref(11);
	struct gpu_device d[3] = {
		{ .index = 0, .uuid = "GPU-1111", .name = "NVIDIA A100", .total = 80ull << 30, .used = 3ull << 30,
		  .free = 77ull << 30, .present = true, .parent = -1 },
		{ .index = 1, .uuid = "GPU-2222", .name = "NVIDIA L4", .present = false, .parent = -1,
		  .error = "nvmlDeviceGetMemoryInfo: GPU is lost" },
		{ .index = 2, .present = false, .parent = -1 },
	};
	struct writer_gpu_use u[] = {
		{ .proc = p, .device = 0, .used = 1ull << 30 },
		{ .proc = q, .device = 0, .used = 2ull << 30 },
		{ .proc = q, .device = 2, .used = 4096 },
		{ .proc = q, .device = 1, .used = GPU_BYTES_UNKNOWN },
	};
	struct writer_stats ws;

	assert_int_equal(writer_add_gpu(f->w, 5000, d, 3, u, ELEMENTSOF(u)), 0);
	/* the rows hold their own references and copies */
	proc_ref_unref(p);
	proc_ref_unref(q);
	memset(d, 0, sizeof(d));
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.queued, 1);
	assert_int_equal(writer_flush(f->w), 0);
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.written[WRITER_GPU], 1);
	assert_string_equal(writer_row_name(WRITER_GPU), "gpu");
	assert_int_equal(count(f->db, "SELECT count(*) FROM processes"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpus"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpu_devices WHERE time = 5000"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpu_devices WHERE present = 0"), 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpu_samples"), 2);
	assert_int_equal(count(f->db, "SELECT sum(used_last) FROM gpu_samples s JOIN processes p ON p.id = s.process_id"
				      " WHERE p.pid = 11"),
			 2ll << 30);
	/* nothing to say of processes: a snapshot's device rows alone */
	assert_int_equal(writer_add_gpu(f->w, 6000, &(struct gpu_device){ .uuid = "GPU-1111", .present = true,
									 .parent = -1 },
				       1, NULL, 0),
			 0);
	assert_int_equal(writer_flush(f->w), 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpu_devices WHERE time = 6000"), 1);
	/* the name stays known */
	assert_int_equal(count(f->db, "SELECT count(*) FROM gpus WHERE name = 'NVIDIA A100'"), 1);
}

/* What the daemon tells of the devices, snapshot after snapshot. */
struct told {
	enum gpu_watch_change change[8];
	char uuid[8][96];
	unsigned index[8];
	size_t n;
};

static void told(void *userdata, enum gpu_watch_change change, const struct gpu_device *d)
{
	struct told *t = userdata;
	assert_true(t->n < ELEMENTSOF(t->change));
	t->change[t->n] = change;
	t->index[t->n] = d->index;
	snprintf(t->uuid[t->n++], sizeof(t->uuid[0]), "%s", d->uuid);
}

static void test_gpu_changes(void **state)
{
	(void)state;
	struct gpu_watch w = { 0 };
	struct gpu_device d[3] = {
		{ .index = 0, .uuid = "GPU-1111", .present = true, .parent = -1 },
		/* did not answer at the first look: no UUID yet */
		{ .index = 1, .present = false, .parent = -1, .error = "nvmlDeviceGetHandleByIndex_v2: GPU is lost" },
		{ .index = 0, .uuid = "MIG-aaaa", .present = true, .parent = 0 },
	};
	struct gpu_snapshot s = { .state = GPU_OK, .devices = d, .n_devices = 3 };
	struct told t = { 0 };

	/* the first look: those present are no news; the one that is not is */
	assert_int_equal(gpu_watch_note(&w, &s, true, told, &t), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.change[0], GPU_WATCH_LOST);
	assert_int_equal(t.index[0], 1);
	/* the same again: nothing, however often */
	t.n = 0;
	assert_int_equal(gpu_watch_note(&w, &s, false, told, &t), 0);
	assert_int_equal(gpu_watch_note(&w, &s, false, told, &t), 0);
	assert_int_equal(t.n, 0);
	/* GPU 1 answers (and has a UUID now); GPU 0 is lost, keeping its UUID */
	snprintf(d[1].uuid, sizeof(d[1].uuid), "GPU-2222");
	d[1].present = true;
	d[0].present = false;
	assert_int_equal(gpu_watch_note(&w, &s, false, told, &t), 0);
	assert_int_equal(gpu_watch_note(&w, &s, false, told, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.change[0], GPU_WATCH_LOST);
	assert_string_equal(t.uuid[0], "GPU-1111");
	assert_int_equal(t.change[1], GPU_WATCH_BACK);
	assert_string_equal(t.uuid[1], "GPU-2222");
	/* the MIG instance goes, another comes */
	t.n = 0;
	snprintf(d[2].uuid, sizeof(d[2].uuid), "MIG-bbbb");
	assert_int_equal(gpu_watch_note(&w, &s, false, told, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.change[0], GPU_WATCH_NEW);
	assert_string_equal(t.uuid[0], "MIG-bbbb");
	assert_int_equal(t.change[1], GPU_WATCH_GONE);
	assert_string_equal(t.uuid[1], "MIG-aaaa");
	gpu_watch_done(&w);
	gpu_watch_done(&w);
}

/* A process's row is written at every flush it has rows in: its last
 * sight and peaks go up, its exit is kept; after the first flush the row
 * is updated in place (store_update_process), and a row deleted meanwhile
 * is made again. */
static void test_process_row_over_flushes(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(21);
	char sql[160];

	for (int i = 0; i < 4; i++) {
		struct store_sample s = sample_at(1000 * (i + 1), (uint64_t)i);
		p->info.seen = 1000 * (i + 1);
		p->info.peak_private = i == 1 ? 500 : 100u * (uint64_t)i; /* 0, 500, 200, 300: the peak stays 500 */
		assert_int_equal(writer_add_sample(f->w, p, &s), 0);
		assert_int_equal(writer_flush(f->w), 0);
	}
	int64_t id = p->id;
	assert_true(id > 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM processes"), 1);
	snprintf(sql, sizeof(sql), "SELECT last_seen FROM processes WHERE id = %lld", (long long)id);
	assert_int_equal(count(f->db, sql), 4000);
	snprintf(sql, sizeof(sql), "SELECT peak_private FROM processes WHERE id = %lld", (long long)id);
	assert_int_equal(count(f->db, sql), 500);
	snprintf(sql, sizeof(sql), "SELECT first_seen FROM processes WHERE id = %lld", (long long)id);
	assert_int_equal(count(f->db, sql), 1000);

	/* deleted by someone else: the next flush makes the row again */
	sqlite3 *other;
	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "PRAGMA foreign_keys = OFF; DELETE FROM samples; DELETE FROM processes",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(other);
	struct store_sample s = sample_at(5000, 7);
	p->info.seen = 5000;
	p->info.exited_at = 5000;
	assert_int_equal(writer_add_sample(f->w, p, &s), 0);
	assert_int_equal(writer_flush(f->w), 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM processes"), 1);
	assert_int_equal(count(f->db, "SELECT exited_at FROM processes"), 5000);
	assert_int_equal(count(f->db, "SELECT count(*) FROM samples"), 1);
	proc_ref_unref(p);
}

/* After the file is replaced, a process's old row id names nothing, or
 * another process's row in the new file: its row is made anew there, and
 * the other's is left as it was. */
static void test_process_row_in_a_new_file(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *a = new_ref(31), *b = new_ref(32);
	struct store_options o = { .busy_timeout_ms = 100 };
	struct store *fresh = NULL;
	struct error err;
	char path[256];

	struct store_sample s = sample_at(1000, 1);
	assert_int_equal(writer_add_sample(f->w, a, &s), 0);
	assert_int_equal(writer_flush(f->w), 0);
	int64_t old_id = a->id;

	snprintf(path, sizeof(path), "%s/new.db", f->dir);
	o.path = path;
	assert_int_equal(store_open(&o, &fresh, &err), 0);
	writer_set_store(f->w, fresh);
	/* b takes the first id of the new file: a's old one */
	s = sample_at(2000, 2);
	assert_int_equal(writer_add_sample(f->w, b, &s), 0);
	assert_int_equal(writer_flush(f->w), 0);
	assert_int_equal(b->id, old_id);
	a->info.seen = 3000;
	a->info.peak_private = 999;
	s = sample_at(3000, 3);
	assert_int_equal(writer_add_sample(f->w, a, &s), 0);
	assert_int_equal(writer_flush(f->w), 0);

	assert_int_equal(count(path, "SELECT count(*) FROM processes"), 2);
	assert_int_equal(count(path, "SELECT count(*) FROM processes WHERE pid = 32 AND peak_private = 999"), 0);
	assert_int_equal(count(path, "SELECT last_seen FROM processes WHERE pid = 32"), 1000);
	assert_int_equal(count(path, "SELECT peak_private FROM processes WHERE pid = 31"), 999);
	assert_int_equal(count(path, "SELECT count(*) FROM samples s JOIN processes p ON p.id = s.process_id"
				     " WHERE p.pid = 31"),
			 1);
	writer_set_store(f->w, f->store);
	store_close(fresh);
	proc_ref_unref(a);
	proc_ref_unref(b);
}

static void test_locked_then_written(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(11);
	sqlite3 *other;

	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	for (int i = 0; i < 5; i++) {
		struct store_sample s = sample_at(1000 * (i + 1), (uint64_t)i);
		assert_int_equal(writer_add_sample(f->w, p, &s), 0);
		assert_int_equal(writer_flush(f->w), -EBUSY);
	}
	struct writer_stats ws;
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.error, -EBUSY);
	assert_int_equal(ws.queued, 5);
	assert_int_equal(ws.failed_flushes, 5);
	assert_non_null(strstr(ws.message, "lock"));
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);

	assert_int_equal(writer_flush(f->w), 0);
	writer_get_stats(f->w, &ws);
	assert_int_equal(ws.error, 0);
	assert_int_equal(count(f->db, "SELECT count(*) FROM samples"), 5);
	assert_int_equal(writer_dropped(f->w), 0);
	proc_ref_unref(p);
}

static void test_bound_drops_the_oldest(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(12);
	sqlite3 *other;

	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	/* well past RW_PENDING_MAX of sample rows */
	size_t n = RW_PENDING_MAX / 64;
	for (size_t i = 0; i < n; i++) {
		struct store_sample s = sample_at((int64_t)i, i);
		assert_int_equal(writer_add_sample(f->w, p, &s), 0);
	}
	struct writer_stats ws;
	writer_get_stats(f->w, &ws);
	assert_true(ws.queued_bytes <= RW_PENDING_MAX);
	assert_true(ws.dropped[WRITER_SAMPLE] > 0);
	assert_int_equal(ws.queued + ws.dropped[WRITER_SAMPLE], n);
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);

	assert_int_equal(writer_flush(f->w), 0);
	/* the newest rows are the ones kept */
	assert_int_equal(count(f->db, "SELECT max(time) FROM samples"), (int64_t)n - 1);
	assert_int_equal(count(f->db, "SELECT min(time) FROM samples"), (int64_t)ws.dropped[WRITER_SAMPLE]);
	proc_ref_unref(p);
}

static void test_refused_row_is_dropped_not_retried(void **state)
{
	struct fixture *f = *state;
	struct proc_ref *p = new_ref(13);
	/* a census the schema refuses (no such trigger): no retry can mend it,
	 * and it must not hold back the rows around it */
	struct store_sample s = sample_at(5000, 1), later = sample_at(6000, 3);
	struct store_census bad = { .time = 5500, .trigger = _TRIGGER_MAX, .status = CENSUS_ERROR, .wall_us = -1,
				    .cpu_us = -1, .bytes_read = -1 };
	assert_int_equal(writer_add_sample(f->w, p, &s), 0);
	assert_int_equal(writer_add_census(f->w, p, &bad, "broken", NULL, NULL, 0), 0);
	assert_int_equal(writer_add_sample(f->w, p, &later), 0);
	assert_int_equal(writer_flush(f->w), 0);
	assert_int_equal(writer_dropped(f->w), 1);
	assert_int_equal(count(f->db, "SELECT count(*) FROM samples"), 2);
	assert_int_equal(count(f->db, "SELECT count(*) FROM censuses"), 0);
	proc_ref_unref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_transaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpu_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oom_and_cgroup_rows, setup, teardown),
		cmocka_unit_test(test_gpu_changes),
		cmocka_unit_test_setup_teardown(test_process_row_over_flushes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_process_row_in_a_new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locked_then_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_drops_the_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_row_is_dropped_not_retried, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
