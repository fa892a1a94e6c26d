/* The one grammar for sizes and durations (see units.h), and their exact
 * formatting back.  Numbers are read digit by digit rather than with
 * strtoull/strtod, which would take a sign, leading spaces, "0x", "1e3",
 * "inf" and a locale's decimal comma. */
#include "units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "limits.h"
#include "macro.h"
#include "util.h"

/* Fraction digits that count: 18 keep the arithmetic below within 128 bits
 * and are far finer than a microsecond or a byte of any unit. */
#define FRACTION_DIGITS_MAX 18

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool too_long(const char *s)
{
	return strnlen(s, RW_UNITS_TEXT_MAX + 1) > RW_UNITS_TEXT_MAX;
}

/* A decimal "12" or "1.5" at *p (digits before the point required): the
 * whole part, the first FRACTION_DIGITS_MAX fraction digits as a number and
 * their count.  Advances *p.  Returns 0, -EINVAL or -ERANGE. */
static int parse_decimal(const char **p, uint64_t *ret_whole, uint64_t *ret_frac, unsigned *ret_digits)
{
	const char *s = *p, *e = s;
	uint64_t frac = 0;
	unsigned digits = 0;

	while (is_digit(*e))
		e++;
	if (e == s)
		return -EINVAL;
	int r = parse_u64_n(s, (size_t)(e - s), 10, ret_whole);
	if (r < 0)
		return r;
	if (*e == '.') {
		e++;
		if (!is_digit(*e))
			return -EINVAL;
		for (; is_digit(*e); e++)
			if (digits < FRACTION_DIGITS_MAX) {
				frac = frac * 10 + (uint64_t)(*e - '0');
				digits++;
			}
	}
	*ret_frac = frac;
	*ret_digits = digits;
	*p = e;
	return 0;
}

/* whole.frac × unit, rounded down.  Returns 0 or -ERANGE. */
static int scale(uint64_t whole, uint64_t frac, unsigned digits, uint64_t unit, uint64_t *ret)
{
	unsigned __int128 pow10 = 1;
	uint64_t v;

	for (unsigned i = 0; i < digits; i++)
		pow10 *= 10;
	if (__builtin_mul_overflow(whole, unit, &v))
		return -ERANGE;
	unsigned __int128 part = (unsigned __int128)frac * unit / pow10;
	if (part > UINT64_MAX - v)
		return -ERANGE;
	*ret = v + (uint64_t)part;
	return 0;
}

static const char size_suffixes[] = "KMGTPE";

int units_parse_size(const char *s, uint64_t *ret_bytes)
{
	uint64_t whole, frac, unit = 1, v;
	unsigned digits;
	const char *p = s;
	int r;

	if (too_long(s))
		return -EINVAL;
	r = parse_decimal(&p, &whole, &frac, &digits);
	if (r < 0)
		return r;
	char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
	const char *x = c != '\0' ? strchr(size_suffixes, c) : NULL;
	if (x) {
		for (const char *i = size_suffixes; i <= x; i++)
			unit *= 1024;
		p++;
		if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
			p += 2;
		else if (*p == 'b' || *p == 'B')
			p++;
	} else if (*p == 'b' || *p == 'B')
		p++;
	if (*p != '\0')
		return -EINVAL;
	/* "1.5" bytes: a fraction needs a unit to be a whole number of bytes */
	if (digits > 0 && unit == 1)
		return -EINVAL;
	r = scale(whole, frac, digits, unit, &v);
	if (r < 0)
		return r;
	*ret_bytes = v;
	return 0;
}

char *units_format_size(char *buf, uint64_t bytes)
{
	unsigned i = 0;

	/* the largest unit the value is a whole multiple of: exact, so it
	 * parses back to the same number */
	while (bytes != 0 && i < sizeof(size_suffixes) - 1 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, UNITS_FORMAT_MAX, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, UNITS_FORMAT_MAX, "%llu%c", (unsigned long long)bytes, size_suffixes[i - 1]);
	return buf;
}

#define USEC_PER_MIN (60 * UNITS_USEC_PER_SEC)
#define USEC_PER_HOUR (60 * USEC_PER_MIN)
#define USEC_PER_DAY (24 * USEC_PER_HOUR)

static const struct {
	const char *name;
	uint64_t usec;
} duration_units[] = {
	{ "us", 1 },
	{ "usec", 1 },
	{ "ms", UNITS_USEC_PER_MS },
	{ "msec", UNITS_USEC_PER_MS },
	{ "s", UNITS_USEC_PER_SEC },
	{ "sec", UNITS_USEC_PER_SEC },
	{ "second", UNITS_USEC_PER_SEC },
	{ "seconds", UNITS_USEC_PER_SEC },
	{ "m", USEC_PER_MIN },
	{ "min", USEC_PER_MIN },
	{ "minute", USEC_PER_MIN },
	{ "minutes", USEC_PER_MIN },
	{ "h", USEC_PER_HOUR },
	{ "hr", USEC_PER_HOUR },
	{ "hour", USEC_PER_HOUR },
	{ "hours", USEC_PER_HOUR },
	{ "d", USEC_PER_DAY },
	{ "day", USEC_PER_DAY },
	{ "days", USEC_PER_DAY },
	{ "w", 7 * USEC_PER_DAY },
	{ "week", 7 * USEC_PER_DAY },
	{ "weeks", 7 * USEC_PER_DAY },
	{ "y", UNITS_USEC_PER_YEAR },
	{ "year", UNITS_USEC_PER_YEAR },
	{ "years", UNITS_USEC_PER_YEAR },
};

/* The microseconds of the n-byte unit name at s; 0 for no such unit. */
static uint64_t duration_unit(const char *s, size_t n)
{
	for (size_t i = 0; i < ELEMENTSOF(duration_units); i++)
		if (strlen(duration_units[i].name) == n && memcmp(s, duration_units[i].name, n) == 0)
			return duration_units[i].usec;
	return 0;
}

int units_parse_duration(const char *s, uint64_t unit_usec, uint64_t *ret)
{
	const char *p = s;
	uint64_t total = 0;

	/* blanks may separate parts, but neither lead nor trail them */
	if (unit_usec == 0 || too_long(s) || *s == '\0' || is_blank(s[strlen(s) - 1]))
		return -EINVAL;
	do {
		uint64_t whole, frac, unit = UNITS_USEC_PER_SEC, v;
		unsigned digits;
		int r = parse_decimal(&p, &whole, &frac, &digits);
		if (r < 0)
			return r;
		while (is_blank(*p))
			p++;
		const char *u = p;
		while (is_alpha(*p))
			p++;
		if (p > u) {
			unit = duration_unit(u, (size_t)(p - u));
			if (unit == 0)
				return -EINVAL;
		}
		r = scale(whole, frac, digits, unit, &v);
		if (r < 0)
			return r;
		if (__builtin_add_overflow(total, v, &total))
			return -ERANGE;
		while (is_blank(*p))
			p++;
	} while (*p != '\0');

	*ret = total / unit_usec;
	return 0;
}

char *units_format_duration(char *buf, uint64_t usec)
{
	static const struct {
		const char *name;
		uint64_t usec;
	} parts[] = {
		{ "d", USEC_PER_DAY }, { "h", USEC_PER_HOUR },	       { "min", USEC_PER_MIN },
		{ "s", UNITS_USEC_PER_SEC }, { "ms", UNITS_USEC_PER_MS }, { "us", 1 },
	};
	size_t len = 0;

	if (usec == 0) {
		snprintf(buf, UNITS_FORMAT_MAX, "0");
		return buf;
	}
	/* years only when exact ("10y"); otherwise days and smaller, as
	 * "1h 30min" rather than "5400s" */
	if (usec % UNITS_USEC_PER_YEAR == 0) {
		snprintf(buf, UNITS_FORMAT_MAX, "%lluy", (unsigned long long)(usec / UNITS_USEC_PER_YEAR));
		return buf;
	}
	buf[0] = '\0';
	/* at most "213503982d 8h 1min 49s 551ms 615us", 36 bytes: it fits */
	for (size_t i = 0; i < ELEMENTSOF(parts); i++)
		if (usec >= parts[i].usec) {
			int n = snprintf(buf + len, UNITS_FORMAT_MAX - len, "%s%llu%s", len ? " " : "",
					 (unsigned long long)(usec / parts[i].usec), parts[i].name);
			if (n > 0)
				len += (size_t)n;
			usec %= parts[i].usec;
		}
	return buf;
}
