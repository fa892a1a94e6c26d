/* The census: conservation on every fixture (every region in exactly one
 * class, class totals equal to the totals over regions), the largest
 * regions, the files, the counters. */
#include "testlib.h"

#include <dirent.h>
#include <errno.h>

#include "census.h"
#include "scan.h"
#include "util.h"

static struct census *load(const char *name, const char *status, size_t top)
{
	struct scan_options o = { .keep_regions = true, .top = top };
	struct census *c = NULL;
	struct error err;
	char smaps_path[4096], status_path[4096];
	snprintf(smaps_path, sizeof(smaps_path), "%s", fixture(name));
	if (status)
		snprintf(status_path, sizeof(status_path), "%s", fixture(status));
	if (scan_smaps_file(smaps_path, status ? status_path : NULL, &o, &c, &err) < 0)
		fail_msg("%s: %s", name, err.message);
	return c;
}

/* The totals, recomputed from the parser's own regions, independently of
 * the census code. */
static void independent_totals(const char *name, struct census_totals *ret)
{
	size_t len;
	char *text = slurp(fixture(name), &len);
	struct parsed p = parse_text_ex(text, len, false, NULL);
	struct census_totals t = { 0 };
	assert_int_equal(p.error, 0);
	for (size_t i = 0; i < p.n; i++) {
		t.private += region_field(&p.r[i], COUNT_ANONYMOUS) + region_field(&p.r[i], COUNT_SWAP);
		t.resident += region_field(&p.r[i], COUNT_RSS);
		t.pss += region_field(&p.r[i], COUNT_PSS);
		t.swap += region_field(&p.r[i], COUNT_SWAP);
		t.size += p.r[i].end - p.r[i].start;
		t.count++;
	}
	parsed_free(&p);
	free(text);
	*ret = t;
}

static void test_conservation_every_fixture(void **state)
{
	(void)state;
	DIR *d = opendir(fixture("smaps"));
	struct dirent *de;
	int seen = 0;
	assert_non_null(d);
	while ((de = readdir(d))) {
		char name[512];
		if (!endswith(de->d_name, ".smaps"))
			continue;
		snprintf(name, sizeof(name), "smaps/%s", de->d_name);
		struct census *c = load(name, NULL, 20);
		struct census_totals sum, expect;
		census_class_sum(c, &sum);
		independent_totals(name, &expect);
		/* the classes add up to the totals, exactly */
		assert_int_equal(sum.private, c->totals.private);
		assert_int_equal(sum.resident, c->totals.resident);
		assert_int_equal(sum.pss, c->totals.pss);
		assert_int_equal(sum.swap, c->totals.swap);
		assert_int_equal(sum.size, c->totals.size);
		assert_int_equal(sum.count, c->totals.count);
		assert_int_equal(sum.locked, c->totals.locked);
		assert_int_equal(sum.hugetlb, c->totals.hugetlb);
		/* and the totals are the kernel's fields summed */
		assert_int_equal(c->totals.private, expect.private);
		assert_int_equal(c->totals.resident, expect.resident);
		assert_int_equal(c->totals.pss, expect.pss);
		assert_int_equal(c->totals.swap, expect.swap);
		assert_int_equal(c->totals.size, expect.size);
		assert_int_equal(c->totals.count, expect.count);
		/* every region once, in one class */
		assert_int_equal(c->n_regions, expect.count);
		uint64_t per_class[_CLASS_MAX] = { 0 };
		for (size_t i = 0; i < c->n_regions; i++)
			per_class[c->regions[i].cls] += c->regions[i].private;
		for (int k = 0; k < _CLASS_MAX; k++)
			assert_int_equal(per_class[k], c->classes[k].private);
		census_free(c);
		seen++;
	}
	closedir(d);
	assert_true(seen >= 10);
}

static uint64_t weight(const struct census_region *r)
{
	return r->private > r->resident ? r->private : r->resident;
}

static void test_largest(void **state)
{
	(void)state;
	struct census *c = load("smaps/java17-g1.smaps", NULL, 25);
	assert_int_equal(c->n_largest, 25);
	for (size_t i = 1; i < c->n_largest; i++)
		assert_true(weight(&c->largest[i - 1]) >= weight(&c->largest[i]));
	/* nothing left out weighs more than the last kept */
	for (size_t i = 0; i < c->n_regions; i++) {
		bool kept = false;
		for (size_t k = 0; k < c->n_largest; k++)
			kept |= c->largest[k].start == c->regions[i].start;
		if (!kept)
			assert_true(weight(&c->regions[i]) <= weight(&c->largest[c->n_largest - 1]));
	}
	assert_int_equal(c->largest[0].start, 0xe0000000);
	assert_string_equal(c->largest[0].rule, "jvm_heap");
	assert_non_null(c->largest[0].why);
	census_free(c);

	/* fewer regions than asked: all of them */
	c = load("smaps/synthetic-named-regions.smaps", NULL, 1000);
	assert_int_equal(c->n_largest, c->totals.count);
	census_free(c);
	c = load("smaps/synthetic-named-regions.smaps", NULL, 1);
	assert_int_equal(c->n_largest, 1);
	assert_string_equal(c->largest[0].path, "[anon:model weights cache]");
	census_free(c);
}

static void test_files(void **state)
{
	(void)state;
	struct census *c = load("smaps/java17-g1.smaps", NULL, 1000);
	const struct census_file *libjvm = NULL, *modules = NULL;
	for (size_t i = 0; i < c->n_files; i++) {
		if (endswith(c->files[i].path, "/libjvm.so"))
			libjvm = &c->files[i];
		if (endswith(c->files[i].path, "/lib/modules"))
			modules = &c->files[i];
		if (i > 0)
			assert_true(c->files[i - 1].resident + c->files[i - 1].private >=
				    c->files[i].resident + c->files[i].private);
	}
	assert_non_null(libjvm);
	assert_non_null(modules);
	assert_int_equal(libjvm->kind, FILE_IMAGE);
	assert_int_equal(modules->kind, FILE_DATA);
	/* a file's numbers are the sums over its regions */
	uint64_t resident = 0, regions = 0;
	for (size_t i = 0; i < c->n_regions; i++)
		if (c->regions[i].path && streq(c->regions[i].path, libjvm->path)) {
			resident += c->regions[i].resident;
			regions++;
		}
	assert_int_equal(libjvm->resident, resident);
	assert_int_equal(libjvm->regions, regions);
	census_free(c);

	/* shared memory with a name is listed, anonymous shared memory is not */
	c = load("smaps/c-shapes.smaps", NULL, 1000);
	bool shm = false, zero = false;
	for (size_t i = 0; i < c->n_files; i++) {
		shm |= startswith(c->files[i].path, "/dev/shm/") && c->files[i].kind == FILE_SHARED;
		zero |= startswith(c->files[i].path, "/dev/zero") != NULL;
	}
	assert_true(shm);
	assert_false(zero);
	census_free(c);
}

static void test_counters(void **state)
{
	(void)state;
	struct census *c = load("smaps/python3-threads.smaps", "smaps/python3-threads.status", 20);
	uint64_t private;
	assert_true(c->have_status);
	assert_true(status_private(&c->status, &private));
	assert_int_equal(census_private(c), private);
	assert_string_equal(c->comm, "python3");
	/* captured together from an idle process: the kernel's counters and the
	 * sums over regions agree */
	assert_int_equal(private, c->totals.private);
	assert_int_equal(census_resident(c), c->totals.resident);
	/* a saved file has no identity nor cost */
	assert_int_equal(c->pid, -1);
	assert_int_equal(c->start_time, -1);
	assert_int_equal(c->wall_us, -1);
	census_free(c);

	c = load("smaps/bash.smaps", NULL, 20);
	assert_false(c->have_status);
	assert_int_equal(census_private(c), c->totals.private);
	assert_null(c->comm);
	census_free(c);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	struct census *c = NULL;
	struct error err;
	char path[4096];
	snprintf(path, sizeof(path), "%s", fixture("smaps-bad/empty.smaps"));
	assert_int_equal(scan_smaps_file(path, NULL, NULL, &c, &err), -ENODATA);
	assert_non_null(strstr(err.message, "no regions"));
	assert_null(c);
	snprintf(path, sizeof(path), "%s", fixture("smaps-bad/truncated.smaps"));
	assert_int_equal(scan_smaps_file(path, NULL, NULL, &c, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "line 27:"));
	assert_int_equal(scan_smaps_file("/nonexistent/smaps", NULL, NULL, &c, &err), -ENOENT);
	assert_non_null(strstr(err.message, "/nonexistent/smaps"));
	snprintf(path, sizeof(path), "%s", fixture("smaps/bash.smaps"));
	assert_int_equal(scan_smaps_file(path, path, NULL, &c, &err), -EBADMSG);
	assert_non_null(strstr(err.message, "not a /proc/PID/status file"));
}

/* The classes in the order tables list them: private, then resident, then
 * size (all a light census knows), then the registry's order; classes
 * with no region are left out. */
static void test_class_order(void **state)
{
	(void)state;
	struct census *c = census_new();
	enum class_id order[_CLASS_MAX];
	assert_non_null(c);

	assert_int_equal(census_class_order(c, order), 0);
	c->classes[CLASS_OTHER] = (struct census_totals){ .private = 10, .resident = 10, .size = 10, .count = 1 };
	c->classes[CLASS_PYTHON] = (struct census_totals){ .private = 10, .resident = 20, .size = 20, .count = 1 };
	c->classes[CLASS_MALLOC] = (struct census_totals){ .private = 30, .resident = 30, .size = 30, .count = 2 };
	c->classes[CLASS_STACKS] = (struct census_totals){ .private = 10, .resident = 10, .size = 10, .count = 3 };
	c->classes[CLASS_IMAGES] = (struct census_totals){ .private = 0, .resident = 0, .size = 90, .count = 4 };
	c->classes[CLASS_SHARED] = (struct census_totals){ .private = 0, .resident = 0, .size = 0, .count = 0 };
	assert_int_equal(census_class_order(c, order), 5);
	static const enum class_id want[] = { CLASS_MALLOC, CLASS_PYTHON, CLASS_STACKS, CLASS_OTHER, CLASS_IMAGES };
	for (size_t i = 0; i < ELEMENTSOF(want); i++)
		if (order[i] != want[i])
			fail_msg("place %zu: %s, expected %s", i, class_key(order[i]), class_key(want[i]));
	census_free(c);
}

/* Every file kind, platform and residency has its name in the census JSON. */
static void test_names(void **state)
{
	(void)state;
	assert_enum_names("file kind", _FILE_KIND_MAX, file_kind_name, file_kind_from_name);
	assert_enum_names("platform", _PLATFORM_MAX, census_platform_name, census_platform_from_name);
	assert_enum_names("residency", _RESIDENCY_MAX, census_residency_name, census_residency_from_name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_order),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_conservation_every_fixture),
		cmocka_unit_test(test_largest),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_bad_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
