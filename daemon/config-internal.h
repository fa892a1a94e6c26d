/* What the configuration modules share and nothing else uses: the table of
 * settings (config-table.c), the line parser's state (config-parse.c) and
 * the CensusOnGrowth= value (config-values.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

enum config_type {
	CONFIG_SELECTORS, /* a struct selector_list: words add, an empty value clears */
	CONFIG_SIZE,      /* uint64_t bytes */
	CONFIG_TIME,      /* config_usec_t */
	CONFIG_PERCENT,   /* double, a fraction */
	CONFIG_COUNT,     /* unsigned, a plain number */
	CONFIG_GROWTH,    /* census_on_growth, growth_bytes and growth_ratio together */
	CONFIG_EXPORT,    /* char *, NULL for none: Export= */
	CONFIG_GROUP_BY,  /* enum export_group_by */
	CONFIG_BOOL,      /* bool: yes/no */
};

/* One setting: everything that parsing, checking, formatting and the man
 * page say about it. */
struct config_setting {
	const char *section;
	const char *name;
	enum config_type type;
	size_t offset;             /* of the value in struct daemon_config */
	const char *default_value; /* as written in ramwatchd.conf; for a list, what an empty one means */
	uint64_t min, max;         /* sizes, times and counts, inclusive */
	double min_ratio, max_ratio; /* percentages (and CensusOnGrowth='s ratio), inclusive */
	bool zero_off;             /* 0 is allowed below min: it turns the feature off */
};

#define CONFIG_SETTINGS_N 26
extern const struct config_setting config_settings[CONFIG_SETTINGS_N];

/* The setting name in section, or NULL. */
const struct config_setting *config_setting_find(const char *section, const char *name);
/* The first setting called name in any section, or NULL: for the hint that
 * a known setting sits in the wrong section. */
const struct config_setting *config_setting_find_any(const char *name);
bool config_section_known(const char *section);

/* Parses value (trimmed) into t's field of c, checking its bounds; an empty
 * value clears a list and resets anything else to its default.  Returns 0,
 * or -EINVAL / -ERANGE / -E2BIG / -ENOMEM with "Name: reason" in err; c is
 * unchanged on failure. */
int config_setting_apply(const struct config_setting *t, struct daemon_config *c, const char *value, struct error *err);
/* Writes t's value in c as it would be written in the file (a list: its
 * selectors separated by sep); returns the snprintf-style length. */
size_t config_setting_format(const struct config_setting *t, const struct daemon_config *c, const char *sep,
			     char *buf, size_t size);
bool config_setting_equal(const struct config_setting *t, const struct daemon_config *a,
			  const struct daemon_config *b);

/* CensusOnGrowth=: "no"/"off"/"false", or a size, a percentage, or both in
 * either order separated by whitespace or a comma.  A part left out is 0.
 * Returns 0 or -EINVAL / -ERANGE; outputs untouched on failure. */
int config_parse_growth(const char *s, bool *ret_on, uint64_t *ret_bytes, double *ret_ratio);
char *config_format_growth(char *buf, bool on, uint64_t bytes, double ratio);

/* A configuration being built from one or more files: later files and
 * later lines override earlier ones.  It remembers where each setting was
 * last assigned, for errors found only once everything is read. */
struct config_parser {
	struct daemon_config config;
	struct {
		const char *file; /* borrowed: must outlive the parser */
		unsigned line;
		unsigned seq;
	} where[CONFIG_SETTINGS_N];
	unsigned seq;
	struct error *err; /* the caller's; may be NULL */
};

/* Starts from the defaults; messages go to err. */
void config_parser_init(struct config_parser *p, struct error *err);
/* Applies one file's text; name is used in messages and borrowed.  Returns
 * 0 or a negative errno with "NAME:LINE: reason" in err. */
int config_parser_feed(struct config_parser *p, const char *name, const char *text, size_t len);
/* Checks the settings against each other and moves the configuration to
 * *ret (the parser is left empty).  Returns 0 or -ERANGE. */
int config_parser_finish(struct config_parser *p, struct daemon_config *ret);
void config_parser_done(struct config_parser *p);

/* Appends to a bounded buffer, snprintf-style: len counts what would have
 * been written, the text is cut at size - 1 and always NUL-terminated. */
struct config_out {
	char *buf;
	size_t size;
	size_t len;
};
void config_out_printf(struct config_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
