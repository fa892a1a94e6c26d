/* Region events between two censuses: appeared, disappeared, grew, shrank,
 * keyed by start address, path and inode. */
#include "testlib.h"
#include "util.h"

#include "census.h"
#include "region-events.h"
#include "scan.h"

#define SNAP(s, e, ino, p, priv, cl) { .start = (s), .end = (e), .inode = (ino), .path = (p), .private = (priv), .cls = (cl) }

static void test_diff(void **state)
{
	(void)state;
	const char *lib = "/usr/lib/libc.so.6", *data = "/data/model.bin", *other = "/data/other.bin";
	struct region_snapshot before[] = {
		SNAP(0x1000, 0x2000, 7, lib, 0, CLASS_IMAGES),
		SNAP(0x10000, 0x20000, 0, NULL, 64 * KiB, CLASS_OTHER),   /* grows by 4 MiB */
		SNAP(0x30000, 0x40000, 0, NULL, 64 * KiB, CLASS_OTHER),   /* goes */
		SNAP(0x50000, 0x60000, 9, data, 0, CLASS_MAPPED_FILES),  /* another file takes its place */
		SNAP(0x70000, 0x80000, 0, NULL, 8 * MiB, CLASS_MALLOC),   /* shrinks its private memory */
		SNAP(0x90000, 0xa0000, 0, NULL, 100, CLASS_OTHER),        /* moves a little: no event */
		SNAP(0xb0000, 0xc0000, 0, NULL, 0, CLASS_OTHER),          /* its end moves */
	};
	struct region_snapshot after[] = {
		SNAP(0x1000, 0x2000, 7, lib, 0, CLASS_IMAGES),
		SNAP(0x10000, 0x420000, 0, NULL, 4 * MiB + 64 * KiB, CLASS_OTHER),
		SNAP(0x50000, 0x60000, 11, other, 0, CLASS_MAPPED_FILES),
		SNAP(0x70000, 0x80000, 0, NULL, 1 * MiB, CLASS_MALLOC),
		SNAP(0x90000, 0xa0000, 0, NULL, 4196, CLASS_OTHER),
		SNAP(0xb0000, 0xb8000, 0, NULL, 0, CLASS_OTHER),
		SNAP(0xd0000, 0xe0000, 0, NULL, 32 * KiB, CLASS_JIT),     /* new */
	};
	struct region_event *ev = NULL;
	size_t n = 0;
	assert_int_equal(region_events_diff(before, 7, after, 7, 1 * MiB, &ev, &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(ev[0].kind, REGION_GREW);
	assert_int_equal(ev[0].start, 0x10000);
	assert_int_equal(ev[0].private - ev[0].private_before, 4 * MiB);
	assert_int_equal(ev[0].size_before, 0x10000);
	assert_int_equal(ev[0].size, 0x410000);
	assert_int_equal(ev[1].kind, REGION_DISAPPEARED);
	assert_int_equal(ev[1].start, 0x30000);
	assert_int_equal(ev[1].size, 0);
	assert_int_equal(ev[1].private_before, 64 * KiB);
	assert_int_equal(ev[2].kind, REGION_DISAPPEARED);
	assert_ptr_equal(ev[2].path, data);
	assert_int_equal(ev[3].kind, REGION_APPEARED);
	assert_ptr_equal(ev[3].path, other);
	assert_int_equal(ev[3].inode, 11);
	assert_int_equal(ev[4].kind, REGION_SHRANK);
	assert_int_equal(ev[4].cls, CLASS_MALLOC);
	assert_int_equal(ev[5].kind, REGION_SHRANK); /* by size */
	assert_int_equal(ev[5].start, 0xb0000);
	assert_int_equal(ev[6].kind, REGION_APPEARED);
	assert_int_equal(ev[6].cls, CLASS_JIT);
	assert_int_equal(ev[6].size_before, 0);
	free(ev);

	/* nothing changed: no event; from nothing: all appeared */
	assert_int_equal(region_events_diff(after, 7, after, 7, 1 * MiB, &ev, &n), 0);
	assert_int_equal(n, 0);
	free(ev);
	assert_int_equal(region_events_diff(NULL, 0, after, 7, 1 * MiB, &ev, &n), 0);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ev[i].kind, REGION_APPEARED);
	free(ev);
	assert_string_equal(region_event_kind_name(REGION_SHRANK), "shrank");
	/* one table both ways, as the scanner writes and the export reads */
	assert_enum_names("region event kind", _REGION_EVENT_KIND_MAX, region_event_kind_name,
			  region_event_kind_from_name);
	assert_string_equal(region_event_kind_name(_REGION_EVENT_KIND_MAX), "?");
	assert_int_equal(region_event_kind_from_name("?"), -1);
	assert_int_equal(region_event_kind_from_name("Grew"), -1);
}

static void test_snapshot_of_census(void **state)
{
	(void)state;
	struct scan_options o = { .keep_regions = true };
	struct census *a = NULL, *b = NULL;
	struct error err;
	char path[4096];
	snprintf(path, sizeof(path), "%s", fixture("smaps/java17-g1.smaps"));
	assert_int_equal(scan_smaps_file(path, NULL, &o, &a, &err), 0);
	/* without its regions a census has nothing to compare */
	struct scan_options none = { 0 };
	assert_int_equal(scan_smaps_file(path, NULL, &none, &b, &err), 0);

	struct strpool *pool = strpool_new();
	struct region_snapshot *s = NULL;
	size_t n = 0;
	assert_int_equal(region_snapshot_take(b, pool, &s, &n), -ENODATA);
	assert_int_equal(region_snapshot_take(a, pool, &s, &n), 0);
	assert_int_equal(n, 207);
	for (size_t i = 1; i < n; i++)
		assert_true(s[i].start > s[i - 1].start);
	/* paths live in the caller's pool, past the census */
	assert_null(s[0].path); /* the Java heap reservation is anonymous */
	census_free(a);
	census_free(b);
	size_t named = 0, java = 0;
	for (size_t i = 0; i < n; i++) {
		if (!s[i].path)
			continue;
		named++;
		if (endswith(s[i].path, "/bin/java"))
			java++;
		assert_true(s[i].inode > 0 || s[i].path[0] == '[');
	}
	assert_true(named > 0);
	assert_true(java >= 1);
	free(s);
	strpool_free(pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_snapshot_of_census),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
