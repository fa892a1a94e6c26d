/* Logging for the daemon (and the client's rare diagnostics).
 *
 * To stderr with a "<N>" syslog priority prefix, which journald reads when
 * stderr is its stream; when JOURNAL_STREAM says stderr is the journal,
 * messages go through sd_journal_send instead, with structured fields
 * (OBJECT_PID for the process a message is about), so "journalctl
 * OBJECT_PID=1234" finds them.
 *
 * Each call logs and returns the negative errno it was given, so an error
 * path is one line: return log_error_errno(r, "cannot open %s: %m", path);
 * "%m" prints the error given, not the errno of the moment. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <syslog.h>

#include "macro.h"

/* Messages above this priority (numerically greater) are dropped. */
void log_set_max_level(int level);
int log_get_max_level(void);

/* "debug", "info", "notice", "warning", "err"/"error", "crit", "alert",
 * "emerg", or a number 0-7.  Returns the level or -EINVAL. */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Looks at JOURNAL_STREAM (and whether it names our stderr) to choose
 * between plain stderr and the journal.  force_stderr keeps stderr (for
 * tests that read it). */
void log_open(bool force_stderr);
/* Sends messages to the journal whatever stderr is (a detached daemon,
 * whose stderr is gone), when journald's socket is there.  Returns whether
 * it is. */
bool log_use_journal(void);
/* Writes the lines to f instead of stderr (NULL: stderr again), each
 * beginning with the time (UTC, ISO 8601, ms): a log that is a file of
 * its own (the Windows service's), where no journal stamps the lines. */
void log_set_file(FILE *f);
bool log_to_journal(void);

/* The last warnings and errors, for a status report: up to LOG_RECENT_MAX
 * of them, the oldest first.  Returns how many were copied. */
#define LOG_RECENT_MAX 10
struct log_recent_entry {
	int64_t time_ms; /* unix ms */
	int level;
	int pid;         /* the process it was about, or 0 */
	char message[256];
};
size_t log_recent(struct log_recent_entry *ret, size_t max);

/* The workhorse: level, error (0 or an errno of either sign), the pid a
 * message is about (0: none).  Returns -abs(error), or 0 for error 0. */
int log_internal(int level, int error, int pid, const char *file, int line, const char *func,
		 const char *fmt, ...) _printf_(7, 8);

#define log_full_errno(level, error, pid, ...) log_internal(level, error, pid, __FILE__, __LINE__, __func__, __VA_ARGS__)

#define log_debug(...) log_full_errno(LOG_DEBUG, 0, 0, __VA_ARGS__)
#define log_info(...) log_full_errno(LOG_INFO, 0, 0, __VA_ARGS__)
#define log_notice(...) log_full_errno(LOG_NOTICE, 0, 0, __VA_ARGS__)
#define log_warning(...) log_full_errno(LOG_WARNING, 0, 0, __VA_ARGS__)
#define log_error(...) log_full_errno(LOG_ERR, 0, 0, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, 0, __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, e, 0, __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, e, 0, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, 0, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, 0, __VA_ARGS__)

/* About one process: its pid goes into the journal as OBJECT_PID. */
#define log_pid_debug(pid, ...) log_full_errno(LOG_DEBUG, 0, pid, __VA_ARGS__)
#define log_pid_info(pid, ...) log_full_errno(LOG_INFO, 0, pid, __VA_ARGS__)
#define log_pid_notice(pid, ...) log_full_errno(LOG_NOTICE, 0, pid, __VA_ARGS__)
#define log_pid_warning(pid, ...) log_full_errno(LOG_WARNING, 0, pid, __VA_ARGS__)
#define log_pid_warning_errno(pid, e, ...) log_full_errno(LOG_WARNING, e, pid, __VA_ARGS__)
