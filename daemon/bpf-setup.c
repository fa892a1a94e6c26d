/* What the daemon's BPF programs share when they are loaded (bpf-setup.h). */
#include "bpf-setup.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "fileio.h"
#include "limits.h"
#include "log.h"
#include "macro.h"

static int libbpf_log(enum libbpf_print_level level, const char *format, va_list ap)
{
	char line[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), format, ap);
	log_debug("libbpf: %s", line);
	return 0;
}

void bpf_setup_quiet_libbpf(void)
{
	libbpf_set_print(libbpf_log);
}

/* status's NSpid has one field in the first pid namespace, one per
 * namespace level below it. */
bool bpf_setup_in_first_pid_namespace(void)
{
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (read_full_fileat(AT_FDCWD, "/proc/self/status", RW_PROC_FILE_MAX, &text, &len) < 0)
		return false;
	const char *line = strstr(text, "\nNSpid:");
	if (!line)
		return true; /* a kernel before 4.1: no pid namespaces to tell */
	line += strlen("\nNSpid:");
	const char *end = strchrnul(line, '\n');
	unsigned fields = 0;
	for (const char *p = line; p < end; p++)
		if (*p != ' ' && *p != '\t' && (p == line || p[-1] == ' ' || p[-1] == '\t'))
			fields++;
	return fields == 1;
}
