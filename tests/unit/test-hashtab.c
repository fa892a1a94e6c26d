/* The common hash table: integer keys against a plain array through growth
 * and removals that move entries back, the key that marks a free slot,
 * string keys whose hashes collide, and FNV-1a against its published
 * values. */
#include "testlib.h"

#include "hashtab.h"

struct item {
	uint64_t key;
	uint64_t value;
};

static void test_upsert_get_remove(void **state)
{
	struct hashtab t;
	bool is_new = false;
	struct item *it, out = { 0 };

	(void)state;
	hashtab_init(&t, sizeof(struct item));
	assert_null(hashtab_get(&t, 7));
	assert_false(hashtab_remove(&t, 7, NULL));
	assert_int_equal(hashtab_bytes(&t), 0);

	it = hashtab_upsert(&t, 7, &is_new);
	assert_non_null(it);
	assert_true(is_new);
	assert_int_equal(it->key, 7);
	assert_int_equal(it->value, 0); /* a new slot is zero but for its key */
	it->value = 70;
	it = hashtab_upsert(&t, 7, &is_new);
	assert_false(is_new);
	assert_int_equal(it->value, 70);
	assert_int_equal(t.count, 1);
	assert_int_equal(((struct item *)hashtab_get(&t, 7))->value, 70);

	assert_true(hashtab_remove(&t, 7, &out));
	assert_int_equal(out.value, 70);
	assert_null(hashtab_get(&t, 7));
	assert_int_equal(t.count, 0);
	hashtab_done(&t);
	assert_null(hashtab_get(&t, 7));
	hashtab_done(&t);
}

/* Past the first size many times, with a third of the operations removals,
 * then checked against an array. */
static void test_against_array(void **state)
{
	enum { N = 30000 };
	static uint64_t truth[N];
	struct hashtab t;
	unsigned seed = 4242;
	size_t n = 0, walked = 0;

	(void)state;
	hashtab_init(&t, sizeof(struct item));
	for (int round = 0; round < 300000; round++) {
		seed = seed * 1103515245u + 12345u;
		/* keys 4096 apart, as aligned addresses are */
		uint64_t k = ((seed >> 8) % N) * 4096;
		if ((seed >> 4) % 3 == 0) {
			struct item out;
			bool had = hashtab_remove(&t, k, &out);
			assert_int_equal(had, truth[k / 4096] != 0);
			if (had)
				assert_int_equal(out.value, truth[k / 4096]);
			truth[k / 4096] = 0;
		} else {
			bool is_new;
			struct item *it = hashtab_upsert(&t, k, &is_new);
			assert_non_null(it);
			assert_int_equal(is_new, truth[k / 4096] == 0);
			it->value = (uint64_t)round + 1;
			truth[k / 4096] = it->value;
		}
	}
	for (size_t i = 0; i < N; i++) {
		const struct item *it = hashtab_get(&t, i * 4096);
		assert_int_equal(it ? it->value : 0, truth[i]);
		n += truth[i] != 0;
	}
	assert_int_equal(t.count, n);
	assert_true(t.cap > 16); /* it grew past its first size */
	assert_true(t.count * 8 <= t.cap * 5);
	for (size_t i = 0; i < hashtab_slots(&t); i++) {
		const struct item *it = hashtab_at(&t, i);
		if (it) {
			assert_int_equal(it->value, truth[it->key / 4096]);
			walked++;
		}
	}
	assert_int_equal(walked, n);
	assert_int_equal(hashtab_bytes(&t), t.cap * sizeof(struct item));
	hashtab_done(&t);
}

/* 2^64-1 marks a free slot in the array: a real key of that value has a
 * slot of its own, and is visited and removed like any other. */
static void test_free_key(void **state)
{
	struct hashtab t;
	bool is_new;
	size_t walked = 0, cursor = 0;

	(void)state;
	hashtab_init(&t, sizeof(struct item));
	assert_null(hashtab_add(&t, UINT64_MAX));
	struct item *it = hashtab_upsert(&t, UINT64_MAX, &is_new);
	assert_non_null(it);
	assert_true(is_new);
	it->value = 1;
	assert_non_null(hashtab_upsert(&t, 0, &is_new));
	assert_true(is_new);
	assert_int_equal(((struct item *)hashtab_get(&t, UINT64_MAX))->value, 1);
	assert_ptr_equal(hashtab_find_next(&t, UINT64_MAX, &cursor), it);
	assert_null(hashtab_find_next(&t, UINT64_MAX, &cursor));
	assert_null(hashtab_add(&t, UINT64_MAX)); /* it has its one slot */
	for (size_t i = 0; i < hashtab_slots(&t); i++)
		walked += hashtab_at(&t, i) != NULL;
	assert_int_equal(walked, 2);
	assert_int_equal(t.count, 2);
	assert_true(hashtab_remove(&t, UINT64_MAX, NULL));
	assert_null(hashtab_get(&t, UINT64_MAX));
	assert_non_null(hashtab_get(&t, 0));
	assert_int_equal(t.count, 1);
	hashtab_done(&t);
}

/* Many slots under one key, as strings whose hashes collide: each is
 * found, whatever else shares its probe run, and the table grows. */
static void test_collisions(void **state)
{
	enum { N = 500 };
	struct hashtab t;
	bool seen[N] = { false };
	struct item *it;
	size_t cursor = 0, found = 0;

	(void)state;
	hashtab_init(&t, sizeof(struct item) + sizeof(uint64_t));
	for (uint64_t i = 0; i < N; i++) {
		/* the same key N times, and keys of their own in between */
		assert_non_null(it = hashtab_add(&t, 99));
		it->value = i;
		assert_non_null(it = hashtab_add(&t, 1000 + i));
		it->value = N + i;
	}
	assert_int_equal(t.count, 2 * N);
	while ((it = hashtab_find_next(&t, 99, &cursor))) {
		assert_int_equal(it->key, 99);
		assert_true(it->value < N);
		assert_false(seen[it->value]);
		seen[it->value] = true;
		found++;
	}
	assert_int_equal(found, N);
	assert_null(hashtab_find_next(&t, 99, &cursor)); /* it stays at the end */
	for (uint64_t i = 0; i < N; i++)
		assert_int_equal(((struct item *)hashtab_get(&t, 1000 + i))->value, N + i);
	/* removing one of the many leaves the rest, and the others */
	assert_true(hashtab_remove(&t, 99, NULL));
	cursor = found = 0;
	while (hashtab_find_next(&t, 99, &cursor))
		found++;
	assert_int_equal(found, N - 1);
	for (uint64_t i = 0; i < N; i++)
		assert_non_null(hashtab_get(&t, 1000 + i));
	cursor = 0;
	assert_null(hashtab_find_next(&t, 98, &cursor));
	hashtab_done(&t);
	cursor = 0;
	assert_null(hashtab_find_next(&t, 99, &cursor));
}

static void test_fnv1a(void **state)
{
	(void)state;
	/* the published FNV-1a 64-bit values */
	assert_true(hashtab_hash_bytes("", 0) == 0xcbf29ce484222325ull);
	assert_true(hashtab_hash_bytes("a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(hashtab_hash_bytes("foobar", 6) == 0x85944171f73967e8ull);
	/* every byte counts, NUL too, and only len of them */
	assert_true(hashtab_hash_bytes("a\0b", 3) != hashtab_hash_bytes("a\0c", 3));
	assert_true(hashtab_hash_bytes("ab", 1) == hashtab_hash_bytes("a", 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upsert_get_remove), cmocka_unit_test(test_against_array),
		cmocka_unit_test(test_free_key),	  cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_fnv1a),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
