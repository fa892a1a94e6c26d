/* The jemalloc walker (heap-jemalloc.c): its size classes, its version
 * strings, and walks of captured processes
 * (tests/data/memimage/c-jemalloc-heap and c-jemalloc-static,
 * tests/data/README.md says what ran) whose figures match what jemalloc's
 * mallctl said in the process at the capture; then the same images read
 * through a source that changes what the process's memory says, as a
 * program that moves its heap under the reader does: a walk that does
 * not check out is read again, then unknown with the reason, never a
 * wrong figure. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "census.h"
#include "evidence.h"
#include "heap-jemalloc.h"
#include "heap-walkers.h"
#include "limits.h"
#include "memimage.h"
#include "scan.h"
#include "fileio.h"
#include "util.h"

#include "test-heap-lib.h"

#define PAGE 4096ull

/* ------------------------------------------------------------ pure parts */

/* The classes of Debian's build, as jemalloc(3)'s table of size classes
 * lists them, and the slabs malloc_stats_print shows (regs, pgs). */
static void test_size_classes(void **state)
{
	(void)state;
	struct jemalloc_classes c;

	assert_int_equal(jemalloc_size_classes(4, 12, &c), 0);
	assert_int_equal(c.n, 232);
	assert_int_equal(c.nbins, 36);
	static const uint64_t small[] = { 8, 16, 32, 48, 64, 80, 96, 112, 128, 160 };
	for (size_t i = 0; i < ELEMENTSOF(small); i++)
		assert_int_equal(c.size[i], small[i]);
	assert_int_equal(c.size[35], 14336);     /* the largest small class */
	assert_int_equal(c.size[36], 16 * 1024); /* the first large */
	assert_int_equal(c.size[40], 32 * 1024);
	assert_int_equal(c.size[231], (1ull << 62) + (3ull << 60));
	assert_int_equal(c.slab_pages[0], 1);  /* 512 regions of 8 */
	assert_int_equal(c.slab_pages[3], 3);  /* 256 of 48 */
	assert_int_equal(c.slab_pages[35], 7); /* 2 of 14336 */
	/* redis's build: 8-byte quantum, no tiny class */
	assert_int_equal(jemalloc_size_classes(3, 12, &c), 0);
	assert_int_equal(c.n, 235);
	assert_int_equal(c.nbins, 39);
	assert_int_equal(c.size[2], 24);
	assert_int_equal(c.slab_pages[2], 3);
	/* settings no build has */
	assert_int_equal(jemalloc_size_classes(2, 12, &c), -EINVAL);
	assert_int_equal(jemalloc_size_classes(5, 12, &c), -EINVAL);
	assert_int_equal(jemalloc_size_classes(4, 11, &c), -EINVAL);
	assert_int_equal(jemalloc_size_classes(4, 17, &c), -EINVAL);
}

static int find(const char *bytes, size_t len, struct jemalloc_version *v)
{
	memset(v, 0, sizeof(*v));
	return jemalloc_version_find((const uint8_t *)bytes, len, v);
}

static void test_version(void **state)
{
	(void)state;
	struct jemalloc_version v;
	/* Debian's, amid other strings of .rodata */
	static const char debian[] = "<jemalloc>: %s\0" "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\0" "x";
	assert_int_equal(find(debian, sizeof(debian), &v), 1);
	assert_int_equal(v.major, 5);
	assert_int_equal(v.minor, 3);
	assert_int_equal(v.bugfix, 0);
	assert_string_equal(v.text, "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c");
	/* as redis builds its own (--with-version=5.3.0-0-g0), at the start */
	static const char redis[] = "5.3.0-0-g0\0";
	assert_int_equal(find(redis, sizeof(redis), &v), 1);
	assert_int_equal(v.minor, 3);
	static const char older[] = "\0" "5.2.1-0-gea6b3e973b477b8061e0076bb257dbd7f3faa756\0";
	assert_int_equal(find(older, sizeof(older), &v), 1);
	assert_int_equal(v.minor, 2);
	assert_int_equal(v.bugfix, 1);
	/* not a version: inside another string, no NUL after it, a word
	 * that is not hex, 41 hex digits, a part missing */
	static const char inside[] = "\0v5.3.0-0-g0\0";
	static const char unended[] = "\0" "5.3.0-0-g0abc";
	static const char not_hex[] = "\0" "5.3.0-0-gxyz\0";
	static const char too_long[] = "\0" "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c0\0";
	static const char no_bugfix[] = "\0" "5.3-0-g0\0";
	assert_int_equal(find(inside, sizeof(inside), &v), 0);
	assert_int_equal(find(unended, sizeof(unended) - 1, &v), 0);
	assert_int_equal(find(not_hex, sizeof(not_hex), &v), 0);
	assert_int_equal(find(too_long, sizeof(too_long), &v), 0);
	assert_int_equal(find(no_bugfix, sizeof(no_bugfix), &v), 0);
	assert_int_equal(find("", 0, &v), 0);
}

/* ------------------------------------------------------------ captured processes */

/* What jemalloc said in the captured processes (mallctl after "epoch",
 * read by the helper just before and after the census that saved the
 * image, the same both times). */
struct captured {
	const char *name;
	uint64_t allocated, active, pdirty, pmuzzy;
};

static const struct captured captures[] = {
	{ "c-jemalloc-heap", 4834304, 4980736, 1178, 0 },
	{ "c-jemalloc-static", 4752384, 4894720, 1178, 0 },
};

/* Within 3 % or 2 MiB: memory never written counts nowhere in a census,
 * and jemalloc counts regions its thread caches took but never handed
 * out as allocated. */
static void assert_near(uint64_t got, uint64_t want, const char *what, const char *name)
{
	uint64_t diff = got > want ? got - want : want - got, slack = want * 3 / 100;
	if (diff > (slack > 2 * MiB ? slack : 2 * MiB))
		fail_msg("%s: %s %" PRIu64 ", jemalloc says %" PRIu64, name, what, got, want);
}

static bool known(const struct census *c, enum census_counter counter)
{
	return !(c->unknown_classes[CLASS_MALLOC] & (1u << counter));
}

/* A census of a saved capture with its memory image says what mallctl
 * said in the process: in use stats.allocated, free stats.active less
 * stats.allocated plus the dirty and muzzy pages. */
static void test_captured(void **state)
{
	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(captures); i++) {
		const struct captured *k = &captures[i];
		struct scan_options o = { 0 };
		struct census *c = capture_census(k->name, NULL, &o);
		const struct census_totals *m = &c->classes[CLASS_MALLOC];

		assert_true(known(c, CENSUS_COUNTER_in_use));
		assert_non_null(c->how[CLASS_MALLOC]);
		if (!startswith(c->how[CLASS_MALLOC], "jemalloc 5.3.0: "))
			fail_msg("%s: %s", k->name, c->how[CLASS_MALLOC]);
		assert_near(m->in_use, k->allocated, "in use", k->name);
		assert_near(m->free_kept, k->active - k->allocated + (k->pdirty + k->pmuzzy) * PAGE, "free", k->name);
		assert_int_equal(m->unknown, 0);
		assert_class_adds_up(c, CLASS_MALLOC);
		/* the dirty pages, whole, are what jemalloc could give back */
		assert_near(m->returnable, k->pdirty * PAGE, "returnable", k->name);
		/* its metadata (base blocks) is overhead, and there is some */
		assert_true(m->overhead > 0);
		census_free(c);
	}
}

/* A small jemalloc 5.3.0 process laid out by hand, byte for byte
 * (tests/data/make-jemalloc-image.py): two slabs, a large extent, a dirty
 * one, a retained one; the walk finds what the script says, to the byte. */
static void test_synthetic(void **state)
{
	(void)state;
	struct scan_options o = { 0 };
	struct census *c = capture_census("synthetic-jemalloc", NULL, &o);
	const struct census_totals *m = &c->classes[CLASS_MALLOC];

	assert_string_equal(c->how[CLASS_MALLOC], "jemalloc 5.3.0: 5 extents, 2 slabs, 1 large, 1 dirty or muzzy");
	assert_int_equal(m->in_use, 28 * 32 + 200 * 48 + 16384);
	assert_int_equal(m->free_kept, (PAGE - 28 * 32) + (3 * PAGE - 200 * 48) + PAGE + 3 * PAGE);
	assert_int_equal(m->returnable, 3 * PAGE);
	/* the base block's two pages: its header and the map's leaf, the
	 * extents' records */
	assert_int_equal(m->overhead, 2 * PAGE);
	assert_int_equal(m->unknown, 0);
	assert_int_equal(m->private, 14 * PAGE);
	census_free(c);
}

/* ------------------------------------------------------------ a heap that moves */

/* The walker run on a captured process's regions, through a source that
 * may change what is read: tamper(probe, count) is called on each probe
 * read, count the probes of that length read so far. */
struct tampered {
	struct memsource inner;
	void (*tamper)(struct mem_probe *p, unsigned count, void *arg);
	void *arg;
	unsigned counts[2]; /* of pages, of extent records */
	/* the pages of this file, in memory, are said to be file_state:
	 * PAGE_FILE as the classic pagemap tells them, PAGE_ABSENT where the
	 * page tables do not map them */
	const char *file;
	enum page_state file_state;
	struct walked *x;
	/* the process whose root the file is read through (0: none) */
	int pid;
};

/* The region of the walked capture holding addr, or NULL. */
static const struct region *region_holding(const struct walked *x, uint64_t addr);

static int t_residency(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
		       struct page_runs *runs, uint64_t *ret_end)
{
	struct tampered *t = self;
	size_t before = runs->n;
	int r = t->inner.ops->residency(t->inner.self, start, end, max_pages, present_only, runs, ret_end);
	for (size_t i = before; t->file && r == 0 && i < runs->n; i++) {
		const struct region *m = region_holding(t->x, runs->v[i].start);
		if (m && m->path && streq(m->path, t->file) && runs->v[i].state == PAGE_RESIDENT)
			runs->v[i].state = t->file_state;
	}
	return r;
}

static int t_present(void *self, const uint64_t *pages, size_t n, bool *in_memory)
{
	struct tampered *t = self;
	return t->inner.ops->present ? t->inner.ops->present(t->inner.self, pages, n, in_memory) : -EOPNOTSUPP;
}

static int t_read(void *self, struct mem_probe *probes, size_t n)
{
	struct tampered *t = self;
	int r = t->inner.ops->read(t->inner.self, probes, n);
	for (size_t i = 0; i < n && r == 0; i++) {
		if (!probes[i].got)
			continue;
		unsigned count = t->counts[probes[i].got == PAGE ? 0 : 1]++;
		if (t->tamper)
			t->tamper(&probes[i], count, t->arg);
	}
	return r;
}

static const struct memsource_ops tampered_ops = { .residency = t_residency, .present = t_present, .read = t_read };

struct walked {
	struct capture c;
	struct heap_walk w;
	struct heap_figures f[_CLASS_MAX];
	int r;
};

/* Classifies the capture, reads evidence from its image, then walks
 * jemalloc's heap through the tampered source within limits. */
static void walk_image(struct walked *x, const char *name, const char *image_name, struct tampered *t,
		       const struct heap_limits *limits)
{
	struct parsed *p = &x->c.p;

	memset(x, 0, sizeof(*x));
	capture_open_image(&x->c, name, image_name);
	memimage_source(x->c.img, &t->inner);
	t->x = x;
	if (t->file) {
		/* the file on this machine stands for the one captured */
		struct stat st;
		assert_int_equal(stat(t->file, &st), 0);
		for (size_t i = 0; i < p->n; i++)
			if (p->r[i].path && streq(p->r[i].path, t->file)) {
				p->r[i].inode = st.st_ino;
				p->r[i].dev_major = major(st.st_dev);
				p->r[i].dev_minor = minor(st.st_dev);
			}
	}
	struct memsource tsrc = { .ops = &tampered_ops, .self = t, .max_probes = UINT64_MAX };
	struct heap_walk_input in = {
		.src = &tsrc, .regions = p->r, .n_regions = p->n, .limits = limits, .pid = t->pid,
	};
	x->r = heap_walk_jemalloc(&in, &x->w);
	heap_figures_compute(&x->w, 1, p->r, p->n, x->c.class_private, x->f);
}

static void walk(struct walked *x, const char *name, struct tampered *t, const struct heap_limits *limits)
{
	char image[300];
	snprintf(image, sizeof(image), "memimage/%s.img", name);
	walk_image(x, name, image, t, limits);
}

static const struct region *region_holding(const struct walked *x, uint64_t addr)
{
	for (size_t i = 0; i < x->c.p.n; i++)
		if (x->c.p.r[i].start <= addr && addr < x->c.p.r[i].end)
			return &x->c.p.r[i];
	return NULL;
}

static void walked_done(struct walked *x)
{
	heap_walk_done(&x->w);
	capture_close(&x->c);
}

static const struct heap_limits no_limits = { .retries = RW_HEAP_RETRIES };

/* The same process, corrupted as a heap read while it changes, or broken,
 * may be (the seeds of tests/fuzz/fuzz-heap.c): unknown, with the reason,
 * and the sum stands. */
static void test_corrupted(void **state)
{
	(void)state;
	static const struct {
		const char *seed, *why;
	} cases[] = {
		{ "jemalloc-wild-size",
		  "jemalloc 5.3.0: an extent at 0x7f0040004000 of 140737488351232 bytes is not all mapped, 4 tries" },
		{ "jemalloc-record-out",
		  "jemalloc 5.3.0: an extent record at 0x100000000080 is not in jemalloc's memory, 4 tries" },
		{ "jemalloc-overlap",
		  "jemalloc 5.3.0: the map names an extent for 0x7f0040008000 that does not hold it, 4 tries" },
		{ "jemalloc-root-self", "jemalloc 5.3.0: its extent map was not found in the data of libjemalloc.so.2" },
		{ "jemalloc-bitmap", "jemalloc 5.3.0: a slab at 0x7f0040001000 counts 57 free regions, its bitmap 56, 4 tries" },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char image[300];
		struct walked x;
		struct tampered t = { 0 };
		snprintf(image, sizeof(image), "fuzz/heap/%s.img", cases[i].seed);
		walk_image(&x, "synthetic-jemalloc", image, &t, &no_limits);
		assert_int_equal(x.r, 0);
		assert_true(x.w.failed);
		if (!streq(x.w.why_not, cases[i].why))
			fail_msg("%s: %s", cases[i].seed, x.w.why_not);
		assert_int_equal(x.f[CLASS_MALLOC].unknown, x.c.class_private[CLASS_MALLOC]);
		walked_done(&x);
	}
}

/* Every slab's record read says one region more or one fewer is free
 * than its count of free regions does. */
static void wrong_bitmap(struct mem_probe *p, unsigned count, void *arg)
{
	(void)count, (void)arg;
	uint64_t bits;
	if (p->got != 128)
		return;
	memcpy(&bits, p->buf, 8);
	/* a slab in use: the slab bit (12) set, the state (17-19) active */
	if (((bits >> 12) & 1) && ((bits >> 17) & 7) == 0)
		p->buf[64] ^= 1;
}

/* Every read of the slabs disagrees with itself: after its retries the
 * walk is unknown, with the reason, and the sum stands. */
static void test_moving_every_time(void **state)
{
	(void)state;
	struct walked x;
	struct tampered t = { .tamper = wrong_bitmap };

	walk(&x, "c-jemalloc-heap", &t, &no_limits);
	assert_int_equal(x.r, 0);
	assert_true(x.w.failed);
	if (!strstr(x.w.why_not, "free regions") || !strstr(x.w.why_not, "4 tries"))
		fail_msg("%s", x.w.why_not);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(f, x.c.class_private[CLASS_MALLOC]);
	assert_int_equal(f->in_use, 0);
	assert_int_equal(f->free, 0);
	assert_true(f->unknown > 0);
	assert_string_equal(f->how, x.w.why_not);
	walked_done(&x);
}

/* One word of the map changed between the first read of its leaves and
 * the second (a page read count times before it): the walk is read again
 * and the second checks out, with the figures of a walk that saw no
 * change. */
static void change_a_leaf_once(struct mem_probe *p, unsigned count, void *arg)
{
	unsigned *at = arg;
	if (p->got == PAGE && count == *at) {
		p->buf[8] ^= 0x40;
		*at = UINT32_MAX;
	}
}

static void test_moving_once(void **state)
{
	(void)state;
	struct walked quiet, moved;
	struct tampered t0 = { 0 };

	walk(&quiet, "c-jemalloc-heap", &t0, &no_limits);
	assert_false(quiet.w.failed);
	/* the last page a walk reads is a leaf, read again to check that
	 * the map did not move */
	assert_true(t0.counts[0] > 0);
	unsigned at = t0.counts[0] - 1;
	struct tampered t1 = { .tamper = change_a_leaf_once, .arg = &at };
	walk(&moved, "c-jemalloc-heap", &t1, &no_limits);
	assert_int_equal(moved.r, 0);
	assert_int_equal(at, UINT32_MAX); /* it was changed */
	assert_false(moved.w.failed);
	assert_int_equal(moved.f[CLASS_MALLOC].in_use, quiet.f[CLASS_MALLOC].in_use);
	assert_int_equal(moved.f[CLASS_MALLOC].free, quiet.f[CLASS_MALLOC].free);
	assert_string_equal(moved.w.how, quiet.w.how);
	/* it was read twice */
	if (moved.w.bytes_read <= quiet.w.bytes_read)
		fail_msg("read %" PRIu64 " bytes, %" PRIu64 " without the change", moved.w.bytes_read, quiet.w.bytes_read);
	walked_done(&quiet);
	walked_done(&moved);
}

/* Another version's string: no layout of it is known, and the walk says
 * so rather than guess. */
static void other_version(struct mem_probe *p, unsigned count, void *arg)
{
	(void)count, (void)arg;
	char *s = memmem(p->buf, p->got, "5.3.0-0-g", 9);
	if (s)
		memcpy(s, "5.2.1", 5);
}

static void test_unknown_version(void **state)
{
	(void)state;
	struct walked x;
	struct tampered t = { .tamper = other_version };

	walk(&x, "c-jemalloc-heap", &t, &no_limits);
	assert_int_equal(x.r, 0);
	assert_true(x.w.failed);
	assert_string_equal(x.w.why_not,
			    "jemalloc 5.2.1: no layout of this version is known (5.2.1-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c)");
	/* its regions are unknown, all of them */
	assert_int_equal(x.f[CLASS_MALLOC].unknown, x.c.class_private[CLASS_MALLOC]);
	walked_done(&x);
}

/* Where the version string's page is not mapped in the process's page
 * tables, it is read from the library's file as the process sees it
 * (/proc/PID/root), where it is the file mapped (device and inode); a
 * file's page the page tables map is read as the process's own (the
 * classic pagemap, before Linux 6.7, tells them apart).  The library on
 * this machine stands in for the captured process's; skipped where it is
 * not jemalloc 5.3.0. */
static void test_version_from_the_file(void **state)
{
	(void)state;
	static const char lib[] = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
	struct walked plain, x;
	struct tampered t0 = { 0 };
	_cleanup_free_ char *bytes = NULL;
	struct jemalloc_version v;
	size_t len;

	if (read_full_fileat(AT_FDCWD, lib, 64 * MiB, &bytes, &len) < 0 ||
	    !jemalloc_version_find((const uint8_t *)bytes, len, &v) || v.major != 5 || v.minor != 3 || v.bugfix != 0) {
		skip();
		return;
	}
	walk(&plain, "c-jemalloc-heap", &t0, &no_limits);
	assert_false(plain.w.failed);

	struct tampered t = { .file = lib, .file_state = PAGE_ABSENT, .pid = getpid() };
	walk(&x, "c-jemalloc-heap", &t, &no_limits);
	assert_false(x.w.failed);
	assert_string_equal(x.w.how, plain.w.how);
	assert_int_equal(x.f[CLASS_MALLOC].in_use, plain.f[CLASS_MALLOC].in_use);
	walked_done(&x);

	struct tampered classic = { .file = lib, .file_state = PAGE_FILE };
	walk(&x, "c-jemalloc-heap", &classic, &no_limits);
	assert_false(x.w.failed);
	assert_string_equal(x.w.how, plain.w.how);
	walked_done(&x);

	/* no process to read the file through (a saved capture): unknown,
	 * and why */
	struct tampered none = { .file = lib, .file_state = PAGE_ABSENT };
	walk(&x, "c-jemalloc-heap", &none, &no_limits);
	assert_true(x.w.failed);
	assert_string_equal(x.w.why_not, "jemalloc: its version string was not found in libjemalloc.so.2");
	walked_done(&x);
	walked_done(&plain);
}

/* Past the bytes the walk may read, and past its deadline: unknown, with
 * the reason, and what it read counted. */
static void test_limits(void **state)
{
	(void)state;
	struct walked x;
	struct tampered t = { 0 };
	struct heap_limits small = { .max_bytes = 64 * 1024, .retries = RW_HEAP_RETRIES };

	walk(&x, "c-jemalloc-heap", &t, &small);
	assert_int_equal(x.r, 0);
	assert_true(x.w.failed);
	assert_non_null(strstr(x.w.why_not, "the read limit (64.0 KiB) was reached"));
	assert_true(x.w.bytes_read <= small.max_bytes);
	assert_int_equal(x.f[CLASS_MALLOC].unknown, x.c.class_private[CLASS_MALLOC]);
	walked_done(&x);

	struct heap_limits late = { .deadline_us = 1, .retries = RW_HEAP_RETRIES };
	walk(&x, "c-jemalloc-heap", &t, &late);
	assert_true(x.w.failed);
	assert_non_null(strstr(x.w.why_not, "out of time"));
	walked_done(&x);
}

/* A process whose malloc is glibc's: nothing of jemalloc's, nothing read. */
static void test_not_jemalloc(void **state)
{
	(void)state;
	struct walked x;
	struct tampered t = { 0 };

	walk(&x, "python3-blocks", &t, &no_limits);
	assert_int_equal(x.r, 0);
	assert_int_equal(x.w.n_covers, 0);
	assert_int_equal(x.w.bytes_read, 0);
	assert_false(x.f[CLASS_MALLOC].known);
	walked_done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_classes),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_corrupted),
		cmocka_unit_test(test_moving_every_time),
		cmocka_unit_test(test_moving_once),
		cmocka_unit_test(test_unknown_version),
		cmocka_unit_test(test_version_from_the_file),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_not_jemalloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
