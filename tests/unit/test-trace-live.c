/* The replay's table of live allocations: puts, gets and takes of a long
 * random run checked against a plain array (keys that share probe runs,
 * removals from the middle of a run, growth), the one key equal to the
 * free slot's mark, and memory that follows the live count. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace-live.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define KEYS 4096u

static void test_random_run_matches_an_array(void **state)
{
	(void)state;
	static uint64_t key[KEYS], len[KEYS];
	static bool live[KEYS];
	struct trace_live t;
	struct trace_record r;
	size_t n = 0;

	trace_live_init(&t);
	for (size_t i = 0; i < KEYS; i++) {
		/* aligned addresses, small ids and the largest keys: all hash */
		key[i] = i % 3 == 0 ? 0x7f0000000000ull + i * 16 : i % 3 == 1 ? i : UINT64_MAX - 1 - i;
		len[i] = 0;
		live[i] = false;
	}
	for (int step = 0; step < 200000; step++) {
		size_t i = next() % KEYS;
		switch (next() % 3) {
		case 0: {
			struct trace_record *p = trace_live_put(&t, key[i]);
			assert_non_null(p);
			assert_int_equal(p->key, key[i]);
			p->len = len[i] = next();
			if (!live[i])
				n++;
			live[i] = true;
			break;
		}
		case 1:
			if (live[i]) {
				assert_true(trace_live_take(&t, key[i], &r));
				assert_int_equal(r.key, key[i]);
				assert_int_equal(r.len, len[i]);
				live[i] = false;
				n--;
			} else {
				assert_false(trace_live_take(&t, key[i], &r));
			}
			break;
		default: {
			struct trace_record *p = trace_live_get(&t, key[i]);
			if (live[i]) {
				assert_non_null(p);
				assert_int_equal(p->len, len[i]);
			} else {
				assert_null(p);
			}
		}
		}
		assert_int_equal(trace_live_count(&t), n);
	}
	for (size_t i = 0; i < KEYS; i++) {
		struct trace_record *p = trace_live_get(&t, key[i]);
		assert_true(live[i] ? p && p->len == len[i] : p == NULL);
	}
	trace_live_done(&t);
	assert_int_equal(trace_live_count(&t), 0);
}

/* 2^64-1 marks a free slot: as a key it is held beside the array. */
static void test_the_free_mark_is_a_key(void **state)
{
	(void)state;
	struct trace_live t;
	struct trace_record r, *p;

	trace_live_init(&t);
	assert_null(trace_live_get(&t, UINT64_MAX));
	assert_false(trace_live_take(&t, UINT64_MAX, &r));
	assert_non_null(p = trace_live_put(&t, UINT64_MAX));
	p->len = 7;
	assert_non_null(p = trace_live_put(&t, 1));
	p->len = 8;
	assert_int_equal(trace_live_count(&t), 2);
	assert_int_equal(trace_live_get(&t, UINT64_MAX)->len, 7);
	assert_true(trace_live_take(&t, UINT64_MAX, &r));
	assert_int_equal(r.len, 7);
	assert_null(trace_live_get(&t, UINT64_MAX));
	assert_int_equal(trace_live_get(&t, 1)->len, 8);
	assert_int_equal(trace_live_count(&t), 1);
	trace_live_done(&t);
}

/* The table grows with the live count, not with the keys that passed
 * through it, and its slots are whole cache lines. */
static void test_memory_follows_the_live_count(void **state)
{
	(void)state;
	struct trace_live t;
	struct trace_record r;

	trace_live_init(&t);
	for (uint64_t k = 1; k <= 1000000; k++) {
		assert_non_null(trace_live_put(&t, k * 16));
		if (k > 100)
			assert_true(trace_live_take(&t, (k - 100) * 16, &r));
	}
	assert_int_equal(trace_live_count(&t), 100);
	/* 100 live at most 5/8 full: 256 slots */
	assert_int_equal(trace_live_bytes(&t), 256 * sizeof(struct trace_record));
	assert_int_equal(sizeof(struct trace_record), 64);
	assert_int_equal((uintptr_t)t.slots % 64, 0);
	trace_live_done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_run_matches_an_array),
		cmocka_unit_test(test_the_free_mark_is_a_key),
		cmocka_unit_test(test_memory_follows_the_live_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
