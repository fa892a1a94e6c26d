/* The pymalloc walker (scanner/heap-pymalloc.c) on memory images whose
 * pools are known byte for byte, built here from the pool header's layout
 * (CPython's Include/internal/pycore_obmalloc.h): each layout it knows
 * (3.8 and 3.9: pools of 4 KiB in arenas of 256 KiB; 3.10 to 3.13: 16 KiB
 * in 1 MiB), pools full, partly carved, empty, unreadable or caught
 * changing, the bounds it keeps to; and a capture of a real CPython 3.11
 * process, whose figures sys._debugmallocstats() printed. */
#include "testlib.h"

#include <errno.h>
#include <inttypes.h>

#include "classes.h"
#include "heap-walkers.h"
#include "limits.h"
#include "memimage.h"
#include "census.h"
#include "scan.h"
#include "util.h"

#include "evidence-testlib.h"
#include "test-heap-lib.h"

#define PAGE 4096ull
#define HEADER 48u

/* ---------------------------------------------------------- images */

/* A pool header as pymalloc writes it: count blocks in use of class
 * szidx, carved blocks carved from the header's end, the free list's
 * head at block free_block (-1: none, the pool is full). */
static void image_pool(struct image *i, uint64_t addr, uint32_t pool_size, uint32_t szidx, uint32_t count,
		       uint32_t carved, int free_block, uint32_t arena)
{
	uint32_t size = (szidx + 1) * 16;
	uint8_t b[HEADER] = { 0 };

	put_u32(b, 0, count);
	put_u64(b, 8, free_block < 0 ? 0 : addr + HEADER + (uint64_t)free_block * size);
	put_u64(b, 16, 0x9a1d40); /* nextpool, prevpool: usedpools in the interpreter */
	put_u64(b, 24, 0x9a1d40);
	put_u32(b, 32, arena);
	put_u32(b, 36, szidx);
	put_u32(b, 40, HEADER + carved * size);
	put_u32(b, 44, pool_size - size);
	image_bytes(i, addr, b, sizeof(b));
}

/* Blocks in a pool of class szidx. */
static uint64_t blocks_of(uint32_t pool_size, uint32_t szidx)
{
	return (pool_size - HEADER) / ((szidx + 1) * 16);
}

/* ---------------------------------------------------------- walking */

struct walked {
	struct memimage *img;
	struct memsource src;
	struct heap_walk w;
	struct heap_figures f[_CLASS_MAX];
	uint64_t private;
	int r;
};

static struct region python_region(uint64_t start, uint64_t end)
{
	return (struct region){ .start = start, .end = end, .perms = "rw-p", .cls = CLASS_PYTHON };
}

/* Walks the image (freed) over regions, then makes the figures of the
 * walk against the regions' private bytes as the image has them. */
static void walk(struct walked *x, char *image, const struct region *regions, size_t n, const char *exe,
		 const struct heap_limits *limits)
{
	char msg[192] = "";
	struct heap_limits none = { .retries = RW_HEAP_RETRIES };
	uint64_t class_private[_CLASS_MAX] = { 0 };

	memset(x, 0, sizeof(*x));
	assert_int_equal(memimage_parse(image, strlen(image), &x->img, msg, sizeof(msg)), 0);
	free(image);
	memimage_source(x->img, &x->src);
	for (size_t i = 0; i < n; i++) {
		struct page_runs runs = { 0 };
		assert_int_equal(memsource_residency(&x->src, regions[i].start, regions[i].end, &runs), 0);
		class_private[regions[i].cls] += page_runs_bytes(&runs, regions[i].start, regions[i].end, PAGE_RESIDENT) +
						 page_runs_bytes(&runs, regions[i].start, regions[i].end, PAGE_SWAPPED);
		page_runs_done(&runs);
	}
	x->private = class_private[CLASS_PYTHON];
	x->src.probes = 0;
	struct heap_walk_input in = {
		.src = &x->src, .regions = regions, .n_regions = n, .limits = limits ? limits : &none, .exe = exe, .pid = 1
	};
	x->r = heap_walk_pymalloc(&in, &x->w);
	heap_figures_compute(&x->w, 1, regions, n, class_private, x->f);
}

static void walked_done(struct walked *x)
{
	heap_walk_done(&x->w);
	memimage_free(x->img);
}

/* What a user checks first: the figures add up to the class. */
static void walked_adds_up(const struct walked *x)
{
	assert_adds_up(&x->f[CLASS_PYTHON], x->private);
}

/* -------------------------------------------- 3.10 to 3.13: 16 KiB pools */

/* An arena of 1 MiB mapped at a page boundary that is not a pool's: its
 * first pool starts at the next 16 KiB.  A full pool, a pool partly
 * carved, an empty one, a page of data that is no pool header, a pool
 * whose header is swapped out. */
static char *arena_16k(uint64_t base, uint64_t *ret_start)
{
	const uint32_t pool = 16 * KiB;
	struct image i;
	uint64_t a = base + 0x3000, p = base + 0x4000;
	uint8_t junk[HEADER];

	image_open(&i);
	image_pages(&i, "resident", p, p + 4 * pool);
	image_pages(&i, "swapped", p + 4 * pool, p + 5 * pool);
	image_pool(&i, p, pool, 1, (uint32_t)blocks_of(pool, 1), (uint32_t)blocks_of(pool, 1), -1, 7);
	image_pool(&i, p + pool, pool, 3, 100, 150, 120, 7);
	image_pool(&i, p + 2 * pool, pool, 5, 0, 20, 0, 7);
	for (size_t k = 0; k < sizeof(junk); k++)
		junk[k] = (uint8_t)(k * 37 + 11);
	image_bytes(&i, p + 3 * pool, junk, sizeof(junk));
	*ret_start = a;
	return text_close(&i.t);
}

static void check_arena_16k(const struct walked *x)
{
	const struct heap_figures *f = &x->f[CLASS_PYTHON];
	const uint32_t pool = 16 * KiB;

	assert_int_equal(x->r, 0);
	assert_false(x->w.failed);
	walked_adds_up(x);
	assert_int_equal(x->private, 5 * pool);
	/* the full pool of 32-byte blocks and 100 blocks of 64 bytes */
	assert_int_equal(f->in_use, blocks_of(pool, 1) * 32 + 100 * 64);
	/* 50 blocks carved and freed, 105 never carved, an empty pool */
	assert_int_equal(f->free, 50 * 64 + (blocks_of(pool, 3) - 150) * 64 + pool);
	assert_int_equal(f->returnable, pool);
	/* headers and quantization of the two used pools */
	assert_int_equal(f->overhead, 2 * HEADER + (pool - HEADER - blocks_of(pool, 1) * 32) +
					      (pool - HEADER - blocks_of(pool, 3) * 64));
	/* no pool at the junk, a header that could not be read */
	assert_int_equal(f->unknown, 2 * pool);
	assert_non_null(strstr(f->how, "pymalloc (CPython 3."));
	assert_non_null(strstr(f->how, "1 arena, 3 pools (1 empty"));
	assert_int_equal(x->w.bytes_read, 4 * HEADER);
}

static void test_layout_16k(void **state)
{
	(void)state;
	/* the version from the program's name, or from libpython's */
	static const struct {
		const char *exe, *lib, *says;
	} cases[] = {
		{ "/usr/bin/python3.10", NULL, "CPython 3.10" },
		{ "/usr/bin/python3.11", NULL, "CPython 3.11" },
		{ "/usr/local/bin/uwsgi", "/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0", "CPython 3.12" },
		{ "/opt/python/bin/python3.13", NULL, "CPython 3.13" },
	};
	const uint64_t base = 0x7f3a00000000;

	for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
		struct walked x;
		uint64_t a;
		char *image = arena_16k(base, &a);
		struct region r[2] = {
			{ .start = 0x7f2000000000, .end = 0x7f2000200000, .perms = "r-xp", .cls = CLASS_IMAGES, .path = cases[k].lib },
			python_region(a, a + MiB),
		};
		walk(&x, image, cases[k].lib ? r : r + 1, cases[k].lib ? 2 : 1, cases[k].exe, NULL);
		check_arena_16k(&x);
		assert_non_null(strstr(x.f[CLASS_PYTHON].how, cases[k].says));
		walked_done(&x);
	}
}

/* Where pages of a used pool were never touched, its in-use bytes are
 * still all counted: they lie in the pages its carved blocks wrote. */
static void test_untouched_tail(void **state)
{
	(void)state;
	const uint32_t pool = 16 * KiB;
	const uint64_t p = 0x7f3a00100000;
	struct image i;
	struct walked x;

	image_open(&i);
	image_pages(&i, "resident", p, p + PAGE);
	image_pool(&i, p, pool, 0, 60, 64, 62, 2); /* 64 blocks of 16 bytes carved: 1,072 bytes */
	struct region r = python_region(p, p + MiB);
	walk(&x, text_close(&i.t), &r, 1, "/usr/bin/python3.11", NULL);
	walked_adds_up(&x);
	assert_int_equal(x.private, PAGE);
	assert_int_equal(x.f[CLASS_PYTHON].in_use, 60 * 16);
	/* free: 4 carved blocks, and the blocks never carved in the page
	 * written (the others are no memory) */
	assert_int_equal(x.f[CLASS_PYTHON].free, 4 * 16 + (PAGE - HEADER - 64 * 16));
	assert_int_equal(x.f[CLASS_PYTHON].returnable, 0);
	walked_done(&x);
}

/* -------------------------------------------- 3.8 and 3.9: 4 KiB pools */

static void test_layout_4k(void **state)
{
	(void)state;
	const uint32_t pool = 4 * KiB;
	const uint64_t a = 0x7f3b00040000; /* a 256 KiB arena, page-aligned as mmap gives it */
	const char *exes[] = { "/usr/bin/python3.8", "/usr/bin/python3.9" };

	for (size_t k = 0; k < ELEMENTSOF(exes); k++) {
		struct image i;
		struct walked x;

		image_open(&i);
		image_pages(&i, "resident", a, a + 6 * pool);
		image_pool(&i, a, pool, 0, (uint32_t)blocks_of(pool, 0), (uint32_t)blocks_of(pool, 0), -1, 3);
		image_pool(&i, a + pool, pool, 31, 3, 5, 4, 3);
		image_pool(&i, a + 2 * pool, pool, 9, 0, 8, 2, 3);
		/* a pool of 16 KiB's header does not fit a 4 KiB pool */
		image_pool(&i, a + 4 * pool, 16 * KiB, 2, 10, 12, 11, 3);
		image_pool(&i, a + 5 * pool, pool, 2, 10, 12, 11, 3);
		struct region r = python_region(a, a + 256 * KiB);
		walk(&x, text_close(&i.t), &r, 1, exes[k], NULL);
		const struct heap_figures *f = &x.f[CLASS_PYTHON];
		assert_int_equal(x.r, 0);
		walked_adds_up(&x);
		assert_int_equal(f->in_use, blocks_of(pool, 0) * 16 + 3 * 512 + 10 * 48);
		assert_int_equal(f->free, 2 * 512 + (blocks_of(pool, 31) - 5) * 512 + pool + 2 * 48 +
						  (blocks_of(pool, 2) - 12) * 48);
		assert_int_equal(f->returnable, pool);
		/* a header not in the image (pool 3) is unknown; so is the 16 KiB one */
		assert_int_equal(f->unknown, 2 * pool);
		assert_non_null(strstr(f->how, k ? "CPython 3.9" : "CPython 3.8"));
		assert_non_null(strstr(f->how, "1 arena, 4 pools (1 empty"));
		walked_done(&x);
	}
}

/* The same pools read as 3.11's are no pools at all: the layout is the
 * version's, never guessed from the headers. */
static void test_layout_of_the_version(void **state)
{
	(void)state;
	const uint32_t pool = 4 * KiB;
	const uint64_t a = 0x7f3b00040000;
	struct image i;
	struct walked x;

	image_open(&i);
	image_pages(&i, "resident", a, a + 4 * pool);
	for (uint32_t k = 0; k < 4; k++)
		image_pool(&i, a + k * pool, pool, 2, 10, 12, 11, 3);
	struct region r = python_region(a, a + 256 * KiB);
	walk(&x, text_close(&i.t), &r, 1, "/usr/bin/python3.11", NULL);
	assert_true(x.w.failed);
	walked_adds_up(&x);
	assert_int_equal(x.f[CLASS_PYTHON].unknown, 4 * pool);
	assert_non_null(strstr(x.f[CLASS_PYTHON].how, "no pool header checks out"));
	walked_done(&x);
}

/* A version whose layout the table does not hold, or none known. */
static void test_version_unknown(void **state)
{
	(void)state;
	const uint64_t p = 0x7f3a00100000;
	static const struct {
		const char *exe, *says;
	} cases[] = {
		{ "/usr/bin/python3.7", "the layout of CPython 3.7 is not known" },
		{ "/usr/bin/python3.14", "the layout of CPython 3.14 is not known" },
		{ "/usr/local/bin/myapp", "CPython's version not known" },
	};

	for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
		struct image i;
		struct walked x;
		image_open(&i);
		image_pages(&i, "resident", p, p + 16 * KiB);
		image_pool(&i, p, 16 * KiB, 0, 60, 64, 62, 2);
		struct region r = python_region(p, p + MiB);
		walk(&x, text_close(&i.t), &r, 1, cases[k].exe, NULL);
		assert_int_equal(x.r, 0);
		assert_true(x.w.failed);
		walked_adds_up(&x);
		assert_int_equal(x.f[CLASS_PYTHON].unknown, 16 * KiB);
		assert_int_equal(x.f[CLASS_PYTHON].in_use, 0);
		assert_non_null(strstr(x.f[CLASS_PYTHON].how, cases[k].says));
		walked_done(&x);
	}
}

/* A process with no python class: nothing to say, and nothing read. */
static void test_no_python(void **state)
{
	(void)state;
	struct image i;
	struct walked x;
	struct region r = { .start = 0x1000000, .end = 0x2000000, .perms = "rw-p", .cls = CLASS_MALLOC };

	image_open(&i);
	image_pages(&i, "resident", r.start, r.end);
	walk(&x, text_close(&i.t), &r, 1, "/usr/bin/python3.11", NULL);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.w.n_covers, 0);
	assert_int_equal(x.w.n_spans, 0);
	assert_false(x.f[CLASS_PYTHON].known);
	assert_int_equal(x.src.probes, 0);
	walked_done(&x);
}

/* ------------------------------------------------ a program that moves */

/* Headers whose fields contradict one another, as a pool read while a
 * block is handed out or given back shows: its arena is read again, at
 * most the retries, then unknown; the other arena is counted. */
static void test_moving(void **state)
{
	(void)state;
	const uint32_t pool = 16 * KiB;
	const uint64_t a = 0x7f3c00000000, b = a + MiB;
	/* count, carved, free block: each contradicts the others */
	static const struct {
		uint32_t count, carved;
		int free_block;
	} torn[] = {
		{ 30, 20, 5 },  /* more in use than carved */
		{ 20, 20, 5 },  /* all carved in use, yet a free block */
		{ 10, 20, -1 }, /* no free block, yet blocks free */
		{ 10, 20, 25 }, /* the free list's head never carved */
	};

	for (size_t k = 0; k < ELEMENTSOF(torn); k++) {
		for (unsigned retries = 0; retries <= RW_HEAP_RETRIES; retries += RW_HEAP_RETRIES) {
			struct image i;
			struct walked x;
			struct heap_limits lim = { .retries = retries };

			image_open(&i);
			image_pages(&i, "resident", a, a + 2 * pool);
			image_pages(&i, "resident", b, b + pool);
			image_pool(&i, a, pool, 0, 60, 64, 62, 2);
			image_pool(&i, a + pool, pool, 0, torn[k].count, torn[k].carved, torn[k].free_block, 2);
			image_pool(&i, b, pool, 4, 7, 9, 8, 3);
			struct region r = python_region(a, a + 2 * MiB);
			walk(&x, text_close(&i.t), &r, 1, "/usr/bin/python3.11", &lim);
			const struct heap_figures *f = &x.f[CLASS_PYTHON];
			assert_int_equal(x.r, 0);
			assert_false(x.w.failed);
			walked_adds_up(&x);
			/* the first arena's two headers, read 1 + retries times, and the second's */
			assert_int_equal(x.src.probes, 2 * (1 + retries) + 1);
			assert_int_equal(f->unknown, 2 * pool);
			assert_int_equal(f->in_use, 7 * 80);
			assert_non_null(strstr(f->how, "1 arena unknown: pools changed while read"));
			walked_done(&x);
		}
	}
}

/* When every arena moved, the class is unknown, and says why. */
static void test_all_moving(void **state)
{
	(void)state;
	const uint64_t a = 0x7f3c00000000;
	struct image i;
	struct walked x;

	image_open(&i);
	image_pages(&i, "resident", a, a + 16 * KiB);
	image_pool(&i, a, 16 * KiB, 0, 65, 64, 62, 2);
	struct region r = python_region(a, a + MiB);
	walk(&x, text_close(&i.t), &r, 1, "/usr/bin/python3.11", NULL);
	assert_true(x.w.failed);
	walked_adds_up(&x);
	assert_int_equal(x.f[CLASS_PYTHON].unknown, 16 * KiB);
	assert_non_null(strstr(x.f[CLASS_PYTHON].how, "pools changed while read"));
	walked_done(&x);
}

/* ------------------------------------------------------------ bounds */

/* Arenas one after another, each with a pool; one arena all empty. */
static char *arenas(uint64_t a, unsigned n)
{
	struct image i;

	image_open(&i);
	for (unsigned k = 0; k < n; k++) {
		uint64_t p = a + k * MiB;
		image_pages(&i, "resident", p, p + 32 * KiB);
		image_pool(&i, p, 16 * KiB, 1, k ? 12 : 0, 14, 13, k);
		image_pool(&i, p + 16 * KiB, 16 * KiB, 1, 0, 14, 13, k);
	}
	return text_close(&i.t);
}

static void test_empty_arena(void **state)
{
	(void)state;
	const uint64_t a = 0x7f3d00000000;
	struct walked x;
	struct region r = python_region(a, a + 3 * MiB);

	walk(&x, arenas(a, 3), &r, 1, "/usr/bin/python3.11", NULL);
	walked_adds_up(&x);
	assert_int_equal(x.f[CLASS_PYTHON].in_use, 2 * 12 * 32);
	assert_int_equal(x.f[CLASS_PYTHON].returnable, 4 * 16 * KiB);
	assert_non_null(strstr(x.f[CLASS_PYTHON].how, "3 arenas, 6 pools (4 empty, returnable; 1 arena all empty)"));
	walked_done(&x);
}

/* Past the bytes a walk may read, the arenas left are unknown, and the
 * walk says where it stopped; with nothing read, the class is unknown. */
static void test_read_limit(void **state)
{
	(void)state;
	const uint64_t a = 0x7f3d00000000;
	/* an arena's window is read whole or not at all: 64 headers at most */
	const uint64_t window = 64 * HEADER;

	/* a window is charged its 64 headers before it is read, and costs
	 * the two it holds: this many bytes let k windows be read */
	for (unsigned k = 0; k <= 3; k++) {
		struct walked x;
		struct region r = python_region(a, a + 3 * MiB);
		struct heap_limits lim = { .max_bytes = k ? window + 2 * HEADER * (k - 1) : window - 1,
					   .retries = RW_HEAP_RETRIES };
		walk(&x, arenas(a, 3), &r, 1, "/usr/bin/python3.11", &lim);
		const struct heap_figures *f = &x.f[CLASS_PYTHON];
		assert_int_equal(x.r, 0);
		walked_adds_up(&x);
		assert_true(x.w.bytes_read <= lim.max_bytes);
		assert_int_equal(x.w.bytes_read, 2 * HEADER * k);
		assert_int_equal(f->unknown, (3 - k) * 32 * KiB);
		if (k == 0) {
			assert_true(x.w.failed);
			assert_non_null(strstr(f->how, "stopped at the limit of bytes read"));
		} else {
			assert_false(x.w.failed);
			assert_true((k < 3) == (strstr(f->how, "stopped at the limit of bytes read, the rest unknown") != NULL));
		}
		walked_done(&x);
	}
}

/* A walk past its deadline reads nothing more. */
static void test_deadline(void **state)
{
	(void)state;
	const uint64_t a = 0x7f3d00000000;
	struct walked x;
	struct region r = python_region(a, a + 3 * MiB);
	struct heap_limits lim = { .deadline_us = 1, .retries = RW_HEAP_RETRIES };

	walk(&x, arenas(a, 3), &r, 1, "/usr/bin/python3.11", &lim);
	assert_true(x.w.failed);
	walked_adds_up(&x);
	assert_int_equal(x.src.probes, 0);
	assert_non_null(strstr(x.f[CLASS_PYTHON].how, "time budget"));
	walked_done(&x);
}

/* ------------------------------------------------- a real process */

/* tests/data/memimage/python3-pools: Debian's python3 (3.11) holding one
 * in nine of 150,000 bytes objects of seven sizes; sys._debugmallocstats()
 * printed 5,266,400 bytes in allocated blocks, 28,291,232 in available
 * blocks and 9 unused pools in 33 arenas.  Two of the arenas lie in the
 * kernel region of a library's .bss (the images class): the python class
 * holds the other 31. */
static void test_capture(void **state)
{
	(void)state;
	struct scan_options o = { .keep_regions = true };
	struct census *c = capture_census("python3-pools", NULL, &o);
	const struct census_totals *k = &c->classes[CLASS_PYTHON];
	assert_int_equal(c->unknown_classes[CLASS_PYTHON] & CENSUS_HEAP_COUNTERS, 0);
	assert_int_equal(k->in_use + k->free_kept + k->overhead + k->unknown, k->private);
	/* what the live census found */
	assert_int_equal(k->in_use, 3493760);
	assert_int_equal(k->free_kept, 27966527);
	assert_int_equal(k->unknown, 0);
	assert_non_null(c->how[CLASS_PYTHON]);
	assert_non_null(strstr(c->how[CLASS_PYTHON], "pymalloc (CPython 3.11): 31 arenas, 1,954 pools"));
	/* and what CPython said, within 2 MiB */
	assert_true(k->in_use <= 5266400 && 5266400 - k->in_use <= 2 * MiB);
	assert_true(k->free_kept <= 28291232 + 147456 && 28291232 + 147456 - k->free_kept <= 2 * MiB);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_16k),
		cmocka_unit_test(test_untouched_tail),
		cmocka_unit_test(test_layout_4k),
		cmocka_unit_test(test_layout_of_the_version),
		cmocka_unit_test(test_version_unknown),
		cmocka_unit_test(test_no_python),
		cmocka_unit_test(test_moving),
		cmocka_unit_test(test_all_moving),
		cmocka_unit_test(test_empty_arena),
		cmocka_unit_test(test_read_limit),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
