/* Values of ramwatchd.conf: sizes, times, percentages, booleans and the
 * CensusOnGrowth= threshold, parsed strictly and formatted back in the forms
 * people write, so "ramwatchd --dump-config" output reads like a file a
 * person wrote and parses back to the same values. */
#include "config-internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define USEC_PER_SEC 1000000ull
#define USEC_PER_YEAR (31557600ull * USEC_PER_SEC) /* 365.25 days, as systemd.time(7) */

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

int config_parse_size(const char *s, uint64_t *ret)
{
	static const char suffixes[] = "KMGTPE";
	uint64_t whole, frac, unit = 1, v;
	unsigned digits;
	const char *p = s;
	int r;

	r = parse_decimal(&p, &whole, &frac, &digits);
	if (r < 0)
		return r;
	char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
	const char *x = c != '\0' ? strchr(suffixes, c) : NULL;
	if (x) {
		for (const char *i = suffixes; i <= x; i++)
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
	*ret = v;
	return 0;
}

char *config_format_size(char *buf, uint64_t bytes)
{
	static const char suffixes[] = "KMGTPE";
	unsigned i = 0;

	/* the largest unit the value is a whole multiple of: exact, so it
	 * parses back to the same number */
	while (bytes != 0 && i < sizeof(suffixes) - 1 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, CONFIG_VALUE_MAX, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, CONFIG_VALUE_MAX, "%llu%c", (unsigned long long)bytes, suffixes[i - 1]);
	return buf;
}

static const struct {
	const char *name;
	uint64_t usec;
} time_units[] = {
	{ "us", 1 },
	{ "usec", 1 },
	{ "ms", 1000 },
	{ "msec", 1000 },
	{ "s", USEC_PER_SEC },
	{ "sec", USEC_PER_SEC },
	{ "second", USEC_PER_SEC },
	{ "seconds", USEC_PER_SEC },
	{ "m", 60 * USEC_PER_SEC },
	{ "min", 60 * USEC_PER_SEC },
	{ "minute", 60 * USEC_PER_SEC },
	{ "minutes", 60 * USEC_PER_SEC },
	{ "h", 3600 * USEC_PER_SEC },
	{ "hr", 3600 * USEC_PER_SEC },
	{ "hour", 3600 * USEC_PER_SEC },
	{ "hours", 3600 * USEC_PER_SEC },
	{ "d", 86400 * USEC_PER_SEC },
	{ "day", 86400 * USEC_PER_SEC },
	{ "days", 86400 * USEC_PER_SEC },
	{ "w", 7 * 86400 * USEC_PER_SEC },
	{ "week", 7 * 86400 * USEC_PER_SEC },
	{ "weeks", 7 * 86400 * USEC_PER_SEC },
	{ "y", USEC_PER_YEAR },
	{ "year", USEC_PER_YEAR },
	{ "years", USEC_PER_YEAR },
};

int config_parse_time(const char *s, config_usec_t *ret)
{
	const char *p = s;
	uint64_t total = 0;

	/* blanks may separate parts, but not trail the last one */
	if (*s == '\0' || is_blank(s[strlen(s) - 1]))
		return -EINVAL;
	do {
		uint64_t whole, frac, unit = USEC_PER_SEC, v;
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
			size_t n = (size_t)(p - u);
			unit = 0;
			for (size_t i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++)
				if (strlen(time_units[i].name) == n && strncmp(u, time_units[i].name, n) == 0)
					unit = time_units[i].usec;
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

	*ret = total;
	return 0;
}

char *config_format_time(char *buf, config_usec_t usec)
{
	static const struct {
		const char *name;
		uint64_t usec;
	} parts[] = {
		{ "d", 86400 * USEC_PER_SEC }, { "h", 3600 * USEC_PER_SEC }, { "min", 60 * USEC_PER_SEC },
		{ "s", USEC_PER_SEC },	       { "ms", 1000 },		     { "us", 1 },
	};
	struct config_out o = { .buf = buf, .size = CONFIG_VALUE_MAX };

	buf[0] = '\0';
	if (usec == 0) {
		config_out_printf(&o, "0");
		return buf;
	}
	/* years only when exact ("10y"); otherwise days and smaller, as
	 * "1h 30min" rather than "5400s" */
	if (usec % USEC_PER_YEAR == 0) {
		config_out_printf(&o, "%lluy", (unsigned long long)(usec / USEC_PER_YEAR));
		return buf;
	}
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (usec >= parts[i].usec) {
			config_out_printf(&o, "%s%llu%s", o.len ? " " : "", (unsigned long long)(usec / parts[i].usec),
					  parts[i].name);
			usec %= parts[i].usec;
		}
	return buf;
}

int config_parse_percent(const char *s, double *ret)
{
	const char *p = s;
	uint64_t whole, frac;
	unsigned digits;
	bool percent;

	/* checked by hand first: strtod would also take " 2", "1e3", "inf",
	 * "0x10" and a locale's decimal comma */
	int r = parse_decimal(&p, &whole, &frac, &digits);
	if (r < 0)
		return r;
	percent = *p == '%';
	if (percent)
		p++;
	if (*p != '\0')
		return -EINVAL;

	errno = 0;
	double v = strtod(s, NULL);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	*ret = percent ? v / 100.0 : v;
	return 0;
}

char *config_format_percent(char *buf, double ratio)
{
	double back;

	/* the fewest decimals that parse back to the very same double */
	if (isfinite(ratio) && ratio >= 0 && ratio < 1e12) {
		for (int d = 0; d <= 20; d++) {
			snprintf(buf, CONFIG_VALUE_MAX, "%.*f", d, ratio * 100.0);
			size_t n = strlen(buf);
			if (n + 2 > CONFIG_VALUE_MAX)
				break;
			buf[n] = '%';
			buf[n + 1] = '\0';
			if (config_parse_percent(buf, &back) == 0 && back == ratio)
				return buf;
		}
		/* x% / 100 lands next to ratio but never on it: the plain
		 * fraction with enough digits does */
		for (int d = 1; d <= 40; d++) {
			snprintf(buf, CONFIG_VALUE_MAX, "%.*f", d, ratio);
			if (config_parse_percent(buf, &back) == 0 && back == ratio)
				return buf;
		}
	}
	snprintf(buf, CONFIG_VALUE_MAX, "%g", ratio);
	return buf;
}

int config_parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return -EINVAL;
}

int config_parse_growth(const char *s, bool *ret_on, uint64_t *ret_bytes, double *ret_ratio)
{
	uint64_t bytes = 0;
	double ratio = 0;
	bool have_bytes = false, have_ratio = false;
	const char *p = s;

	/* "0" is a size here (grow by anything), so only the words turn it off */
	if (strcasecmp(s, "no") == 0 || strcasecmp(s, "off") == 0 || strcasecmp(s, "false") == 0) {
		*ret_on = false;
		*ret_bytes = 0;
		*ret_ratio = 0;
		return 0;
	}
	for (;;) {
		char word[CONFIG_VALUE_MAX];
		size_t n;
		int r;

		while (is_blank(*p) || *p == ',')
			p++;
		if (*p == '\0')
			break;
		n = strcspn(p, " \t,");
		if (n >= sizeof(word))
			return -EINVAL;
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;

		if (word[n - 1] == '%') {
			if (have_ratio)
				return -EINVAL;
			r = config_parse_percent(word, &ratio);
			have_ratio = true;
		} else {
			if (have_bytes)
				return -EINVAL;
			r = config_parse_size(word, &bytes);
			have_bytes = true;
		}
		if (r < 0)
			return r;
	}
	if (!have_bytes && !have_ratio)
		return -EINVAL;
	*ret_on = true;
	*ret_bytes = bytes;
	*ret_ratio = ratio;
	return 0;
}

char *config_format_growth(char *buf, bool on, uint64_t bytes, double ratio)
{
	struct config_out o = { .buf = buf, .size = CONFIG_VALUE_MAX };
	char a[CONFIG_VALUE_MAX], b[CONFIG_VALUE_MAX];

	buf[0] = '\0';
	if (!on)
		config_out_printf(&o, "no");
	else if (ratio == 0)
		config_out_printf(&o, "%s", config_format_size(a, bytes));
	else if (bytes == 0)
		config_out_printf(&o, "%s", config_format_percent(b, ratio));
	else
		config_out_printf(&o, "%s %s", config_format_size(a, bytes), config_format_percent(b, ratio));
	return buf;
}

/* The prefix of Export='s one kind of export so far. */
#define EXPORT_TEXTFILE "textfile:"
#define PROM_SUFFIX ".prom"

int config_parse_export(const char *s, char **ret_path, char *reason, size_t reason_size)
{
	const char *path, *name;

	if (strcasecmp(s, "no") == 0 || strcasecmp(s, "off") == 0 || strcasecmp(s, "false") == 0) {
		*ret_path = NULL;
		return 0;
	}
	if (!startswith(s, EXPORT_TEXTFILE)) {
		snprintf(reason, reason_size, "is not an export (use textfile:/PATH.prom, or no)");
		return -EINVAL;
	}
	path = s + strlen(EXPORT_TEXTFILE);
	if (path[0] != '/') {
		snprintf(reason, reason_size,
			 "is not an absolute path (use e.g. textfile:/var/lib/prometheus/node-exporter/ramwatch.prom)");
		return -EINVAL;
	}
	/* node_exporter's textfile collector reads the *.prom files of its
	 * directory and nothing else */
	name = strrchr(path, '/') + 1;
	if (strlen(name) <= strlen(PROM_SUFFIX) || !endswith(name, PROM_SUFFIX)) {
		snprintf(reason, reason_size,
			 "is not a file name ending in .prom (node_exporter's textfile collector reads only *.prom files)");
		return -EINVAL;
	}
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	*ret_path = copy;
	return 0;
}

static const char *const group_by_names[_EXPORT_GROUP_MAX] = {
	[EXPORT_GROUP_COMM] = "comm",
	[EXPORT_GROUP_UNIT] = "unit",
	[EXPORT_GROUP_USER] = "user",
};

int config_parse_group_by(const char *s, enum export_group_by *ret)
{
	for (int g = 0; g < _EXPORT_GROUP_MAX; g++)
		if (streq(s, group_by_names[g])) {
			*ret = (enum export_group_by)g;
			return 0;
		}
	return -EINVAL;
}

const char *config_group_by_name(enum export_group_by g)
{
	return g >= 0 && g < _EXPORT_GROUP_MAX ? group_by_names[g] : NULL;
}

void config_out_printf(struct config_out *o, const char *fmt, ...)
{
	va_list ap;
	size_t avail = o->len < o->size ? o->size - o->len : 0;

	va_start(ap, fmt);
	int n = vsnprintf(avail ? o->buf + o->len : NULL, avail, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}
