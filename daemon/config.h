/* ramwatchd's configuration: /etc/ramwatch/ramwatchd.conf and the *.conf
 * drop-ins in ramwatchd.conf.d/ (read in name order, later settings win; a
 * list setting such as Watch= adds, and an empty assignment "Watch=" clears
 * what came before, as in systemd's unit files).
 *
 * Every setting is one row of a table (name, section, kind, bounds,
 * default), so parsing, checking, the man page and "what changed" on a
 * reload all come from one place.  A bad file is refused whole with
 * "FILE:LINE: reason"; the caller keeps the configuration it had. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "selector.h"

/* Microseconds, as the event loop counts. */
typedef uint64_t config_usec_t;

/* ExportGroupBy=: what the "group" label of the metrics holds. */
enum export_group_by {
	EXPORT_GROUP_COMM, /* the command name */
	EXPORT_GROUP_UNIT, /* the systemd unit, from the cgroup v2 path */
	EXPORT_GROUP_USER, /* the user's name, else the uid */
	_EXPORT_GROUP_MAX
};

struct daemon_config {
	/* [Watch] */
	struct selector_list watch;  /* Watch=: empty means all */
	struct selector_list ignore; /* Ignore= */
	uint64_t min_private;        /* MinPrivate=, bytes */
	unsigned max_processes;      /* MaxProcesses=: followed at once, at most */

	/* [Sampling] */
	config_usec_t sample_interval;    /* SampleInterval= */
	config_usec_t store_interval;     /* StoreInterval= */
	config_usec_t discover_interval;  /* DiscoverInterval= */
	config_usec_t census_interval;    /* CensusInterval= */
	bool census_on_growth;            /* CensusOnGrowth=: "no", or the growth that triggers */
	uint64_t growth_bytes;            /*   at least this many bytes ... */
	double growth_ratio;              /*   ... and this fraction of the last census's private */
	config_usec_t census_min_spacing; /* CensusMinSpacing= */
	config_usec_t in_use_interval;    /* InUseInterval=: heap walks of interval censuses, at most this often */
	double scan_budget;               /* ScanBudget=: fraction of one CPU, 0.02 is 2 % */
	uint64_t huge_process;            /* HugeProcess=, resident bytes */
	bool evidence;                    /* Evidence=: read allocators' headers in censuses */
	bool change_watch;                /* ChangeWatch=: read statm only when the kernel says it moved */
	bool process_watch;               /* ProcessWatch=: discovery told of processes by BPF where it loads */
	config_usec_t steady_check_interval; /* SteadyCheckInterval=: the watch's word alone stands this long */

	/* [Store] */
	config_usec_t retention;   /* Retention= */
	uint64_t max_database_size; /* MaxDatabaseSize=, bytes; 0: no limit */

	/* [Export] */
	char *export_path;                    /* Export=textfile:PATH; NULL: no export */
	enum export_group_by export_group_by; /* ExportGroupBy= */

	/* [OOM] */
	bool oom_watch;            /* OOMWatch=: the BPF OOM watch where it loads */
	bool kernel_log;           /* KernelLog=: OOM kills read from /dev/kmsg */
	double near_limit;         /* NearLimit=: share of a cgroup's limit; 0: off */
	double near_limit_again;   /* NearLimitAgain=: a second census, nearer; 0: off */
	uint64_t near_exhaustion;  /* NearExhaustion=: MemAvailable under it, bytes; 0: off */
};

/* The defaults of config-table.c (documented in ramwatchd.conf(5)). */
void config_defaults(struct daemon_config *c);

/* Frees what c owns (selector lists, the export path); c may be reused
 * after config_defaults. */
void config_done(struct daemon_config *c);

/* Loads path (missing: the defaults) and then the *.conf files in path.d/
 * (a missing directory: none), each in its name's strcmp order.  Returns 0 with
 * *ret filled (owned by the caller, config_done), or a negative errno with
 * "FILE:LINE: reason" in err:
 *   -EINVAL  a bad line, an unknown section or setting, a bad value (an
 *            unknown user in a selector included)
 *   -ERANGE  a value out of its bounds, or two settings that disagree
 *   -E2BIG   a file or line longer than the limits, too many drop-ins or
 *            selectors (RW_CONFIG_*, RW_SELECTORS_MAX in limits.h)
 *   -errno   a file that exists but cannot be read (a directory: -EISDIR)
 * On failure *ret is untouched. */
int config_load(const char *path, struct daemon_config *ret, struct error *err);

/* The same from text, for tests and for "ramwatchd --check-config -":
 * name is used in messages. */
int config_parse_text(const char *name, const char *text, size_t len, struct daemon_config *ret, struct error *err);

/* Writes "Setting: old -> new" lines, one per setting that differs, into buf
 * (NUL-terminated, cut at size - 1).  Returns the number of settings that
 * changed. */
unsigned config_describe_changes(const struct daemon_config *old, const struct daemon_config *new, char *buf,
				 size_t size);

/* Writes the whole configuration as INI text (every setting, the defaults
 * included): what "ramwatchd --dump-config" prints.  Returns the length
 * that would have been written (snprintf-style). */
size_t config_format(const struct daemon_config *c, char *buf, size_t size);

/* Value parsers, exported for tests.  They take the whole string: no
 * leading or trailing garbage.  Sizes and times are units_parse_size and
 * units_parse_duration's (common/units.h), the grammar of every option.
 *   percent: "2%", "0.5%", or a plain fraction "0.02"
 *   bools:   yes/no, true/false, on/off, 1/0
 * Return 0 or -EINVAL / -ERANGE. */
int config_parse_percent(const char *s, double *ret);
int config_parse_bool(const char *s, bool *ret);

/* Export=: "textfile:PATH", PATH absolute and its file name ending in
 * ".prom" (node_exporter's textfile collector reads only those), or
 * "no"/"off"/"false" for none.  Returns 0 with *ret_path (newly
 * allocated; NULL for none), -EINVAL with why in err ("is not ...", to
 * follow the value), or -ENOMEM. */
int config_parse_export(const char *s, char **ret_path, struct error *err);
/* ExportGroupBy=: "comm", "unit" or "user".  Returns 0 or -EINVAL. */
int config_parse_group_by(const char *s, enum export_group_by *ret);
/* "comm", "unit", "user"; NULL out of range. */
const char *config_group_by_name(enum export_group_by g);

/* The reverse, in the forms people write ("2%", "0.5%"; sizes and times
 * are units_format_size and units_format_duration's); each parses back to
 * the same value.  Write into buf (at least CONFIG_VALUE_MAX bytes) and
 * return it. */
#define CONFIG_VALUE_MAX 64
char *config_format_percent(char *buf, double ratio);
