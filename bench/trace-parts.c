/* Where the time of a trace replay goes, per event: reading the file,
 * splitting it into lines or frames, parsing them into events, and the
 * analyzer's work on them, each measured on its own (the median of N runs).
 *
 *   trace-parts [--layer NAME] FILE [RUNS]
 *
 * Prints one line, times in ns an event:
 *   "events N read R split S parse P replay_memory M replay_file F"
 * read: read() of the file in 256 KiB blocks from the page cache; split:
 * the lines found with memchr (JSON Lines) or the frames decoded
 * (binary); parse: split and each line parsed into an event (JSON Lines;
 * for the binary form the same as split); replay_memory: the whole replay
 * of the file held in memory (trace_replay_buffer); replay_file: the
 * replay as trace summary runs it (trace_replay_fd).  The analyzer's own
 * share is replay_memory minus parse. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "trace-analyzer.h"
#include "trace-binary.h"
#include "trace-parse.h"
#include "trace-replay.h"

#define BLOCK (256 * 1024u)
#define RUNS_MAX 64

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), compare);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static volatile uint64_t sink;

static void read_file(const char *path)
{
	static char block[BLOCK];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t k;
	uint64_t n = 0;

	if (fd < 0) {
		perror(path);
		exit(1);
	}
	while ((k = read(fd, block, sizeof(block))) > 0)
		n += (uint64_t)k;
	close(fd);
	sink = n;
}

/* Lines or frames, and with parse the events of the lines. */
static uint64_t split(const char *buf, size_t len, bool parse)
{
	struct trace_parser p;
	struct trace_event e;
	struct error err = { 0 };
	uint64_t n = 0;

	trace_parser_init(&p);
	if (trace_bin_is(buf, len)) {
		static struct trace_bin_state s;
		struct trace_bin_frame f;
		const char *why;
		int k;

		memset(&s, 0, sizeof(s));
		for (size_t at = TRACE_BIN_MAGIC_LEN; at < len; at += (size_t)k, n++)
			if ((k = trace_bin_next(&s, buf + at, len - at, &f, &why)) <= 0)
				break;
	} else {
		const char *p0 = buf, *end = buf + len, *nl;
		while ((nl = memchr(p0, '\n', (size_t)(end - p0)))) {
			if (parse && trace_parser_line(&p, p0, (size_t)(nl - p0), &e, &err) > 0)
				sink += e.address;
			p0 = nl + 1;
			n++;
		}
	}
	trace_parser_done(&p);
	return n;
}

static void replay(const char *path, const char *buf, size_t len, enum trace_layer layer)
{
	struct trace_replay_options o = { .layer = layer };
	struct trace_analyzer a;
	struct trace_parser p;
	struct trace_replay_error err;
	int r, fd = -1;

	trace_analyzer_init(&a, &o);
	trace_parser_init(&p);
	if (path) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			perror(path);
			exit(1);
		}
		r = trace_replay_fd(&a, &p, fd, &err);
		close(fd);
	} else {
		r = trace_replay_buffer(&a, &p, buf, len, &err);
	}
	if (r < 0) {
		fprintf(stderr, "trace-parts: line %llu: %s\n", (unsigned long long)err.line, err.error.message);
		exit(1);
	}
	sink = a.events;
	trace_parser_done(&p);
	trace_analyzer_done(&a);
}

int main(int argc, char **argv)
{
	enum trace_layer layer = TRACE_LAYER_LOGICAL;
	double t[5][RUNS_MAX];
	char *buf;
	size_t len;
	uint64_t events = 0;
	int runs;

	if (argc > 2 && strcmp(argv[1], "--layer") == 0) {
		int l = trace_layer_from_name(argv[2]);
		if (l < 0)
			return fprintf(stderr, "trace-parts: unknown layer %s\n", argv[2]), 2;
		layer = (enum trace_layer)l;
		argc -= 2, argv += 2;
	}
	runs = argc > 2 ? atoi(argv[2]) : 5;
	if (argc < 2 || runs < 1 || runs > RUNS_MAX) {
		fprintf(stderr, "usage: trace-parts [--layer NAME] FILE [RUNS (1-%d)]\n", RUNS_MAX);
		return 2;
	}
	if (read_full_fileat(AT_FDCWD, argv[1], (size_t)1 << 32, &buf, &len) < 0) {
		fprintf(stderr, "trace-parts: cannot read %s\n", argv[1]);
		return 1;
	}
	for (int k = 0; k < runs; k++) {
		double t0 = now_ns();
		read_file(argv[1]);
		double t1 = now_ns();
		events = split(buf, len, false);
		double t2 = now_ns();
		split(buf, len, true);
		double t3 = now_ns();
		replay(NULL, buf, len, layer);
		double t4 = now_ns();
		replay(argv[1], NULL, 0, layer);
		double t5 = now_ns();
		t[0][k] = t1 - t0, t[1][k] = t2 - t1, t[2][k] = t3 - t2, t[3][k] = t4 - t3, t[4][k] = t5 - t4;
	}
	if (events == 0)
		return fprintf(stderr, "trace-parts: %s holds no events\n", argv[1]), 1;
	printf("events %llu read %.1f split %.1f parse %.1f replay_memory %.1f replay_file %.1f\n",
	       (unsigned long long)events, median(t[0], runs) / (double)events, median(t[1], runs) / (double)events,
	       trace_bin_is(buf, len) ? median(t[1], runs) / (double)events : median(t[2], runs) / (double)events,
	       median(t[3], runs) / (double)events, median(t[4], runs) / (double)events);
	free(buf);
	return 0;
}
