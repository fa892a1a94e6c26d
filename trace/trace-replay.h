/* Replaying a trace file: its lines read in large blocks, each parsed and
 * fed to the analyzer, stopping at the first invalid line with its number.
 * Memory is the read buffer plus the analyzer's: a line with its newline
 * may be at most RW_TRACE_LINE_MAX bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace-analyzer.h"
#include "trace-parse.h"

struct trace_replay_error {
	uint64_t line; /* 1-based; 0 when no line is to blame (a read error) */
	struct error error; /* why; its message is "" for a read error */
	bool binary; /* the binary format: line counts its frames */
};

/* Reads fd to its end.  Returns 0; -EINVAL for an invalid line (err says
 * which and why); -ENOMEM; or the -errno of read() (err->line 0). */
int trace_replay_fd(struct trace_analyzer *a, struct trace_parser *p, int fd, struct trace_replay_error *err);

/* trace_replay_fd for a file its writer may still be appending to: at
 * each end of the file it reaches, more(data) says whether to read on (it
 * waits a little for the writer first) or that the writer is done; then
 * the file is read to its end once more, and replayed as trace_replay_fd
 * replays it (a record cut short at its end is refused).  Returns as
 * trace_replay_fd does; more is not called after it returns false. */
int trace_replay_follow(struct trace_analyzer *a, struct trace_parser *p, int fd, bool (*more)(void *data),
			void *data, struct trace_replay_error *err);

/* The same for the len bytes at buf. */
int trace_replay_buffer(struct trace_analyzer *a, struct trace_parser *p, const char *buf, size_t len,
			struct trace_replay_error *err);

/* Writes the trace at fd as memtrace JSON Lines to out: a binary trace's
 * records as the tracer's JSON writer writes them, its JSON lines and a
 * JSON Lines file as they are.  Returns 0, -EINVAL for a malformed or cut
 * binary trace (err says where; every whole frame before it was written),
 * -ENOMEM or the -errno of read(). */
int trace_replay_export(int fd, FILE *out, struct trace_replay_error *err);
