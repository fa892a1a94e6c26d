/* The census in JSON: a round trip keeps every number, unknowns stay null,
 * and a broken file is refused with the field that is wrong. */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "census-json.h"
#include "census.h"
#include "limits.h"
#include "scan.h"
#include "util.h"

static struct census *load_fixture(const char *name, const char *status)
{
	struct scan_options o = { .keep_regions = true };
	struct census *c = NULL;
	struct error err;
	char a[4096], b[4096];
	snprintf(a, sizeof(a), "%s", fixture(name));
	if (status)
		snprintf(b, sizeof(b), "%s", fixture(status));
	if (scan_smaps_file(a, status ? b : NULL, &o, &c, &err) < 0)
		fail_msg("%s", err.message);
	return c;
}

static void assert_same_region(const struct census_region *a, const struct census_region *b)
{
	assert_int_equal(a->start, b->start);
	assert_int_equal(a->end, b->end);
	assert_int_equal(a->cls, b->cls);
	assert_string_equal(a->rule, b->rule);
	assert_string_equal(a->why, b->why);
	assert_int_equal(a->private, b->private);
	assert_int_equal(a->resident, b->resident);
	assert_int_equal(a->size, b->size);
	assert_true(streq_ptr(a->path, b->path));
	assert_string_equal(a->perms, b->perms);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct census *a = load_fixture("smaps/python3-threads.smaps", "smaps/python3-threads.status");
	json_t *j = census_to_json(a, true);
	struct census *b = NULL;
	struct error err;
	assert_non_null(j);
	assert_int_equal(census_from_json(j, &b, &err), 0);
	json_decref(j);

	assert_int_equal(b->pid, -1); /* unknown stays unknown */
	assert_int_equal(b->uid, a->uid);
	assert_string_equal(b->comm, "python3");
	assert_null(b->exe);
	assert_memory_equal(&a->totals, &b->totals, sizeof(a->totals));
	for (int k = 0; k < _CLASS_MAX; k++)
		assert_memory_equal(&a->classes[k], &b->classes[k], sizeof(a->classes[k]));
	uint64_t pa, pb;
	assert_true(status_private(&a->status, &pa));
	assert_true(status_private(&b->status, &pb));
	assert_int_equal(pa, pb);
	assert_int_equal(a->status.counter[STATUS_VM_HWM], b->status.counter[STATUS_VM_HWM]);
	assert_int_equal(a->n_largest, b->n_largest);
	for (size_t i = 0; i < a->n_largest; i++)
		assert_same_region(&a->largest[i], &b->largest[i]);
	assert_int_equal(a->n_regions, b->n_regions);
	for (size_t i = 0; i < a->n_regions; i++)
		assert_same_region(&a->regions[i], &b->regions[i]);
	assert_int_equal(a->n_files, b->n_files);
	for (size_t i = 0; i < a->n_files; i++) {
		assert_string_equal(a->files[i].path, b->files[i].path);
		assert_int_equal(a->files[i].kind, b->files[i].kind);
		assert_int_equal(a->files[i].resident, b->files[i].resident);
		assert_int_equal(a->files[i].regions, b->files[i].regions);
	}
	census_free(a);
	census_free(b);
}

/* Addresses above 2^63 and sizes stay exact. */
static void test_exact_numbers(void **state)
{
	(void)state;
	struct census *a = load_fixture("smaps/synthetic-reserving-allocator.smaps", NULL);
	json_t *j = census_to_json(a, true);
	json_t *regions = json_object_get(j, "regions");
	json_t *last = json_array_get(regions, json_array_size(regions) - 1);
	assert_string_equal(json_string_value(json_object_get(last, "start")), "0x7fff20000000");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "totals"), "size")),
			 (json_int_t)a->totals.size);
	assert_true(json_is_null(json_object_get(json_object_get(j, "process"), "pid")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "counters"), "private")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "cost"), "wall_us")));
	json_decref(j);
	census_free(a);
}

static int from_text(const char *text, struct error *err)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);
	struct census *c = NULL;
	if (!j)
		fail_msg("bad test JSON: %s", jerr.text);
	int r = census_from_json(j, &c, err);
	json_decref(j);
	census_free(c);
	return r;
}

/* A valid census as text, with one field replaced. */
static char *valid_with(const char *key_path, const char *replacement)
{
	struct census *a = load_fixture("smaps/bash.smaps", NULL);
	json_t *j = census_to_json(a, false);
	census_free(a);
	char *dot = strchr(key_path, '.');
	json_t *target = j;
	char first[64];
	if (dot) {
		snprintf(first, sizeof(first), "%.*s", (int)(dot - key_path), key_path);
		target = json_object_get(j, first);
		if (json_is_array(target))
			target = json_array_get(target, 0);
		key_path = dot + 1;
	}
	json_error_t jerr;
	json_t *value = replacement ? json_loads(replacement, JSON_DECODE_ANY, &jerr) : NULL;
	if (value)
		json_object_set_new(target, key_path, value);
	else
		json_object_del(target, key_path);
	char *text = json_dumps(j, 0);
	json_decref(j);
	return text;
}

static void test_refused(void **state)
{
	(void)state;
	static const struct {
		const char *path, *value, *words;
	} cases[] = {
		{ "format", "\"something-else\"", "not a ramwatch census" },
		{ "format", NULL, "not a ramwatch census" },
		{ "version", "99", "newer than this ramwatch" },
		{ "totals", NULL, "totals: expected an object" },
		{ "totals.private", "\"12\"", "totals.private: expected a non-negative integer" },
		{ "totals.resident", "-5", "totals.resident: expected a non-negative integer" },
		{ "classes", "{}", "classes: expected an array" },
		{ "classes.key", "\"nonsense\"", "classes[0].key: unknown class \"nonsense\"" },
		{ "classes.count", "null", "classes[0].count" },
		{ "largest.start", "\"7f00\"", "largest[0].start: expected an address" },
		{ "largest.class", "\"heap\"", "largest[0].class: unknown class" },
		{ "files.kind", "\"socket\"", "files[0].kind: unknown kind" },
		{ "process", "[]", "process: expected an object" },
		{ "process.pid", "\"42\"", "process.pid" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct error err = { 0 };
		char *text = valid_with(cases[i].path, cases[i].value);
		int r = from_text(text, &err);
		if (r != -EBADMSG || !strstr(err.message, cases[i].words))
			fail_msg("case %zu (%s): %d \"%s\"", i, cases[i].path, r, err.message);
		free(text);
	}
	struct error err;
	assert_int_equal(from_text("[1, 2]", &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not a JSON object"));
	/* the unchanged text is accepted */
	char *ok = valid_with("source", "\"x\"");
	assert_int_equal(from_text(ok, &err), 0);
	free(ok);
}

/* A mapped file whose name is not UTF-8 (Latin-1 here): the kernel prints
 * its bytes as they are; the JSON must still be valid, the name readable. */
static void test_file_name_not_utf8(void **state)
{
	(void)state;
	const char *text = "7f0000000000-7f0000001000 r--p 00000000 08:01 42 /data/caf\xe9.bin\n"
			   "Size: 4 kB\nRss: 4 kB\nPss: 4 kB\nAnonymous: 0 kB\nSwap: 0 kB\n";
	char path[] = "/tmp/ramwatch-latin1-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct scan_options o = { .keep_regions = true };
	struct census *c = NULL, *back = NULL;
	struct error err;
	assert_int_equal(scan_smaps_file(path, NULL, &o, &c, &err), 0);
	unlink(path);
	json_t *j = census_to_json(c, true);
	assert_non_null(j);
	char *dumped = json_dumps(j, 0);
	assert_non_null(dumped);
	assert_non_null(strstr(dumped, "/data/caf\xef\xbf\xbd.bin")); /* U+FFFD for the bad byte */
	assert_int_equal(census_from_json(j, &back, NULL), 0);
	assert_int_equal(back->n_files, 1);
	free(dumped);
	json_decref(j);
	census_free(back);
	census_free(c);
}

static void test_load_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/ramwatch-test-XXXXXX", path[256];
	struct error err;
	struct census *c = NULL;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/census.json", dir);

	FILE *f = fopen(path, "w");
	fputs("{\"format\": \"ramwatch-census\", \"format\": 2}", f);
	fclose(f);
	assert_int_equal(census_load_file(path, &c, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not valid JSON (line 1"));

	f = fopen(path, "w");
	fputs("{\"format\": \"ramwatch-census\", \"version\": 1,", f);
	fclose(f);
	assert_int_equal(census_load_file(path, &c, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not valid JSON"));

	/* past the size limit: refused before it is read */
	int fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(ftruncate(fd, (off_t)RW_CENSUS_FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(census_load_file(path, &c, &err), -EFBIG);
	assert_non_null(strstr(err.message, "larger than"));
	assert_int_equal(census_load_file("/nonexistent.json", &c, &err), -ENOENT);
	assert_null(c);
	unlink(path);
	rmdir(dir);
}

/* Writes len bytes of data to path, replacing it. */
static void write_text(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Loads path; returns the error (0 for a census, which is freed). */
static int load_path(const char *path, struct error *err)
{
	struct census *c = NULL;
	int r = census_load_file(path, &c, err);
	census_free(c);
	return r;
}

/* A valid census with text put where `"private": 1224704` (totals) was. */
static char *valid_replacing_private(const char *replacement)
{
	char *text = valid_with("totals.private", "1224704");
	const char *at = strstr(text, "\"private\": 1224704");
	assert_non_null(at);
	size_t head = (size_t)(at - text), tail_at = head + strlen("\"private\": 1224704");
	char *out = malloc(strlen(text) + strlen(replacement) + 1);
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)head, text, replacement, text + tail_at);
	free(text);
	return out;
}

/* What jansson refuses as it parses, said with where, and the key when
 * a number is past 64 bits. */
static void test_refused_text(void **state)
{
	(void)state;
	static const struct {
		const char *replacement, *words;
	} cases[] = {
		{ "\"private\": 9223372036854775808", "\"private\": a number out of range (line 1" },
		{ "\"private\": 18446744073709551616", "\"private\": a number out of range" },
		{ "\"private\": -9223372036854775809", "\"private\": a number out of range" },
		{ "\"private\": 1, \"private\": 2", "duplicate object key near '\"private\"'" },
		{ "\"private\": 1, \"pr\xff\xfe\": 2", "unable to decode byte 0xff" },
		{ "\"private\": 1, \"pss\": \"a\xc3\"", "unable to decode byte 0xc3" },
	};
	char dir[256], path[300];
	struct error err;
	assert_int_equal(test_dir_make(dir, sizeof(dir), "census-text"), 0);
	snprintf(path, sizeof(path), "%s/census.json", dir);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char *text = valid_replacing_private(cases[i].replacement);
		write_text(path, text, strlen(text));
		free(text);
		int r = load_path(path, &err);
		if (r != -EBADMSG || !strstr(err.message, cases[i].words) || !strstr(err.message, "byte "))
			fail_msg("case %zu: %d \"%s\"", i, r, err.message);
	}
	/* the largest number a census holds is read back exactly */
	char *text = valid_replacing_private("\"private\": 9223372036854775807");
	write_text(path, text, strlen(text));
	free(text);
	struct census *c = NULL;
	assert_int_equal(census_load_file(path, &c, &err), 0);
	assert_int_equal(c->totals.private, (uint64_t)INT64_MAX);
	census_free(c);
	/* a number past 64 bits in an array has no key to name */
	write_text(path, "[1, 99999999999999999999]", 25);
	assert_int_equal(load_path(path, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not valid JSON (line 1, column 24, byte 24: too big integer"));
	/* nesting deeper than jansson's own limit (2048) is refused there */
	size_t depth = 100000;
	char *deep = malloc(2 * depth);
	assert_non_null(deep);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	write_text(path, deep, 2 * depth);
	free(deep);
	assert_int_equal(load_path(path, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "maximum parsing depth reached"));
	write_text(path, "", 0);
	assert_int_equal(load_path(path, &err), -EBADMSG);
	assert_string_equal(err.message, "empty: not a census file");
	unlink(path);
	rmdir(dir);
}

/* Limit: RW_CENSUS_VALUES_MAX JSON values are parsed, one more is refused
 * before jansson builds anything.  "[]," is one array and one comma. */
static void test_values_limit(void **state)
{
	(void)state;
	char dir[256], path[300];
	struct error err;
	assert_int_equal(test_dir_make(dir, sizeof(dir), "census-values"), 0);
	snprintf(path, sizeof(path), "%s/census.json", dir);
	/* {"x": [[],[], ... []], "y": ...}: 2 + n + (n - 1) + 1 values */
	size_t n = (RW_CENSUS_VALUES_MAX - 1) / 2, len = 0;
	char *text = malloc(3 * n + 64);
	assert_non_null(text);
	len += (size_t)sprintf(text, "{\"x\": [");
	for (size_t i = 0; i < n; i++) {
		memcpy(text + len, i ? ",[]" : "[]", i ? 3 : 2);
		len += i ? 3 : 2;
	}
	/* commas and brackets in strings are not values */
	len += (size_t)sprintf(text + len, "], \"y\": \"[,{\\\"[\"}");
	write_text(path, text, len);
	assert_int_equal(load_path(path, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not a ramwatch census"));
	/* one more value: {"x": [...], "y": ..., "z": 1} */
	len--;
	len += (size_t)sprintf(text + len, ", \"z\": 1}");
	write_text(path, text, len);
	free(text);
	assert_int_equal(load_path(path, &err), -E2BIG);
	assert_non_null(strstr(err.message, "more than 4194304 JSON values"));
	unlink(path);
	rmdir(dir);
}

/* A FIFO no process writes to reads as empty, at once. */
static void test_fifo_without_writer(void **state)
{
	(void)state;
	char dir[256], path[300];
	struct error err;
	assert_int_equal(test_dir_make(dir, sizeof(dir), "census-fifo"), 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(load_path(path, &err), -EBADMSG);
	assert_string_equal(err.message, "empty: not a census file");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_exact_numbers),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_file_name_not_utf8),
		cmocka_unit_test(test_refused_text),
		cmocka_unit_test(test_values_limit),
		cmocka_unit_test(test_fifo_without_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
