/* Small pure helpers: string tests, strict number parsing, byte formatting. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Returns a pointer just past prefix in s, or NULL when s does not start
 * with it. */
static inline const char *startswith(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

bool endswith(const char *s, const char *suffix);

/* Makes room for one more element in the array *v of n elements of size
 * bytes that has room for *allocated: doubles it when full, starting at
 * first.  Returns 0, or -ENOMEM with the array as it was. */
int array_grow(void **v, size_t n, size_t *allocated, size_t size, size_t first);

/* The value of c as a digit of base (10 or 16, either case), or -1. */
int digit_value(char c, unsigned base);

/* Parses a whole string as an unsigned decimal (base 10) or, with base 16,
 * hexadecimal number.  No sign, no spaces, no trailing characters, no
 * overflow.  Returns 0 and sets *ret, or -EINVAL / -ERANGE. */
int parse_u64(const char *s, unsigned base, uint64_t *ret);
int parse_u64_n(const char *s, size_t len, unsigned base, uint64_t *ret);

/* Parses a process id: a decimal number from 1 to INT32_MAX. */
int parse_pid(const char *s, int *ret);

/* Formats bytes for people: "0 B", "4.0 KiB", "1.50 MiB", "12.3 GiB" (three
 * significant digits).  Writes into buf (at least FORMAT_BYTES_MAX) and
 * returns it. */
#define FORMAT_BYTES_MAX 24
char *format_bytes(char *buf, uint64_t bytes);
/* The same for a signed change, always with its sign: "+1.2 MiB", "-4.0 KiB", "0 B". */
char *format_bytes_delta(char *buf, int64_t delta);

/* Formats microseconds for people: "850 us", "12.4 ms", "3.20 s". */
#define FORMAT_DURATION_MAX 24
char *format_duration_us(char *buf, uint64_t us);

/* Monotonic and thread CPU clocks in microseconds. */
uint64_t now_monotonic_us(void);
uint64_t now_thread_cpu_us(void);
/* Wall clock in unix milliseconds. */
int64_t now_realtime_ms(void);

/* Glob match (fnmatch, no special flags) that treats a NULL pattern as
 * matching everything. */
bool glob_match(const char *pattern, const char *s);
