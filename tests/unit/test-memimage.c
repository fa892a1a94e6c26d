/* Memory images (memimage.h): the format, its errors naming their line,
 * its limits, and the source that answers from an image. */
#include "testlib.h"

#include <errno.h>

#include "limits.h"
#include "memimage.h"

static int parse_image(const char *text, struct memimage **img, char *msg)
{
	return memimage_parse(text, strlen(text), img, msg, 192);
}

static void test_image_format(void **state)
{
	(void)state;
	struct memimage *img = NULL;
	char msg[192];

	assert_int_equal(parse_image("ramwatch-memory-image 1\n# a comment\n\nresident 1000 3000\nswapped 3000 4000\n"
				     "data 1000 0000000000000000 0210000000000000\n", &img, msg), 0);
	struct memsource src;
	memimage_source(img, &src);
	struct page_runs runs = { 0 };
	assert_int_equal(memsource_residency(&src, 0, 0x5000, &runs), 0);
	assert_int_equal(page_runs_state(&runs, 0x1000), PAGE_RESIDENT);
	assert_int_equal(page_runs_state(&runs, 0x2fff), PAGE_RESIDENT);
	assert_int_equal(page_runs_state(&runs, 0x3000), PAGE_SWAPPED);
	assert_int_equal(page_runs_state(&runs, 0x4000), PAGE_ABSENT);
	uint8_t buf[16];
	struct mem_probe p[3] = {
		{ .addr = 0x1000, .len = 16, .buf = buf, .runs = &runs },
		{ .addr = 0x1010, .len = 16, .buf = buf, .runs = &runs }, /* bytes the image does not hold */
		{ .addr = 0x3000, .len = 16, .buf = buf, .runs = &runs }, /* swapped: never read */
	};
	src.max_probes = UINT64_MAX;
	assert_int_equal(memsource_read(&src, p, 1), 0);
	assert_int_equal(p[0].got, 16);
	assert_int_equal(buf[9], 0x10);
	assert_int_equal(memsource_read(&src, p + 1, 2), 0);
	assert_int_equal(p[1].got, 0);
	assert_int_equal(p[2].got, 0);
	page_runs_done(&runs);
	img = memimage_free(img);

	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "empty" },
		{ "ramwatch-memory-image 2\n", "not a memory image" },
		{ "ramwatch-memory-image 1\nresident 1000\n", "line 2: expected an end address" },
		{ "ramwatch-memory-image 1\nresident 1001 2000\n", "line 2: a range of pages must be page-aligned" },
		{ "ramwatch-memory-image 1\nresident 2000 1000\n", "line 2: a range of pages" },
		{ "ramwatch-memory-image 1\nresident 1000 3000\nzero 2000 4000\n", "given twice" },
		{ "ramwatch-memory-image 1\nheap 1000 2000\n", "line 2: unknown record \"heap\"" },
		{ "ramwatch-memory-image 1\nabsent 1000 2000\n", "line 2: unknown record \"absent\"" },
		{ "ramwatch-memory-image 1\nresident 1000 2000\ndata 1000 0g\n", "line 3: expected bytes in hex" },
		{ "ramwatch-memory-image 1\nresident 1000 2000\ndata 1000 0 1\n", "line 3: expected bytes in hex" },
		{ "ramwatch-memory-image 1\nresident 1000 2000\ndata 1000\n", "line 3: expected bytes in hex" },
		{ "ramwatch-memory-image 1\nswapped 1000 2000\ndata 1000 00\n", "not within one resident page" },
		{ "ramwatch-memory-image 1\nresident 1000 3000\ndata 1ff8 00000000000000000000\n", "not within one resident page" },
		{ "ramwatch-memory-image 1\nresident x 2000\n", "line 2: expected an address in hex" },
		{ "ramwatch-memory-image 1\nresident 1000 2000 3000\n", "unexpected text after the range" },
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		msg[0] = '\0';
		int r = parse_image(bad[i].text, &img, msg);
		if (r != -EBADMSG || !strstr(msg, bad[i].says))
			fail_msg("image %zu: %d \"%s\", expected \"%s\"", i, r, msg, bad[i].says);
	}
	/* bytes in a file's page: a library's text a heap walk read where the page tables map it */
	assert_int_equal(parse_image("ramwatch-memory-image 1\nfile 1000 2000\ndata 1000 00\n", &img, msg), 0);
	img = memimage_free(img);
	assert_int_equal(parse_image("ramwatch-memory-image 1\nzero 1000 2000\ndata 1000 00\n", &img, msg), -EBADMSG);
	/* bytes in a page of no run: a wholly resident region's, read without asking */
	assert_int_equal(parse_image("ramwatch-memory-image 1\ndata 1000 00\n", &img, msg), 0);
	img = memimage_free(img);
	/* a NUL byte */
	static const char nul[] = "ramwatch-memory-image 1\nresident 1000\0 2000\n";
	assert_int_equal(memimage_parse(nul, sizeof(nul) - 1, &img, msg, sizeof(msg)), -EBADMSG);
	assert_non_null(strstr(msg, "NUL"));
}

/* A data record past RW_MEMIMAGE_DATA_MAX bytes is refused, one at it is taken. */
static void test_image_limits(void **state)
{
	(void)state;
	struct memimage *img = NULL;
	char msg[192];
	for (unsigned extra = 0; extra < 2; extra++) {
		size_t n = RW_MEMIMAGE_DATA_MAX + extra;
		char *text = malloc(64 + 2 * n);
		assert_non_null(text);
		int w = sprintf(text, "ramwatch-memory-image 1\nresident 1000 3000\ndata 1000 ");
		for (size_t i = 0; i < n; i++)
			w += sprintf(text + w, "00");
		text[w++] = '\n';
		text[w] = '\0';
		int r = parse_image(text, &img, msg);
		if (extra == 0) {
			assert_int_equal(r, 0);
			img = memimage_free(img);
		} else {
			assert_int_equal(r, -EBADMSG);
			assert_non_null(strstr(msg, "more than"));
		}
		free(text);
	}
	/* a whole image past RW_MEMIMAGE_MAX: refused before it is read */
	assert_int_equal(memimage_parse("ramwatch-memory-image 1\n", (size_t)RW_MEMIMAGE_MAX + 1, &img, msg, sizeof(msg)),
			 -E2BIG);
}

/* Every page state has its name in a memory image. */
static void test_page_state_names(void **state)
{
	(void)state;
	assert_enum_names("page state", _PAGE_STATE_MAX, page_state_name, page_state_from_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page_state_names),
		cmocka_unit_test(test_image_format),
		cmocka_unit_test(test_image_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
