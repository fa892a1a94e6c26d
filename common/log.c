/* Logging: "<N>message" lines on stderr, or journal entries with fields. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "macro.h"
#include "text.h"
#include "util.h"

static int max_level = LOG_INFO;
static bool journal;
static FILE *log_file;

/* a ring of the last warnings and errors */
static struct log_recent_entry recent[LOG_RECENT_MAX];
static size_t recent_next, recent_n;

size_t log_recent(struct log_recent_entry *ret, size_t max)
{
	size_t n = recent_n < max ? recent_n : max;
	size_t first = (recent_next + LOG_RECENT_MAX - recent_n) % LOG_RECENT_MAX;
	/* the newest n, the oldest of them first */
	first = (first + (recent_n - n)) % LOG_RECENT_MAX;
	for (size_t i = 0; i < n; i++)
		ret[i] = recent[(first + i) % LOG_RECENT_MAX];
	return n;
}

static void remember(int level, int pid, const char *message)
{
	struct log_recent_entry *e = &recent[recent_next];
	e->time_ms = now_realtime_ms();
	e->level = level;
	e->pid = pid;
	/* cut to the entry's size */
	size_t n = strnlen(message, sizeof(e->message) - 1);
	memcpy(e->message, message, n);
	e->message[n] = '\0';
	recent_next = (recent_next + 1) % LOG_RECENT_MAX;
	if (recent_n < LOG_RECENT_MAX)
		recent_n++;
}

static const char *const level_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit", [LOG_ERR] = "err",
	[LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

int log_level_from_string(const char *s)
{
	uint64_t n;

	if (!s)
		return -EINVAL;
	if (streq(s, "error"))
		return LOG_ERR;
	if (streq(s, "warn"))
		return LOG_WARNING;
	for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
		if (streq(s, level_names[i]))
			return (int)i;
	if (parse_u64(s, 10, &n) == 0 && n <= LOG_DEBUG)
		return (int)n;
	return -EINVAL;
}

const char *log_level_to_string(int level)
{
	return level >= 0 && level <= LOG_DEBUG ? level_names[level] : "?";
}

/* JOURNAL_STREAM is "DEV:INODE" of the stream systemd connected: only when
 * our stderr is still that stream are we talking to the journal (a child
 * with redirected stderr inherits the variable). */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_open(bool force_stderr)
{
	journal = !force_stderr && stderr_is_journal();
}

bool log_use_journal(void)
{
	if (access("/run/systemd/journal/socket", W_OK) < 0)
		return false;
	journal = true;
	return true;
}

void log_set_file(FILE *f)
{
	log_file = f;
}

/* "2026-01-02T03:04:05.678Z " into buf, or "" when the clock fails. */
static const char *time_stamp(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;

	buf[0] = '\0';
	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !gmtime_r(&ts.tv_sec, &tm))
		return buf;
	size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n > 0)
		snprintf(buf + n, size - n, ".%03ldZ ", ts.tv_nsec / 1000000L);
	return buf;
}

bool log_to_journal(void)
{
	return journal;
}

int log_internal(int level, int error, int pid, const char *file, int line, const char *func, const char *fmt, ...)
{
	char message[2048];
	va_list ap;
	int saved = errno;

	if (error < 0)
		error = -error;
	if (level > max_level)
		return -error;
	/* glibc's %m prints strerror(errno): make it the error we were given */
	errno = error;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	/* A process's name is any bytes but NUL and '/' (the kernel escapes
	 * only '\\' and newlines in status): a line that is not UTF-8 is written
	 * with those bytes as \xNN, so the journal and anything reading the
	 * log as text (and the status answer's recent messages, JSON) can. */
	_cleanup_free_ char *visible = NULL;
	const char *m = message;
	if (!text_utf8_valid(message, strlen(message), NULL) && (visible = text_visible(message, strlen(message))))
		m = visible;
	if (level <= LOG_WARNING)
		remember(level, pid, m);

	if (journal) {
		char code_line[16];
		snprintf(code_line, sizeof(code_line), "%d", line);
		if (pid > 0 && error > 0)
			sd_journal_send("MESSAGE=%s", m, "PRIORITY=%d", level, "OBJECT_PID=%d", pid, "ERRNO=%d",
					error, "CODE_FILE=%s", file, "CODE_LINE=%s", code_line, "CODE_FUNC=%s", func,
					NULL);
		else if (pid > 0)
			sd_journal_send("MESSAGE=%s", m, "PRIORITY=%d", level, "OBJECT_PID=%d", pid,
					"CODE_FILE=%s", file, "CODE_LINE=%s", code_line, "CODE_FUNC=%s", func, NULL);
		else if (error > 0)
			sd_journal_send("MESSAGE=%s", m, "PRIORITY=%d", level, "ERRNO=%d", error, "CODE_FILE=%s",
					file, "CODE_LINE=%s", code_line, "CODE_FUNC=%s", func, NULL);
		else
			sd_journal_send("MESSAGE=%s", m, "PRIORITY=%d", level, "CODE_FILE=%s", file,
					"CODE_LINE=%s", code_line, "CODE_FUNC=%s", func, NULL);
	} else if (log_file) {
		char stamp[40];
		fprintf(log_file, "%s<%d>%s\n", time_stamp(stamp, sizeof(stamp)), level, m);
		fflush(log_file);
	} else
		fprintf(stderr, "<%d>%s\n", level, m);
	errno = saved;
	return -error;
}
