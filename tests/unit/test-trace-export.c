/* Region events to a memtrace stream, checked line by line and by what the
 * project's own analyzer makes of it: the classes ranked by what they kept
 * and churned, a complete capture, the address space in the ledger. */
#include "trace-testlib.h"

#include <errno.h>
#include <stdio.h>

#include "macro.h"
#include "trace-export.h"
#include "trace-integrity.h"
#include "trace-report.h"
#include "units.h"

static char *export(const struct trace_region_event *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(trace_export_region_events(v, n, f), 0);
	fclose(f);
	return buf;
}

static struct run *replay_physical(const char *text)
{
	struct trace_replay_options o = { .layer = TRACE_LAYER_PHYSICAL };
	struct run *run = calloc(1, sizeof(*run));
	assert_non_null(run);
	trace_analyzer_init(&run->a, &o);
	trace_parser_init(&run->p);
	run->r = trace_replay_buffer(&run->a, &run->p, text, strlen(text), &run->err);
	if (run->r != 0)
		fail_msg("replay failed at line %llu: %s", (unsigned long long)run->err.line, run->err.error.message);
	return run;
}

/* The scope paths in report order under sort. */
static void ranked(const struct run *run, enum trace_sort sort, const char **want, size_t n)
{
	struct trace_report_options o = { .sort = sort, .top = 24 };
	struct trace_report report;
	struct error reason;

	assert_int_equal(trace_report_build(&run->a, &o, &report, &reason), 0);
	assert_string_equal(report.integrity.status, "complete");
	assert_true(report.scopes.n >= n);
	for (size_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)report.scopes.v[i].name_len, report.scopes.v[i].name);
		assert_string_equal(name, want[i]);
	}
	trace_report_done(&report);
}

static size_t count_lines(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

#define A 0x1000000ull
#define B 0x7f0000000000ull
#define C 0x7f1000000000ull

/* A, other, was there before the first event and grows; B, a mapped file,
 * comes and goes and another file takes its place twice; C, other, comes
 * and stays.  The last census lists the new file before the old one's
 * disappearance: the export must make room first. */
static const struct trace_region_event history[] = {
	{ REGION_APPEARED, 1000, 1, B, "mapped_files", 32 * MiB, 0, 32 * MiB, 0 },
	{ REGION_APPEARED, 1000, 1, C, "other", 64 * MiB, 0, 64 * MiB, 0 },
	{ REGION_DISAPPEARED, 2000, 2, B, "mapped_files", 0, 32 * MiB, 0, 32 * MiB },
	{ REGION_GREW, 2000, 2, A, "other", 8 * MiB, 4 * MiB, 8 * MiB, 4 * MiB },
	{ REGION_APPEARED, 3000, 3, B, "mapped_files", 32 * MiB, 0, 32 * MiB, 0 },
	{ REGION_APPEARED, 4000, 4, B, "mapped_files", 32 * MiB, 0, 32 * MiB, 0 },
	{ REGION_DISAPPEARED, 4000, 4, B, "mapped_files", 0, 32 * MiB, 0, 32 * MiB },
};

static void test_stream(void **state)
{
	(void)state;
	char *text = export(history, ELEMENTSOF(history));

	/* numbered from 1, bounded by start and stop */
	const char *start = "{\"v\":3,\"seq\":1,\"kind\":\"trace.start\"";
	assert_true(strncmp(text, start, strlen(start)) == 0);
	const char *last = text + strlen(text) - 2;
	while (last > text && last[-1] != '\n')
		last--;
	assert_true(strstr(last, "\"kind\":\"trace.stop\"") != NULL);
	/* A, found before the first event, is allocated first with what it held */
	const char *second = strchr(text, '\n') + 1;
	assert_true(strncmp(second,
			    "{\"v\":3,\"seq\":2,\"kind\":\"map\",\"layer\":\"physical_page\",\"scope\":\"root/other\","
			    "\"address\":16777216,\"len\":4194304}\n",
			    strlen("{\"v\":3,\"seq\":2,\"kind\":\"map\"")) == 0);
	assert_non_null(strstr(text, "\"kind\":\"alloc\",\"layer\":\"physical_page\",\"scope\":\"root/other\","
				     "\"allocation_id\":1,\"address\":16777216,\"len\":4194304}"));
	/* growth: the new end mapped, the memory resized */
	assert_non_null(strstr(text, "\"kind\":\"map\",\"layer\":\"physical_page\",\"scope\":\"root/other\","
				     "\"address\":20971520,\"len\":4194304}"));
	assert_non_null(strstr(text, "\"kind\":\"resize\",\"layer\":\"physical_page\",\"allocation_id\":1,"
				     "\"address\":16777216,\"old_len\":4194304,\"len\":8388608}"));
	assert_int_equal(count_lines(text, "\"kind\":\"census\""), 4);
	assert_int_equal(count_lines(text, "\"kind\":\"map\""), 6);
	assert_int_equal(count_lines(text, "\"kind\":\"unmap\""), 2);
	assert_int_equal(count_lines(text, "\"kind\":\"alloc\""), 5);
	assert_int_equal(count_lines(text, "\"kind\":\"free\""), 2);

	struct run *run = replay_physical(text);
	/* what each class kept and churned */
	const struct trace_counters *other = scope(run, "root/other"), *files = scope(run, "root/mapped_files");
	assert_int_equal(other->allocated_bytes, 72 * MiB);
	assert_int_equal(other->live_bytes, 72 * MiB);
	assert_int_equal(other->retained_bytes, 72 * MiB);
	assert_int_equal(files->allocations, 3);
	assert_int_equal(files->frees, 2);
	assert_int_equal(files->allocated_bytes, 96 * MiB);
	assert_int_equal(files->live_bytes, 32 * MiB);
	assert_int_equal(files->completed_lifetimes, 2);
	/* the address space: A (8 MiB), C and the last file */
	assert_int_equal(run->a.physical.live_mapped_bytes, (8 + 64 + 32) * MiB);
	assert_int_equal(run->a.physical.untracked_unmap_bytes, 0);
	assert_int_equal(run->a.physical.displaced_bytes, 0);
	assert_int_equal(run->a.totals.unmatched_frees, 0);
	/* kept: other first; churned: the files first */
	ranked(run, TRACE_SORT_RETAINED, (const char *[]){ "root/other", "root/mapped_files" }, 2);
	ranked(run, TRACE_SORT_TRAFFIC, (const char *[]){ "root/mapped_files", "root/other" }, 2);
	done(run);
	free(text);
}

/* Shrinking gives back the end of the range; a region whose first event is
 * its disappearance was live from the start. */
static void test_shrink_and_window(void **state)
{
	(void)state;
	const struct trace_region_event v[] = {
		{ REGION_SHRANK, 5000, 7, A, "malloc", 2 * MiB, 8 * MiB, 1 * MiB, 6 * MiB },
		{ REGION_DISAPPEARED, 5000, 7, C, "stacks", 0, 8 * MiB, 0, 100 * 1024 },
	};
	char *text = export(v, ELEMENTSOF(v));
	struct run *run = replay_physical(text);

	assert_non_null(strstr(text, "\"kind\":\"unmap\",\"layer\":\"physical_page\",\"scope\":\"root/malloc\","
				     "\"address\":18874368,\"len\":6291456}"));
	const struct trace_counters *malloc_ = scope(run, "root/malloc"), *stacks = scope(run, "root/stacks");
	assert_int_equal(malloc_->live_bytes, 1 * MiB);
	assert_int_equal(malloc_->high_water_live_bytes, 6 * MiB);
	assert_int_equal(stacks->allocated_bytes, 100 * 1024);
	assert_int_equal(stacks->live_bytes, 0);
	assert_int_equal(run->a.physical.live_mapped_bytes, 2 * MiB);
	ranked(run, TRACE_SORT_RETAINED, (const char *[]){ "root/malloc" }, 1);
	done(run);
	free(text);
}

/* Nothing to export is still a complete, empty capture; names are JSON
 * strings; a kind out of range is refused. */
static void test_edges(void **state)
{
	(void)state;
	char *text = export(NULL, 0);
	assert_string_equal(text, "{\"v\":3,\"seq\":1,\"kind\":\"trace.start\",\"producer\":\"ramwatchd region events\"}\n"
				  "{\"v\":3,\"seq\":2,\"kind\":\"trace.stop\"}\n");
	free(text);

	const struct trace_region_event odd[] = {
		{ REGION_APPEARED, 1, 1, A, "na\"me\\x", MiB, 0, MiB, 0 },
		{ REGION_APPEARED, 1, 1, C, NULL, MiB, 0, 0, 0 },
	};
	text = export(odd, ELEMENTSOF(odd));
	assert_non_null(strstr(text, "\"scope\":\"root/na\\\"me\\\\x\""));
	assert_non_null(strstr(text, "\"scope\":\"root/unknown\""));
	struct run *run = replay_physical(text);
	assert_int_equal(scope(run, "root/na\"me\\x")->live_bytes, MiB);
	done(run);
	free(text);

	struct trace_region_event bad = { .kind = _REGION_EVENT_KIND_MAX };
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(trace_export_region_events(&bad, 1, f), -EINVAL);
	fclose(f);

	assert_int_equal(region_event_kind_from_name("grew"), REGION_GREW);
	assert_int_equal(region_event_kind_from_name("moved"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_shrink_and_window),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
