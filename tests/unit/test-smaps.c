/* The smaps parser: every field, every fixture, any chunking, and a clear
 * error naming the line for every kind of malformed input. */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>

#include "limits.h"
#include "util.h"

static const char one_region[] =
	"7f0000000000-7f0000021000 rw-p 00001000 fd:01 123456                     /tmp/my data file (deleted)\n"
	"Size:                132 kB\n"
	"KernelPageSize:        4 kB\n"
	"MMUPageSize:           4 kB\n"
	"Rss:                 100 kB\n"
	"Pss:                  50 kB\n"
	"Pss_Dirty:            10 kB\n"
	"Shared_Clean:         20 kB\n"
	"Shared_Dirty:         30 kB\n"
	"Private_Clean:        40 kB\n"
	"Private_Dirty:        10 kB\n"
	"Referenced:           90 kB\n"
	"Anonymous:            10 kB\n"
	"KSM:                   1 kB\n"
	"LazyFree:              2 kB\n"
	"AnonHugePages:         3 kB\n"
	"ShmemPmdMapped:        4 kB\n"
	"FilePmdMapped:         5 kB\n"
	"Shared_Hugetlb:        6 kB\n"
	"Private_Hugetlb:       7 kB\n"
	"Swap:                  8 kB\n"
	"SwapPss:               9 kB\n"
	"Locked:               11 kB\n"
	"THPeligible:           1\n"
	"ProtectionKey:         3\n"
	"VmFlags: rd wr mr mw me ac sd nh \n";

static void test_every_field(void **state)
{
	(void)state;
	struct parsed p = parse_text(one_region);
	assert_int_equal(p.error, 0);
	assert_int_equal(p.n, 1);
	const struct region *r = &p.r[0];
	assert_int_equal(r->start, 0x7f0000000000ull);
	assert_int_equal(r->end, 0x7f0000021000ull);
	assert_memory_equal(r->perms, "rw-p", 4);
	assert_int_equal(r->offset, 0x1000);
	assert_int_equal(r->dev_major, 0xfd);
	assert_int_equal(r->dev_minor, 1);
	assert_int_equal(r->inode, 123456);
	assert_string_equal(r->path, "/tmp/my data file (deleted)");
	/* every field is read and checked; the counts of doc/design.md#the-census are kept */
	static const uint64_t expect[_COUNT_MAX] = {
		[COUNT_RSS] = 100, [COUNT_PSS] = 50, [COUNT_SHARED_CLEAN] = 20, [COUNT_SHARED_DIRTY] = 30,
		[COUNT_PRIVATE_CLEAN] = 40, [COUNT_PRIVATE_DIRTY] = 10, [COUNT_ANONYMOUS] = 10,
		[COUNT_ANON_HUGE_PAGES] = 3, [COUNT_SWAP] = 8, [COUNT_SWAP_PSS] = 9, [COUNT_LOCKED] = 11,
		[COUNT_SHARED_HUGETLB] = 6, [COUNT_PRIVATE_HUGETLB] = 7,
	};
	for (int k = 0; k < _COUNT_MAX; k++)
		if (region_field(r, (enum region_count)k) != expect[k] * 1024)
			fail_msg("count %d: %llu", k, (unsigned long long)region_field(r, (enum region_count)k));
	for (int f = 0; f < _SMAPS_FIELD_MAX; f++)
		if (f != SMAPS_PSS_ANON && f != SMAPS_PSS_FILE && f != SMAPS_PSS_SHMEM)
			assert_true(r->present & (1u << f));
	assert_true(r->present & (1u << SMAPS_SIZE));
	assert_int_equal(r->thp_eligible, 1);
	assert_int_equal(r->protection_key, 3);
	assert_true(region_has_flag(r, VMF_RD));
	assert_true(region_has_flag(r, VMF_AC));
	assert_true(region_has_flag(r, VMF_SD));
	assert_true(region_has_flag(r, VMF_NH));
	assert_false(region_has_flag(r, VMF_EX));
	assert_false(region_has_flag(r, VMF_SH));
	/* the census's definitions */
	assert_int_equal(region_private(r), 18 * KiB);
	assert_int_equal(region_resident(r), 100 * KiB);
	parsed_free(&p);
}

/* Any cut of the input gives the same regions: byte by byte, and in every
 * chunk size from 1 to 64. */
static void assert_same(const struct parsed *a, const struct parsed *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct region *x = &a->r[i], *y = &b->r[i];
		assert_int_equal(x->start, y->start);
		assert_int_equal(x->end, y->end);
		assert_true(streq_ptr(x->path, y->path));
		assert_memory_equal(x->kb_low, y->kb_low, sizeof(x->kb_low));
		assert_memory_equal(x->kb_high, y->kb_high, sizeof(x->kb_high));
		assert_int_equal(x->vmflags, y->vmflags);
		assert_int_equal(x->present, y->present);
		assert_int_equal(x->thp_eligible, y->thp_eligible);
	}
}

static struct parsed parse_chunked(const char *text, size_t len, size_t chunk)
{
	struct parsed out = { .paths = strpool_new() };
	struct smaps_parser p;
	smaps_parser_init(&p, 0, out.paths);
	for (size_t off = 0; off < len && out.error == 0; off += chunk)
		out.error = smaps_parser_feed(&p, text + off, len - off < chunk ? len - off : chunk);
	if (out.error == 0)
		out.error = smaps_parser_finish(&p);
	memcpy(out.message, p.message, sizeof(out.message));
	out.r = smaps_parser_take(&p, &out.n);
	smaps_parser_done(&p);
	return out;
}

static void test_chunking(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp(fixture("smaps/java17-g1.smaps"), &len);
	struct parsed whole = parse_text_ex(text, len, false, NULL);
	assert_int_equal(whole.error, 0);
	assert_int_equal(whole.n, 207);
	for (size_t chunk = 1; chunk <= 64; chunk++) {
		struct parsed part = parse_chunked(text, len, chunk);
		assert_int_equal(part.error, 0);
		assert_same(&whole, &part);
		parsed_free(&part);
	}
	struct parsed big = parse_chunked(text, len, 4093);
	assert_same(&whole, &big);
	parsed_free(&big);
	parsed_free(&whole);
	free(text);
}

/* Every fixture parses, with as many regions as header lines. */
static void test_fixtures(void **state)
{
	(void)state;
	DIR *d = opendir(fixture("smaps"));
	struct dirent *de;
	int seen = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[4096];
		size_t len, headers = 0;
		if (!endswith(de->d_name, ".smaps"))
			continue;
		snprintf(path, sizeof(path), "%s", fixture("smaps"));
		strncat(path, "/", sizeof(path) - strlen(path) - 1);
		strncat(path, de->d_name, sizeof(path) - strlen(path) - 1);
		char *text = slurp(path, &len);
		for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
			if ((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f'))
				headers++;
		struct parsed p = parse_text_ex(text, len, false, NULL);
		if (p.error)
			fail_msg("%s: %s", de->d_name, p.message);
		assert_int_equal(p.n, headers);
		for (size_t i = 0; i < p.n; i++)
			assert_true(p.r[i].end > p.r[i].start);
		/* fed a byte at a time every line takes the general path: the
		 * fast paths must agree with it */
		struct parsed slow = parse_chunked(text, len, 1);
		assert_int_equal(slow.error, 0);
		assert_same(&p, &slow);
		parsed_free(&slow);
		parsed_free(&p);
		free(text);
		seen++;
	}
	closedir(d);
	assert_true(seen >= 10);
}

static void test_tolerated(void **state)
{
	(void)state;
	/* unknown fields (a newer kernel), missing ones (an older one),
	 * CRLF line ends, blank lines, no newline at the end, spacing other
	 * than the kernel's */
	const char text[] = "00400000-00401000 r-xp 00000000 08:01 77      /bin/x\r\n"
			    "Size: 4 kB\r\n"
			    "Rss:      4 kB\r\n"
			    "Shiny_New_Field:   12 kB\r\n"
			    "AnotherOne: some text\r\n"
			    "\r\n"
			    "00401000-00402000 rw-p 00000000 00:00 0 \n"
			    "\n"
			    "00500000-00600000 ---p 00000000 00:00 0\n"
			    "Rss:                   0 kB\n"
			    "Anonymous:             0 kB";
	struct parsed p = parse_text(text);
	assert_int_equal(p.error, 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.r[0].path, "/bin/x");
	assert_int_equal(region_field(&p.r[0], COUNT_RSS), 4 * KiB);
	assert_false(p.r[0].present & (1u << SMAPS_ANONYMOUS));
	assert_null(p.r[1].path);
	assert_int_equal(p.r[1].present, 0);
	assert_int_equal(p.r[1].thp_eligible, -1);
	assert_true(p.r[2].present & (1u << SMAPS_ANONYMOUS));
	parsed_free(&p);

	/* /proc/PID/maps: headers only */
	struct parsed m = parse_text("00400000-00401000 r-xp 00000000 08:01 77 /bin/x\n"
				     "7ffd0000-7ffd1000 rw-p 00000000 00:00 0 [stack]\n");
	assert_int_equal(m.error, 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.r[1].path, "[stack]");
	parsed_free(&m);

	/* smaps_rollup: one region named [rollup] with the Pss split */
	struct parsed r = parse_text("00400000-7ffd1000 ---p 00000000 00:00 0    [rollup]\n"
				     "Rss:                 400 kB\nPss:                 300 kB\n"
				     "Pss_Anon:            100 kB\nPss_File:            150 kB\nPss_Shmem:            50 kB\n"
				     "Anonymous:           100 kB\nSwap:                  0 kB\n");
	assert_int_equal(r.error, 0);
	assert_true(r.r[0].present & (1u << SMAPS_PSS_FILE));
	assert_int_equal(region_field(&r.r[0], COUNT_PSS), 300 * KiB);
	parsed_free(&r);

	/* nothing at all is no region, not an error (a kernel thread's smaps) */
	struct parsed e = parse_text("");
	assert_int_equal(e.error, 0);
	assert_int_equal(e.n, 0);
	parsed_free(&e);
}

static void test_names_and_paths(void **state)
{
	(void)state;
	struct parsed p = parse_text("10000-11000 rw-p 00000000 00:00 0                          [anon:my cache, 2]\n"
				     "11000-12000 rw-s 00000000 00:01 9 /memfd:some name (deleted)\n"
				     "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n");
	assert_int_equal(p.error, 0);
	assert_string_equal(p.r[0].path, "[anon:my cache, 2]");
	assert_string_equal(p.r[1].path, "/memfd:some name (deleted)");
	assert_int_equal(p.r[2].start, 0xffffffffff600000ull);
	/* interning: one copy of a repeated path */
	struct parsed q = parse_text("10000-11000 r--p 00000000 08:01 7 /lib/a.so\n"
				     "11000-12000 r-xp 00001000 08:01 7 /lib/a.so\n"
				     "20000-21000 r--p 00000000 08:01 8 /lib/b.so\n"
				     "30000-31000 rw-p 00002000 08:01 7 /lib/a.so\n");
	assert_ptr_equal(q.r[0].path, q.r[1].path);
	assert_ptr_equal(q.r[0].path, q.r[3].path);
	assert_ptr_not_equal(q.r[0].path, q.r[2].path);
	parsed_free(&p);
	parsed_free(&q);
}

struct bad_case {
	const char *text;
	int error;
	unsigned line;
	const char *words;
};

static void test_malformed(void **state)
{
	(void)state;
	static const struct bad_case cases[] = {
		{ "7f00-", -EBADMSG, 1, "bad end address" },
		{ "zz00-1000 rw-p 0 00:00 0\n", -EBADMSG, 1, "neither a region header nor a field" },
		{ "1000-2000 rw-p 00000000 00:00 0\nSize: 4 kB\nRss: 1x kB\n", -EBADMSG, 3, "Rss: expected a size in kB" },
		{ "1000-2000 rw-p 00000000 00:00 0\nRss: 4\n", -EBADMSG, 2, "expected a size in kB" },
		{ "1000-2000 rw-p 00000000 00:00 0\nRss: kB\n", -EBADMSG, 2, "Rss: not a number" },
		{ "1000-2000 rwzp 00000000 00:00 0\n", -EBADMSG, 1, "bad permissions" },
		{ "1000-2000 rw 00000000 00:00 0\n", -EBADMSG, 1, "bad permissions" },
		{ "2000-1000 rw-p 00000000 00:00 0\n", -EBADMSG, 1, "end address not above start" },
		{ "1000-2000 rw-p 00000000 0000 0\n", -EBADMSG, 1, "bad device" },
		{ "1000-2000 rw-p 00000000 00:00 x\n", -EBADMSG, 1, "bad inode" },
		{ "1000-2000 rw-p zz 00:00 0\n", -EBADMSG, 1, "bad offset" },
		{ "10000000000000000-10000000000000001 rw-p 0 00:00 0\n", -EBADMSG, 1, "bad start address" },
		{ "Rss: 4 kB\n", -EBADMSG, 1, "field before the first region header" },
		{ "\x01\x02\xff\xfe garbage\n", -EBADMSG, 1, "neither a region header nor a field" },
		{ "1000-2000 rw-p 00000000 00:00 0\nSize: 4 kB\nRss: 4 kB\nRss: 4 kB\n", -EBADMSG, 4, "repeated" },
		{ "1000-2000 rw-p 00000000 00:00 0\nSize: 8 kB\n", -EBADMSG, 2, "does not match" },
		/* the same in the kernel's own layout, which takes the fast path */
		{ "1000-2000 rw-p 00000000 00:00 0\nSize:                  0 kB\n", -EBADMSG, 2, "does not match" },
		{ "1000-2000 rw-p 00000000 00:00 0\nSize:                  4 kB\nRss:                   4 kB\n"
		  "Rss:                   4 kB\n", -EBADMSG, 4, "repeated" },
		{ "1000-2000 rw-p 00000000 00:00 0\nSize:                  4 kB\nRss:                  4x kB\n",
		  -EBADMSG, 3, "Rss: expected a size in kB" },
		{ "1000-2000 rw-p 00000000 00:00 0\n1000-3000 rw-p 00000000 00:00 0\n", -EBADMSG, 2, "overlaps" },
		{ "1000-2000 rw-p 00000000 00:00 0\nRss: 99999999999999999999999 kB\n", -EBADMSG, 2, "not a number" },
		{ "1000-2000 rw-p 00000000 00:00 0\nVmFlags: rd wrx\n", -EBADMSG, 2, "malformed VmFlags" },
		{ "1000-2000 rw-p 00000000 00:00 0\nTHPeligible: yes\n", -EBADMSG, 2, "THPeligible: not a number" },
		{ "1000-2000 rw-p 00000000 00:00 0\nRss:  4 kB\nbroken line\n", -EBADMSG, 3, "neither" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct parsed p = parse_text(cases[i].text);
		char want[32];
		snprintf(want, sizeof(want), "line %u: ", cases[i].line);
		if (p.error != cases[i].error || !startswith(p.message, want) || !strstr(p.message, cases[i].words))
			fail_msg("case %zu: error %d, message \"%s\"; expected line %u, \"%s\"", i, p.error, p.message,
				 cases[i].line, cases[i].words);
		parsed_free(&p);
	}
}

static void test_nul_bytes(void **state)
{
	(void)state;
	static const char text[] = "1000-2000 rw-p 00000000 00:00 0    /tmp/a\0b\n";
	struct parsed p = parse_text_ex(text, sizeof(text) - 1, false, NULL);
	assert_int_equal(p.error, -EBADMSG);
	assert_non_null(strstr(p.message, "line 1: binary data"));
	parsed_free(&p);
	static const char field[] = "1000-2000 rw-p 00000000 00:00 0\nNewThing: \0\n";
	p = parse_text_ex(field, sizeof(field) - 1, false, NULL);
	assert_int_equal(p.error, -EBADMSG);
	assert_non_null(strstr(p.message, "line 2: binary data"));
	parsed_free(&p);
	/* a run of NULs (a sparse file, /dev/zero) is refused in the chunk it
	 * starts in, with its line, not read to the line limit */
	size_t len = 2 * RW_SMAPS_LINE_MAX;
	char *zeros = calloc(1, len);
	assert_non_null(zeros);
	struct smaps_parser sp;
	struct strpool *paths = strpool_new();
	assert_int_equal(smaps_parser_init(&sp, 0, paths), 0);
	static const char head[] = "1000-2000 rw-p 00000000 00:00 0\nRss: 4 kB\n";
	assert_int_equal(smaps_parser_feed(&sp, head, sizeof(head) - 1), 0);
	assert_int_equal(smaps_parser_feed(&sp, zeros, 100), -EBADMSG);
	assert_string_equal(sp.message, "line 3: binary data (NUL byte)");
	assert_int_equal(smaps_parser_feed(&sp, zeros, len), -EBADMSG);
	smaps_parser_done(&sp);
	strpool_free(paths);
	p = parse_text_ex(zeros, len, false, NULL);
	assert_int_equal(p.error, -EBADMSG);
	assert_string_equal(p.message, "line 1: binary data (NUL byte)");
	parsed_free(&p);
	free(zeros);
}

/* Limits: the longest line, the most regions, the largest field value. */
static void test_line_limit(void **state)
{
	(void)state;
	for (size_t extra = 0; extra < 2; extra++) {
		size_t path_len = RW_SMAPS_LINE_MAX - 40 + extra * 100;
		char *text = malloc(path_len + 200);
		int n = sprintf(text, "1000-2000 rw-p 00000000 00:00 0 /");
		memset(text + n, 'a', path_len);
		strcpy(text + n + path_len, "\nRss: 4 kB\n");
		/* fed in small pieces too: the limit holds across chunks */
		struct parsed whole = parse_text(text);
		struct parsed part = parse_chunked(text, strlen(text), 1000);
		if (extra == 0) {
			assert_int_equal(whole.error, 0);
			assert_int_equal(part.error, 0);
			assert_int_equal(strlen(whole.r[0].path), path_len + 1);
		} else {
			assert_int_equal(whole.error, -EBADMSG);
			assert_non_null(strstr(whole.message, "line 1: longer than"));
			assert_int_equal(part.error, -EBADMSG);
			assert_non_null(strstr(part.message, "line 1: longer than"));
		}
		parsed_free(&whole);
		parsed_free(&part);
		free(text);
	}
}

static void test_region_limit(void **state)
{
	(void)state;
	struct text t;
	FILE *f = text_open(&t);
	for (int i = 0; i < 5; i++)
		put_region(f, 0x10000 + (uint64_t)i * 0x2000, 0x11000 + (uint64_t)i * 0x2000, "rw-p", NULL, 4096, 4096,
			   NULL);
	char *text = text_close(&t);
	struct strpool *pool = strpool_new();
	struct smaps_parser p;
	smaps_parser_init(&p, 4, pool);
	assert_int_equal(smaps_parser_feed(&p, text, strlen(text)), -E2BIG);
	assert_non_null(strstr(p.message, "more than 4 regions"));
	assert_non_null(strstr(p.message, "line 101:")); /* the fifth header */
	smaps_parser_done(&p);
	smaps_parser_init(&p, 5, pool);
	assert_int_equal(smaps_parser_feed(&p, text, strlen(text)), 0);
	assert_int_equal(smaps_parser_finish(&p), 0);
	assert_int_equal(p.n_regions, 5);
	smaps_parser_done(&p);
	strpool_free(pool);
	free(text);
}

static void test_field_limit(void **state)
{
	(void)state;
	char text[256];
	/* 2^40 - 1 kB is kept exactly; 2^40 kB is refused, not truncated */
	snprintf(text, sizeof(text), "1000-2000 rw-p 00000000 00:00 0\nSwap: %llu kB\n",
		 (unsigned long long)REGION_FIELD_KB_MAX);
	struct parsed p = parse_text(text);
	assert_int_equal(p.error, 0);
	assert_int_equal(region_field(&p.r[0], COUNT_SWAP), REGION_FIELD_KB_MAX * 1024);
	parsed_free(&p);
	snprintf(text, sizeof(text), "1000-2000 rw-p 00000000 00:00 0\nSwap: %llu kB\n",
		 (unsigned long long)REGION_FIELD_KB_MAX + 1);
	p = parse_text(text);
	assert_int_equal(p.error, -EBADMSG);
	assert_non_null(strstr(p.message, "line 2: Swap:"));
	parsed_free(&p);
	/* a field that is only checked has no such limit */
	snprintf(text, sizeof(text), "1000-2000 rw-p 00000000 00:00 0\nReferenced: %llu kB\n",
		 (unsigned long long)REGION_FIELD_KB_MAX + 1);
	p = parse_text(text);
	assert_int_equal(p.error, 0);
	parsed_free(&p);
}

/* An error is sticky: later input is not parsed, the first message stays. */
static void test_sticky_error(void **state)
{
	(void)state;
	struct strpool *pool = strpool_new();
	struct smaps_parser p;
	smaps_parser_init(&p, 0, pool);
	assert_int_equal(smaps_parser_feed(&p, "garbage\n", 8), -EBADMSG);
	assert_int_equal(smaps_parser_feed(&p, "1000-2000 rw-p 00000000 00:00 0\n", 32), -EBADMSG);
	assert_int_equal(smaps_parser_finish(&p), -EBADMSG);
	assert_non_null(strstr(p.message, "line 1:"));
	smaps_parser_done(&p);
	strpool_free(pool);
}

/* The field tables are whole: every smaps field has the kernel's name and
 * ours, every count is kept from exactly one field, and every VmFlags code
 * is two letters that find their flag. */
static void test_field_tables(void **state)
{
	(void)state;
	assert_enum_names("smaps field", _SMAPS_FIELD_MAX, smaps_field_kernel_name, NULL);
	assert_enum_names("smaps field (JSON)", _SMAPS_FIELD_MAX, smaps_field_json_name, NULL);
	/* a field left out of region.c's kept[] would keep count 0 (Rss) */
	for (int c = 0; c < _COUNT_MAX; c++) {
		int fields = 0;
		for (int f = 0; f < _SMAPS_FIELD_MAX; f++)
			fields += region_count_of_field((enum smaps_field)f) == c;
		if (fields != 1)
			fail_msg("count %d is kept from %d fields", c, fields);
	}
	for (int f = 0; f < _SMAPS_FIELD_MAX; f++) {
		int c = region_count_of_field((enum smaps_field)f);
		if (c < -1 || c >= _COUNT_MAX)
			fail_msg("smaps field %s is kept as %d", smaps_field_kernel_name((enum smaps_field)f), c);
	}
	assert_enum_names("VmFlags code", _VMF_MAX, vmflag_code, NULL);
	for (int f = 0; f < _VMF_MAX; f++) {
		const char *code = vmflag_code((enum vmflag)f);
		if (strlen(code) != 2 || vmflag_from_code(code) != f)
			fail_msg("VmFlags code \"%s\" finds %d, not %d", code, vmflag_from_code(code), f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_tables),
		cmocka_unit_test(test_every_field),    cmocka_unit_test(test_chunking),
		cmocka_unit_test(test_fixtures),       cmocka_unit_test(test_tolerated),
		cmocka_unit_test(test_names_and_paths), cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_bytes),      cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_region_limit),   cmocka_unit_test(test_field_limit),
		cmocka_unit_test(test_sticky_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
