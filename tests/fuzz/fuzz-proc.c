/* libFuzzer target: the parsers of the small /proc/PID files (status,
 * stat, statm, cmdline, cgroup, task syscall; proc-parse.h).  The kernel writes
 * them, but a comm is the process's own choice (prctl PR_SET_NAME), so
 * "(" ")" and newlines in it are input.  Each parser gets the whole
 * input as the file's text, with no terminating NUL to lean on.  Nothing
 * may crash or read past the text, and what a parser accepts must hold
 * together. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc-parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(const char *text, size_t len)
{
	struct proc_status s;
	memset(&s, 0, sizeof(s));
	int r = status_parse(text, len, &s);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r < 0)
		return;
	if (memchr(s.name, '\0', sizeof(s.name)) == NULL)
		abort();
	for (int c = 0; c < _STATUS_COUNTER_MAX; c++)
		if (!status_has(&s, (enum status_counter)c) && s.counter[c] != 0)
			abort();
	uint64_t priv = 0;
	if (status_private(&s, &priv) != status_has(&s, STATUS_RSS_ANON))
		abort();
}

static void check_stat(const char *text, size_t len)
{
	struct proc_stat s;
	memset(&s, 0, sizeof(s));
	int r = stat_parse(text, len, &s);
	if (r != 0 && r != -EBADMSG)
		abort();
	if (r == 0 && memchr(s.comm, '\0', sizeof(s.comm)) == NULL)
		abort();
}

static void check_statm(const char *text, size_t len)
{
	struct proc_statm m = { 0 };
	int r = statm_parse(text, len, &m);
	if (r != 0 && r != -EBADMSG)
		abort();
	/* what it accepts holds together: shared pages are resident pages */
	if (r == 0 && m.shared > m.resident)
		abort();
}

static void check_cmdline(const char *text, size_t len)
{
	char buf[64];
	size_t n = cmdline_join(text, len, buf, sizeof(buf));
	if (n >= sizeof(buf) || buf[n] != '\0' || strlen(buf) != n)
		abort();
	/* a buffer of one byte holds the terminator only */
	if (cmdline_join(text, len, buf, 1) != 0 || buf[0] != '\0')
		abort();
}

static void check_cgroup(const char *text, size_t len)
{
	char buf[128];
	int r = cgroup_parse_unified(text, len, buf, sizeof(buf));
	if (r != 0 && r != -ENODATA && r != -ENAMETOOLONG && r != -EBADMSG)
		abort();
	if (r == 0 && memchr(buf, '\0', sizeof(buf)) == NULL)
		abort();
}

static void check_syscall(const char *text, size_t len)
{
	uint64_t sp = 0x5a5a;
	int r = syscall_parse_sp(text, len, &sp);
	if (r != 1 && r != 0 && r != -EBADMSG)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that ASan sees a read one byte past it */
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	check_status(text, size);
	check_stat(text, size);
	check_statm(text, size);
	check_cmdline(text, size);
	check_cgroup(text, size);
	check_syscall(text, size);
	free(text);
	return 0;
}
