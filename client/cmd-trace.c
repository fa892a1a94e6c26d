/* ramwatch trace: its sub-commands (command-table.c), and summary, which
 * replays an allocation event trace (memtrace, format version 3) and
 * reports what was kept, churned and for how long, by scope and by
 * allocation site, with a verdict on the trace itself, and export. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "macro.h"
#include "trace-analyzer.h"
#include "trace-parse.h"
#include "trace-rank.h"
#include "trace-replay.h"
#include "trace-report.h"
#include "units.h"
#include "util.h"


/* 0x-prefixed hexadecimal or decimal. */
static int parse_address(const char *s, uint64_t *ret)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_u64(s + 2, 16, ret);
	return parse_u64(s, 10, ret);
}

/* The default layer: logical for a trace of the allocation tracer (its
 * trace.start names it as producer), whose malloc events are there;
 * backing otherwise, as the reference.  Standard input is not looked at. */
static enum trace_layer default_layer(const char *path)
{
	static const char mark[] = "\"kind\":\"trace.start\",\"producer\":\"ramwatch-trace ";
	_cleanup_close_ int fd = -1;
	char head[512];
	ssize_t n;

	if (streq(path, "-") || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return TRACE_LAYER_BACKING;
	n = read(fd, head, sizeof(head) - 1);
	if (n <= 0)
		return TRACE_LAYER_BACKING;
	head[n] = 0;
	char *nl = strchr(head, '\n');
	if (nl)
		*nl = 0;
	return strstr(head, mark) ? TRACE_LAYER_LOGICAL : TRACE_LAYER_BACKING;
}

static int replay(const char *path, struct trace_analyzer *a)
{
	_cleanup_close_ int fd = -1;
	struct trace_parser parser;
	struct trace_replay_error err;
	bool is_stdin = streq(path, "-");
	const char *name = is_stdin ? "standard input" : path;
	int r;

	fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail("cannot open %s: %s", name, strerror(errno));
	trace_parser_init(&parser);
	r = trace_replay_fd(a, &parser, fd, &err);
	trace_parser_done(&parser);
	if (r == 0)
		return 0;
	if (err.line > 0)
		return fail("%s: %s %" PRIu64 ": %s", name, err.binary ? "record" : "line", err.line, err.error.message);
	return fail("cannot read %s: %s", name, strerror(-r));
}

int cmd_trace_summary(const struct command *self, int argc, char **argv)
{
	struct trace_replay_options ro = { .layer = TRACE_LAYER_BACKING };
	bool has_layer = false;
	struct trace_report_options o = { .sort = TRACE_SORT_RETAINED, .top = TRACE_SUMMARY_TOP_DEFAULT };
	struct trace_analyzer a;
	struct trace_report report;
	struct error reason = { 0 };
	bool json = false;
	uint64_t v;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'l':
			if ((r = trace_layer_from_name(optarg)) < 0)
				return usage_error("trace summary", "--layer takes backing, logical or physical, not '%s'",
						   optarg);
			ro.layer = (enum trace_layer)r;
			has_layer = true;
			break;
		case 's':
			if ((r = trace_sort_from_name(optarg)) < 0)
				return usage_error("trace summary",
						   "--sort takes retained, traffic or lifetime, not '%s'", optarg);
			o.sort = (enum trace_sort)r;
			break;
		case 't':
			if (parse_u64(optarg, 10, &v) < 0 || v > SIZE_MAX)
				return usage_error("trace summary", "--top takes a number, not '%s'", optarg);
			o.top = (size_t)v;
			break;
		case 'm':
			if (units_parse_size(optarg, &o.filter.min_bytes) < 0)
				return usage_error("trace summary", "--min-bytes takes a size (4096, 64K, 1.5M), not '%s'",
						   optarg);
			break;
		case 'z': o.filter.include_zero_live = true; break;
		case 'S': o.include_sites = ro.track_sites = true; break;
		case 'K':
			/* sites too: a trace without stacks falls back to them */
			o.include_stacks = ro.track_stacks = ro.track_sites = true;
			break;
		case 'a':
			if (parse_address(optarg, &v) < 0)
				return usage_error("trace summary",
						   "--site takes a return address (0x... or decimal), not '%s'", optarg);
			o.has_site_detail = ro.has_site_detail = true;
			o.site_detail = ro.site_detail = v;
			break;
		case 'y': o.symbols_path = optarg; break;
		case 'j': json = true; break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("trace summary", "bad option");
		}
	}
	if (argc - optind != 1)
		return usage_error("trace summary", "give one trace file ('-' for standard input)");

	if (!has_layer)
		ro.layer = default_layer(argv[optind]);
	trace_analyzer_init(&a, &ro);
	r = replay(argv[optind], &a);
	if (r == 0 && (r = trace_report_build(&a, &o, &report, &reason)) < 0) {
		r = r == -ENOMEM ? fail("%s", reason.message)
				 : fail("cannot read symbols from %s: %s", o.symbols_path ? o.symbols_path : "the trace's objects",
				       reason.message);
	} else if (r == 0) {
		if (report.stacks_fell_back)
			fprintf(stderr, "ramwatch: note: %s was recorded without --stack N: it holds no stacks, "
					"so sites are ranked instead\n",
				streq(argv[optind], "-") ? "standard input" : argv[optind]);
		r = json ? trace_report_jsonl(&a, &o, &report, stdout) : trace_report_text(&a, &o, &report, stdout);
		trace_report_done(&report);
		if (r < 0 || fflush(stdout) != 0 || ferror(stdout))
			r = fail("cannot write the summary: %s", strerror(errno ? errno : EIO));
	}
	trace_analyzer_done(&a);
	return r;
}

/* ramwatch trace export FILE [-o OUT]: the JSON Lines of a trace. */
int cmd_trace_export(const struct command *self, int argc, char **argv)
{
	_cleanup_close_ int fd = -1;
	struct trace_replay_error err;
	const char *output = NULL, *name;
	FILE *out = stdout;
	int opt, r;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("trace export", "bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("trace export", "give one trace file");
	name = streq(argv[optind], "-") ? "standard input" : argv[optind];
	fd = streq(argv[optind], "-") ? dup(STDIN_FILENO) : open(argv[optind], O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail("cannot open %s: %s", name, strerror(errno));
	if (output && !(out = fopen(output, "w")))
		return fail("cannot create %s: %s", output, strerror(errno));
	r = trace_replay_export(fd, out, &err);
	if (fflush(out) != 0 || ferror(out))
		r = r < 0 ? r : fail("cannot write %s: %s", output ? output : "standard output", strerror(errno ? errno : EIO));
	if (out != stdout)
		fclose(out);
	if (r == 0 || r == 1)
		return r;
	if (err.line > 0)
		return fail("%s: record %" PRIu64 ": %s", name, err.line, err.error.message);
	return fail("cannot read %s: %s", name, strerror(-r));
}

int cmd_trace(const struct command *self, int argc, char **argv)
{
	char name[64];

	if (argc < 2)
		return usage_error("trace", "give a sub-command: summary, record or export");
	if (streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
		command_help(self, stdout);
		return 0;
	}
	snprintf(name, sizeof(name), "trace %s", argv[1]);
	const struct command *sub = strchr(argv[1], ' ') ? NULL : command_table_find(name);
	if (!sub)
		return usage_error("trace", "unknown sub-command '%s' (there are: summary, record, export)", argv[1]);
	/* getopt names the program by argv[0] in its messages */
	char program[sizeof(name) + 16];
	snprintf(program, sizeof(program), "ramwatch %s", name);
	argv[1] = program;
	return command_run(sub, argc - 1, argv + 1);
}
