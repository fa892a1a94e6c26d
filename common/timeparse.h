/* Times and durations as people type them on the command line, and times
 * written back for people.  Pure: the caller passes "now"; local time is
 * the C library's (TZ), so tests set TZ.
 *
 * A time is one of:
 *   "now"
 *   a span ago: "30s", "5min", "1.5h", "7d", "1h30min", "1h 30min",
 *     "2h ago" (a duration in units.h's grammar, the one every option and
 *     the configuration take; a bare number is seconds)
 *   ISO 8601: "2026-11-29", "2026-11-29T14:00", "2026-11-29 14:00:05",
 *     "2026-11-29T14:00:05.250", each with an optional zone "Z", "+01:00",
 *     "-0500" or "+01"; without a zone it is local time
 *   unix seconds after "@": "@1764424800", "@1764424800.5"
 * Results are unix milliseconds. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Parses a time (the forms above) relative to now_ms.  Returns 0 with
 * *ret_ms >= 0, -EINVAL for text that is none of the forms (or a date that
 * does not exist, such as February 30), -ERANGE for a time before 1970 or
 * after 9999.  *ret_ms is untouched on failure. */
int timeparse_time(const char *s, int64_t now_ms, int64_t *ret_ms);

/* Local ISO 8601 for tables: "2026-11-29 14:00:05" (a space between date
 * and time, as RFC 3339 allows; timeparse_time reads it back).  Writes
 * into buf (TIMEPARSE_FORMAT_MAX bytes) and returns it; "-" for a negative
 * time. */
#define TIMEPARSE_FORMAT_MAX 40
char *timeparse_format_local(char *buf, int64_t ms);

/* The local time of day, "14:00:05", for labels. */
char *timeparse_format_clock(char *buf, int64_t ms);

/* A span for people in its two largest units: "850ms", "12s", "5min 3s",
 * "1h 30min", "2d 3h" (units units_parse_duration reads). */
char *timeparse_format_span(char *buf, int64_t ms);
