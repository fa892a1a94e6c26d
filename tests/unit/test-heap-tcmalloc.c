/* tcmalloc's heap walk: a capture of a running program read again and
 * checked against the figures MallocExtension printed of itself; the
 * globals' sums on bytes laid out by hand, and every check that refuses
 * them; the build-id that keys the layouts; the walk's bounds (a build it
 * does not know, a page heap larger than [heap], thread caches past
 * RW_TCMALLOC_THREADS_MAX or that move while they are read). */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "classes.h"
#include "elf-read.h"
#include "evidence.h"
#include "heap-tcmalloc.h"
#include "limits.h"
#include "memimage.h"
#include "util.h"

#include "evidence-testlib.h"
#include "test-heap-lib.h"

static const uint8_t minimal_id[20] = { 0x39, 0xdf, 0xd4, 0xa5, 0x85, 0x57, 0x03, 0xfa, 0x6c, 0x24,
					0x69, 0x74, 0x92, 0x82, 0xf7, 0x5b, 0x18, 0xa1, 0xaa, 0x66 };

/* ------------------------------------------------------------ a capture */

/* tests/data/memimage/c-tcmalloc: heapstat-tcmalloc --small=20000
 * --medium=100 --large=2 --huge=8 --threads=1 (libtcmalloc_minimal 2.10),
 * whose MallocExtension said, right before and after the census: */
#define CAPTURE_ALLOCATED 17389768ull /* generic.current_allocated_bytes */
#define CAPTURE_FREE (3497984ull + 3772280ull + 5923840ull + 3118016ull) /* page heap, central, transfer, thread */
#define CAPTURE_LIBRARY 0x7f6b61a13000ull

static void test_capture_agrees_with_tcmalloc(void **state)
{
	(void)state;
	struct capture c;
	struct heap_walk w = { 0 };
	const struct tcmalloc_build *build = heap_tcmalloc_build(minimal_id, sizeof(minimal_id));

	assert_non_null(build);
	capture_open(&c, "c-tcmalloc");
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, build, CAPTURE_LIBRARY, &w), 0);
	assert_false(w.failed);
	assert_string_equal(w.how, "gperftools 2.10 (libtcmalloc_minimal.so.4): page heap 32.1 MiB, 3.34 MiB of it "
				   "free; 86 size classes, 3 thread caches: 12.2 MiB free in the caches");
	struct heap_figures m = capture_figures(&c, &w, CLASS_MALLOC);
	assert_adds_up(&m, c.class_private[CLASS_MALLOC]);
	assert_int_equal(m.in_use, CAPTURE_ALLOCATED);
	assert_int_equal(m.free, CAPTURE_FREE);
	assert_int_equal(m.unknown, 0);
	/* the page heap's free pages, less the one it shares with what is in use */
	assert_true(m.returnable <= 3497984 && m.returnable + 4096 >= 3497984);
	heap_walk_done(&w);
	capture_close(&c);
}

/* ------------------------------------------------------------ the sums */

#define CENTRAL 0x7f0000100000ull
#define FREE_LISTS 0x7f0000200000ull

struct globals {
	uint8_t sizemap[TCMALLOC_SIZEMAP_BYTES];
	uint8_t central[3 * TCMALLOC_CENTRAL_BYTES];
	uint8_t free_lists[TCMALLOC_FREE_LISTS_BYTES];
	struct tcmalloc_globals g;
};

/* Three size classes (0, 16 and 4096 bytes, one page each), a central
 * list of each, a page heap of 64 pages of which 8 free, 2 given back. */
static void make_globals(struct globals *x)
{
	memset(x, 0, sizeof(*x));
	put_u32(x->sizemap, 4224, 3);
	put_u32(x->sizemap, 2684 + 4, 16);
	put_u32(x->sizemap, 2684 + 8, 4096);
	put_u64(x->sizemap, 3200 + 8, 1);
	put_u64(x->sizemap, 3200 + 16, 1);
	put_u32(x->sizemap, 2172 + 4, 32);
	put_u32(x->sizemap, 2172 + 8, 2);
	for (int k = 0; k < 3; k++) {
		uint8_t *c = x->central + k * TCMALLOC_CENTRAL_BYTES;
		uint64_t at = CENTRAL + (uint64_t)k * TCMALLOC_CENTRAL_BYTES;
		put_u64(c, 8, (uint64_t)k);
		put_u64(c, 16 + 16, at + 16); /* empty_: empty */
		put_u64(c, 16 + 24, at + 16);
		put_u64(c, 64 + 16, k ? 0x555500001000 : at + 64); /* nonempty_: spans */
		put_u64(c, 64 + 24, k ? 0x555500001000 : at + 64);
		put_u32(c, 1156, 16);
		put_u32(c, 1160, 64);
	}
	/* class 1: 2 spans, 300 objects free, 3 batches of 32 in the transfer cache */
	put_u64(x->central + TCMALLOC_CENTRAL_BYTES, 112, 2);
	put_u64(x->central + TCMALLOC_CENTRAL_BYTES, 120, 300);
	put_u32(x->central + TCMALLOC_CENTRAL_BYTES, 1152, 3);
	/* class 2: 1 span, 1 object free */
	put_u64(x->central + 2 * TCMALLOC_CENTRAL_BYTES, 112, 1);
	put_u64(x->central + 2 * TCMALLOC_CENTRAL_BYTES, 120, 1);
	for (int j = 0; j < 256; j++) {
		put_u64(x->free_lists, (size_t)j * 48 + 16, FREE_LISTS + (uint64_t)j * 48);
		put_u64(x->free_lists, (size_t)j * 48 + 24, FREE_LISTS + (uint64_t)j * 48);
	}
	put_u64(x->free_lists, 128 * 96, 64 * 8192);
	put_u64(x->free_lists, 128 * 96 + 8, 8 * 8192);
	put_u64(x->free_lists, 128 * 96 + 16, 2 * 8192);
	put_u64(x->free_lists, 128 * 96 + 24, 62 * 8192);
	x->g = (struct tcmalloc_globals){
		.sizemap = x->sizemap, .central = x->central, .central_addr = CENTRAL,
		.free_lists = x->free_lists, .free_lists_addr = FREE_LISTS,
		.globals_start = CENTRAL, .globals_end = FREE_LISTS + TCMALLOC_FREE_LISTS_BYTES,
		.thread_bytes = 5000, .threads = 2,
	};
}

static void test_sums(void **state)
{
	(void)state;
	struct globals x;
	struct tcmalloc_figures f;
	char why[160];

	make_globals(&x);
	assert_int_equal(heap_tcmalloc_classes(x.sizemap), 3);
	assert_int_equal(heap_tcmalloc_sum(&x.g, &f, why, sizeof(why)), 0);
	assert_int_equal(f.classes, 3);
	assert_int_equal(f.system, 64 * 8192);
	assert_int_equal(f.pageheap_free, 8 * 8192);
	assert_int_equal(f.unmapped, 2 * 8192);
	/* free objects and each span's tail: 8192 % 16 = 0, 8192 % 4096 = 0 */
	assert_int_equal(f.central, 300 * 16 + 1 * 4096);
	assert_int_equal(f.transfer, 3 * 32 * 16);
	assert_int_equal(f.thread, 5000);
	assert_int_equal(f.in_use, 64 * 8192 - 8 * 8192 - 2 * 8192 - (300 * 16 + 4096) - 3 * 32 * 16 - 5000);
}

static void test_sums_refused(void **state)
{
	(void)state;
	struct globals x;
	struct tcmalloc_figures f = { .in_use = 77 };
	char why[160];
	enum { CASES = 14 };

	for (int i = 0; i < CASES; i++) {
		make_globals(&x);
		uint8_t *c1 = x.central + TCMALLOC_CENTRAL_BYTES;
		switch (i) {
		case 0: put_u32(x.sizemap, 4224, 1); break;                 /* one class */
		case 1: put_u32(x.sizemap, 2684 + 8, 16); break;            /* sizes not increasing */
		case 2: put_u32(x.sizemap, 2684 + 12, 8); break;            /* a size past the count */
		case 3: put_u64(x.sizemap, 3200 + 8, 0); break;             /* a span of no pages */
		case 4: put_u64(c1, 8, 2); break;                           /* another size class */
		case 5: put_u64(c1, 16 + 16, CENTRAL + 8); break;           /* a list head into the globals */
		case 6: put_u64(c1, 64 + 24, 0); break;                     /* half a list */
		case 7: put_u32(c1, 1152, 17); break;                       /* slots past the cache */
		case 8: put_u64(c1, 120, 2 * 512 + 1); break;               /* more objects than 2 spans hold */
		case 9: put_u64(x.free_lists, 5 * 48 + 16, 0x1001); break;  /* a page heap list misaligned */
		case 10: put_u64(x.free_lists, 128 * 96, 64 * 8192 + 1); break;  /* system bytes not in pages */
		case 11: put_u64(x.free_lists, 128 * 96 + 8, 65 * 8192); break;  /* more free than system */
		case 12: put_u64(x.free_lists, 128 * 96 + 24, 65 * 8192); break; /* committed past system */
		case 13: x.g.thread_bytes = 64 * 8192; break;               /* caches past what was handed out */
		}
		why[0] = '\0';
		int r = heap_tcmalloc_sum(&x.g, &f, why, sizeof(why));
		if (r != -EBADMSG)
			fail_msg("case %d accepted", i);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(f.in_use, 77); /* untouched */
}

/* ------------------------------------------------------------ the build */

static void test_build_table(void **state)
{
	(void)state;
	uint8_t other[20];

	assert_non_null(heap_tcmalloc_build(minimal_id, 20));
	memcpy(other, minimal_id, 20);
	other[19] ^= 1;
	assert_null(heap_tcmalloc_build(other, 20));
	assert_null(heap_tcmalloc_build(minimal_id, 19));
}

/* Debian's own libraries, where they are installed, are the builds the
 * table names. */
static void test_build_id_of_debian_libraries(void **state)
{
	(void)state;
	static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4.5.10",
					     "/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4.5.10" };
	int seen = 0;
	for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
		if (access(paths[i], R_OK) != 0)
			continue;
		size_t len, id_len;
		uint8_t id[64];
		char *elf = slurp(paths[i], &len);
		assert_int_equal(elf_build_id((const uint8_t *)elf, len, id, sizeof(id), &id_len), 0);
		assert_int_equal(id_len, 20);
		assert_non_null(heap_tcmalloc_build(id, id_len));
		/* every cut of the file is refused or found whole, never read past */
		for (size_t cut = 0; cut < len; cut += cut < 4096 ? 7 : 4093) {
			uint8_t *c = malloc(cut ? cut : 1);
			memcpy(c, elf, cut);
			int r = elf_build_id(c, cut, id, sizeof(id), &id_len);
			free(c);
			assert_true(r == 0 || r == -EBADMSG || r == -ENOENT);
		}
		free(elf);
		seen++;
	}
	if (!seen)
		skip();
}

/* ------------------------------------------------------------ the walk */

/* The capture's process, its walk bounded or misled. */
static void test_walk_bounds(void **state)
{
	(void)state;
	struct capture c;
	struct heap_walk w = { 0 };
	struct tcmalloc_build build = *heap_tcmalloc_build(minimal_id, sizeof(minimal_id));

	/* past the byte limit */
	capture_open(&c, "c-tcmalloc");
	c.limits.max_bytes = 4096;
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, &build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "were spent"));
	assert_true(w.bytes_read <= 4096);
	heap_walk_done(&w);
	capture_close(&c);

	/* the globals elsewhere (a build misnamed): nothing there checks out */
	capture_open(&c, "c-tcmalloc");
	build.sizemap = build.central_cache;
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, &build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "size classes do not check out"));
	assert_non_null(strstr(w.why_not, "4 tries"));
	heap_walk_done(&w);
	capture_close(&c);

	/* a page heap larger than [heap]: it maps memory elsewhere */
	capture_open(&c, "c-tcmalloc");
	for (size_t i = 0; i < c.p.n; i++)
		if (c.p.r[i].cls == CLASS_MALLOC && c.p.r[i].rule == classify_rule_from_key("tcmalloc_page_heap"))
			c.p.r[i].end = c.p.r[i].start + 16 * MiB;
	build = *heap_tcmalloc_build(minimal_id, sizeof(minimal_id));
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, &build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "larger than [heap]"));
	heap_walk_done(&w);
	capture_close(&c);
}

/* The capture with its count of thread caches (ThreadCache::
 * thread_heap_count_, at the library's 0x1d7fd0) changed in its image. */
static void capture_with_count(struct capture *c, const char *count_hex)
{
	size_t len;
	char msg[192] = "";
	const char *line = "data 7f6b61beafd0 ";

	capture_open(c, "c-tcmalloc");
	memsource_close(&c->src);
	memimage_free(c->img);
	char *image = slurp(fixture("memimage/c-tcmalloc.img"), &len);
	char *at = strstr(image, line);
	assert_non_null(at);
	memcpy(at + strlen(line), count_hex, 8);
	assert_int_equal(memimage_parse(image, len, &c->img, msg, sizeof(msg)), 0);
	free(image);
	memimage_source(c->img, &c->src);
}

/* Thread caches that do not match their count (one made or gone while
 * they are read) are read again, then unknown; more than a census reads
 * (RW_TCMALLOC_THREADS_MAX) are not read at all. */
static void test_walk_thread_caches(void **state)
{
	(void)state;
	struct capture c;
	struct heap_walk w = { 0 };
	const struct tcmalloc_build *build = heap_tcmalloc_build(minimal_id, sizeof(minimal_id));
	char hex[9];

	capture_with_count(&c, "01000000");
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "more thread caches than their count"));
	assert_non_null(strstr(w.why_not, "4 tries"));
	heap_walk_done(&w);
	capture_close(&c);

	capture_with_count(&c, "05000000");
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "fewer thread caches than their count"));
	heap_walk_done(&w);
	capture_close(&c);

	uint32_t past = RW_TCMALLOC_THREADS_MAX + 1;
	snprintf(hex, sizeof(hex), "%02x%02x%02x%02x", past & 0xff, (past >> 8) & 0xff, (past >> 16) & 0xff, past >> 24);
	capture_with_count(&c, hex);
	assert_int_equal(heap_tcmalloc_walk_build(&c.in, build, CAPTURE_LIBRARY, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "more than a census reads"));
	heap_walk_done(&w);
	capture_close(&c);
}

/* No libtcmalloc mapped, or one whose build the table does not name:
 * unknown, saying which. */
static void test_walk_unknown_library(void **state)
{
	(void)state;
	struct capture c;
	struct heap_walk w = { 0 };
	char dir[256], path[600], proc[300];

	capture_open(&c, "c-tcmalloc");
	for (size_t i = 0; i < c.p.n; i++)
		if (c.p.r[i].path && strstr(c.p.r[i].path, "libtcmalloc"))
			c.p.r[i].path = "/usr/lib/x86_64-linux-gnu/libother.so";
	assert_int_equal(heap_tcmalloc_walk(&c.in, "/proc", &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "no libtcmalloc mapped"));
	heap_walk_done(&w);
	capture_close(&c);

	/* a library of another build, in a fixture tree's root */
	assert_int_equal(test_dir_make(dir, sizeof(dir), "heap-tcmalloc"), 0);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(path, sizeof(path), "%s/proc/55/root/lib", dir);
	for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	mkdir(path, 0755);
	strcat(path, "/libtcmalloc_minimal.so.4");
	const char *real = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0"; /* an ELF file with a build-id */
	size_t len;
	if (access(real, R_OK) != 0) {
		test_dir_remove(dir);
		skip();
	}
	char *elf = slurp(real, &len);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, elf, len), (ssize_t)len);
	close(fd);
	free(elf);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	capture_open(&c, "c-tcmalloc");
	for (size_t i = 0; i < c.p.n; i++)
		if (c.p.r[i].path && strstr(c.p.r[i].path, "libtcmalloc")) {
			c.p.r[i].path = "/lib/libtcmalloc_minimal.so.4";
			c.p.r[i].inode = st.st_ino;
		}
	c.in.pid = 55;
	assert_int_equal(heap_tcmalloc_walk(&c.in, proc, &w), 0);
	assert_true(w.failed);
	assert_non_null(strstr(w.why_not, "a build whose layout this version does not know (build-id "));
	assert_int_equal(w.bytes_read, 0);
	heap_walk_done(&w);
	capture_close(&c);
	test_dir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_agrees_with_tcmalloc),
		cmocka_unit_test(test_sums),
		cmocka_unit_test(test_sums_refused),
		cmocka_unit_test(test_build_table),
		cmocka_unit_test(test_build_id_of_debian_libraries),
		cmocka_unit_test(test_walk_bounds),
		cmocka_unit_test(test_walk_thread_caches),
		cmocka_unit_test(test_walk_unknown_library),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
