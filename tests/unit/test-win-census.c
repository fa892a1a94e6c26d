/* The Windows census from captured region lists (tests/data/windows,
 * written by make-fixtures.py): every shape in its class with its rule,
 * figures exact, conservation (class totals = totals; private = the commit
 * charge the walk saw), the JSON round trip with the platform and the
 * Windows section, and captures broken in one way each, refused with the
 * field that is wrong. */
#include "testlib.h"

#include <errno.h>
#include <inttypes.h>

#include "census-json.h"
#include "census.h"
#include "fileio.h"
#include "limits.h"
#include "util.h"
#include "win-capture.h"
#include "win-census.h"

static struct win_capture *load(const char *name)
{
	struct win_capture *cap = NULL;
	struct error err = { 0 };
	if (win_capture_load_file(fixture(name), &cap, &err) < 0)
		fail_msg("%s", err.message);
	return cap;
}

static struct census *build(const struct win_capture *cap)
{
	struct census *c = NULL;
	struct error err = { 0 };
	if (win_census_build(cap->regions, cap->n, &cap->process, 10, true, &c, &err) < 0)
		fail_msg("%s", err.message);
	return c;
}

/* The commit charge, counted here from the regions themselves. */
static uint64_t commit_charge(const struct win_capture *cap)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < cap->n; i++) {
		const struct win_region *r = &cap->regions[i];
		uint32_t p = r->protect & 0xff;
		if (r->state != WIN_MEM_COMMIT)
			continue;
		if (r->type == WIN_MEM_PRIVATE || p == WIN_PAGE_WRITECOPY ||
		    (r->type == WIN_MEM_IMAGE && p == WIN_PAGE_READWRITE))
			sum += r->size;
	}
	return sum;
}

static const struct census_region *win_region_at(const struct census *c, uint64_t start)
{
	for (size_t i = 0; i < c->n_regions; i++)
		if (c->regions[i].start == start)
			return &c->regions[i];
	fail_msg("no region at 0x%" PRIx64, start);
	return NULL;
}

static void expect_class(const struct census *c, enum class_id k, uint64_t private, uint64_t resident, uint64_t count)
{
	if (c->classes[k].private != private || c->classes[k].resident != resident || c->classes[k].count != count)
		fail_msg("%s: private %" PRIu64 ", resident %" PRIu64 ", %" PRIu64 " regions", class_key(k),
			 c->classes[k].private, c->classes[k].resident, c->classes[k].count);
}

static void test_every_shape(void **state)
{
	(void)state;
	struct win_capture *cap = load("windows/mixed.json");
	struct census *c = build(cap);

	assert_int_equal(c->platform, PLATFORM_WINDOWS);
	assert_int_equal(c->pid, 4242);
	assert_int_equal(c->start_time, 133774560000000000);
	assert_string_equal(c->comm, "python.exe");
	assert_string_equal(c->cmdline, "python.exe train.py");
	assert_string_equal(c->windows.owner, "LAB\\ada");
	assert_int_equal(c->windows.residency, RESIDENCY_EXACT);
	assert_int_equal(c->windows.reservations, 18);
	assert_int_equal(c->totals.count, 18);
	assert_int_equal(c->windows.private_usage, 1197 * MiB);

	expect_class(c, CLASS_MMGP_RAM, 1 * GiB, 2 * MiB, 1);
	expect_class(c, CLASS_MALLOC, 1 * MiB + 256 * KiB + 64 * MiB, 512 * KiB + 256 * KiB + 64 * MiB, 3);
	expect_class(c, CLASS_OPENBLAS, 32 * MiB, 64 * KiB, 1);
	expect_class(c, CLASS_OTHER, 3 * MiB, 3 * MiB, 2);
	expect_class(c, CLASS_PINNED_CUDA, 2 * MiB, 2 * MiB, 1);
	expect_class(c, CLASS_PYTHON, 1 * MiB, 512 * KiB, 1);
	expect_class(c, CLASS_GPU_DRIVER, 1 * MiB, 0, 1);
	expect_class(c, CLASS_JIT, 64 * KiB, 64 * KiB, 1);
	expect_class(c, CLASS_STACKS, 64 * KiB, 40 * KiB, 2);
	/* images: the copy-on-write pages, copied (read-write) or not */
	expect_class(c, CLASS_IMAGES, 16 * KiB, 20 * KiB + 32 * KiB + 4 * KiB, 3);
	expect_class(c, CLASS_MAPPED_FILES, 0, 4 * MiB, 1);
	expect_class(c, CLASS_SHARED, 0, 1 * MiB, 1);
	expect_class(c, CLASS_RUNTIME_HEAP, 0, 0, 0);

	static const struct {
		uint64_t start;
		const char *rule;
	} rules[] = {
		{ 0x10000000, "win_nt_heap" },	       { 0x11000000, "win_segment_heap" },
		{ 0x12000000, "win_thread_stack" },    { 0x12100000, "win_guard_stack" },
		{ 0x20000000, "win_mapped_file" },     { 0x21000000, "win_section" },
		{ 0x22000000, "win_write_combine" },   { 0x30000000, "win_jit" },
		{ 0x31000000, "win_pymalloc_arena" },  { 0x32000000, "win_openblas_buffer" },
		{ 0x40000000, "win_reserved" },	       { 0x50000000, "win_private" },
		{ 0x51000000, "win_cuda_host" },       { 0x1000000000, "win_reserving_allocator" },
		{ 0x2000000000, "win_mimalloc_arena" }, { 0x7ff6a0000000, "win_image" },
	};
	for (size_t i = 0; i < ELEMENTSOF(rules); i++)
		assert_string_equal(win_region_at(c, rules[i].start)->rule, rules[i].rule);
	const struct census_region *heap = win_region_at(c, 0x10000000);
	assert_int_equal(heap->size, 16 * MiB);
	assert_true(heap->confirmed);
	assert_string_equal(heap->evidence, "0xffeeffee read at 0x10000010");
	assert_string_equal(win_region_at(c, 0x20000000)->path, "C:\\data\\weights.bin");

	/* a file's list keeps Windows paths */
	bool found = false;
	for (size_t i = 0; i < c->n_files; i++)
		if (streq(c->files[i].path, "C:\\data\\weights.bin")) {
			found = true;
			assert_int_equal(c->files[i].kind, FILE_DATA);
			assert_int_equal(c->files[i].resident, 4 * MiB);
		}
	assert_true(found);

	/* conservation */
	struct census_totals sum;
	census_class_sum(c, &sum);
	assert_int_equal(sum.private, c->totals.private);
	assert_int_equal(sum.resident, c->totals.resident);
	assert_int_equal(sum.size, c->totals.size);
	assert_int_equal(sum.count, c->totals.count);
	assert_int_equal(c->totals.private, commit_charge(cap));
	assert_int_equal(c->totals.size, c->windows.reserved);
	/* mmgp, mimalloc, reserved only, NT heap, segment heap, two stacks,
	 * file, section, write-combined, jit, pymalloc, openblas, private,
	 * CUDA host, three images */
	assert_int_equal(c->windows.reserved, 64 * GiB + 1 * GiB + 256 * MiB + 16 * MiB + 1 * MiB + 2 * MiB + 4 * MiB +
						       2 * MiB + 1 * MiB + 64 * KiB + 1 * MiB + 32 * MiB + 3 * MiB +
						       2 * MiB + 24 * KiB + 72 * KiB + 16 * KiB);
	assert_int_equal(c->windows.committed, 1 * GiB + 64 * MiB + 1 * MiB + 256 * KiB + 2 * 32 * KiB + 4 * MiB +
						       2 * MiB + 1 * MiB + 64 * KiB + 1 * MiB + 32 * MiB + 3 * MiB +
						       2 * MiB + 24 * KiB + 72 * KiB + 16 * KiB);
	census_free(c);
	win_capture_free(cap);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	struct win_capture *cap = load("windows/mixed.json");
	struct census *c = build(cap), *back = NULL;
	struct error err = { 0 };
	json_t *j = census_to_json(c, true);

	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "process"), "platform")), "windows");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "windows"), "residency")), "exact");
	assert_int_equal(census_from_json(j, &back, &err), 0);
	assert_int_equal(back->platform, PLATFORM_WINDOWS);
	assert_int_equal(back->windows.reserved, c->windows.reserved);
	assert_int_equal(back->windows.committed, c->windows.committed);
	assert_int_equal(back->windows.reservations, 18);
	assert_int_equal(back->windows.working_set, 90 * MiB);
	assert_string_equal(back->windows.owner, "LAB\\ada");
	for (int k = 0; k < _CLASS_MAX; k++) {
		assert_int_equal(back->classes[k].private, c->classes[k].private);
		assert_int_equal(back->classes[k].resident, c->classes[k].resident);
	}
	assert_int_equal(back->n_regions, 18);
	assert_string_equal(win_region_at(back, 0x12000000)->why,
			    "a thread's stack: its TEB's StackBase and StackLimit are in it");

	/* a Windows section in a census of Linux, and a platform unknown, are refused */
	json_object_set_new(json_object_get(j, "process"), "platform", json_string("linux"));
	census_free(back);
	back = NULL;
	assert_int_equal(census_from_json(j, &back, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "windows: present in a census of linux"));
	json_object_set_new(json_object_get(j, "process"), "platform", json_string("beos"));
	assert_int_equal(census_from_json(j, &back, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "process.platform"));
	/* a census without platform (before it was written) is of Linux */
	json_object_del(json_object_get(j, "process"), "platform");
	json_object_del(j, "windows");
	assert_int_equal(census_from_json(j, &back, &err), 0);
	assert_int_equal(back->platform, PLATFORM_LINUX);
	census_free(back);
	json_decref(j);
	census_free(c);
	win_capture_free(cap);
}

/* What Wine gives for another process: no residency; a sample: estimated. */
static void test_residency(void **state)
{
	(void)state;
	struct win_capture *cap = load("windows/mixed.json");
	struct census *c;

	cap->process.residency = RESIDENCY_UNKNOWN;
	cap->process.residency_why = "QueryWorkingSetEx failed (Windows error 87)";
	c = build(cap);
	assert_int_equal(c->windows.residency, RESIDENCY_UNKNOWN);
	assert_int_equal(c->totals.resident, 0);
	assert_int_equal(c->totals.private, commit_charge(cap));
	json_t *j = census_to_json(c, false);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "windows"), "residency")), "unknown");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "windows"), "residency_why")),
			    "QueryWorkingSetEx failed (Windows error 87)");
	json_decref(j);
	census_free(c);

	cap->process.residency = RESIDENCY_EXACT;
	cap->process.residency_why = NULL;
	for (size_t i = 0; i < cap->n; i++)
		if (cap->regions[i].base == 0x1000000000)
			cap->regions[i].resident_estimated = true;
	c = build(cap);
	assert_int_equal(c->windows.residency, RESIDENCY_ESTIMATED);
	assert_int_equal(c->windows.estimated, 2 * MiB);
	census_free(c);
	win_capture_free(cap);
}

static void test_bad_captures(void **state)
{
	(void)state;
	static const struct {
		const char *name, *message;
		int code;
	} cases[] = {
		{ "overlap.json", "overlaps or precedes the one before", -EINVAL },
		{ "below-base.json", "below its allocation base", -EINVAL },
		{ "state.json", "regions[1].state", -EBADMSG },
		{ "type.json", "regions[1].type", -EBADMSG },
		{ "resident.json", "regions[1].resident", -EBADMSG },
		{ "mark.json", "unknown mark \"lfh\"", -EBADMSG },
		{ "base.json", "regions[1].base", -EBADMSG },
		{ "version.json", "newer than this ramwatch", -EBADMSG },
		{ "format.json", "not a Windows region list", -EBADMSG },
		{ "residency.json", "\"mostly\" is not exact", -EBADMSG },
	};
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char name[128];
		struct win_capture *cap = NULL;
		struct census *c = NULL;
		struct error err = { 0 };
		int r;
		snprintf(name, sizeof(name), "windows/bad/%s", cases[i].name);
		r = win_capture_load_file(fixture(name), &cap, &err);
		if (r == 0) {
			r = win_census_build(cap->regions, cap->n, &cap->process, 10, false, &c, &err);
			win_capture_free(cap);
		}
		if (r != cases[i].code || !strstr(err.message, cases[i].message))
			fail_msg("%s: %d %s", cases[i].name, r, err.message);
		assert_null(c);
	}
	struct win_capture *cap = NULL;
	struct error err = { 0 };
	assert_int_equal(win_capture_parse("{", 1, &cap, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not JSON"));
	assert_int_equal(win_capture_parse("[]", 2, &cap, &err), -EBADMSG);
}

/* A capture written by the scanner reads back the same. */
static void test_capture_round_trip(void **state)
{
	(void)state;
	struct win_capture *cap = load("windows/mixed.json"), *back = NULL;
	struct error err = { 0 };
	json_t *j = win_capture_to_json(cap->regions, cap->n, &cap->process);
	char *text = json_dumps(j, 0);

	assert_int_equal(win_capture_parse(text, strlen(text), &back, &err), 0);
	assert_int_equal(back->n, cap->n);
	for (size_t i = 0; i < cap->n; i++) {
		assert_int_equal(back->regions[i].base, cap->regions[i].base);
		assert_int_equal(back->regions[i].size, cap->regions[i].size);
		assert_int_equal(back->regions[i].protect, cap->regions[i].protect);
		assert_int_equal(back->regions[i].resident, cap->regions[i].resident);
		assert_int_equal(back->regions[i].mark, cap->regions[i].mark);
		assert_true(streq_ptr(back->regions[i].path, cap->regions[i].path));
	}
	assert_string_equal(back->process.owner, "LAB\\ada");
	free(text);
	json_decref(j);
	win_capture_free(back);
	win_capture_free(cap);
}

/* Shapes at the edges: a 64 GiB multiple with one page committed, a
 * reservation of 64 GiB + 4 KiB (not a multiple), a walk that starts
 * inside a reservation, and an empty list. */
static void test_edges(void **state)
{
	(void)state;
	struct win_region r[] = {
		{ .base = 0x10000, .allocation_base = 0x0, .size = 0x1000, .state = WIN_MEM_COMMIT,
		  .protect = WIN_PAGE_READWRITE, .type = WIN_MEM_PRIVATE },
		{ .base = 0x1000000000, .allocation_base = 0x1000000000, .size = 0x1000, .state = WIN_MEM_COMMIT,
		  .protect = WIN_PAGE_READWRITE, .type = WIN_MEM_PRIVATE },
		{ .base = 0x1000001000, .allocation_base = 0x1000000000, .size = 128 * GiB - 0x1000,
		  .state = WIN_MEM_RESERVE, .type = WIN_MEM_PRIVATE },
		{ .base = 0x3000000000, .allocation_base = 0x3000000000, .size = 64 * GiB + 0x1000,
		  .state = WIN_MEM_COMMIT, .protect = WIN_PAGE_READWRITE, .type = WIN_MEM_PRIVATE },
	};
	struct win_process p = { .pid = 1, .creation_time = -1, .residency = RESIDENCY_UNKNOWN };
	struct census *c = NULL;
	struct error err = { 0 };

	assert_int_equal(win_census_build(r, ELEMENTSOF(r), &p, 10, true, &c, &err), 0);
	assert_int_equal(c->n_regions, 3);
	assert_int_equal(c->regions[0].start, 0x10000);
	assert_string_equal(c->regions[1].rule, "win_reserving_allocator");
	assert_int_equal(c->regions[1].private, 0x1000);
	assert_string_equal(c->regions[2].rule, "win_private");
	assert_int_equal(c->totals.private, 0x2000 + 64 * GiB + 0x1000);
	census_free(c);
	c = NULL;
	assert_int_equal(win_census_build(r, 0, &p, 10, true, &c, &err), 0);
	assert_int_equal(c->totals.count, 0);
	census_free(c);
	c = NULL;
	/* out of order */
	struct win_region swapped[] = { r[1], r[0] };
	assert_int_equal(win_census_build(swapped, 2, &p, 10, true, &c, &err), -EINVAL);
	assert_null(c);
}

/* A region list Wine 8.0 gave for the holder (tests/windows/holder.c),
 * saved with --save-regions, beside what the holder said it made
 * (wine-holder.made.json): each kind in its class, as under Wine live. */
static const struct census_region *holding(const struct census *c, uint64_t address)
{
	for (size_t i = 0; i < c->n_regions; i++)
		if (c->regions[i].start <= address && address < c->regions[i].end)
			return &c->regions[i];
	fail_msg("no region holds 0x%" PRIx64, address);
	return NULL;
}

static uint64_t made(const json_t *m, const char *key, size_t index)
{
	const json_t *v = json_object_get(m, key);
	return (uint64_t)json_integer_value(json_is_array(v) ? json_array_get(v, index) : v);
}

static void test_wine_capture(void **state)
{
	(void)state;
	struct win_capture *cap = load("windows/wine-holder.json");
	struct census *c = build(cap);
	json_error_t jerr;
	json_t *m = json_load_file(fixture("windows/wine-holder.made.json"), 0, &jerr);
	static const struct {
		const char *key;
		const char *rule;
	} kinds[] = {
		{ "private", "win_private" },	     { "heap", "win_nt_heap" },
		{ "heap_blocks", "win_heap_large_block" }, { "malloc", "win_heap_large_block" },
		{ "file", "win_mapped_file" },	     { "section", "win_section" },
		{ "big", "win_reserving_allocator" }, { "wc", "win_private" }, /* Wine shows no write-combine */
		{ "jit", "win_jit" },
	};

	assert_non_null(m);
	assert_int_equal(c->windows.residency, RESIDENCY_UNKNOWN);
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++)
		if (!streq(holding(c, made(m, kinds[i].key, 0))->rule, kinds[i].rule))
			fail_msg("%s: %s", kinds[i].key, holding(c, made(m, kinds[i].key, 0))->rule);
	assert_string_equal(holding(c, made(m, "heap_blocks", 1))->rule, "win_heap_large_block");
	assert_int_equal(holding(c, made(m, "private", 0))->private, 24 * MiB);
	assert_int_equal(holding(c, made(m, "big", 0))->size, 64 * GiB);
	assert_int_equal(holding(c, made(m, "big", 0))->private, 16 * MiB);
	assert_int_equal(holding(c, made(m, "file", 0))->size, 8 * MiB);
	for (size_t i = 0; i < 3; i++) {
		bool found = false;
		for (size_t k = 0; k < c->n_regions; k++)
			found |= c->regions[k].cls == CLASS_STACKS && c->regions[k].size == made(m, "stacks", i) &&
				 streq(c->regions[k].rule, "win_thread_stack");
		assert_true(found);
	}
	struct census_totals sum;
	census_class_sum(c, &sum);
	assert_int_equal(sum.private, c->totals.private);
	assert_int_equal(c->totals.private, commit_charge(cap));
	json_decref(m);
	census_free(c);
	win_capture_free(cap);
}

/* Every mark a capture may carry has its name. */
static void test_mark_names(void **state)
{
	(void)state;
	assert_enum_names("Windows mark", _WIN_MARK_MAX, win_mark_name, win_mark_from_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_names),
		cmocka_unit_test(test_every_shape),	  cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_residency),	  cmocka_unit_test(test_bad_captures),
		cmocka_unit_test(test_capture_round_trip), cmocka_unit_test(test_edges),
		cmocka_unit_test(test_wine_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
