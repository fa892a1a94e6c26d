/* The "processes" merge: live values over stored entries, matched by row
 * id or by instance (pid, start time, boot), processes not yet stored,
 * "all", the order, the limit, user names filled in. */
#include "testlib.h"

#include <errno.h>

#include "control-processes.h"

static json_t *stored_entry(int64_t id, int pid, int64_t start, const char *boot, int64_t uid, int64_t private,
			    bool exited)
{
	return json_pack("{s:I, s:i, s:I, s:s, s:I, s:o, s:s, s:I, s:I, s:I, s:I, s:o, s:{s:I}}", "process_id",
			 (json_int_t)id, "pid", pid, "start_time", (json_int_t)start, "boot_id", boot, "uid",
			 (json_int_t)uid, "user", json_null(), "comm", "stored", "private", (json_int_t)private,
			 "resident", (json_int_t)(private * 2), "peak_private", (json_int_t)(private * 3),
			 "peak_resident", (json_int_t)(private * 4), "exited_at",
			 exited ? json_integer(1000) : json_null(), "last_census", "census_id", (json_int_t)id * 10);
}

static struct control_live live_of(int64_t id, int pid, int64_t start, const char *boot, uint64_t private)
{
	return (struct control_live){
		.process_id = id,
		.pid = pid,
		.start_time = start,
		.started_at = -1,
		.uid = 1000,
		.last_seen = 5000,
		.boot_id = (char *)boot,
		.comm = (char *)"live",
		.private = private,
		.resident = private + 1,
		.peak_private = private + 2,
		.peak_resident = private + 3,
		.vram = -1,
	};
}

static const char *fake_names(uid_t uid, char *buf, size_t size)
{
	if (uid == 1000) {
		snprintf(buf, size, "ana");
		return buf;
	}
	return NULL;
}

static int64_t get(const json_t *e, const char *key)
{
	const json_t *v = json_object_get(e, key);
	if (!json_is_integer(v))
		fail_msg("%s is not an integer", key);
	return (int64_t)json_integer_value(v);
}

static void test_merge(void **state)
{
	(void)state;
	json_t *stored = json_array();
	/* the store's order: alive first, then the most recent */
	json_array_append_new(stored, stored_entry(1, 100, 11, "b1", 1000, 10, false));   /* watched, by id */
	json_array_append_new(stored, stored_entry(2, 200, 22, "b1", 1000, 500, false));  /* no longer watched */
	json_array_append_new(stored, stored_entry(3, 300, 33, "b0", 1000, 7, true));     /* same pid and start, other boot */
	json_array_append_new(stored, stored_entry(4, 300, 33, "b1", 0, 1, false));       /* watched, matched by instance */
	json_array_append_new(stored, stored_entry(5, 600, 66, "b1", 1000, 3, true));     /* exited */

	struct control_live live[] = {
		live_of(1, 100, 11, "b1", 50),
		live_of(0, 300, 33, "b1", 70), /* written after the copy was made */
		live_of(0, 400, 44, "b1", 60), /* not written yet */
	};
	struct control_processes_query q = { .all = false, .sort = "private", .limit = 100 };
	json_t *out = NULL;

	assert_int_equal(control_processes_merge(stored, live, 3, &q, fake_names, &out), 0);
	assert_int_equal(json_array_size(out), 3);
	/* largest private first */
	const json_t *a = json_array_get(out, 0), *b = json_array_get(out, 1), *c = json_array_get(out, 2);
	assert_int_equal(get(a, "pid"), 300);
	assert_int_equal(get(a, "process_id"), 4); /* the entry of this boot, not of b0 */
	assert_int_equal(get(a, "private"), 70);
	assert_true(json_is_true(json_object_get(a, "watched")));
	assert_int_equal(get(b, "pid"), 400);
	assert_true(json_is_null(json_object_get(b, "process_id")));
	assert_true(json_is_null(json_object_get(b, "last_census")));
	assert_string_equal(json_string_value(json_object_get(b, "comm")), "live");
	assert_string_equal(json_string_value(json_object_get(b, "user")), "ana");
	assert_int_equal(get(c, "pid"), 100);
	/* the live sample, the larger peaks, the store's other fields */
	assert_int_equal(get(c, "private"), 50);
	assert_int_equal(get(c, "resident"), 51);
	assert_int_equal(get(c, "peak_private"), 52);  /* 52 > 30 stored */
	assert_int_equal(get(c, "peak_resident"), 53); /* 53 > 40 stored */
	assert_int_equal(get(c, "last_seen"), 5000);
	assert_string_equal(json_string_value(json_object_get(c, "comm")), "stored");
	assert_int_equal(get(json_object_get(c, "last_census"), "census_id"), 10);
	assert_string_equal(json_string_value(json_object_get(c, "user")), "ana");
	/* the stored entries are left as they were */
	assert_int_equal(get(json_array_get(stored, 0), "private"), 10);
	assert_null(json_object_get(json_array_get(stored, 0), "watched"));
	json_decref(out);

	/* all: the others follow in the store's order, not watched */
	q.all = true;
	assert_int_equal(control_processes_merge(stored, live, 3, &q, fake_names, &out), 0);
	assert_int_equal(json_array_size(out), 6);
	int64_t want[] = { 4, -1, 1, 2, 3, 5 };
	for (size_t i = 0; i < 6; i++) {
		const json_t *e = json_array_get(out, i);
		if (want[i] < 0)
			assert_true(json_is_null(json_object_get(e, "process_id")));
		else
			assert_int_equal(get(e, "process_id"), want[i]);
		assert_true(json_is_true(json_object_get(e, "watched")) == (i < 3));
	}
	/* a stored peak larger than the live one stays */
	q.sort = "peak";
	json_decref(out);
	struct control_live small = live_of(2, 200, 22, "b1", 1);
	assert_int_equal(control_processes_merge(stored, &small, 1, &q, NULL, &out), 0);
	assert_int_equal(get(json_array_get(out, 0), "peak_private"), 1500);
	assert_true(json_is_null(json_object_get(json_array_get(out, 0), "user"))); /* no lookup given */
	json_decref(out);

	/* the limit */
	q.limit = 2;
	assert_int_equal(control_processes_merge(stored, live, 3, &q, fake_names, &out), 0);
	assert_int_equal(json_array_size(out), 2);
	json_decref(out);

	/* no store at all: the live processes */
	q.limit = 100;
	q.all = false;
	q.sort = "resident";
	assert_int_equal(control_processes_merge(NULL, live, 3, &q, fake_names, &out), 0);
	assert_int_equal(json_array_size(out), 3);
	assert_int_equal(get(json_array_get(out, 0), "resident"), 71);
	assert_true(json_is_null(json_object_get(json_array_get(out, 0), "process_id")));
	json_decref(out);

	json_decref(stored);
}

static void test_set_live(void **state)
{
	(void)state;
	json_t *e = stored_entry(9, 90, 1, "b", 1000, 100, true);
	struct control_live l = live_of(9, 90, 1, "b", 5);
	assert_int_equal(control_process_set_live(e, &l), 0);
	assert_true(json_is_true(json_object_get(e, "watched")));
	assert_true(json_is_null(json_object_get(e, "exited_at")));
	assert_int_equal(get(e, "private"), 5);
	assert_int_equal(get(e, "peak_private"), 300);
	/* on no GPU now; the stored peak stays */
	assert_true(json_is_null(json_object_get(e, "vram")));
	json_object_set_new(e, "peak_vram", json_integer(4096));
	assert_int_equal(control_process_set_live(e, &l), 0);
	assert_int_equal(get(e, "peak_vram"), 4096);
	/* on a GPU: the last snapshot's figure, the larger peak */
	l.vram = 8192;
	l.peak_vram = 8192;
	assert_int_equal(control_process_set_live(e, &l), 0);
	assert_int_equal(get(e, "vram"), 8192);
	assert_int_equal(get(e, "peak_vram"), 8192);
	json_decref(e);

	/* not stored yet: built from the live values; sorted by GPU memory */
	struct control_live live[] = { live_of(0, 1, 1, "b", 5), live_of(0, 2, 2, "b", 5) };
	live[1].vram = 100;
	struct control_processes_query q = { .sort = "vram", .limit = 10 };
	json_t *out = NULL;
	assert_int_equal(control_processes_merge(NULL, live, 2, &q, NULL, &out), 0);
	assert_int_equal(get(json_array_get(out, 0), "pid"), 2);
	assert_int_equal(get(json_array_get(out, 0), "vram"), 100);
	assert_int_equal(get(json_array_get(out, 0), "peak_vram"), 0);
	assert_true(json_is_null(json_object_get(json_array_get(out, 1), "vram")));
	json_decref(out);
}

static void test_many(void **state)
{
	(void)state;
	enum { N = 20000 };
	json_t *stored = json_array();
	struct control_live *live = calloc(N, sizeof(*live));
	assert_non_null(live);
	for (int i = 0; i < N; i++) {
		json_array_append_new(stored, stored_entry(i + 1, 1000 + i, i, "b", 1000, i, false));
		live[i] = live_of(i % 2 ? i + 1 : 0, 1000 + i, i, "b", (uint64_t)(N - i));
	}
	struct control_processes_query q = { .all = true, .sort = "private", .limit = 100000 };
	json_t *out = NULL;
	assert_int_equal(control_processes_merge(stored, live, N, &q, fake_names, &out), 0);
	/* every one matched, by id or by instance: none twice */
	assert_int_equal(json_array_size(out), N);
	for (size_t i = 0; i < N; i++)
		assert_true(json_is_true(json_object_get(json_array_get(out, i), "watched")));
	json_decref(out);
	json_decref(stored);
	free(live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_set_live),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
