/* Rendering the daemon's answers (doc/protocol.md) for people and for
 * programs: tables with local times, CSV and JSON with unix seconds,
 * Markdown reports.  Pure: JSON in, text out, so the unit tests render
 * canned answers. */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "trace-export.h"

enum answer_format {
	ANSWER_TABLE,
	ANSWER_CSV,
	ANSWER_JSON,
	ANSWER_MARKDOWN,
	ANSWER_MEMTRACE,
	_ANSWER_FORMAT_MAX,
};

/* "table", "csv", "json", "markdown", "memtrace" → the format, or -1. */
int answer_format_from_name(const char *name);
/* "table", "csv", ...: the name --format takes, "?" out of range. */
const char *answer_format_name(enum answer_format format);

/* ---------------------------------------------------------------- fields */

/* The integer at key of object o (false when missing, null or not an
 * integer). */
bool answer_int(const json_t *o, const char *key, int64_t *ret);
/* The counts of a report's "region_events" between two censuses. */
struct region_event_counts {
	int64_t appeared, disappeared, grew, shrank;
};
/* Those of s's "region_events" into *ret; false when s has none. */
bool answer_region_event_counts(const json_t *s, struct region_event_counts *ret);
/* The string at key, or NULL. */
const char *answer_str(const json_t *o, const char *key);
/* The bytes at key for people ("1.50 MiB"), or "-" when unknown.  buf has
 * FORMAT_BYTES_MAX bytes. */
const char *answer_bytes(char *buf, const json_t *o, const char *key);
/* The time (unix ms) at key as local ISO 8601, or "-".  buf has
 * TIMEPARSE_FORMAT_MAX bytes. */
const char *answer_time(char *buf, const json_t *o, const char *key);

/* ---------------------------------------------------------------- for programs */

/* A deep copy of an answer whose times (the integer values of the keys
 * naming times: "time", "since", "until", "started_at", "first_seen", ...)
 * are unix seconds, with milliseconds as a fraction.  NULL when out of
 * memory. */
json_t *answer_times_in_seconds(const json_t *answer);
/* Prints answer (times in seconds) as indented JSON and a newline.
 * Returns 0, -ENOMEM or -EIO. */
int answer_print_json(const json_t *answer, FILE *f);
/* A time as unix seconds with milliseconds ("1764440010.500"), empty for
 * an unknown time. */
void answer_csv_time(FILE *f, bool known, int64_t ms);

/* The region events of an events answer for trace_export_region_events.
 * Strings point into answer.  Returns 0 with *ret (free()) and *ret_n, or
 * -EBADMSG naming the event and field in err, or -ENOMEM. */
int answer_region_events(const json_t *answer, struct trace_region_event **ret, size_t *ret_n, struct error *err);

/* ---------------------------------------------------------------- answers */

/* The status answer as text lines. */
int render_status(const json_t *status, FILE *f);

/* The processes answer as a table or CSV (JSON: answer_print_json). */
int render_processes(const json_t *answer, enum answer_format format, FILE *f);
/* The same answer's processes in groups: by is "cgroup" or "unit" (the
 * keys of each process); a group's processes, their private, resident
 * and GPU memory summed, its pids; largest private first; the processes
 * whose group is unknown (not watched now) in one group named null. */
int render_process_groups(const json_t *answer, const char *by, enum answer_format format, FILE *f);

struct history_options {
	enum answer_format format; /* table or CSV */
	const char *const *classes; /* --class keys shown on census lines; NULL: the largest */
	size_t n_classes;
	bool decorated; /* style.h: a mark's line drawn with box-drawing lines, else with "--" */
};

/* The history answer (all pages merged): per instance, a line per sample
 * row, census lines (trigger and classes) and mark lines where they fall;
 * or CSV rows of kind sample, census, class and mark. */
int render_history(const json_t *answer, const struct history_options *o, FILE *f);

/* The report answer as Markdown: the peak, peaks by phase, the last census
 * (classes, largest regions, mapped files), the trend over censuses, and
 * what is new since the previous census. */
int render_report(const json_t *report, FILE *f);

/* One entry of the report's in_use_or_kept: what the class's growth was
 * made of (held by the program or kept by its allocator), the censuses
 * that show it, and a slow rise of its memory in use; as a Markdown list
 * item (md) or as plain text without a line end.  Writes nothing and
 * returns false for a class that neither grew nor rose. */
bool render_report_heap_class(FILE *f, const json_t *entry, bool md);

/* The oom answer: a table of the kills, CSV, or JSON as
 * {"kills": [...]} (times in seconds) and nothing else. */
int render_oom(const json_t *answer, enum answer_format format, FILE *f);

/* The cgroups answer: a table (usage, limit, headroom, memory beyond the
 * processes, growth, time to the limit, OOM kills), CSV or JSON. */
int render_cgroups(const json_t *answer, enum answer_format format, FILE *f);

/* The cgroup_history answer: a line per row, CSV or JSON. */
int render_cgroup_history(const json_t *answer, enum answer_format format, FILE *f);

/* The end of a report whose process the kernel killed for memory (its
 * "oom_kill"), as Markdown: the kill, the limit it hit, the kernel's
 * figures, and its last census by class.  Nothing for another report. */
void render_report_oom_kill(const json_t *report, FILE *f);

/* The report answer and the history answer of the same instance (all
 * pages merged) as one self-contained HTML page: the report's figures and
 * tables, and charts of private and resident memory (the fast tier's
 * min-max as a band) and of the classes over time, marks on both.
 * Returns 0, -EBADMSG for answers that are not objects, -ENOMEM or -EIO. */
int render_report_html(const json_t *report, const json_t *history, FILE *f);
