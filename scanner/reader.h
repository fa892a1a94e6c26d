/* Reading a /proc file in large chunks, optionally overlapping the kernel's
 * work with ours: for a process with thousands of regions, producing smaps
 * is the kernel's work (a page-table walk and text formatting), and parsing
 * it is ours; a helper thread reads the next chunks while the caller parses
 * the previous ones, so on two or more CPUs the census takes about as long
 * as the read alone. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chunked_read_result {
	uint64_t bytes;         /* bytes read */
	uint64_t helper_cpu_us; /* CPU time of the helper thread (0 without one) */
	bool overlapped;        /* whether a helper thread was used */
};

/* Reads fd to its end in chunks of at least RW_SMAPS_READ_SIZE bytes (the
 * last may be shorter) and calls consume for each, in order.  With overlap,
 * a file longer than one chunk is read ahead by a helper thread.  Stops at
 * the first negative value from consume and returns it; returns the -errno
 * of a failed read, or 0.  The helper thread is joined before returning. */
int chunked_read(int fd, bool overlap, int (*consume)(void *userdata, const char *buf, size_t len),
		 void *userdata, struct chunked_read_result *ret);
