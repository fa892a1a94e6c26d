/* Taking a census: of a live process (reading /proc/PID) or of a saved
 * smaps file.  The one entry point the client and the daemon call. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

struct census;
struct gpu;
struct gpu_snapshot;

struct scan_options {
	const char *proc_root; /* NULL: /proc */
	size_t max_regions;    /* 0: RW_REGIONS_MAX */
	size_t top;            /* largest regions and files kept; 0: RW_TOP_DEFAULT */
	bool keep_regions;     /* keep every region in the census */
	bool skip_stack_pointers;
	/* Evidence (evidence.h): read by default from a live process; not
	 * with no_evidence.  max_reads bounds it (0: RW_EVIDENCE_READS_MAX).
	 * record_memory, when set, receives a memory image of what was read
	 * (memimage.h); memory_image, for a saved smaps file, is the image
	 * to read evidence from. */
	bool no_evidence;
	size_t max_reads;
	FILE *record_memory;
	const char *memory_image;
	/* Heap walks (heap-walk.h): after evidence, from a live process or a
	 * memory image, the allocators' own structures are read to tell in
	 * use from free in each class; not with no_heap (nor without
	 * evidence).  heap_max_bytes bounds the bytes read (0:
	 * RW_HEAP_READ_MAX); heap_deadline_us (monotonic, 0: none) is when
	 * the walks stop, what they did not reach being unknown, so that a
	 * census never waits for them past its budget. */
	bool no_heap;
	uint64_t heap_max_bytes;
	uint64_t heap_deadline_us;
	/* A light census (for huge processes): the regions from maps, which
	 * costs no page-table walk, classified by their shape, and the totals
	 * from smaps_rollup (one walk, no per-region text).  Class and region
	 * sizes are known; their memory counters are not (census.light). */
	bool light;
	/* Called after each read of smaps with the bytes read so far; a
	 * negative return aborts the census with that error (a time limit). */
	int (*progress)(void *userdata, uint64_t bytes_read);
	void *userdata;
	/* GPU memory (census.gpu): from gpu_snapshot when set (the daemon's
	 * latest, shared by its censuses), else from a snapshot taken
	 * through gpu right after the regions are read; with neither the
	 * section is not taken.  A saved smaps file never has one. */
	const struct gpu_snapshot *gpu_snapshot;
	struct gpu *gpu;
};

/* Takes a census of process pid.  Returns 0 with *ret (owned by the
 * caller, census_free), or:
 *   -ENOENT      no such process
 *   -EACCES      smaps may not be read (needs the same user or CAP_SYS_PTRACE)
 *   -ESRCH       the process exited during the scan (never a partial census)
 *   -EOPNOTSUPP  a kernel thread: no address space
 *   -EBADMSG     the kernel's text did not parse (a bug: report it)
 *   -E2BIG       more regions than the limit
 *   -ECANCELED or the progress callback's error
 * with err (may be NULL) saying so. */
int scan_process(int pid, const struct scan_options *o, struct census **ret, struct error *err);

/* Fills c->gpu from a snapshot: state, message, driver version, and the
 * uses of c->pid with their devices' index, UUID, name and memory size.
 * nvidia_mapped says whether the process maps /dev/nvidia*.  Returns 0 or
 * -ENOMEM (c->gpu is then not taken). */
int scan_fill_gpu(struct census *c, const struct gpu_snapshot *s, bool nvidia_mapped);

/* Takes a census of a saved smaps file (and, optionally, the process's saved
 * status file; either path may be "-" for standard input).  Identity and
 * cost are unknown.  Returns 0, -EBADMSG (malformed: the message names the
 * line), -ENODATA (no regions at all), or the -errno of reading. */
int scan_smaps_file(const char *smaps_path, const char *status_path, const struct scan_options *o,
		    struct census **ret, struct error *err);
