/* ramwatchd: arguments, start-up, and the hand-over to the manager. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "daemon-args.h"
#include "control.h"
#include "malloc-tuning.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "paths.h"

#define DEFAULT_CONFIG RW_CONFIG_DEFAULT

static void help(void)
{
	printf("Usage: ramwatchd [OPTIONS]\n\n"
	       "Watches processes' memory and keeps their timelines in SQLite.\n\n"
	       "  --config FILE      configuration file (default " DEFAULT_CONFIG ";\n"
	       "                     drop-ins in FILE.d/*.conf)\n"
	       "  --state-dir DIR    where the database lives (default $STATE_DIRECTORY,\n"
	       "                     else " RW_STATE_DIR_DEFAULT ")\n"
	       "  --foreground       stay in the foreground (as under systemd)\n"
	       "  --log-level LEVEL  debug, info (default), notice, warning, err\n"
	       "  --check-config     check the configuration, print it in full, and exit\n"
	       "  --proc DIR         read processes from DIR instead of /proc\n"
	       "  --socket PATH      the control socket (default: the one systemd passes,\n"
	       "                     else " RW_SOCKET_DEFAULT ")\n"
	       "  --version          print the version\n"
	       "  --help             this text\n\n"
	       "See ramwatchd(8) and ramwatchd.conf(5).\n");
}

/* Detaches from the terminal.  The parent waits on a pipe until the child
 * says it is ready (the store is open) or fails, so "ramwatchd" returns an
 * honest exit status.  Returns the fd the child reports on. */
static int daemonize(void)
{
	int fds[2];
	char status = 0;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		close(fds[1]);
		ssize_t n = read(fds[0], &status, 1);
		_exit(n == 1 && status == 'R' ? 0 : 1);
	}
	close(fds[0]);
	if (setsid() < 0)
		return -errno;
	if (chdir("/") < 0)
		return -errno;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return fds[1];
}

/* A detached daemon that logs to the journal has no stderr left: when it
 * cannot start, the reason (the last error it logged, as log_recent keeps
 * it: cut at 256 bytes) is written to the terminal it was started from as
 * well, before the parent, waiting on the pipe, exits with 1. */
static void tell_terminal(int terminal)
{
	struct log_recent_entry recent[LOG_RECENT_MAX];
	size_t n = log_recent(recent, ELEMENTSOF(recent));

	while (n > 0 && recent[n - 1].level > LOG_ERR)
		n--;
	if (n > 0)
		dprintf(terminal, "ramwatchd: %s\n", recent[n - 1].message);
}

/* Each watched process holds up to three descriptors (its proc directory,
 * its pidfd, its statm), so a thousand of them pass the usual soft limit of
 * 1024; the hard limit is what the administrator allows.  The daemon uses
 * epoll only, never select(), so descriptors above 1024 are safe. */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return (void)log_debug_errno(errno, "cannot read the descriptor limit: %m");
	if (rl.rlim_cur >= rl.rlim_max)
		return (void)log_debug("descriptor limit %llu, the hard limit", (unsigned long long)rl.rlim_cur);
	rlim_t was = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return (void)log_debug_errno(errno, "cannot raise the descriptor limit, kept at %llu: %m",
					     (unsigned long long)was);
	log_debug("descriptor limit raised from %llu to %llu", (unsigned long long)was,
		  (unsigned long long)rl.rlim_cur);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },   { "state-dir", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },     { "log-level", required_argument, NULL, 'l' },
		{ "check-config", no_argument, NULL, 'C' },   { "proc", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 'S' },   { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *config_path = DEFAULT_CONFIG, *state_dir = getenv("STATE_DIRECTORY"), *proc = NULL,
		   *socket_path = NULL;
	bool foreground = false, check = false;
	int opt, code;

	while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
		switch (opt) {
		case 'c': config_path = optarg; break;
		case 's': state_dir = optarg; break;
		case 'f': foreground = true; break;
		case 'l':
			if ((code = daemon_args_log_level(optarg)) != 0)
				return code;
			break;
		case 'C': check = true; break;
		case 'p': proc = optarg; break;
		case 'S': socket_path = optarg; break;
		case 'V': printf("ramwatchd %s\n", RAMWATCH_VERSION); return 0;
		case 'h': help(); return 0;
		default: return daemon_args_refuse("%s", "bad option");
		}
	}
	if (optind < argc)
		return daemon_args_refuse("unexpected argument '%s'", argv[optind]);
	if (check)
		return daemon_args_check_config(config_path);
	/* systemd's StateDirectory= may list several, separated by ':' */
	_cleanup_free_ char *state = strdup(state_dir && *state_dir ? state_dir : RW_STATE_DIR_DEFAULT);
	if (!state)
		return 1;
	char *colon = strchr(state, ':');
	if (colon)
		*colon = '\0';

	int ready_fd = -1;
	if (!foreground) {
		ready_fd = daemonize();
		if (ready_fd < 0) {
			fprintf(stderr, "ramwatchd: cannot detach: %s\n", strerror(-ready_fd));
			return 1;
		}
	}
	log_open(false);
	_cleanup_close_ int terminal = -1;
	if (!foreground && log_use_journal()) {
		/* kept until ready, for tell_terminal() */
		terminal = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, STDERR_FILENO);
			close(null);
		}
	}
	/* the database holds every watched process's history: not for all */
	umask(0027);
	raise_nofile();
	malloc_tuning_init();

	struct manager *m = NULL;
	struct manager_options o = { .config_path = config_path, .state_dir = state, .proc_root = proc,
				     .socket_path = socket_path };
	int r = manager_new(&o, &m);
	if (r < 0) {
		if (terminal >= 0)
			tell_terminal(terminal);
		return 1;
	}
	if (ready_fd >= 0) {
		(void)!write(ready_fd, "R", 1);
		close(ready_fd);
	}
	if (terminal >= 0)
		close(TAKE_FD(terminal));
	r = manager_run(m);
	manager_free(m);
	log_info("stopped");
	return r < 0 ? 1 : 0;
}
