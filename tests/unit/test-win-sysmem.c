/* The machine's row on Windows (daemon/windows/win-sysmem.c) from what
 * GlobalMemoryStatusEx and GetPerformanceInfo give: pages made bytes, the
 * paging files as swap (the commit limit beyond physical memory, free as
 * far as the commit charge leaves them), no pressure; figures no system
 * gives, and pages past 64 bits of bytes, refused. */
#include "testlib.h"

#include <errno.h>

#include "win-sysmem.h"

#define PAGE 4096ull

static void test_row(void **state)
{
	(void)state;
	/* 16 GiB of RAM, 6 GiB available, 4 GiB of paging file, 10 GiB charged */
	struct win_sysmem_figures f = { .total_phys = 16 * GiB, .avail_phys = 6 * GiB, .commit_total = 10 * GiB / PAGE,
					.commit_limit = 20 * GiB / PAGE, .page_size = PAGE };
	struct store_system row;

	assert_int_equal(win_sysmem_row(&f, 1796601600000ll, &row), 0);
	assert_int_equal(row.time, 1796601600000ll);
	assert_int_equal(row.mem_total, 16 * GiB);
	assert_int_equal(row.mem_available, 6 * GiB);
	assert_int_equal(row.committed_as, 10 * GiB);
	assert_int_equal(row.commit_limit, 20 * GiB);
	assert_int_equal(row.swap_total, 4 * GiB);
	assert_int_equal(row.swap_free, 4 * GiB); /* the charge fits in RAM */
	assert_false(row.have_pressure);

	/* 19 GiB charged: 3 GiB of it past RAM, in the paging files */
	f.commit_total = 19 * GiB / PAGE;
	assert_int_equal(win_sysmem_row(&f, 0, &row), 0);
	assert_int_equal(row.swap_free, 1 * GiB);
	/* the whole limit charged */
	f.commit_total = f.commit_limit;
	assert_int_equal(win_sysmem_row(&f, 0, &row), 0);
	assert_int_equal(row.swap_free, 0);

	/* no paging file: the limit below RAM (Windows keeps some back) */
	f = (struct win_sysmem_figures){ .total_phys = 8 * GiB, .avail_phys = 2 * GiB, .commit_total = 3 * GiB / PAGE,
					 .commit_limit = 7 * GiB / PAGE, .page_size = PAGE };
	assert_int_equal(win_sysmem_row(&f, 0, &row), 0);
	assert_int_equal(row.swap_total, 0);
	assert_int_equal(row.swap_free, 0);
	assert_int_equal(row.commit_limit, 7 * GiB);
}

static void test_refused(void **state)
{
	(void)state;
	struct win_sysmem_figures good = { .total_phys = 8 * GiB, .avail_phys = 2 * GiB, .commit_total = 1000,
					   .commit_limit = 2000, .page_size = PAGE };
	struct store_system row = { .time = 42 };
	struct win_sysmem_figures f;

	f = good;
	f.avail_phys = f.total_phys + 1;
	assert_int_equal(win_sysmem_row(&f, 0, &row), -EBADMSG);
	f = good;
	f.commit_total = f.commit_limit + 1;
	assert_int_equal(win_sysmem_row(&f, 0, &row), -EBADMSG);
	f = good;
	f.page_size = 0;
	assert_int_equal(win_sysmem_row(&f, 0, &row), -EOVERFLOW);
	/* pages whose bytes pass 64 bits: the last that fit, then one more */
	f = good;
	f.commit_limit = UINT64_MAX / PAGE;
	assert_int_equal(win_sysmem_row(&f, 0, &row), 0);
	f.commit_limit++;
	assert_int_equal(win_sysmem_row(&f, 0, &row), -EOVERFLOW);
	f = good;
	f.commit_total = UINT64_MAX / PAGE + 1;
	f.commit_limit = UINT64_MAX;
	assert_int_equal(win_sysmem_row(&f, 0, &row), -EOVERFLOW);
	/* a refused row leaves the last one as it was */
	f = good;
	f.page_size = 0;
	row.time = 42;
	win_sysmem_row(&f, 7, &row);
	assert_int_equal(row.time, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
