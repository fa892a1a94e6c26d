/* Repeats (censuses.repeats, migration 008): a census that found nothing
 * changed stored as a row that names the census it repeats; its content
 * read back through it, by the census read, the history window, the
 * report and the views; refused when the census it names is not there;
 * and retention handing a census's content to its oldest kept repeat when
 * it goes.  Real SQLite files. */
#include "testlib.h"

#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <string.h>

#include "census.h"
#include "census-json.h"
#include "fixtures-census.h"
#include "store-read.h"
#include "store.h"

#define MINUTE 60000LL
#define HOUR 3600000LL
#define DAY (24 * HOUR)
#define H0 (472223LL * HOUR)

static struct store *open_store(const char *path)
{
	struct store_options o = { .path = path };
	struct store *s = NULL;
	struct error err;
	if (store_open(&o, &s, &err) < 0)
		fail_msg("store_open: %s", err.message);
	return s;
}

static int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	int64_t v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return v;
}

static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("open %s", path);
	return db;
}

static int64_t put_proc(struct store *s, int64_t seen)
{
	struct store_process p = { .boot_id = "boot", .pid = 4242, .start_time = 7, .started_at = -1, .uid = 1000,
				   .comm = "java", .seen = seen, .exited_at = -1 };
	int64_t id;
	if (store_put_process(s, &p, &id) < 0)
		fail_msg("put_process: %s", store_error(s));
	return id;
}

static int64_t put_full(struct store *s, int64_t process_id, int64_t time, const struct census *c)
{
	struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .wall_us = -1,
				  .cpu_us = -1, .bytes_read = -1 };
	int64_t id;
	if (store_put_census(s, process_id, &m, c, &id) < 0)
		fail_msg("put_census: %s", store_error(s));
	return id;
}

static int put_repeat(struct store *s, int64_t process_id, int64_t time, int64_t repeats_time, int64_t *ret_id)
{
	struct store_census m = { .time = time, .trigger = TRIGGER_INTERVAL, .status = CENSUS_OK, .wall_us = 120,
				  .cpu_us = 110, .bytes_read = 3000, .repeats_time = repeats_time };
	return store_put_census(s, process_id, &m, NULL, ret_id);
}

/* The census JSON of the store at at, without what is a row's own. */
static json_t *content_at(const char *path, int64_t at)
{
	struct store_reader *r = NULL;
	struct store_select sel = { .pid = 4242, .only_uid = -1 };
	struct error err;
	json_t *o = NULL;

	if (store_reader_open(path, &r, &err) < 0)
		fail_msg("reader: %s", err.message);
	if (store_read_census(r, &sel, at, &o, &err) < 0)
		fail_msg("read_census: %s", err.message);
	store_reader_close(r);
	return o;
}

static void drop_own(json_t *o)
{
	static const char *const own[] = { "census_id", "taken_at", "trigger", "repeats", "cost" };
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		json_object_del(o, own[i]);
}

static void assert_same_content(json_t *a, json_t *b)
{
	drop_own(a);
	drop_own(b);
	char *x = json_dumps(a, JSON_SORT_KEYS), *y = json_dumps(b, JSON_SORT_KEYS);
	assert_non_null(x);
	assert_string_equal(x, y);
	free(x);
	free(y);
}

static void test_repeat_row(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db);
	struct census *c = java_census();
	int64_t p, full, r1, r2, bad;

	/* a heap walk read the malloc class: a repeat repeats its figures */
	uint64_t m = c->classes[CLASS_MALLOC].private;
	assert_true(m > 4096);
	assert_int_equal(census_set_heap(c, CLASS_MALLOC, m / 2, m / 2 - 4096, 4096, 0, 4096, "glibc 2.36"), 0);

	assert_int_equal(store_begin(s), 0);
	p = put_proc(s, H0);
	full = put_full(s, p, H0, c);
	assert_int_equal(put_repeat(s, p, H0 + MINUTE, H0, &r1), 0);
	assert_int_equal(put_repeat(s, p, H0 + 2 * MINUTE, H0, &r2), 0);
	/* a census that is not there, or is itself a repeat, cannot be repeated */
	assert_int_equal(put_repeat(s, p, H0 + 3 * MINUTE, H0 + 30000, &bad), -EINVAL);
	assert_non_null(strstr(store_error(s), ": census: the census it repeats (process 1, at 1700002830000) is not in the store"));
	assert_int_equal(put_repeat(s, p, H0 + 3 * MINUTE, H0 + MINUTE, &bad), -EINVAL);
	assert_int_equal(store_commit(s), 0);
	store_close(s);

	sqlite3 *db = raw_open(t->db);
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)r1), full);
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)r2), full);
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)full), -1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 3);
	/* its totals are the census's; its time, trigger and cost its own */
	assert_int_equal(q_int(db, "SELECT private FROM censuses WHERE id = %lld", (long long)r2), census_private(c));
	assert_int_equal(q_int(db, "SELECT resident FROM censuses WHERE id = %lld", (long long)r2), census_resident(c));
	assert_int_equal(q_int(db, "SELECT regions FROM censuses WHERE id = %lld", (long long)r2),
			 (int64_t)c->totals.count);
	assert_int_equal(q_int(db, "SELECT time FROM censuses WHERE id = %lld", (long long)r2), H0 + 2 * MINUTE);
	assert_int_equal(q_int(db, "SELECT cpu_us FROM censuses WHERE id = %lld", (long long)r2), 110);
	assert_int_equal(q_int(db, "SELECT bytes_read FROM censuses WHERE id = %lld", (long long)r2), 3000);
	assert_int_equal(q_int(db, "SELECT in_use FROM censuses WHERE id = %lld", (long long)r2), (int64_t)(m / 2));
	assert_int_equal(q_int(db, "SELECT free FROM censuses WHERE id = %lld", (long long)r2), (int64_t)(m / 2 - 4096));
	assert_int_equal(q_int(db, "SELECT in_use FROM class_timeline WHERE census_id = %lld AND class = 'malloc'",
			       (long long)r2),
			 (int64_t)(m / 2));
	assert_int_equal(q_int(db, "SELECT returnable FROM grafana_process_classes WHERE census_id = %lld"
				   " AND metric = 'malloc'",
			       (long long)r2),
			 4096);
	assert_int_equal(q_int(db, "SELECT value FROM grafana_process_in_use WHERE census_id = %lld"
				   " AND metric = 'malloc free'",
			       (long long)r2),
			 (int64_t)(m / 2 - 4096));
	/* the classes no walk read have no in use */
	assert_int_equal(q_int(db, "SELECT count(*) FROM class_timeline WHERE census_id = %lld AND in_use IS NULL",
			       (long long)r2),
			 q_int(db, "SELECT count(*) FROM class_timeline WHERE census_id = %lld", (long long)r2) - 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM grafana_process_in_use WHERE census_id = %lld", (long long)r2),
			 2);
	/* no content of its own: the views read it through repeats */
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)r2), 0);
	int64_t n_classes = q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)full);
	assert_true(n_classes > 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM class_timeline WHERE census_id = %lld", (long long)r2),
			 n_classes);
	assert_int_equal(q_int(db, "SELECT sum(private) FROM class_timeline WHERE census_id = %lld", (long long)r2),
			 q_int(db, "SELECT sum(private) FROM class_timeline WHERE census_id = %lld", (long long)full));
	assert_int_equal(q_int(db, "SELECT count(*) FROM file_timeline WHERE census_id = %lld", (long long)r2),
			 q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld", (long long)full));
	assert_int_equal(q_int(db, "SELECT repeats FROM census_log WHERE census_id = %lld", (long long)r1), full);
	sqlite3_close(db);

	/* read back: the whole census it repeats, saying so */
	json_t *a = content_at(t->db, H0 + 2 * MINUTE), *b = content_at(t->db, H0);
	assert_int_equal(json_integer_value(json_object_get(a, "repeats")), full);
	assert_int_equal(json_integer_value(json_object_get(a, "census_id")), r2);
	assert_true(json_is_null(json_object_get(b, "repeats")));
	assert_same_content(a, b);
	json_decref(a);
	json_decref(b);
	census_free(c);
}

/* Retention: the census that goes hands its content to its oldest kept
 * repeat, which the later repeats then name. */
static void test_retention_keeps_what_repeats_name(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db);
	struct census *c = java_census();
	const int64_t day = H0 + 10 * DAY;
	int64_t p, full, r[4];

	assert_int_equal(store_begin(s), 0);
	p = put_proc(s, H0);
	full = put_full(s, p, H0, c);
	for (int i = 0; i < 4; i++)
		assert_int_equal(put_repeat(s, p, H0 + (i + 1) * DAY, H0, &r[i]), 0);
	put_proc(s, day);
	assert_int_equal(store_commit(s), 0);
	json_t *before = content_at(t->db, H0 + 4 * DAY);

	sqlite3 *db = raw_open(t->db);
	int64_t classes = q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)full);
	int64_t regions = q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = %lld", (long long)full);
	int64_t files = q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld", (long long)full);
	sqlite3_close(db);

	/* keep a week: the census and its first two repeats are older than that */
	struct store_retention rt = { .now = day, .keep = 7 * DAY + 1, .batch = 1 };
	for (bool more = true; more;)
		if (store_retention_step(s, &rt, &more) < 0)
			fail_msg("retention: %s", store_error(s));
	assert_int_equal(store_check(s, 0), 0);
	store_close(s);

	db = raw_open(t->db);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 2);
	/* the oldest kept repeat holds the content now, the other names it */
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)r[2]), -1);
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)r[3]), r[2]);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)r[2]),
			 classes);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_regions WHERE census_id = %lld", (long long)r[2]),
			 regions);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_files WHERE census_id = %lld", (long long)r[2]), files);
	assert_int_equal(q_int(db, "SELECT count(*) FROM census_classes"), classes);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);

	/* and the census of that day reads as it did */
	json_t *after = content_at(t->db, H0 + 4 * DAY);
	assert_int_equal(json_integer_value(json_object_get(after, "repeats")), r[2]);
	assert_same_content(before, after);
	json_decref(before);
	json_decref(after);
	census_free(c);
}

/* Salvage copies a process's last census; a repeat comes with the census
 * it repeats, which holds its content. */
static void test_salvage_takes_what_a_repeat_names(void **state)
{
	struct test_db *t = *state;
	struct store *s = open_store(t->db);
	struct census *c = java_census();
	int64_t p, full, rep;

	assert_int_equal(store_begin(s), 0);
	p = put_proc(s, H0);
	put_full(s, p, H0 - MINUTE, c);
	full = put_full(s, p, H0, c);
	assert_int_equal(put_repeat(s, p, H0 + MINUTE, H0, &rep), 0);
	assert_int_equal(store_commit(s), 0);
	store_close(s);
	json_t *before = content_at(t->db, H0 + MINUTE);

	char copy[400];
	snprintf(copy, sizeof(copy), "%s/new.db", t->dir);
	s = open_store(copy);
	struct store_salvage kept;
	assert_int_equal(store_salvage(s, t->db, &kept), 0);
	assert_int_equal(kept.processes, 1);
	assert_int_equal(kept.censuses, 1);
	store_close(s);

	sqlite3 *db = raw_open(copy);
	assert_int_equal(q_int(db, "SELECT count(*) FROM censuses"), 2);
	assert_int_equal(q_int(db, "SELECT repeats FROM censuses WHERE id = %lld", (long long)rep), full);
	assert_true(q_int(db, "SELECT count(*) FROM census_classes WHERE census_id = %lld", (long long)full) > 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	sqlite3_close(db);
	json_t *after = content_at(copy, H0 + MINUTE);
	assert_same_content(before, after);
	json_decref(before);
	json_decref(after);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_repeat_row, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_retention_keeps_what_repeats_name, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_salvage_takes_what_a_repeat_names, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
