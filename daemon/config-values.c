/* Values of ramwatchd.conf: percentages, booleans and the CensusOnGrowth=
 * threshold (sizes and times are common/units.c's, as on the command
 * line), parsed strictly and formatted back in the forms
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

#include "units.h"
#include "util.h"

/* sizes are written into CONFIG_VALUE_MAX buffers */
_Static_assert(CONFIG_VALUE_MAX >= UNITS_FORMAT_MAX, "a size or time fits a value's buffer");

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

int config_parse_percent(const char *s, double *ret)
{
	const char *p = s;
	bool percent;

	/* checked by hand first ("12" or "1.5"): strtod would also take " 2",
	 * "1e3", "inf", "0x10" and a locale's decimal comma */
	if (!is_digit(*p))
		return -EINVAL;
	while (is_digit(*p))
		p++;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return -EINVAL;
		while (is_digit(*p))
			p++;
	}
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
			r = units_parse_size(word, &bytes);
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
		config_out_printf(&o, "%s", units_format_size(a, bytes));
	else if (bytes == 0)
		config_out_printf(&o, "%s", config_format_percent(b, ratio));
	else
		config_out_printf(&o, "%s %s", units_format_size(a, bytes), config_format_percent(b, ratio));
	return buf;
}

/* The prefix of Export='s one kind of export so far. */
#define EXPORT_TEXTFILE "textfile:"
#define PROM_SUFFIX ".prom"

int config_parse_export(const char *s, char **ret_path, struct error *err)
{
	const char *path, *name;

	if (strcasecmp(s, "no") == 0 || strcasecmp(s, "off") == 0 || strcasecmp(s, "false") == 0) {
		*ret_path = NULL;
		return 0;
	}
	if (!startswith(s, EXPORT_TEXTFILE))
		return error_set(err, -EINVAL, "is not an export (use textfile:/PATH.prom, or no)");
	path = s + strlen(EXPORT_TEXTFILE);
	if (path[0] != '/')
		return error_set(err, -EINVAL,
				 "is not an absolute path (use e.g. textfile:/var/lib/prometheus/node-exporter/ramwatch.prom)");
	/* node_exporter's textfile collector reads the *.prom files of its
	 * directory and nothing else */
	name = strrchr(path, '/') + 1;
	if (strlen(name) <= strlen(PROM_SUFFIX) || !endswith(name, PROM_SUFFIX))
		return error_set(err, -EINVAL,
				 "is not a file name ending in .prom (node_exporter's textfile collector reads only *.prom files)");
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
