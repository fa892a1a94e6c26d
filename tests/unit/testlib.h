/* Helpers shared by the unit tests: cmocka, fixture paths, parsing a text. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <unistd.h>

#include "classify.h"
#include "macro.h"
#include "region.h"
#include "smaps.h"
#include "strpool.h"
#include "units.h"

/* The path of a fixture under tests/data (RAMWATCH_TEST_DATA overrides). */
static inline const char *fixture(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("RAMWATCH_TEST_DATA");
	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/data", name);
	return buf;
}

/* A directory of the test's own, "$TMPDIR/ramwatch-test-WHAT-XXXXXX"
 * (/tmp without TMPDIR), its path in dir (size bytes).  Returns 0 or -1. */
static inline int test_dir_make(char *dir, size_t size, const char *what)
{
	const char *base = getenv("TMPDIR");
	snprintf(dir, size, "%s/ramwatch-test-%s-XXXXXX", base ? base : "/tmp", what);
	return mkdtemp(dir) ? 0 : -1;
}

/* Removes path and, when it is a directory, everything below it. */
static inline void test_dir_remove(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d) {
		unlink(path);
		return;
	}
	while ((de = readdir(d))) {
		char *p;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&p, "%s/%s", path, de->d_name) < 0)
			break;
		test_dir_remove(p);
		free(p);
	}
	closedir(d);
	rmdir(path);
}

/* A directory of the test's own with a database path in it, for the tests
 * of the store: test_db_setup and test_db_teardown are cmocka's setup and
 * teardown, the struct test_db their state. */
struct test_db {
	char dir[256];
	char db[300]; /* DIR/ramwatch.db, not created */
};

static inline int test_db_setup(void **state)
{
	struct test_db *t = calloc(1, sizeof(*t));
	if (!t || test_dir_make(t->dir, sizeof(t->dir), "store") < 0) {
		free(t);
		return -1;
	}
	snprintf(t->db, sizeof(t->db), "%s/ramwatch.db", t->dir);
	*state = t;
	return 0;
}

static inline int test_db_teardown(void **state)
{
	struct test_db *t = *state;
	test_dir_remove(t->dir);
	free(t);
	return 0;
}

/* Regions parsed from a text, with the pool their paths live in. */
struct parsed {
	struct strpool *paths;
	struct region *r;
	size_t n;
	int error;
	char message[160];
};

static inline void parsed_free(struct parsed *p)
{
	regions_free(p->r);
	strpool_free(p->paths);
	memset(p, 0, sizeof(*p));
}

/* Parses text whole (fed in one piece) and, when classify is set,
 * classifies it with the hints given (NULL: none). */
static inline struct parsed parse_text_ex(const char *text, size_t len, bool classify,
					  const struct classify_hints *hints)
{
	struct parsed out = { .paths = strpool_new() };
	struct smaps_parser p;
	assert_non_null(out.paths);
	smaps_parser_init(&p, 0, out.paths);
	out.error = smaps_parser_feed(&p, text, len);
	if (out.error == 0)
		out.error = smaps_parser_finish(&p);
	memcpy(out.message, p.message, sizeof(out.message));
	out.r = smaps_parser_take(&p, &out.n);
	smaps_parser_done(&p);
	if (out.error == 0 && classify)
		assert_int_equal(classify_regions(out.r, out.n, hints), 0);
	return out;
}

static inline struct parsed parse_text(const char *text)
{
	return parse_text_ex(text, strlen(text), false, NULL);
}

static inline struct parsed classify_text(const char *text, const struct classify_hints *hints)
{
	return parse_text_ex(text, strlen(text), true, hints);
}

/* The region starting at start, or a test failure. */
static inline const struct region *region_at(const struct parsed *p, uint64_t start)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].start == start)
			return &p->r[i];
	fail_msg("no region starts at 0x%llx", (unsigned long long)start);
	return NULL;
}

/* Asserts the class and rule of the region starting at start. */
#define assert_class(p, start, cls_key, rule_key)                                                          \
	do {                                                                                               \
		const struct region *_r = region_at((p), (start));                                         \
		const char *_k = class_key((enum class_id)_r->cls);                                        \
		const char *_rule = classify_rule(_r->rule)->key;                                          \
		if (strcmp(_k, (cls_key)) != 0 || ((rule_key) && strcmp(_rule, (rule_key)) != 0))           \
			fail_msg("region 0x%llx: class %s rule %s, expected %s %s",                         \
				 (unsigned long long)(start), _k, _rule, (cls_key), (rule_key) ? (rule_key) : ""); \
	} while (0)

/* Checks a table of names indexed by an enum, through its accessors: each
 * of the max values has a name, none empty or "?", no two the same, and
 * from_name (NULL: none) finds each by its name.  A value whose row was
 * left out of a designated initialiser fails here by number. */
#define assert_enum_names(what, max, name_of, from_name)                                                   \
	do {                                                                                               \
		int (*_from)(const char *) = (from_name);                                                  \
		for (int _i = 0; _i < (int)(max); _i++) {                                                  \
			const char *_n = name_of(_i);                                                      \
			if (!_n || !_n[0] || strcmp(_n, "?") == 0)                                         \
				fail_msg("%s %d of %d has no name", (what), _i, (int)(max));               \
			for (int _j = 0; _j < _i; _j++)                                                    \
				if (strcmp(name_of(_j), _n) == 0)                                          \
					fail_msg("%s %d and %d are both \"%s\"", (what), _j, _i, _n);      \
			if (_from && _from(_n) != _i)                                                      \
				fail_msg("%s \"%s\" is found as %d, not %d", (what), _n, _from(_n), _i);   \
		}                                                                                          \
	} while (0)

/* Reads a whole file for a test. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Appends one region to f in the kernel's layout (Linux 6.x): rss and anon
 * in bytes (anon counts as Anonymous and Private_Dirty), flags as VmFlags. */
static inline void put_region(FILE *f, uint64_t start, uint64_t end, const char *perms, const char *path,
			      uint64_t rss, uint64_t anon, const char *flags)
{
	static const char *const names[] = { "Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty",
					     "Shared_Clean", "Shared_Dirty", "Private_Clean", "Private_Dirty",
					     "Referenced", "Anonymous", "KSM", "LazyFree", "AnonHugePages",
					     "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb",
					     "Swap", "SwapPss", "Locked" };
	uint64_t v[] = { (end - start) / 1024, 4, 4, rss / 1024, rss / 1024, anon / 1024, 0, 0,
			 (rss - anon) / 1024, anon / 1024, rss / 1024, anon / 1024, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	char head[128];
	snprintf(head, sizeof(head), "%llx-%llx %s 00000000 %s %d ", (unsigned long long)start,
		 (unsigned long long)end, perms, path && path[0] == '/' ? "fe:00" : "00:00",
		 path && path[0] == '/' ? 1234 : 0);
	if (path)
		fprintf(f, "%-73s%s\n", head, path);
	else
		fprintf(f, "%s\n", head);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char label[32];
		snprintf(label, sizeof(label), "%s:", names[i]);
		fprintf(f, "%-16s%8llu kB\n", label, (unsigned long long)v[i]);
	}
	fprintf(f, "THPeligible:    %8d\nVmFlags: %s\n", 0, flags ? flags : "rd wr mr mw me ac ");
}

/* A text built with put_region: open with text_open, close with
 * text_close, which returns the text (free()). */
struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *text_open(struct text *t)
{
	t->f = open_memstream(&t->buf, &t->len);
	assert_non_null(t->f);
	return t->f;
}

static inline char *text_close(struct text *t)
{
	fclose(t->f);
	return t->buf;
}

/* Whether the change watch (daemon/change-watch.h) must load here: as
 * root, on a kernel that describes itself in BTF.  Elsewhere a test of it
 * is skipped, not passed. */
static inline int change_watch_expected(void)
{
	return geteuid() == 0 && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}
