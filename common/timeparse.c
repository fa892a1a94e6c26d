/* Parsing and writing times and spans for the command line.  Strict: a
 * string is one whole form or it is refused, so a typo never silently
 * means another time. */
#include "timeparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "limits.h"
#include "units.h"

#define MS_PER_S 1000
#define MS_PER_MIN (60 * MS_PER_S)
#define MS_PER_H (60 * MS_PER_MIN)
#define MS_PER_D (24 * MS_PER_H)

/* 9999-12-31T23:59:59Z: the last second ISO 8601's four-digit years reach. */
#define LAST_SECOND INT64_C(253402300799)

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A span of the len bytes at s, in units.h's grammar of durations (the
 * same as the configuration's and every option's). */
static int span_parse(const char *s, size_t len, int64_t *ret_ms)
{
	char text[RW_UNITS_TEXT_MAX + 1];
	uint64_t ms;

	if (len > RW_UNITS_TEXT_MAX)
		return -EINVAL;
	memcpy(text, s, len);
	text[len] = '\0';
	int r = units_parse_duration(text, UNITS_USEC_PER_MS, &ms);
	if (r < 0)
		return r;
	*ret_ms = (int64_t)ms; /* at most UINT64_MAX / 1000: it fits */
	return 0;
}

/* n digits at s as a number; false when any is not a digit. */
static bool digits(const char *s, size_t n, int *ret)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*ret = v;
	return true;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
	static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

struct iso {
	int year, month, day, hour, minute, second, ms;
	bool has_zone;
	int zone_minutes; /* east of UTC */
};

/* The zone at s (len bytes): "Z", "+HH", "+HHMM", "+HH:MM" or the same
 * with "-". */
static int iso_zone(const char *s, size_t len, struct iso *t)
{
	int h, m = 0;

	if (len == 1 && (s[0] == 'Z' || s[0] == 'z')) {
		t->has_zone = true;
		return 0;
	}
	if (len < 3 || (s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &h))
		return -EINVAL;
	if (len == 6 && s[3] == ':') {
		if (!digits(s + 4, 2, &m))
			return -EINVAL;
	} else if (len == 5) {
		if (!digits(s + 3, 2, &m))
			return -EINVAL;
	} else if (len != 3) {
		return -EINVAL;
	}
	if (h > 23 || m > 59)
		return -EINVAL;
	t->has_zone = true;
	t->zone_minutes = (s[0] == '-' ? -1 : 1) * (h * 60 + m);
	return 0;
}

static int iso_parse(const char *s, struct iso *t)
{
	size_t len = strlen(s), i;

	*t = (struct iso){ 0 };
	if (len < 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &t->year) || !digits(s + 5, 2, &t->month) ||
	    !digits(s + 8, 2, &t->day))
		return -EINVAL;
	i = 10;
	if (i < len) {
		if (s[i] != 'T' && s[i] != 't' && s[i] != ' ')
			return -EINVAL;
		if (len < i + 6 || s[i + 3] != ':' || !digits(s + i + 1, 2, &t->hour) ||
		    !digits(s + i + 4, 2, &t->minute))
			return -EINVAL;
		i += 6;
		if (i < len && s[i] == ':') {
			if (len < i + 3 || !digits(s + i + 1, 2, &t->second))
				return -EINVAL;
			i += 3;
			if (i < len && (s[i] == '.' || s[i] == ',')) {
				size_t n = 0, scale = 100;
				for (i++; i < len && is_digit(s[i]); i++, n++) {
					if (n < 3) {
						t->ms += (s[i] - '0') * (int)scale;
						scale /= 10;
					}
				}
				if (n == 0 || n > 9)
					return -EINVAL;
			}
		}
		if (i < len && iso_zone(s + i, len - i, t) < 0)
			return -EINVAL;
	}
	if (t->month < 1 || t->month > 12 || t->day < 1 || t->day > days_in_month(t->year, t->month) ||
	    t->hour > 23 || t->minute > 59 || t->second > 59)
		return -EINVAL;
	if (t->year < 1970)
		return -ERANGE;
	return 0;
}

static int iso_to_ms(const struct iso *t, int64_t *ret_ms)
{
	int64_t secs;

	if (t->has_zone) {
		secs = days_from_civil(t->year, t->month, t->day) * 86400 + t->hour * 3600 + t->minute * 60 +
		       t->second - (int64_t)t->zone_minutes * 60;
	} else {
		struct tm tm = {
			.tm_year = t->year - 1900,
			.tm_mon = t->month - 1,
			.tm_mday = t->day,
			.tm_hour = t->hour,
			.tm_min = t->minute,
			.tm_sec = t->second,
			.tm_isdst = -1, /* whatever daylight saving time says on that day */
		};
		time_t v = mktime(&tm);
		if (v == (time_t)-1)
			return -ERANGE;
		secs = (int64_t)v;
	}
	if (secs < 0 || secs > LAST_SECOND)
		return -ERANGE;
	*ret_ms = secs * 1000 + t->ms;
	return 0;
}

/* "@SECONDS" or "@SECONDS.FRACTION" */
static int unix_parse(const char *s, int64_t *ret_ms)
{
	int64_t secs = 0, ms = 0, scale = 100;
	size_t i = 0, n = 0;

	if (!is_digit(s[0]))
		return -EINVAL;
	for (; is_digit(s[i]); i++)
		if (__builtin_mul_overflow(secs, 10, &secs) || __builtin_add_overflow(secs, s[i] - '0', &secs))
			return -ERANGE;
	if (s[i] == '.') {
		for (i++; is_digit(s[i]); i++, n++)
			if (n < 3) {
				ms += (s[i] - '0') * scale;
				scale /= 10;
			}
		if (n == 0 || n > 9)
			return -EINVAL;
	}
	if (s[i] != '\0')
		return -EINVAL;
	if (secs > LAST_SECOND)
		return -ERANGE;
	*ret_ms = secs * 1000 + ms;
	return 0;
}

int timeparse_time(const char *s, int64_t now_ms, int64_t *ret_ms)
{
	size_t len = strlen(s);
	int64_t v;
	int r;

	if (strcmp(s, "now") == 0) {
		if (now_ms < 0)
			return -ERANGE;
		*ret_ms = now_ms;
		return 0;
	}
	if (s[0] == '@') {
		if ((r = unix_parse(s + 1, &v)) < 0)
			return r;
		*ret_ms = v;
		return 0;
	}
	if (len >= 5 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) && s[4] == '-') {
		struct iso t;
		if ((r = iso_parse(s, &t)) < 0 || (r = iso_to_ms(&t, &v)) < 0)
			return r;
		*ret_ms = v;
		return 0;
	}
	/* a span ago, "ago" optional */
	if (len > 4 && memcmp(s + len - 4, " ago", 4) == 0)
		len -= 4;
	if ((r = span_parse(s, len, &v)) < 0)
		return r;
	if (v > now_ms)
		return -ERANGE;
	*ret_ms = now_ms - v;
	return 0;
}

static char *format_tm(char *buf, int64_t ms, const char *format)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms < 0 || !localtime_r(&t, &tm) || strftime(buf, TIMEPARSE_FORMAT_MAX, format, &tm) == 0)
		snprintf(buf, TIMEPARSE_FORMAT_MAX, "-");
	return buf;
}

char *timeparse_format_local(char *buf, int64_t ms)
{
	return format_tm(buf, ms, "%Y-%m-%d %H:%M:%S");
}

char *timeparse_format_clock(char *buf, int64_t ms)
{
	return format_tm(buf, ms, "%H:%M:%S");
}

char *timeparse_format_span(char *buf, int64_t ms)
{
	static const struct {
		int64_t ms;
		const char *name;
	} steps[] = { { MS_PER_D, "d" }, { MS_PER_H, "h" }, { MS_PER_MIN, "min" }, { MS_PER_S, "s" } };

	if (ms < 0)
		ms = 0;
	if (ms < MS_PER_S) {
		snprintf(buf, TIMEPARSE_FORMAT_MAX, "%" PRId64 "ms", ms);
		return buf;
	}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (ms < steps[i].ms)
			continue;
		int64_t big = ms / steps[i].ms;
		if (i + 1 == sizeof(steps) / sizeof(steps[0])) {
			snprintf(buf, TIMEPARSE_FORMAT_MAX, "%" PRId64 "s", big);
			return buf;
		}
		int64_t small = ms % steps[i].ms / steps[i + 1].ms;
		if (small)
			snprintf(buf, TIMEPARSE_FORMAT_MAX, "%" PRId64 "%s %" PRId64 "%s", big, steps[i].name, small,
				 steps[i + 1].name);
		else
			snprintf(buf, TIMEPARSE_FORMAT_MAX, "%" PRId64 "%s", big, steps[i].name);
		return buf;
	}
	return buf; /* not reached: ms >= 1 s matches the last step */
}
