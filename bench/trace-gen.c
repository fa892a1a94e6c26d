/* trace-gen: writes a realistic memtrace (format version 3) for the trace
 * analyzer's benchmark.
 *
 *   trace-gen EVENTS FILE
 *
 * The mix follows what an allocator hook records in a long-running
 * program: about 45 % allocations, 40 % frees and 15 % resizes, with a live
 * set that stays bounded (at most LIVE_MAX allocations, so memory of the
 * replay must not grow with the trace's length); 320 scopes (named once by
 * scope.enter with a scope_id, then referred to by id, and some events
 * carrying the path itself); 400 allocation sites; sizes mostly small with
 * a long tail.  Events are sequenced and bounded by trace.start and
 * trace.stop, so the verdict is "complete".  The output is deterministic. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
	uint64_t events, seq = 0, next_address = 0x7f0000000000ull;
	struct live *live;
	size_t n_live = 0;
	FILE *f;

	if (argc != 3 || !(events = strtoull(argv[1], NULL, 10)) || events < 2 * SCOPES + 4) {
		fprintf(stderr, "usage: trace-gen EVENTS FILE (EVENTS at least %u)\n", 2 * SCOPES + 4);
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
	free(live);
	if (fclose(f) != 0) {
		fprintf(stderr, "trace-gen: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
