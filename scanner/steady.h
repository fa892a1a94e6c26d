/* Whether a process changed since its last census, found cheaply: the
 * totals of smaps_rollup (one page-table walk, no per-region text) and a
 * fingerprint of its mappings (the PROCMAP_QUERY ioctl of Linux 6.11+,
 * else the text of /proc/PID/maps), read before a census and compared
 * with what was read before the last one.
 *
 * What it sees: a page touched, freed, swapped, made dirty or shared in
 * any region changes a rollup counter; a mapping made, removed, moved,
 * resized, protected differently, or backed by another file (device,
 * inode, offset, path) changes the fingerprint, even when the totals stay.
 * What slips through (ramwatchd(8), THE STEADY CENSUS): the share of file
 * pages (Pss_File, which other processes move by mapping the same files,
 * so a repeat keeps its census's pss); memory that moves
 * between regions of the same mappings with every total unchanged to the
 * kilobyte between two reads (a page freed in one region and one touched
 * in another), flags of VmFlags alone (madvise hints), and what evidence
 * would read in resident pages; and a 64-bit fingerprint may collide.
 * The census a repeat stands for is then off by what moved, until the
 * next change, a person's request, or a mark takes a full census. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "region.h"

enum steady_source {
	STEADY_NONE,    /* nothing read: never the same as anything */
	STEADY_IOCTL,   /* PROCMAP_QUERY */
	STEADY_MAPS,    /* the text of maps */
};

/* What one read saw. */
struct steady_mark {
	enum steady_source source;
	uint64_t first, last;       /* the rollup's range: the first start, the last end */
	uint64_t kb[_COUNT_MAX];    /* the rollup's counters (kB); Pss without Pss_File */
	uint64_t fingerprint;       /* of the mappings, in source's terms */
	uint64_t mappings;          /* how many the fingerprint covers */
};

/* The fingerprint of a mapping list, fed piece by piece: pure. */
struct steady_hash {
	uint64_t h, len;
	unsigned char buf[8]; /* bytes not yet making a word */
	size_t n;
};

void steady_hash_init(struct steady_hash *s);
void steady_hash_bytes(struct steady_hash *s, const void *data, size_t len);
void steady_hash_u64(struct steady_hash *s, uint64_t v);
/* The fingerprint of what was fed: the same for the same bytes however
 * they were cut. */
uint64_t steady_hash_end(const struct steady_hash *s);

/* The value in kB of the line of smaps_rollup text that starts with name
 * ("Pss_File:"): true with *ret_kb, false when no line has it or its
 * number does not parse.  Pure. */
bool steady_rollup_field(const char *text, size_t len, const char *name, uint64_t *ret_kb);

/* Reads pid_fd's smaps_rollup and the fingerprint of its mappings (the
 * ioctl when use_ioctl and the kernel has it, else maps), the mappings
 * first.  *ret_ioctl (may be NULL) says whether the ioctl was there: a
 * caller that got false need not try it again.  Adds the bytes read from
 * files to *bytes.  Returns 0 with *ret, or -ESRCH (exited or no address
 * space), -EACCES, -ENOMEM, or another negative errno. */
int steady_read(int pid_fd, bool use_ioctl, struct steady_mark *ret, bool *ret_ioctl, uint64_t *bytes);

/* Whether two reads saw the same process memory: the same source, range,
 * counters, mapping count and fingerprint.  STEADY_NONE is never the
 * same. */
bool steady_same(const struct steady_mark *a, const struct steady_mark *b);
