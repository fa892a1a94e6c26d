/* The settings of ramwatchd.conf, one row each: section, name, type, where
 * the value lives, its default as written in the file, and its bounds.
 * Parsing, bounds checks, formatting and "what changed" all read this
 * table; ramwatchd.conf(5) and packaging/ramwatchd.conf repeat it for
 * people, and test-config checks they agree. */
#include "config-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "units.h"
#include "util.h"

#define MS 1000ull
#define SEC (1000ull * MS)
#define MINUTE (60ull * SEC)
#define HOUR (60ull * MINUTE)
#define DAY (24ull * HOUR)
#define YEAR (31557600ull * SEC)

#define FIELD(f) offsetof(struct daemon_config, f)

const struct config_setting config_settings[CONFIG_SETTINGS_N] = {
	{ "Watch", "Watch", CONFIG_SELECTORS, FIELD(watch), "all", 0, 0, 0, 0, false },
	{ "Watch", "Ignore", CONFIG_SELECTORS, FIELD(ignore), "", 0, 0, 0, 0, false },
	{ "Watch", "MinPrivate", CONFIG_SIZE, FIELD(min_private), "64M", 0, UINT64_MAX, 0, 0, false },
	{ "Watch", "MaxProcesses", CONFIG_COUNT, FIELD(max_processes), "1024", 1, RW_TARGETS_MAX, 0, 0, false },

	{ "Sampling", "SampleInterval", CONFIG_TIME, FIELD(sample_interval), "1s", 10 * MS, HOUR, 0, 0, false },
	/* at least SampleInterval too: checked once all files are read */
	{ "Sampling", "StoreInterval", CONFIG_TIME, FIELD(store_interval), "10s", 10 * MS, DAY, 0, 0, false },
	{ "Sampling", "DiscoverInterval", CONFIG_TIME, FIELD(discover_interval), "5s", 100 * MS, HOUR, 0, 0,
	  false },
	{ "Sampling", "CensusInterval", CONFIG_TIME, FIELD(census_interval), "5min", SEC, 7 * DAY, 0, 0, false },
	/* the ratio may pass 100 %: "200%" waits for private to triple */
	{ "Sampling", "CensusOnGrowth", CONFIG_GROWTH, FIELD(census_on_growth), "256M 5%", 0, UINT64_MAX, 0, 10.0,
	  false },
	{ "Sampling", "CensusMinSpacing", CONFIG_TIME, FIELD(census_min_spacing), "10s", 0, DAY, 0, 0, false },
	/* 0: every census reads in use and free */
	{ "Sampling", "InUseInterval", CONFIG_TIME, FIELD(in_use_interval), "15min", 0, 7 * DAY, 0, 0, false },
	{ "Sampling", "ScanBudget", CONFIG_PERCENT, FIELD(scan_budget), "2%", 0, 0, 0.001, 1.0, false },
	{ "Sampling", "HugeProcess", CONFIG_SIZE, FIELD(huge_process), "32G", 0, UINT64_MAX, 0, 0, false },
	{ "Sampling", "Evidence", CONFIG_BOOL, FIELD(evidence), "yes", 0, 0, 0, 0, false },
	{ "Sampling", "ChangeWatch", CONFIG_BOOL, FIELD(change_watch), "yes", 0, 0, 0, 0, false },
	{ "Sampling", "ProcessWatch", CONFIG_BOOL, FIELD(process_watch), "yes", 0, 0, 0, 0, false },
	/* 0: every steady check reads smaps_rollup */
	{ "Sampling", "SteadyCheckInterval", CONFIG_TIME, FIELD(steady_check_interval), "15min", 0, 7 * DAY, 0, 0,
	  false },

	{ "Store", "Retention", CONFIG_TIME, FIELD(retention), "30d", HOUR, 10 * YEAR, 0, 0, false },
	{ "Store", "MaxDatabaseSize", CONFIG_SIZE, FIELD(max_database_size), "1G", MiB, UINT64_MAX, 0, 0, true },

	{ "Export", "Export", CONFIG_EXPORT, FIELD(export_path), "no", 0, 0, 0, 0, false },
	{ "Export", "ExportGroupBy", CONFIG_GROUP_BY, FIELD(export_group_by), "comm", 0, 0, 0, 0, false },

	{ "OOM", "OOMWatch", CONFIG_BOOL, FIELD(oom_watch), "yes", 0, 0, 0, 0, false },
	{ "OOM", "KernelLog", CONFIG_BOOL, FIELD(kernel_log), "yes", 0, 0, 0, 0, false },
	/* 0: no census before death at that share */
	{ "OOM", "NearLimit", CONFIG_PERCENT, FIELD(near_limit), "90%", 0, 0, 0.1, 1.0, true },
	{ "OOM", "NearLimitAgain", CONFIG_PERCENT, FIELD(near_limit_again), "97%", 0, 0, 0.1, 1.0, true },
	{ "OOM", "NearExhaustion", CONFIG_SIZE, FIELD(near_exhaustion), "256M", MiB, UINT64_MAX, 0, 0, true },
};

const struct config_setting *config_setting_find(const char *section, const char *name)
{
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++)
		if (streq(config_settings[i].section, section) && streq(config_settings[i].name, name))
			return &config_settings[i];
	return NULL;
}

const struct config_setting *config_setting_find_any(const char *name)
{
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++)
		if (streq(config_settings[i].name, name))
			return &config_settings[i];
	return NULL;
}

bool config_section_known(const char *section)
{
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++)
		if (streq(config_settings[i].section, section))
			return true;
	return false;
}

static void *field(const struct config_setting *t, const struct daemon_config *c)
{
	return (char *)c + t->offset;
}

/* Formats one bound of t (a number of its type). */
static char *format_bound(const struct config_setting *t, char *buf, uint64_t v, double ratio)
{
	switch (t->type) {
	case CONFIG_TIME:
		return units_format_duration(buf, v);
	case CONFIG_SIZE:
		return units_format_size(buf, v);
	case CONFIG_COUNT:
		snprintf(buf, CONFIG_VALUE_MAX, "%llu", (unsigned long long)v);
		return buf;
	default:
		return config_format_percent(buf, ratio);
	}
}

/* t's bounds in words: "at least 10ms and at most 1h". */
static void format_bounds(const struct config_setting *t, char *buf, size_t size)
{
	char lo[CONFIG_VALUE_MAX], hi[CONFIG_VALUE_MAX];
	bool ratio = t->type == CONFIG_PERCENT || t->type == CONFIG_GROWTH;
	bool has_lo = ratio ? t->min_ratio > 0 : t->min > 0;
	bool has_hi = ratio ? t->max_ratio > 0 : t->max < UINT64_MAX;

	format_bound(t, lo, t->min, t->min_ratio);
	format_bound(t, hi, t->max, t->max_ratio);
	snprintf(buf, size, "%s%s%s%s%s%s", t->zero_off ? "0 or " : "", has_lo ? "at least " : "", has_lo ? lo : "",
		 has_lo && has_hi ? " and " : "", has_hi ? "at most " : "", has_hi ? hi : "");
}

static int out_of_range(const struct config_setting *t, const char *value, struct error *err)
{
	char bounds[2 * CONFIG_VALUE_MAX + 32];
	format_bounds(t, bounds, sizeof(bounds));
	if (bounds[0] == '\0') /* unbounded: the number did not fit */
		return error_set(err, -ERANGE, "%s: '%s' is too large", t->name, value);
	return error_set(err, -ERANGE, "%s: '%s' is out of range: it must be %s", t->name, value, bounds);
}

static int not_a(const struct config_setting *t, const char *value, const char *what, struct error *err)
{
	return error_set(err, -EINVAL, "%s: '%s' is not %s", t->name, value, what);
}

static int apply_selectors(const struct config_setting *t, struct selector_list *l, const char *value, struct error *err)
{
	struct error reason = { 0 };
	const char *p = value;

	/* whitespace separates selectors, so a glob cannot hold a blank:
	 * "cmdline:python?train.py*" matches "python train.py" */
	for (;;) {
		p += strspn(p, " \t");
		if (*p == '\0')
			return 0;
		size_t n = strcspn(p, " \t");
		char word[RW_CONFIG_LINE_MAX + 1];
		struct selector s;
		int r;

		if (n >= sizeof(word))
			return error_set(err, -E2BIG, "%s: a selector longer than %u bytes", t->name, RW_CONFIG_LINE_MAX);
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;

		r = selector_parse(word, &s, &reason);
		/* an unknown user is a bad value here, not a missing file */
		if (r < 0)
			return error_set(err, r == -ENOENT ? -EINVAL : r, "%s: %s", t->name, reason.message);
		r = selector_list_add(l, &s);
		if (r < 0) {
			selector_done(&s);
			if (r == -E2BIG)
				return error_set(err, r, "%s: more than %u selectors", t->name, RW_SELECTORS_MAX);
			return error_set(err, r, "%s: %s", t->name, strerror(-r));
		}
	}
}

static bool ratio_in_bounds(const struct config_setting *t, double v)
{
	/* "0.1%" / 100 may land a rounding step off the constant 0.001 */
	const double slack = 1e-9;
	if (t->zero_off && v == 0)
		return true;
	return v >= t->min_ratio * (1 - slack) && v <= t->max_ratio * (1 + slack);
}

int config_setting_apply(const struct config_setting *t, struct daemon_config *c, const char *value, struct error *err)
{
	void *f = field(t, c);
	uint64_t v;
	double ratio;
	bool on;
	char *path;
	int r;

	if (value[0] == '\0') {
		if (t->type == CONFIG_SELECTORS) {
			selector_list_clear(f);
			return 0;
		}
		/* as in systemd: an empty assignment restores the default */
		value = t->default_value;
	}

	switch (t->type) {
	case CONFIG_SELECTORS:
		return apply_selectors(t, f, value, err);

	case CONFIG_SIZE:
	case CONFIG_TIME:
		r = t->type == CONFIG_SIZE ? units_parse_size(value, &v) : units_parse_duration(value, 1, &v);
		if (r == -EINVAL)
			return not_a(t, value,
				     t->type == CONFIG_SIZE ? "a size (use e.g. 512K, 64M, 32G)"
							    : "a time (use e.g. 500ms, 10s, 5min, 2h, 1d)",
				     err);
		if (r < 0 || (!(t->zero_off && v == 0) && (v < t->min || v > t->max)))
			return out_of_range(t, value, err);
		*(uint64_t *)f = v;
		return 0;

	case CONFIG_COUNT:
		r = parse_u64(value, 10, &v);
		if (r == -EINVAL)
			return not_a(t, value, "a number", err);
		if (r < 0 || v < t->min || v > t->max)
			return out_of_range(t, value, err);
		*(unsigned *)f = (unsigned)v;
		return 0;

	case CONFIG_PERCENT:
		r = config_parse_percent(value, &ratio);
		if (r == -EINVAL)
			return not_a(t, value, "a percentage (use e.g. 2%, 0.5%)", err);
		if (r < 0 || !ratio_in_bounds(t, ratio))
			return out_of_range(t, value, err);
		*(double *)f = ratio;
		return 0;

	case CONFIG_GROWTH:
		r = config_parse_growth(value, &on, &v, &ratio);
		if (r == -EINVAL)
			return not_a(t, value, "a growth (use e.g. \"256M 5%\", \"1G\", \"10%\" or \"no\")", err);
		if (r < 0 || !ratio_in_bounds(t, ratio))
			return out_of_range(t, value, err);
		c->census_on_growth = on;
		c->growth_bytes = v;
		c->growth_ratio = ratio;
		return 0;

	case CONFIG_EXPORT: {
		struct error reason = { 0 };
		r = config_parse_export(value, &path, &reason);
		if (r < 0)
			return error_set(err, r, "%s: '%s' %s", t->name, value,
					 r == -EINVAL ? reason.message : "cannot be kept: out of memory");
		free(*(char **)f);
		*(char **)f = path;
		return 0;
	}

	case CONFIG_GROUP_BY:
		if (config_parse_group_by(value, f) < 0)
			return not_a(t, value, "a grouping (use comm, unit or user)", err);
		return 0;

	case CONFIG_BOOL:
		if (config_parse_bool(value, f) < 0)
			return not_a(t, value, "yes or no", err);
		return 0;
	}
	return -EINVAL;
}

size_t config_setting_format(const struct config_setting *t, const struct daemon_config *c, const char *sep,
			     char *buf, size_t size)
{
	struct config_out o = { .buf = buf, .size = size };
	char b[CONFIG_VALUE_MAX];
	const void *f = field(t, c);

	if (size > 0)
		buf[0] = '\0';
	switch (t->type) {
	case CONFIG_SELECTORS: {
		const struct selector_list *l = f;
		if (l->n == 0)
			config_out_printf(&o, "%s", t->default_value);
		for (size_t i = 0; i < l->n; i++) {
			if (i > 0)
				config_out_printf(&o, "%s", sep);
			size_t avail = o.len < size ? size - o.len : 0;
			o.len += selector_format(&l->v[i], avail ? buf + o.len : NULL, avail);
		}
		break;
	}
	case CONFIG_SIZE:
		config_out_printf(&o, "%s", units_format_size(b, *(const uint64_t *)f));
		break;
	case CONFIG_TIME:
		config_out_printf(&o, "%s", units_format_duration(b, *(const uint64_t *)f));
		break;
	case CONFIG_PERCENT:
		config_out_printf(&o, "%s", config_format_percent(b, *(const double *)f));
		break;
	case CONFIG_COUNT:
		config_out_printf(&o, "%u", *(const unsigned *)f);
		break;
	case CONFIG_GROWTH:
		config_out_printf(&o, "%s",
				  config_format_growth(b, c->census_on_growth, c->growth_bytes, c->growth_ratio));
		break;
	case CONFIG_EXPORT:
		if (*(char *const *)f)
			config_out_printf(&o, "textfile:%s", *(char *const *)f);
		else
			config_out_printf(&o, "no");
		break;
	case CONFIG_GROUP_BY:
		config_out_printf(&o, "%s", config_group_by_name(*(const enum export_group_by *)f));
		break;
	case CONFIG_BOOL:
		config_out_printf(&o, "%s", *(const bool *)f ? "yes" : "no");
		break;
	}
	return o.len;
}

bool config_setting_equal(const struct config_setting *t, const struct daemon_config *a,
			  const struct daemon_config *b)
{
	switch (t->type) {
	case CONFIG_SELECTORS:
		return selector_list_equal(field(t, a), field(t, b));
	case CONFIG_SIZE:
	case CONFIG_TIME:
		return *(const uint64_t *)field(t, a) == *(const uint64_t *)field(t, b);
	case CONFIG_PERCENT:
		return *(const double *)field(t, a) == *(const double *)field(t, b);
	case CONFIG_COUNT:
		return *(const unsigned *)field(t, a) == *(const unsigned *)field(t, b);
	case CONFIG_GROWTH:
		if (a->census_on_growth != b->census_on_growth)
			return false;
		return !a->census_on_growth || (a->growth_bytes == b->growth_bytes && a->growth_ratio == b->growth_ratio);
	case CONFIG_EXPORT: {
		const char *x = *(char *const *)field(t, a), *y = *(char *const *)field(t, b);
		return x && y ? streq(x, y) : x == y;
	}
	case CONFIG_GROUP_BY:
		return *(const enum export_group_by *)field(t, a) == *(const enum export_group_by *)field(t, b);
	case CONFIG_BOOL:
		return *(const bool *)field(t, a) == *(const bool *)field(t, b);
	}
	return false;
}
