/* The arithmetic of heap walks (heap-walk.c): spans become a class's in
 * use, free, overhead, unknown and returnable bytes, counted in private
 * pages only, so that they add up to the class's private bytes to the
 * byte whatever the walks found.  The residency comes from memory images
 * written here, page by page. */
#include "testlib.h"

#include <errno.h>
#include <inttypes.h>

#include "heap-walk.h"
#include "memimage.h"

#define PAGE ((uint64_t)4096)
#define A ((uint64_t)0x7f0000000000)

/* An image whose pages are given by a string, one letter a page from
 * start: r resident, s swapped, z zero, '.' absent. */
static struct memimage *image_of(uint64_t start, const char *pages)
{
	struct text t;
	struct memimage *img = NULL;
	char msg[192] = "";
	FILE *f = text_open(&t);

	fprintf(f, "ramwatch-memory-image 1\n");
	for (size_t i = 0; pages[i]; i++) {
		const char *state = pages[i] == 'r' ? "resident" : pages[i] == 's' ? "swapped" : pages[i] == 'z' ? "zero" : NULL;
		if (state)
			fprintf(f, "%s %" PRIx64 " %" PRIx64 "\n", state, start + i * PAGE, start + (i + 1) * PAGE);
	}
	char *text = text_close(&t);
	assert_int_equal(memimage_parse(text, strlen(text), &img, msg, sizeof(msg)), 0);
	free(text);
	return img;
}

static struct region region_of(uint64_t start, uint64_t end, enum class_id cls)
{
	return (struct region){ .start = start, .end = end, .cls = cls };
}

struct fixture {
	struct memimage *img;
	struct memsource src;
	struct heap_walk w;
	struct heap_figures f[_CLASS_MAX];
	uint64_t priv[_CLASS_MAX];
};

static void fixture_open(struct fixture *x, const char *pages)
{
	memset(x, 0, sizeof(*x));
	x->img = image_of(A, pages);
	memimage_source(x->img, &x->src);
	x->w.cls = CLASS_MALLOC;
}

static void fixture_close(struct fixture *x)
{
	heap_walk_done(&x->w);
	memimage_free(x->img);
}

static void compute(struct fixture *x, const struct region *regions, size_t n)
{
	heap_figures_compute(&x->w, 1, regions, n, x->priv, x->f);
}

/* in use + free + overhead + unknown is the class's private bytes */
static void assert_adds_up(const struct fixture *x, enum class_id k)
{
	const struct heap_figures *f = &x->f[k];
	assert_true(f->known);
	assert_int_equal(f->in_use + f->free + f->overhead + f->unknown, x->priv[k]);
	assert_true(f->returnable <= f->free);
}

/* Spans over resident, swapped and absent pages, a stretch no span
 * describes, and a region of the class the walk does not cover. */
static void test_identity(void **state)
{
	(void)state;
	struct fixture x;
	/* 10 resident, 2 swapped, 4 absent; then a region of the class not covered */
	fixture_open(&x, "rrrrrrrrrrss....");
	struct region regions[] = { region_of(A, A + 16 * PAGE, CLASS_MALLOC),
				    region_of(A + 16 * PAGE, A + 21 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 12 * PAGE + 5 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 16 * PAGE), 0);
	assert_int_equal(heap_walk_private(&x.w, A, A + 16 * PAGE), 12 * PAGE);
	/* a header the allocator keeps (overhead), chunks in use, one free */
	assert_int_equal(heap_walk_add(&x.w, A + 64, A + 3 * PAGE + 96, 3 * PAGE + 32, 0), 0);
	assert_int_equal(heap_walk_add_free(&x.w, A + 3 * PAGE + 96, A + 8 * PAGE, A + 3 * PAGE + 144, A + 8 * PAGE),
			 0);
	assert_int_equal(heap_walk_add(&x.w, A + 8 * PAGE, A + 13 * PAGE, 5 * PAGE, 0), 0);
	snprintf(x.w.how, sizeof(x.w.how), "a test heap");
	compute(&x, regions, 2);

	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	/* in use: the first span, and of the second only its private pages
	 * (the swapped ones count, the absent one does not) */
	assert_int_equal(f->in_use, 3 * PAGE + 32 + 4 * PAGE);
	assert_int_equal(f->free, 8 * PAGE - (3 * PAGE + 96));
	/* pages 4 to 7, whole inside the free chunk past its header */
	assert_int_equal(f->returnable, 4 * PAGE);
	/* the 64 bytes before the first span, and the bytes between the
	 * first span's declared use and its length */
	assert_int_equal(f->overhead, 64);
	/* the region no walk covered */
	assert_int_equal(f->unknown, 5 * PAGE);
	assert_string_equal(f->how, "a test heap");
	/* classes no walk describes stay unknown */
	assert_false(x.f[CLASS_PYTHON].known);
	fixture_close(&x);
}

/* A span counts only its private pages, scaled: a pool with in use and
 * free bytes whose pages are half absent counts half of each. */
static void test_partial_spans(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rr..r.rz");
	struct region regions[] = { region_of(A, A + 8 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 4 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	/* pages 0-3: 3 pages' worth in use, 1 free, two of the four private */
	assert_int_equal(heap_walk_add(&x.w, A, A + 4 * PAGE, 3 * PAGE, PAGE), 0);
	/* pages 4-7: free; pages 4 and 6 private, 5 absent, 7 the zero page */
	assert_int_equal(heap_walk_add_free(&x.w, A + 4 * PAGE, A + 8 * PAGE, A + 4 * PAGE, A + 8 * PAGE), 0);
	compute(&x, regions, 1);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_int_equal(f->in_use, 3 * PAGE / 2);
	assert_int_equal(f->free, PAGE / 2 + 2 * PAGE);
	/* whole private pages of the returnable range: 4 and 6, not the zero page */
	assert_int_equal(f->returnable, 2 * PAGE);
	assert_int_equal(f->overhead, 0);
	assert_int_equal(f->unknown, 0);
	fixture_close(&x);
}

/* A walk that did not check out: every private byte it covers is
 * unknown, whatever spans it had added, and the class says why. */
static void test_failed_walk(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrrrrrrr");
	struct region regions[] = { region_of(A, A + 8 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 8 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	assert_int_equal(heap_walk_add(&x.w, A, A + 4 * PAGE, 4 * PAGE, 0), 0);
	x.w.failed = true;
	snprintf(x.w.how, sizeof(x.w.how), "not this");
	snprintf(x.w.why_not, sizeof(x.w.why_not), "a chunk size past the heap's end, 4 tries");
	compute(&x, regions, 1);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_int_equal(f->unknown, 8 * PAGE);
	assert_int_equal(f->in_use + f->free + f->overhead + f->returnable, 0);
	assert_string_equal(f->how, "a chunk size past the heap's end, 4 tries");
	fixture_close(&x);
}

/* What a walk did not reach (its deadline, the byte limit) is unknown;
 * what it read before stands. */
static void test_not_reached(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrrrrrrr");
	struct region regions[] = { region_of(A, A + 8 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 8 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	assert_int_equal(heap_walk_add(&x.w, A + 32, A + 3 * PAGE, 3 * PAGE - 32, 0), 0);
	assert_int_equal(heap_walk_add_unknown(&x.w, A + 3 * PAGE, A + 8 * PAGE), 0);
	/* out of order, or after the end */
	assert_int_equal(heap_walk_add_unknown(&x.w, A + 2 * PAGE, A + 9 * PAGE), -EINVAL);
	compute(&x, regions, 1);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_int_equal(f->in_use, 3 * PAGE - 32);
	assert_int_equal(f->overhead, 32);
	assert_int_equal(f->unknown, 5 * PAGE);
	fixture_close(&x);
}

/* Returnable counts whole private pages inside the returnable range of
 * free spans only: not a page shared with a header, not a page absent,
 * not free bytes outside the range. */
static void test_returnable_whole_pages(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrr.rrrr");
	struct region regions[] = { region_of(A, A + 8 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 7 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	/* free from 100 bytes in to 50 bytes into page 5: pages 1 to 4 whole, 3 absent */
	assert_int_equal(heap_walk_add_free(&x.w, A + 100, A + 5 * PAGE + 50, A + 100, A + 5 * PAGE + 50), 0);
	/* a free span with no returnable range: none of it counts */
	assert_int_equal(heap_walk_add_free(&x.w, A + 6 * PAGE, A + 8 * PAGE, 0, 0), 0);
	compute(&x, regions, 1);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_int_equal(f->returnable, 3 * PAGE);
	assert_int_equal(f->free, 4 * PAGE + 50 - 100 + 2 * PAGE);
	/* the spans are refused when their ranges do not fit */
	assert_int_equal(heap_walk_add_free(&x.w, A + 8 * PAGE, A + 9 * PAGE, A + 7 * PAGE, A + 9 * PAGE), -EINVAL);
	assert_int_equal(heap_walk_add(&x.w, A + 8 * PAGE, A + 9 * PAGE, PAGE, 1), -EINVAL);
	fixture_close(&x);
}

/* A cover across regions of two classes counts only the walk's class:
 * spans in the other class's region are not its memory. */
static void test_other_classes(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrrrrrrr");
	struct region regions[] = { region_of(A, A + 4 * PAGE, CLASS_MALLOC),
				    region_of(A + 4 * PAGE, A + 8 * PAGE, CLASS_OTHER) };
	x.priv[CLASS_MALLOC] = 4 * PAGE;
	x.priv[CLASS_OTHER] = 4 * PAGE;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	assert_int_equal(heap_walk_add(&x.w, A, A + 6 * PAGE, 6 * PAGE, 0), 0);
	assert_int_equal(heap_walk_add_free(&x.w, A + 6 * PAGE, A + 8 * PAGE, A + 6 * PAGE, A + 8 * PAGE), 0);
	compute(&x, regions, 2);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_int_equal(f->in_use, 4 * PAGE);
	assert_int_equal(f->free, 0);
	assert_int_equal(f->returnable, 0);
	assert_false(x.f[CLASS_OTHER].known);
	fixture_close(&x);
}

/* The pages moved between the census's count and the walk's (a busy
 * program): the walk's figures are scaled to what the census counted, and
 * the sum is still exact. */
static void test_moved_pages(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrrrrrrr");
	struct region regions[] = { region_of(A, A + 8 * PAGE, CLASS_MALLOC) };
	x.priv[CLASS_MALLOC] = 5 * PAGE + 7;

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + 8 * PAGE), 0);
	assert_int_equal(heap_walk_add(&x.w, A, A + 6 * PAGE, 6 * PAGE, 0), 0);
	assert_int_equal(heap_walk_add_free(&x.w, A + 6 * PAGE, A + 8 * PAGE, A + 6 * PAGE, A + 8 * PAGE), 0);
	compute(&x, regions, 1);
	const struct heap_figures *f = &x.f[CLASS_MALLOC];
	assert_adds_up(&x, CLASS_MALLOC);
	assert_true(f->in_use > 3 * f->free - PAGE && f->in_use < 3 * f->free + PAGE);
	fixture_close(&x);
}

/* Covers and spans come in address order; a cover's residency is read
 * once even where two covers share a page. */
static void test_order(void **state)
{
	(void)state;
	struct fixture x;
	fixture_open(&x, "rrrrrrrr");

	assert_int_equal(heap_walk_cover(&x.w, &x.src, A + 2 * PAGE, A + 3 * PAGE + 8), 0);
	assert_int_equal(heap_walk_cover(&x.w, &x.src, A, A + PAGE), -EINVAL);
	assert_int_equal(heap_walk_cover(&x.w, &x.src, A + 3 * PAGE + 16, A + 4 * PAGE), 0);
	assert_int_equal(heap_walk_private(&x.w, A, A + 8 * PAGE), 2 * PAGE);
	assert_int_equal(heap_walk_add(&x.w, A + 2 * PAGE, A + 3 * PAGE, PAGE, 0), 0);
	assert_int_equal(heap_walk_add(&x.w, A + 2 * PAGE + 8, A + 3 * PAGE + 8, 8, 0), -EINVAL);
	assert_int_equal(heap_walk_add(&x.w, A + 3 * PAGE, A + 3 * PAGE, 0, 0), -EINVAL);
	fixture_close(&x);
	heap_walk_done(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_partial_spans),
		cmocka_unit_test(test_failed_walk),
		cmocka_unit_test(test_not_reached),
		cmocka_unit_test(test_returnable_whole_pages),
		cmocka_unit_test(test_other_classes),
		cmocka_unit_test(test_moved_pages),
		cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
