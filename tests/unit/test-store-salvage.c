/* A damaged store: SQLITE_CORRUPT and SQLITE_NOTADB told apart from a full
 * disk or a lock (-EUCLEAN), the check at open finding garbage written into
 * the middle of a real file and leaving it as it was, the check's time
 * bound, and the salvage of processes and their last censuses from a
 * damaged file into a new one, rows that cannot be read skipped and
 * counted. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "fixtures-census.h"
#include "store-internal.h"
#include "store.h"

#define T0 1700000000000LL

static int open_checked(const char *path, unsigned check_ms, struct store **ret, struct error *err)
{
	struct store_options o = { .path = path, .check_ms = check_ms };
	*ret = NULL;
	return store_open(&o, ret, err);
}

static struct store *open_new(const char *path)
{
	struct store *s = NULL;
	struct error err = { 0 };
	if (open_checked(path, 0, &s, &err) < 0)
		fail_msg("store_open %s: %s", path, err.message);
	return s;
}

static int64_t q_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* Writes len bytes of a pattern no SQLite page starts with (0x5a is no
 * b-tree page type) at offset. */
static void garbage(const char *path, off_t offset, size_t len)
{
	char buf[8192];
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0 && len <= sizeof(buf));
	memset(buf, 0x5a, len);
	assert_int_equal(pwrite(fd, buf, len, offset), (ssize_t)len);
	close(fd);
}

/* A database of n processes, each with two ok censuses (the java
 * fixture's classes, regions and files) and rows samples, checkpointed
 * into the main file so that its pages are where a reader finds them. */
static void fill(const char *path, int n, int rows)
{
	struct store *s = open_new(path);

	assert_int_equal(store_begin(s), 0);
	for (int i = 0; i < n; i++) {
		struct store_process p = { .boot_id = "boot", .pid = 100 + i, .start_time = i, .started_at = -1,
					   .uid = 1000, .comm = "java", .seen = T0, .exited_at = -1 };
		int64_t id;
		assert_int_equal(store_put_process(s, &p, &id), 0);
		for (int k = 0; k < 2; k++) {
			struct store_census m = { .time = T0 + 1000 * k, .trigger = TRIGGER_INTERVAL,
						  .status = CENSUS_OK, .wall_us = -1, .cpu_us = -1, .bytes_read = -1 };
			struct census *c = java_census();
			assert_int_equal(store_put_census(s, id, &m, c, NULL), 0);
			census_free(c);
		}
		for (int t = 0; t < rows; t++) {
			struct store_sample x = { .time = T0 + 1000 * t, .private_last = (uint64_t)t << 20,
						  .samples = 1 };
			assert_int_equal(store_put_sample(s, id, &x), 0);
		}
	}
	assert_int_equal(store_commit(s), 0);
	store_close(s);
}

static void test_errno_of_damage(void **state)
{
	(void)state;
	/* one errno for damage, primary and extended codes alike */
	assert_int_equal(store_errno(NULL, SQLITE_CORRUPT), -EUCLEAN);
	assert_int_equal(store_errno(NULL, SQLITE_CORRUPT_INDEX), -EUCLEAN);
	assert_int_equal(store_errno(NULL, SQLITE_CORRUPT_SEQUENCE), -EUCLEAN);
	assert_int_equal(store_errno(NULL, SQLITE_NOTADB), -EUCLEAN);
	/* and not that of what moving the file aside would not help */
	assert_int_equal(store_errno(NULL, SQLITE_FULL), -ENOSPC);
	assert_int_equal(store_errno(NULL, SQLITE_BUSY), -EBUSY);
	assert_int_equal(store_errno(NULL, SQLITE_IOERR_WRITE), -EIO);
	assert_int_equal(store_errno(NULL, SQLITE_CONSTRAINT), -EINVAL);
}

static void test_garbage_found_at_open(void **state)
{
	struct test_db *t = *state;
	struct store *s;
	struct error err = { 0 };
	size_t before_len, after_len;

	fill(t->db, 20, 2000);
	off_t size = (off_t)q_int(t->db, "PRAGMA page_count") * 4096;
	assert_true(size > 64 * 1024);
	garbage(t->db, size / 2, 8192);
	char *before = slurp(t->db, &before_len);

	/* without the check the damage may go unseen; with it, found before
	 * any write, and the file left byte for byte as it was */
	assert_int_equal(open_checked(t->db, 10000, &s, &err), -EUCLEAN);
	assert_null(s);
	assert_non_null(strstr(err.message, "damaged"));
	char *after = slurp(t->db, &after_len);
	assert_int_equal(before_len, after_len);
	assert_memory_equal(before, after, before_len);
	free(before);
	free(after);
}

static void test_header_destroyed(void **state)
{
	struct test_db *t = *state;
	struct store *s;
	struct error err = { 0 };

	fill(t->db, 2, 10);
	garbage(t->db, 0, 100);
	assert_int_equal(open_checked(t->db, 10000, &s, &err), -EUCLEAN);
	assert_non_null(strstr(err.message, "not a SQLite database, or a damaged one"));
}

static void test_check_bound(void **state)
{
	struct test_db *t = *state;
	struct store *s;
	uint64_t us = 0;
	struct error err = { 0 };

	fill(t->db, 50, 4000);
	/* past the bound: stopped, nothing found, not whole */
	assert_int_equal(open_checked(t->db, 1, &s, &err), 0);
	assert_false(store_checked_whole(s, &us));
	assert_true(us >= 1000);
	/* within it: whole */
	assert_int_equal(store_check(s, 60000), 0);
	assert_true(store_checked_whole(s, NULL));
	store_close(s);
}

static void test_salvage_whole(void **state)
{
	struct test_db *t = *state;
	struct store_salvage kept;
	char fresh[400];

	fill(t->db, 5, 10);
	snprintf(fresh, sizeof(fresh), "%s/new?#%%.db", t->dir); /* URI syntax in the name */
	struct store *s = open_new(fresh);
	assert_int_equal(store_salvage(s, t->db, &kept), 0);
	store_close(s);
	assert_string_equal(kept.why, "");
	assert_int_equal(kept.processes, 5);
	assert_int_equal(kept.censuses, 5);
	assert_int_equal(kept.skipped_processes + kept.skipped_censuses, 0);
	assert_false(kept.unreadable);
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM processes"), 5);
	/* the last census of each, with all its rows */
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM censuses WHERE time = 1700000001000"), 5);
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM censuses"), 5);
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM census_classes"),
			 5 * q_int(t->db, "SELECT count(*) FROM census_classes WHERE census_id = 2"));
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM census_regions"),
			 5 * q_int(t->db, "SELECT count(*) FROM census_regions WHERE census_id = 2"));
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM census_files"),
			 5 * q_int(t->db, "SELECT count(*) FROM census_files WHERE census_id = 2"));
	assert_true(q_int(fresh, "SELECT count(*) FROM census_files") > 0);
	/* the timelines stay in the old file */
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM samples"), 0);
	/* which was not written */
	assert_int_equal(q_int(t->db, "SELECT count(*) FROM censuses"), 10);
	char sql[200];
	snprintf(sql, sizeof(sql), "PRAGMA integrity_check");
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(fresh, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void test_salvage_skips_what_is_damaged(void **state)
{
	struct test_db *t = *state;
	struct store_salvage kept;
	char fresh[400];

	fill(t->db, 3, 10);
	/* the regions' b-tree is one page here: garbage over it */
	int64_t root = q_int(t->db, "SELECT rootpage FROM sqlite_master WHERE name = 'census_region_rows'");
	assert_int_equal(q_int(t->db, "PRAGMA page_size"), 4096);
	garbage(t->db, (off_t)(root - 1) * 4096, 4096);

	snprintf(fresh, sizeof(fresh), "%s/new.db", t->dir);
	struct store *s = open_new(fresh);
	int r = store_salvage(s, t->db, &kept);
	if (r < 0)
		fail_msg("salvage: %s", store_error(s));
	store_close(s);
	assert_int_equal(kept.processes, 3);
	assert_int_equal(kept.censuses, 0);
	assert_int_equal(kept.skipped_censuses, 3);
	/* a census is whole or absent: no census row without its regions */
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM censuses"), 0);
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM census_classes"), 0);
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM processes"), 3);
}

static void test_salvage_of_nothing_readable(void **state)
{
	struct test_db *t = *state;
	struct store_salvage kept;
	char fresh[400];

	fill(t->db, 2, 10);
	garbage(t->db, 0, 4096);
	snprintf(fresh, sizeof(fresh), "%s/new.db", t->dir);
	struct store *s = open_new(fresh);
	assert_int_equal(store_salvage(s, t->db, &kept), 0);
	store_close(s);
	assert_int_equal(kept.processes + kept.censuses, 0);
	assert_string_not_equal(kept.why, "");
	assert_int_equal(q_int(fresh, "SELECT count(*) FROM processes"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_of_damage),
		cmocka_unit_test_setup_teardown(test_garbage_found_at_open, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_header_destroyed, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_check_bound, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_salvage_whole, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_salvage_skips_what_is_damaged, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_salvage_of_nothing_readable, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
