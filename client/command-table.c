/* The table of the client's commands (command-table.h), and what follows
 * from it: option parsing, help, and the refusal of what a build cannot
 * run.
 *
 * Adding a command: its entry here (name, run, needs, summary, usage,
 * about, options), its cmd_ function, its item in ramwatch(1) and its
 * case in completions/_ramwatch (test-command-table says what is
 * missing).  An option's val is what the command's getopt loop switches
 * on. */
#include "command-table.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "ask.h"
#include "commands.h"
#include "control-client.h"
#include "limits.h"
#include "macro.h"
#include "paths.h"
#include "query.h"
#include "units.h"
#include "util.h"

/* What only the Linux build runs: top (its screen is curses'), the
 * tracer.  Elsewhere the command is listed and refused by its needs.  The
 * daemon's other commands ask over the platform's channel
 * (control-channel.h: a Unix socket, or a named pipe on Windows); sql
 * reads a database file, which either platform's ramwatchd writes in one
 * format. */
#ifdef _WIN32
#define LINUX_ONLY(run) NULL
#else
#define LINUX_ONLY(run) run
#endif

/* ------------------------------------------------------------ shared options */

#ifdef _WIN32
#define OPTION_SOCKET                                                                                         \
	{ .name = "pipe", .arg = "NAME", .val = OPT_SOCKET,                                                    \
	  .help = "ramwatchd's pipe (default $" CONTROL_PIPE_ENV ", else " RW_PIPE_DEFAULT ")" }
#else
#define OPTION_SOCKET                                                                                         \
	{ .name = "socket", .arg = "PATH", .val = OPT_SOCKET,                                                  \
	  .help = "ramwatchd's socket (default $" CONTROL_SOCKET_ENV ", else " RW_SOCKET_DEFAULT ")",           \
	  .complete = COMPLETE_FILE }
#endif
#define OPTION_PID(what) { .name = "pid", .arg = "PID", .val = OPT_PID, .help = what, .complete = COMPLETE_PID }
#define OPTION_SINCE(what) \
	{ .name = "since", .arg = "TIME", .val = OPT_SINCE, .help = what, .complete = COMPLETE_TIME }
#define OPTION_UNTIL { .name = "until", .arg = "TIME", .val = OPT_UNTIL, .help = "to TIME (default: now)", \
		       .complete = COMPLETE_TIME }
#define OPTION_FORMAT(what, words) \
	{ .name = "format", .arg = "FORMAT", .val = OPT_FORMAT, .help = what, .complete = COMPLETE_WORDS, .values = words }
#define OPTION_END { .name = NULL }

#define TIME_HELP                                                                        \
	"TIME is 30s, 5min, 2h, 7d or 1h30min ago, now, 2026-11-29T14:00 (local time;\n" \
	"or with Z or +01:00), or @UNIXSECONDS.\n"

static const char *top_default(char *buf, size_t size)
{
	snprintf(buf, size, "%u", RW_TOP_DEFAULT);
	return buf;
}

/* ------------------------------------------------------------ scan, summary, diff */

#ifdef _WIN32
static const struct command_option scan_options[] = {
	{ .name = "name", .arg = "PATTERN", .val = 'n', .complete = COMPLETE_NAME,
	  .help = "the process with the most private memory whose image name matches the glob PATTERN" },
	{ .name = "capture", .arg = "FILE", .val = 'c', .complete = COMPLETE_FILE,
	  .help = "a captured region list (--save-regions), not a live process" },
	{ .name = "json", .val = 'j', .help = "print JSON (exact bytes; see ramwatch(1) for the fields)" },
	{ .name = "markdown", .val = 'm', .help = "print Markdown tables" },
	{ .name = "regions", .val = 'r',
	  .help = "list every reservation with its class and the rule that decided it" },
	{ .name = "top", .arg = "N", .val = 't', .help = "largest reservations and files to show (default %s)",
	  .fill = top_default },
	{ .name = "out", .arg = "FILE", .val = 'o', .help = "also save the census as JSON to FILE",
	  .complete = COMPLETE_FILE },
	{ .name = "save-regions", .arg = "FILE", .val = 'S', .complete = COMPLETE_FILE,
	  .help = "also save the region list the census was made from" },
	{ .name = "no-residency", .val = 'R', .help = "do not look up the working set (QueryWorkingSetEx)" },
	{ .name = "no-evidence", .val = 'E',
	  .help = "read nothing of the process's memory (heaps, stacks, command line)" },
	OPTION_END,
};
#define SCAN_USAGE "ramwatch scan [PID | --name PATTERN | --capture FILE] [OPTIONS]\n"
#define SCAN_ABOUT                                                                                 \
	"Takes a census of a process's memory: every reservation of its address space\n"            \
	"(VirtualQueryEx) classified, with totals by class, the largest reservations\n"              \
	"and the files.  Without PID or --name: the process with the most private memory.\n"
#define SCAN_FOOTER                                                                   \
	"Reading another user's process needs Administrator or SeDebugPrivilege;\n" \
	"protected processes cannot be read.\n"
#else
static const struct command_option scan_options[] = {
	{ .name = "name", .arg = "PATTERN", .val = 'n', .complete = COMPLETE_NAME,
	  .help = "the process with the most private memory whose name or command line matches the glob "
		  "PATTERN" },
	{ .name = "smaps", .arg = "FILE", .val = 's', .complete = COMPLETE_FILE,
	  .help = "a saved /proc/PID/smaps ('-': standard input)" },
	{ .name = "status", .arg = "FILE", .val = 'S', .complete = COMPLETE_FILE,
	  .help = "with --smaps: the saved /proc/PID/status of the same moment" },
	{ .name = "json", .val = 'j', .help = "print JSON (exact bytes; see ramwatch(1) for the fields)" },
	{ .name = "markdown", .val = 'm', .help = "print Markdown tables" },
	{ .name = "regions", .val = 'r', .help = "list every region with its class and the rule that decided it" },
	{ .name = "top", .arg = "N", .val = 't', .help = "largest regions and files to show (default %s)",
	  .fill = top_default },
	{ .name = "light", .val = 'l',
	  .help = "read maps and smaps_rollup only: no per-region page-table walk, for huge processes; classes "
		  "then have sizes but no memory counts" },
	{ .name = "gpu", .val = 'g',
	  .help = "show the GPU memory the process holds (NVML), or why it cannot be shown (by default: shown "
		  "for a process that uses a GPU)" },
	{ .name = "no-gpu", .val = 'G', .help = "do not ask NVML" },
	{ .name = "no-evidence", .val = 'E',
	  .help = "classify by shape alone: read nothing of the process's memory (by default, the headers "
		  "allocators wrote are read, only in resident pages, to confirm whose memory each region is)" },
	{ .name = "no-heap", .val = 'H',
	  .help = "read no allocator's own structures: how much of each class is in use or kept free stays "
		  "unknown (by default, glibc's arenas and the other allocators' heaps are walked after evidence, "
		  "only in resident pages)" },
	{ .name = "save-memory", .arg = "FILE", .val = 'W', .complete = COMPLETE_FILE,
	  .help = "save what evidence and the heap walks read as a memory image (with a copy of /proc/PID/smaps, the census can "
		  "be taken again with --memory)" },
	{ .name = "memory", .arg = "FILE", .val = 'M', .complete = COMPLETE_FILE,
	  .help = "with --smaps: read evidence from this memory image" },
	{ .name = "out", .arg = "FILE", .val = 'o', .help = "also save the census as JSON to FILE",
	  .complete = COMPLETE_FILE },
	{ .name = "proc", .arg = "DIR", .val = 'p', .help = "read processes from DIR instead of /proc",
	  .complete = COMPLETE_DIRECTORY },
	{ .name = "daemon", .val = 'd',
	  .help = "ramwatchd takes the census, with its rights (also done when reading PID is not permitted)" },
	OPTION_SOCKET,
	OPTION_END,
};
#define SCAN_USAGE "ramwatch scan [PID | --name PATTERN | --smaps FILE [--status FILE]] [OPTIONS]\n"
#define SCAN_ABOUT                                                                               \
	"Takes a census of a process's memory: every region of its address space\n"               \
	"classified by shape, with totals by class, the largest regions and the files.\n"        \
	"Without PID or --name: the process with the most private memory.\n"
#define SCAN_FOOTER NULL
#endif

static const struct command_option summary_options[] = {
	{ .name = "json", .val = 'j', .help = "print JSON" },
	{ .name = "markdown", .val = 'm', .help = "print Markdown tables" },
	{ .name = "regions", .val = 'r', .help = "list every region (a census saved with its regions)" },
	{ .name = "top", .arg = "N", .val = 't', .help = "largest regions and files to show (default %s)",
	  .fill = top_default },
	OPTION_END,
};

static const struct command_option diff_options[] = {
	{ .name = "markdown", .val = 'm', .help = "print Markdown tables (--format markdown)" },
	OPTION_FORMAT("text (default), markdown or json (times in unix seconds)", "text markdown json"),
	OPTION_PID("the process (its latest instance)"),
	{ .name = "from", .arg = "TIME", .val = 'f', .complete = COMPLETE_WORDS, .values = "first now 5min 1h",
	  .help = "the census taken at or before TIME; first: the first" },
	{ .name = "to", .arg = "TIME", .val = 't', .complete = COMPLETE_WORDS, .values = "last now",
	  .help = "the census taken at or before TIME (default now); last: the last" },
	OPTION_SOCKET,
	OPTION_END,
};

/* ------------------------------------------------------------ trace */

#define TRACE_SUMMARY_USAGE "ramwatch trace summary [OPTIONS] FILE|-\n"
#define TRACE_RECORD_USAGE "ramwatch trace record [OPTIONS] -o FILE -- COMMAND [ARGS...]\n"
#define TRACE_EXPORT_USAGE "ramwatch trace export [-o OUT] FILE|-\n"
#define TRACE_SUMMARY_ABOUT                                                                 \
	"Replays an allocation event trace (memtrace JSON Lines, format version 3, or\n"   \
	"the binary file of trace record) and reports what was kept, churned and how\n"   \
	"long it lived, by scope and by site, with a verdict on how complete the trace\n" \
	"is.  '-' reads standard input.\n"
#define TRACE_SUMMARY_FOOTER                                                                \
	"Exit status: 0 after a summary (the verdict is in it), 1 for unreadable input\n" \
	"or an invalid event (with its line number), 2 for bad arguments.\n"

static const char *trace_top_default(char *buf, size_t size)
{
	snprintf(buf, size, "%u", TRACE_SUMMARY_TOP_DEFAULT);
	return buf;
}

static const struct command_option trace_summary_options[] = {
	{ .name = "layer", .arg = "LAYER", .val = 'l', .complete = COMPLETE_WORDS,
	  .values = "backing logical physical",
	  .help = "backing, logical or physical (default: logical for a trace of ramwatch trace record, backing "
		  "for others)" },
	{ .name = "sort", .arg = "ORDER", .val = 's', .complete = COMPLETE_WORDS, .values = "retained traffic lifetime",
	  .help = "retained (default), traffic or lifetime" },
	{ .name = "top", .arg = "N", .val = 't', .help = "scopes and sites to show (default %s)",
	  .fill = trace_top_default },
	{ .name = "min-bytes", .arg = "SIZE", .val = 'm',
	  .help = "hide rows whose live, peak live and retained bytes are all below SIZE (bytes, or with a unit: "
		  "64K, 1.5M)" },
	{ .name = "include-zero-live", .val = 'z', .help = "also show rows that never held any bytes" },
	{ .name = "sites", .val = 'S', .help = "also rank allocation sites (return addresses)" },
	{ .name = "stacks", .val = 'K',
	  .help = "also rank the stacks of trace record --stack N, each with its frames (sites instead for a "
		  "trace without stacks)" },
	{ .name = "site", .arg = "ADDRESS", .val = 'a', .help = "sizes and scopes of one site (0x... or decimal)" },
	{ .name = "symbols", .arg = "BINARY", .val = 'y', .complete = COMPLETE_FILE,
	  .help = "name sites by function and source line from BINARY" },
	{ .name = "json", .val = 'j', .help = "write JSON Lines instead of text" },
	OPTION_END,
};

static const struct command_option trace_record_options[] = {
	{ .name = "output", .short_name = 'o', .arg = "FILE", .val = 'o', .complete = COMPLETE_FILE,
	  .help = "the trace (replaced if it exists)" },
	{ .name = "min-bytes", .arg = "SIZE", .val = 'm',
	  .help = "trace blocks of SIZE or more one by one, count smaller ones per site (default 4096; 0 traces "
		  "every call)" },
	{ .name = "stack", .arg = "N", .val = 's', .help = "frames per site (1, the caller, is what is recorded)" },
	{ .name = "scope-env", .arg = "VAR", .val = 'e',
	  .help = "the environment variable VAR names the current phase" },
	{ .name = "format", .arg = "FORMAT", .val = 'f', .complete = COMPLETE_WORDS, .values = "json binary",
	  .help = "json (JSON Lines) or binary (a few bytes an event; trace export gives its JSON Lines); "
		  "default: json when FILE ends in .jsonl or .json, binary otherwise" },
	OPTION_END,
};

static const struct command_option trace_export_options[] = {
	{ .name = "output", .short_name = 'o', .arg = "OUT", .val = 'o', .complete = COMPLETE_FILE,
	  .help = "write to OUT instead of standard output" },
	OPTION_END,
};

/* ------------------------------------------------------------ sql */

static const char *sql_db_default(char *buf, size_t size)
{
	snprintf(buf, size, "$%s, else %s", RW_DATABASE_ENV, RW_DATABASE_DEFAULT);
	return buf;
}

static const char *sql_timeout_default(char *buf, size_t size)
{
	char a[UNITS_FORMAT_MAX], b[UNITS_FORMAT_MAX];
	snprintf(buf, size, "%s, at most %s", units_format_duration(a, RW_SQL_TIMEOUT_DEFAULT_MS * UNITS_USEC_PER_MS),
		 units_format_duration(b, RW_SQL_TIMEOUT_MAX_MS * UNITS_USEC_PER_MS));
	return buf;
}

static const char *sql_rows_default(char *buf, size_t size)
{
	snprintf(buf, size, "%u, at most %u", RW_SQL_ROWS_DEFAULT, RW_SQL_ROWS_MAX);
	return buf;
}

static const char *sql_bytes_default(char *buf, size_t size)
{
	char a[UNITS_FORMAT_MAX];
	snprintf(buf, size, "%s", units_format_size(a, RW_SQL_BYTES_DEFAULT));
	return buf;
}

static const struct command_option sql_options[] = {
	{ .name = "db", .arg = "PATH", .val = 'd', .help = "the database (default %s)", .fill = sql_db_default,
	  .complete = COMPLETE_FILE },
	{ .name = "format", .arg = "FORMAT", .val = 'f', .complete = COMPLETE_WORDS, .values = "table csv json",
	  .help = "table (default), csv (RFC 4180) or json (an array of objects)" },
	{ .name = "timeout", .arg = "DURATION", .val = 't', .fill = sql_timeout_default,
	  .help = "time the query may take, seconds without a unit (default %s)" },
	{ .name = "max-rows", .arg = "N", .val = 'r', .fill = sql_rows_default,
	  .help = "rows to print, at most (default %s)" },
	{ .name = "max-bytes", .arg = "SIZE", .val = 'b', .fill = sql_bytes_default,
	  .help = "the result's size, at most: text and blob bytes, 8 for any other value; K, M, G for KiB, MiB, "
		  "GiB (default %s)" },
	OPTION_END,
};

/* ------------------------------------------------------------ the daemon's commands */

static const struct command_option status_options[] = {
	OPTION_FORMAT("text (default) or json", "text json"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option processes_options[] = {
	{ .name = "all", .val = 'a', .help = "also the processes that exited or are no longer watched" },
	{ .name = "sort", .arg = "KEY", .val = 's', .complete = COMPLETE_WORDS, .values = "private resident peak vram",
	  .help = "private (default), resident, peak (peak private) or vram (GPU memory)" },
	{ .name = "by", .arg = "KEY", .val = 'b', .complete = COMPLETE_WORDS, .values = "cgroup unit",
	  .help = "one row per cgroup or per systemd unit (service, scope): how many processes, their memory summed" },
	OPTION_FORMAT("table (default), csv or json (times in unix seconds)", "table csv json"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option history_options[] = {
	OPTION_PID("the process (its latest instance)"),
	{ .name = "name", .arg = "PATTERN", .val = OPT_NAME, .complete = COMPLETE_NAME,
	  .help = "every process whose name or command line matches the glob" },
	OPTION_SINCE("from TIME (default: one hour before --until)"),
	OPTION_UNTIL,
	{ .name = "class", .arg = "KEY", .val = 'c', .complete = COMPLETE_CLASS,
	  .help = "classes to show on census lines (repeat, or a,b,c)" },
	{ .name = "step", .arg = "DURATION", .val = 's',
	  .help = "one row per DURATION (30s, 5min, 1h): min, max and last" },
	OPTION_FORMAT("table (default), csv or json (times in unix seconds)", "table csv json"),
	{ .name = "cgroup", .arg = "PATH", .val = 'g',
	  .help = "a memory cgroup's timeline instead of a process's: its path below the controller's mount "
		  "(/system.slice/foo.service, as ramwatch cgroups lists it)" },
	{ .name = "unit", .arg = "NAME", .val = 'u',
	  .help = "the timeline of the memory cgroups of a systemd unit (foo.service, a container's scope)" },
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option oom_options[] = {
	OPTION_SINCE("from TIME (default: every kill stored)"),
	OPTION_UNTIL,
	{ .name = "cgroup", .arg = "PATH", .val = 'g',
	  .help = "only the kills in this memory cgroup or below it (the victim's group, or the one whose limit "
		  "was hit)" },
	OPTION_FORMAT("table (default), csv or json (times in unix seconds)", "table csv json"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option cgroups_options[] = {
	OPTION_FORMAT("table (default), csv or json (times in unix seconds)", "table csv json"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option report_options[] = {
	OPTION_PID("the process (its latest instance)"),
	OPTION_FORMAT("markdown (default) or json (times in unix seconds)", "markdown json"),
	{ .name = "out", .arg = "FILE", .val = OPT_OUT, .complete = COMPLETE_FILE,
	  .help = "write to FILE (atomically) instead of standard output" },
	{ .name = "html", .arg = "FILE", .val = 'H', .complete = COMPLETE_FILE,
	  .help = "write one self-contained HTML page to FILE (atomically): the same with charts of private and "
		  "resident memory and of the classes over time, marks drawn on them" },
	{ .name = "trace", .arg = "FILE", .val = 't', .complete = COMPLETE_FILE,
	  .help = "the process's allocation trace (ramwatch trace record): its live bytes beside the census's "
		  "malloc class" },
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option mark_options[] = {
	OPTION_PID("the process"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option events_options[] = {
	OPTION_PID("the process (its latest instance)"),
	OPTION_SINCE("from TIME"),
	OPTION_UNTIL,
	OPTION_FORMAT("json (default; times in unix seconds) or memtrace: a trace of the physical layer, one "
		      "scope per class, for 'ramwatch trace summary --layer physical -'",
		      "json memtrace"),
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option metrics_options[] = {
	OPTION_SOCKET,
	OPTION_END,
};

static const struct command_option top_options[] = {
	{ .name = "interval", .short_name = 'd', .arg = "DURATION", .val = 'd',
	  .help = "time between refreshes (default 2s, 100ms to 1h)" },
	{ .name = "window", .arg = "DURATION", .val = 'w',
	  .help = "the sparkline's and growth's window (default 5min)" },
	{ .name = "sort", .short_name = 's', .arg = "KEY", .val = 's', .complete = COMPLETE_WORDS,
	  .values = "private resident peak growth vram",
	  .help = "private (default), resident, peak, growth or vram" },
	{ .name = "by", .arg = "KEY", .val = 'b', .complete = COMPLETE_WORDS, .values = "none cgroup unit",
	  .help = "group the processes by memory cgroup or systemd unit, each group under a line of its sums "
		  "(default none; g in the view)" },
	{ .name = "once", .val = '1', .help = "print one screen as text and exit (no terminal needed)" },
	OPTION_SOCKET,
	OPTION_END,
};

/* ------------------------------------------------------------ the table */

static const struct command commands[] = {
	{
		.name = "scan",
		.run = cmd_scan,
		.summary = "take a census of one process's memory (or of a saved smaps file)",
		.usage = SCAN_USAGE,
		.about = SCAN_ABOUT,
		.options = scan_options,
		.footer = SCAN_FOOTER,
	},
	{
		.name = "summary",
		.run = cmd_summary,
		.summary = "print a saved census (JSON)",
		.usage = "ramwatch summary FILE.json [--markdown|--json] [--regions] [--top N]\n",
		.about = "Prints a census saved by 'ramwatch scan --out' or '--json' ('-': standard input).\n",
		.options = summary_options,
	},
	{
		.name = "diff",
		.run = cmd_diff,
		.summary = "compare two censuses (saved, or stored by ramwatchd), class by class",
		.usage = "ramwatch diff BEFORE.json AFTER.json [--markdown|--format FORMAT]\n"
			 "       ramwatch diff --pid PID --from TIME [--to TIME] [--markdown|--format FORMAT]\n"
			 "                     [--socket PATH]\n",
		.about = "Compares two censuses class by class (private and resident before, after and\n"
			 "change), largest changes first, then the files that came or went: two saved\n"
			 "census files, or the censuses ramwatchd stored for a process at or before\n"
			 "--from and --to (default: now, the last census).  For stored censuses, the\n"
			 "regions that appeared, grew, shrank or disappeared between them follow,\n"
			 "largest first.\n",
		.options = diff_options,
		.footer = TIME_HELP,
	},
	{
		.name = "trace",
		.run = cmd_trace,
		.summary = "replay an allocation event trace: what was kept, churned, and for how long",
		.usage = TRACE_SUMMARY_USAGE "       " TRACE_RECORD_USAGE "       " TRACE_EXPORT_USAGE,
		.about = TRACE_SUMMARY_ABOUT,
		.options = trace_summary_options,
		.footer = TRACE_SUMMARY_FOOTER,
	},
	{
		.name = "sql",
		.run = cmd_sql,
		.needs = COMMAND_NEEDS_DATABASE,
		.summary = "run one read-only SQL query on the database (table, CSV or JSON)",
		.usage = "ramwatch sql QUERY [--db PATH] [--format table|csv|json] [OPTIONS]\n",
		.about = "Runs one read-only SQL query on the ramwatch database and prints its rows\n"
			 "(QUERY '-': read from standard input).  The tables and views are described\n"
			 "in ramwatch-schema(7).  Only reading is allowed: SELECT (with WITH, VALUES,\n"
			 "EXPLAIN) and the PRAGMAs " QUERY_PRAGMAS ".\n",
		.options = sql_options,
		.footer = "Sizes and durations are written as in ramwatchd.conf (ramwatch(1), SIZES AND\n"
			  "DURATIONS): 1.5G, 512K; 1.5s, 2min, 1h 30min.\n",
	},
	{
		.name = "status",
		.run = cmd_status,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "how ramwatchd is doing",
		.usage = "ramwatch status [--format text|json] [--socket PATH]\n",
		.about = "How ramwatchd is doing: its version and uptime, configuration file, database\n"
			 "and its size, the processes it watches, censuses per minute, the census\n"
			 "budget used, censuses waiting for it, and the last errors it logged.\n",
		.options = status_options,
	},
	{
		.name = "processes",
		.run = cmd_processes,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "the processes ramwatchd watches, with their memory",
		.usage = "ramwatch processes [--all] [--sort private|resident|peak|vram] [--by cgroup|unit]\n"
			 "                          [--format table|csv|json] [--socket PATH]\n",
		.about = "The processes ramwatchd watches, largest first, with their private and resident\n"
			 "memory (the last sample), their peak, their GPU memory (where NVIDIA GPUs are)\n"
			 "and their last census.  With --by, one row per cgroup or systemd unit\n"
			 "instead.  Users other than root and members of group ramwatch\n"
			 "see their own processes only.\n",
		.options = processes_options,
	},
	{
		.name = "history",
		.run = cmd_history,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "a process's memory timeline: samples, censuses, marks",
		.usage = "ramwatch history (--pid PID | --name PATTERN) [--since TIME] [--until TIME]\n"
			 "                        [--class KEY...] [--step DURATION] [--format table|csv|json]\n"
			 "                        [--socket PATH]\n"
			 "       ramwatch history (--cgroup PATH | --unit NAME) [--since TIME] [--until TIME]\n"
			 "                        [--format table|csv|json] [--socket PATH]\n",
		.about = "The memory timeline ramwatchd stored: one line per sample row (private and\n"
			 "resident, with their maxima in the row's interval), the censuses with their\n"
			 "trigger and largest classes, and the marks, where they fall in time.  With\n"
			 "--cgroup or --unit, a memory cgroup's: its usage, limit, headroom, memory.stat,\n"
			 "the memory beyond its processes and its OOM kills, one line per row.\n",
		.options = history_options,
		.footer = TIME_HELP,
	},
	{
		.name = "report",
		.run = cmd_report,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "what happened to a process's memory, as Markdown",
		.usage = "ramwatch report --pid PID [--format markdown|json] [--out FILE] [--trace FILE]\n"
			 "                       [--socket PATH]\n"
			 "       ramwatch report --pid PID --html FILE [--socket PATH]\n",
		.about = "What ramwatchd recorded of a process, as Markdown: the peak and when, the peaks\n"
			 "of each phase (cut by marks), the classes, largest regions and mapped files of\n"
			 "the last census, the memory after each census, and what is new since the\n"
			 "census before the last (classes that grew, files newly mapped).\n",
		.options = report_options,
	},
	{
		.name = "mark",
		.run = cmd_mark,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "start a named phase of a process",
		.usage = "ramwatch mark --pid PID NAME [--socket PATH]\n",
		.about = "Starts a named phase of a watched process now (\"load\", \"training\"): reports\n"
			 "give each phase its peak, and ramwatchd takes a census at once.\n",
		.options = mark_options,
	},
	{
		.name = "oom",
		.run = cmd_oom,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "the processes the kernel killed for memory, and the census before each death",
		.usage = "ramwatch oom [--since TIME] [--until TIME] [--cgroup PATH]\n"
			 "                    [--format table|csv|json] [--socket PATH]\n",
		.about = "The OOM kills ramwatchd recorded, newest first: when, the victim, the cgroup\n"
			 "whose limit it hit (or the machine), that limit and the usage, the kernel's\n"
			 "figures, and the last census of the victim before its death.  Users other than\n"
			 "root and members of group ramwatch see the kills of their own processes only.\n",
		.options = oom_options,
		.footer = TIME_HELP,
	},
	{
		.name = "cgroups",
		.run = cmd_cgroups,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "the memory cgroups of watched processes: limit, usage, headroom, time to the limit",
		.usage = "ramwatch cgroups [--format table|csv|json] [--socket PATH]\n",
		.about = "The memory cgroups ramwatchd recorded (those that held watched processes),\n"
			 "largest first: their usage, the limit that applies, the headroom, the memory\n"
			 "the kernel charges them beyond their processes, how fast they grow and the time\n"
			 "to the limit at that growth, and their OOM kills.\n",
		.options = cgroups_options,
	},
	{
		.name = "events",
		.run = cmd_events,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "a process's region events (JSON, or memtrace for trace summary)",
		.usage = "ramwatch events --pid PID [--since TIME] [--until TIME]\n"
			 "                       [--format json|memtrace] [--socket PATH]\n",
		.about = "The region events ramwatchd recorded for a process: regions that appeared,\n"
			 "disappeared, grew or shrank between two censuses, oldest first.\n",
		.options = events_options,
	},
	{
		.name = "metrics",
		.run = cmd_metrics,
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "ramwatchd's metrics in Prometheus's text format",
		.usage = "ramwatch metrics [--socket PATH]\n",
		.about = "ramwatchd's metrics in Prometheus's text format, as the textfile it writes for\n"
			 "node_exporter holds them (Export= in ramwatchd.conf): memory per group of\n"
			 "processes (ExportGroupBy=) and per class, and the daemon's own counters.\n"
			 "A user outside group ramwatch gets the groups of their own processes only.\n",
		.options = metrics_options,
	},
	{
		.name = "top",
		.run = LINUX_ONLY(cmd_top),
		.needs = COMMAND_NEEDS_DAEMON,
		.summary = "a live view of the watched processes: memory, classes, history",
		.usage = "ramwatch top [-d|--interval DURATION] [--window DURATION] [--sort KEY]\n"
			 "                    [--by none|cgroup|unit] [--once] [--socket PATH]\n",
		.about = "A live view of the processes ramwatchd watches, largest first: their memory, a bar\n"
			 "split by the classes of their last census, and a sparkline of their private memory\n"
			 "over the window.  Users other than root and members of group ramwatch see their\n"
			 "own processes only.\n",
		.options = top_options,
		.footer = "Keys: P R E G V sort by private, resident, peak, growth, vram (s: the next);\n"
			  "arrows, j k, PgUp PgDn pick; Enter: the picked process's classes, census and marks\n"
			  "(Esc: back); g group by cgroup, by unit, none; / filter by name, u by user;\n"
			  "c take a census; m set a mark; q quit.\n",
	},

	/* the sub-commands of trace (cmd_trace dispatches) */
	{
		.name = "trace summary",
		.run = cmd_trace_summary,
		.usage = TRACE_SUMMARY_USAGE,
		.about = TRACE_SUMMARY_ABOUT,
		.options = trace_summary_options,
		.footer = TRACE_SUMMARY_FOOTER,
	},
	{
		.name = "trace record",
		.run = LINUX_ONLY(cmd_trace_record),
		.needs = COMMAND_NEEDS_TRACER,
		.usage = TRACE_RECORD_USAGE,
		.about = "Runs COMMAND with the allocation tracer preloaded and writes what it allocated\n"
			 "as a memtrace (format version 3) to FILE, for ramwatch trace summary.\n"
			 "Processes it forks write FILE.PID.  Exits with COMMAND's status.\n",
		.options = trace_record_options,
		.stop_at_operand = true,
	},
	{
		.name = "trace export",
		.run = cmd_trace_export,
		.usage = TRACE_EXPORT_USAGE,
		.about = "Writes the trace FILE (binary, or JSON Lines) as memtrace JSON Lines to OUT\n"
			 "or standard output: the interchange form of a binary trace.\n",
		.options = trace_export_options,
	},
};

const struct command *command_table_all(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(commands);
	return commands;
}

const struct command *command_table_find(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(commands[i].name, name))
			return &commands[i];
	return NULL;
}

const struct command_option *command_option_find(const struct command *c, const char *name)
{
	for (const struct command_option *o = c->options; o && o->name; o++)
		if (streq(o->name, name))
			return o;
	return NULL;
}

/* ------------------------------------------------------------ parsing */

int command_getopt(const struct command *c, int argc, char **argv)
{
	/* getopt_long keeps pointers to these between calls */
	static struct option longs[COMMAND_OPTIONS_MAX + 2];
	static char shorts[2 * COMMAND_OPTIONS_MAX + 3];
	static const struct command *built;

	if (built != c) {
		size_t n = 0, k = 0;
		if (c->stop_at_operand)
			shorts[k++] = '+';
		shorts[k++] = 'h';
		for (const struct command_option *o = c->options; o && o->name && n < COMMAND_OPTIONS_MAX; o++) {
			longs[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, NULL, o->val };
			if (o->short_name) {
				shorts[k++] = o->short_name;
				if (o->arg)
					shorts[k++] = ':';
			}
		}
		longs[n++] = (struct option){ "help", no_argument, NULL, 'h' };
		longs[n] = (struct option){ 0 };
		shorts[k] = '\0';
		built = c;
	}
	return getopt_long(argc, argv, shorts, longs, NULL);
}

/* ------------------------------------------------------------ help */

#define HELP_WIDTH 79
#define HELP_COLUMN 21

/* Writes text from column col on, wrapped at HELP_WIDTH, each further
 * line indented to indent. */
static void wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	bool first = true;

	for (const char *p = text; *p;) {
		size_t word = strcspn(p, " ");
		if (!first && col + 1 + word > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, word, f);
		col += word;
		p += word;
		first = false;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void command_help(const struct command *c, FILE *f)
{
	fprintf(f, "Usage: %s\n%s", c->usage, c->about);
	if (c->options && c->options->name)
		fputc('\n', f);
	for (const struct command_option *o = c->options; o && o->name; o++) {
		char label[64], text[1024], filled[256];
		int n = o->short_name ? snprintf(label, sizeof(label), "  -%c, --%s", o->short_name, o->name)
				      : snprintf(label, sizeof(label), "  --%s", o->name);
		if (o->arg)
			n += snprintf(label + n, sizeof(label) - (size_t)n, " %s", o->arg);
		fputs(label, f);
		if (o->fill)
			snprintf(text, sizeof(text), o->help, o->fill(filled, sizeof(filled)));
		else
			snprintf(text, sizeof(text), "%s", o->help);
		size_t col = (size_t)n;
		if (col + 2 > HELP_COLUMN) {
			fputs("  ", f);
			col += 2;
		} else {
			fprintf(f, "%*s", (int)(HELP_COLUMN - col), "");
			col = HELP_COLUMN;
		}
		wrap(f, text, col, HELP_COLUMN);
	}
	if (c->footer)
		fprintf(f, "\n%s", c->footer);
}

/* ------------------------------------------------------------ running */

int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("ramwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;
	fputs("ramwatch: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ramwatch %s%s--help'.\n", command ? command : "", command ? " " : "");
	return EXIT_USAGE;
}


/* The refusal of a command this build cannot run, by what it needs.
 * Only the Windows build lacks commands: top (whose screen is curses')
 * and trace record (the tracer is a Linux preload). */
static int refuse(const struct command *c)
{
	static const char also[] = "on Windows, ramwatch takes censuses itself (scan), reads saved ones "
				   "(summary, diff), summarises traces (trace summary), queries a database "
				   "file (sql --db) and asks ramwatchd.exe over its pipe (status, processes, "
				   "history, report, diff --pid, mark, events, metrics, oom, cgroups)";

	switch (c->needs) {
	case COMMAND_NEEDS_DAEMON:
		return fail("'%s' draws its screen with curses, which the Windows build lacks; %s", c->name, also);
	case COMMAND_NEEDS_DATABASE:
		return fail("'%s' reads what ramwatchd stored, which this build cannot; %s", c->name, also);
	case COMMAND_NEEDS_TRACER:
		return fail("'%s' runs a program under the Linux allocation tracer (LD_PRELOAD); on Windows, "
			    "ramwatch summarises traces recorded elsewhere (trace summary)",
			    c->name);
	case COMMAND_NEEDS_NOTHING:
		break;
	}
	return fail("'%s' is not part of this build", c->name);
}

int command_run(const struct command *c, int argc, char **argv)
{
	return c->run ? c->run(c, argc, argv) : refuse(c);
}
