/* OOM kills as the kernel's log tells them (/dev/kmsg).  Pure: records in,
 * kills out; reading the device is the caller's.
 *
 * /dev/kmsg gives one record per read: "LEVEL,SEQ,USEC,FLAGS[,...];TEXT\n"
 * and continuation lines " KEY=VALUE\n", with bytes below 0x20 (but tab),
 * from 0x7f on and backslashes written as \xNN.  LEVEL holds the facility
 * too (facility << 3 | level); USEC is the kernel's local clock in
 * microseconds since boot, close to CLOCK_MONOTONIC but not the same.
 *
 * An OOM kill is told in up to four parts, in this order
 * (mm/oom_kill.c, mm/memcontrol.c), the first three rate-limited, the
 * last never:
 *   COMM invoked oom-killer: gfp_mask=..., order=N, oom_score_adj=N
 *   memory: usage NkB, limit NkB, failcnt N      (a memory cgroup's OOM)
 *   oom-kill:constraint=C,nodemask=...,cpuset=...,mems_allowed=...,
 *            [oom_memcg=PATH,task_memcg=PATH,]task=COMM,pid=N,uid=N
 *   Memory cgroup out of memory: Killed process N (COMM) total-vm:NkB,
 *            anon-rss:NkB, file-rss:NkB, shmem-rss:NkB, UID:N
 *            pgtables:NkB oom_score_adj:N
 * ("Out of memory: Killed process" for a global OOM; kernels before 5.1
 * end after shmem-rss).  oom_kmsg_feed takes the records one by one and
 * gives a kill at its last line, with what the earlier lines of the same
 * report said where they were not rate-limited away. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One record of /dev/kmsg.  text points into the buffer parsed, still
 * escaped, without its newline or continuation lines. */
struct kmsg_record {
	unsigned level, facility;
	uint64_t seq;
	uint64_t usec;
	bool continued; /* the flag 'c': a fragment the next records continue */
	const char *text;
	size_t text_len;
};

/* Parses one record as read(2) gave it.  Returns 0, or -EBADMSG for
 * bytes that are not a record (the reason in why, at most why_size). */
int kmsg_record_parse(const char *buf, size_t len, struct kmsg_record *ret, char *why, size_t why_size);

/* What confined the OOM killer's choice (oom_constraint_text). */
enum oom_constraint {
	OOM_CONSTRAINT_UNKNOWN, /* the summary line was rate-limited away */
	OOM_CONSTRAINT_NONE,    /* the whole machine (a global OOM) */
	OOM_CONSTRAINT_CPUSET,
	OOM_CONSTRAINT_MEMORY_POLICY,
	OOM_CONSTRAINT_MEMCG,
};

const char *oom_constraint_name(enum oom_constraint c);

/* A comm as the kernel prints it: 15 bytes at most, each byte at most
 * four once escaped; a cgroup path as the kernel prints it, cut to this
 * length (a longer one is cut and says so). */
#define OOM_KMSG_COMM_MAX 64
#define OOM_KMSG_PATH_MAX 512

/* A kill as the log told it.  Figures the kernel did not print (an older
 * kernel, a line rate-limited away) are marked absent. */
struct oom_kmsg_kill {
	uint64_t seq, usec;  /* of the "Killed process" record */
	bool memcg;          /* "Memory cgroup out of memory" */
	int pid;
	char comm[OOM_KMSG_COMM_MAX]; /* unescaped, made printable */

	/* the kernel's figures for the victim's memory at the kill */
	uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb;
	bool have_uid, have_pgtables, have_oom_score_adj;
	uint32_t uid;
	uint64_t pgtables_kb;
	int oom_score_adj;

	/* from the summary line, when it was printed for this pid */
	enum oom_constraint constraint;
	bool have_oom_memcg, have_task_memcg;
	char oom_memcg[OOM_KMSG_PATH_MAX];  /* the group whose limit was hit */
	char task_memcg[OOM_KMSG_PATH_MAX]; /* the victim's own group */

	/* from "memory: usage NkB, limit NkB" of the same report */
	bool have_usage;
	uint64_t usage_kb, limit_kb;

	/* the task whose allocation invoked the killer, when it was told */
	char invoker[OOM_KMSG_COMM_MAX];
};

/* The report being read: what its earlier lines said. */
struct oom_kmsg {
	bool open;             /* an "invoked oom-killer" line came */
	char invoker[OOM_KMSG_COMM_MAX];
	bool have_usage;
	uint64_t usage_kb, limit_kb;
	bool have_summary;
	int summary_pid;
	bool summary_uid_set;
	uint32_t summary_uid;
	enum oom_constraint constraint;
	bool have_oom_memcg, have_task_memcg;
	char oom_memcg[OOM_KMSG_PATH_MAX], task_memcg[OOM_KMSG_PATH_MAX];
};

void oom_kmsg_init(struct oom_kmsg *s);

/* Takes the next record.  Returns 1 with *ret filled when the record
 * ends a kill, 0 when it does not (a line of a report, or any other
 * line), or -EBADMSG for a line that starts as an OOM line but does not
 * read as one (the reason in why; the report is dropped, so one bad line
 * never leaks into the next kill). */
int oom_kmsg_feed(struct oom_kmsg *s, const struct kmsg_record *r, struct oom_kmsg_kill *ret, char *why,
		  size_t why_size);
