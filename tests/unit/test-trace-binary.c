/* The binary trace format (trace/trace-binary.c): records encoded and
 * decoded back, files of several streams in segments cut at every byte,
 * bytes that are no frame, segments that are wrong, the replay of a binary
 * file against the same events as JSON Lines, and the export to JSON
 * Lines. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace-binary.h"
#include "trace-replay.h"
#include "trace-run.h"

#define RECORDS 2000

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Records of every kind with the values a program gives: addresses near
 * each other, and now and then anything at all (0, 2^64-1), and gaps. */
static void make_records(struct trace_bin_record *v, size_t n)
{
	uint64_t base = 0x5555deadbe00ull;

	for (size_t i = 0; i < n; i++) {
		struct trace_bin_record *r = &v[i];
		bool wild = next() % 50 == 0;
		*r = (struct trace_bin_record){ .kind = (enum trace_bin_kind)(1 + next() % 7) };
		r->gap = next() % 10 == 0 ? next() % 1000 : 0;
		r->address = wild ? (next() % 2 ? UINT64_MAX : 0) : base + (next() % 4096) * 16;
		if (r->kind == TRACE_BIN_MOVE || r->kind == TRACE_BIN_REMAP)
			r->old_address = wild ? next() : base + (next() % 4096) * 16;
		if (r->kind != TRACE_BIN_FREE)
			r->len = wild ? UINT64_MAX : next() % 100000;
		if (next() % 5 == 0)
			r->old_len = next() % 100000;
		r->return_address = next() % 8 ? 0x7f0000401000ull + next() % 64 : 0;
		r->scope_id = next() % 3 ? 0 : (wild ? UINT32_MAX : (uint32_t)(next() % 40));
		r->stack_id = next() % 4 ? 0 : (uint32_t)(next() % 1000);
		r->failed = next() % 20 == 0;
	}
}

/* A binary file: the magic, a start line, the records in segments of one
 * to seven of them, of three streams in turn (each with its own deltas),
 * then a stop line.  Gives each record the seq a reader must give it. */
static size_t make_file_after(const char *head, struct trace_bin_record *v, size_t n, char *out);

static size_t make_file(struct trace_bin_record *v, size_t n, char *out)
{
	return make_file_after("", v, n, out);
}

/* The same with the lines of head (each numbered as one event) after the
 * start. */
static size_t make_file_after(const char *head, struct trace_bin_record *v, size_t n, char *out)
{
	static const char start[] = "{\"v\":3,\"seq\":1,\"kind\":\"trace.start\"}\n";
	static struct trace_bin_stream streams[3];
	unsigned char seg[8 * TRACE_BIN_RECORD_MAX];
	uint64_t seq = 2;
	size_t len = 0;

	memset(streams, 0, sizeof(streams));
	memcpy(out, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
	len += TRACE_BIN_MAGIC_LEN;
	memcpy(out + len, start, sizeof(start) - 1);
	len += sizeof(start) - 1;
	for (const char *c = head; *c; c++)
		seq += *c == '\n';
	memcpy(out + len, head, strlen(head));
	len += strlen(head);
	for (size_t i = 0, k = 0; i < n; k++) {
		size_t m = 1 + (i * 7 + k) % 7, bytes = 0;
		uint32_t stream = (uint32_t)(k % 3);
		uint64_t first = seq;
		for (size_t j = 0; j < m && i < n; j++, i++) {
			v[i].seq = seq + v[i].gap;
			seq = v[i].seq + 1;
			bytes += trace_bin_encode(&streams[stream], &v[i], seg + bytes);
		}
		len += trace_bin_segment((unsigned char *)out + len, stream + 1000, first, bytes);
		memcpy(out + len, seg, bytes);
		len += bytes;
	}
	len += (size_t)sprintf(out + len, "{\"seq\":%" PRIu64 ",\"kind\":\"trace.stop\"}\n", seq);
	return len;
}

static void round_trip(void **state)
{
	static struct trace_bin_record v[RECORDS], back;
	struct trace_bin_stream enc = { 0 }, dec = { 0 };
	unsigned char buf[TRACE_BIN_RECORD_MAX];
	const char *why;

	(void)state;
	make_records(v, RECORDS);
	for (size_t i = 0; i < RECORDS; i++) {
		size_t n = trace_bin_encode(&enc, &v[i], buf);
		assert_true(n >= 3 && n <= TRACE_BIN_RECORD_MAX);
		/* cut anywhere inside, the record is incomplete, not wrong */
		for (size_t cut = 0; cut < n; cut++) {
			struct trace_bin_stream copy = dec;
			assert_int_equal(trace_bin_decode(&copy, buf, cut, &back, &why), 0);
		}
		assert_int_equal(trace_bin_decode(&dec, buf, n, &back, &why), (int)n);
		assert_memory_equal(&back, &v[i], sizeof(back));
	}
}

static void not_a_record(void **state)
{
	struct trace_bin_stream s = { 0 };
	struct trace_bin_record r;
	const char *why;
	unsigned char zero[4] = { 0 }, gap_then_nothing[4] = { TRACE_BIN_GAP, 0, 0, 0 };
	/* a varint of eleven bytes */
	unsigned char longer[16] = { TRACE_BIN_ALLOC, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	(void)state;
	assert_int_equal(trace_bin_decode(&s, zero, sizeof(zero), &r, &why), -1);
	assert_non_null(strstr(why, "starts no record"));
	assert_int_equal(trace_bin_decode(&s, gap_then_nothing, sizeof(gap_then_nothing), &r, &why), -1);
	assert_int_equal(trace_bin_decode(&s, longer, sizeof(longer), &r, &why), -1);
	assert_non_null(strstr(why, "longer than 64 bits"));
}

/* Segments that cannot be: of a stream past the last, empty, or with a
 * record that runs past their end; and what is neither segment nor line. */
static void wrong_segments(void **state)
{
	static struct trace_bin_state s;
	struct trace_bin_stream st = { 0 };
	struct trace_bin_record rec = { .kind = TRACE_BIN_ALLOC, .address = 4096, .len = 64, .return_address = 7 };
	struct trace_bin_frame f;
	unsigned char buf[128];
	const char *why;
	size_t n, r;

	(void)state;
	memset(&s, 0, sizeof(s));
	n = trace_bin_segment(buf, TRACE_BIN_STREAMS, 1, 3);
	assert_int_equal(trace_bin_next(&s, (const char *)buf, n + 3, &f, &why), -1);
	assert_non_null(strstr(why, "past the last one"));
	n = trace_bin_segment(buf, 0, 1, 0);
	assert_int_equal(trace_bin_next(&s, (const char *)buf, n + 3, &f, &why), -1);
	assert_non_null(strstr(why, "without records"));
	r = trace_bin_encode(&st, &rec, buf + 32);
	n = trace_bin_segment(buf, 0, 1, r - 1);
	memmove(buf + n, buf + 32, r);
	assert_int_equal(trace_bin_next(&s, (const char *)buf, n + r, &f, &why), -1);
	assert_non_null(strstr(why, "runs past the end of its segment"));
	/* cut inside the head, or before the record is whole: more is needed */
	n = trace_bin_segment(buf, 0, 1, r);
	memmove(buf + n, buf + 32, r);
	for (size_t cut = 1; cut < n + r; cut++)
		assert_int_equal(trace_bin_next(&s, (const char *)buf, cut, &f, &why), 0);
	assert_int_equal(trace_bin_next(&s, (const char *)buf, n + r, &f, &why), (int)(n + r));
	assert_int_equal(f.record.seq, 1);
	assert_int_equal(f.record.address, 4096);
	buf[0] = 'x';
	memset(&s, 0, sizeof(s));
	assert_int_equal(trace_bin_next(&s, (const char *)buf, n + r, &f, &why), -1);
	assert_non_null(strstr(why, "neither a segment nor a JSON line"));
}

/* Records of three streams, interleaved in segments, come back as they
 * were encoded, each numbered as the file says. */
static void streams_in_segments(void **state)
{
	static struct trace_bin_record v[RECORDS];
	static char file[RECORDS * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 256];
	static struct trace_bin_state s;
	struct trace_bin_frame f;
	const char *why;
	size_t len, at = TRACE_BIN_MAGIC_LEN, i = 0;

	(void)state;
	memset(&s, 0, sizeof(s));
	make_records(v, RECORDS);
	len = make_file(v, RECORDS, file);
	while (at < len) {
		int k = trace_bin_next(&s, file + at, len - at, &f, &why);
		assert_true(k > 0);
		at += (size_t)k;
		if (f.line)
			continue;
		assert_true(i < RECORDS);
		assert_memory_equal(&f.record, &v[i], sizeof(f.record));
		i++;
	}
	assert_int_equal(i, RECORDS);
}

struct replayed {
	int r;
	struct trace_replay_error err;
	uint64_t events, allocations, allocated, frees;
};

static struct replayed replay(const char *buf, size_t len)
{
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
	struct trace_analyzer a;
	struct trace_parser p;
	struct replayed res;

	trace_analyzer_init(&a, &o);
	trace_parser_init(&p);
	res.r = trace_replay_buffer(&a, &p, buf, len, &res.err);
	res.events = a.events;
	res.allocations = a.totals.c.allocations;
	res.allocated = a.totals.c.allocated_bytes;
	res.frees = a.totals.c.frees;
	trace_parser_done(&p);
	trace_analyzer_done(&a);
	return res;
}

/* The export of a binary file, through a pipe-like temporary file. */
static char *export(const char *buf, size_t len, size_t *out_len, int *r, struct trace_replay_error *err)
{
	FILE *in = tmpfile(), *out = tmpfile();
	char *text;

	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(fwrite(buf, 1, len, in), len);
	fflush(in);
	lseek(fileno(in), 0, SEEK_SET);
	*r = trace_replay_export(fileno(in), out, err);
	fflush(out);
	*out_len = (size_t)ftell(out);
	text = malloc(*out_len + 1);
	assert_non_null(text);
	rewind(out);
	assert_int_equal(fread(text, 1, *out_len, out), *out_len);
	text[*out_len] = 0;
	fclose(in);
	fclose(out);
	return text;
}

/* Only allocs, frees and resizes of the logical layer that balance, so the
 * analyzer takes every one. */
static size_t make_program(struct trace_bin_record *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = (struct trace_bin_record){
			.kind = i % 2 ? TRACE_BIN_FREE : TRACE_BIN_ALLOC,
			.address = 0x1000 + (i / 2) * 64,
			.len = i % 2 ? 0 : 16 + i,
			.return_address = 0x400000 + i % 7,
			.scope_id = 0,
		};
	}
	return n;
}

static void replay_and_export_agree(void **state)
{
	static struct trace_bin_record v[RECORDS];
	static char file[RECORDS * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 256];
	struct trace_replay_error err;
	size_t len, jlen;
	int r;

	(void)state;
	make_program(v, RECORDS);
	len = make_file(v, RECORDS, file);
	struct replayed bin = replay(file, len);
	assert_int_equal(bin.r, 0);
	assert_true(bin.err.binary);
	assert_int_equal(bin.events, RECORDS + 2);
	assert_int_equal(bin.allocations, RECORDS / 2);
	assert_int_equal(bin.frees, RECORDS / 2);

	char *json = export(file, len, &jlen, &r, &err);
	assert_int_equal(r, 0);
	struct replayed text = replay(json, jlen);
	assert_int_equal(text.r, 0);
	assert_false(text.err.binary);
	assert_int_equal(text.events, bin.events);
	assert_int_equal(text.allocated, bin.allocated);
	/* each record is one line, as the tracer's JSON writer writes it */
	char line[TRACE_BIN_JSON_MAX + 1];
	size_t n = trace_bin_json(&v[0], line);
	line[n] = 0;
	assert_non_null(strstr(json, line));
	free(json);
}

/* Cut at every byte past the head: the whole frames before the cut are
 * replayed and exported, then a clear error (or none, at a frame's end). */
static void cut_files(void **state)
{
	static struct trace_bin_record v[40];
	static char file[40 * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 256];
	size_t len = make_file(v, make_program(v, 40), file), jlen;
	struct trace_replay_error err;
	size_t frame_end[64], frames = 0, at = TRACE_BIN_MAGIC_LEN;
	static struct trace_bin_state s;
	struct trace_bin_frame f;
	const char *why;
	int r;

	(void)state;
	while (at < len) {
		int k = trace_bin_next(&s, file + at, len - at, &f, &why);
		assert_true(k > 0);
		at += (size_t)k;
		frame_end[frames++] = at;
	}
	for (size_t cut = TRACE_BIN_MAGIC_LEN + 1; cut < len; cut++) {
		size_t whole = 0;
		while (whole < frames && frame_end[whole] <= cut)
			whole++;
		struct replayed res = replay(file, cut);
		bool at_end = whole > 0 && frame_end[whole - 1] == cut;
		/* a JSON line cut short is a line without newline: the parser's to judge */
		bool in_line = file[whole ? frame_end[whole - 1] : TRACE_BIN_MAGIC_LEN] == '{';
		if (at_end) {
			assert_int_equal(res.r, 0);
		} else if (!in_line) {
			assert_int_equal(res.r, -EINVAL);
			assert_non_null(strstr(res.err.error.message, "ends inside a record"));
			assert_int_equal(res.err.line, whole + 1);
		}
		if (!in_line || at_end)
			assert_int_equal(res.events, whole);
		char *json = export(file, cut, &jlen, &r, &err);
		if (!in_line && !at_end) {
			assert_int_equal(r, -EINVAL);
			size_t lines = 0;
			for (size_t i = 0; i < jlen; i++)
				lines += json[i] == '\n';
			assert_int_equal(lines, whole);
		}
		free(json);
	}
}

static void bad_byte_in_file(void **state)
{
	static struct trace_bin_record v[10];
	static char file[10 * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 256];
	size_t len = make_file(v, make_program(v, 10), file);
	static struct trace_bin_state s;
	struct trace_bin_frame f;
	const char *why;
	size_t at = TRACE_BIN_MAGIC_LEN;

	(void)state;
	/* the fourth frame's first byte (the second record of the second
	 * segment: the first holds one record) made into no kind at all */
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 3; i++)
		at += (size_t)trace_bin_next(&s, file + at, len - at, &f, &why);
	file[at] = 0x0e;
	struct replayed res = replay(file, len);
	assert_int_equal(res.r, -EINVAL);
	assert_int_equal(res.err.line, 4);
	assert_int_equal(res.events, 3);
	assert_non_null(strstr(res.err.error.message, "starts no record"));
}

/* A replay of a binary trace and of its export to JSON Lines, side by
 * side: what is compared. */
struct side {
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	int r;
};

static void replay_side(struct side *x, const char *buf, size_t len, const struct trace_replay_options *o)
{
	trace_analyzer_init(&x->a, o);
	trace_parser_init(&x->p);
	x->r = trace_replay_buffer(&x->a, &x->p, buf, len, &x->err);
}

static void assert_same_replay(struct side *b, struct side *j)
{
	assert_int_equal(b->r, j->r);
	assert_int_equal(b->err.line, j->err.line);
	assert_string_equal(b->err.error.message, j->err.error.message);
	assert_int_equal(b->a.events, j->a.events);
	assert_int_equal(b->a.stack_events, j->a.stack_events);
	assert_memory_equal(&b->a.totals, &j->a.totals, sizeof(b->a.totals));
	assert_memory_equal(&b->a.physical, &j->a.physical, sizeof(b->a.physical));
	assert_int_equal(b->a.sequence.sequenced_events, j->a.sequence.sequenced_events);
	assert_int_equal(b->a.sequence.sequence_gaps, j->a.sequence.sequence_gaps);
	assert_int_equal(b->a.sequence.missing_sequence_events, j->a.sequence.missing_sequence_events);
	assert_int_equal(b->a.sequence.sequence_regressions, j->a.sequence.sequence_regressions);
	assert_int_equal(b->a.sequence.last, j->a.sequence.last);
	assert_int_equal(b->a.scopes.n, j->a.scopes.n);
	for (size_t i = 0; i < b->a.scopes.n; i++) {
		assert_int_equal(b->a.scopes.v[i].len, j->a.scopes.v[i].len);
		assert_memory_equal(b->a.scopes.v[i].path, j->a.scopes.v[i].path, b->a.scopes.v[i].len);
		assert_memory_equal(&b->a.scopes.v[i].counters, &j->a.scopes.v[i].counters,
				    sizeof(struct trace_counters));
	}
	assert_int_equal(b->a.sites.count, j->a.sites.count);
	assert_int_equal(b->a.stacks.count, j->a.stacks.count);
	assert_int_equal(trace_live_count(&b->a.allocations), trace_live_count(&j->a.allocations));
	for (int k = 0; k < 2; k++) {
		struct side *x = k ? j : b;
		trace_parser_done(&x->p);
		trace_analyzer_done(&x->a);
	}
}

/* Every kind of record, each outcome (failed, unmatched, a move onto
 * itself, a key allocated twice), scope ids and stack ids: replayed from
 * the records, straight, as their JSON lines are (the export), under
 * every layer and the options that add counters. */
static void records_replay_as_their_lines(void **state)
{
	static struct trace_bin_record v[RECORDS];
	static char file[RECORDS * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 4096];
	static const char head[] = "{\"seq\":2,\"kind\":\"scope.enter\",\"scope_id\":1,\"scope\":\"root/a\"}\n"
				   "{\"seq\":3,\"kind\":\"scope.enter\",\"scope_id\":2,\"scope\":\"root/b\"}\n"
				   "{\"seq\":4,\"kind\":\"scope.enter\",\"scope_id\":3,\"scope\":\"root\"}\n";
	uint64_t live[64] = { 0 }, x = 0x9e3779b97f4a7c15ull;
	struct trace_replay_error err;
	size_t len, jlen;
	int r;

	(void)state;
	for (size_t i = 0; i < RECORDS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t slot = x % 64;
		uint64_t address = 0x10000 + slot * 0x100 + (x >> 60 == 0 ? 0x8000 : 0);
		struct trace_bin_record *r0 = &v[i];
		*r0 = (struct trace_bin_record){ .address = address, .return_address = 0x400000 + (x >> 20) % 5,
						 .scope_id = (uint32_t)((x >> 30) % 4), .stack_id = (uint32_t)((x >> 40) % 3),
						 .failed = (x >> 50) % 16 == 0, .gap = (x >> 54) % 64 == 0 };
		switch ((x >> 8) % 8) {
		case 0:
		case 1:
		case 2: r0->kind = TRACE_BIN_ALLOC, r0->len = 1 + (x >> 12) % 300; break;
		case 3:
		case 4: r0->kind = TRACE_BIN_FREE; break;
		case 5: r0->kind = TRACE_BIN_RESIZE, r0->len = (x >> 12) % 900, r0->old_len = live[slot]; break;
		case 6:
			r0->kind = TRACE_BIN_MOVE, r0->len = (x >> 12) % 900;
			r0->old_address = (x >> 16) % 4 ? address : 0x10000 + ((slot + 1) % 64) * 0x100;
			break;
		default:
			r0->kind = (x >> 16) % 2 ? TRACE_BIN_MAP : TRACE_BIN_UNMAP, r0->len = 4096 * (1 + (x >> 20) % 4);
			break;
		}
		if (r0->kind == TRACE_BIN_ALLOC || r0->kind == TRACE_BIN_RESIZE)
			live[slot] = r0->len;
		/* most small blocks: freed by their thread's next event */
		if (r0->kind == TRACE_BIN_ALLOC && (x >> 24) % 3 && i + 1 < RECORDS) {
			i++;
			v[i] = (struct trace_bin_record){ .kind = TRACE_BIN_FREE, .address = address,
							  .return_address = r0->return_address,
							  .scope_id = (uint32_t)((x >> 34) % 4), .failed = (x >> 4) % 9 == 0 };
		}
	}
	len = make_file_after(head, v, RECORDS, file);
	char *json = export(file, len, &jlen, &r, &err);
	assert_int_equal(r, 0);
	/* the runs' copy for the processor, and the plain one (the same where
	 * the processor has no fast pext) */
	for (int plain = 0; plain <= 1; plain++) {
		trace_run_force_plain(plain);
		for (int layer = 0; layer < _TRACE_LAYER_MAX; layer++)
			for (int opt = 0; opt < 5; opt++) {
				struct trace_replay_options o = { .layer = (enum trace_layer)layer,
								  .track_sites = opt == 1 || opt == 2,
								  .track_stacks = opt == 2,
								  .has_site_detail = opt == 3,
								  .site_detail = 0x400002,
								  .totals_only = opt == 4 };
				struct side b, j;
				replay_side(&b, file, len, &o);
				replay_side(&j, json, jlen, &o);
				assert_int_equal(b.r, 0);
				assert_true(b.a.totals.c.allocations > 0 || layer != TRACE_LAYER_LOGICAL);
				assert_same_replay(&b, &j);
			}
	}
	trace_run_force_plain(false);
	free(json);
}

/* The replay's runs (trace_run_records) take the records of the logical
 * kinds straight from a file's bytes, segment heads and all, and stop
 * before what the general replay must take: a backing record, a scope id
 * no scope.enter gave yet, the "root" scope not yet interned. */
static void runs_stop_where_the_general_replay_takes_over(void **state)
{
	static struct trace_bin_record v[300];
	static char file[300 * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 4096];
	static struct trace_bin_state bin;
	static const char start[] = "{\"v\":3,\"seq\":1,\"kind\":\"trace.start\"}\n";
	static const char head[] = "{\"seq\":2,\"kind\":\"scope.enter\",\"scope_id\":1,\"scope\":\"root/a\"}\n";
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
	size_t at = TRACE_BIN_MAGIC_LEN + strlen(start) + strlen(head);

	(void)state;
	assert_true(trace_run_usable(&(struct trace_analyzer){ .options = o }));
	o.track_sites = true;
	assert_false(trace_run_usable(&(struct trace_analyzer){ .options = o }));
	o.track_sites = false;
	for (int stop = 0; stop < 3; stop++) {
		struct trace_analyzer a;
		struct trace_parser p;
		struct trace_replay_error err;
		uint64_t done, allocs = 0;
		size_t used;

		for (size_t i = 0; i < 300; i++) {
			v[i] = (struct trace_bin_record){ .kind = i % 3 ? TRACE_BIN_ALLOC : TRACE_BIN_FREE,
							  .address = 0x1000 + (i / 3) * 64, .len = 16 + i % 5,
							  .scope_id = 1, .gap = i % 17 == 0 };
			if (i % 11 == 0)
				v[i].kind = TRACE_BIN_RESIZE;
			if (i < 200 && v[i].kind == TRACE_BIN_ALLOC)
				allocs++;
		}
		if (stop == 0)
			v[200] = (struct trace_bin_record){ .kind = TRACE_BIN_MAP, .address = 0x7000, .len = 4096 };
		else
			v[200].scope_id = stop == 1 ? 5 : 0;
		size_t len = make_file_after(head, v, 300, file);
		trace_analyzer_init(&a, &o);
		trace_parser_init(&p);
		/* the JSON lines of the head, then the records */
		assert_int_equal(trace_replay_buffer(&a, &p, file, at, &err), 0);
		assert_int_equal(file[at], TRACE_BIN_SEGMENT);
		memset(&bin, 0, sizeof(bin));
		assert_int_equal(trace_run_records(&a, &bin, file + at, len - at, &used, &done), 0);
		assert_int_equal(done, 200);
		assert_int_equal(a.events, 2 + 200);
		assert_int_equal(a.totals.c.allocations, allocs);
		assert_int_equal(a.sequence.last, v[199].seq);
		/* what is left starts with the record it stopped before */
		assert_true(used > 0 && used < len - at);
		assert_int_equal(trace_run_records(&a, &bin, file + at + used, len - at - used, &used, &done), 0);
		assert_int_equal(done, 0);
		assert_int_equal(used, 0);
		trace_parser_done(&p);
		trace_analyzer_done(&a);
	}
}

/* A record naming a scope_id no scope.enter gave a path is refused where
 * it is, for the reason its JSON line is. */
static void record_of_an_undefined_scope_id(void **state)
{
	static struct trace_bin_record v[10];
	static char file[10 * (TRACE_BIN_RECORD_MAX + TRACE_BIN_SEGMENT_HEAD_MAX) + 256];
	struct trace_replay_options o = { .layer = TRACE_LAYER_LOGICAL };
	struct trace_replay_error err;
	size_t len, jlen;
	int r;

	(void)state;
	/* an alloc's, then the free's right after it */
	for (size_t bad = 6; bad <= 7; bad++) {
		make_program(v, 10);
		v[bad].scope_id = 9;
		len = make_file(v, 10, file);
		char *json = export(file, len, &jlen, &r, &err);
		assert_int_equal(r, 0);
		struct side b, j;
		replay_side(&b, file, len, &o);
		replay_side(&j, json, jlen, &o);
		assert_int_equal(b.r, -EINVAL);
		/* the start, then the records before it */
		assert_int_equal(b.err.line, bad + 2);
		assert_non_null(strstr(b.err.error.message, "scope_id 9 is used before"));
		assert_int_equal(b.a.events, bad + 1);
		assert_int_equal(b.a.totals.c.allocations, 3 + (bad == 7));
		assert_int_equal(trace_live_count(&b.a.allocations), bad == 7);
		assert_same_replay(&b, &j);
		free(json);
	}
}

/* A file of the earlier format is named, not misread, by the replay and
 * the export. */
static void format1_refused(void **state)
{
	static const char file[] = TRACE_BIN_MAGIC_V1 "{\"v\":3,\"seq\":1,\"kind\":\"trace.start\"}\n";
	struct trace_replay_error err;
	size_t jlen;
	int r;

	(void)state;
	struct replayed res = replay(file, sizeof(file) - 1);
	assert_int_equal(res.r, -EINVAL);
	assert_non_null(strstr(res.err.error.message, "format 1"));
	char *json = export(file, sizeof(file) - 1, &jlen, &r, &err);
	assert_int_equal(r, -EINVAL);
	assert_non_null(strstr(err.error.message, "format 1"));
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(not_a_record),
		cmocka_unit_test(wrong_segments),
		cmocka_unit_test(streams_in_segments),
		cmocka_unit_test(format1_refused),
		cmocka_unit_test(replay_and_export_agree),
		cmocka_unit_test(cut_files),
		cmocka_unit_test(bad_byte_in_file),
		cmocka_unit_test(records_replay_as_their_lines),
		cmocka_unit_test(runs_stop_where_the_general_replay_takes_over),
		cmocka_unit_test(record_of_an_undefined_scope_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
