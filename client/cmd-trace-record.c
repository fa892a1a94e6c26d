/* ramwatch trace record: runs a command under the allocation tracer
 * (libramwatch-trace.so, preloaded) and writes its memtrace.
 *
 * The library is looked for in $RAMWATCH_TRACE_LIBRARY, then next to this
 * binary (the build tree), then in the installed library directory.  The
 * command's exit status is this one's (128 + the signal when a signal
 * ended it); the trace is replayed, as it is written and to its end once
 * the command has ended, for the one-line summary on standard error. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "macro.h"
#include "trace-analyzer.h"
#include "trace-integrity.h"
#include "trace-parse.h"
#include "trace-replay.h"
#include "units.h"
#include "util.h"

#ifndef RAMWATCH_LIBDIR
#define RAMWATCH_LIBDIR "/usr/local/lib/ramwatch"
#endif
#define TRACER_NAME "libramwatch-trace.so"
#define STACK_MAX 16u

/* The tracer: $RAMWATCH_TRACE_LIBRARY, beside this binary, or installed. */
static int find_library(char *ret, size_t size)
{
	const char *env = getenv("RAMWATCH_TRACE_LIBRARY");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		if (access(env, R_OK) < 0)
			return fail("RAMWATCH_TRACE_LIBRARY=%s: %s", env, strerror(errno));
		snprintf(ret, size, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		if ((slash = strrchr(exe, '/'))) {
			*slash = 0;
			if ((size_t)snprintf(ret, size, "%s/%s", exe, TRACER_NAME) < size && access(ret, R_OK) == 0)
				return 0;
		}
	}
	if ((size_t)snprintf(ret, size, "%s/%s", RAMWATCH_LIBDIR, TRACER_NAME) < size && access(ret, R_OK) == 0)
		return 0;
	return fail("cannot find %s beside %s or in %s (set RAMWATCH_TRACE_LIBRARY)", TRACER_NAME,
		    n > 0 ? exe : "this program", RAMWATCH_LIBDIR);
}

/* path made absolute: the traced program may change directory. */
static int absolute(const char *path, char *ret, size_t size)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return (size_t)snprintf(ret, size, "%s", path) < size ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return (size_t)snprintf(ret, size, "%s/%s", cwd, path) < size ? 0 : -ENAMETOOLONG;
}

/* Prepends value to the variable name, colon-separated. */
static int prepend_env(const char *name, const char *value)
{
	const char *old = getenv(name);
	_cleanup_free_ char *v = NULL;

	if (old && *old) {
		if (asprintf(&v, "%s:%s", value, old) < 0)
			return -ENOMEM;
		return setenv(name, v, 1) < 0 ? -errno : 0;
	}
	return setenv(name, value, 1) < 0 ? -errno : 0;
}

/* The "dropped" count of the last trace.stop, from the file's end. */
static uint64_t dropped_of(const char *path)
{
	static const char key[] = "\"kind\":\"trace.stop\",\"dropped\":";
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[4097];
	uint64_t v = 0;
	struct stat st;
	ssize_t n;
	char *p;

	if (fd < 0 || fstat(fd, &st) < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, st.st_size > 4096 ? st.st_size - 4096 : 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* memmem: a binary file's records may hold zero bytes */
	if (!(p = memmem(buf, (size_t)n, key, sizeof(key) - 1)))
		return 0;
	for (p += sizeof(key) - 1; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

/* The command, while the trace is replayed as it writes it. */
struct command_run {
	pid_t pid;
	int status;
	int error; /* waitpid's errno, 0 */
	bool done;
};

/* Whether the command may still write: false once it was waited for.
 * While it runs, waits a little first, for more of the trace to come. */
static bool command_running(void *data)
{
	struct command_run *c = data;
	struct timespec pause = { .tv_nsec = 2 * 1000 * 1000 };

	if (c->done)
		return false;
	pid_t r = waitpid(c->pid, &c->status, WNOHANG);
	if (r == c->pid || (r < 0 && errno != EINTR)) {
		c->error = r < 0 ? errno : 0;
		c->done = true;
		return false;
	}
	nanosleep(&pause, NULL);
	return true;
}

/* Waits for the command to end.  Returns 0 or a negative errno. */
static int command_wait(struct command_run *c)
{
	while (!c->done) {
		pid_t r = waitpid(c->pid, &c->status, 0);
		if (r == c->pid || (r < 0 && errno != EINTR)) {
			c->error = r < 0 ? errno : 0;
			c->done = true;
		}
	}
	return -c->error;
}

/* The trace the command writes, once its first traced process made it;
 * -1 (errno set) when it ended without. */
static int open_trace(const char *path, struct command_run *c)
{
	for (;;) {
		/* asked before the open: a command that made the file and
		 * ended in between still has its trace read */
		bool running = !c->done;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 || errno != ENOENT || !running)
			return fd;
		command_running(c);
	}
}

/* One line on standard error: what the trace holds.  The trace is
 * replayed while the command writes it (on a CPU the command leaves
 * idle), to its end once the command has ended. */
static void print_summary(const char *path, struct command_run *c)
{
	/* the line prints the trace's totals only: scopes and lifetimes,
	 * most of a replay's work, are left out */
	struct trace_replay_options ro = { .layer = TRACE_LAYER_LOGICAL, .totals_only = true };
	struct trace_analyzer a;
	struct trace_parser parser;
	struct trace_replay_error err;
	struct trace_integrity in;
	char b1[32], b2[32];
	int fd = open_trace(path, c), r;

	if (fd < 0) {
		fprintf(stderr, "ramwatch trace record: no trace was written to %s: %s\n", path, strerror(errno));
		return;
	}
	trace_analyzer_init(&a, &ro);
	trace_parser_init(&parser);
	r = trace_replay_follow(&a, &parser, fd, command_running, c, &err);
	/* a trace refused before its end: the command still runs to its end */
	command_wait(c);
	if (r < 0) {
		fprintf(stderr, "ramwatch trace record: %s: %s %" PRIu64 ": %s\n", path,
			err.binary ? "record" : "line", err.line,
			err.error.message);
	} else {
		trace_integrity_of(&a, &in);
		fprintf(stderr,
			"ramwatch trace record: %s: %" PRIu64 " events, %s in %" PRIu64
			" allocations, %s live at the end, %" PRIu64 " dropped, trace %s\n",
			path, a.events, units_format_size(b1, a.totals.c.allocated_bytes), a.totals.c.allocations,
			units_format_size(b2, a.totals.c.live_bytes), dropped_of(path), in.status);
	}
	trace_parser_done(&parser);
	trace_analyzer_done(&a);
	close(fd);
}

/* Removes the traces an earlier recording to path left for its other
 * processes (path.PID), which this one's would be mixed with. */
static int remove_other_traces(const char *path)
{
	_cleanup_free_ char *pattern = NULL;
	glob_t g = { 0 };
	int r = 0;

	if (asprintf(&pattern, "%s.[0-9]*", path) < 0)
		return -ENOMEM;
	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc && r == 0; i++) {
			const char *pid = g.gl_pathv[i] + strlen(path) + 1;
			if (strspn(pid, "0123456789") == strlen(pid) && unlink(g.gl_pathv[i]) < 0 && errno != ENOENT)
				r = fail("cannot remove %s: %s", g.gl_pathv[i], strerror(errno));
		}
	globfree(&g);
	return r;
}

/* Says how many other processes wrote traces beside the command's
 * (FILE.PID: children it forked, programs exec'd). */
static void note_other_traces(const char *path)
{
	_cleanup_free_ char *pattern = NULL;
	glob_t g = { 0 };

	if (asprintf(&pattern, "%s.[0-9]*", path) < 0)
		return;
	if (glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0)
		fprintf(stderr, "ramwatch trace record: %zu more trace%s of the processes it forked or exec'd: %s.PID\n",
			g.gl_pathc, g.gl_pathc == 1 ? "" : "s", path);
	globfree(&g);
}

int cmd_trace_record(const struct command *self, int argc, char **argv)
{
	char library[PATH_MAX], file[PATH_MAX], python[PATH_MAX + 16], number[24];
	const char *output = NULL, *scope_env = NULL, *format = NULL;
	uint64_t min_bytes = 4096, stack = 1;
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	int opt, r;
	pid_t pid;

	optind = 0;
	while ((opt = command_getopt(self, argc, argv)) >= 0) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'm':
			if (units_parse_size(optarg, &min_bytes) < 0)
				return usage_error("trace record", "--min-bytes takes a size (4096, 64K, 1M), not '%s'",
						   optarg);
			break;
		case 's':
			if (parse_u64(optarg, 10, &stack) < 0 || stack < 1 || stack > STACK_MAX)
				return usage_error("trace record", "--stack takes 1 to %u frames, not '%s'", STACK_MAX,
						   optarg);
			break;
		case 'e':
			if (!*optarg || strchr(optarg, '='))
				return usage_error("trace record", "--scope-env takes a variable's name, not '%s'",
						   optarg);
			scope_env = optarg;
			break;
		case 'f':
			if (!streq(optarg, "json") && !streq(optarg, "binary"))
				return usage_error("trace record", "--format takes json or binary, not '%s'", optarg);
			format = optarg;
			break;
		case 'h': command_help(self, stdout); return 0;
		default: return usage_error("trace record", "bad option");
		}
	}
	if (!output)
		return usage_error("trace record", "give the trace's file with -o FILE");
	if (optind >= argc)
		return usage_error("trace record", "give the command to run after --");
	if (find_library(library, sizeof(library)) != 0)
		return 1;
	if ((r = absolute(output, file, sizeof(file))) < 0)
		return fail("%s: %s", output, strerror(-r));
	/* the first process to load the tracer creates the file (O_EXCL) */
	if (unlink(file) < 0 && errno != ENOENT)
		return fail("cannot replace %s: %s", file, strerror(errno));
	if (remove_other_traces(file) != 0)
		return 1;
	/* an old mark (ramwatch mark) is not this run's phase */
	snprintf(python, sizeof(python), "%s.mark", file);
	if (unlink(python) < 0 && errno != ENOENT)
		return fail("cannot remove %s: %s", python, strerror(errno));

	snprintf(python, sizeof(python), "%s", library);
	*strrchr(python, '/') = 0;
	strcat(python, "/python");
	if (prepend_env("LD_PRELOAD", library) < 0 || setenv("RAMWATCH_TRACE_FILE", file, 1) < 0 ||
	    prepend_env("PYTHONPATH", python) < 0)
		return fail("cannot set the command's environment: %s", strerror(errno));
	snprintf(number, sizeof(number), "%" PRIu64, min_bytes);
	setenv("RAMWATCH_TRACE_MIN_BYTES", number, 1);
	snprintf(number, sizeof(number), "%" PRIu64, stack);
	setenv("RAMWATCH_TRACE_STACK", number, 1);
	if (scope_env)
		setenv("RAMWATCH_TRACE_SCOPE_ENV", scope_env, 1);
	/* without --format the tracer goes by the file's name */
	if (format)
		setenv("RAMWATCH_TRACE_FORMAT", format, 1);
	else
		unsetenv("RAMWATCH_TRACE_FORMAT");

	/* ^C goes to the command; this waits for it and still summarises */
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	pid = fork();
	if (pid < 0)
		return fail("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "ramwatch: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	struct command_run run = { .pid = pid };
	print_summary(file, &run);
	if ((r = command_wait(&run)) < 0)
		return fail("cannot wait for %s: %s", argv[optind], strerror(-r));
	note_other_traces(file);
	if (WIFSIGNALED(run.status))
		return 128 + WTERMSIG(run.status);
	return WEXITSTATUS(run.status);
}
