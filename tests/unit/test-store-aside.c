/* Moving a damaged database aside: the name (UTC, to the second), the
 * file never renamed over another, its -wal and -shm following it, and a
 * directory already full of files of the same second refused rather than
 * filled. */
#include "testlib.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store-aside.h"

/* 2023-11-14T22:13:20Z */
#define T0 1700000000000LL

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void touch(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_name(void **state)
{
	char buf[128];
	(void)state;

	assert_int_equal(store_aside_name("/var/lib/ramwatch/ramwatch.db", T0 + 999, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/var/lib/ramwatch/ramwatch.db.corrupt-20231114T221320Z");
	assert_int_equal(store_aside_name("/x/ramwatch.db", T0, 2, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/x/ramwatch.db.corrupt-20231114T221320Z.2");
	/* a buffer one byte short of the name */
	assert_int_equal(store_aside_name("/x/ramwatch.db", T0, 0, buf, strlen("/x/ramwatch.db.corrupt-20231114T221320Z")),
			 -ENAMETOOLONG);
}

static void test_move(void **state)
{
	struct test_db *t = *state;
	char moved[512], again[512], p[600];

	touch(t->db, "main");
	snprintf(p, sizeof(p), "%s-wal", t->db);
	touch(p, "wal");
	snprintf(p, sizeof(p), "%s-shm", t->db);
	touch(p, "shm");
	assert_int_equal(store_aside_move(t->db, T0, moved, sizeof(moved)), 0);
	assert_false(exists(t->db));
	assert_true(exists(moved));
	snprintf(p, sizeof(p), "%s-wal", moved);
	assert_true(exists(p));
	snprintf(p, sizeof(p), "%s-shm", moved);
	assert_true(exists(p));

	/* a second damaged file within the same second: beside, not over it */
	touch(t->db, "second");
	assert_int_equal(store_aside_move(t->db, T0, again, sizeof(again)), 0);
	assert_string_not_equal(again, moved);
	assert_non_null(strstr(again, ".corrupt-20231114T221320Z.1"));
	size_t len;
	char *first = slurp(moved, &len);
	assert_string_equal(first, "main");
	free(first);

	/* nothing to move */
	assert_int_equal(store_aside_move(t->db, T0, again, sizeof(again)), -ENOENT);
}

static void test_move_bound(void **state)
{
	struct test_db *t = *state;
	char name[512];

	/* every name of that second taken: refused, the file left in place */
	for (unsigned n = 0; n < 100; n++) {
		assert_int_equal(store_aside_name(t->db, T0, n, name, sizeof(name)), 0);
		touch(name, "taken");
	}
	touch(t->db, "main");
	assert_int_equal(store_aside_move(t->db, T0, name, sizeof(name)), -EEXIST);
	assert_true(exists(t->db));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test_setup_teardown(test_move, test_db_setup, test_db_teardown),
		cmocka_unit_test_setup_teardown(test_move_bound, test_db_setup, test_db_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
