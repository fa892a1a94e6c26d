/* libFuzzer target for the binary trace format (trace/trace-binary.c):
 * every record the splitter takes must encode back to itself against its
 * stream's deltas, its JSON
 * line must fit TRACE_BIN_JSON_MAX and parse as an event, and the input
 * replayed as a binary trace (the magic put before it) must never crash or
 * read out of bounds. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum trace_layer layers[] = { TRACE_LAYER_LOGICAL, TRACE_LAYER_BACKING };
	char *file = malloc(size + TRACE_BIN_MAGIC_LEN);

	if (!file)
		return 0;
	memcpy(file, TRACE_BIN_MAGIC, TRACE_BIN_MAGIC_LEN);
	memcpy(file + TRACE_BIN_MAGIC_LEN, data, size);
	check_frames(file + TRACE_BIN_MAGIC_LEN, size);
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		struct trace_replay_options o = { .layer = layers[i] };
		struct trace_analyzer a;
		struct trace_parser p;
		struct trace_replay_error err;

		trace_analyzer_init(&a, &o);
		trace_parser_init(&p);
		trace_replay_buffer(&a, &p, file, size + TRACE_BIN_MAGIC_LEN, &err);
		trace_parser_done(&p);
		trace_analyzer_done(&a);
	}
	free(file);
	return 0;
}
