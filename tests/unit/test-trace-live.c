/* The replay's table of live allocations: puts, gets and takes of a long
 * random run checked against a plain array (keys that share probe runs,
 * removals from the middle of a run, growth), rows of keys of one home
 * with the gone marks they need, the largest key, memory that follows the
 * live count, tables rehashed in place (doubled in their mapping, moved
 * to a larger one, made again at their size for gone marks, with rows
 * that wrap around the end), and tables from malloc where no mapping can
 * be had. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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
	struct trace_allocation r;
	size_t n = 0;

	trace_live_init(&t, false);
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

/* 2^64-1, which once marked a free slot, is a key like any other. */
static void test_the_free_mark_is_a_key(void **state)
{
	(void)state;
	struct trace_live t;
	struct trace_allocation r;
	struct trace_record *p;

	trace_live_init(&t, false);
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

/* Keys of one home fill rows of 16 slots and more, where a removal must
 * leave a "gone" mark (a lookup may have passed over its slot) instead of
 * an empty slot: every key still live is found after each removal, in any
 * order, none taken out is, and a key put back reuses a mark. */
static void test_rows_of_one_home(void **state)
{
	(void)state;
	enum { N = 40 };
	static uint64_t key[N];
	static bool live[N];
	struct trace_live t;
	struct trace_allocation r;
	struct trace_record *p;
	size_t n = 0;
	bool saw_gone = false;

	/* 128 slots hold 40 keys at most half full; keys whose hash's top 7
	 * bits are 0 share home 0 there and at every smaller size */
	for (uint64_t k = 1; n < N; k++)
		if ((k * 0x9e3779b97f4a7c15ull) >> 57 == 0)
			key[n++] = k;
	for (int round = 0; round < 50; round++) {
		trace_live_init(&t, false);
		for (size_t i = 0; i < N; i++) {
			assert_non_null(p = trace_live_put(&t, key[i]));
			p->len = i;
			live[i] = true;
		}
		assert_int_equal(t.cap, 128);
		for (size_t left = N, removed = 1; left > 0; removed++) {
			size_t i = next() % N;
			while (!live[i])
				i = (i + 1) % N;
			assert_true(trace_live_take(&t, key[i], &r));
			assert_int_equal(r.len, i);
			live[i] = false;
			left--;
			saw_gone |= t.gone > 0;
			for (size_t j = 0; j < N; j++) {
				p = trace_live_get(&t, key[j]);
				assert_true(live[j] ? p && p->len == j : p == NULL);
			}
			/* a key back where one left keeps the others found */
			if (removed % 7 == 0) {
				size_t gone = t.gone;
				assert_non_null(p = trace_live_put(&t, key[i]));
				p->len = i;
				assert_true(t.gone == gone || t.gone == gone - 1);
				live[i] = true;
				left++;
			}
		}
		assert_int_equal(trace_live_count(&t), 0);
		trace_live_done(&t);
	}
	assert_true(saw_gone);
}

/* The table grows with the live count, not with the keys that passed
 * through it, and its slots are half cache lines. */
static void test_memory_follows_the_live_count(void **state)
{
	(void)state;
	struct trace_live t;
	struct trace_allocation r;

	trace_live_init(&t, false);
	for (uint64_t k = 1; k <= 1000000; k++) {
		assert_non_null(trace_live_put(&t, k * 16));
		if (k > 100)
			assert_true(trace_live_take(&t, (k - 100) * 16, &r));
	}
	assert_int_equal(trace_live_count(&t), 100);
	/* 101 live before each take, doubled past 7/16 full: 256 slots, a
	 * control byte each and the first 15 of those again */
	assert_int_equal(trace_live_bytes(&t), 256 * (sizeof(struct trace_record) + 1) + 15);
	assert_int_equal(sizeof(struct trace_record), 32);
	assert_int_equal((uintptr_t)t.slots % 32, 0);
	trace_live_done(&t);
}

/* What a slot does not hold (byte-events, another allocator, a site and a
 * stack when they are kept) comes back whole through a more entry, and
 * only allocations that have it take one: entries freed are reused, so
 * they follow the live count too. */
static void test_more_comes_back_whole(void **state)
{
	(void)state;
	for (int keep = 0; keep <= 1; keep++) {
		struct trace_live t;
		struct trace_allocation r, w = {
			.len = 24,
			.return_address = 0x401000,
			.allocation_event = 5,
			.segment_event = 9,
			.byte_events = 96,
			.allocator_id = 3,
			.scope = 2,
			.stack_id = 7,
		};
		struct trace_record *p;

		trace_live_init(&t, keep);
		for (uint64_t k = 1; k <= 100000; k++) {
			w.key = k * 16;
			assert_non_null(p = trace_live_put(&t, w.key));
			assert_int_equal(trace_live_write(&t, p, &w), 0);
			if (k > 10) {
				assert_true(trace_live_take(&t, (k - 10) * 16, &r));
				assert_int_equal(r.key, (k - 10) * 16);
				assert_int_equal(r.len, 24);
				assert_int_equal(r.allocation_event, 5);
				assert_int_equal(r.segment_event, 9);
				assert_int_equal(r.byte_events, 96);
				assert_int_equal(r.allocator_id, 3);
				assert_int_equal(r.scope, 2);
				/* read as 0 when not kept: nothing counts them then */
				assert_int_equal(r.return_address, keep ? 0x401000 : 0);
				assert_int_equal(r.stack_id, keep ? 7 : 0);
			}
		}
		assert_true(t.more_alloc <= 64);

		/* back to the defaults: the entry goes, and reads give them */
		p = trace_live_get(&t, 100000 * 16);
		const struct trace_allocation plain = { .key = 100000 * 16, .len = 8, .allocation_event = 4,
							.segment_event = 4, .allocator_id = TRACE_BIN_LOGICAL_ALLOCATOR,
							.scope = 1 };
		assert_int_equal(trace_live_write(&t, p, &plain), 0);
		assert_int_equal(p->more, 0);
		trace_live_read(&t, p, &r);
		assert_true(r.key == plain.key && r.len == 8 && r.allocation_event == 4 && r.segment_event == 4 &&
			    r.byte_events == 0 && r.return_address == 0 && r.allocator_id == plain.allocator_id &&
			    r.scope == 1 && r.stack_id == 0);

		/* the key equal to the free mark keeps its entry too */
		w.key = UINT64_MAX;
		assert_non_null(p = trace_live_put(&t, UINT64_MAX));
		assert_int_equal(trace_live_write(&t, p, &w), 0);
		assert_true(trace_live_take(&t, UINT64_MAX, &r));
		assert_int_equal(r.byte_events, 96);
		assert_int_equal(r.allocator_id, 3);
		trace_live_done(&t);
	}
}

/* Puts key[i] with a new length, noted in len[i], and notes it live. */
static void put_noted(struct trace_live *t, const uint64_t *key, uint64_t *len, bool *live, size_t i)
{
	struct trace_record *p = trace_live_put(t, key[i]);

	assert_non_null(p);
	p->len = len[i] = next();
	live[i] = true;
}

/* Every key of key[0..n) is found with its length (live[i]) or not. */
static void check_all(struct trace_live *t, const uint64_t *key, const uint64_t *len, const bool *live, size_t n)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		struct trace_record *p = trace_live_get(t, key[i]);
		if (live[i]) {
			assert_non_null(p);
			assert_int_equal(p->len, len[i]);
			count++;
		} else {
			assert_null(p);
		}
	}
	assert_int_equal(trace_live_count(t), count);
}

/* The key whose hash is h: h times the inverse of the hash's multiplier
 * (odd, so it has one modulo 2^64; Newton's steps double its exact bits). */
static uint64_t key_of_hash(uint64_t h)
{
	const uint64_t m = 0x9e3779b97f4a7c15ull;
	uint64_t inv = m;

	for (int i = 0; i < 6; i++)
		inv *= 2 - m * inv;
	return h * inv;
}

/* A table grown to 2^21 slots: from the first mapped (2^14) it doubles
 * in place in its mapping, which it outgrows at 2^21 and is moved
 * to a larger one, pages and all; every key is found with its length
 * after each doubling, and after takes from all over it.  The first 40
 * keys' home is the last slot at every size: their row wraps around the
 * end, so a doubling puts some of them before where they were. */
static void test_grows_in_place(void **state)
{
	(void)state;
	enum { N = 600000 };
	uint64_t *key = calloc(N, sizeof(*key)), *len = calloc(N, sizeof(*len));
	bool *live = calloc(N, sizeof(*live));
	struct trace_live t;
	struct trace_allocation r;
	size_t cap = 0, doublings = 0, moves = 0;
	void *map = NULL;

	assert_true(key && len && live);
	trace_live_init(&t, false);
	assert_int_equal(trace_live_hash(key_of_hash(UINT64_MAX - 5)), UINT64_MAX - 5);
	for (size_t i = 0; i < N; i++) {
		key[i] = i < 40 ? key_of_hash(UINT64_MAX - i) : next() | 1;
		put_noted(&t, key, len, live, i);
		if (t.cap != cap) {
			if (cap >= ((size_t)1 << 14)) {
				doublings++;
#if defined(__linux__)
				/* in the mapping it had, until 2^21 slots */
				assert_non_null(t.map);
				if (t.cap < ((size_t)1 << 21))
					assert_ptr_equal(t.map, map);
				else
					moves += t.map != map;
#endif
				check_all(&t, key, len, live, i + 1);
			}
			cap = t.cap;
			map = t.map;
		}
	}
	assert_int_equal(t.cap, (size_t)1 << 21);
	assert_int_equal(doublings, 7);
	/* the row still wraps: the first slot holds one of it */
	assert_true(t.ctrl[0] < 0x80 && trace_live_hash(t.slots[0].key) >= UINT64_MAX - 40);
#if defined(__linux__)
	assert_int_equal(moves, 1);
#endif
	for (size_t i = 0; i < N; i += 3) {
		assert_true(trace_live_take(&t, key[i], &r));
		assert_int_equal(r.len, len[i]);
		live[i] = false;
	}
	check_all(&t, key, len, live, N);
	trace_live_done(&t);
	free(key);
	free(len);
	free(live);
}

/* A key whose hash's top 7 bits are top (its home in 128 slots, top / 2
 * in 64), taken from *k on. */
static uint64_t key_of_home(uint64_t *k, unsigned top)
{
	while ((++*k * 0x9e3779b97f4a7c15ull) >> 57 != top)
		;
	return *k;
}

/* A row of keys whose home is the last slot wraps around the table's end;
 * taking keys from its middle leaves gone marks, and keys put elsewhere
 * fill the table until it is made again at its size, in place: every key
 * is still found after each step, the table stays at its size (64
 * slots), its gone marks are gone once it is made again, and the row
 * still wraps. */
static void test_made_again_in_place(void **state)
{
	(void)state;
	enum { ROW = 30, N = 128 };
	static uint64_t key[N], len[N];
	static bool live[N];
	struct trace_live t;
	struct trace_allocation r;
	uint64_t k = 0;

	trace_live_init(&t, false);
	for (int round = 0; round < 20; round++) {
		size_t n = 0, wrapped = 0;
		/* the row: at the last slot, then the first 29 */
		for (; n < ROW; n++) {
			key[n] = key_of_home(&k, 127);
			put_noted(&t, key, len, live, n);
		}
		assert_int_equal(t.cap, 64);
		/* 15 from its middle, where rows of 16 run through them */
		for (size_t i = 8; i < 8 + 15; i++) {
			assert_true(trace_live_take(&t, key[i], &r));
			assert_int_equal(r.len, len[i]);
			live[i] = false;
		}
		assert_int_equal(t.gone, 15);
		check_all(&t, key, len, live, n);
		/* keys of other homes until the table is made again */
		while (t.gone > 0) {
			assert_true(n < N);
			key[n] = key_of_home(&k, 20 + (unsigned)(n % 64));
			put_noted(&t, key, len, live, n++);
			assert_int_equal(t.cap, 64);
			check_all(&t, key, len, live, n);
		}
		for (size_t s = 0; s < 16; s++)
			wrapped += t.ctrl[s] < 0x80 && (trace_live_hash(t.slots[s].key) >> 57) == 127;
		assert_true(wrapped > 0);
		for (size_t i = 0; i < n; i++) {
			if (live[i]) {
				assert_true(trace_live_take(&t, key[i], &r));
				assert_int_equal(r.len, len[i]);
				live[i] = false;
			}
		}
		assert_int_equal(trace_live_count(&t), 0);
	}
	trace_live_done(&t);
}

/* Where the address space for a mapping of slots cannot be had (here a
 * limit on it, in a child), tables of every size come from malloc and
 * are made anew beside the old ones: every key is found after growing to
 * 131,072 slots, and none is mapped.  Not under AddressSanitizer, whose
 * own allocator takes its memory under the same limit. */
static void test_grows_without_a_mapping(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#else
	enum { N = 40000 };
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static uint64_t key[N], len[N];
		struct trace_live t;
		unsigned long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(2);
		fclose(f);
		/* 24 MiB more than now: room for the tables (6 MiB of slots at
		 * most, the old and the new), not for a 32 MiB mapping */
		struct rlimit lim = { .rlim_cur = pages * 4096ul + (24ul << 20), .rlim_max = RLIM_INFINITY };
		lim.rlim_max = lim.rlim_cur;
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(3);
		trace_live_init(&t, false);
		for (size_t i = 0; i < N; i++) {
			struct trace_record *p = trace_live_put(&t, key[i] = next() | 1);
			if (!p)
				_exit(4);
			p->len = len[i] = i;
		}
		if (t.cap != 131072 || t.map != NULL)
			_exit(5);
		for (size_t i = 0; i < N; i++) {
			struct trace_record *p = trace_live_get(&t, key[i]);
			if (!p || p->len != len[i])
				_exit(6);
		}
		trace_live_done(&t);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_run_matches_an_array),
		cmocka_unit_test(test_the_free_mark_is_a_key),
		cmocka_unit_test(test_rows_of_one_home),
		cmocka_unit_test(test_more_comes_back_whole),
		cmocka_unit_test(test_memory_follows_the_live_count),
		cmocka_unit_test(test_grows_in_place),
		cmocka_unit_test(test_made_again_in_place),
		cmocka_unit_test(test_grows_without_a_mapping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
