/* trace-gen: writes a realistic memtrace (format version 3) for the trace
 * analyzer's benchmark.
 *
 *   trace-gen EVENTS FILE            JSON Lines, as a producer writes them
 *   trace-gen --binary EVENTS FILE   the allocation tracer's binary file
 *
 * The mix follows what an allocator hook records in a long-running
 * program: about 45 % allocations, 40 % frees and 15 % resizes, with a live
 * set that stays bounded (at most LIVE_MAX allocations, so memory of the
 * replay must not grow with the trace's length); 320 scopes (named once by
 * scope.enter with a scope_id, then referred to by id, and some events
 * carrying the path itself); 400 allocation sites; sizes mostly small with
 * a long tail.  Events are sequenced and bounded by trace.start and
 * trace.stop, so the verdict is "complete".  The output is deterministic.
 *
 * --binary writes what ramwatch trace record --format binary writes for a
 * program of four threads doing the same mix (the resizes partly moves to
 * another address), in segments of 256 records a thread, its header lines
 * as the tracer's: `ramwatch trace export` of it is what --format json
 * would have written, the same events as JSON Lines (about 150 bytes an
 * event), so the two forms of one trace can be replayed side by side. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-binary.h"

#define LIVE_MAX 50000u
#define SCOPES 320u
#define SITES 400u

static uint64_t state = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Mostly 16..1024 bytes, one in sixteen up to 64 KiB, one in 512 up to
 * 8 MiB. */
static uint64_t size(void)
{
	uint64_t r = next();
	if (r % 512 == 0)
		return 65536 + next() % (8u << 20);
	if (r % 16 == 0)
		return 1024 + next() % 65536;
	return 16 + (next() % 64) * 16;
}

struct live {
	uint64_t address, len;
};

#define STREAMS 4u
#define SEGMENT_RECORDS 256u

/* A segment being filled for one stream (thread). */
struct segment {
	unsigned char bytes[SEGMENT_RECORDS * TRACE_BIN_RECORD_MAX];
	size_t len, records;
	struct trace_bin_stream deltas;
};

static struct segment segments[STREAMS];

/* Writes a segment's records, numbered from *seq + 1. */
static void flush_segment(FILE *f, unsigned stream, uint64_t *seq)
{
	struct segment *s = &segments[stream];
	unsigned char head[TRACE_BIN_SEGMENT_HEAD_MAX];

	if (s->records == 0)
		return;
	fwrite(head, 1, trace_bin_segment(head, stream, *seq + 1, s->len), f);
	fwrite(s->bytes, 1, s->len, f);
	*seq += s->records;
	s->len = s->records = 0;
}

static void put_record(FILE *f, unsigned stream, const struct trace_bin_record *r, uint64_t *seq)
{
	struct segment *s = &segments[stream];

	s->len += trace_bin_encode(&s->deltas, r, s->bytes + s->len);
	if (++s->records == SEGMENT_RECORDS)
		flush_segment(f, stream, seq);
}

/* The tracer's file: its head lines, scopes entered, then the threads'
 * segments; one thread's live blocks are its own to free or resize. */
static void write_binary(FILE *f, uint64_t events, struct live *live)
{
	uint64_t seq = 0, next_address = 0x7f3a5c000000ull;
	size_t n_live[STREAMS] = { 0 };
	const size_t live_max = LIVE_MAX / STREAMS;

	fputs(TRACE_BIN_MAGIC, f);
	fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"trace.start\",\"producer\":\"ramwatch-trace trace-gen\","
		   "\"pid\":4242}\n", ++seq);
	fprintf(f, "{\"seq\":%" PRIu64 ",\"kind\":\"allocator\",\"allocator_id\":1,\"layer\":\"logical_allocator\","
		   "\"producer\":\"malloc\",\"retains_freed_memory\":false,\"min_bytes\":0,\"stack\":0,"
		   "\"sampled\":\"every call\"}\n", ++seq);
	for (unsigned s = 1; s <= SCOPES; s++)
		fprintf(f, "{\"seq\":%" PRIu64 ",\"kind\":\"scope.enter\",\"scope_id\":%u,"
			   "\"scope\":\"root/phase%u/step%u\"}\n", ++seq, s, s % 16, s);
	/* events still to make: the records, then the exits and the stop */
	for (uint64_t made = seq + SCOPES + 1; made < events; made++) {
		unsigned stream = (unsigned)(next() % STREAMS);
		struct live *mine = live + stream * live_max;
		size_t *n = &n_live[stream];
		uint64_t r = next() % 100;
		struct trace_bin_record rec = {
			.scope_id = 1 + (uint32_t)(next() % SCOPES),
			.return_address = 0x55d0c3a01000ull + (next() % SITES) * 0x40,
		};
		if (*n > 0 && (r < 40 || *n == live_max)) {
			size_t i = (size_t)(next() % *n);
			rec.kind = TRACE_BIN_FREE;
			rec.address = mine[i].address;
			mine[i] = mine[--*n];
		} else if (*n > 0 && r < 55) {
			size_t i = (size_t)(next() % *n);
			rec.len = size();
			rec.kind = TRACE_BIN_RESIZE;
			rec.address = mine[i].address;
			if (r >= 50) {
				/* realloc moved it */
				next_address += 16 + (rec.len + 15) / 16 * 16;
				rec.kind = TRACE_BIN_MOVE;
				rec.old_address = mine[i].address;
				rec.address = mine[i].address = next_address;
			}
			mine[i].len = rec.len;
		} else {
			rec.kind = TRACE_BIN_ALLOC;
			rec.len = size();
			next_address += 16 + (rec.len + 15) / 16 * 16;
			rec.address = next_address;
			mine[(*n)++] = (struct live){ next_address, rec.len };
		}
		put_record(f, stream, &rec, &seq);
	}
	for (unsigned s = 0; s < STREAMS; s++)
		flush_segment(f, s, &seq);
	for (unsigned s = SCOPES; s >= 1; s--)
		fprintf(f, "{\"seq\":%" PRIu64 ",\"kind\":\"scope.exit\",\"scope_id\":%u}\n", ++seq, s);
	fprintf(f, "{\"seq\":%" PRIu64 ",\"kind\":\"trace.stop\",\"dropped\":0}\n", ++seq);
}

int main(int argc, char **argv)
{
	uint64_t events, seq = 0, next_address = 0x7f0000000000ull;
	struct live *live;
	size_t n_live = 0;
	bool binary = argc > 1 && strcmp(argv[1], "--binary") == 0;
	FILE *f;

	argc -= binary, argv += binary;
	if (argc != 3 || !(events = strtoull(argv[1], NULL, 10)) || events < 2 * SCOPES + 4) {
		fprintf(stderr, "usage: trace-gen [--binary] EVENTS FILE (EVENTS at least %u)\n", 2 * SCOPES + 4);
		return 2;
	}
	if (!(f = fopen(argv[2], "w"))) {
		fprintf(stderr, "trace-gen: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	live = calloc(LIVE_MAX, sizeof(*live));
	if (!live)
		return 1;
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	if (binary) {
		write_binary(f, events, live);
		goto done;
	}

	fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"trace.start\",\"producer\":\"trace-gen\"}\n", ++seq);
	fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"allocator\",\"allocator_id\":1,"
		   "\"retains_freed_memory\":false}\n", ++seq);
	for (unsigned s = 1; s <= SCOPES; s++)
		fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"scope.enter\",\"scope_id\":%u,"
			   "\"scope\":\"root/phase%u/step%u\"}\n", ++seq, s, s % 16, s);
	while (seq < events - 1 - SCOPES) {
		uint64_t r = next() % 100;
		unsigned scope = 1 + (unsigned)(next() % SCOPES);
		uint64_t site = 0x401000 + (next() % SITES) * 0x40;
		if (n_live > 0 && (r < 40 || n_live == LIVE_MAX)) {
			size_t i = (size_t)(next() % n_live);
			fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"free\",\"allocator_id\":1,"
				   "\"address\":%" PRIu64 ",\"len\":%" PRIu64 ",\"scope_id\":%u}\n",
				++seq, live[i].address, live[i].len, scope);
			live[i] = live[--n_live];
		} else if (n_live > 0 && r < 55) {
			size_t i = (size_t)(next() % n_live);
			uint64_t len = size();
			fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"resize\",\"allocator_id\":1,"
				   "\"address\":%" PRIu64 ",\"old_len\":%" PRIu64 ",\"len\":%" PRIu64
				   ",\"scope_id\":%u}\n",
				++seq, live[i].address, live[i].len, len, scope);
			live[i].len = len;
		} else {
			uint64_t len = size();
			next_address += 16 + (len + 15) / 16 * 16;
			live[n_live++] = (struct live){ next_address, len };
			/* one event in eight names its scope by path */
			if (next() % 8 == 0)
				fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"alloc\",\"allocator_id\":1,"
					   "\"address\":%" PRIu64 ",\"len\":%" PRIu64 ",\"return_address\":%" PRIu64
					   ",\"scope\":\"root/phase%u/step%u\"}\n",
					++seq, next_address, len, site, scope % 16, scope);
			else
				fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"alloc\",\"allocator_id\":1,"
					   "\"address\":%" PRIu64 ",\"len\":%" PRIu64 ",\"return_address\":%" PRIu64
					   ",\"scope_id\":%u}\n",
					++seq, next_address, len, site, scope);
		}
	}
	for (unsigned s = SCOPES; s >= 1; s--)
		fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"scope.exit\",\"scope_id\":%u}\n", ++seq, s);
	fprintf(f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"trace.stop\"}\n", ++seq);
done:
	free(live);
	if (fclose(f) != 0) {
		fprintf(stderr, "trace-gen: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
