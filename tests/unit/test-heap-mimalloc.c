/* mimalloc's heap walk: a capture of a running program (its smaps and
 * the memory image a census saved) read again and checked against the
 * figures mimalloc printed of itself; segments built byte by byte, well
 * formed and in every way malformed; the version read from the library's
 * code; and the walk's bounds (bytes, retries, a version it does not
 * know, a library too large to read). */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "classes.h"
#include "elf-read.h"
#include "evidence.h"
#include "heap-mimalloc.h"
#include "limits.h"
#include "memimage.h"
#include "scan.h"
#include "census.h"
#include "util.h"

#include "evidence-testlib.h"
#include "test-heap-lib.h"

#define SEG (32 * MiB)
#define SLICE (64 * KiB)
#define A 0x22a0a000000ull /* a segment's address */

/* ------------------------------------------------------------ a capture */

/* tests/data/memimage/c-mimalloc: heapstat-mimalloc --small=20000
 * --medium=100 --large=2 --huge=36 --threads=1, whose own figures right
 * after the census (mi_heap_visit_blocks over both threads' heaps) were
 * 47018304 bytes in use. */
#define CAPTURE_IN_USE 47018304ull

/* The capture read again gives what mimalloc said of itself, to the
 * byte, and its segments' free runs as returnable. */
static void test_capture_agrees_with_mimalloc(void **state)
{
	(void)state;
	struct capture c;
	struct heap_walk w = { 0 };

	capture_open(&c, "c-mimalloc");
	assert_int_equal(heap_mimalloc_walk_version(&c.in, 209, &w), 0);
	assert_false(w.failed);
	assert_string_equal(w.how, "mimalloc 2.0.9: 3 segments, 402 pages in use");
	assert_true(w.bytes_read > 0 && w.bytes_read <= 3 * HEAP_MIMALLOC_HEADER_BYTES);
	struct heap_figures f = capture_figures(&c, &w, CLASS_MALLOC);
	assert_adds_up(&f, c.class_private[CLASS_MALLOC]);
	assert_int_equal(f.in_use, CAPTURE_IN_USE);
	assert_int_equal(f.unknown, 0);
	assert_true(f.free > 20 * MiB);
	assert_true(f.returnable > 0);
	heap_walk_done(&w);
	capture_close(&c);
}

/* The census taken again from the saved files: the version is read from
 * the library the capture names, when this machine has that very file
 * (its inode); elsewhere the class says why it is not known. */
static void test_capture_saved_census(void **state)
{
	(void)state;
	struct scan_options o = { 0 };
	struct census *census = capture_census("c-mimalloc", NULL, &o);
	struct stat st;

	const char *how = census->how[CLASS_MALLOC];
	assert_non_null(how);
	bool same_library = stat("/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0", &st) == 0 && st.st_ino == 14885075;
	if (same_library) {
		assert_string_equal(how, "mimalloc 2.0.9: 3 segments, 402 pages in use");
		assert_int_equal(census->classes[CLASS_MALLOC].in_use, CAPTURE_IN_USE);
	} else {
		assert_non_null(strstr(how, "mimalloc: its version is not known"));
		assert_int_equal(census->classes[CLASS_MALLOC].in_use, 0);
	}
	census_free(census);
}

/* ------------------------------------------------------------ segments */

static void put_u16(uint8_t *b, size_t off, uint16_t v)
{
	memcpy(b + off, &v, 2);
}

static uint8_t *slice(uint8_t *b, uint32_t i)
{
	return b + 264 + (size_t)i * 80;
}

/* A segment's header as mimalloc 2.0.9 writes it, with no run yet. */
static uint8_t *segment_header(uint64_t used, uint64_t slices, uint32_t kind)
{
	uint8_t *b = calloc(1, HEAP_MIMALLOC_HEADER_BYTES);
	assert_non_null(b);
	b[8] = 0;                      /* mem_is_pinned */
	b[9] = 0;                      /* mem_is_large */
	b[10] = 1;                     /* mem_is_committed */
	put_u64(b, 16, SEG);           /* mem_alignment */
	b[32] = 1;                     /* allow_decommit */
	put_u64(b, 208, used);
	put_u64(b, 224, slices);
	put_u64(b, 232, 1);            /* info slices */
	put_u32(b, 240, kind);
	put_u64(b, 248, slices < 512 ? slices : 512);
	put_u64(b, 256, 0x7f0000001234); /* thread id */
	put_u32(slice(b, 0), 0, 1);
	put_u32(slice(b, 0), 28, 65536);
	return b;
}

/* A page of count slices at slice i, as mi_segment_span_allocate leaves
 * it, with its block counts. */
static void put_page(uint8_t *b, uint32_t i, uint32_t count, uint32_t bsize, uint16_t capacity, uint16_t reserved,
		     uint32_t used)
{
	put_u32(slice(b, i), 0, count);
	put_u32(slice(b, i), 28, bsize);
	put_u16(slice(b, i), 10, capacity);
	put_u16(slice(b, i), 12, reserved);
	put_u32(slice(b, i), 24, used);
	for (uint32_t k = 1; k < count && k <= 15 && i + k < 512; k++) {
		put_u32(slice(b, i + k), 4, k * 80);
		put_u32(slice(b, i + k), 28, 1);
	}
	if (count > 1 && i + count - 1 < 512) {
		put_u32(slice(b, i + count - 1), 4, (count - 1) * 80);
		put_u32(slice(b, i + count - 1), 28, 1);
	}
}

static void put_free_run(uint8_t *b, uint32_t i, uint32_t count)
{
	put_u32(slice(b, i), 0, count);
	if (count > 1)
		put_u32(slice(b, i + count - 1), 4, (count - 1) * 80);
}

/* The usual segment: a page of 64-byte blocks (100 carved, 40 used, the
 * free list inside), a page of 8 KiB blocks none of which is used, and a
 * free run to the end. */
static uint8_t *usual_segment(void)
{
	uint8_t *b = segment_header(2, 512, 0);
	put_page(b, 1, 1, 64, 100, 1018, 40);
	put_u64(slice(b, 1), 16, A + SLICE + 384 + 50 * 64); /* free */
	put_page(b, 2, 8, 8192, 64, 64, 0);
	put_free_run(b, 10, 502);
	return b;
}

/* A walk whose covers are [A, A + SEG), resident from A for resident bytes. */
struct seg_walk {
	struct memimage *img;
	struct memsource src;
	struct heap_walk w;
};

static void seg_walk_open(struct seg_walk *s, const char *pages)
{
	char text[512], msg[160];
	snprintf(text, sizeof(text), "ramwatch-memory-image 1\n%s", pages);
	memset(s, 0, sizeof(*s));
	assert_int_equal(memimage_parse(text, strlen(text), &s->img, msg, sizeof(msg)), 0);
	memimage_source(s->img, &s->src);
	s->w.cls = CLASS_MALLOC;
	assert_int_equal(heap_walk_cover(&s->w, &s->src, A, A + SEG), 0);
}

static void seg_walk_close(struct seg_walk *s)
{
	heap_walk_done(&s->w);
	memsource_close(&s->src);
	memimage_free(s->img);
}

struct sums {
	uint64_t in_use, free, returnable_spans;
};

static struct sums sum_spans(const struct heap_walk *w)
{
	struct sums s = { 0 };
	for (size_t i = 0; i < w->n_spans; i++) {
		s.in_use += w->spans[i].in_use;
		s.free += w->spans[i].free;
		if (w->spans[i].ret_end)
			s.returnable_spans += w->spans[i].ret_end - w->spans[i].ret_start;
	}
	return s;
}

static void test_segment_spans(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	struct seg_walk s;
	char why[160] = "", pages[128];

	snprintf(pages, sizeof(pages), "resident %llx %llx\n", (unsigned long long)A, (unsigned long long)(A + SEG));
	seg_walk_open(&s, pages);
	assert_int_equal(heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, A, A + SEG, seg, why, sizeof(why)), 0);
	assert_int_equal(seg->pages, 2);
	assert_int_equal(seg->n_runs, 4);
	assert_false(seg->cached);
	assert_int_equal(heap_mimalloc_add(&s.w, seg), 0);
	struct sums x = sum_spans(&s.w);
	assert_int_equal(x.in_use, 40 * 64);
	/* free: the page's carved and uncarved blocks, the empty page's, the free run */
	assert_int_equal(x.free, 60 * 64 + (1018 - 100) * 64 + 64 * 8192 + 502 * SLICE);
	/* returnable: the page with no block in use and the free run */
	assert_int_equal(x.returnable_spans, 64 * 8192 + 502 * SLICE);
	seg_walk_close(&s);
	free(seg);
	free(b);
}

/* Blocks in use have been written; blocks never touched are free: a page
 * of eight 64 KiB blocks, two in use, whose other blocks hold only their
 * first page, counts the two whole, not a quarter of what is private. */
static void test_segment_in_use_first(void **state)
{
	(void)state;
	uint8_t *b = segment_header(1, 512, 0);
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	struct seg_walk s;
	char why[160], pages[1024];
	size_t n = 0;

	put_page(b, 1, 8, 65536, 8, 8, 2);
	put_free_run(b, 9, 503);
	/* the header slice, the two blocks in use, the first page of the others */
	n += (size_t)snprintf(pages + n, sizeof(pages) - n, "resident %llx %llx\n", (unsigned long long)A,
			      (unsigned long long)(A + SLICE + 2 * SLICE));
	for (int k = 2; k < 8; k++)
		n += (size_t)snprintf(pages + n, sizeof(pages) - n, "resident %llx %llx\n",
				      (unsigned long long)(A + SLICE + k * SLICE),
				      (unsigned long long)(A + SLICE + k * SLICE + 4096));
	seg_walk_open(&s, pages);
	assert_int_equal(heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, A, A + SEG, seg, why, sizeof(why)), 0);
	assert_int_equal(heap_mimalloc_add(&s.w, seg), 0);
	struct sums x = sum_spans(&s.w);
	assert_int_equal(x.in_use, 2 * 65536);
	assert_int_equal(x.free, 6 * 4096 + 503 * SLICE); /* what is private of the free blocks, the free run */
	seg_walk_close(&s);
	free(seg);
	free(b);
}

/* A segment freed to mimalloc's cache: no owner, nothing in use, its runs
 * marked taken: all of it is free and returnable. */
static void test_segment_cached(void **state)
{
	(void)state;
	uint8_t *b = segment_header(0, 512, 0);
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	char why[160];

	put_u64(b, 256, 0);
	put_u32(slice(b, 1), 0, 511);
	put_u32(slice(b, 1), 28, 1);
	assert_int_equal(heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, A, A + SEG, seg, why, sizeof(why)), 0);
	assert_true(seg->cached);
	assert_int_equal(seg->n_runs, 2);
	assert_false(seg->runs[1].page);
	assert_int_equal(seg->runs[1].count, 511);
	free(seg);
	free(b);
}

/* A huge segment (one block of its own, more slices than the array holds)
 * whose tail lies past its region: walked up to the region's end. */
static void test_segment_huge_past_region(void **state)
{
	(void)state;
	const uint32_t slices = 641;
	uint8_t *b = segment_header(1, slices, 1);
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	char why[160];

	put_page(b, 1, slices - 1, (slices - 1) * SLICE, 1, 1, 1);
	uint64_t limit = A + 36 * MiB;
	assert_int_equal(heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, A, limit, seg, why, sizeof(why)), 0);
	assert_int_equal(seg->length, (uint64_t)slices * SLICE);
	assert_int_equal(seg->end, limit);
	assert_int_equal(seg->runs[1].bsize, (uint64_t)(slices - 1) * SLICE);
	free(seg);
	free(b);
}

/* The ways a segment can be wrong (or caught moving), one change each. */
static const char *const malformed[] = {
	"not a segment", "header slices", "a run of no slices: a loop", "a run that starts inside another",
	"a run past the end", "a huge count", "capacity past reserved", "used past capacity", "blocks past the page",
	"flags", "free list off a block boundary", "free list past the carved blocks",
	"local free list before the page", "thread free list elsewhere", "a back offset missing",
	"a free run's last slice", "pages in use miscounted", "wild block size",
};

static void break_segment(uint8_t *b, size_t which)
{
	switch (which) {
	case 0: put_u64(b, 232, 2); break;
	case 1: put_u32(slice(b, 0), 0, 2); break;
	case 2: put_u32(slice(b, 1), 0, 0); break;
	case 3: put_u32(slice(b, 10), 4, 80); break;
	case 4: put_u32(slice(b, 10), 0, 503); break;
	case 5: put_u32(slice(b, 10), 0, 0xffffffff); break;
	case 6: put_u16(slice(b, 1), 10, 1119); break;
	case 7: put_u32(slice(b, 1), 24, 101); break;
	case 8: put_u16(slice(b, 1), 12, 1019); break;
	case 9: slice(b, 1)[14] = 4; break;
	case 10: put_u64(slice(b, 1), 16, A + SLICE + 384 + 50 * 64 + 8); break;
	case 11: put_u64(slice(b, 1), 16, A + SLICE + 384 + 100 * 64); break;
	case 12: put_u64(slice(b, 1), 32, A); break;
	case 13: put_u64(slice(b, 1), 40, 0x1000 | 1); break;
	case 14: put_u32(slice(b, 5), 4, 0); break;
	case 15: put_u32(slice(b, 511), 4, 0); break;
	case 16: put_u64(b, 208, 3); break;
	case 17: put_u32(slice(b, 2), 28, 0x7fffffff); break;
	default: fail_msg("no change %zu", which);
	}
}

/* Every way a segment can be wrong is refused with its reason, and the
 * check reads nothing past its bytes. */
static void test_segment_malformed(void **state)
{
	(void)state;
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	char why[160];

	for (size_t i = 0; i < ELEMENTSOF(malformed); i++) {
		uint8_t *b = usual_segment();
		break_segment(b, i);
		why[0] = '\0';
		int r = heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, A, A + SEG, seg, why, sizeof(why));
		if (r != -EBADMSG)
			fail_msg("%s: accepted", malformed[i]);
		assert_true(why[0] != '\0');
		free(b);
	}
	/* too few bytes to be a header */
	uint8_t *b = usual_segment();
	assert_int_equal(heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES - 1, A, A + SEG, seg, why, sizeof(why)),
			 -EBADMSG);
	free(b);
	free(seg);
}

/* ------------------------------------------------------------ the walk */

/* An image holding the usual segment in a region of the malloc class with
 * rule mimalloc_segments. */
struct one_segment {
	struct region regions[2];
	struct memimage *img;
	struct memsource src;
	struct heap_limits limits;
	struct heap_walk_input in;
	struct heap_walk w;
};

/* swapped: a header page (0: none) the image says is swapped out, whose
 * bytes it does not hold. */
static void one_segment_open(struct one_segment *o, const uint8_t *b, uint64_t swapped)
{
	struct text t;
	FILE *f = text_open(&t);

	memset(o, 0, sizeof(*o));
	fprintf(f, "ramwatch-memory-image 1\n");
	if (swapped)
		fprintf(f, "resident %llx %llx\nswapped %llx %llx\nresident %llx %llx\n", (unsigned long long)A,
			(unsigned long long)swapped, (unsigned long long)swapped, (unsigned long long)(swapped + 4096),
			(unsigned long long)(swapped + 4096), (unsigned long long)(A + SEG));
	else
		fprintf(f, "resident %llx %llx\n", (unsigned long long)A, (unsigned long long)(A + SEG));
	for (size_t off = 0; off < HEAP_MIMALLOC_HEADER_BYTES; off += 4096) {
		size_t n = HEAP_MIMALLOC_HEADER_BYTES - off < 4096 ? HEAP_MIMALLOC_HEADER_BYTES - off : 4096;
		if (A + off == swapped)
			continue;
		fprintf(f, "data %llx ", (unsigned long long)(A + off));
		for (size_t k = 0; k < n; k++)
			fprintf(f, "%02x", b[off + k]);
		fputc('\n', f);
	}
	char *text = text_close(&t), msg[160];
	assert_int_equal(memimage_parse(text, strlen(text), &o->img, msg, sizeof(msg)), 0);
	free(text);
	memimage_source(o->img, &o->src);
	o->regions[0] = (struct region){ .start = A, .end = A + SEG, .cls = CLASS_MALLOC };
	o->regions[0].rule = (uint8_t)classify_rule_from_key("mimalloc_segments");
	memcpy(o->regions[0].perms, "rw-p", 4);
	region_set_kb(&o->regions[0], COUNT_ANONYMOUS, SEG / 1024);
	o->limits = (struct heap_limits){ .max_bytes = RW_HEAP_READ_MAX, .retries = 2 };
	o->in = (struct heap_walk_input){ .src = &o->src, .regions = o->regions, .n_regions = 1, .limits = &o->limits };
}

static void one_segment_close(struct one_segment *o)
{
	heap_walk_done(&o->w);
	memsource_close(&o->src);
	memimage_free(o->img);
}

static void test_walk_one_segment(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct one_segment o;

	one_segment_open(&o, b, 0);
	assert_int_equal(heap_mimalloc_walk_version(&o.in, 209, &o.w), 0);
	assert_false(o.w.failed);
	assert_int_equal(o.w.n_covers, 1);
	assert_string_equal(o.w.how, "mimalloc 2.0.9: 1 segment, 2 pages in use");
	assert_int_equal(o.w.bytes_read, HEAP_MIMALLOC_HEADER_BYTES);
	one_segment_close(&o);
	free(b);
}

/* A segment that never checks out (caught moving every time) is read
 * 1 + retries times, then unknown with the reason. */
static void test_walk_retries_then_unknown(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct one_segment o;

	put_u64(b, 208, 3); /* the pages in use miscounted */
	one_segment_open(&o, b, 0);
	assert_int_equal(heap_mimalloc_walk_version(&o.in, 209, &o.w), 0);
	assert_true(o.w.failed);
	assert_non_null(strstr(o.w.why_not, "pages in use where the segment counts"));
	assert_non_null(strstr(o.w.why_not, "3 tries"));
	assert_int_equal(o.w.bytes_read, 3 * HEAP_MIMALLOC_HEADER_BYTES);
	one_segment_close(&o);
	free(b);
}

/* Past the bytes a census may read: the segment is not read. */
static void test_walk_byte_limit(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct one_segment o;

	one_segment_open(&o, b, 0);
	o.limits.max_bytes = HEAP_MIMALLOC_HEADER_BYTES - 1;
	assert_int_equal(heap_mimalloc_walk_version(&o.in, 209, &o.w), 0);
	assert_true(o.w.failed);
	assert_non_null(strstr(o.w.why_not, "were spent"));
	assert_int_equal(o.w.bytes_read, 0);
	one_segment_close(&o);
	free(b);
}

/* A header page swapped out is never read (it would be swapped in). */
static void test_walk_swapped_header(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct one_segment o;

	one_segment_open(&o, b, A + 4096);
	assert_int_equal(heap_mimalloc_walk_version(&o.in, 209, &o.w), 0);
	assert_true(o.w.failed);
	assert_non_null(strstr(o.w.why_not, "swapped out"));
	assert_int_equal(o.w.bytes_read, 4096); /* the first page, to know it is a segment */
	one_segment_close(&o);
	free(b);
}

/* A version whose layout this walker does not know: unknown, saying so. */
static void test_walk_unknown_version(void **state)
{
	(void)state;
	uint8_t *b = usual_segment();
	struct one_segment o;

	one_segment_open(&o, b, 0);
	assert_null(heap_mimalloc_layout(212));
	assert_int_equal(heap_mimalloc_walk_version(&o.in, 212, &o.w), 0);
	assert_true(o.w.failed);
	assert_int_equal(o.w.n_covers, 1);
	assert_string_equal(o.w.why_not, "mimalloc 2.1.2: a layout this version does not know");
	assert_int_equal(o.w.bytes_read, 0);
	one_segment_close(&o);
	free(b);
}

/* ------------------------------------------------------------ the version */

/* A minimal ELF64 file: .text holding code, .dynstr and .dynsym naming
 * mi_version at the code. */
static size_t make_elf(uint8_t *b, size_t size, const uint8_t *code, size_t code_len)
{
	static const char dynstr[] = "\0mi_version\0";
	const size_t text_off = 64, text_addr = 0x1000, str_off = 128, sym_off = 160, sh_off = 256;
	memset(b, 0, size);
	memcpy(b, "\x7f" "ELF\x02\x01\x01", 7);
	put_u64(b, 40, sh_off);
	put_u16(b, 58, 64);
	put_u16(b, 60, 4);
	memcpy(b + text_off, code, code_len);
	memcpy(b + str_off, dynstr, sizeof(dynstr));
	/* symbol 1: mi_version, in section 1 (.text) */
	put_u32(b, sym_off + 24, 1);
	put_u16(b, sym_off + 24 + 6, 1);
	put_u64(b, sym_off + 24 + 8, text_addr);
	put_u64(b, sym_off + 24 + 16, code_len);
	/* sections: 0 null, 1 .text, 2 .dynstr, 3 .dynsym (link 2) */
	uint8_t *sh = b + sh_off;
	put_u32(sh + 64, 4, 1);
	put_u64(sh + 64, 16, text_addr);
	put_u64(sh + 64, 24, text_off);
	put_u64(sh + 64, 32, 64);
	put_u32(sh + 128, 4, 3);
	put_u64(sh + 128, 24, str_off);
	put_u64(sh + 128, 32, sizeof(dynstr));
	put_u32(sh + 192, 4, 11);
	put_u64(sh + 192, 24, sym_off);
	put_u64(sh + 192, 32, 48);
	put_u32(sh + 192, 40, 2);
	put_u64(sh + 192, 56, 24);
	return sh_off + 4 * 64;
}

static void test_version_from_code(void **state)
{
	(void)state;
	uint8_t b[1024];
	size_t len;

	len = make_elf(b, sizeof(b), (const uint8_t *)"\xb8\xd1\x00\x00\x00\xc3", 6);
	assert_int_equal(heap_mimalloc_version(b, len), 209);
	len = make_elf(b, sizeof(b), (const uint8_t *)"\xf3\x0f\x1e\xfa\xb8\xd4\x00\x00\x00\xc3", 10);
	assert_int_equal(heap_mimalloc_version(b, len), 212);
	/* aarch64: mov w0, #209; ret */
	len = make_elf(b, sizeof(b), (const uint8_t *)"\x20\x1a\x80\x52\xc0\x03\x5f\xd6", 8);
	assert_int_equal(heap_mimalloc_version(b, len), 209);
	/* code that computes its answer is not read */
	len = make_elf(b, sizeof(b), (const uint8_t *)"\x8b\x05\x00\x00\x00\x00\xc3", 7);
	assert_int_equal(heap_mimalloc_version(b, len), -ENOTSUP);
	/* no such symbol */
	len = make_elf(b, sizeof(b), (const uint8_t *)"\xb8\xd1\x00\x00\x00\xc3", 6);
	b[128 + 1] = 'x';
	assert_int_equal(heap_mimalloc_version(b, len), -ENOENT);
	/* headers out of bounds: every cut, and wild offsets */
	len = make_elf(b, sizeof(b), (const uint8_t *)"\xb8\xd1\x00\x00\x00\xc3", 6);
	for (size_t cut = 0; cut < len; cut++) {
		uint8_t *c = malloc(cut ? cut : 1);
		memcpy(c, b, cut);
		int r = heap_mimalloc_version(c, cut);
		free(c);
		assert_true(r == -EBADMSG || r == -ENOENT);
	}
	uint8_t w[1024];
	memcpy(w, b, sizeof(w));
	put_u64(w, 256 + 192 + 32, (uint64_t)1 << 62); /* .dynsym's size */
	assert_int_equal(heap_mimalloc_version(w, len), -EBADMSG);
	memcpy(w, b, sizeof(w));
	put_u64(w, 160 + 24 + 16, 1 << 20); /* the symbol's size past its section */
	assert_int_equal(heap_mimalloc_version(w, len), -EBADMSG);
	memcpy(w, b, sizeof(w));
	put_u32(w, 256 + 192 + 40, 9); /* .dynsym's string table: no such section */
	assert_int_equal(heap_mimalloc_version(w, len), -EBADMSG);
	memcpy(w, b, sizeof(w));
	w[4] = 1; /* 32-bit */
	assert_int_equal(heap_mimalloc_version(w, len), -EBADMSG);
}

/* Debian's own library, where it is installed. */
static void test_version_of_debian_library(void **state)
{
	(void)state;
	const char *path = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0";
	if (access(path, R_OK) != 0)
		skip();
	size_t len;
	char *elf = slurp(path, &len);
	int v = heap_mimalloc_version((const uint8_t *)elf, len);
	free(elf);
	assert_true(v >= 200 && v < 300);
}

/* The walk reads the library the process maps (here a fixture tree's),
 * and refuses one larger than RW_LIBRARY_READ_MAX. */
static void test_walk_reads_the_library(void **state)
{
	(void)state;
	uint8_t *b = usual_segment(), elf[1024];
	struct one_segment o;
	char dir[256], path[600], lib[300];
	struct stat st;

	assert_int_equal(test_dir_make(dir, sizeof(dir), "heap-mimalloc"), 0);
	snprintf(path, sizeof(path), "%s/proc/77/root/lib", dir);
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	mkdir(path, 0755);
	strcat(path, "/libmimalloc.so.2.0");
	size_t len = make_elf(elf, sizeof(elf), (const uint8_t *)"\xb8\xd1\x00\x00\x00\xc3", 6);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, elf, len), (ssize_t)len);
	close(fd);
	assert_int_equal(stat(path, &st), 0);
	snprintf(lib, sizeof(lib), "%s/proc", dir);

	one_segment_open(&o, b, 0);
	o.regions[1] = (struct region){ .start = 0x7f0000000000, .end = 0x7f0000001000, .inode = st.st_ino,
					.path = "/lib/libmimalloc.so.2.0", .cls = CLASS_IMAGES };
	memcpy(o.regions[1].perms, "r--p", 4);
	o.in.n_regions = 2;
	o.in.pid = 77;
	assert_int_equal(heap_mimalloc_walk(&o.in, lib, &o.w), 0);
	assert_false(o.w.failed);
	assert_string_equal(o.w.how, "mimalloc 2.0.9: 1 segment, 2 pages in use");
	one_segment_close(&o);

	/* a library larger than any this walker reads */
	assert_int_equal(truncate(path, RW_LIBRARY_READ_MAX + 1), 0);
	one_segment_open(&o, b, 0);
	o.regions[1] = (struct region){ .start = 0x7f0000000000, .end = 0x7f0000001000, .inode = st.st_ino,
					.path = "/lib/libmimalloc.so.2.0", .cls = CLASS_IMAGES };
	o.in.n_regions = 2;
	o.in.pid = 77;
	assert_int_equal(heap_mimalloc_walk(&o.in, lib, &o.w), 0);
	assert_true(o.w.failed);
	assert_non_null(strstr(o.w.why_not, "its version is not known"));
	one_segment_close(&o);

	/* no library mapped at all */
	one_segment_open(&o, b, 0);
	assert_int_equal(heap_mimalloc_walk(&o.in, lib, &o.w), 0);
	assert_true(o.w.failed);
	assert_non_null(strstr(o.w.why_not, "no libmimalloc mapped"));
	one_segment_close(&o);

	test_dir_remove(dir);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_agrees_with_mimalloc),
		cmocka_unit_test(test_capture_saved_census),
		cmocka_unit_test(test_segment_spans),
		cmocka_unit_test(test_segment_in_use_first),
		cmocka_unit_test(test_segment_cached),
		cmocka_unit_test(test_segment_huge_past_region),
		cmocka_unit_test(test_segment_malformed),
		cmocka_unit_test(test_walk_one_segment),
		cmocka_unit_test(test_walk_retries_then_unknown),
		cmocka_unit_test(test_walk_byte_limit),
		cmocka_unit_test(test_walk_swapped_header),
		cmocka_unit_test(test_walk_unknown_version),
		cmocka_unit_test(test_version_from_code),
		cmocka_unit_test(test_version_of_debian_library),
		cmocka_unit_test(test_walk_reads_the_library),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
