/* The JVM's heap walk: the hsperfdata parser on files captured from
 * OpenJDK 17 with four collectors (each checked against what jstat read
 * of the same file) and on malformed ones, then the walk itself on a
 * fixture proc tree, where the file is found, confirmed by its inode and
 * turned into spans over the heap's private pages. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "classes.h"
#include "heap-jvm.h"
#include "hsperf.h"
#include "limits.h"
#include "memimage.h"
#include "util.h"

/* ------------------------------------------------------------ the parser */

/* What jstat -gc printed for a captured file: the sums of the columns
 * S0C S1C EC OC (capacity) and S0U S1U EU OU (used), in KiB. */
struct jstat_gc {
	double capacity_kib, used_kib;
	unsigned columns; /* columns with a number (ZGC and Shenandoah print "-" for young) */
};

static struct jstat_gc read_jstat(const char *name)
{
	char path[512];
	size_t len;
	struct jstat_gc j = { 0 };

	snprintf(path, sizeof(path), "hsperfdata/%s.jstat", name);
	char *text = slurp(fixture(path), &len);
	char *line2 = strchr(text, '\n');
	assert_non_null(line2);
	char *save = NULL, *tok = strtok_r(line2 + 1, " \n", &save);
	/* S0C S1C S0U S1U EC EU OC OU */
	static const bool is_capacity[8] = { true, true, false, false, true, false, true, false };
	for (int i = 0; i < 8 && tok; i++, tok = strtok_r(NULL, " \n", &save)) {
		if (strcmp(tok, "-") == 0)
			continue;
		double v = strtod(tok, NULL);
		if (is_capacity[i])
			j.capacity_kib += v;
		else
			j.used_kib += v;
		j.columns++;
	}
	free(text);
	return j;
}

static uint8_t *read_capture(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "hsperfdata/%s.hsperf", name);
	return (uint8_t *)slurp(fixture(path), len);
}

/* Each captured file gives the sums jstat printed, each of its columns
 * rounded to a tenth of a KiB. */
static void test_captures_agree_with_jstat(void **state)
{
	(void)state;
	static const struct {
		const char *name, *gc;
		unsigned spaces;
	} captures[] = {
		{ "java17-g1", "G1", 4 },
		{ "java17-parallel", "Parallel", 4 },
		{ "java17-serial", "Serial", 4 },
		{ "java17-shenandoah", "Shenandoah", 1 },
	};
	for (size_t i = 0; i < ELEMENTSOF(captures); i++) {
		size_t len;
		uint8_t *b = read_capture(captures[i].name, &len);
		struct jstat_gc j = read_jstat(captures[i].name);
		struct hsperf_heap h;
		char why[160] = "";

		int r = hsperf_parse_heap(b, len, &h, why, sizeof(why));
		if (r != 0)
			fail_msg("%s: %s", captures[i].name, why);
		assert_string_equal(h.gc, captures[i].gc);
		assert_int_equal(h.spaces, captures[i].spaces);
		double tolerance = 0.05 * j.columns + 0.01;
		if (h.used / 1024.0 < j.used_kib - tolerance || h.used / 1024.0 > j.used_kib + tolerance ||
		    h.capacity / 1024.0 < j.capacity_kib - tolerance || h.capacity / 1024.0 > j.capacity_kib + tolerance)
			fail_msg("%s: used %" PRIu64 " capacity %" PRIu64 " bytes, jstat %.1f and %.1f KiB",
				 captures[i].name, h.used, h.capacity, j.used_kib, j.capacity_kib);
		assert_true(h.used > 24 * MiB); /* the helper kept 24 MiB */
		free(b);
	}
}

/* A big-endian JVM's file (byte order 0) reads the same: every 4- and
 * 8-byte number of the prologue, the entry headers and the long counters
 * swapped. */
static void swap_bytes(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint8_t t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void to_big_endian(uint8_t *b, size_t len)
{
	uint32_t entries = le32(b + 28), off = le32(b + 24);
	b[4] = 0;
	for (size_t o = 8; o < 32; o += 4)
		swap_bytes(b + o, 4);
	swap_bytes(b + 16, 8); /* mod_time_stamp is one long: its words swap too */
	for (uint32_t i = 0; i < entries; i++) {
		uint8_t *e = b + off;
		uint32_t length = le32(e), data = le32(e + 16);
		assert_true(off + length <= len);
		if (e[12] == 'J')
			swap_bytes(e + data, 8);
		else if (e[12] == 'I')
			swap_bytes(e + data, 4);
		for (size_t o = 0; o < 12; o += 4)
			swap_bytes(e + o, 4);
		swap_bytes(e + 16, 4);
		off += length;
	}
}

static void test_big_endian(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = read_capture("java17-parallel", &len);
	struct hsperf_heap little, big;
	char why[160];

	assert_int_equal(hsperf_parse_heap(b, len, &little, why, sizeof(why)), 0);
	to_big_endian(b, len);
	assert_int_equal(hsperf_parse_heap(b, len, &big, why, sizeof(why)), 0);
	assert_int_equal(big.used, little.used);
	assert_int_equal(big.capacity, little.capacity);
	assert_string_equal(big.gc, little.gc);
	free(b);
}

/* The offset of the entry named name in a little-endian capture. */
static size_t entry_named(const uint8_t *b, const char *name)
{
	uint32_t off = le32(b + 24), entries = le32(b + 28);
	for (uint32_t i = 0; i < entries; i++) {
		if (strcmp((const char *)b + off + le32(b + off + 4), name) == 0)
			return off;
		off += le32(b + off);
	}
	fail_msg("no entry %s", name);
	return 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* Every way a file can be wrong is refused with its reason, and nothing
 * past the bytes given is read (the sanitizers watch). */
static void test_malformed(void **state)
{
	(void)state;
	size_t len;
	uint8_t *orig = read_capture("java17-g1", &len);
	uint8_t *b = malloc(len);
	struct hsperf_heap h = { .used = 12345 };
	char why[160];
	assert_non_null(b);

	/* truncated: shorter than the prologue, then anywhere in the entries
	 * (the file's used part: the rest of it is room for entries to come) */
	size_t used = le32(orig + 8);
	assert_true(used < len);
	for (size_t cut = 0; cut < used; cut += cut < 64 ? 1 : 97) {
		uint8_t *c = malloc(cut ? cut : 1); /* exactly cut bytes: the sanitizers see a read past them */
		assert_non_null(c);
		memcpy(c, orig, cut);
		int r = hsperf_parse_heap(c, cut, &h, why, sizeof(why));
		free(c);
		assert_int_equal(r, -EBADMSG);
	}
	assert_int_equal(h.used, 12345); /* untouched on failure */
	memcpy(b, orig, used);
	assert_int_equal(hsperf_parse_heap(b, used, &h, why, sizeof(why)), 0);

#define REFUSED(expect, change)                                              \
	do {                                                                 \
		memcpy(b, orig, len);                                        \
		change;                                                      \
		assert_int_equal(hsperf_parse_heap(b, len, &h, why, sizeof(why)), expect); \
	} while (0)

	REFUSED(-EBADMSG, b[0] = 0xc0);                 /* wrong magic */
	REFUSED(-EBADMSG, memcpy(b, "\xc0\xc0\xfe\xca", 4)); /* the magic as a little-endian number */
	REFUSED(-EBADMSG, b[4] = 2);                    /* byte order */
	REFUSED(-EBADMSG, b[5] = 1);                    /* major version */
	REFUSED(-EBADMSG, b[6] = 1);                    /* minor version */
	REFUSED(-EBADMSG, b[7] = 7);                    /* accessible neither 0 nor 1 */
	REFUSED(-EAGAIN, b[7] = 0);                     /* not yet accessible */
	REFUSED(-EBADMSG, put32(b + 8, (uint32_t)len + 1)); /* used past the end */
	REFUSED(-EBADMSG, put32(b + 8, 16));            /* used inside the prologue */
	REFUSED(-EBADMSG, put32(b + 24, 8));            /* first entry inside the prologue */
	REFUSED(-EBADMSG, put32(b + 24, le32(orig + 8) + 4)); /* first entry past used */
	REFUSED(-EBADMSG, put32(b + 28, 0x7fffffff));   /* more entries than fit */
	REFUSED(-EBADMSG, put32(b + 28, le32(orig + 28) + 1)); /* one entry past the end */

	size_t e = entry_named(orig, "sun.gc.generation.1.space.0.used");
	uint32_t elen = le32(orig + e);
	REFUSED(-EBADMSG, put32(b + e, 0));                          /* entry length 0: a loop */
	REFUSED(-EBADMSG, put32(b + e, 12));                         /* shorter than its header */
	REFUSED(-EBADMSG, put32(b + e, elen + 4));                   /* not aligned */
	REFUSED(-EBADMSG, put32(b + e, 0x7ffffff8));                 /* past the end */
	REFUSED(-EBADMSG, put32(b + e + 4, 8));                      /* name inside the header */
	REFUSED(-EBADMSG, put32(b + e + 4, elen));                   /* name past the entry */
	REFUSED(-EBADMSG, memset(b + e + 20, 'x', elen - 20));       /* name not terminated */
	REFUSED(-EBADMSG, put32(b + e + 16, elen - 4));              /* data past the entry */
	REFUSED(-EBADMSG, put32(b + e + 16, 0xfffffff8));            /* data offset wraps */
	REFUSED(-EBADMSG, put32(b + e + 16, 21));                    /* data over the name */
	REFUSED(-EBADMSG, b[e + 12] = 'Q');                          /* a type HotSpot does not write */
	REFUSED(-EBADMSG, b[e + 12] = 'I');                          /* a counter that is not a long */
	REFUSED(-EBADMSG, put32(b + e + 8, 0xffffffff));             /* a vector longer than the entry */
	REFUSED(-EBADMSG, memset(b + e + le32(orig + e + 16), 0xff, 8)); /* negative bytes */

	/* used past capacity: read while the collector moved it */
	size_t cap = entry_named(orig, "sun.gc.generation.1.space.0.capacity");
	REFUSED(-EAGAIN, memset(b + cap + le32(orig + cap + 16), 0, 8));
	/* no heap counters at all: a file with its entries but none of them */
	REFUSED(-ENODATA, put32(b + 28, 0));

	/* the original still reads */
	assert_int_equal(hsperf_parse_heap(orig, len, &h, why, sizeof(why)), 0);
	free(b);
	free(orig);
}

/* JDK 7's permanent generation (class metadata) is not heap. */
static void test_perm_generation_excluded(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = read_capture("java17-serial", &len);
	struct hsperf_heap all, without_old;
	char why[160];

	assert_int_equal(hsperf_parse_heap(b, len, &all, why, sizeof(why)), 0);
	/* name the old generation "perm", one byte longer (its entry has room) */
	size_t e = entry_named(b, "sun.gc.generation.1.name");
	uint8_t *name = b + e + le32(b + e + 16);
	assert_memory_equal(name, "old", 4);
	assert_true(le32(b + e + 16) + 5 <= le32(b + e));
	put32(b + e + 8, 5);
	memcpy(name, "perm", 5);
	assert_int_equal(hsperf_parse_heap(b, len, &without_old, why, sizeof(why)), 0);
	assert_int_equal(without_old.spaces, all.spaces - 1);
	assert_true(without_old.capacity < all.capacity);
	free(b);
}

/* ------------------------------------------------------------ the walk */

#define PID 4242
#define HEAP_START 0xf0000000ull
#define HEAP_END 0x100000000ull
#define PERF_START 0x7f0000000000ull

struct walk_fixture {
	char dir[256];
	char proc[300];
	struct region regions[3];
	struct memimage *img;
	struct memsource src;
	struct heap_limits limits;
	struct heap_walk_input in;
	struct heap_walk w;
};

static void write_file(const char *path, const uint8_t *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

static void make_dirs(const char *path)
{
	char p[700];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* A proc tree with process PID whose root holds the capture at
 * /tmp/hsperfdata_java/PID, the regions of its heap (resident_bytes of
 * it resident, from its start) and of the file's mapping, and a memory
 * image saying which heap pages are resident. */
static void fixture_setup(struct walk_fixture *f, const char *capture, uint64_t resident_bytes)
{
	char path[600], image[512];
	size_t len;
	struct stat st;

	memset(f, 0, sizeof(*f));
	assert_int_equal(test_dir_make(f->dir, sizeof(f->dir), "heap-jvm"), 0);
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->dir);
	snprintf(path, sizeof(path), "%s/%d/root/tmp/hsperfdata_java", f->proc, PID);
	make_dirs(path);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%d", PID);
	uint8_t *b = read_capture(capture, &len);
	write_file(path, b, len);
	free(b);
	assert_int_equal(stat(path, &st), 0);

	struct region *heap = &f->regions[0], *perf = &f->regions[2];
	*heap = (struct region){ .start = HEAP_START, .end = HEAP_END, .cls = CLASS_RUNTIME_HEAP };
	memcpy(heap->perms, "rw-p", 4);
	heap->rule = (uint8_t)classify_rule_from_key("jvm_heap");
	region_set_kb(heap, COUNT_ANONYMOUS, resident_bytes / 1024);
	region_set_kb(heap, COUNT_RSS, resident_bytes / 1024);
	/* a region of the same class that is not the heap: not walked */
	f->regions[1] = (struct region){ .start = 0x7e0000000000ull, .end = 0x7e0000100000ull, .cls = CLASS_RUNTIME_HEAP };
	memcpy(f->regions[1].perms, "rw-p", 4);
	region_set_kb(&f->regions[1], COUNT_ANONYMOUS, 1024);
	f->regions[1].rule = (uint8_t)classify_rule_from_key("jvm_reserved");
	*perf = (struct region){ .start = PERF_START, .end = PERF_START + len, .inode = st.st_ino, .cls = CLASS_MAPPED_FILES };
	memcpy(perf->perms, "rw-s", 4);
	snprintf(path, sizeof(path), "/tmp/hsperfdata_java/%d", PID);
	perf->path = strdup(path);

	snprintf(image, sizeof(image), "ramwatch-memory-image 1\nresident %llx %llx\nresident %llx %llx\n",
		 (unsigned long long)HEAP_START, (unsigned long long)(HEAP_START + resident_bytes),
		 0x7e0000000000ull, 0x7e0000100000ull);
	char msg[160];
	assert_int_equal(memimage_parse(image, strlen(image), &f->img, msg, sizeof(msg)), 0);
	memimage_source(f->img, &f->src);
	f->limits = (struct heap_limits){ .max_bytes = 64 * MiB, .retries = 2 };
	f->in = (struct heap_walk_input){
		.src = &f->src, .regions = f->regions, .n_regions = 3, .limits = &f->limits, .pid = PID,
	};
}

static void fixture_done(struct walk_fixture *f)
{
	heap_walk_done(&f->w);
	memsource_close(&f->src);
	memimage_free(f->img);
	free((char *)f->regions[2].path);
	test_dir_remove(f->dir);
}

static struct hsperf_heap capture_heap(const char *name)
{
	size_t len;
	uint8_t *b = read_capture(name, &len);
	struct hsperf_heap h;
	char why[160];
	assert_int_equal(hsperf_parse_heap(b, len, &h, why, sizeof(why)), 0);
	free(b);
	return h;
}

/* The figures of the heap's class from the walk alone. */
static struct heap_figures figures_of(struct walk_fixture *f)
{
	uint64_t priv[_CLASS_MAX] = { 0 };
	struct heap_figures fig[_CLASS_MAX];
	for (size_t i = 0; i < 3; i++)
		priv[f->regions[i].cls] += region_private(&f->regions[i]);
	heap_figures_compute(&f->w, 1, f->regions, 3, priv, fig);
	return fig[CLASS_RUNTIME_HEAP];
}

/* A heap whose touched pages hold all it uses: in use is jstat's used,
 * free the rest of what is private (the capacity never touched counts
 * nowhere), the heap's other region unknown, and the sum exact. */
static void test_walk_reads_the_file(void **state)
{
	(void)state;
	struct walk_fixture f;
	struct hsperf_heap h = capture_heap("java17-g1");
	const uint64_t resident = 64 * MiB;

	fixture_setup(&f, "java17-g1", resident);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_false(f.w.failed);
	assert_int_equal(f.w.cls, CLASS_RUNTIME_HEAP);
	assert_int_equal(f.w.n_covers, 1);
	char used_s[FORMAT_BYTES_MAX], cap_s[FORMAT_BYTES_MAX], how[200];
	snprintf(how, sizeof(how), "hsperfdata: G1, used %s of %s committed, 64.0 MiB of it private",
		 format_bytes(used_s, h.used), format_bytes(cap_s, h.capacity));
	assert_string_equal(f.w.how, how);
	assert_int_equal(f.w.bytes_read, 32768);

	struct heap_figures fig = figures_of(&f);
	assert_true(fig.known);
	assert_int_equal(fig.in_use, h.used);
	assert_int_equal(fig.free, resident - h.used);
	assert_int_equal(fig.overhead, 0);
	assert_int_equal(fig.unknown, 1 * MiB); /* the jvm_reserved region */
	assert_int_equal(fig.in_use + fig.free + fig.overhead + fig.unknown, resident + 1 * MiB);
	fixture_done(&f);
}

/* All the capacity touched: free is capacity less used, and the private
 * bytes past the capacity are the heap's overhead. */
static void test_walk_free_is_capacity_less_used(void **state)
{
	(void)state;
	struct walk_fixture f;
	struct hsperf_heap h = capture_heap("java17-parallel");
	const uint64_t resident = 256 * MiB;

	fixture_setup(&f, "java17-parallel", resident);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	struct heap_figures fig = figures_of(&f);
	assert_int_equal(fig.in_use, h.used);
	assert_int_equal(fig.free, h.capacity - h.used);
	assert_int_equal(fig.overhead, resident - h.capacity);
	fixture_done(&f);
}

/* Fewer private bytes than the heap's used: in use is what is private. */
static void test_walk_in_use_at_most_private(void **state)
{
	(void)state;
	struct walk_fixture f;

	fixture_setup(&f, "java17-g1", 8 * MiB);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	struct heap_figures fig = figures_of(&f);
	assert_int_equal(fig.in_use, 8 * MiB);
	assert_int_equal(fig.free, 0);
	fixture_done(&f);
}

/* What makes the walk give up, each with its reason, the heap unknown. */
static void test_walk_gives_up(void **state)
{
	(void)state;
	struct walk_fixture f;
	char path[600];

	/* no file mapped: -XX:-UsePerfData */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.in.n_regions = 2;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "-XX:-UsePerfData"));
	f.in.n_regions = 3;
	struct heap_figures fig = figures_of(&f);
	assert_int_equal(fig.unknown, 16 * MiB + 1 * MiB);
	assert_int_equal(fig.in_use, 0);
	fixture_done(&f);

	/* a saved census: no live process */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.in.pid = 0;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "live JVM"));
	fixture_done(&f);

	/* a file that is not the one mapped (another inode) */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.regions[2].inode++;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "is not the file mapped"));
	fixture_done(&f);

	/* a symbolic link out of the process's root is not followed there */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	snprintf(path, sizeof(path), "%s/%d/root/tmp/hsperfdata_java/%d", f.proc, PID, PID);
	char outside[600];
	snprintf(outside, sizeof(outside), "%s/outside", f.dir);
	assert_int_equal(rename(path, outside), 0);
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "could not be opened"));
	fixture_done(&f);

	/* a file the JVM is still writing, every try */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	snprintf(path, sizeof(path), "%s/%d/root/tmp/hsperfdata_java/%d", f.proc, PID, PID);
	int fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "\0", 1, 7), 1);
	close(fd);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "3 tries"));
	assert_int_equal(f.w.bytes_read, 3 * 32768);
	fixture_done(&f);

	/* past the bytes a census may read */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.limits.max_bytes = 32767;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_int_equal(f.w.bytes_read, 0);
	fixture_done(&f);

	/* a file larger than any JVM writes (RW_HSPERF_FILE_MAX) */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	snprintf(path, sizeof(path), "%s/%d/root/tmp/hsperfdata_java/%d", f.proc, PID, PID);
	assert_int_equal(truncate(path, RW_HSPERF_FILE_MAX + 1), 0);
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_true(f.w.failed);
	assert_non_null(strstr(f.w.why_not, "not a JVM's"));
	fixture_done(&f);

	/* the process is gone */
	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.in.pid = PID + 1;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), -ESRCH);
	fixture_done(&f);
}

/* A process without a Java heap: nothing, not a failure. */
static void test_walk_no_java_heap(void **state)
{
	(void)state;
	struct walk_fixture f;

	fixture_setup(&f, "java17-g1", 16 * MiB);
	f.regions[0].rule = (uint8_t)classify_rule_from_key("anonymous");
	f.regions[0].cls = CLASS_OTHER;
	assert_int_equal(heap_jvm_walk(&f.in, f.proc, &f.w), 0);
	assert_false(f.w.failed);
	assert_int_equal(f.w.n_covers, 0);
	assert_int_equal(f.w.n_spans, 0);
	fixture_done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures_agree_with_jstat),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_perm_generation_excluded),
		cmocka_unit_test(test_walk_reads_the_file),
		cmocka_unit_test(test_walk_free_is_capacity_less_used),
		cmocka_unit_test(test_walk_in_use_at_most_private),
		cmocka_unit_test(test_walk_gives_up),
		cmocka_unit_test(test_walk_no_java_heap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
