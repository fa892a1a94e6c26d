/* The machine's memory on Linux (sysmem.h): /proc/meminfo and
 * /proc/pressure/memory, pure parsers and one reader. */
#include "sysmem.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "util.h"

/* Finds "Name:" at the start of a line and parses "<number> kB" after it. */
static int meminfo_field(const char *text, size_t len, const char *name, uint64_t *ret)
{
	size_t n = strlen(name);

	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if ((size_t)(eol - p) > n && memcmp(p, name, n) == 0 && p[n] == ':') {
			const char *v = p + n + 1;
			while (v < eol && *v == ' ')
				v++;
			const char *digits = v;
			while (v < eol && *v >= '0' && *v <= '9')
				v++;
			uint64_t kb;
			if (v == digits || parse_u64_n(digits, (size_t)(v - digits), 10, &kb) < 0)
				return -EBADMSG;
			if ((size_t)(eol - v) != 3 || memcmp(v, " kB", 3) != 0)
				return -EBADMSG;
			if (kb > UINT64_MAX / 1024)
				return -EBADMSG;
			*ret = kb * 1024;
			return 0;
		}
		p = eol + 1;
	}
	return -EBADMSG;
}

int meminfo_parse(const char *text, size_t len, struct store_system *ret)
{
	struct store_system s = *ret;
	int r;

	if ((r = meminfo_field(text, len, "MemTotal", &s.mem_total)) < 0 ||
	    (r = meminfo_field(text, len, "MemAvailable", &s.mem_available)) < 0 ||
	    (r = meminfo_field(text, len, "SwapTotal", &s.swap_total)) < 0 ||
	    (r = meminfo_field(text, len, "SwapFree", &s.swap_free)) < 0 ||
	    (r = meminfo_field(text, len, "Committed_AS", &s.committed_as)) < 0 ||
	    (r = meminfo_field(text, len, "CommitLimit", &s.commit_limit)) < 0)
		return r;
	*ret = s;
	return 0;
}

/* One line of a pressure file: "some avg10=0.12 avg60=0.05 avg300=0.01 total=12345". */
static int pressure_line(const char *p, const char *eol, double *avg10, double *avg60, uint64_t *total)
{
	char buf[256];
	size_t n = (size_t)(eol - p);
	char a10[32], a60[32], a300[32], t[32];

	if (n >= sizeof(buf))
		return -EBADMSG;
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (sscanf(buf, "%*s avg10=%31s avg60=%31s avg300=%31s total=%31s", a10, a60, a300, t) != 4)
		return -EBADMSG;
	char *e;
	*avg10 = strtod(a10, &e);
	if (*e)
		return -EBADMSG;
	*avg60 = strtod(a60, &e);
	if (*e)
		return -EBADMSG;
	if (parse_u64(t, 10, total) < 0)
		return -EBADMSG;
	return 0;
}

int pressure_parse(const char *text, size_t len, struct store_system *ret)
{
	struct store_system s = *ret;
	bool some = false, full = false;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol - p > 5 && memcmp(p, "some ", 5) == 0) {
			if (pressure_line(p, eol, &s.some_avg10, &s.some_avg60, &s.some_total_us) < 0)
				return -EBADMSG;
			some = true;
		} else if (eol - p > 5 && memcmp(p, "full ", 5) == 0) {
			if (pressure_line(p, eol, &s.full_avg10, &s.full_avg60, &s.full_total_us) < 0)
				return -EBADMSG;
			full = true;
		}
		p = eol + 1;
	}
	/* "full" appeared for memory in Linux 5.2's PSI; before it, only "some" */
	if (!some)
		return -EBADMSG;
	if (!full) {
		s.full_avg10 = s.full_avg60 = 0;
		s.full_total_us = 0;
	}
	s.have_pressure = true;
	*ret = s;
	return 0;
}

int sysmem_read(int root_fd, int64_t now_ms, struct store_system *ret)
{
	_cleanup_free_ char *meminfo = NULL, *pressure = NULL;
	struct store_system s = { .time = now_ms };
	size_t len;
	int r;

	r = read_full_fileat(root_fd, "meminfo", RW_PROC_FILE_MAX, &meminfo, &len);
	if (r < 0)
		return r;
	r = meminfo_parse(meminfo, len, &s);
	if (r < 0)
		return r;
	/* without PSI the file is missing (ENOENT) or, with psi=0 on the
	 * command line, refuses reads (EOPNOTSUPP): either way, none */
	r = read_full_fileat(root_fd, "pressure/memory", RW_PROC_FILE_MAX, &pressure, &len);
	if (r >= 0 && pressure_parse(pressure, len, &s) < 0)
		s.have_pressure = false;
	*ret = s;
	return 0;
}
