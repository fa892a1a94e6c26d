/* The report, line for line: the text lines and JSON Lines of the
 * reference's writers, sorts and their tie-breaks, --top, --min-bytes,
 * --include-zero-live, the logical and physical layers' lines, site and
 * site-detail lines, and strings quoted where the reference quotes them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "trace-replay.h"
#include "trace-report.h"

/* scope z is only entered; a and b keep 100 bytes each (a tie); c had 500
 * and freed them; d churned two allocations of 10 */
static const char scopes_trace[] =
	"{'kind':'scope.enter','scope_id':1,'scope':'z'}\n"
	"{'kind':'alloc','address':16,'len':100,'scope':'a','return_address':32}\n"
	"{'kind':'alloc','address':32,'len':100,'scope':'b','return_address':16}\n"
	"{'kind':'alloc','address':48,'len':500,'scope':'c','return_address':48}\n"
	"{'kind':'alloc','address':64,'len':10,'scope':'d','return_address':64}\n"
	"{'kind':'free','address':48}\n"
	"{'kind':'alloc','address':80,'len':10,'scope':'d','return_address':64}\n"
	"{'kind':'free','address':64}\n"
	"{'kind':'free','address':80}\n";

/* The report of text (' for ") replayed with ro and written with o. */
static char *report(const char *text, const struct trace_replay_options *ro, const struct trace_report_options *o,
		    bool json)
{
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	struct trace_report r;
	struct error reason = { 0 };
	char *json_text = strdup(text), *out = NULL;
	size_t len = 0;

	for (char *c = json_text; *c; c++)
		if (*c == '\'')
			*c = '"';
	trace_analyzer_init(&a, ro);
	trace_parser_init(&p);
	if (trace_replay_buffer(&a, &p, json_text, strlen(json_text), &err) != 0)
		fail_msg("line %llu: %s", (unsigned long long)err.line, err.error.message);
	if (trace_report_build(&a, o, &r, &reason) != 0)
		fail_msg("report: %s", reason.message);
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(json ? trace_report_jsonl(&a, o, &r, f) : trace_report_text(&a, o, &r, f), 0);
	fclose(f);
	trace_report_done(&r);
	trace_parser_done(&p);
	trace_analyzer_done(&a);
	free(json_text);
	return out;
}

/* The first word of each line (scope names, "site" rows), joined by
 * spaces, skipping lines that start with "memtrace". */
static char *row_names(const char *text)
{
	char *out = calloc(1, strlen(text) + 1);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		size_t n = strcspn(l, " \n");
		if (strncmp(l, "memtrace ", 9) != 0) {
			if (*out)
				strcat(out, " ");
			strncat(out, l, n);
		}
		if (!strchr(l, '\n'))
			break;
	}
	return out;
}

#define ROW_ZERO                                                                                         \
	" completed_lifetimes=0 lifetime_total_events=0 lifetime_mean_events=0 lifetime_max_events=0" \
	" lifetime_total_byte_events=0 lifetime_mean_byte_events=0 lifetime_max_byte_events=0\n"

static void test_text_lines(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING };
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24 };
	char *text = report(scopes_trace, &ro, &o, false);
	assert_string_equal(
		text,
		"memtrace capture_integrity=missing_sequence_metadata events=9 sequenced_events=0 "
		"unsequenced_events=9 sequence_gaps=0 missing_sequence_events=0 sequence_regressions=0 "
		"start_events=0 stop_events=0 unbalanced_events=1 first_sequence=none last_sequence=none "
		"start_sequence=none stop_sequence=none\n"
		"memtrace capture caveat=missing_sequence_metadata action=recapture_with_sequence_metadata "
		"message=\"one or more memtrace events lack sequence metadata; completeness is unknown\"\n"
		"memtrace layer=backing sort=retained events=9 allocations=5 frees=3 live_allocations=2 "
		"allocated_bytes=720 freed_bytes=520 live_bytes=200 high_water_live_bytes=710\n"
		"memtrace retained_bytes=200 high_water_retained_bytes=710\n"
		"memtrace lifetimes completed=3 total_events=7 mean_events=2 max_events=3 total_byte_events=1050 "
		"mean_byte_events=350 max_byte_events=1000\n"
		"a retained_bytes=100 high_water_retained_bytes=100 live_bytes=100 high_water_live_bytes=100 "
		"allocated_bytes=100 freed_bytes=0 allocations=1 frees=0 live_allocations=1" ROW_ZERO
		"b retained_bytes=100 high_water_retained_bytes=100 live_bytes=100 high_water_live_bytes=100 "
		"allocated_bytes=100 freed_bytes=0 allocations=1 frees=0 live_allocations=1" ROW_ZERO
		"c retained_bytes=0 high_water_retained_bytes=500 live_bytes=0 high_water_live_bytes=500 "
		"allocated_bytes=500 freed_bytes=500 allocations=1 frees=1 live_allocations=0 completed_lifetimes=1 "
		"lifetime_total_events=2 lifetime_mean_events=2 lifetime_max_events=2 lifetime_total_byte_events=1000 "
		"lifetime_mean_byte_events=1000 lifetime_max_byte_events=1000\n"
		"d retained_bytes=0 high_water_retained_bytes=20 live_bytes=0 high_water_live_bytes=20 "
		"allocated_bytes=20 freed_bytes=20 allocations=2 frees=2 live_allocations=0 completed_lifetimes=2 "
		"lifetime_total_events=5 lifetime_mean_events=2 lifetime_max_events=3 lifetime_total_byte_events=50 "
		"lifetime_mean_byte_events=25 lifetime_max_byte_events=30\n");
	free(text);
}

static void test_complete_and_anomalies(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING };
	struct trace_report_options o = { .sort = TRACE_SORT_TRAFFIC, .top = 0 };
	char *text = report("{'seq':1,'kind':'trace.start'}\n{'seq':2,'kind':'alloc','len':1,'succeeded':false}\n"
			    "{'seq':3,'kind':'trace.stop'}\n",
			    &ro, &o, false);
	assert_string_equal(text,
			    "memtrace capture_integrity=complete events=3 sequenced_events=3 unsequenced_events=0 "
			    "sequence_gaps=0 missing_sequence_events=0 sequence_regressions=0 start_events=1 "
			    "stop_events=1 unbalanced_events=0 first_sequence=1 last_sequence=3 start_sequence=1 "
			    "stop_sequence=3\n"
			    "memtrace layer=backing sort=traffic events=3 allocations=0 frees=0 live_allocations=0 "
			    "allocated_bytes=0 freed_bytes=0 live_bytes=0 high_water_live_bytes=0\n"
			    "memtrace retained_bytes=0 high_water_retained_bytes=0\n"
			    "memtrace lifetimes completed=0 total_events=0 mean_events=0 max_events=0 "
			    "total_byte_events=0 mean_byte_events=0 max_byte_events=0\n"
			    "memtrace anomalies failed_allocations=1 failed_resizes=0 failed_remaps=0 "
			    "unmatched_frees=0 unmatched_resizes=0 unmatched_remaps=0\n");
	free(text);
}

static void test_sorts_and_tie_breaks(void **state)
{
	(void)state;
	static const struct {
		enum trace_sort sort;
		const char *scopes, *sites;
	} cases[] = {
		/* a and b tie on everything: by path, then by address */
		{ TRACE_SORT_RETAINED, "a b c d", "0x10 0x20 0x30 0x40" },
		{ TRACE_SORT_TRAFFIC, "c a b d", "0x30 0x10 0x20 0x40" },
		{ TRACE_SORT_LIFETIME, "c d a b", "0x30 0x40 0x10 0x20" },
	};
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING, .track_sites = true };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace_report_options o = { .sort = cases[i].sort, .top = 24 };
		char *text = report(scopes_trace, &ro, &o, false), *names = row_names(text);
		assert_string_equal(names, cases[i].scopes);
		free(names);
		free(text);

		o.include_sites = true;
		text = report(scopes_trace, &ro, &o, false);
		char expected[128];
		snprintf(expected, sizeof(expected), "%s", cases[i].scopes);
		for (const char *s = cases[i].sites; *s;) {
			size_t n = strcspn(s, " ");
			strcat(expected, " site");
			s += n + (s[n] == ' ');
		}
		names = row_names(text);
		assert_string_equal(names, expected);
		/* the addresses, in order */
		const char *at = text;
		for (const char *s = cases[i].sites; *s;) {
			size_t n = strcspn(s, " ");
			char want[64];
			snprintf(want, sizeof(want), "site return_address=%.*s ", (int)n, s);
			const char *found = strstr(at, want);
			if (!found)
				fail_msg("sort %d: %s not after the previous site", (int)cases[i].sort, want);
			at = found + 1;
			s += n + (s[n] == ' ');
		}
		free(names);
		free(text);
	}
}

static void test_filters(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING };
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24 };
	char *text, *names;

	o.filter.include_zero_live = true;
	text = report(scopes_trace, &ro, &o, false);
	names = row_names(text);
	assert_string_equal(names, "a b c d z");
	free(names);
	free(text);

	/* hidden when live, peak live and retained are all below 200 */
	o.filter = (struct trace_filter){ .min_bytes = 200 };
	text = report(scopes_trace, &ro, &o, false);
	names = row_names(text);
	assert_string_equal(names, "c");
	free(names);
	free(text);
	o.filter = (struct trace_filter){ .min_bytes = 100 };
	text = report(scopes_trace, &ro, &o, false);
	names = row_names(text);
	assert_string_equal(names, "a b c");
	free(names);
	free(text);

	o.filter = (struct trace_filter){ 0 };
	o.top = 2;
	text = report(scopes_trace, &ro, &o, false);
	names = row_names(text);
	assert_string_equal(names, "a b");
	free(names);
	free(text);
}

static void test_json_lines(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING };
	struct trace_report_options o = { .sort = TRACE_SORT_LIFETIME, .top = 1 };
	char *text = report(scopes_trace, &ro, &o, true);
	assert_string_equal(
		text,
		"{\"kind\":\"summary\",\"layer\":\"backing\",\"sort\":\"lifetime\",\"events\":9,\"allocations\":5,"
		"\"frees\":3,\"resizes\":0,\"remaps\":0,\"allocated_bytes\":720,\"live_allocations\":2,"
		"\"freed_bytes\":520,\"live_bytes\":200,\"high_water_live_bytes\":710,\"retained_bytes\":200,"
		"\"high_water_retained_bytes\":710,\"completed_lifetimes\":3,\"lifetime_total_events\":7,"
		"\"lifetime_mean_events\":2,\"lifetime_max_events\":3,\"lifetime_total_byte_events\":1050,"
		"\"lifetime_mean_byte_events\":350,\"lifetime_max_byte_events\":1000,\"failed_allocations\":0,"
		"\"failed_resizes\":0,\"failed_remaps\":0,\"unmatched_frees\":0,\"unmatched_resizes\":0,"
		"\"unmatched_remaps\":0,\"capture_integrity\":{\"method\":\"memtrace_event_sequence_and_lifecycle_v1\","
		"\"status\":\"missing_sequence_metadata\",\"action\":\"recapture_with_sequence_metadata\","
		"\"message\":\"one or more memtrace events lack sequence metadata; completeness is unknown\","
		"\"event_count\":9,\"sequenced_event_count\":0,\"unsequenced_event_count\":9,\"first_sequence\":null,"
		"\"last_sequence\":null,\"sequence_gap_count\":0,\"missing_sequence_event_count\":0,"
		"\"sequence_regression_count\":0,\"start_event_count\":0,\"stop_event_count\":0,"
		"\"unbalanced_event_count\":1,\"start_sequence\":null,\"stop_sequence\":null,\"limits\":["
		"\"sequence gaps are lower-bound missing-row evidence\",\"complete bounds do not prove whole-process "
		"coverage, low perturbation, or representative workload coverage\"]}}\n"
		"{\"kind\":\"scope\",\"sort\":\"lifetime\",\"scope\":\"c\",\"retained_bytes\":0,"
		"\"high_water_retained_bytes\":500,\"live_bytes\":0,\"high_water_live_bytes\":500,"
		"\"allocated_bytes\":500,\"freed_bytes\":500,\"allocations\":1,\"frees\":1,\"live_allocations\":0,"
		"\"completed_lifetimes\":1,\"lifetime_total_events\":2,\"lifetime_mean_events\":2,"
		"\"lifetime_max_events\":2,\"lifetime_total_byte_events\":1000,\"lifetime_mean_byte_events\":1000,"
		"\"lifetime_max_byte_events\":1000}\n");
	free(text);
}

static void test_logical_layer(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_LOGICAL, .track_sites = true };
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24, .include_sites = true };
	static const char trace[] =
		"{'kind':'allocator','allocator_id':1,'layer':'logical_allocator','retains_freed_memory':true}\n"
		"{'kind':'alloc','allocator_id':1,'address':16,'len':64,'scope':'q','layer':'logical_allocator',"
		"'return_address':255}\n"
		"{'kind':'alloc','allocator_id':1,'address':32,'len':8,'scope':'q','layer':'logical_allocator',"
		"'tracked':false}\n"
		"{'kind':'release','address':16,'layer':'logical_allocator'}\n";
	char *text = report(trace, &ro, &o, false);
	const char *body = strstr(text, "memtrace layer=");
	assert_non_null(body);
	assert_string_equal(
		body,
		"memtrace layer=logical sort=retained events=4 allocations=2 frees=0 open_requests=0 "
		"requested_bytes=72 explicitly_closed_bytes=0 open_request_bytes=0 high_water_open_request_bytes=64 "
		"bulk_invalidated_requests=1 bulk_invalidated_bytes=64 untracked_requests=1 untracked_request_bytes=8\n"
		"memtrace lifecycle_coverage=partial instrumented_producers=0 uninstrumented_producers=1 "
		"lifecycle_not_required_producers=0 prefix_complete_producers=1 prefix_partial_producers=0 "
		"lifecycle_events=0\n"
		"memtrace lifetimes completed=1 total_events=2 mean_events=2 max_events=2 total_byte_events=128 "
		"mean_byte_events=128 max_byte_events=128\n"
		"q open_request_bytes=0 high_water_open_request_bytes=64 requested_bytes=72 "
		"explicitly_closed_bytes=0 allocations=2 frees=0 open_requests=0 bulk_invalidated_requests=1 "
		"bulk_invalidated_bytes=64 untracked_requests=1 untracked_request_bytes=8\n"
		"site return_address=0xff retained_bytes=0 high_water_retained_bytes=0 live_bytes=0 "
		"high_water_live_bytes=64 allocated_bytes=64 freed_bytes=0 allocations=1 frees=0 live_allocations=0 "
		"completed_lifetimes=1 lifetime_total_events=2 lifetime_mean_events=2 lifetime_max_events=2 "
		"lifetime_total_byte_events=128 lifetime_mean_byte_events=128 lifetime_max_byte_events=128\n");
	free(text);
	text = report(trace, &ro, &o, true);
	assert_non_null(strstr(text, "\"allocated_bytes\":72,\"open_requests\":0,\"requested_bytes\":72,"
				     "\"explicitly_closed_bytes\":0,\"open_request_bytes\":0,"
				     "\"high_water_open_request_bytes\":64,\"bulk_invalidated_requests\":1,"
				     "\"bulk_invalidated_bytes\":64,\"untracked_requests\":1,\"untracked_request_bytes\":8,"
				     "\"lifecycle_events\":0,\"lifecycle_coverage\":\"partial\","
				     "\"lifecycle_instrumented_producers\":0,\"lifecycle_uninstrumented_producers\":1,"
				     "\"lifecycle_not_required_producers\":0,\"prefix_complete_producers\":1,"
				     "\"prefix_partial_producers\":0,\"completed_lifetimes\":1,"));
	assert_non_null(strstr(text, "{\"kind\":\"scope\",\"sort\":\"retained\",\"scope\":\"q\",\"open_request_bytes\":0,"
				     "\"high_water_open_request_bytes\":64,\"bulk_invalidated_requests\":1,"
				     "\"bulk_invalidated_bytes\":64,\"untracked_requests\":1,\"untracked_request_bytes\":8,"
				     "\"allocated_bytes\":72,\"requested_bytes\":72,\"explicitly_closed_bytes\":0,"
				     "\"allocations\":2,\"frees\":0,\"open_requests\":0,\"completed_lifetimes\":1,"));
	assert_non_null(strstr(text, "{\"kind\":\"site\",\"sort\":\"retained\",\"return_address\":255,"
				     "\"open_request_bytes\":0,"));
	assert_null(strstr(text, "retained_bytes"));
	free(text);
}

static void test_physical_layer(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_PHYSICAL };
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24 };
	static const char trace[] =
		"{'kind':'map','address':4096,'len':8192,'layer':'physical_page'}\n"
		"{'kind':'unmap','address':4096,'len':4096,'layer':'physical_page'}\n"
		"{'kind':'protect','layer':'physical_page','succeeded':false}\n";
	char *text = report(trace, &ro, &o, false);
	assert_non_null(strstr(text, "memtrace lifetimes completed=0 total_events=0 mean_events=0 max_events=0 "
				     "total_byte_events=0 mean_byte_events=0 max_byte_events=0\n"
				     "memtrace physical maps=1 unmaps=1 protects=0 discards=0 decommits=0 advises=0 "
				     "mapped_bytes=8192 unmapped_bytes=4096 displaced_bytes=0 untracked_unmap_bytes=0 "
				     "live_mapped_bytes=4096 high_water_mapped_bytes=8192 live_ranges=1\n"
				     "memtrace physical_failures maps=0 unmaps=0 protects=1 discards=0 decommits=0 "
				     "advises=0\n"));
	assert_non_null(strstr(text, "memtrace layer=physical sort=retained events=3 "));
	free(text);
	text = report(trace, &ro, &o, true);
	assert_non_null(strstr(text, "\"unmatched_remaps\":0,\"physical\":{\"maps\":1,\"unmaps\":1,\"protects\":0,"
				     "\"discards\":0,\"decommits\":0,\"advises\":0,\"failed_maps\":0,\"failed_unmaps\":0,"
				     "\"failed_protects\":1,\"failed_discards\":0,\"failed_decommits\":0,"
				     "\"failed_advises\":0,\"mapped_bytes\":8192,\"unmapped_bytes\":4096,"
				     "\"displaced_bytes\":0,\"untracked_unmap_bytes\":0,\"live_mapped_bytes\":4096,"
				     "\"high_water_mapped_bytes\":8192,\"live_ranges\":1},\"capture_integrity\":{"));
	free(text);
	/* other layers have no physical lines */
	ro.layer = TRACE_LAYER_BACKING;
	text = report(trace, &ro, &o, false);
	assert_null(strstr(text, "memtrace physical"));
	free(text);
}

static void test_site_detail_lines(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING, .has_site_detail = true, .site_detail = 64 };
	struct trace_report_options o = { .sort = TRACE_SORT_TRAFFIC, .top = 24, .has_site_detail = true,
					  .site_detail = 64 };
	char *text = report(scopes_trace, &ro, &o, false);
	const char *detail = strstr(text, "site_detail");
	assert_non_null(detail);
	assert_string_equal(detail,
			    "site_detail return_address=0x40\n"
			    "site_size len=10 retained_bytes=0 high_water_retained_bytes=20 live_bytes=0 "
			    "high_water_live_bytes=20 allocated_bytes=20 freed_bytes=20 allocations=2 frees=2 "
			    "live_allocations=0 completed_lifetimes=2 lifetime_total_events=5 lifetime_mean_events=2 "
			    "lifetime_max_events=3 lifetime_total_byte_events=50 lifetime_mean_byte_events=25 "
			    "lifetime_max_byte_events=30\n"
			    "site_scope scope=\"d\" retained_bytes=0 high_water_retained_bytes=20 live_bytes=0 "
			    "high_water_live_bytes=20 allocated_bytes=20 freed_bytes=20 allocations=2 frees=2 "
			    "live_allocations=0 completed_lifetimes=2 lifetime_total_events=5 lifetime_mean_events=2 "
			    "lifetime_max_events=3 lifetime_total_byte_events=50 lifetime_mean_byte_events=25 "
			    "lifetime_max_byte_events=30\n");
	/* no site lines without --sites */
	assert_null(strstr(text, "\nsite return_address"));
	free(text);
	text = report(scopes_trace, &ro, &o, true);
	assert_non_null(strstr(text, "{\"kind\":\"site_detail\",\"sort\":\"traffic\",\"return_address\":64}\n"
				     "{\"kind\":\"site_size\",\"sort\":\"traffic\",\"return_address\":64,\"len\":10,"
				     "\"retained_bytes\":0,"));
	assert_non_null(strstr(text, "{\"kind\":\"site_scope\",\"sort\":\"traffic\",\"return_address\":64,"
				     "\"scope\":\"d\",\"retained_bytes\":0,"));
	free(text);

	/* a site never seen: the detail line alone */
	o.site_detail = ro.site_detail = 12345;
	text = report(scopes_trace, &ro, &o, false);
	assert_non_null(strstr(text, "site_detail return_address=0x3039\n"));
	assert_null(strstr(text, "site_size"));
	free(text);

	/* buckets sort by length when their counters tie */
	o.sort = TRACE_SORT_RETAINED;
	o.site_detail = ro.site_detail = 7;
	text = report("{'kind':'alloc','address':1,'len':30,'return_address':7}\n"
		      "{'kind':'alloc','address':2,'len':20,'return_address':7}\n"
		      "{'kind':'free','address':1}\n{'kind':'free','address':2}\n"
		      "{'kind':'alloc','address':3,'len':20,'return_address':7}\n"
		      "{'kind':'alloc','address':4,'len':30,'return_address':7}\n",
		      &ro, &o, false);
	const char *l20 = strstr(text, "site_size len=20 "), *l30 = strstr(text, "site_size len=30 ");
	assert_non_null(l20);
	assert_non_null(l30);
	/* 30 retains more */
	assert_true(l30 < l20);
	free(text);
}

static void test_strings_quoted(void **state)
{
	(void)state;
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING, .has_site_detail = true, .site_detail = 0 };
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24, .has_site_detail = true };
	static const char trace[] = "{'kind':'alloc','len':5,'scope':'r\\\"q\\\\ \\n\\u0001\\u00e9'}\n";
	char *text = report(trace, &ro, &o, false);
	/* a scope line writes the path as it is; site_scope quotes it */
	assert_non_null(strstr(text, "\nr\"q\\ \n\x01\xc3\xa9 retained_bytes=5 "));
	assert_non_null(strstr(text, "site_scope scope=\"r\\\"q\\\\ \\n\\u0001\xc3\xa9\" retained_bytes=5 "));
	free(text);
	text = report(trace, &ro, &o, true);
	assert_non_null(strstr(text, "\"scope\":\"r\\\"q\\\\ \\n\\u0001\xc3\xa9\","));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_lines),
		cmocka_unit_test(test_complete_and_anomalies),
		cmocka_unit_test(test_sorts_and_tie_breaks),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_json_lines),
		cmocka_unit_test(test_logical_layer),
		cmocka_unit_test(test_physical_layer),
		cmocka_unit_test(test_site_detail_lines),
		cmocka_unit_test(test_strings_quoted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
