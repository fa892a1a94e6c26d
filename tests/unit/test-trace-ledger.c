/* The physical layer's ledger of mapped ranges: displacement, splitting,
 * untracked unmaps, the top of the address space, and a long random run
 * checked byte for byte against a plain array. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace-ledger.h"

struct ranges {
	uint64_t start[16], len[16];
	size_t n;
};

static bool collect(uint64_t start, uint64_t len, void *data)
{
	struct ranges *r = data;
	if (r->n < 16) {
		r->start[r->n] = start;
		r->len[r->n] = len;
	}
	r->n++;
	return true;
}

static struct ranges ranges_of(const struct trace_ledger *l)
{
	struct ranges r = { .n = 0 };
	trace_ledger_foreach(l, collect, &r);
	assert_int_equal(r.n, trace_ledger_count(l));
	return r;
}

static void test_map_displaces(void **state)
{
	(void)state;
	struct trace_ledger l;
	uint64_t d;
	trace_ledger_init(&l);
	assert_int_equal(trace_ledger_map(&l, 0x1000, 0x4000, &d), 0);
	assert_int_equal(d, 0);
	/* a map inside a live range displaces what it covers and splits it */
	assert_int_equal(trace_ledger_map(&l, 0x2000, 0x1000, &d), 0);
	assert_int_equal(d, 0x1000);
	struct ranges r = ranges_of(&l);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.start[0], 0x1000);
	assert_int_equal(r.len[0], 0x1000);
	assert_int_equal(r.start[1], 0x2000);
	assert_int_equal(r.start[2], 0x3000);
	assert_int_equal(r.len[2], 0x2000);
	/* a map over several ranges and a gap displaces only mapped bytes */
	assert_int_equal(trace_ledger_map(&l, 0x1800, 0x5000, &d), 0);
	assert_int_equal(d, 0x3800);
	r = ranges_of(&l);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.start[0], 0x1000);
	assert_int_equal(r.len[0], 0x800);
	assert_int_equal(r.start[1], 0x1800);
	assert_int_equal(r.len[1], 0x5000);
	assert_int_equal(trace_ledger_bytes(&l), 0x5800);
	/* the same range again displaces all of it, and stays one range */
	assert_int_equal(trace_ledger_map(&l, 0x1800, 0x5000, &d), 0);
	assert_int_equal(d, 0x5000);
	assert_int_equal(trace_ledger_count(&l), 2);
	/* adjacent maps do not merge */
	assert_int_equal(trace_ledger_map(&l, 0x6800, 0x1000, &d), 0);
	assert_int_equal(d, 0);
	assert_int_equal(trace_ledger_count(&l), 3);
	trace_ledger_done(&l);
}

static void test_unmap_splits(void **state)
{
	(void)state;
	struct trace_ledger l;
	uint64_t d, removed;
	trace_ledger_init(&l);
	assert_int_equal(trace_ledger_map(&l, 0x10000, 0x10000, &d), 0);
	/* a hole in the middle leaves two pieces */
	assert_int_equal(trace_ledger_unmap(&l, 0x14000, 0x1000, &removed), 0);
	assert_int_equal(removed, 0x1000);
	struct ranges r = ranges_of(&l);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.start[0], 0x10000);
	assert_int_equal(r.len[0], 0x4000);
	assert_int_equal(r.start[1], 0x15000);
	assert_int_equal(r.len[1], 0xb000);
	/* an unmap reaching past the end removes only what was mapped */
	assert_int_equal(trace_ledger_unmap(&l, 0x1e000, 0x4000, &removed), 0);
	assert_int_equal(removed, 0x2000);
	/* one covering the head, a gap and part of the next piece */
	assert_int_equal(trace_ledger_unmap(&l, 0xf000, 0x7000, &removed), 0);
	assert_int_equal(removed, 0x4000 + 0x1000);
	r = ranges_of(&l);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.start[0], 0x16000);
	assert_int_equal(r.len[0], 0x8000);
	/* nothing there: all untracked */
	assert_int_equal(trace_ledger_unmap(&l, 0x100000, 0x1000, &removed), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(trace_ledger_unmap(&l, 0x16000, 0x8000, &removed), 0);
	assert_int_equal(removed, 0x8000);
	assert_int_equal(trace_ledger_count(&l), 0);
	assert_int_equal(trace_ledger_bytes(&l), 0);
	trace_ledger_done(&l);
}

static void test_edges_of_the_address_space(void **state)
{
	(void)state;
	struct trace_ledger l;
	uint64_t d, removed;
	trace_ledger_init(&l);
	/* nothing: zero lengths */
	assert_int_equal(trace_ledger_map(&l, 5, 0, &d), 0);
	assert_int_equal(trace_ledger_count(&l), 0);
	assert_int_equal(trace_ledger_unmap(&l, UINT64_MAX, 0, &removed), 0);
	assert_int_equal(removed, 0);
	/* the last byte and the last page */
	assert_int_equal(trace_ledger_map(&l, UINT64_MAX, 1, &d), 0);
	assert_int_equal(trace_ledger_map(&l, UINT64_MAX - 4095, 4096, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(trace_ledger_bytes(&l), 4096);
	/* past the end: refused, ledger unchanged */
	assert_int_equal(trace_ledger_map(&l, UINT64_MAX, 2, &d), -EINVAL);
	assert_int_equal(trace_ledger_unmap(&l, UINT64_MAX - 10, 12, &removed), -EINVAL);
	assert_int_equal(trace_ledger_bytes(&l), 4096);
	assert_true(trace_ledger_range_valid(0, UINT64_MAX));
	assert_true(trace_ledger_range_valid(1, UINT64_MAX));
	assert_false(trace_ledger_range_valid(2, UINT64_MAX));
	/* one range from 0 of 2^64-1 bytes and the last byte: 2^64 bytes,
	 * which the count saturates */
	assert_int_equal(trace_ledger_map(&l, 0, UINT64_MAX, &d), 0);
	assert_int_equal(d, 4095);
	assert_int_equal(trace_ledger_map(&l, UINT64_MAX, 1, &d), 0);
	assert_true(trace_ledger_bytes(&l) == UINT64_MAX);
	assert_int_equal(trace_ledger_count(&l), 2);
	assert_int_equal(trace_ledger_unmap(&l, 0, UINT64_MAX, &removed), 0);
	assert_true(removed == UINT64_MAX);
	assert_int_equal(trace_ledger_bytes(&l), 1);
	trace_ledger_done(&l);
}

/* A model: which map (piece) owns each byte of a small space.  Ranges
 * are the runs of one owner; pieces of one map never touch (something
 * always lies between them), so runs count them exactly. */
#define SPACE 2048u

static uint64_t model_runs(const uint32_t *owner)
{
	uint64_t runs = 0;
	for (size_t i = 0; i < SPACE; i++)
		if (owner[i] && (i == 0 || owner[i - 1] != owner[i]))
			runs++;
	return runs;
}

static void test_random_against_model(void **state)
{
	(void)state;
	uint32_t *owner = calloc(SPACE, sizeof(*owner));
	uint64_t rng = 88172645463325252ull, bytes = 0;
	struct trace_ledger l;
	trace_ledger_init(&l);
	for (uint32_t op = 1; op <= 200000; op++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		uint64_t start = rng % SPACE, len = (rng >> 20) % 97;
		if (start + len > SPACE)
			len = SPACE - start;
		bool map = (rng >> 40) % 3 != 0;
		uint64_t covered = 0, got;
		for (uint64_t i = start; i < start + len; i++) {
			covered += owner[i] != 0;
			owner[i] = map ? op : 0;
		}
		if (map) {
			assert_int_equal(trace_ledger_map(&l, start, len, &got), 0);
			bytes += len - covered;
		} else {
			assert_int_equal(trace_ledger_unmap(&l, start, len, &got), 0);
			bytes -= covered;
		}
		assert_int_equal(got, covered);
		assert_int_equal(trace_ledger_bytes(&l), bytes);
		if (op % 97 == 0 || op > 199000)
			assert_int_equal(trace_ledger_count(&l), model_runs(owner));
	}
	trace_ledger_done(&l);
	free(owner);
}

/* Many ranges: the tree stays usable (no recursion runs away) and its
 * memory is given back. */
static void test_many_ranges(void **state)
{
	(void)state;
	struct trace_ledger l;
	uint64_t d;
	trace_ledger_init(&l);
	for (uint64_t i = 0; i < 300000; i++)
		assert_int_equal(trace_ledger_map(&l, i * 8192, 4096, &d), 0);
	assert_int_equal(trace_ledger_count(&l), 300000);
	/* one unmap over all of them */
	assert_int_equal(trace_ledger_unmap(&l, 0, 300000ull * 8192, &d), 0);
	assert_int_equal(d, 300000ull * 4096);
	assert_int_equal(trace_ledger_count(&l), 0);
	trace_ledger_done(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_displaces),
		cmocka_unit_test(test_unmap_splits),
		cmocka_unit_test(test_edges_of_the_address_space),
		cmocka_unit_test(test_random_against_model),
		cmocka_unit_test(test_many_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
