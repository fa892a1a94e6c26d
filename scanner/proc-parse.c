/* Pure parsers for /proc/PID/status, statm, stat, cmdline and task/TID/syscall. */
#include "proc-parse.h"

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "util.h"

static const char *const status_names[_STATUS_COUNTER_MAX] = {
	[STATUS_VM_PEAK] = "VmPeak",   [STATUS_VM_SIZE] = "VmSize",
	[STATUS_VM_LCK] = "VmLck",     [STATUS_VM_PIN] = "VmPin",
	[STATUS_VM_HWM] = "VmHWM",     [STATUS_VM_RSS] = "VmRSS",
	[STATUS_RSS_ANON] = "RssAnon", [STATUS_RSS_FILE] = "RssFile",
	[STATUS_RSS_SHMEM] = "RssShmem", [STATUS_VM_DATA] = "VmData",
	[STATUS_VM_STK] = "VmStk",     [STATUS_VM_EXE] = "VmExe",
	[STATUS_VM_LIB] = "VmLib",     [STATUS_VM_PTE] = "VmPTE",
	[STATUS_VM_SWAP] = "VmSwap",   [STATUS_HUGETLB_PAGES] = "HugetlbPages",
};

_Static_assert(_STATUS_COUNTER_MAX <= 32, "a status's counters are bits of present");

const char *status_counter_name(enum status_counter c)
{
	return (unsigned)c < _STATUS_COUNTER_MAX ? status_names[c] : NULL;
}

bool status_private(const struct proc_status *s, uint64_t *ret)
{
	if (!status_has(s, STATUS_RSS_ANON))
		return false;
	*ret = s->counter[STATUS_RSS_ANON] + s->counter[STATUS_VM_SWAP];
	return true;
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static int parse_kb(const char *s, const char *end, uint64_t *ret)
{
	const char *d = skip_blanks(s, end), *e = d;
	uint64_t kb;
	while (e < end && *e >= '0' && *e <= '9')
		e++;
	if (parse_u64_n(d, (size_t)(e - d), 10, &kb) < 0 || kb > UINT64_MAX / 1024)
		return -EBADMSG;
	e = skip_blanks(e, end);
	if (end - e != 2 || e[0] != 'k' || e[1] != 'B')
		return -EBADMSG;
	*ret = kb * 1024;
	return 0;
}

static int parse_first_number(const char *s, const char *end, int64_t *ret)
{
	const char *d = skip_blanks(s, end), *e = d;
	uint64_t v;
	while (e < end && *e >= '0' && *e <= '9')
		e++;
	if (parse_u64_n(d, (size_t)(e - d), 10, &v) < 0 || v > INT64_MAX)
		return -EBADMSG;
	*ret = (int64_t)v;
	return (int)(e - s);
}

int status_parse(const char *text, size_t len, struct proc_status *ret)
{
	struct proc_status st = { .uid = -1, .euid = -1, .threads = -1 };
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		const char *colon = memchr(s, ':', (size_t)(eol - s));
		if (colon) {
			size_t name_len = (size_t)(colon - s);
			const char *v = colon + 1;
			for (int c = 0; c < _STATUS_COUNTER_MAX; c++) {
				if (strlen(status_names[c]) != name_len || memcmp(status_names[c], s, name_len) != 0)
					continue;
				if (parse_kb(v, eol, &st.counter[c]) < 0)
					return -EBADMSG;
				st.present |= 1u << c;
				break;
			}
			if (name_len == 4 && memcmp(s, "Name", 4) == 0) {
				const char *n = skip_blanks(v, eol);
				size_t l = (size_t)(eol - n);
				if (l >= sizeof(st.name))
					l = sizeof(st.name) - 1;
				memcpy(st.name, n, l);
				st.name[l] = '\0';
			} else if (name_len == 5 && memcmp(s, "State", 5) == 0) {
				const char *n = skip_blanks(v, eol);
				st.state = n < eol ? *n : 0;
			} else if (name_len == 3 && memcmp(s, "Uid", 3) == 0) {
				int k = parse_first_number(v, eol, &st.uid);
				if (k < 0 || parse_first_number(v + k, eol, &st.euid) < 0)
					return -EBADMSG;
			} else if (name_len == 7 && memcmp(s, "Threads", 7) == 0) {
				if (parse_first_number(v, eol, &st.threads) < 0)
					return -EBADMSG;
			} else if (name_len == 7 && memcmp(s, "Kthread", 7) == 0) {
				const char *n = skip_blanks(v, eol);
				st.kthread = n < eol && *n == '1';
			}
		}
		s = nl ? nl + 1 : end;
	}
	if (!st.name[0] && st.uid < 0)
		return -EBADMSG; /* not a status file at all */
	*ret = st;
	return 0;
}

int statm_parse(const char *text, size_t len, struct proc_statm *ret)
{
	uint64_t v[7];
	const char *s = text, *end = text + len;

	if (len > 0 && end[-1] == '\n')
		end--;
	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		const char *e = s;
		while (e < end && *e >= '0' && *e <= '9')
			e++;
		if (parse_u64_n(s, (size_t)(e - s), 10, &v[i]) < 0)
			return -EBADMSG;
		if (i + 1 < ELEMENTSOF(v)) {
			if (e >= end || *e != ' ')
				return -EBADMSG;
			e++;
		}
		s = e;
	}
	if (s != end || v[2] > v[1])
		return -EBADMSG;
	*ret = (struct proc_statm){ .size = v[0], .resident = v[1], .shared = v[2] };
	return 0;
}

int stat_parse(const char *text, size_t len, struct proc_stat *ret)
{
	struct proc_stat st = { 0 };
	const char *open = memchr(text, '(', len), *close = NULL;
	const char *end = text + len;

	for (const char *p = end; p > text; p--)
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	if (!open || !close || close < open)
		return -EBADMSG;
	size_t l = (size_t)(close - open - 1);
	if (l >= sizeof(st.comm))
		l = sizeof(st.comm) - 1;
	memcpy(st.comm, open + 1, l);
	st.comm[l] = '\0';

	/* after ") ": field 3 is the state, then numbers; we want 9 and 22 */
	const char *s = close + 1;
	for (int field = 3; field <= 22; field++) {
		while (s < end && *s == ' ')
			s++;
		const char *t = s;
		while (t < end && *t != ' ' && *t != '\n')
			t++;
		if (t == s)
			return -EBADMSG;
		if (field == 3) {
			if (t - s != 1)
				return -EBADMSG;
			st.state = *s;
		} else if (field == 9) {
			if (parse_u64_n(s, (size_t)(t - s), 10, &st.flags) < 0)
				return -EBADMSG;
		} else if (field == 22) {
			if (parse_u64_n(s, (size_t)(t - s), 10, &st.start_time) < 0)
				return -EBADMSG;
		}
		s = t;
	}
	*ret = st;
	return 0;
}

size_t cmdline_join(const char *raw, size_t len, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return 0;
	while (len > 0 && raw[len - 1] == '\0')
		len--;
	for (size_t i = 0; i < len && n + 1 < size; i++)
		buf[n++] = raw[i] == '\0' ? ' ' : raw[i];
	buf[n] = '\0';
	return n;
}

int syscall_parse_sp(const char *text, size_t len, uint64_t *ret_sp)
{
	const char *fields[9];
	size_t lens[9], count = 0;
	const char *s = text, *end = text + len;

	while (s < end && count < ELEMENTSOF(fields)) {
		while (s < end && (*s == ' ' || *s == '\n'))
			s++;
		if (s >= end)
			break;
		const char *t = s;
		while (t < end && *t != ' ' && *t != '\n')
			t++;
		fields[count] = s;
		lens[count++] = (size_t)(t - s);
		s = t;
	}
	if (count == 1 && lens[0] == 7 && memcmp(fields[0], "running", 7) == 0)
		return 0;
	if (count != 9 && count != 3)
		return -EBADMSG;
	/* the stack pointer is the second to last field, as 0x... */
	const char *sp = fields[count - 2];
	size_t sp_len = lens[count - 2];
	if (sp_len < 3 || sp[0] != '0' || sp[1] != 'x' || parse_u64_n(sp + 2, sp_len - 2, 16, ret_sp) < 0)
		return -EBADMSG;
	return 1;
}

int cgroup_parse_unified(const char *text, size_t len, char *buf, size_t size)
{
	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (eol - p >= 3 && memcmp(p, "0::", 3) == 0) {
			size_t n = (size_t)(eol - p) - 3;
			if (n == 0 || p[3] != '/')
				return -EBADMSG;
			if (n >= size)
				return -ENAMETOOLONG;
			memcpy(buf, p + 3, n);
			buf[n] = '\0';
			return 0;
		}
		p = eol + 1;
	}
	return -ENODATA;
}
