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
 * next change, a person's request, or a mark takes a full census.
 *
 * Where the daemon's change watch says a process's mappings did not
 * change (daemon/change-watch.h), the check reads the names of its file
 * mappings instead of maps (steady_read_kept): a rename or deletion is all
 * that changes what maps shows then, and the names are what the kernel
 * gives maps.
 *
 * Without the watch, the check between two whole reads of the mappings
 * (steady_read_files) reads statm's size, resident and shared pages and
 * every file mapping through PROCMAP_QUERY, not maps: anonymous mappings
 * are left to statm (one made, removed or resized moves its size) and to
 * the next whole read, which alone sees one protected differently or moved
 * with every total the same. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "region.h"

enum steady_source {
	STEADY_NONE,    /* nothing read: never the same as anything */
	STEADY_IOCTL,   /* PROCMAP_QUERY */
	STEADY_MAPS,    /* the text of maps */
	STEADY_FILES,   /* not the whole list: only the file mappings and statm */
};

/* What one read saw. */
struct steady_mark {
	enum steady_source source;
	uint64_t first, last;       /* the rollup's range: the first start, the last end */
	uint64_t kb[_COUNT_MAX];    /* the rollup's counters (kB); Pss without Pss_File */
	uint64_t fingerprint;       /* of the mappings, in source's terms */
	uint64_t mappings;          /* how many the fingerprint covers */
	/* the names of the file mappings, through PROCMAP_QUERY (STEADY_READ_NAMES) */
	bool has_names;             /* false: not asked, no ioctl, or too many to be cheap */
	uint64_t names;             /* their fingerprint */
	uint64_t named;             /* how many file mappings */
	/* every file mapping through PROCMAP_QUERY (STEADY_READ_FILES) */
	bool has_files;             /* false: not asked, or no ioctl */
	uint64_t files;             /* their fingerprint: range, protection, offset, file, name */
	uint64_t filed;             /* how many */
	/* statm (STEADY_READ_FILES): the address space, resident, and the
	 * resident pages file-backed or shared, in pages */
	bool has_statm;
	uint64_t statm[3];
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

/* What steady_read reads besides smaps_rollup and the text of maps. */
#define STEADY_READ_IOCTL 1u /* the fingerprint through PROCMAP_QUERY, where the kernel has it */
#define STEADY_READ_NAMES 2u /* the names of the file mappings too, while they are few (below) */
#define STEADY_READ_FILES 4u /* statm and every file mapping through PROCMAP_QUERY too (steady_read_files) */

/* A process's file mappings are "few", and their names worth a check of
 * their own, while there are at most one for every STEADY_NAMES_PER of
 * its mappings: a query of one costs about what reading this many lines of
 * maps does (BENCHMARKS.md, the steady check), and their starts kept cost
 * 8 bytes each. */
#define STEADY_NAMES_PER 8

/* Where a read with names found the file mappings (their starts), for the
 * checks that compare with it (steady_read_kept).  The caller's; zeroed is
 * empty. */
struct steady_files {
	uint64_t *start;
	size_t n, allocated;
};

void steady_files_done(struct steady_files *f);

/* Reads pid_fd's smaps_rollup and the fingerprint of its mappings (the
 * ioctl with STEADY_READ_IOCTL where the kernel has it, else maps), the
 * mappings first; with STEADY_READ_NAMES and files, the names of its file
 * mappings after them, their starts into *files (has_names false, and no
 * starts, without the ioctl or with too many); with STEADY_READ_FILES,
 * statm and every file mapping as steady_read_files reads them, for its
 * checks to compare with, their starts into *files (without
 * STEADY_READ_NAMES; has_files false without the ioctl, and a caller
 * makes no such check then).  *ret_ioctl (may be NULL)
 * says whether the ioctl was there: a caller that got false need not try
 * it again.  Adds the bytes read from files to *bytes.  Returns 0 with
 * *ret, or -ESRCH (exited or no address space), -EACCES, -ENOMEM, or
 * another negative errno. */
int steady_read(int pid_fd, unsigned flags, struct steady_mark *ret, struct steady_files *files, bool *ret_ioctl,
		uint64_t *bytes);

/* The check of a process whose mappings, all but the names of their
 * files, are known to be as they were when was was read (the daemon's
 * change watch says so): smaps_rollup and the names of the file mappings
 * at the starts files holds from that read, the rest taken from was,
 * which must have names (-EINVAL).  A rename or deletion of a mapped
 * file, or of a directory above one, changes its name without touching
 * the address space: the names are read every time.  Returns 0 with *ret,
 * or as steady_read. */
int steady_read_kept(int pid_fd, const struct steady_mark *was, const struct steady_files *files,
		     struct steady_mark *ret, uint64_t *bytes);

/* The check between two whole reads without the change watch: statm,
 * the file mappings at the starts files holds from the last whole read
 * with STEADY_READ_FILES, was (their range, protection, offset, file and
 * name, through PROCMAP_QUERY), and smaps_rollup; not maps.  Source
 * STEADY_FILES, which steady_same compares with was.  It costs about the
 * rollup alone where most mappings are anonymous.  What it does not see
 * waits for the next whole read: an anonymous mapping protected
 * differently or moved with every total the same, a mapping made over
 * another of the same size.  Returns 0 with *ret, -EINVAL when was has no
 * file mappings (no ioctl when it was read) or files is not theirs,
 * -ENOTTY where the kernel has no ioctl, or as steady_read. */
int steady_read_files(int pid_fd, const struct steady_mark *was, const struct steady_files *files,
		      struct steady_mark *ret, uint64_t *bytes);

/* Adds what a whole read with STEADY_READ_FILES has besides to m, a read
 * of steady_read_files (the check found a change, and the census after it
 * needs the whole list for the checks that compare with its mark): the
 * fingerprint of the text of maps (source STEADY_MAPS) and every file
 * mapping, their starts into files.  Returns 0, or as steady_read. */
int steady_read_maps(int pid_fd, struct steady_mark *m, struct steady_files *files, uint64_t *bytes);

/* What the daemon's change watch said of a process's mappings, and of its
 * memory, since the last take before its census (daemon/change-watch.h). */
enum steady_mappings {
	STEADY_MAPPINGS_UNKNOWN, /* no watch, or one that cannot tell: read maps */
	STEADY_MAPPINGS_MOVED,   /* they may have changed */
	STEADY_MAPPINGS_KEPT,    /* they did not; its memory may have */
	STEADY_MAPPINGS_STILL,   /* they did not, nor did its memory: no event at all */
};

/* Whether two reads saw the same process memory: the same range and
 * counters; the same whole list of mappings (source, count, fingerprint)
 * where both read it, else (one is STEADY_FILES) the same file mappings
 * and statm, which both must have read; statm and file mappings the same
 * where both read them; and names of file mappings read by both, and the
 * same.  STEADY_NONE is never the same. */
bool steady_same(const struct steady_mark *a, const struct steady_mark *b);
