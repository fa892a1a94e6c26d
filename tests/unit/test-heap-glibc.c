/* The glibc heap walker (heap-glibc.c, heap-glibc-chunks.c) on memory
 * images.  A process laid out by hand (tests/data/make-glibc-image.py)
 * walks to the byte, and its corrupted copies (a fastbin that loops, a
 * wild size, a link out of bounds, heaps or arenas that loop) are unknown
 * with the reason.  A captured process: tests/data/memimage/c-glibc-heap (tests/data/README.md says
 * what ran), taken again from its smaps, status and memory image, gives
 * the figures the live census gave; the byte limit stops the walk with
 * what it did not reach unknown; what does not check out (a chunk's size
 * rewritten, a version no layout is known for, an image without libc's
 * data) is unknown, with the reason. */
#include "testlib.h"

#include <errno.h>
#include <inttypes.h>

#include "census.h"
#include "classes.h"
#include "limits.h"
#include "scan.h"
#include "util.h"

#include "test-heap-lib.h"

#define NAME "c-glibc-heap"
/* what a walk that never checks out says: its tries, RW_HEAP_RETRIES more than one */
#define TRIES "4 tries"
_Static_assert(RW_HEAP_RETRIES == 3, "TRIES says RW_HEAP_RETRIES + 1");

/* What the live census of the captured process said of its malloc class. */
#define LIVE_PRIVATE 1183744
#define LIVE_IN_USE 1131856
#define LIVE_FREE 49632
#define LIVE_OVERHEAD 2256
#define LIVE_RETURNABLE 8192
#define LIVE_HOW "glibc 2.36: 2 arenas (2 heaps), 314 chunks, 28 in fastbins; tcache counted in use; 2 mmapped blocks (1.51 MiB)"
/* where it was: its brk heap, its first chunk's size field, the page
 * holding the end of libc's banner ("2.36.\n" at its fifth byte) */
#define HEAP_START 0x5611200b7000ull
#define BANNER_END_PAGE 0x7ff5b8b10000ull

/* The census of the capture, with image standing for its memory image
 * (NULL: the captured one). */
static struct census *take(const char *image, uint64_t max_bytes)
{
	struct scan_options o = { .heap_max_bytes = max_bytes };
	return capture_census(NAME, image, &o);
}

/* in use + free + overhead + unknown is the class's private bytes, and
 * the totals are the classes' sums */
static const struct census_totals *malloc_of(const struct census *c)
{
	const struct census_totals *k = &c->classes[CLASS_MALLOC];
	assert_false(c->unknown_classes[CLASS_MALLOC] & CENSUS_HEAP_COUNTERS);
	assert_non_null(c->how[CLASS_MALLOC]);
	assert_int_equal(k->private, LIVE_PRIVATE);
	assert_class_adds_up(c, CLASS_MALLOC);
	assert_int_equal(c->totals.in_use, k->in_use);
	assert_int_equal(c->totals.unknown, k->unknown);
	return k;
}

static void test_captured(void **state)
{
	(void)state;
	struct census *c = take(NULL, 0);
	const struct census_totals *k = malloc_of(c);

	assert_int_equal(k->in_use, LIVE_IN_USE);
	assert_int_equal(k->free_kept, LIVE_FREE);
	assert_int_equal(k->overhead, LIVE_OVERHEAD);
	assert_int_equal(k->unknown, 0);
	assert_int_equal(k->returnable, LIVE_RETURNABLE);
	assert_string_equal(c->how[CLASS_MALLOC], LIVE_HOW);
	/* a class no walker knows stays unknown */
	assert_true(c->unknown_classes[CLASS_STACKS] & CENSUS_HEAP_COUNTERS);
	assert_null(c->how[CLASS_STACKS]);
	census_free(c);
}

/* Past the byte limit the walk stops: what it read stands, the rest is
 * unknown and how says so; a limit too low to read glibc's version
 * leaves all of it unknown. */
static void test_byte_limit(void **state)
{
	(void)state;
	bool stopped = false;

	for (uint64_t max = 176 * 1024; max <= 320 * 1024; max += 16 * 1024) {
		struct census *c = take(NULL, max);
		const struct census_totals *k = malloc_of(c);
		if (strstr(c->how[CLASS_MALLOC], "stopped at the byte limit")) {
			assert_true(k->unknown > 0);
			assert_true(k->in_use + k->free_kept < LIVE_IN_USE + LIVE_FREE);
			stopped = true;
		}
		census_free(c);
	}
	assert_true(stopped);

	struct census *c = take(NULL, 8 * 1024);
	const struct census_totals *k = malloc_of(c);
	assert_int_equal(k->unknown, LIVE_PRIVATE);
	assert_non_null(strstr(c->how[CLASS_MALLOC], "the byte limit was reached before"));
	census_free(c);
}

/* Rewrites, in the data record at line (after its address), the bytes
 * at off (old, len bytes) to new_bytes, into f; returns the end of the line. */
static const char *patch_line(FILE *f, const char *line, size_t off, const uint8_t *old, const uint8_t *new_bytes,
			      size_t len)
{
	const char *eol = strchr(line, '\n');
	uint8_t bytes[4096];
	size_t n = 0;

	for (const char *p = line; p < eol; p++) {
		if (*p == ' ')
			continue;
		unsigned v;
		assert_int_equal(sscanf(p, "%2x", &v), 1);
		bytes[n++] = (uint8_t)v;
		p++;
	}
	assert_true(off + len <= n);
	assert_memory_equal(bytes + off, old, len);
	memcpy(bytes + off, new_bytes, len);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", bytes[i]);
	return eol;
}

/* The image's text with the bytes at addr + off (old, len bytes) replaced
 * by new_bytes in every record of them (evidence and the heap walk may
 * both have read them), written to a file of its own.  Returns its path
 * (free). */
static char *patched(uint64_t addr, size_t off, const uint8_t *old, const uint8_t *new_bytes, size_t len)
{
	size_t text_len, found = 0;
	char *img = capture_path(NAME, "img"), *text = slurp(img, &text_len), *out_path;
	char key[40];

	snprintf(key, sizeof(key), "\ndata %" PRIx64 " ", addr);
	assert_true(asprintf(&out_path, "%s/ramwatch-test-heap-glibc-%d.img", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			     (int)getpid()) > 0);
	FILE *f = fopen(out_path, "we");
	assert_non_null(f);
	const char *at = text;
	for (const char *line; (line = strstr(at, key)); found++) {
		line += strlen(key);
		fwrite(at, 1, (size_t)(line - at), f);
		at = patch_line(f, line, off, old, new_bytes, len);
	}
	fputs(at, f);
	fclose(f);
	assert_true(found > 0);
	free(text);
	free(img);
	return out_path;
}

/* The main heap's first chunk says it runs far past the top chunk: the
 * main arena does not check out (the image is the same each try), its
 * heap is unknown, the thread arena still counts. */
static void test_wild_size(void **state)
{
	(void)state;
	static const uint8_t old[8] = { 0x91, 0x02, 0, 0, 0, 0, 0, 0 }, wild[8] = { 0x91, 0x02, 0, 0, 0x10, 0, 0, 0 };
	char *image = patched(HEAP_START, 8, old, wild, 8);
	struct census *c = take(image, 0);
	const struct census_totals *k = malloc_of(c);

	assert_non_null(strstr(c->how[CLASS_MALLOC], "1 arena did not check out, unknown"));
	assert_non_null(strstr(c->how[CLASS_MALLOC], "runs past the top chunk"));
	/* a walk that does not check out is tried RW_HEAP_RETRIES times more, then given up */
	char tries[32];
	snprintf(tries, sizeof(tries), "%u tries)", RW_HEAP_RETRIES + 1);
	assert_non_null(strstr(c->how[CLASS_MALLOC], tries));
	assert_true(k->unknown >= 64 * 1024);
	assert_true(k->in_use > 0 && k->in_use < LIVE_IN_USE);
	census_free(c);
	unlink(image);
	free(image);
}

/* A glibc release whose layout the walker does not know: unknown, saying so. */
static void test_unknown_version(void **state)
{
	(void)state;
	static const uint8_t old[5] = { '2', '.', '3', '6', '.' }, later[5] = { '2', '.', '9', '9', '.' };
	char *image = patched(BANNER_END_PAGE, 4, old, later, 5);
	struct census *c = take(image, 0);
	const struct census_totals *k = malloc_of(c);

	assert_int_equal(k->unknown, LIVE_PRIVATE);
	assert_string_equal(c->how[CLASS_MALLOC],
			    "glibc 2.99: a release whose malloc structures this ramwatch does not know (2.31 to 2.41)");
	census_free(c);
	unlink(image);
	free(image);
}

/* An image that holds what evidence read and nothing of libc (captured
 * before heap walks were): malloc's memory is unknown, and why. */
static void test_image_without_libc(void **state)
{
	(void)state;
	struct scan_options o = { 0 };
	struct census *c = capture_census("python3-blocks", NULL, &o);
	const struct census_totals *k = &c->classes[CLASS_MALLOC];
	assert_non_null(c->how[CLASS_MALLOC]);
	assert_non_null(strstr(c->how[CLASS_MALLOC], "version could not be read"));
	assert_int_equal(k->unknown, k->private);
	census_free(c);
}

/* The process tests/data/make-glibc-image.py lays out by hand, whose
 * every chunk is known: the walk finds its figures to the byte. */
static struct census *take_synthetic(const char *image)
{
	struct scan_options o = { 0 };
	struct census *c = capture_census("synthetic-glibc", fixture(image), &o);
	assert_non_null(c->how[CLASS_MALLOC]);
	assert_int_equal(c->classes[CLASS_MALLOC].private, 20480);
	assert_class_adds_up(c, CLASS_MALLOC);
	return c;
}

static void test_synthetic(void **state)
{
	(void)state;
	struct census *c = take_synthetic("memimage/synthetic-glibc.img");
	const struct census_totals *k = &c->classes[CLASS_MALLOC];

	/* the figures make-glibc-image.py prints */
	assert_int_equal(k->in_use, 8416);
	assert_int_equal(k->free_kept, 9808);
	assert_int_equal(k->overhead, 2256);
	assert_int_equal(k->unknown, 0);
	assert_int_equal(k->returnable, 4096);
	assert_string_equal(c->how[CLASS_MALLOC], "glibc 2.36: 2 arenas (2 heaps), 15 chunks, 3 in fastbins; tcache counted "
						  "in use; 1 mmapped block (1.00 MiB)");
	census_free(c);
}

/* Corrupted heaps (the fuzz target's seeds): the arena that does not
 * check out is unknown, with the reason, the rest stands; a ring of arenas
 * that loops leaves all of it unknown.  Nothing loops for ever. */
static void test_synthetic_corrupt(void **state)
{
	(void)state;
	static const struct {
		const char *image, *says;
		uint64_t unknown;
	} cases[] = {
		{ "fuzz/heap/glibc-fastbin-loop.img", "(fastbin 0 of the arena loops; " TRIES ")", 8192 },
		{ "fuzz/heap/glibc-wild-size.img", "(the chunk runs past the top chunk; " TRIES ")", 8192 },
		{ "fuzz/heap/glibc-chain-out.img", "(a fastbin link points outside its arena's heaps; " TRIES ")", 8192 - 2256 },
		{ "fuzz/heap/glibc-heap-prev-self.img", "(the heaps of the arena loop; " TRIES ")", 8192 },
		{ "fuzz/heap/glibc-ring-loop.img", "glibc 2.36: the ring of arenas loops", 20480 },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct census *c = take_synthetic(cases[i].image);
		if (!strstr(c->how[CLASS_MALLOC], cases[i].says) || c->classes[CLASS_MALLOC].unknown != cases[i].unknown)
			fail_msg("%s: unknown %llu, \"%s\"", cases[i].image,
				 (unsigned long long)c->classes[CLASS_MALLOC].unknown, c->how[CLASS_MALLOC]);
		census_free(c);
	}
}

/* --no-heap, a census without evidence, and one past its deadline walk
 * nothing. */
static void test_not_asked(void **state)
{
	(void)state;
	struct census *c = NULL;

	struct scan_options no_heap = { .no_heap = true };
	c = capture_census(NAME, NULL, &no_heap);
	assert_true(c->unknown_classes[CLASS_MALLOC] & CENSUS_HEAP_COUNTERS);
	assert_null(c->how[CLASS_MALLOC]);
	c = census_free(c);

	struct scan_options no_evidence = { .no_evidence = true };
	c = capture_census(NAME, NULL, &no_evidence);
	assert_true(c->unknown_classes[CLASS_MALLOC] & CENSUS_HEAP_COUNTERS);
	c = census_free(c);

	/* a census whose deadline has passed starts no walk */
	struct scan_options late = { .heap_deadline_us = 1 };
	c = capture_census(NAME, NULL, &late);
	assert_true(c->unknown_classes[CLASS_MALLOC] & CENSUS_HEAP_COUNTERS);
	assert_null(c->how[CLASS_MALLOC]);
	census_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_byte_limit),
		cmocka_unit_test(test_wild_size),
		cmocka_unit_test(test_unknown_version),
		cmocka_unit_test(test_image_without_libc),
		cmocka_unit_test(test_not_asked),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_synthetic_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
