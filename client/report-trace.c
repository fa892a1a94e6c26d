/* ramwatch report --trace FILE: the census's heap beside the allocation
 * trace of the same process (ramwatch trace record).
 *
 * The census sees what malloc holds resident (the malloc class); the trace
 * sees what the program asked for and has not freed (live bytes on the
 * logical layer).  Their difference is what the allocator costs: its
 * headers and alignment, fragmentation, and freed memory it keeps, the
 * "resident versus heap" question.  The two are taken at different times
 * (the last census, the trace's end), which the section says. */
#include "report-trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "macro.h"
#include "render-answer.h"
#include "timeparse.h"
#include "trace-analyzer.h"
#include "trace-integrity.h"
#include "trace-parse.h"
#include "trace-replay.h"
#include "util.h"

/* The pid of the trace's trace.start, or -1. */
static int64_t trace_pid(int fd)
{
	char head[512];
	ssize_t n = pread(fd, head, sizeof(head) - 1, 0);
	json_t *start;
	json_int_t pid = -1;

	if (n <= 0)
		return -1;
	head[n] = 0;
	char *nl = strchr(head, '\n');
	if (nl)
		*nl = 0;
	start = json_loads(head, 0, NULL);
	if (json_is_object(start) && json_is_integer(json_object_get(start, "pid")))
		pid = json_integer_value(json_object_get(start, "pid"));
	json_decref(start);
	return pid;
}

static const json_t *malloc_class(const json_t *report)
{
	const json_t *classes = json_object_get(json_object_get(report, "last_census"), "classes"), *c;
	size_t i;

	json_array_foreach(classes, i, c)
		if (streq(answer_str(c, "key") ? answer_str(c, "key") : "", "malloc"))
			return c;
	return NULL;
}

int report_trace_attach(json_t *report, const char *path)
{
	struct trace_replay_options ro = { .layer = TRACE_LAYER_LOGICAL };
	struct trace_analyzer a;
	struct trace_parser parser;
	struct trace_replay_error err;
	struct trace_integrity in;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	const json_t *m;
	json_t *t;
	int64_t resident;
	int r;

	if (fd < 0)
		return fail("cannot open %s: %s", path, strerror(errno));
	int64_t pid = trace_pid(fd);
	trace_analyzer_init(&a, &ro);
	trace_parser_init(&parser);
	r = trace_replay_fd(&a, &parser, fd, &err);
	trace_parser_done(&parser);
	if (r < 0) {
		trace_analyzer_done(&a);
		if (err.line > 0)
			return fail("%s: %s %" PRIu64 ": %s", path, err.binary ? "record" : "line", err.line, err.error.message);
		return fail("cannot read %s: %s", path, strerror(-r));
	}
	trace_integrity_of(&a, &in);
	t = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:s}", "file", path, "events", (json_int_t)a.events,
		      "allocations", (json_int_t)a.totals.c.allocations, "live_bytes",
		      (json_int_t)a.totals.c.live_bytes, "high_water_live_bytes",
		      (json_int_t)a.totals.c.high_water_live_bytes, "untracked_request_bytes",
		      (json_int_t)a.totals.c.untracked_request_bytes, "capture_integrity", in.status);
	trace_analyzer_done(&a);
	if (!t)
		return fail("%s", strerror(ENOMEM));
	json_object_set_new(t, "pid", pid >= 0 ? json_integer(pid) : json_null());
	m = malloc_class(report);
	if (m && answer_int(m, "resident", &resident)) {
		json_int_t live = json_integer_value(json_object_get(t, "live_bytes"));
		json_object_set_new(t, "malloc_resident", json_integer(resident));
		json_object_set_new(t, "allocator_overhead_bytes", json_integer(resident - live));
	} else {
		json_object_set_new(t, "malloc_resident", json_null());
		json_object_set_new(t, "allocator_overhead_bytes", json_null());
	}
	if (json_object_set_new(report, "trace", t) < 0)
		return fail("%s", strerror(ENOMEM));
	return 0;
}

int render_report_trace(const json_t *report, FILE *f)
{
	const json_t *t = json_object_get(report, "trace");
	const json_t *proc = json_object_get(report, "process");
	char b1[FORMAT_BYTES_MAX], b2[FORMAT_BYTES_MAX], b3[FORMAT_BYTES_MAX], when[TIMEPARSE_FORMAT_MAX];
	int64_t pid = -1, own = -1, overhead;

	if (!json_is_object(t))
		return 0;
	answer_int(t, "pid", &pid);
	answer_int(proc, "pid", &own);
	fputs("## The heap beside its allocation trace\n\n", f);
	fprintf(f, "Trace `%s` (verdict %s): %s live at its end in the program's own blocks, peak %s; "
		   "%s more were asked for in blocks below its threshold, counted but not followed.\n\n",
		answer_str(t, "file"), answer_str(t, "capture_integrity"), answer_bytes(b1, t, "live_bytes"),
		answer_bytes(b2, t, "high_water_live_bytes"), answer_bytes(b3, t, "untracked_request_bytes"));
	if (pid >= 0 && own >= 0 && pid != own)
		fprintf(f, "The trace is of pid %" PRId64 ", not of this process (pid %" PRId64 ").\n\n", pid, own);
	if (!answer_int(t, "allocator_overhead_bytes", &overhead)) {
		fputs("The last census has no malloc class to compare it with.\n\n", f);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "| | bytes |\n|---|---:|\n");
	fprintf(f, "| malloc class resident, last census (%s) | %s |\n",
		answer_time(when, json_object_get(report, "last_census"), "taken_at"),
		answer_bytes(b1, t, "malloc_resident"));
	fprintf(f, "| live in the trace at its end | %s |\n", answer_bytes(b2, t, "live_bytes"));
	fprintf(f, "| difference: the allocator's headers, fragmentation and the freed memory it keeps | %s |\n\n",
		format_bytes_delta(b3, overhead));
	return ferror(f) ? -EIO : 0;
}
