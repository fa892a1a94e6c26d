/* Runs of a binary trace's records replayed straight from the file's
 * bytes: the summary's counters taken from the decoded fields of each
 * record, without the frames, events and batches of the general replay.
 *
 * A binary trace is nearly all records of the logical kinds (alloc, free,
 * resize, move) in segments, and the usual summary counts them for the
 * whole trace and their scopes only.  For those options (trace_run_usable)
 * the replay hands each stretch of segments to trace_run_records, which
 * decodes each record (only the fields its kind has; return addresses
 * skipped, since nothing counted reads them), starts loading its
 * allocation's slot, and applies its rules 8 records later, in the same
 * loop as the decoding of the records after it.  Anything else
 * (a JSON line, a backing record, a scope id not yet given, the "root"
 * scope before it is interned, a malformed or cut record) stops the run
 * before it, and the general replay takes it: so every error is the
 * general replay's own, with its message and place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-analyzer.h"
#include "trace-binary.h"

/* Whether a's options are those trace_run_records replays: the logical
 * layer, without --sites, --stacks or --site. */
bool trace_run_usable(const struct trace_analyzer *a);

/* Bytes a run needs before it: a segment's head and the longest record,
 * which the decoder may read past without a bound check. */
#define TRACE_RUN_LOOKAHEAD (TRACE_BIN_SEGMENT_HEAD_MAX + TRACE_BIN_RECORD_MAX)

/* Replays the records at buf (len bytes, the file's next, with s where
 * the reader is), as many as it can, as the general replay would: sets
 * *ret_used to the bytes taken and *ret_records to the records replayed,
 * and advances s past them.  Returns 0 (a run of 0 records leaves the
 * next frame to the general replay) or -ENOMEM, then with *ret_records
 * the index of the record that could not be replayed. */
int trace_run_records(struct trace_analyzer *a, struct trace_bin_state *s, const char *buf, size_t len,
		      size_t *ret_used, uint64_t *ret_records);

/* Makes every later run use the copy compiled without BMI2 (plain true),
 * or choose again by the processor (false): for tests and benchmarks of
 * that copy on a processor that would not use it. */
void trace_run_force_plain(bool plain);
