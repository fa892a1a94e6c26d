/* Every limit that input from outside can push against, in one place.
 * Each one has a test that goes past it (tests/unit, tests/integration). */
#pragma once

/* Bytes of /proc/PID/smaps handed to the parser at a time.  seq_file gives
 * at most a page per read() (1 KiB reads would double the kernel's cost, so
 * ask for whole pages and more); the buffer is filled by several reads. */
#define RW_SMAPS_READ_SIZE (64u * 1024u)

/* The longest line of smaps we accept.  A header line holds at most a path
 * of PATH_MAX bytes, which the kernel escapes ("\n" becomes "\012"), so real
 * lines stay far below this; a longer line is malformed input. */
#define RW_SMAPS_LINE_MAX (64u * 1024u)

/* Regions per census.  The kernel's default vm.max_map_count is 65530; a
 * raised limit can allow more, so the ceiling is generous, but it bounds the
 * memory a census of hostile input can take (about 300 bytes a region). */
#define RW_REGIONS_MAX (4u * 1024u * 1024u)

/* The longest a watched process with nothing in swap goes without its
 * status being read again while its statm stays the same (ramwatchd(8),
 * "Sampling"): the bound on a swap-out and a fault that cancel out in
 * statm's resident within one sample.  Processes with swap have theirs
 * read every StoreInterval. */
#define RW_STATUS_REFRESH_MS 60000

/* Processes whose statm changed while the change watch's flag stayed down
 * (ramwatchd(8), "Sampling") before the watch is trusted for none: below
 * it, only the processes missed are read every round.  A kernel may run
 * no tracepoint in the context of one process (a host's own agent, as on
 * some sandboxes' init); misses in several processes say it changes
 * counters by a way the events do not see, which may hide changes of
 * processes not yet checked. */
#define RW_WATCH_MISSES_MAX (3u)

/* The text of /proc/PID/statm read at most: seven 20-digit numbers fit
 * (7 * 21 bytes). */
#define RW_STATM_TEXT_MAX (256u)

/* Small /proc files (status, stat, cmdline, syscall): read whole, at most. */
#define RW_PROC_FILE_MAX (1024u * 1024u)

/* The command line kept in a census, in bytes (argv joined by spaces). */
#define RW_CMDLINE_MAX (4096u)

/* Descriptors below the RLIMIT_NOFILE soft limit the daemon keeps free of
 * watched processes' statm files, for the store, its clients and the
 * files a census or discovery opens for a moment: past it, a newly
 * watched process is sampled from status alone (two descriptors, not
 * three), so a low limit still lets as many processes be watched. */
#define RW_FD_RESERVE (32u)

/* Threads whose stack pointers are read to confirm stack regions. Above
 * this, stacks are recognised by their shape alone. */
#define RW_THREADS_MAX (16384u)

/* Saved census files (ramwatch summary / diff) are read whole, at most. */
#define RW_CENSUS_FILE_MAX (256u * 1024u * 1024u)
/* And the JSON values in one (arrays, objects and their members), at most,
 * counted before the file is parsed: jansson spends up to 150 bytes on a
 * value of two or three bytes of text ("[],"), so the size limit alone lets
 * a file take gigabytes.  A region is 15 values; this is 280,000 regions,
 * four times what the kernel's default vm.max_map_count allows, and about
 * 1 GiB of memory while the file is read. */
#define RW_CENSUS_VALUES_MAX (4u * 1024u * 1024u)

/* Largest regions and files a census keeps, by default and at most. */
#define RW_TOP_DEFAULT 20u
#define RW_TOP_MAX 100000u

/* evidence: what a census reads of a process's memory (scanner/evidence.c) */

/* Reads of a process's memory per census, at most (each 64 bytes at the
 * start of a resident page, batched).  A glibc block or a pymalloc pool
 * costs one; past the limit the regions left keep their shape, and the
 * census says so. */
#define RW_EVIDENCE_READS_MAX (65536u)

/* Resident pages read one after another in search of a header, in a
 * stretch of a region nothing was recognised in, before the search reads
 * only the first page of each run of resident pages (where a mapping that
 * follows an untouched tail starts).  A header after an unknown mapping
 * whose pages are all touched is found only within this many pages; a
 * process's own mmaps (a JVM's metaspace, say) would otherwise be read
 * page by page. */
#define RW_EVIDENCE_SEARCH_PAGES (32u)

/* Then the first pages of this many runs of resident pages, before the
 * rest of the stretch is given up (it keeps its shape, and says so): a
 * runtime's own memory, touched here and there, has many runs. */
#define RW_EVIDENCE_SEARCH_RUNS (16u)

/* Runs of anonymous regions smaller than this are not read: glibc maps
 * blocks of 128 KiB and more (its default mmap threshold), pymalloc arenas
 * of 256 KiB or 1 MiB, jemalloc and mimalloc larger still, and a process
 * of many tiny regions would pay for reads that cannot find anything. */
#define RW_EVIDENCE_MIN_SPAN (64u * 1024u)

/* A library's .bss (the image_bss shape) is searched for pymalloc's pools
 * in a Python process only from this size on: the smallest arena (256 KiB
 * before CPython 3.10), so that the small .bss of every other library is
 * not read. */
#define RW_EVIDENCE_BSS_ARENA_MIN (256u * 1024u)

/* Pages whose residency evidence asks about at a time, around the pages
 * it reads (a census's smaps has walked every page table already: asking
 * about all of them again would double its cost). */
#define RW_EVIDENCE_WINDOW_PAGES (64u)

/* Heap walks (scanner/heap-walk.h): the bytes of a process's memory the
 * walkers may read in one census, all together (a heap of small chunks is
 * read whole, a window of resident pages at a time, about 0.35 s a GiB on
 * one core here, BENCHMARKS.md: this bounds a census of a program with
 * tens of GiB of heap to well under a second; what the walks did not
 * reach is unknown), and how many more times a walk that did not check
 * out (the program moved its heap while it was read) is tried before its
 * memory is unknown. */
#define RW_HEAP_READ_MAX (1024ull * 1024u * 1024u)
#define RW_HEAP_RETRIES (3u)

/* A memory image (ramwatch scan --memory), read whole, at most, and the
 * bytes of one of its data records. */
#define RW_MEMIMAGE_MAX (64u * 1024u * 1024u)
#define RW_MEMIMAGE_DATA_MAX (4096u)

/* The JVM's hsperfdata file (scanner/heap-jvm.c), read whole, at most:
 * the largest -XX:PerfDataMemorySize HotSpot accepts.  A larger file is
 * not a JVM's and is not read. */
#define RW_HSPERF_FILE_MAX (2u * 1024u * 1024u)

/* An allocator's library, read whole, at most, to learn its version from
 * its own code (scanner/heap-mimalloc.c): Debian's libmimalloc is
 * 120 KiB.  A larger file is not read, and the allocator's figures are
 * unknown. */
#define RW_LIBRARY_READ_MAX (16u * 1024u * 1024u)

/* Thread caches of a tcmalloc process read, at most, by its heap walk
 * (scanner/heap-tcmalloc.c): two small reads each.  Past it the malloc
 * class is unknown, saying so. */
#define RW_TCMALLOC_THREADS_MAX (16384u)

/* trace analyzer */

/* The longest event line of a memtrace (ramwatch trace summary), newline
 * not counted.  The reference analyzer reads lines through a 64 KiB buffer,
 * so a trace it accepts has no longer line; real events take one or two
 * hundred bytes.
 * A longer line is refused with its number, which bounds the parser's
 * scratch memory whatever the input. */
#define RW_TRACE_LINE_MAX (64u * 1024u)
/* "object" events a trace may carry (a program's loaded objects); more is an invalid event */
#define RW_TRACE_OBJECTS_MAX 4096u
/* Stacks of ramwatch trace record --stack N: the distinct stack ids a trace
 * may define or name (the tracer gives out at most three quarters of its
 * 65536-entry table), and the frames one "stack" event may list (the tracer
 * writes at most 16).  More of either is an invalid event. */
#define RW_TRACE_STACKS_MAX 65536u
#define RW_TRACE_STACK_FRAMES_MAX 64u

/* sizes and durations (common/units.c), in the configuration and on the
 * command line */

/* The longest size or duration text, bytes: a real one is a few ("64M",
 * "1h 30min"); a longer one is refused as not a size or duration rather
 * than read, whatever the caller's own limit on its input. */
#define RW_UNITS_TEXT_MAX 256u

/* daemon configuration (ramwatchd.conf and its drop-ins) */

/* One configuration file, read whole, at most.  A real one is a few
 * kilobytes; the bound keeps a stray large file in ramwatchd.conf.d/ from
 * costing the daemon memory on every reload. */
#define RW_CONFIG_FILE_MAX (1024u * 1024u)

/* The longest line of a configuration file, newline not counted.  A longer
 * line is refused with its number rather than cut (a cut line would turn
 * its tail into a setting of its own). */
#define RW_CONFIG_LINE_MAX (4096u)

/* *.conf files read from ramwatchd.conf.d/, at most. */
#define RW_CONFIG_DROPINS_MAX (256u)

/* Selectors in one list (Watch= or Ignore=), at most: every one is tried
 * against every new process at discovery. */
#define RW_SELECTORS_MAX (1024u)

/* daemon: sampling and the census tier */

/* The census budget accrues for at most this long: after an idle spell the
 * censuses may burst by ScanBudget times this much CPU, no more. */
#define RW_BUDGET_WINDOW_US (60u * 1000u * 1000u)

/* Processes followed at once, at most (MaxProcesses= is bounded by it). */
#define RW_TARGETS_MAX 65536u

/* discovery (daemon/discover.c) */

/* Processes the proc connector told as new or changed, waiting for the
 * next pass, at most: past it they are forgotten and that pass lists the
 * proc root instead, which sees them all. */
#define RW_DISCOVER_DIRTY_MAX 16384u

/* With the proc connector, a pass that lists the proc root and reads every
 * process not known to be passed over comes at least this often: it sees
 * what no event tells (a command line rewritten in place, a move to
 * another cgroup) and forgets processes whose exit went untold. */
#define RW_DISCOVER_FULL_MS (5u * 60u * 1000u)

/* The receive buffer asked for the proc connector's socket, in bytes: a
 * burst of forks and exits between two turns of the loop must fit, or
 * discovery lists everything again.  About 4,000 events; kernel memory,
 * not the daemon's. */
#define RW_PROC_CONNECTOR_BUFFER (4u * 1024u * 1024u)

/* The proc connector's socket is read at most this often: its events only
 * mark processes for the next discovery pass, so reading each at once
 * bought nothing but a wake-up of the daemon for every fork, exec and exit
 * of the host.  The buffer above holds what comes in between on a host
 * that starts up to about 5,000 processes a second. */
#define RW_PROC_EVENTS_EVERY_US (250u * 1000u)

/* The process watch's ring (daemon/process-watch.c), in bytes, read as
 * often as the connector's socket: a record is 16 bytes with its header,
 * and a process makes four or five (new, exec, its new name, gone), so
 * it holds about 32,000 records, what a host starting 5,000 processes a
 * second makes in a second and a half.  Past it the kernel drops records,
 * counts them, and discovery lists everything again.  A power of two;
 * kernel memory, not the daemon's. */
#define RW_PROCESS_WATCH_RING (512u * 1024u)

/* Bytes of rows kept in memory while the store cannot be written (a full
 * disk, a locked database).  Past it the oldest rows are dropped, and
 * counted. */
#define RW_PENDING_MAX (16u * 1024u * 1024u)

/* Bytes of rows queued past which a census pass writes them at once rather
 * than at the next store tick: the first censuses of 1,000 processes, at
 * start, would otherwise be held for a whole StoreInterval, and were the
 * daemon's peak of resident memory (BENCHMARKS.md). */
#define RW_WRITER_EARLY_BYTES (1024u * 1024u)

/* The daemon's heap (daemon/malloc-tuning.h): free memory it keeps
 * rather than give back at once, and the block size from which glibc maps
 * a block of its own (a census of a process with a million mappings)
 * instead of taking it from the heap. */
#define RW_HEAP_KEEP_FREE (2u * 1024u * 1024u)
#define RW_HEAP_MMAP_THRESHOLD (1024u * 1024u)

/* A census's heap walks (in use and free, ramwatchd.conf(5)
 * InUseInterval=) stop this long after the census started at the latest,
 * whatever the budget holds: a client that asked waits for the census.
 * Reading 450 MiB of a glibc heap took 75 to 135 ms; this is some 15 GiB
 * of heap. */
#define RW_HEAP_WALK_MAX_US (5u * 1000u * 1000u)

/* Censuses of one pass of the census tier stop after this much wall time,
 * so the fast tier keeps its pace. */
#define RW_CENSUS_PASS_US (250u * 1000u)

/* A region that keeps its place is a region event when its private memory
 * moved by at least this much (or its size changed). */
#define RW_REGION_EVENT_MIN_CHANGE (1024u * 1024u)

/* In use or kept over time (scanner/heap-trend.c, ramwatch report) */

/* A class grew between two censuses when its private memory rose by at
 * least this much; below it the walks' figures move by a few chunks and
 * pages, which says nothing of a leak or a free list.  Its in use or its
 * free memory rose when it rose by this much too. */
#define RW_HEAP_GROWTH_MIN (1024u * 1024u)

/* A slow, steady rise of a class's memory in use (a leak that no single
 * growth census shows): among the last RW_HEAP_RISE_CENSUSES censuses that
 * read its figures, in use rose from one to the next at least
 * RW_HEAP_RISE_MIN times, over at least RW_HEAP_RISE_SPAN_MS, and by at
 * least RW_HEAP_RISE_BYTES from the first to the last.  At the default
 * InUseInterval (15 minutes) eight censuses span an hour and three
 * quarters; a program that only warms up (its caches fill, then stop)
 * rises in the first few and then holds, and is not flagged. */
#define RW_HEAP_RISE_CENSUSES 8u
#define RW_HEAP_RISE_MIN 6u
#define RW_HEAP_RISE_SPAN_MS (60u * 60u * 1000u)
#define RW_HEAP_RISE_BYTES (1024u * 1024u)

/* The censuses the report names for a class's growth (those where its in
 * use or its free memory rose), at most: the latest; it says how many
 * there are in all.  A process watched for weeks has thousands. */
#define RW_REPORT_HEAP_CENSUSES 10u

/* A census is stored as the changes from its process's key census
 * (ramwatch-schema(7), DELTAS) when they are at most this percent of its
 * rows and the key has fewer than RW_CENSUS_DELTAS_MAX deltas; otherwise
 * it is a key itself.  The bound on deltas bounds the work of re-keying
 * when retention deletes a key. */
#define RW_CENSUS_DELTA_PERCENT 50u
#define RW_CENSUS_DELTAS_MAX 32u

/* Retention works in steps of at most this many rows, and at most this
 * many steps per run, so the store stays responsive. */
#define RW_RETENTION_BATCH 2000u
#define RW_RETENTION_STEPS 50u

/* The wall clock moving against the monotonic clock by more than this
 * between two readings is a jump, logged (daemon/daemon-clock.h); less is
 * the slewing of NTP or the time between the two readings. */
#define RW_CLOCK_JUMP_MS 5000

/* PRAGMA quick_check of the database at start stops after this long: the
 * daemon must be up within systemd's start timeout (90 s by default)
 * whatever the size, and a 1 GiB database (MaxDatabaseSize's default)
 * took up to 28 s from a cold page cache, 8 s from a warm one
 * (BENCHMARKS.md).
 * What the bound left unchecked is found as it is read and written. */
#define RW_STORE_CHECK_MS 45000u

/* the control socket (doc/protocol.md, "Limits") */

/* One request line, newline included. */
#define RW_REQUEST_MAX (64u * 1024u)
/* Connections at once; more are answered "busy" and closed. */
#define RW_CLIENTS_MAX 64u
/* Time per request, and for a scan (which waits for a census). */
#define RW_REQUEST_TIMEOUT_US (10u * 1000u * 1000u)
#define RW_SCAN_TIMEOUT_US (60u * 1000u * 1000u)
/* A connection without a complete request for this long is closed. */
#define RW_IDLE_TIMEOUT_US (60u * 1000u * 1000u)
/* Rows per answer (history samples, events, processes), at most; the
 * default when the request gives no limit. */
#define RW_ANSWER_ROWS_MAX 100000u
#define RW_ANSWER_ROWS_DEFAULT 10000u
/* The growth of a memory cgroup's usage ("cgroups": the time to its
 * limit) is measured over its rows of this long before its latest. */
#define RW_CGROUP_GROWTH_WINDOW_MS (5u * 60u * 1000u)
/* One answer line, at most. */
#define RW_ANSWER_MAX (64u * 1024u * 1024u)
/* A mark's name, bytes. */
#define RW_MARK_NAME_MAX 200u

/* metrics (Export=, ramwatch metrics) */

/* A group's label value, bytes, at most: a cgroup path that names no unit
 * can be long, and a label value that long is a key no one types.  A longer
 * one is cut at a character's start. */
#define RW_EXPORT_GROUP_MAX 256u

/* ramwatch sql: one read-only query on the database (schema/query.c) */

/* Time SQLite may spend on a query (its own work, not the time taken to
 * write the rows out): the default, and the most --timeout accepts. */
#define RW_SQL_TIMEOUT_DEFAULT_MS (10u * 1000u)
#define RW_SQL_TIMEOUT_MAX_MS (3600u * 1000u)
/* Rows of a result: the default, and the most --max-rows accepts. */
#define RW_SQL_ROWS_DEFAULT 100000u
#define RW_SQL_ROWS_MAX 100000000u
/* Size of a result: text and blobs count their bytes, any other value 8.
 * The default, and the most --max-bytes accepts. */
#define RW_SQL_BYTES_DEFAULT (64ull * 1024u * 1024u)
#define RW_SQL_BYTES_MAX (4ull * 1024u * 1024u * 1024u)
/* The text of a query (SQLITE_LIMIT_SQL_LENGTH); a Grafana panel's query
 * takes a few hundred bytes. */
#define RW_SQL_TEXT_MAX (1024u * 1024u)
/* The longest string or blob a query may read or build
 * (SQLITE_LIMIT_LENGTH; SQLite's own is 1 GB): zeroblob(1e9) and a string
 * doubled in a recursive query stop here.  The store's longest values are
 * command lines and paths, a few KiB. */
#define RW_SQL_VALUE_MAX (16u * 1024u * 1024u)
/* Memory SQLite may hold for the query: sorting, grouping, DISTINCT and
 * temporary tables, all kept in memory (sqlite3_hard_heap_limit64). */
#define RW_SQL_MEMORY_MAX (256u * 1024u * 1024u)
/* Columns of a result (SQLITE_LIMIT_COLUMN), the depth of an expression
 * (SQLITE_LIMIT_EXPR_DEPTH), the SELECTs of a compound (UNION ...,
 * SQLITE_LIMIT_COMPOUND_SELECT) and a LIKE or GLOB pattern's length
 * (SQLITE_LIMIT_LIKE_PATTERN_LENGTH): each far above what a real query
 * needs and below SQLite's own defaults (2000, 1000, 500, 50000). */
#define RW_SQL_COLUMNS_MAX 256u
#define RW_SQL_EXPR_DEPTH_MAX 200u
#define RW_SQL_COMPOUND_MAX 64u
#define RW_SQL_PATTERN_MAX 1000u

/* GPU memory (scanner/gpu*.c): what NVML is asked and believed, at most */

/* GPUs looked at (NVML's device count); more are left out.  Each may hold
 * MIG instances, RW_GPU_MIG_MAX of them at most (NVIDIA's largest split
 * is 7). */
#define RW_GPU_DEVICES_MAX 64u
#define RW_GPU_MIG_MAX 16u
/* Processes in one device's compute or graphics list.  NVML says how many
 * it has when the buffer is too small; the buffer grows to that, never
 * past this, and a device with more is reported as an error. */
#define RW_GPU_PROCESSES_MAX 16384u

/* errors (common/error.h): what a failure says, at most */

/* Bytes of an error's message, its NUL included.  The longest messages
 * quote what came from outside (a configuration line, a path, a daemon's
 * answer); past this they are cut at a UTF-8 character boundary, so a
 * message stays valid text wherever it is shown or sent. */
#define RW_ERROR_MESSAGE_MAX 1024u

/* Windows processes (daemon/windows/): every process at once, from one
 * NtQuerySystemInformation(SystemProcessInformation) call */

/* Processes in one snapshot, at most: a buffer with more records is
 * refused (a Windows machine runs hundreds, a busy server a few
 * thousand). */
#define RW_WIN_PROCS_MAX (65536u)
/* Bytes the snapshot's buffer grows to, at most: a record is 256 bytes
 * and 80 more per thread, so this holds 65,536 processes of 8 threads. */
#define RW_WIN_PROCS_BUFFER_MAX (64u * 1024u * 1024u)
/* UTF-16 units of an image name kept; a longer one is cut at a character
 * (Windows's own names are file names, at most MAX_PATH). */
#define RW_WIN_PROC_NAME_MAX (260u)

/* The census before death (near-limit.h): the largest watched processes
 * of a memory cgroup near its limit (or of the host near exhaustion) that
 * get a census at once. */
#define RW_NEAR_LIMIT_CENSUSES 3

/* Processes let go at their exit kept a moment for the OOM kill that may
 * have ended them (manager-oom.c): a burst of kills larger than this
 * within seconds records the oldest victims as not watched. */
#define RW_RECENT_EXITS 64
