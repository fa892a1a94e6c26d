/* Sizes and durations as people write them, one grammar for each: the same
 * in ramwatchd.conf, on every command line option and in the SQL limits,
 * so a value that works in one place works in all of them.  Pure: no I/O,
 * no locale.
 *
 * A size is a decimal number of bytes with an optional unit:
 *   "512", "512B", "64K", "64k", "64KB", "64KiB", "1.5G", "0.5K"
 * K, M, G, T, P and E are powers of 1024, in either case, each optionally
 * followed by "B" or "iB".  A fraction needs a unit ("1.5" bytes is
 * refused) and is rounded down to a whole byte.
 *
 * A duration is one part or several separated by blanks (spaces or tabs),
 * each a decimal number with an optional unit, the blanks between number
 * and unit optional too:
 *   "500ms", "10", "1.5h", "1h 30min", "1h30min", "2d 3h", "2 days"
 * A number without a unit is seconds.  Units (lower case, as in
 * systemd.time(7)): us usec, ms msec, s sec second seconds, m min minute
 * minutes, h hr hour hours, d day days, w week weeks, y year years (a year
 * is 365.25 days).  Results are rounded down to the unit asked for.
 *
 * Neither takes a sign, an exponent, leading or trailing blanks, or more
 * than RW_UNITS_TEXT_MAX bytes. */
#pragma once

#include <stdint.h>

/* Bytes in the binary units the grammar's K, M, G and T name (unsigned
 * long long, so that sizes past 4 GiB do not wrap): the one definition for
 * the whole tree, for constants such as (64 * MiB). */
#define KiB 1024ull
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)
#define TiB (1024ull * GiB)

#define UNITS_USEC_PER_MS 1000ull
#define UNITS_USEC_PER_SEC 1000000ull
#define UNITS_USEC_PER_YEAR (31557600ull * UNITS_USEC_PER_SEC) /* 365.25 days, as systemd.time(7) */

/* Parses a size.  Returns 0 with the bytes in *ret_bytes, -EINVAL for text
 * that is not a size, -ERANGE for one past UINT64_MAX bytes.  *ret_bytes is
 * untouched on failure.  Bounds are the caller's. */
int units_parse_size(const char *s, uint64_t *ret_bytes);

/* Parses a duration and returns it in multiples of unit_usec microseconds
 * (1 for microseconds, UNITS_USEC_PER_MS for milliseconds ...), rounded
 * down.  Returns 0, -EINVAL for text that is not a duration (or a unit_usec
 * of 0), -ERANGE for one past UINT64_MAX microseconds (about 584542
 * years).  *ret is untouched on failure.  Zero is a duration; a caller
 * that needs more says so. */
int units_parse_duration(const char *s, uint64_t unit_usec, uint64_t *ret);

/* The exact reverse, in the forms people write: "64M", "1536M", "512",
 * "1h 30min", "500ms", "10y", "0".  Each parses back to the same value.
 * Write into buf (at least UNITS_FORMAT_MAX bytes) and return it. */
#define UNITS_FORMAT_MAX 48
char *units_format_size(char *buf, uint64_t bytes);
char *units_format_duration(char *buf, uint64_t usec);
