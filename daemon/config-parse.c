/* The line parser of ramwatchd.conf: systemd's unit-file syntax, reduced to
 * what the daemon needs ([Section], Name=value, # and ; comments).
 *
 * Why not libinih, which the build links: Debian builds it with a fixed
 * 200-byte line buffer and cuts a longer line in two, the tail becoming a
 * setting of its own without a word; its handler gets no line number; it
 * also takes "Name: value", indented continuation lines and inline ";"
 * comments, none of which systemd's syntax has ("Watch=cmdline:*;x" would
 * lose its tail).  Its options are process-wide variables.  A parser of
 * whole lines is a page of code and says exactly which line is wrong. */
#include "config-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "limits.h"
#include "units.h"
#include "util.h"

void config_parser_init(struct config_parser *p, struct error *err)
{
	*p = (struct config_parser){ .err = err };
	config_defaults(&p->config);
	error_clear(err);
}

void config_parser_done(struct config_parser *p)
{
	config_done(&p->config);
}

static int fail(struct config_parser *p, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct config_parser *p, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(p->err, r, fmt, ap);
	va_end(ap);
	return r;
}

static char *strip(char *s)
{
	s += strspn(s, " \t\r\f\v");
	size_t n = strlen(s);
	while (n > 0 && strchr(" \t\r\f\v", s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* Handles "[Name]".  Sets *section to the table's spelling. */
static int parse_section(struct config_parser *p, const char *name, unsigned lineno, char *l, const char **section)
{
	size_t n = strlen(l);

	if (n < 2 || l[n - 1] != ']')
		return fail(p, -EINVAL, "%s:%u: '%s' is not a section header (write [Name])", name, lineno, l);
	l[n - 1] = '\0';
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++)
		if (streq(config_settings[i].section, l + 1)) {
			*section = config_settings[i].section;
			return 0;
		}
	return fail(p, -EINVAL, "%s:%u: unknown section [%s]", name, lineno, l + 1);
}

/* Handles "Name=value" in section. */
static int parse_assignment(struct config_parser *p, const char *name, unsigned lineno, char *l,
			    const char *section)
{
	struct error reason = { 0 };
	char *eq = strchr(l, '=');
	int r;

	if (!eq)
		return fail(p, -EINVAL, "%s:%u: '%s' is not a setting (write Name=value)", name, lineno, l);
	*eq = '\0';
	const char *key = strip(l), *value = strip(eq + 1);
	if (key[0] == '\0')
		return fail(p, -EINVAL, "%s:%u: a setting without a name (write Name=value)", name, lineno);
	if (!section)
		return fail(p, -EINVAL, "%s:%u: setting '%s' comes before any section header", name, lineno, key);

	const struct config_setting *t = config_setting_find(section, key);
	if (!t) {
		const struct config_setting *other = config_setting_find_any(key);
		if (other)
			return fail(p, -EINVAL, "%s:%u: unknown setting '%s' in section [%s] (it belongs in [%s])",
				    name, lineno, key, section, other->section);
		return fail(p, -EINVAL, "%s:%u: unknown setting '%s' in section [%s]", name, lineno, key, section);
	}

	r = config_setting_apply(t, &p->config, value, &reason);
	if (r < 0)
		return fail(p, r, "%s:%u: %s", name, lineno, reason.message);

	size_t i = (size_t)(t - config_settings);
	p->where[i].file = name;
	p->where[i].line = lineno;
	p->where[i].seq = ++p->seq;
	return 0;
}

int config_parser_feed(struct config_parser *p, const char *name, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	const char *section = NULL; /* each file starts outside any section, as in systemd */
	char line[RW_CONFIG_LINE_MAX + 1];
	int r;

	if (len > RW_CONFIG_FILE_MAX)
		return fail(p, -E2BIG, "%s: longer than %u bytes", name, RW_CONFIG_FILE_MAX);
	/* the UTF-8 byte order mark some editors write */
	if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;

	for (unsigned lineno = 1; s < end; lineno++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		if (n > RW_CONFIG_LINE_MAX)
			return fail(p, -E2BIG, "%s:%u: line longer than %u bytes", name, lineno, RW_CONFIG_LINE_MAX);
		if (memchr(s, '\0', n))
			return fail(p, -EINVAL, "%s:%u: line holds a NUL byte", name, lineno);
		memcpy(line, s, n);
		line[n] = '\0';
		s = nl ? nl + 1 : end;

		char *l = strip(line);
		if (l[0] == '\0' || l[0] == '#' || l[0] == ';')
			continue;
		if (l[0] == '[')
			r = parse_section(p, name, lineno, l, &section);
		else
			r = parse_assignment(p, name, lineno, l, section);
		if (r < 0)
			return r;
	}
	return 0;
}

int config_parser_finish(struct config_parser *p, struct daemon_config *ret)
{
	struct daemon_config *c = &p->config;

	/* "all" among other Watch= selectors already matches everything: keep
	 * the one form of "all", the empty list, so equal configurations
	 * compare equal.  Done only now: a later drop-in's "Watch=" may still
	 * have cleared the "all". */
	for (size_t i = 0; i < c->watch.n; i++)
		if (c->watch.v[i].kind == SELECTOR_ALL) {
			selector_list_clear(&c->watch);
			break;
		}

	if (c->store_interval < c->sample_interval) {
		size_t sample = (size_t)(config_setting_find("Sampling", "SampleInterval") - config_settings);
		size_t store = (size_t)(config_setting_find("Sampling", "StoreInterval") - config_settings);
		size_t at = p->where[store].seq > p->where[sample].seq ? store : sample;
		char a[CONFIG_VALUE_MAX], b[CONFIG_VALUE_MAX];

		return fail(p, -ERANGE,
			    "%s:%u: StoreInterval=%s is shorter than SampleInterval=%s "
			    "(StoreInterval must be at least SampleInterval)",
			    p->where[at].file ? p->where[at].file : "(defaults)", p->where[at].line,
			    units_format_duration(a, c->store_interval), units_format_duration(b, c->sample_interval));
	}

	if (c->near_limit > 0 && c->near_limit_again > 0 && c->near_limit_again < c->near_limit) {
		size_t near = (size_t)(config_setting_find("OOM", "NearLimit") - config_settings);
		size_t again = (size_t)(config_setting_find("OOM", "NearLimitAgain") - config_settings);
		size_t at = p->where[again].seq > p->where[near].seq ? again : near;
		char a[CONFIG_VALUE_MAX], b[CONFIG_VALUE_MAX];

		return fail(p, -ERANGE,
			    "%s:%u: NearLimitAgain=%s is below NearLimit=%s "
			    "(the second census comes nearer the limit than the first)",
			    p->where[at].file ? p->where[at].file : "(defaults)", p->where[at].line,
			    config_format_percent(a, c->near_limit_again), config_format_percent(b, c->near_limit));
	}

	*ret = *c;
	*c = (struct daemon_config){};
	return 0;
}
