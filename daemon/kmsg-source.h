/* The kernel's log as a source of OOM kills: /dev/kmsg read from its end
 * (only records written after it was opened), each record handed to the
 * OOM kill reader (oom-kmsg.h).
 *
 * Reading it needs CAP_SYSLOG where kernel.dmesg_restrict is 1 (Debian's
 * default), else any user may.  The kernel's buffer is a ring: records
 * overwritten before they were read are lost, and a read says so (EPIPE);
 * they are counted.  Only the kernel's own records are read: a program
 * that writes into /dev/kmsg cannot make one of facility 0, so it cannot
 * fake a kill. */
#pragma once

#include <stdint.h>

#include "oom-kmsg.h"

struct kmsg_source;

/* Called for each kill read; returns 0, or a negative errno that stops
 * the read and is returned. */
typedef int (*kmsg_source_kill_t)(void *userdata, const struct oom_kmsg_kill *k);

/* Opens path (NULL: /dev/kmsg) non-blocking, at its end.  Returns 0 or
 * the negative errno of open (-EPERM, -EACCES without the right). */
int kmsg_source_open(const char *path, kmsg_source_kill_t fn, void *userdata, struct kmsg_source **ret);
struct kmsg_source *kmsg_source_free(struct kmsg_source *s);

/* A descriptor that polls readable when records wait. */
int kmsg_source_fd(const struct kmsg_source *s);

/* Reads every record waiting, at most max_records (the rest on the next
 * call, so that a flood of log lines does not hold the loop).  Returns the
 * number of records read, or fn's error. */
int kmsg_source_read(struct kmsg_source *s, unsigned max_records);

/* What went wrong so far: records lost to the ring, and OOM lines that
 * did not read (the last reason kept). */
struct kmsg_source_stats {
	uint64_t records, lost, bad_lines;
	char last_bad[160];
};
void kmsg_source_stats(const struct kmsg_source *s, struct kmsg_source_stats *ret);
