/* OOM kills read from the kernel's log records (oom-kmsg.h).  Pure.
 *
 * The lines come from other programs' names and cgroups' paths, which
 * their owners choose: a comm or a path may hold anything the kernel
 * prints, commas, parentheses and the words the parser looks for among
 * them.  So each line is read from its fixed ends inwards: the figures
 * after the comm from the right, the pid before it from the left, and a
 * comm is never longer than the kernel lets it be. */
#include "oom-kmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "text.h"
#include "util.h"

/* TASK_COMM_LEN - 1 bytes, each at most "\xNN" once escaped */
#define COMM_ESCAPED_MAX (15 * 4)

static const char *const constraint_names[] = {
	[OOM_CONSTRAINT_UNKNOWN] = "unknown",
	[OOM_CONSTRAINT_NONE] = "none",
	[OOM_CONSTRAINT_CPUSET] = "cpuset",
	[OOM_CONSTRAINT_MEMORY_POLICY] = "memory_policy",
	[OOM_CONSTRAINT_MEMCG] = "memcg",
};

const char *oom_constraint_name(enum oom_constraint c)
{
	return (size_t)c < ELEMENTSOF(constraint_names) ? constraint_names[c] : "unknown";
}

_printf_(3, 4) static int bad(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;
	if (why && why_size) {
		va_start(ap, fmt);
		vsnprintf(why, why_size, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/* ------------------------------------------------------------ text */

/* A span of the line being read. */
struct span {
	const char *p;
	size_t n;
};

static struct span span_of(const char *p, size_t n)
{
	return (struct span){ p, n };
}

static bool span_starts(struct span s, const char *lit)
{
	size_t n = strlen(lit);
	return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static bool span_take(struct span *s, const char *lit)
{
	if (!span_starts(*s, lit))
		return false;
	size_t n = strlen(lit);
	s->p += n;
	s->n -= n;
	return true;
}

/* The offset of the first (last, with last) lit in s, or -1. */
static long span_find(struct span s, const char *lit, bool last)
{
	size_t n = strlen(lit);
	if (n > s.n)
		return -1;
	long found = -1;
	for (size_t i = 0; i + n <= s.n; i++)
		if (memcmp(s.p + i, lit, n) == 0) {
			found = (long)i;
			if (!last)
				break;
		}
	return found;
}

/* A decimal number at the start of s, taken off it. */
static bool span_number(struct span *s, uint64_t *ret)
{
	size_t n = 0;
	while (n < s->n && n < 20 && s->p[n] >= '0' && s->p[n] <= '9')
		n++;
	if (n == 0 || parse_u64_n(s->p, n, 10, ret) < 0)
		return false;
	s->p += n;
	s->n -= n;
	return true;
}

static bool span_signed(struct span *s, int *ret)
{
	bool minus = span_take(s, "-");
	uint64_t v;
	if (!span_number(s, &v) || v > (uint64_t)INT32_MAX + minus)
		return false;
	*ret = minus ? (int)-(int64_t)v : (int)v;
	return true;
}

static bool span_pid(struct span *s, int *ret)
{
	uint64_t v;
	if (!span_number(s, &v) || v == 0 || v > INT32_MAX)
		return false;
	*ret = (int)v;
	return true;
}

static bool span_uid(struct span *s, uint32_t *ret)
{
	uint64_t v;
	if (!span_number(s, &v) || v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

/* "NAME:NkB" at the start of s. */
static bool span_kb(struct span *s, const char *name, uint64_t *ret)
{
	return span_take(s, name) && span_number(s, ret) && span_take(s, "kB");
}

/* s with kmsg's \xNN undone, made valid UTF-8 with no control character,
 * into buf (of size bytes, NUL-terminated).  Returns false when it was
 * cut to fit. */
static bool unescape_into(char *buf, size_t size, struct span s)
{
	char raw[OOM_KMSG_PATH_MAX * 4];
	size_t n = 0, i = 0;
	bool whole = true;

	while (i < s.n) {
		char c = s.p[i];
		if (c == '\\' && i + 3 < s.n && s.p[i + 1] == 'x' && digit_value(s.p[i + 2], 16) >= 0 &&
		    digit_value(s.p[i + 3], 16) >= 0) {
			c = (char)(digit_value(s.p[i + 2], 16) << 4 | digit_value(s.p[i + 3], 16));
			i += 4;
		} else
			i++;
		if ((unsigned char)c < 0x20 || c == 0x7f)
			c = '?';
		if (n == sizeof(raw)) {
			whole = false;
			break;
		}
		raw[n++] = c;
	}
	size_t len = text_clean_into(buf, size - 1, raw, n);
	return whole && len == n;
}

/* ------------------------------------------------------------ records */

int kmsg_record_parse(const char *buf, size_t len, struct kmsg_record *ret, char *why, size_t why_size)
{
	struct span s = span_of(buf, len);
	uint64_t prio, seq, usec;
	const char *semi = memchr(buf, ';', len);

	if (!semi)
		return bad(why, why_size, "a kernel log record without ';' after its prefix");
	if (!span_number(&s, &prio) || !span_take(&s, ",") || !span_number(&s, &seq) || !span_take(&s, ",") ||
	    !span_number(&s, &usec) || !span_take(&s, ","))
		return bad(why, why_size, "a kernel log record whose prefix is not LEVEL,SEQ,USEC,FLAGS");
	if (prio > UINT32_MAX)
		return bad(why, why_size, "a kernel log record of level %llu", (unsigned long long)prio);
	/* the flags and any fields after them, up to the ';' */
	bool continued = s.p < semi && *s.p == 'c';
	const char *text = semi + 1, *end = buf + len;
	const char *nl = memchr(text, '\n', (size_t)(end - text));
	*ret = (struct kmsg_record){
		.level = (unsigned)(prio & 7),
		.facility = (unsigned)(prio >> 3),
		.seq = seq,
		.usec = usec,
		.continued = continued,
		.text = text,
		.text_len = (size_t)((nl ? nl : end) - text),
	};
	return 0;
}

/* ------------------------------------------------------------ lines */

static const struct {
	const char *text;
	enum oom_constraint c;
} constraints[] = {
	{ "CONSTRAINT_NONE", OOM_CONSTRAINT_NONE },
	{ "CONSTRAINT_CPUSET", OOM_CONSTRAINT_CPUSET },
	{ "CONSTRAINT_MEMORY_POLICY", OOM_CONSTRAINT_MEMORY_POLICY },
	{ "CONSTRAINT_MEMCG", OOM_CONSTRAINT_MEMCG },
};

/* "COMM invoked oom-killer: ..." opens a report. */
static void read_invoked(struct oom_kmsg *st, struct span line, long at)
{
	oom_kmsg_init(st);
	st->open = true;
	unescape_into(st->invoker, sizeof(st->invoker), span_of(line.p, (size_t)at));
}

/* "memory: usage NkB, limit NkB, failcnt N" (v1 and v2 alike). */
static int read_usage(struct oom_kmsg *st, struct span s, char *why, size_t why_size)
{
	uint64_t usage, limit;
	if (!span_take(&s, "memory: usage ") || !span_number(&s, &usage) || !span_take(&s, "kB, limit ") ||
	    !span_number(&s, &limit) || !span_take(&s, "kB"))
		return bad(why, why_size, "a memory cgroup's usage line that does not read \"memory: usage NkB, "
					  "limit NkB, ...\"");
	st->have_usage = true;
	st->usage_kb = usage;
	st->limit_kb = limit;
	return 0;
}

/* "oom-kill:constraint=C,...,[oom_memcg=P,task_memcg=P,]task=COMM,pid=N,uid=N" */
static int read_summary(struct oom_kmsg *st, struct span s, char *why, size_t why_size)
{
	enum oom_constraint c = OOM_CONSTRAINT_UNKNOWN;
	uint32_t uid;
	int pid;

	span_take(&s, "oom-kill:constraint=");
	for (size_t i = 0; i < ELEMENTSOF(constraints); i++) {
		size_t n = strlen(constraints[i].text);
		if (span_starts(s, constraints[i].text) && (s.n == n || s.p[n] == ','))
			c = constraints[i].c;
	}
	if (c == OOM_CONSTRAINT_UNKNOWN)
		return bad(why, why_size, "an oom-kill summary of an unknown constraint");
	/* from the right: ",uid=N" ends it, ",pid=N" before */
	long at = span_find(s, ",uid=", true);
	if (at < 0)
		return bad(why, why_size, "an oom-kill summary without its uid");
	struct span tail = span_of(s.p + at + 5, s.n - (size_t)at - 5);
	if (!span_uid(&tail, &uid) || tail.n != 0)
		return bad(why, why_size, "an oom-kill summary whose uid is not a number");
	struct span head = span_of(s.p, (size_t)at);
	at = span_find(head, ",pid=", true);
	if (at < 0)
		return bad(why, why_size, "an oom-kill summary without its pid");
	tail = span_of(head.p + at + 5, head.n - (size_t)at - 5);
	if (!span_pid(&tail, &pid) || tail.n != 0)
		return bad(why, why_size, "an oom-kill summary whose pid is not a number");
	head.n = (size_t)at;
	/* ",task=COMM": the comm is short, so the first ",task=" within
	 * reach of the pid is the field (a comm may hold ",task=" itself) */
	long task = -1;
	size_t from = head.n > COMM_ESCAPED_MAX + 6 ? head.n - COMM_ESCAPED_MAX - 6 : 0;
	long k = span_find(span_of(head.p + from, head.n - from), ",task=", false);
	if (k >= 0)
		task = (long)from + k;
	if (task < 0)
		return bad(why, why_size, "an oom-kill summary without its task");
	head.n = (size_t)task;

	st->have_summary = true;
	st->summary_pid = pid;
	st->summary_uid_set = true;
	st->summary_uid = uid;
	st->constraint = c;
	st->have_oom_memcg = st->have_task_memcg = false;
	/* ",task_memcg=P" (the victim's group), after ",oom_memcg=P" (the
	 * group whose limit was hit; ",global_oom" instead for the machine) */
	long tm = span_find(head, ",task_memcg=", true);
	if (tm >= 0) {
		unescape_into(st->task_memcg, sizeof(st->task_memcg),
			      span_of(head.p + tm + 12, head.n - (size_t)tm - 12));
		st->have_task_memcg = true;
		head.n = (size_t)tm;
	}
	long om = span_find(head, ",oom_memcg=", false);
	if (om >= 0) {
		if (tm < 0)
			return bad(why, why_size, "an oom-kill summary with oom_memcg and no task_memcg");
		unescape_into(st->oom_memcg, sizeof(st->oom_memcg), span_of(head.p + om + 11, head.n - (size_t)om - 11));
		st->have_oom_memcg = true;
	}
	return 0;
}

/* "Killed process N (COMM) total-vm:NkB, anon-rss:NkB, file-rss:NkB,
 * shmem-rss:NkB[, UID:N pgtables:NkB oom_score_adj:N]" */
static int read_killed(struct span s, struct oom_kmsg_kill *k, char *why, size_t why_size)
{
	if (!span_pid(&s, &k->pid) || !span_take(&s, " ("))
		return bad(why, why_size, "a \"Killed process\" line whose pid is not a number");
	/* the figures follow the last ") total-vm:" (a comm may hold one) */
	long at = span_find(s, ") total-vm:", true);
	if (at < 0 || at > COMM_ESCAPED_MAX)
		return bad(why, why_size, "a \"Killed process\" line without its total-vm");
	unescape_into(k->comm, sizeof(k->comm), span_of(s.p, (size_t)at));
	s.p += at + 2;
	s.n -= (size_t)at + 2;
	if (!span_kb(&s, "total-vm:", &k->total_vm_kb) || !span_kb(&s, ", anon-rss:", &k->anon_rss_kb) ||
	    !span_kb(&s, ", file-rss:", &k->file_rss_kb) || !span_kb(&s, ", shmem-rss:", &k->shmem_rss_kb))
		return bad(why, why_size, "a \"Killed process\" line whose rss figures do not read as NkB");
	if (s.n == 0)
		return 0; /* before 5.1 */
	if (!span_take(&s, ", UID:") || !span_uid(&s, &k->uid))
		return bad(why, why_size, "a \"Killed process\" line whose UID is not a number");
	k->have_uid = true;
	if (s.n == 0)
		return 0;
	if (!span_kb(&s, " pgtables:", &k->pgtables_kb))
		return bad(why, why_size, "a \"Killed process\" line whose pgtables is not NkB");
	k->have_pgtables = true;
	if (s.n == 0)
		return 0;
	if (!span_take(&s, " oom_score_adj:") || !span_signed(&s, &k->oom_score_adj) || s.n != 0)
		return bad(why, why_size, "a \"Killed process\" line whose oom_score_adj is not a number");
	k->have_oom_score_adj = true;
	return 0;
}

void oom_kmsg_init(struct oom_kmsg *s)
{
	*s = (struct oom_kmsg){ .constraint = OOM_CONSTRAINT_UNKNOWN };
}

/* The kill of k->pid, with what the report said before it. */
static void complete(struct oom_kmsg *st, struct oom_kmsg_kill *k)
{
	if (st->open)
		snprintf(k->invoker, sizeof(k->invoker), "%s", st->invoker);
	if (st->have_usage) {
		k->have_usage = true;
		k->usage_kb = st->usage_kb;
		k->limit_kb = st->limit_kb;
	}
	if (st->have_summary && st->summary_pid == k->pid) {
		k->constraint = st->constraint;
		if (!k->have_uid && st->summary_uid_set) {
			k->have_uid = true;
			k->uid = st->summary_uid;
		}
		if (st->have_oom_memcg) {
			k->have_oom_memcg = true;
			memcpy(k->oom_memcg, st->oom_memcg, sizeof(k->oom_memcg));
		}
		if (st->have_task_memcg) {
			k->have_task_memcg = true;
			memcpy(k->task_memcg, st->task_memcg, sizeof(k->task_memcg));
		}
	}
	oom_kmsg_init(st);
}

int oom_kmsg_feed(struct oom_kmsg *st, const struct kmsg_record *r, struct oom_kmsg_kill *ret, char *why,
		  size_t why_size)
{
	struct span line = span_of(r->text, r->text_len);
	int e = 0;
	long at;

	if (span_starts(line, "memory: usage ")) {
		if (st->open && (e = read_usage(st, line, why, why_size)) < 0)
			oom_kmsg_init(st);
		return e;
	}
	if (span_starts(line, "oom-kill:constraint=")) {
		if ((e = read_summary(st, line, why, why_size)) < 0)
			oom_kmsg_init(st);
		return e;
	}
	bool memcg = span_take(&line, "Memory cgroup out of memory: Killed process ");
	if (memcg || span_take(&line, "Out of memory: Killed process ") ||
	    span_take(&line, "Out of memory (oom_kill_allocating_task): Killed process ")) {
		struct oom_kmsg_kill k = { .seq = r->seq, .usec = r->usec, .memcg = memcg };
		/* a global OOM's constraint only its summary line tells */
		k.constraint = memcg ? OOM_CONSTRAINT_MEMCG : OOM_CONSTRAINT_UNKNOWN;
		if ((e = read_killed(line, &k, why, why_size)) < 0) {
			oom_kmsg_init(st);
			return e;
		}
		complete(st, &k);
		*ret = k;
		return 1;
	}
	/* the comm before it may be anything: the words are found after it */
	at = span_find(line, " invoked oom-killer: ", false);
	if (at >= 0 && at <= COMM_ESCAPED_MAX)
		read_invoked(st, line, at);
	return 0;
}
