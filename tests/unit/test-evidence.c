/* Evidence read from memory images: the image format, and the walks,
 * splits and bounds of the evidence pass, on regions whose contents are
 * known byte for byte.  The checks of each allocator's structure are in
 * test-evidence-checks.c. */
#include "testlib.h"

#include <errno.h>
#include <inttypes.h>

#include "census.h"
#include "classes.h"
#include "evidence-internal.h"
#include "evidence.h"
#include "limits.h"
#include "memimage.h"
#include "scan.h"
#include "util.h"

#include "evidence-testlib.h"
#include "test-heap-lib.h"
#include "man-testlib.h"

#define PAGE 4096ull

/* ------------------------------------------------------------ the pass */

/* n bytes at addr, then zeros to 64: the pass reads 64 bytes at a header,
 * and an image answers only reads it holds whole. */
static void image_header(struct image *i, uint64_t addr, const uint8_t *b, size_t n)
{
	uint8_t padded[64] = { 0 };
	memcpy(padded, b, n);
	image_bytes(i, addr, padded, sizeof(padded));
}

static void image_chunk(struct image *i, uint64_t addr, uint64_t size)
{
	uint8_t b[16] = { 0 };
	put_u64(b, 8, size | 2);
	image_header(i, addr, b, 16);
}

static void image_pool(struct image *i, uint64_t addr, uint32_t arena)
{
	uint8_t b[64];
	make_pool(b, addr, 16 * KiB, 5, arena);
	image_header(i, addr, b, 64);
}

struct run {
	struct parsed p;
	struct memimage *img;
	struct evidence_result res;
	struct strpool *pool;
	int r;
};

/* Classifies smaps, then reads evidence from the image (both texts freed). */
static void run_pass(struct run *run, char *smaps, char *image, uint64_t max_reads)
{
	char msg[192] = "";
	struct memsource src;

	run->p = classify_text(smaps, NULL);
	assert_int_equal(run->p.error, 0);
	assert_int_equal(memimage_parse(image, strlen(image), &run->img, msg, sizeof(msg)), 0);
	memimage_source(run->img, &src);
	src.max_probes = max_reads ? max_reads : RW_EVIDENCE_READS_MAX;
	run->pool = strpool_new();
	run->r = evidence_apply(&src, &run->p.r, &run->p.n, RW_REGIONS_MAX, run->pool, &run->res);
	free(smaps);
	free(image);
}

static void run_done(struct run *run)
{
	parsed_free(&run->p);
	memimage_free(run->img);
	strpool_free(run->pool);
}

/* The sum of a count over every region: what classes and totals add up. */
static uint64_t sum_of(const struct parsed *p, enum region_count c)
{
	uint64_t s = 0;
	for (size_t i = 0; i < p->n; i++)
		s += region_field(&p->r[i], c);
	return s;
}

/* glibc blocks the kernel merged into one region are walked block by block. */
static void test_merged_blocks(void **state)
{
	(void)state;
	const uint64_t a = 0x7f1000000000;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + 0x101000 + 2 * 0x201000 + 0x801000, "rw-p", NULL, 0x101000 + 2 * 0x201000 + 0x801000,
		   0x101000 + 2 * 0x201000 + 0x801000, NULL);
	image_open(&i);
	image_pages(&i, "resident", a, a + 0x101000 + 2 * 0x201000 + 0x801000);
	image_chunk(&i, a, 0x101000);
	image_chunk(&i, a + 0x101000, 0x201000);
	image_chunk(&i, a + 0x302000, 0x201000);
	image_chunk(&i, a + 0x503000, 0x801000);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.p.n, 1);
	assert_class(&run.p, a, "malloc", "glibc_mmap_chunks");
	assert_non_null(run.p.r[0].evidence);
	assert_non_null(strstr(run.p.r[0].evidence, "4 glibc malloc blocks"));
	assert_non_null(strstr(run.p.r[0].evidence, "2 of 2.00 MiB"));
	/* four headers, and the read-ahead past the last that found none */
	assert_true(run.res.reads >= 4 && run.res.reads <= 4 * 8);
	assert_int_equal(run.res.confirmed, 1);
	run_done(&run);
}

/* Blocks of one size in a region only partly resident: the boundaries of
 * a round, far apart or close, are asked about in one question, and where
 * the source cannot ask about scattered pages at once, one each. */
static void test_boundaries_asked_together(void **state)
{
	(void)state;
	const uint64_t a = 0x7f2000000000;
	const uint64_t blocks[] = { 256 * KiB, 4 * MiB };
	const unsigned n = 17;

	for (size_t c = 0; c < 2 * sizeof(blocks) / sizeof(blocks[0]); c++) {
		uint64_t block = blocks[c / 2], used = block * n, end = a + used + 64 * KiB;
		bool one_by_one = c % 2;
		char msg[192] = "";
		struct text t;
		struct image i;
		struct memimage *img;
		struct memsource src;
		struct evidence_result res;

		FILE *f = text_open(&t);
		/* the last 64 KiB never touched: smaps shows the region part resident */
		put_region(f, a, end, "rw-p", NULL, used, used, NULL);
		image_open(&i);
		image_pages(&i, "resident", a, a + used);
		for (unsigned k = 0; k < n; k++)
			image_chunk(&i, a + k * block, block);
		char *smaps = text_close(&t), *image = text_close(&i.t);
		struct parsed p = classify_text(smaps, NULL);
		assert_int_equal(p.error, 0);
		assert_int_equal(memimage_parse(image, strlen(image), &img, msg, sizeof(msg)), 0);
		memimage_source(img, &src);
		struct memsource_ops ops = *src.ops;
		if (one_by_one) {
			ops.present = NULL;
			src.ops = &ops;
		}
		struct strpool *pool = strpool_new();
		assert_int_equal(evidence_apply(&src, &p.r, &p.n, RW_REGIONS_MAX, pool, &res), 0);
		assert_class(&p, a, "malloc", "glibc_mmap_chunks");
		char want[64];
		snprintf(want, sizeof(want), "%u glibc malloc blocks", n);
		assert_non_null(strstr(p.r[0].evidence, want));
		assert_int_equal(res.reads, n);
		if (one_by_one)
			/* a question a boundary, and more for the untouched tail */
			assert_in_range(res.questions, n, n + 4);
		else
			/* a question a round of reads, and the tail's */
			assert_in_range(res.questions, res.calls, res.calls + 4);
		assert_true(res.calls < n / 2);
		strpool_free(pool);
		memimage_free(img);
		parsed_free(&p);
		free(smaps);
		free(image);
	}
}

/* A pymalloc arena, then a glibc block, then memory nothing wrote a header
 * in: three parts whose counts add up to the region's. */
static void test_split(void **state)
{
	(void)state;
	const uint64_t a = 0x7f2000000000, end = a + MiB + 0x201000 + 0x40000;
	struct text t;
	struct image i;
	struct run run;
	/* resident: the arena's first 40 pages, the whole block, 16 pages of the rest */
	const uint64_t rss = 40 * PAGE + 0x201000 + 16 * PAGE;

	FILE *f = text_open(&t);
	put_region(f, 0x400000, 0x401000, "r-xp", "/usr/bin/python3.11", PAGE, 0, "rd ex mr mw me ");
	put_region(f, a, end, "rw-p", NULL, rss, rss, NULL);
	image_open(&i);
	image_pages(&i, "resident", a, a + 40 * PAGE);
	image_pages(&i, "resident", a + MiB, a + MiB + 0x201000 + 16 * PAGE);
	image_pool(&i, a, 9);
	image_pool(&i, a + 16 * KiB, 9);
	image_chunk(&i, a + MiB, 0x201000);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.res.split, 1);
	assert_int_equal(run.p.n, 4);
	assert_class(&run.p, a, "python", "pymalloc_pools");
	assert_class(&run.p, a + MiB, "malloc", "glibc_mmap_chunks");
	assert_class(&run.p, a + MiB + 0x201000, "other", "anonymous");
	const struct region *arena = region_at(&run.p, a), *block = region_at(&run.p, a + MiB),
			    *rest = region_at(&run.p, a + MiB + 0x201000);
	assert_true(arena->part && block->part && rest->part);
	assert_int_equal(arena->end, a + MiB);
	assert_int_equal(block->end, a + MiB + 0x201000);
	assert_int_equal(rest->end, end);
	assert_int_equal(region_resident(arena), 40 * PAGE);
	assert_int_equal(region_resident(block), 0x201000);
	assert_int_equal(region_resident(rest), 16 * PAGE);
	/* conservation: the parts add up to the region, to the byte */
	assert_int_equal(sum_of(&run.p, COUNT_RSS), rss + PAGE);
	assert_int_equal(sum_of(&run.p, COUNT_ANONYMOUS), rss);
	assert_int_equal(sum_of(&run.p, COUNT_PSS), rss + PAGE);
	assert_non_null(strstr(arena->evidence, "a pymalloc arena"));
	assert_non_null(strstr(arena->evidence, "part 1 of 3"));
	assert_non_null(strstr(rest->evidence, "no allocator's header"));
	run_done(&run);
}

/* A block whose header page is in swap is not read (it would be swapped
 * in); the walk goes on at the next header it finds, within the search's
 * RW_EVIDENCE_SEARCH_PAGES (blocks of 132 KiB here). */
static void test_swapped_header(void **state)
{
	(void)state;
	const uint64_t a = 0x7f3000000000;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + 2 * 0x21000, "rw-p", NULL, 0x21000 + 0x20000, 0x21000 + 0x20000, NULL);
	image_open(&i);
	image_pages(&i, "swapped", a, a + PAGE);
	image_pages(&i, "resident", a + PAGE, a + 2 * 0x21000);
	image_chunk(&i, a + 0x21000, 0x21000);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	/* the swapped page was never asked for; the second block was found */
	assert_int_equal(run.res.split, 1);
	assert_class(&run.p, a, "other", "anonymous");
	assert_class(&run.p, a + 0x21000, "malloc", "glibc_mmap_chunks");
	run_done(&run);
}

/* numpy's madvise splits an array's mapping: its chunk header is a region
 * of its own, the array the next; the walk reads across. */
static void test_split_mapping(void **state)
{
	(void)state;
	const uint64_t a = 0x7f4000000000;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + PAGE, "rw-p", NULL, PAGE, PAGE, NULL);
	put_region(f, a + PAGE, a + PAGE + 8 * MiB, "rw-p", NULL, 8 * MiB, 8 * MiB, "rd wr mr mw me ac hg ");
	image_open(&i);
	image_pages(&i, "resident", a, a + PAGE + 8 * MiB);
	image_chunk(&i, a, PAGE + 8 * MiB);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.p.n, 2);
	assert_class(&run.p, a, "malloc", "glibc_mmap_chunks");
	assert_class(&run.p, a + PAGE, "malloc", "glibc_mmap_chunks");
	run_done(&run);
}

/* The read limit: past it the regions left keep their shape and the
 * result says so; below it every block is found. */
static void test_read_limit(void **state)
{
	(void)state;
	const uint64_t a = 0x7f5000000000, blocks = RW_EVIDENCE_READS_MAX + 10;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + blocks * PAGE, "rw-p", NULL, blocks * PAGE, blocks * PAGE, NULL);
	image_open(&i);
	image_pages(&i, "resident", a, a + blocks * PAGE);
	for (uint64_t k = 0; k < blocks; k++)
		image_chunk(&i, a + k * PAGE, PAGE);
	char *smaps = text_close(&t), *image = text_close(&i.t);
	char *smaps2 = strdup(smaps), *image2 = strdup(image);

	run_pass(&run, smaps, image, 0);
	assert_int_equal(run.r, 0);
	assert_true(run.res.exhausted);
	/* a round of reads is taken whole or not at all: the last may stop short */
	assert_true(run.res.reads <= RW_EVIDENCE_READS_MAX && run.res.reads > RW_EVIDENCE_READS_MAX - 64);
	assert_non_null(strstr(run.res.why_not, "read limit"));
	/* split: the blocks read, then the rest, which keeps its shape */
	assert_int_equal(run.p.n, 2);
	assert_class(&run.p, a, "malloc", "glibc_mmap_chunks");
	assert_true(run.p.r[0].end == run.p.r[1].start && run.p.r[0].end >= a + (RW_EVIDENCE_READS_MAX - 64) * PAGE);
	assert_class(&run.p, run.p.r[1].start, "other", "anonymous");
	assert_non_null(strstr(run.p.r[1].evidence, "read limit"));
	run_done(&run);

	run_pass(&run, smaps2, image2, blocks + 1);
	assert_false(run.res.exhausted);
	assert_int_equal(run.p.n, 1);
	assert_class(&run.p, a, "malloc", "glibc_mmap_chunks");
	run_done(&run);
}

/* jemalloc: base blocks read at 2 MiB boundaries; the rest of its memory
 * is its by elimination. */
static void test_jemalloc(void **state)
{
	(void)state;
	const uint64_t a = 0x7f6000000000;
	struct text t;
	struct image i;
	struct run run;
	uint8_t b[40] = { 0 };

	FILE *f = text_open(&t);
	put_region(f, 0x7f5ff0000000, 0x7f5ff0001000, "r-xp", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", PAGE, 0,
		   "rd ex mr mw me ");
	put_region(f, a, a + 8 * MiB, "rw-p", NULL, 8 * MiB, 8 * MiB, NULL);
	image_open(&i);
	image_pages(&i, "resident", a, a + 8 * MiB);
	put_u64(b, 0, 2 * MiB);
	put_u64(b, 16, 0x0e80afff);
	put_u64(b, 24, a + 4 * MiB + 0x1000);
	put_u64(b, 32, 2 * MiB - 0x1000);
	image_header(&i, a + 4 * MiB, b, 40);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	/* base block and extents are both malloc: one region, which says both */
	assert_int_equal(run.p.n, 2);
	assert_class(&run.p, a, "malloc", "jemalloc_extents");
	assert_non_null(strstr(run.p.r[1].evidence, "2.00 MiB in 1 jemalloc base block"));
	assert_non_null(strstr(run.p.r[1].evidence, "6.00 MiB of jemalloc's extents (by elimination"));
	/* extents are by elimination: not confirmed */
	assert_int_equal(classify_rule(region_at(&run.p, a)->rule)->basis, BASIS_SHAPE);
	/* one read per 2 MiB boundary, no page by page search */
	assert_true(run.res.reads <= 4);
	run_done(&run);
}

/* jemalloc built into the program (no libjemalloc mapped): a base block at
 * a boundary shows it, and its rules apply. */
static void test_jemalloc_built_in(void **state)
{
	(void)state;
	const uint64_t a = 0x7f6100000000;
	struct text t;
	struct image i;
	struct run run;
	uint8_t b[40] = { 0 };

	FILE *f = text_open(&t);
	put_region(f, 0x555500000000, 0x555500001000, "r-xp", "/usr/bin/redis-server", PAGE, 0, "rd ex mr mw me ");
	put_region(f, a, a + 8 * MiB, "rw-p", NULL, 8 * MiB, 8 * MiB, NULL);
	image_open(&i);
	put_u64(b, 0, 2 * MiB);
	put_u64(b, 16, 0x0e80afff);
	put_u64(b, 24, a + 0x1000);
	put_u64(b, 32, 2 * MiB - 0x1000);
	image_header(&i, a, b, 40);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.p.n, 2);
	assert_class(&run.p, a, "malloc", "jemalloc_extents");
	assert_non_null(strstr(run.p.r[1].evidence, "in 1 jemalloc base block"));
	run_done(&run);
}

/* The search for a header past an unknown stretch: page by page for
 * RW_EVIDENCE_SEARCH_PAGES, then the first page of RW_EVIDENCE_SEARCH_RUNS
 * runs of resident pages, then it stops.  Every other page resident (one
 * run each), a glibc block's header on the run just within the bounds is
 * found, on the run just past them it is not, and the rest says why. */
static void search_bounds(uint64_t header_run, bool found_it)
{
	const uint64_t a = 0x7f6200000000, runs = 100, size = 2 * runs * PAGE;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + size, "rw-p", NULL, runs * PAGE, runs * PAGE, NULL);
	image_open(&i);
	for (uint64_t k = 0; k < runs; k++)
		image_pages(&i, "resident", a + 2 * k * PAGE, a + (2 * k + 1) * PAGE);
	image_chunk(&i, a + 2 * header_run * PAGE, size - 2 * header_run * PAGE);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	if (found_it) {
		assert_int_equal(run.p.n, 2);
		assert_class(&run.p, a + 2 * header_run * PAGE, "malloc", "glibc_mmap_chunks");
	} else {
		assert_int_equal(run.p.n, 1);
		assert_class(&run.p, a, "other", "anonymous");
		assert_non_null(strstr(run.p.r[0].evidence, "the search stopped"));
	}
	run_done(&run);
}

static void test_search_bounds(void **state)
{
	(void)state;
	/* run 0 is the region's start, read as a boundary, not searched */
	const uint64_t last = RW_EVIDENCE_SEARCH_PAGES + RW_EVIDENCE_SEARCH_RUNS;
	search_bounds(last, true);
	search_bounds(last + 1, false);
}

/* A region that is not resident at all is not read, and says so; a run of
 * regions too small for any allocator's block is not looked at. */
static void test_nothing_to_read(void **state)
{
	(void)state;
	const uint64_t a = 0x7f7000000000;
	struct text t;
	struct image i;
	struct run run;

	FILE *f = text_open(&t);
	put_region(f, a, a + 4 * MiB, "rw-p", NULL, 0, 0, NULL);
	put_region(f, a + 8 * MiB, a + 8 * MiB + 2 * PAGE, "rw-p", NULL, 2 * PAGE, 2 * PAGE, NULL);
	image_open(&i);
	image_pages(&i, "resident", a + 8 * MiB, a + 8 * MiB + 2 * PAGE);
	image_chunk(&i, a + 8 * MiB, 2 * PAGE);
	run_pass(&run, text_close(&t), text_close(&i.t), 0);
	assert_int_equal(run.r, 0);
	assert_int_equal(run.res.reads, 0);
	assert_class(&run.p, a + 8 * MiB, "other", "anonymous");
	assert_null(region_at(&run.p, a + 8 * MiB)->evidence);
	run_done(&run);
}

/* Captured processes: smaps, status and the memory image a live census
 * saved (tests/data/README.md says what ran).  Taken again from the files,
 * the census finds what the live one did. */
static void check_captured(const char *name, const char *const *rules, size_t n_rules)
{
	struct scan_options o = { .keep_regions = true };
	struct census *c = capture_census(name, NULL, &o);
	assert_true(c->evidence.taken);
	/* other under 10 % of private memory (under 1 % here) */
	uint64_t private = c->totals.private;
	if (c->classes[CLASS_OTHER].private * 100 >= private)
		fail_msg("%s: other holds %llu of %llu", name, (unsigned long long)c->classes[CLASS_OTHER].private,
			 (unsigned long long)private);
	/* conservation: classes add up to the totals, the totals to the kernel's counters */
	struct census_totals sum;
	census_class_sum(c, &sum);
	assert_int_equal(sum.private, c->totals.private);
	assert_int_equal(sum.resident, c->totals.resident);
	assert_int_equal(c->totals.private, census_private(c));
	for (size_t k = 0; k < n_rules; k++) {
		bool seen = false;
		for (size_t i = 0; i < c->n_regions && !seen; i++)
			seen = c->regions[i].rule && streq(c->regions[i].rule, rules[k]);
		if (!seen)
			fail_msg("%s: no region by %s", name, rules[k]);
	}
	/* every region has a rule and its sentence */
	for (size_t i = 0; i < c->n_regions; i++)
		assert_true(c->regions[i].rule && c->regions[i].why);
	census_free(c);
}

static void test_captured(void **state)
{
	(void)state;
	static const char *const python[] = { "pymalloc_pools", "glibc_mmap_chunks", "glibc_brk_heap" };
	static const char *const node[] = { "glibc_mmap_chunks", "glibc_heap_info", "v8_page" };
	static const char *const jemalloc[] = { "jemalloc_extents" };
	check_captured("python3-blocks", python, ELEMENTSOF(python));
	check_captured("node20-buffers", node, ELEMENTSOF(node));
	check_captured("c-jemalloc", jemalloc, ELEMENTSOF(jemalloc));
}

/* A process whose memory may not be read (Yama's ptrace_scope, or no
 * CAP_SYS_PTRACE for another user's process): process_vm_readv answers
 * EPERM.  The shapes stand, and the result says why.  (A source stands in
 * for the kernel here: this machine has no Yama to refuse.) */
static int refuse_residency(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			    struct page_runs *runs, uint64_t *ret_end)
{
	(void)self, (void)max_pages, (void)present_only;
	*ret_end = end;
	return page_runs_add(runs, start, end, PAGE_RESIDENT);
}

static int refuse_read(void *self, struct mem_probe *probes, size_t n)
{
	(void)self, (void)probes, (void)n;
	return -EPERM;
}

static void test_refused(void **state)
{
	(void)state;
	static const struct memsource_ops refusing = { .residency = refuse_residency, .read = refuse_read };
	const uint64_t a = 0x7f8000000000;
	struct text t;
	FILE *f = text_open(&t);
	put_region(f, a, a + 4 * MiB, "rw-p", NULL, 4 * MiB, 4 * MiB, NULL);
	char *smaps = text_close(&t);
	struct parsed p = classify_text(smaps, NULL);
	struct memsource src = { .ops = &refusing, .max_probes = 100 };
	struct evidence_result res;
	struct strpool *pool = strpool_new();

	assert_int_equal(evidence_apply(&src, &p.r, &p.n, RW_REGIONS_MAX, pool, &res), -EPERM);
	assert_false(res.taken);
	assert_non_null(strstr(res.why_not, "ptrace"));
	assert_class(&p, a, "other", "anonymous");
	assert_null(p.r[0].evidence);
	strpool_free(pool);
	parsed_free(&p);
	free(smaps);
}

/* Every owner the walks find gives its memory a rule, one of its own: an
 * owner left out of evidence-split.c's table would give rule 0, a stack's
 * guard page.  And ramwatch(1) describes each of those rules under
 * EVIDENCE. */
static void test_every_owner_has_a_rule(void **state)
{
	(void)state;
	char *man = man_section("ramwatch.1", ".Sh EVIDENCE", ".Sh ");
	assert_int_equal(evidence_owner_rule(OWNER_NONE), -1);
	assert_int_equal(evidence_owner_rule(_OWNER_MAX), -1);
	for (int o = OWNER_NONE + 1; o < _OWNER_MAX; o++) {
		int rule = evidence_owner_rule((enum owner)o);
		if (rule < 0)
			fail_msg("owner %d has no rule: its row in owner_rules[] (scanner/evidence-split.c)", o);
		const struct classify_rule_info *info = classify_rule((size_t)rule);
		if (!info || !info->key)
			fail_msg("owner %d: its rule %d has no row in the classifier's rules[] (scanner/classify.c)", o, rule);
		if (info->cls < 0)
			fail_msg("owner %d: rule %s gives no class", o, info->key);
		for (int p = OWNER_NONE + 1; p < o; p++)
			if (evidence_owner_rule((enum owner)p) == rule)
				fail_msg("owners %d and %d share the rule %s", p, o, info->key);
		/* what a user reads of it */
		if (!man_names(man, info->key))
			fail_msg("owner %d: ramwatch(1), EVIDENCE, does not describe its rule %s", o, info->key);
	}
	free(man);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_owner_has_a_rule),
		cmocka_unit_test(test_merged_blocks),
		cmocka_unit_test(test_boundaries_asked_together),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_swapped_header),
		cmocka_unit_test(test_split_mapping),
		cmocka_unit_test(test_read_limit),
		cmocka_unit_test(test_jemalloc),
		cmocka_unit_test(test_jemalloc_built_in),
		cmocka_unit_test(test_search_bounds),
		cmocka_unit_test(test_nothing_to_read),
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
