/* libFuzzer target for the binary trace format (trace/trace-binary.c):
 * every record the splitter takes must encode back to itself against its
 * stream's deltas, its JSON
 * line must fit TRACE_BIN_JSON_MAX and parse as an event, and the input
 * replayed as a binary trace (the magic put before it) must never crash or
 * read out of bounds, and must replay as its frames written as JSON lines
 * do when every byte of it is in a whole frame. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-binary.h"
#include "trace-parse.h"
#include "trace-replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_frames(const char *buf, size_t len)
{
	static struct trace_bin_state dec;
	static struct trace_bin_stream enc[TRACE_BIN_STREAMS], again[TRACE_BIN_STREAMS];
	struct trace_parser p;
	struct trace_bin_frame f;
	struct trace_bin_record back;
	unsigned char bytes[TRACE_BIN_RECORD_MAX];
	char json[TRACE_BIN_JSON_MAX];
	struct trace_event e;
	struct error err;
	const char *why;
	size_t at = 0;

	memset(&dec, 0, sizeof(dec));
	memset(enc, 0, sizeof(enc));
	memset(again, 0, sizeof(again));
	trace_parser_init(&p);
	while (at < len) {
		/* the records are compared whole, padding included: the decoder
		 * sets fields, not the bytes between them */
		memset(&f, 0, sizeof(f));
		memset(&back, 0, sizeof(back));
		int k = trace_bin_next(&dec, buf + at, len - at, &f, &why);
		if (k <= 0)
			break;
		at += (size_t)k;
		if (f.line)
			continue;
		size_t n = trace_bin_encode(&enc[dec.stream], &f.record, bytes);
		int d = trace_bin_decode(&again[dec.stream], bytes, n, &back, &why);
		back.seq = f.record.seq; /* the segment's, not the record's */
		if (n > TRACE_BIN_RECORD_MAX || d != (int)n || memcmp(&back, &f.record, sizeof(back)) != 0) {
			fprintf(stderr, "a record does not encode back to itself\n");
			abort();
		}
		size_t j = trace_bin_json(&f.record, json);
		if (j > TRACE_BIN_JSON_MAX || json[j - 1] != '\n' ||
		    trace_parser_line(&p, json, j - 1, &e, &err) != 1) {
			fprintf(stderr, "a record's JSON line does not parse: %.*s\n", (int)j, json);
			abort();
		}
	}
	trace_parser_done(&p);
}

/* The frames of buf as JSON lines, each record as its JSON line: NULL
 * unless every byte is in a whole frame. */
static char *as_lines(const char *buf, size_t len, size_t *ret_len)
{
	static struct trace_bin_state dec;
	struct trace_bin_frame f;
	const char *why;
	size_t at = 0, n = 0;
	char *text = malloc(len * (TRACE_BIN_JSON_MAX / 2) + TRACE_BIN_JSON_MAX);

	if (!text)
		return NULL;
	memset(&dec, 0, sizeof(dec));
	while (at < len) {
		int k = trace_bin_next(&dec, buf + at, len - at, &f, &why);
		if (k <= 0) {
			free(text);
			return NULL;
		}
		at += (size_t)k;
		if (f.line) {
			memcpy(text + n, f.line, f.line_len + 1);
			n += f.line_len + 1;
		} else {
			n += trace_bin_json(&f.record, text + n);
		}
	}
	*ret_len = n;
	return text;
}

struct replayed {
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	int r;
};

/* A binary trace replays as its JSON lines do: its records, which the
 * replay takes without building events, by the rules of their lines. */
static void check_same(const struct replayed *b, const struct replayed *j)
{
	bool same = b->r == j->r && b->err.line == j->err.line &&
		    strcmp(b->err.error.message, j->err.error.message) == 0 && b->a.events == j->a.events &&
		    memcmp(&b->a.totals, &j->a.totals, sizeof(b->a.totals)) == 0 &&
		    memcmp(&b->a.physical, &j->a.physical, sizeof(b->a.physical)) == 0 &&
		    b->a.sequence.missing_sequence_events == j->a.sequence.missing_sequence_events &&
		    b->a.sequence.sequence_regressions == j->a.sequence.sequence_regressions &&
		    b->a.stack_events == j->a.stack_events && b->a.scopes.n == j->a.scopes.n;
	for (size_t i = 0; same && i < b->a.scopes.n; i++)
		same = memcmp(&b->a.scopes.v[i].counters, &j->a.scopes.v[i].counters, sizeof(struct trace_counters)) == 0;
	if (!same) {
		fprintf(stderr, "a binary trace and its JSON lines replay differently (%d/%d, %s / %s)\n", b->r, j->r,
			b->err.error.message, j->err.error.message);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trace_layer layers[] = { TRACE_LAYER_LOGICAL, TRACE_LAYER_BACKING };
	char *file = malloc(size + TRACE_BIN_MAGIC_LEN), *lines;
	size_t lines_len = 0;

	if (!file)
		return 0;
	memcpy(file, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
	memcpy(file + TRACE_BIN_MAGIC_LEN, data, size);
	check_frames(file + TRACE_BIN_MAGIC_LEN, size);
	lines = as_lines(file + TRACE_BIN_MAGIC_LEN, size, &lines_len);
	for (size_t i = 0; i < 2 * sizeof(layers) / sizeof(layers[0]); i++) {
		struct trace_replay_options o = { .layer = layers[i / 2], .totals_only = i % 2 };
		static struct replayed b, j;

		trace_analyzer_init(&b.a, &o);
		trace_parser_init(&b.p);
		b.r = trace_replay_buffer(&b.a, &b.p, file, size + TRACE_BIN_MAGIC_LEN, &b.err);
		if (lines) {
			trace_analyzer_init(&j.a, &o);
			trace_parser_init(&j.p);
			j.r = trace_replay_buffer(&j.a, &j.p, lines, lines_len, &j.err);
			check_same(&b, &j);
			trace_parser_done(&j.p);
			trace_analyzer_done(&j.a);
		}
		trace_parser_done(&b.p);
		trace_analyzer_done(&b.a);
	}
	free(lines);
	free(file);
	return 0;
}
