/* Stacks of trace record --stack N in the analyzer and the report
 * (--stacks): "stack" events parsed and kept, rows ranked as sites are,
 * their statuses (recorded, missing, none), untracked counts, the fallback
 * to sites, the binary format's stack_id, and malformed stack events and
 * the limits of common/limits.h refused as invalid events. */
#include <errno.h>
#include <stdio.h>

#include "limits.h"
#include "trace-binary.h"
#include "trace-report.h"
#include "trace-testlib.h"

static const struct trace_replay_options with_stacks = { .layer = TRACE_LAYER_BACKING, .track_sites = true,
							  .track_stacks = true };

static const struct trace_stack *stack_of(const struct run *run, uint32_t id)
{
	const struct trace_stack *s = hashtab_get(&run->a.stacks, id);
	if (!s)
		fail_msg("no stack %u", id);
	return s;
}

/* Replays text, which must be invalid at line with message. */
static void refused(const char *text, uint64_t line, const char *message)
{
	struct run *run = replay_with(text, &with_stacks);
	if (run->r != -EINVAL)
		fail_msg("accepted: %s", text);
	assert_int_equal(run->err.line, line);
	assert_string_equal(run->err.error.message, message);
	done(run);
}

/* Both parsers read stack_id; only the general one reads "frames", and
 * addresses above 2^63 keep their value. */
static void test_parse(void **state)
{
	(void)state;
	static const char alloc[] = "{\"kind\":\"alloc\",\"len\":8,\"stack_id\":4294967295}";
	static const char stack[] = "{\"kind\":\"stack\",\"stack_id\":3,\"frames\":[1,18446744073709551615,0]}";
	struct trace_general g;
	struct trace_event fast, general;
	struct error err = { 0 };

	trace_general_init(&g);
	assert_int_equal(trace_fast_parse(NULL, alloc, strlen(alloc), &fast), 0);
	assert_int_equal(trace_general_parse(&g, alloc, strlen(alloc), &general, &err), 0);
	assert_int_equal(fast.stack_id, UINT32_MAX);
	assert_true(trace_event_equal(&fast, &general));

	assert_int_equal(trace_fast_parse(NULL, stack, strlen(stack), &fast), -EAGAIN);
	assert_int_equal(trace_general_parse(&g, stack, strlen(stack), &general, &err), 0);
	assert_int_equal(general.kind, TRACE_KIND_STACK);
	assert_int_equal(general.stack_id, 3);
	assert_int_equal(general.n_frames, 3);
	assert_true(general.frames[0] == 1 && general.frames[1] == UINT64_MAX && general.frames[2] == 0);
	trace_general_done(&g);
}

/* A stack event whose fields break the rules is an invalid event, with
 * its line and why. */
static void test_malformed(void **state)
{
	(void)state;
	refused("{'kind':'stack','stack_id':1,'frames':5}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'stack','stack_id':1,'frames':[1,'2']}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'stack','stack_id':1,'frames':[1,-2]}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'stack','stack_id':1,'frames':[1.5]}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'stack','stack_id':1,'frames':[[1]]}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'stack','stack_id':1,'frames':[18446744073709551616]}\n", 1,
		"field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'alloc','len':1,'frames':{}}\n", 1, "field \"frames\" must be an array of unsigned integers");
	refused("{'kind':'alloc','len':1,'stack_id':4294967296}\n", 1, "field \"stack_id\" is larger than 4294967295");
	refused("{'kind':'alloc','len':1,'stack_id':'1'}\n", 1, "field \"stack_id\" must be an unsigned integer below 2^32");
	refused("{'kind':'stack','frames':[1]}\n", 1, "a stack event needs a \"stack_id\" above 0");
	refused("{'kind':'stack','stack_id':0,'frames':[1]}\n", 1, "a stack event needs a \"stack_id\" above 0");
	refused("{'kind':'stack','stack_id':1}\n", 1, "a stack event needs \"frames\", at least one");
	refused("{'kind':'stack','stack_id':1,'frames':[]}\n", 1, "a stack event needs \"frames\", at least one");
	/* the same id again: the same frames are one stack, others refused */
	refused("{'kind':'stack','stack_id':1,'frames':[1,2]}\n{'kind':'stack','stack_id':1,'frames':[1,2]}\n"
		"{'kind':'stack','stack_id':1,'frames':[1,3]}\n",
		3, "stack_id 1 is redefined with other frames");
	refused("{'kind':'stack','stack_id':1,'frames':[1,2]}\n{'kind':'stack','stack_id':1,'frames':[1]}\n", 2,
		"stack_id 1 is redefined with other frames");
}

/* A stack's frames up to RW_TRACE_STACK_FRAMES_MAX; one more is refused. */
static void test_frames_limit(void **state)
{
	(void)state;
	char text[64 + (RW_TRACE_STACK_FRAMES_MAX + 1) * 8];
	int n = snprintf(text, sizeof(text), "{'kind':'stack','stack_id':1,'frames':[");
	for (unsigned i = 0; i < RW_TRACE_STACK_FRAMES_MAX; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%u", i ? "," : "", 4096 + i);
	snprintf(text + n, sizeof(text) - (size_t)n, "]}\n");
	struct run *run = replay_with(text, &with_stacks);
	assert_int_equal(run->r, 0);
	assert_int_equal(stack_of(run, 1)->n_frames, RW_TRACE_STACK_FRAMES_MAX);
	assert_int_equal(run->a.frames[stack_of(run, 1)->first_frame + RW_TRACE_STACK_FRAMES_MAX - 1],
			 4096 + RW_TRACE_STACK_FRAMES_MAX - 1);
	done(run);

	snprintf(text + n, sizeof(text) - (size_t)n, ",1]}\n");
	char message[96];
	snprintf(message, sizeof(message), "field \"frames\" lists %u frames, more than %u",
		 RW_TRACE_STACK_FRAMES_MAX + 1, RW_TRACE_STACK_FRAMES_MAX);
	refused(text, 1, message);
}

/* Lines of events, one per stack id from 1 to n, each as fmt makes it. */
static char *numbered(unsigned n, const char *fmt)
{
	size_t size = (size_t)n * 80 + 1, len = 0;
	char *text = malloc(size);
	assert_non_null(text);
	for (unsigned i = 1; i <= n; i++)
		len += (size_t)snprintf(text + len, size - len, fmt, i, i);
	return text;
}

/* RW_TRACE_STACKS_MAX stack ids, defined or only named by events; the
 * next one is refused.  The row of events without one does not count. */
static void test_stacks_limit(void **state)
{
	(void)state;
	char message[64];
	snprintf(message, sizeof(message), "more than %u stack ids", RW_TRACE_STACKS_MAX);

	char *text = numbered(RW_TRACE_STACKS_MAX + 1, "{'kind':'stack','stack_id':%u,'frames':[%u]}\n");
	refused(text, RW_TRACE_STACKS_MAX + 1, message);
	/* up to the limit, and an event without a stack_id, are read */
	strcpy(strrchr(text, '{'), "{'kind':'alloc','address':1,'len':1}\n");
	struct run *run = replay_with(text, &with_stacks);
	assert_int_equal(run->r, 0);
	assert_int_equal(run->a.stacks.count, RW_TRACE_STACKS_MAX + 1);
	done(run);
	free(text);

	text = numbered(RW_TRACE_STACKS_MAX + 1, "{'kind':'alloc','address':%u,'len':1,'stack_id':%u}\n");
	refused(text, RW_TRACE_STACKS_MAX + 1, message);
	free(text);
}

/* Stack id 1 keeps 300 bytes from two allocations (one freed by an event
 * of stack 4, which counts for the stack that allocated it), stack 2 keeps
 * 100 and grew to it by a resize, stack 3 is named by events but never
 * defined, and two allocations carry no stack_id; stack 4 allocated
 * nothing. */
static const char ranked_trace[] =
	"{'seq':1,'kind':'trace.start'}\n"
	"{'seq':2,'kind':'alloc','address':16,'len':200,'return_address':4096,'stack_id':1}\n"
	"{'seq':3,'kind':'alloc','address':32,'len':100,'return_address':4096,'stack_id':1}\n"
	"{'seq':4,'kind':'alloc','address':48,'len':50,'return_address':4096,'stack_id':1}\n"
	"{'seq':5,'kind':'free','address':48,'return_address':4200,'stack_id':4}\n"
	"{'seq':6,'kind':'alloc','address':64,'len':60,'return_address':4096,'stack_id':2}\n"
	"{'seq':7,'kind':'resize','address':64,'len':100,'stack_id':2}\n"
	"{'seq':8,'kind':'alloc','address':80,'len':40,'return_address':5000,'stack_id':3}\n"
	"{'seq':9,'kind':'alloc','address':96,'len':7,'return_address':5000}\n"
	"{'seq':10,'kind':'alloc','address':112,'len':3,'return_address':5000}\n"
	"{'seq':11,'kind':'stack','stack_id':1,'frames':[4096,8192,12288]}\n"
	"{'seq':12,'kind':'stack','stack_id':2,'frames':[4096,8300]}\n"
	"{'seq':13,'kind':'stack','stack_id':4,'frames':[4200,8192]}\n"
	"{'seq':14,'kind':'trace.stop'}\n";

static char *write_report(const char *text, const struct trace_report_options *o, bool json,
			  bool *ret_fell_back)
{
	struct run *run = replay_with(text, &with_stacks);
	struct trace_report r;
	struct error reason = { 0 };
	char *out = NULL;
	size_t len = 0;

	assert_int_equal(run->r, 0);
	if (trace_report_build(&run->a, o, &r, &reason) != 0)
		fail_msg("report: %s", reason.message);
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(json ? trace_report_jsonl(&run->a, o, &r, f) : trace_report_text(&run->a, o, &r, f), 0);
	fclose(f);
	*ret_fell_back = r.stacks_fell_back;
	trace_report_done(&r);
	done(run);
	return out;
}

/* The lines that start with prefix, joined. */
static char *lines_of(const char *text, const char *prefix)
{
	char *out = calloc(1, strlen(text) + 1);
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) + 1 : strlen(l);
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			strncat(out, l, n);
		l += n;
	}
	return out;
}

static size_t count_lines(const char *text)
{
	size_t n = 0;
	for (const char *c = text; (c = strchr(c, '\n')); c++)
		n++;
	return n;
}

#define ZERO_LIFETIMES                                                                                   \
	" completed_lifetimes=0 lifetime_total_events=0 lifetime_mean_events=0 lifetime_max_events=0" \
	" lifetime_total_byte_events=0 lifetime_mean_byte_events=0 lifetime_max_byte_events=0\n"

static void test_ranking_and_statuses(void **state)
{
	(void)state;
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24, .include_stacks = true };
	bool fell_back;
	char *text = write_report(ranked_trace, &o, false, &fell_back);
	char *stacks = lines_of(text, "stack");

	assert_false(fell_back);
	/* no site rows unless --sites */
	assert_null(strstr(text, "\nsite "));
	assert_string_equal(
		stacks,
		"stack stack_id=1 status=recorded frames=3 retained_bytes=300 high_water_retained_bytes=350 "
		"live_bytes=300 high_water_live_bytes=350 allocated_bytes=350 freed_bytes=50 allocations=3 frees=1 "
		"live_allocations=2 completed_lifetimes=1 lifetime_total_events=1 lifetime_mean_events=1 "
		"lifetime_max_events=1 lifetime_total_byte_events=50 lifetime_mean_byte_events=50 "
		"lifetime_max_byte_events=50\n"
		"stack_frame stack_id=1 frame=0 return_address=0x1000\n"
		"stack_frame stack_id=1 frame=1 return_address=0x2000\n"
		"stack_frame stack_id=1 frame=2 return_address=0x3000\n"
		"stack stack_id=2 status=recorded frames=2 retained_bytes=100 high_water_retained_bytes=100 "
		"live_bytes=100 high_water_live_bytes=100 allocated_bytes=100 freed_bytes=0 allocations=1 frees=0 "
		"live_allocations=1" ZERO_LIFETIMES
		"stack_frame stack_id=2 frame=0 return_address=0x1000\n"
		"stack_frame stack_id=2 frame=1 return_address=0x206c\n"
		"stack stack_id=3 status=missing frames=0 retained_bytes=40 high_water_retained_bytes=40 "
		"live_bytes=40 high_water_live_bytes=40 allocated_bytes=40 freed_bytes=0 allocations=1 frees=0 "
		"live_allocations=1" ZERO_LIFETIMES
		"stack stack_id=none status=none frames=0 retained_bytes=10 high_water_retained_bytes=10 "
		"live_bytes=10 high_water_live_bytes=10 allocated_bytes=10 freed_bytes=0 allocations=2 frees=0 "
		"live_allocations=2" ZERO_LIFETIMES);
	free(stacks);
	free(text);

	/* --top, --min-bytes and --include-zero-live as for sites: stack 4
	 * never held a byte */
	o.top = 2;
	text = write_report(ranked_trace, &o, false, &fell_back);
	stacks = lines_of(text, "stack stack_id");
	assert_int_equal(strncmp(stacks, "stack stack_id=1 ", 17), 0);
	assert_non_null(strstr(stacks, "\nstack stack_id=2 "));
	assert_int_equal(count_lines(stacks), 2);
	assert_null(strstr(stacks, "stack_id=3"));
	assert_null(strstr(stacks, "stack_id=none"));
	free(stacks);
	free(text);
	o.top = 24;
	o.filter.min_bytes = 41;
	text = write_report(ranked_trace, &o, false, &fell_back);
	stacks = lines_of(text, "stack stack_id");
	assert_non_null(strstr(stacks, "stack_id=2 "));
	assert_null(strstr(stacks, "stack_id=3 "));
	assert_null(strstr(stacks, "stack_id=none "));
	free(stacks);
	free(text);
	o.filter = (struct trace_filter){ .include_zero_live = true };
	o.sort = TRACE_SORT_TRAFFIC;
	text = write_report(ranked_trace, &o, false, &fell_back);
	stacks = lines_of(text, "stack stack_id");
	assert_non_null(strstr(stacks, "\nstack stack_id=4 status=recorded frames=2 retained_bytes=0 "));
	free(stacks);
	free(text);
}

/* JSON Lines: a "stack" object per row, its frames an array. */
static void test_json(void **state)
{
	(void)state;
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24, .include_stacks = true,
					  .include_sites = true };
	bool fell_back;
	char *text = write_report(ranked_trace, &o, true, &fell_back);
	char *stacks = lines_of(text, "{\"kind\":\"stack\"");
	char *sites = lines_of(text, "{\"kind\":\"site\"");

	assert_non_null(strstr(sites, "\"return_address\":4096,\"retained_bytes\":400,"));
	assert_non_null(strstr(
		stacks, "{\"kind\":\"stack\",\"sort\":\"retained\",\"stack_id\":1,\"status\":\"recorded\","
			"\"frames\":[{\"return_address\":4096},{\"return_address\":8192},{\"return_address\":12288}],"
			"\"retained_bytes\":300,\"high_water_retained_bytes\":350,"));
	assert_non_null(strstr(stacks, "{\"kind\":\"stack\",\"sort\":\"retained\",\"stack_id\":3,"
				       "\"status\":\"missing\",\"frames\":[],\"retained_bytes\":40,"));
	assert_non_null(strstr(stacks, "{\"kind\":\"stack\",\"sort\":\"retained\",\"stack_id\":null,"
				       "\"status\":\"none\",\"frames\":[],\"retained_bytes\":10,"));
	free(sites);
	free(stacks);
	free(text);
}

/* Untracked counts (below --min-bytes) count for the stack they name, and
 * those without a stack_id (the tracer's per-site counts carry none) for
 * the row of none.  On the logical layer they are untracked requests. */
static void test_untracked(void **state)
{
	(void)state;
	struct trace_replay_options ro = with_stacks;
	ro.layer = TRACE_LAYER_LOGICAL;
	struct run *run = replay_with(
		"{'kind':'allocator','allocator_id':1,'layer':'logical_allocator'}\n"
		"{'kind':'alloc','layer':'logical_allocator','allocator_id':1,'address':16,'len':4096,"
		"'return_address':4096,'stack_id':1}\n"
		"{'kind':'alloc','layer':'logical_allocator','allocator_id':1,'tracked':false,'len':300,'count':3,"
		"'return_address':4096,'stack_id':1}\n"
		"{'kind':'alloc','layer':'logical_allocator','allocator_id':1,'tracked':false,'len':1000,'count':10,"
		"'return_address':4096}\n"
		"{'kind':'stack','stack_id':1,'frames':[4096]}\n",
		&ro);
	assert_int_equal(run->r, 0);
	const struct trace_counters *one = &stack_of(run, 1)->counters, *none = &stack_of(run, 0)->counters;
	assert_int_equal(one->allocations, 4);
	assert_int_equal(one->live_bytes, 4096);
	assert_int_equal(one->untracked_requests, 3);
	assert_int_equal(one->untracked_request_bytes, 300);
	assert_int_equal(none->allocations, 10);
	assert_int_equal(none->untracked_requests, 10);
	assert_int_equal(none->untracked_request_bytes, 1000);
	assert_int_equal(none->live_bytes, 0);
	/* the site holds all of them */
	assert_int_equal(site(run, 4096)->untracked_requests, 13);
	done(run);
}

/* A trace without a stack event or a stack_id: sites instead, said so. */
static void test_fallback(void **state)
{
	(void)state;
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = 24, .include_stacks = true };
	bool fell_back;
	char *text = write_report("{'kind':'alloc','address':16,'len':5,'return_address':4096}\n", &o, false,
				  &fell_back);
	assert_true(fell_back);
	assert_non_null(strstr(text, "\nsite return_address=0x1000 retained_bytes=5 "));
	assert_null(strstr(text, "\nstack "));
	free(text);
	/* one stack_id is enough for stack rows */
	text = write_report("{'kind':'alloc','address':16,'len':5,'return_address':4096,'stack_id':9}\n", &o, false,
			    &fell_back);
	assert_false(fell_back);
	assert_non_null(strstr(text, "\nstack stack_id=9 status=missing frames=0 retained_bytes=5 "));
	assert_null(strstr(text, "\nsite "));
	free(text);
}

/* A binary record's stack_id is the event's, its stack a JSON line. */
static void test_binary(void **state)
{
	(void)state;
	struct trace_bin_stream bs = { 0 };
	struct trace_bin_record rec = { .kind = TRACE_BIN_ALLOC, .address = 4096, .len = 64,
					.return_address = 777, .stack_id = 5 };
	static const char line[] = "{\"seq\":2,\"kind\":\"stack\",\"stack_id\":5,\"frames\":[777,888]}\n";
	unsigned char buf[TRACE_BIN_MAGIC_LEN + TRACE_BIN_SEGMENT_HEAD_MAX + TRACE_BIN_RECORD_MAX + sizeof(line)];
	unsigned char one[TRACE_BIN_RECORD_MAX];
	size_t n = TRACE_BIN_MAGIC_LEN, k = trace_bin_encode(&bs, &rec, one);

	memcpy(buf, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
	n += trace_bin_segment(buf + n, 0, 1, k);
	memcpy(buf + n, one, k);
	n += k;
	memcpy(buf + n, line, sizeof(line) - 1);
	n += sizeof(line) - 1;

	struct trace_replay_options ro = with_stacks;
	ro.layer = TRACE_LAYER_LOGICAL;
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	trace_analyzer_init(&a, &ro);
	trace_parser_init(&p);
	assert_int_equal(trace_replay_buffer(&a, &p, (const char *)buf, n, &err), 0);
	const struct trace_stack *s = hashtab_get(&a.stacks, 5);
	assert_non_null(s);
	assert_true(s->recorded);
	assert_int_equal(s->n_frames, 2);
	assert_int_equal(a.frames[s->first_frame + 1], 888);
	assert_int_equal(s->counters.live_bytes, 64);
	assert_null(hashtab_get(&a.stacks, 0));
	trace_parser_done(&p);
	trace_analyzer_done(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_frames_limit),
		cmocka_unit_test(test_stacks_limit),
		cmocka_unit_test(test_ranking_and_statuses),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_untracked),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_binary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
