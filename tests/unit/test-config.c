/* ramwatchd.conf from text: every setting parsed and formatted back, every
 * kind of error with its file, line and reason, the
 * bounds, the cross-check, list clearing, the limits of a text, and the
 * round trip through config_format.  The value parsers are in
 * test-config-values.c, files and drop-ins in test-config-files.c. */
#include "testlib.h"

#include <errno.h>
#include <math.h>

#include "config-internal.h"
#include "config.h"
#include "limits.h"
#include "text.h"

/* Parses text, which must succeed. */
static struct daemon_config parse_ok(const char *text)
{
	struct daemon_config c;
	struct error err = { 0 };
	int r = config_parse_text("test.conf", text, strlen(text), &c, &err);
	if (r < 0)
		fail_msg("parsing \"%s\": %d %s", text, r, err.message);
	return c;
}

/* Parses len bytes of text, which must fail with r and exactly msg, and
 * leave the output alone. */
static void expect_error_n(const char *text, size_t len, int r, const char *msg)
{
	struct daemon_config c, sentinel;
	struct error err = { 0 };

	memset(&c, 0x5a, sizeof(c));
	memcpy(&sentinel, &c, sizeof(c));
	int got = config_parse_text("test.conf", text, len, &c, &err);
	if (got != r || strcmp(err.message, msg) != 0)
		fail_msg("parsing \"%s\":\n  got      %d \"%s\"\n  expected %d \"%s\"", text, got, err.message, r, msg);
	assert_memory_equal(&c, &sentinel, sizeof(c));
}

static void expect_error(const char *text, int r, const char *msg)
{
	expect_error_n(text, strlen(text), r, msg);
}

static const char default_text[] = "# The effective configuration of ramwatchd; see ramwatchd.conf(5).\n"
				   "\n"
				   "[Watch]\n"
				   "Watch=all\n"
				   "Ignore=\n"
				   "MinPrivate=64M\n"
				   "MaxProcesses=1024\n"
				   "\n"
				   "[Sampling]\n"
				   "SampleInterval=1s\n"
				   "StoreInterval=10s\n"
				   "DiscoverInterval=5s\n"
				   "CensusInterval=5min\n"
				   "CensusOnGrowth=256M 5%\n"
				   "CensusMinSpacing=10s\n"
				   "InUseInterval=15min\n"
				   "ScanBudget=2%\n"
				   "HugeProcess=32G\n"
				   "Evidence=yes\n"
				   "ChangeWatch=yes\n"
				   "ProcessWatch=yes\n"
				   "SteadyCheckInterval=15min\n"
				   "\n"
				   "[Store]\n"
				   "Retention=30d\n"
				   "MaxDatabaseSize=1G\n"
				   "\n"
				   "[Export]\n"
				   "Export=no\n"
				   "ExportGroupBy=comm\n"
				   "\n"
				   "[OOM]\n"
				   "OOMWatch=yes\n"
				   "KernelLog=yes\n"
				   "NearLimit=90%\n"
				   "NearLimitAgain=97%\n"
				   "NearExhaustion=256M\n";

static void test_defaults(void **state)
{
	(void)state;
	struct daemon_config c;
	char buf[2048];

	config_defaults(&c);
	assert_int_equal(c.watch.n, 0); /* all */
	assert_int_equal(c.ignore.n, 0);
	assert_int_equal(c.min_private, 64 * MiB);
	assert_int_equal(c.max_processes, 1024);
	assert_int_equal(c.sample_interval, 1000000);
	assert_int_equal(c.store_interval, 10000000);
	assert_int_equal(c.discover_interval, 5000000);
	assert_int_equal(c.census_interval, 300000000);
	assert_true(c.census_on_growth);
	assert_int_equal(c.growth_bytes, 256 * MiB);
	assert_true(c.growth_ratio == 0.05);
	assert_int_equal(c.census_min_spacing, 10000000);
	assert_int_equal(c.in_use_interval, 900000000);
	assert_true(c.scan_budget == 0.02);
	assert_int_equal(c.huge_process, 32 * GiB);
	assert_true(c.evidence);
	assert_true(c.change_watch);
	assert_int_equal(c.retention, 30ull * 86400 * 1000000);
	assert_int_equal(c.max_database_size, GiB);
	assert_null(c.export_path);
	assert_int_equal(c.export_group_by, EXPORT_GROUP_COMM);

	assert_int_equal(config_format(&c, buf, sizeof(buf)), strlen(default_text));
	assert_string_equal(buf, default_text);

	/* an empty text is the defaults too */
	struct daemon_config e = parse_ok("");
	assert_int_equal(config_describe_changes(&c, &e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	config_done(&e);
	config_done(&c);
	config_done(NULL);
}

/* Each setting set away from its default: what describe_changes says and
 * what config_format writes. */
static void test_every_setting(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *change;
		const char *formatted;
	} cases[] = {
		{ "[Watch]\nWatch=name:postgres* user:root\n", "Watch: all -> name:postgres* user:root\n",
		  "Watch=name:postgres*\nWatch=user:root\n" },
		{ "[Watch]\nIgnore=pid:1\n", "Ignore: (none) -> pid:1\n", "Ignore=pid:1\n" },
		{ "[Watch]\nMinPrivate=1G\n", "MinPrivate: 64M -> 1G\n", "MinPrivate=1G\n" },
		{ "[Watch]\nMaxProcesses=10\n", "MaxProcesses: 1024 -> 10\n", "MaxProcesses=10\n" },
		{ "[Sampling]\nSampleInterval=500ms\n", "SampleInterval: 1s -> 500ms\n", "SampleInterval=500ms\n" },
		{ "[Sampling]\nStoreInterval=1min\n", "StoreInterval: 10s -> 1min\n", "StoreInterval=1min\n" },
		{ "[Sampling]\nDiscoverInterval=2.5s\n", "DiscoverInterval: 5s -> 2s 500ms\n",
		  "DiscoverInterval=2s 500ms\n" },
		{ "[Sampling]\nCensusInterval=90min\n", "CensusInterval: 5min -> 1h 30min\n",
		  "CensusInterval=1h 30min\n" },
		{ "[Sampling]\nCensusOnGrowth=10%, 1G\n", "CensusOnGrowth: 256M 5% -> 1G 10%\n",
		  "CensusOnGrowth=1G 10%\n" },
		{ "[Sampling]\nCensusMinSpacing=0\n", "CensusMinSpacing: 10s -> 0\n", "CensusMinSpacing=0\n" },
		{ "[Sampling]\nInUseInterval=1h\n", "InUseInterval: 15min -> 1h\n", "InUseInterval=1h\n" },
		{ "[Sampling]\nScanBudget=0.005\n", "ScanBudget: 2% -> 0.5%\n", "ScanBudget=0.5%\n" },
		{ "[Sampling]\nHugeProcess=0\n", "HugeProcess: 32G -> 0\n", "HugeProcess=0\n" },
		{ "[Sampling]\nEvidence=off\n", "Evidence: yes -> no\n", "Evidence=no\n" },
		{ "[Sampling]\nChangeWatch=no\n", "ChangeWatch: yes -> no\n", "ChangeWatch=no\n" },
		{ "[Sampling]\nProcessWatch=no\n", "ProcessWatch: yes -> no\n", "ProcessWatch=no\n" },
		{ "[Sampling]\nSteadyCheckInterval=0\n", "SteadyCheckInterval: 15min -> 0\n", "SteadyCheckInterval=0\n" },
		{ "[Store]\nRetention=1y\n", "Retention: 30d -> 1y\n", "Retention=1y\n" },
		{ "[Store]\nMaxDatabaseSize=0\n", "MaxDatabaseSize: 1G -> 0\n", "MaxDatabaseSize=0\n" },
		{ "[Export]\nExport=textfile:/var/lib/prometheus/node-exporter/ramwatch.prom\n",
		  "Export: no -> textfile:/var/lib/prometheus/node-exporter/ramwatch.prom\n",
		  "Export=textfile:/var/lib/prometheus/node-exporter/ramwatch.prom\n" },
		{ "[Export]\nExportGroupBy=unit\n", "ExportGroupBy: comm -> unit\n", "ExportGroupBy=unit\n" },
		{ "[OOM]\nOOMWatch=no\n", "OOMWatch: yes -> no\n", "OOMWatch=no\n" },
		{ "[OOM]\nKernelLog=no\n", "KernelLog: yes -> no\n", "KernelLog=no\n" },
		{ "[OOM]\nNearLimit=0\n", "NearLimit: 90% -> 0%\n", "NearLimit=0%\n" },
		{ "[OOM]\nNearLimitAgain=99%\n", "NearLimitAgain: 97% -> 99%\n", "NearLimitAgain=99%\n" },
		{ "[OOM]\nNearExhaustion=1G\n", "NearExhaustion: 256M -> 1G\n", "NearExhaustion=1G\n" },
	};
	struct daemon_config d;
	config_defaults(&d);

	/* a new setting needs a case here */
	assert_int_equal(ELEMENTSOF(cases), CONFIG_SETTINGS_N);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct daemon_config c = parse_ok(cases[i].text);
		char buf[2048];

		assert_int_equal(config_describe_changes(&d, &c, buf, sizeof(buf)), 1);
		assert_string_equal(buf, cases[i].change);
		assert_non_null(strstr(cases[i].change, config_settings[i].name));
		config_format(&c, buf, sizeof(buf));
		if (!strstr(buf, cases[i].formatted))
			fail_msg("\"%s\" formatted as:\n%s", cases[i].text, buf);
		config_done(&c);
	}
	config_done(&d);
}

static void test_values_land(void **state)
{
	(void)state;
	struct daemon_config c = parse_ok("[Watch]\n"
					  "Watch=name:postgres* exe:/usr/bin/redis-server\n"
					  "Ignore=user:0\n"
					  "MinPrivate=1.5G\n"
					  "[Sampling]\n"
					  "SampleInterval=250ms\n"
					  "StoreInterval=5s\n"
					  "DiscoverInterval=1s\n"
					  "CensusInterval=1h\n"
					  "CensusOnGrowth=1G,10%\n"
					  "CensusMinSpacing=30s\n"
					  "ScanBudget=0.5%\n"
					  "HugeProcess=64G\n"
					  "[Store]\n"
					  "Retention=90d\n"
					  "MaxDatabaseSize=10G\n");
	assert_int_equal(c.watch.n, 2);
	assert_int_equal(c.watch.v[0].kind, SELECTOR_NAME);
	assert_string_equal(c.watch.v[0].arg, "postgres*");
	assert_int_equal(c.watch.v[1].kind, SELECTOR_EXE);
	assert_int_equal(c.ignore.n, 1);
	assert_int_equal(c.ignore.v[0].kind, SELECTOR_USER);
	assert_int_equal(c.ignore.v[0].num, 0);
	assert_int_equal(c.min_private, 3 * GiB / 2);
	assert_int_equal(c.sample_interval, 250000);
	assert_int_equal(c.store_interval, 5000000);
	assert_int_equal(c.discover_interval, 1000000);
	assert_int_equal(c.census_interval, 3600000000);
	assert_true(c.census_on_growth);
	assert_int_equal(c.growth_bytes, GiB);
	assert_true(fabs(c.growth_ratio - 0.1) < 1e-15);
	assert_int_equal(c.census_min_spacing, 30000000);
	assert_true(fabs(c.scan_budget - 0.005) < 1e-15);
	assert_int_equal(c.huge_process, 64 * GiB);
	assert_int_equal(c.retention, 90ull * 86400 * 1000000);
	assert_int_equal(c.max_database_size, 10 * GiB);
	config_done(&c);

	/* Export=: the path is kept; "no" and an empty value turn it off */
	c = parse_ok("[Export]\nExport=textfile:/x/a.prom\nExportGroupBy=user\n");
	assert_string_equal(c.export_path, "/x/a.prom");
	assert_int_equal(c.export_group_by, EXPORT_GROUP_USER);
	config_done(&c);
	assert_null(c.export_path);
	static const char *const off[] = { "no", "off", "false", "NO", "" };
	for (size_t i = 0; i < ELEMENTSOF(off); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[Export]\nExport=textfile:/x/a.prom\nExport=%s\n", off[i]);
		c = parse_ok(text);
		assert_null(c.export_path);
		config_done(&c);
	}

	/* CensusOnGrowth=: the words turn it off; a part left out is 0 */
	static const struct {
		const char *value;
		bool on;
		uint64_t bytes;
		double ratio;
	} growth[] = {
		{ "no", false, 0, 0 },	     { "off", false, 0, 0 },	    { "false", false, 0, 0 },
		{ "1G", true, GiB, 0 },	     { "5%", true, 0, 0.05 },	    { "5% 1G", true, GiB, 0.05 },
		{ "1G , 5%", true, GiB, 0.05 }, { "0", true, 0, 0 },	    { "200%", true, 0, 2.0 },
	};
	for (size_t i = 0; i < ELEMENTSOF(growth); i++) {
		char text[128];
		snprintf(text, sizeof(text), "[Sampling]\nCensusOnGrowth=%s\n", growth[i].value);
		c = parse_ok(text);
		if (c.census_on_growth != growth[i].on || c.growth_bytes != growth[i].bytes ||
		    fabs(c.growth_ratio - growth[i].ratio) > 1e-15)
			fail_msg("CensusOnGrowth=%s: %d %llu %g", growth[i].value, c.census_on_growth,
				 (unsigned long long)c.growth_bytes, c.growth_ratio);
		config_done(&c);
	}
}

static void test_syntax(void **state)
{
	(void)state;
	struct daemon_config c;

	/* comments, blank lines, whitespace around '=', CRLF, a byte order mark */
	c = parse_ok("\xef\xbb\xbf# a comment\r\n"
		     "; another\r\n"
		     "   # indented comment\r\n"
		     "\r\n"
		     "  [Sampling]  \r\n"
		     "\tSampleInterval \t=\t 2s \r\n"
		     "StoreInterval=20s");
	assert_int_equal(c.sample_interval, 2000000);
	assert_int_equal(c.store_interval, 20000000);
	config_done(&c);

	/* the last assignment wins; an empty one restores the default */
	c = parse_ok("[Sampling]\nCensusInterval=1h\nCensusInterval=2h\n");
	assert_int_equal(c.census_interval, 7200000000);
	config_done(&c);
	c = parse_ok("[Sampling]\nCensusInterval=1h\nCensusInterval=\nScanBudget=5%\nScanBudget=\n"
		     "CensusOnGrowth=no\nCensusOnGrowth=\n[Watch]\nMinPrivate=0\nMinPrivate=");
	struct daemon_config d;
	config_defaults(&d);
	assert_int_equal(config_describe_changes(&d, &c, NULL, 0), 0);
	config_done(&c);

	/* a section may come back; settings after it belong to it */
	c = parse_ok("[Sampling]\nSampleInterval=2s\n[Store]\nRetention=1d\n[Sampling]\nStoreInterval=1min\n");
	assert_int_equal(c.sample_interval, 2000000);
	assert_int_equal(c.store_interval, 60000000);
	assert_int_equal(c.retention, 86400000000);
	config_done(&c);

	/* '#' and ';' inside a value are part of it */
	expect_error("[Sampling]\nSampleInterval=1s # one second\n", -EINVAL,
		     "test.conf:2: SampleInterval: '1s # one second' is not a time (use e.g. 500ms, 10s, 5min, 2h, 1d)");
	c = parse_ok("[Watch]\nWatch=cmdline:*;x\n");
	assert_string_equal(c.watch.v[0].arg, "*;x");
	config_done(&c);
	config_done(&d);
}

static void test_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int r;
		const char *msg;
	} cases[] = {
		{ "[Sampling]\nFoo=1\n", -EINVAL, "test.conf:2: unknown setting 'Foo' in section [Sampling]" },
		{ "[Sampling]\nsampleinterval=1s\n", -EINVAL,
		  "test.conf:2: unknown setting 'sampleinterval' in section [Sampling]" },
		{ "[Watch]\n\nSampleInterval=1s\n", -EINVAL,
		  "test.conf:3: unknown setting 'SampleInterval' in section [Watch] (it belongs in [Sampling])" },
		{ "# x\n[Foo]\n", -EINVAL, "test.conf:2: unknown section [Foo]" },
		{ "[sampling]\n", -EINVAL, "test.conf:1: unknown section [sampling]" },
		{ "[ Sampling ]\n", -EINVAL, "test.conf:1: unknown section [ Sampling ]" },
		{ "[]\n", -EINVAL, "test.conf:1: unknown section []" },
		{ "[Sampling\n", -EINVAL, "test.conf:1: '[Sampling' is not a section header (write [Name])" },
		{ "[Sampling] x\n", -EINVAL, "test.conf:1: '[Sampling] x' is not a section header (write [Name])" },
		{ "SampleInterval=1s\n", -EINVAL,
		  "test.conf:1: setting 'SampleInterval' comes before any section header" },
		{ "[Sampling]\nSampleInterval\n", -EINVAL,
		  "test.conf:2: 'SampleInterval' is not a setting (write Name=value)" },
		{ "[Sampling]\nSampleInterval: 1s\n", -EINVAL,
		  "test.conf:2: 'SampleInterval: 1s' is not a setting (write Name=value)" },
		{ "[Sampling]\n = 1s\n", -EINVAL, "test.conf:2: a setting without a name (write Name=value)" },
		{ "[Sampling]\nSampleInterval=5x\n", -EINVAL,
		  "test.conf:2: SampleInterval: '5x' is not a time (use e.g. 500ms, 10s, 5min, 2h, 1d)" },
		{ "[Sampling]\nSampleInterval=5ms\n", -ERANGE,
		  "test.conf:2: SampleInterval: '5ms' is out of range: it must be at least 10ms and at most 1h" },
		{ "[Watch]\nMinPrivate=12Q\n", -EINVAL,
		  "test.conf:2: MinPrivate: '12Q' is not a size (use e.g. 512K, 64M, 32G)" },
		{ "[Watch]\nMinPrivate=99999999999E\n", -ERANGE, "test.conf:2: MinPrivate: '99999999999E' is too large" },
		{ "[Watch]\nMaxProcesses=many\n", -EINVAL, "test.conf:2: MaxProcesses: 'many' is not a number" },
		{ "[OOM]\nNearLimit=5%\n", -ERANGE, "test.conf:2: NearLimit: '5%' is out of range: it must be 0 or at least 10% and at most 100%" },
		{ "[OOM]\nNearLimit=101%\n", -ERANGE, "test.conf:2: NearLimit: '101%' is out of range: it must be 0 or at least 10% and at most 100%" },
		{ "[OOM]\nNearExhaustion=512K\n", -ERANGE, "test.conf:2: NearExhaustion: '512K' is out of range: it must be 0 or at least 1M" },
		{ "[OOM]\nNearLimit=95%\nNearLimitAgain=90%\n", -ERANGE,
		  "test.conf:3: NearLimitAgain=90% is below NearLimit=95% (the second census comes nearer the limit than the first)" },
		{ "[Watch]\nMaxProcesses=0\n", -ERANGE,
		  "test.conf:2: MaxProcesses: '0' is out of range: it must be at least 1 and at most 65536" },
		{ "[Watch]\nMaxProcesses=99999999999999999999\n", -ERANGE,
		  "test.conf:2: MaxProcesses: '99999999999999999999' is out of range: it must be at least 1 and at most "
		  "65536" },
		{ "[Sampling]\nScanBudget=lots\n", -EINVAL,
		  "test.conf:2: ScanBudget: 'lots' is not a percentage (use e.g. 2%, 0.5%)" },
		{ "[Sampling]\nScanBudget=0.05%\n", -ERANGE,
		  "test.conf:2: ScanBudget: '0.05%' is out of range: it must be at least 0.1% and at most 100%" },
		{ "[Sampling]\nScanBudget=101%\n", -ERANGE,
		  "test.conf:2: ScanBudget: '101%' is out of range: it must be at least 0.1% and at most 100%" },
		{ "[Sampling]\nCensusOnGrowth=256M 5% 1G\n", -EINVAL,
		  "test.conf:2: CensusOnGrowth: '256M 5% 1G' is not a growth (use e.g. \"256M 5%\", \"1G\", \"10%\" "
		  "or \"no\")" },
		{ "[Sampling]\nCensusOnGrowth=5% 6%\n", -EINVAL,
		  "test.conf:2: CensusOnGrowth: '5% 6%' is not a growth (use e.g. \"256M 5%\", \"1G\", \"10%\" or "
		  "\"no\")" },
		{ "[Sampling]\nCensusOnGrowth=,\n", -EINVAL,
		  "test.conf:2: CensusOnGrowth: ',' is not a growth (use e.g. \"256M 5%\", \"1G\", \"10%\" or "
		  "\"no\")" },
		{ "[Sampling]\nCensusOnGrowth=yes\n", -EINVAL,
		  "test.conf:2: CensusOnGrowth: 'yes' is not a growth (use e.g. \"256M 5%\", \"1G\", \"10%\" or "
		  "\"no\")" },
		{ "[Sampling]\nCensusOnGrowth=1G 2000%\n", -ERANGE,
		  "test.conf:2: CensusOnGrowth: '1G 2000%' is out of range: it must be at most 1000%" },
		{ "[Sampling]\nEvidence=maybe\n", -EINVAL, "test.conf:2: Evidence: 'maybe' is not yes or no" },
		{ "[Store]\nMaxDatabaseSize=512K\n", -ERANGE,
		  "test.conf:2: MaxDatabaseSize: '512K' is out of range: it must be 0 or at least 1M" },
		{ "[Store]\nRetention=30min\n", -ERANGE,
		  "test.conf:2: Retention: '30min' is out of range: it must be at least 1h and at most 10y" },
		{ "[Watch]\nWatch=name:x proc:x\n", -EINVAL,
		  "test.conf:2: Watch: unknown selector 'proc:x' (use all, pid:N, name:GLOB, cmdline:GLOB, exe:PATH, "
		  "user:NAME or cgroup:PREFIX)" },
		{ "[Watch]\nWatch=user:no-such-user-ramwatch\n", -EINVAL,
		  "test.conf:2: Watch: unknown user 'no-such-user-ramwatch'" },
		{ "[Watch]\nIgnore=pid:0\n", -ERANGE, "test.conf:2: Ignore: '0' is not a process id (1 to 2147483647)" },
		{ "[Watch]\nIgnore=name:\n", -EINVAL,
		  "test.conf:2: Ignore: selector 'name:' needs an argument after 'name:'" },
		{ "[Export]\nExport=yes\n", -EINVAL,
		  "test.conf:2: Export: 'yes' is not an export (use textfile:/PATH.prom, or no)" },
		{ "[Export]\nExport=http:9100\n", -EINVAL,
		  "test.conf:2: Export: 'http:9100' is not an export (use textfile:/PATH.prom, or no)" },
		{ "[Export]\nExport=textfile:ramwatch.prom\n", -EINVAL,
		  "test.conf:2: Export: 'textfile:ramwatch.prom' is not an absolute path (use e.g. "
		  "textfile:/var/lib/prometheus/node-exporter/ramwatch.prom)" },
		{ "[Export]\n\nExport=textfile:/var/lib/prometheus/node-exporter/ramwatch.txt\n", -EINVAL,
		  "test.conf:3: Export: 'textfile:/var/lib/prometheus/node-exporter/ramwatch.txt' is not a file name "
		  "ending in .prom (node_exporter's textfile collector reads only *.prom files)" },
		{ "[Export]\nExport=textfile:/x/.prom\n", -EINVAL,
		  "test.conf:2: Export: 'textfile:/x/.prom' is not a file name ending in .prom (node_exporter's "
		  "textfile collector reads only *.prom files)" },
		{ "[Export]\nExport=textfile:/x/\n", -EINVAL,
		  "test.conf:2: Export: 'textfile:/x/' is not a file name ending in .prom (node_exporter's textfile "
		  "collector reads only *.prom files)" },
		{ "[Export]\nExportGroupBy=pid\n", -EINVAL,
		  "test.conf:2: ExportGroupBy: 'pid' is not a grouping (use comm, unit or user)" },
		{ "[Export]\nExportGroupBy=Comm\n", -EINVAL,
		  "test.conf:2: ExportGroupBy: 'Comm' is not a grouping (use comm, unit or user)" },
		/* the cross-check names the later of the two assignments */
		{ "[Sampling]\nSampleInterval=20s\n", -ERANGE,
		  "test.conf:2: StoreInterval=10s is shorter than SampleInterval=20s (StoreInterval must be at least "
		  "SampleInterval)" },
		{ "[Sampling]\nStoreInterval=500ms\n", -ERANGE,
		  "test.conf:2: StoreInterval=500ms is shorter than SampleInterval=1s (StoreInterval must be at "
		  "least SampleInterval)" },
		{ "[Sampling]\nStoreInterval=1s\nSampleInterval=2s\n", -ERANGE,
		  "test.conf:3: StoreInterval=1s is shorter than SampleInterval=2s (StoreInterval must be at least "
		  "SampleInterval)" },
		{ "[Sampling]\nSampleInterval=2s\n\nStoreInterval=1s\n", -ERANGE,
		  "test.conf:4: StoreInterval=1s is shorter than SampleInterval=2s (StoreInterval must be at least "
		  "SampleInterval)" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		expect_error(cases[i].text, cases[i].r, cases[i].msg);

	static const char nul[] = "[Sampling]\nSampleInterval=1s\0x\n";
	expect_error_n(nul, sizeof(nul) - 1, -EINVAL, "test.conf:2: line holds a NUL byte");

	/* a message past ERROR_MESSAGE_MAX (a section name of 700 two-byte
	 * characters, quoted) is cut whole characters at a time; without an
	 * error to fill, the code alone comes back */
	struct daemon_config c;
	struct error err;
	char line[2 + 700 * 2 + 1];
	line[0] = '[';
	for (size_t i = 0; i < 700; i++)
		memcpy(line + 1 + 2 * i, "\xc3\xa9", 2);
	line[1 + 1400] = ']';
	line[2 + 1400] = '\0';
	assert_int_equal(config_parse_text("test.conf", line, strlen(line), &c, &err), -EINVAL);
	assert_int_equal(err.code, -EINVAL);
	assert_int_equal(strlen(err.message), ERROR_MESSAGE_MAX - 1 - 1);
	assert_memory_equal(err.message, "test.conf:1: unknown section [\xc3\xa9", 32);
	assert_true(text_utf8_valid(err.message, strlen(err.message), NULL));
	assert_int_equal(config_parse_text("test.conf", "[Foo]", 5, &c, NULL), -EINVAL);
}

/* Each bound is accepted and a step past it refused. */
static void test_bounds(void **state)
{
	(void)state;
	static const char *const ok[] = {
		"[Sampling]\nSampleInterval=10ms\nStoreInterval=10ms",
		"[Sampling]\nSampleInterval=1h\nStoreInterval=1h",
		"[Sampling]\nStoreInterval=1d",
		"[Sampling]\nSampleInterval=1s\nStoreInterval=1s",
		"[Sampling]\nDiscoverInterval=100ms",
		"[Sampling]\nDiscoverInterval=1h",
		"[Sampling]\nCensusInterval=1s",
		"[Sampling]\nCensusInterval=7d",
		"[Sampling]\nCensusMinSpacing=0",
		"[Sampling]\nCensusMinSpacing=1d",
		"[Sampling]\nInUseInterval=0",
		"[Sampling]\nInUseInterval=7d",
		"[Sampling]\nSteadyCheckInterval=0",
		"[Sampling]\nSteadyCheckInterval=7d",
		"[Sampling]\nScanBudget=0.1%",
		"[Sampling]\nScanBudget=0.001",
		"[Sampling]\nScanBudget=100%",
		"[Sampling]\nScanBudget=1",
		"[Sampling]\nCensusOnGrowth=1000%",
		"[Sampling]\nHugeProcess=0",
		"[Sampling]\nHugeProcess=15E",
		"[Watch]\nMinPrivate=0",
		"[Watch]\nMaxProcesses=1",
		"[Watch]\nMaxProcesses=65536",
		"[Store]\nRetention=1h",
		"[Store]\nRetention=10y",
		"[Store]\nMaxDatabaseSize=0",
		"[Store]\nMaxDatabaseSize=1M",
	};
	static const char *const out[] = {
		"[Sampling]\nSampleInterval=9999us\nStoreInterval=10ms",
		"[Sampling]\nSampleInterval=1h 1us\nStoreInterval=1d",
		"[Sampling]\nStoreInterval=1d 1us",
		"[Sampling]\nDiscoverInterval=99ms",
		"[Sampling]\nDiscoverInterval=61min",
		"[Sampling]\nCensusInterval=999ms",
		"[Sampling]\nCensusInterval=7d 1s",
		"[Sampling]\nCensusMinSpacing=1d 1us",
		"[Sampling]\nInUseInterval=7d 1us",
		"[Sampling]\nSteadyCheckInterval=7d 1us",
		"[Sampling]\nScanBudget=0.09%",
		"[Sampling]\nScanBudget=0",
		"[Sampling]\nScanBudget=100.1%",
		"[Sampling]\nCensusOnGrowth=1000.1%",
		"[Watch]\nMaxProcesses=0",
		"[Watch]\nMaxProcesses=65537",
		"[Store]\nRetention=59min",
		"[Store]\nRetention=10y 1s",
		"[Store]\nMaxDatabaseSize=1048575",
		"[Store]\nMaxDatabaseSize=1",
	};
	for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
		struct daemon_config c = parse_ok(ok[i]);
		config_done(&c);
	}
	for (size_t i = 0; i < ELEMENTSOF(out); i++) {
		struct daemon_config c;
		struct error err;
		int r = config_parse_text("test.conf", out[i], strlen(out[i]), &c, &err);
		if (r != -ERANGE || !strstr(err.message, "is out of range: it must be"))
			fail_msg("\"%s\": %d %s", out[i], r, err.message);
	}
}

static void test_lists(void **state)
{
	(void)state;
	struct daemon_config c;

	/* several on a line, several lines: they add up */
	c = parse_ok("[Watch]\nWatch=pid:1  name:a\tname:b\nWatch=cgroup:/x\n");
	assert_int_equal(c.watch.n, 4);
	assert_string_equal(c.watch.v[2].arg, "b");
	assert_string_equal(c.watch.v[3].arg, "/x");
	config_done(&c);

	/* an empty assignment clears what came before */
	c = parse_ok("[Watch]\nWatch=pid:1 pid:2\nIgnore=pid:3\nWatch=\nWatch=pid:4\nIgnore=\n");
	assert_int_equal(c.watch.n, 1);
	assert_int_equal(c.watch.v[0].num, 4);
	assert_int_equal(c.ignore.n, 0);
	config_done(&c);

	/* "all" anywhere in Watch= is the one form of all: the empty list */
	c = parse_ok("[Watch]\nWatch=pid:1 all\n");
	assert_int_equal(c.watch.n, 0);
	config_done(&c);
	c = parse_ok("[Watch]\nWatch=all\nWatch=\nWatch=pid:5\n");
	assert_int_equal(c.watch.n, 1);
	config_done(&c);
	c = parse_ok("[Watch]\nWatch=\n");
	assert_int_equal(c.watch.n, 0);
	config_done(&c);
	/* Ignore=all stays what it says */
	c = parse_ok("[Watch]\nIgnore=all\n");
	assert_int_equal(c.ignore.n, 1);
	assert_int_equal(c.ignore.v[0].kind, SELECTOR_ALL);
	config_done(&c);
}

/* RW_SELECTORS_MAX selectors in a list, and one more. */
static void test_selectors_limit(void **state)
{
	(void)state;
	FILE *f;
	struct text t;
	char msg[128];

	for (unsigned extra = 0; extra <= 1; extra++) {
		f = text_open(&t);
		fprintf(f, "[Watch]\n");
		for (unsigned i = 1; i <= RW_SELECTORS_MAX + extra; i++)
			fprintf(f, "Ignore=pid:%u\n", i);
		char *text = text_close(&t);
		if (extra == 0) {
			struct daemon_config c = parse_ok(text);
			assert_int_equal(c.ignore.n, RW_SELECTORS_MAX);
			config_done(&c);
		} else {
			snprintf(msg, sizeof(msg), "test.conf:%u: Ignore: more than %u selectors", RW_SELECTORS_MAX + 2,
				 RW_SELECTORS_MAX);
			expect_error(text, -E2BIG, msg);
		}
		free(text);
	}
}

static void test_text_limits(void **state)
{
	(void)state;
	char msg[128];

	/* a line of exactly RW_CONFIG_LINE_MAX bytes (its newline not
	 * counted), then one byte more */
	for (unsigned extra = 0; extra <= 1; extra++) {
		size_t n = RW_CONFIG_LINE_MAX + extra;
		char *text = malloc(n + 32);
		assert_non_null(text);
		int k = sprintf(text, "[Watch]\nWatch=name:");
		size_t head = (size_t)k - strlen("[Watch]\n");
		memset(text + k, 'x', n - head);
		strcpy(text + k + (n - head), "\n");
		if (extra == 0) {
			struct daemon_config c = parse_ok(text);
			assert_int_equal(strlen(c.watch.v[0].arg), n - head);
			config_done(&c);
		} else {
			snprintf(msg, sizeof(msg), "test.conf:2: line longer than %u bytes", RW_CONFIG_LINE_MAX);
			expect_error(text, -E2BIG, msg);
		}
		free(text);
	}

	/* a text of exactly RW_CONFIG_FILE_MAX bytes, then one more */
	for (unsigned extra = 0; extra <= 1; extra++) {
		size_t n = RW_CONFIG_FILE_MAX + extra;
		char *text = malloc(n + 1);
		assert_non_null(text);
		memset(text, '#', n);
		for (size_t i = 79; i < n; i += 80)
			text[i] = '\n';
		text[n] = '\0';
		if (extra == 0) {
			struct daemon_config c = parse_ok(text);
			config_done(&c);
		} else {
			snprintf(msg, sizeof(msg), "test.conf: longer than %u bytes", RW_CONFIG_FILE_MAX);
			expect_error(text, -E2BIG, msg);
		}
		free(text);
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"",
		"[Watch]\nWatch=name:postgres* cmdline:*train.py* exe:/opt/*/bin/java user:root user:0 "
		"cgroup:/system.slice pid:42\nIgnore=all\nMinPrivate=1536\nMaxProcesses=7\n"
		"[Sampling]\nSampleInterval=1.25s\nStoreInterval=1h 1us\nDiscoverInterval=100ms\n"
		"CensusInterval=7d\nCensusOnGrowth=0.3%\nCensusMinSpacing=0\nInUseInterval=0\nScanBudget=0.123456789\n"
		"HugeProcess=1T\n[Store]\nRetention=10y\nMaxDatabaseSize=0\n",
		"[Sampling]\nCensusOnGrowth=no\nScanBudget=33.3%\n[Store]\nRetention=400d\nMaxDatabaseSize=1.5G\n",
		"[Sampling]\nCensusOnGrowth=1G\n[Watch]\nIgnore=pid:1\n",
		/* a path longer than any number */
		"[Export]\nExport=textfile:/var/lib/prometheus/node-exporter/a-rather-long-directory-name/"
		"and-another-one-below-it/ramwatch-metrics-of-this-host.prom\nExportGroupBy=user\n",
	};

	for (size_t i = 0; i < ELEMENTSOF(texts); i++) {
		struct daemon_config c = parse_ok(texts[i]);
		char *buf, *again, diff[2048];
		size_t n = config_format(&c, NULL, 0);

		buf = malloc(n + 1);
		assert_non_null(buf);
		assert_int_equal(config_format(&c, buf, n + 1), n);
		assert_int_equal(strlen(buf), n);

		struct daemon_config back = parse_ok(buf);
		if (config_describe_changes(&c, &back, diff, sizeof(diff)) != 0)
			fail_msg("%s\nparsed back with changes:\n%s", buf, diff);

		/* and the text is stable */
		again = malloc(n + 1);
		assert_non_null(again);
		assert_int_equal(config_format(&back, again, n + 1), n);
		assert_string_equal(again, buf);

		/* a cut buffer: the full length, a terminated prefix */
		char small[16];
		assert_int_equal(config_format(&c, small, sizeof(small)), n);
		assert_int_equal(strlen(small), sizeof(small) - 1);
		assert_memory_equal(small, buf, sizeof(small) - 1);

		free(again);
		free(buf);
		config_done(&back);
		config_done(&c);
	}
}

static void test_describe_changes(void **state)
{
	(void)state;
	struct daemon_config a = parse_ok("[Watch]\nWatch=name:a\n[Sampling]\nCensusOnGrowth=no\n");
	struct daemon_config b = parse_ok("[Watch]\nWatch=name:a name:b\n[Sampling]\nSampleInterval=500ms\n"
					  "CensusOnGrowth=1G\n[Store]\nRetention=1h\n");
	char buf[512];

	assert_int_equal(config_describe_changes(&a, &b, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "Watch: name:a -> name:a name:b\n"
				 "SampleInterval: 1s -> 500ms\n"
				 "CensusOnGrowth: no -> 1G\n"
				 "Retention: 30d -> 1h\n");
	assert_int_equal(config_describe_changes(&b, &a, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "Watch: name:a name:b -> name:a\n"
				 "SampleInterval: 500ms -> 1s\n"
				 "CensusOnGrowth: 1G -> no\n"
				 "Retention: 1h -> 30d\n");

	/* cut at size - 1, the count still whole */
	char small[10];
	assert_int_equal(config_describe_changes(&a, &b, small, sizeof(small)), 4);
	assert_string_equal(small, "Watch: na");
	assert_int_equal(config_describe_changes(&a, &a, small, sizeof(small)), 0);
	assert_string_equal(small, "");

	/* "off" thresholds do not count as a change */
	struct daemon_config c = parse_ok("[Sampling]\nCensusOnGrowth=no\n");
	c.growth_bytes = 1;
	assert_int_equal(config_describe_changes(&a, &c, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "Watch: name:a -> all\n");

	config_done(&a);
	config_done(&b);
	config_done(&c);
}

/* The installed file and the man page say what the table says. */
static void test_packaging_and_man(void **state)
{
	(void)state;
	struct daemon_config d, c;
	char defaults[2048];
	struct error err;
	size_t len;

	config_defaults(&d);
	config_format(&d, defaults, sizeof(defaults));

	/* every "Name=value" line of the defaults, commented out */
	char *conf = slurp("packaging/ramwatchd.conf", &len);
	char *man = slurp("man/ramwatchd.conf.5", &len);
	for (char *line = strtok(defaults, "\n"); line; line = strtok(NULL, "\n")) {
		char want[256];
		if (line[0] == '#' || line[0] == '[')
			continue;
		snprintf(want, sizeof(want), "\n#%s\n", line);
		if (!strstr(conf, want))
			fail_msg("packaging/ramwatchd.conf lacks %s", want + 1);
	}
	for (size_t i = 0; i < CONFIG_SETTINGS_N; i++) {
		char want[128];
		snprintf(want, sizeof(want), ".It Cm %s= Ns Ar", config_settings[i].name);
		if (!strstr(man, want))
			fail_msg("man/ramwatchd.conf.5 does not describe %s=", config_settings[i].name);
	}
	free(conf);
	free(man);

	/* and it loads to exactly the defaults */
	assert_int_equal(config_load("packaging/ramwatchd.conf", &c, &err), 0);
	assert_int_equal(config_describe_changes(&d, &c, NULL, 0), 0);
	config_done(&c);
	config_done(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),	  cmocka_unit_test(test_every_setting),
		cmocka_unit_test(test_values_land),	  cmocka_unit_test(test_syntax),
		cmocka_unit_test(test_errors),		  cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_lists),		  cmocka_unit_test(test_selectors_limit),
		cmocka_unit_test(test_text_limits),	  cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_describe_changes), cmocka_unit_test(test_packaging_and_man),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
