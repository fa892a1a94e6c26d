/* Pure parsers for the small /proc/PID files: status, stat, cmdline and
 * task/TID/syscall.  They take the file's text and never open anything. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The memory counters of /proc/PID/status, in bytes.  A counter the kernel
 * did not print (RssAnon before Linux 4.5, a kernel thread's Vm* lines) has
 * its bit clear in present and reads as 0: it is unknown, not zero. */
enum status_counter {
	STATUS_VM_PEAK,
	STATUS_VM_SIZE,
	STATUS_VM_LCK,
	STATUS_VM_PIN,
	STATUS_VM_HWM,
	STATUS_VM_RSS,
	STATUS_RSS_ANON,
	STATUS_RSS_FILE,
	STATUS_RSS_SHMEM,
	STATUS_VM_DATA,
	STATUS_VM_STK,
	STATUS_VM_EXE,
	STATUS_VM_LIB,
	STATUS_VM_PTE,
	STATUS_VM_SWAP,
	STATUS_HUGETLB_PAGES,
	_STATUS_COUNTER_MAX
};

/* The counter's name in /proc/PID/status ("VmHWM"), or NULL out of range. */
const char *status_counter_name(enum status_counter c);

struct proc_status {
	uint64_t counter[_STATUS_COUNTER_MAX];
	uint32_t present; /* bits of enum status_counter */
	char name[64];    /* Name: the comm, as the kernel escapes it */
	char state;       /* 'R', 'S', 'Z', ... or 0 */
	int64_t uid;      /* real uid, -1 when absent */
	int64_t euid;
	int64_t threads;  /* -1 when absent */
	bool kthread;     /* "Kthread: 1" (Linux 6.x) */
};

static inline bool status_has(const struct proc_status *s, enum status_counter c)
{
	return (s->present >> c) & 1u;
}

/* private = RssAnon + VmSwap: anonymous memory, resident or swapped.
 * Returns false when the kernel did not give RssAnon. */
bool status_private(const struct proc_status *s, uint64_t *ret);

/* Parses the text of /proc/PID/status.  Unknown lines are ignored; a known
 * counter that is not "<number> kB" is an error.  Returns 0 or -EBADMSG. */
int status_parse(const char *text, size_t len, struct proc_status *ret);

/* The first three fields of /proc/PID/statm, in pages: the address space,
 * what is resident, and the resident pages that are file-backed or shared
 * memory (RssFile + RssShmem).  Resident anonymous memory is resident -
 * shared. */
struct proc_statm {
	uint64_t size;
	uint64_t resident;
	uint64_t shared;
};

/* Parses /proc/PID/statm: seven decimal numbers separated by single spaces
 * and a final newline (fs/proc/array.c); only the first three are kept.
 * Returns 0 or -EBADMSG (too few fields, a non-number, shared above
 * resident). */
int statm_parse(const char *text, size_t len, struct proc_statm *ret);

static inline bool statm_equal(const struct proc_statm *a, const struct proc_statm *b)
{
	return a->size == b->size && a->resident == b->resident && a->shared == b->shared;
}

struct proc_stat {
	char comm[64];
	char state;
	uint64_t flags;      /* field 9 */
	uint64_t start_time; /* field 22: clock ticks after boot */
};

/* PF_KTHREAD in include/linux/sched.h */
#define PROC_PF_KTHREAD 0x00200000u

/* Parses /proc/PID/stat.  The comm may hold spaces and parentheses, so
 * fields are counted from the last ')'.  Returns 0 or -EBADMSG. */
int stat_parse(const char *text, size_t len, struct proc_stat *ret);

/* Joins the NUL-separated arguments of /proc/PID/cmdline with spaces into
 * buf (size bytes, NUL-terminated, cut at size - 1).  Returns the length. */
size_t cmdline_join(const char *raw, size_t len, char *buf, size_t size);

/* The cgroup v2 path of /proc/PID/cgroup: the "0::/path" line (the only
 * line on a unified hierarchy; one of several on a hybrid one).  Copies the
 * path into buf (size bytes, NUL-terminated).  Returns 0, -ENODATA when
 * there is no v2 line, -ENAMETOOLONG when it does not fit, -EBADMSG. */
int cgroup_parse_unified(const char *text, size_t len, char *buf, size_t size);

/* Parses /proc/PID/task/TID/syscall: "NR ARG1 .. ARG6 SP PC", "-1 SP PC"
 * when the thread is not in a system call, or "running" (no stack pointer
 * to give).  Returns 1 with *ret_sp, 0 when there is none, -EBADMSG. */
int syscall_parse_sp(const char *text, size_t len, uint64_t *ret_sp);
