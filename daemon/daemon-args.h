/* What both of ramwatchd's mains (daemon/ramwatchd.c on Linux,
 * daemon/windows/ramwatchd.c on Windows) answer the same way: a command
 * line they refuse, --log-level and --check-config.  Each main keeps its own options,
 * since how the program lives (fork and a socket, or the service control
 * manager and a pipe) is what differs between them. */
#pragma once

/* Prints "ramwatchd: " fmt (with arg) and where to look; returns the exit
 * code of a usage error, 2. */
int daemon_args_refuse(const char *fmt, const char *arg);

/* Loads the configuration at path and prints it in full, every setting
 * with its value; returns the exit code: 0, or 1 with the reason on
 * stderr when the file is refused. */
int daemon_args_check_config(const char *path);

/* --log-level: sets the most detailed level logged from its name (debug,
 * info, notice, warning, err); returns 0, or the exit code of a usage
 * error (daemon_args_refuse) for a name it does not know. */
int daemon_args_log_level(const char *name);
