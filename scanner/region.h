/* One region (VMA) of a process's address space, as /proc/PID/smaps shows
 * it: the header line, every page count the kernel prints, and the class
 * the classifier gave it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The size fields of smaps, all printed in kB and stored here in bytes.
 * Order is the kernel's (fs/proc/task_mmu.c, Linux 6.x); smaps_rollup adds
 * the Pss_Anon/File/Shmem split.  Old kernels lack some (Pss_Dirty before
 * 6.0, KSM before 6.6): a missing field reads as 0 and its bit in
 * region.present stays clear. */
enum smaps_field {
	SMAPS_SIZE,
	SMAPS_KERNEL_PAGE_SIZE,
	SMAPS_MMU_PAGE_SIZE,
	SMAPS_RSS,
	SMAPS_PSS,
	SMAPS_PSS_DIRTY,
	SMAPS_PSS_ANON,
	SMAPS_PSS_FILE,
	SMAPS_PSS_SHMEM,
	SMAPS_SHARED_CLEAN,
	SMAPS_SHARED_DIRTY,
	SMAPS_PRIVATE_CLEAN,
	SMAPS_PRIVATE_DIRTY,
	SMAPS_REFERENCED,
	SMAPS_ANONYMOUS,
	SMAPS_KSM,
	SMAPS_LAZY_FREE,
	SMAPS_ANON_HUGE_PAGES,
	SMAPS_SHMEM_PMD_MAPPED,
	SMAPS_FILE_PMD_MAPPED,
	SMAPS_SHARED_HUGETLB,
	SMAPS_PRIVATE_HUGETLB,
	SMAPS_SWAP,
	SMAPS_SWAP_PSS,
	SMAPS_LOCKED,
	_SMAPS_FIELD_MAX
};

/* The page counts a region keeps: those of doc/design.md#the-census (Rss, Pss,
 * Shared/Private Clean/Dirty, Anonymous, Swap, SwapPss, Locked) and the huge
 * pages.  The parser reads and checks every field of enum smaps_field; the
 * others (page sizes, Referenced, KSM, ...) are not kept, which halves the
 * memory of a census of many regions. */
enum region_count {
	COUNT_RSS,
	COUNT_PSS,
	COUNT_SHARED_CLEAN,
	COUNT_SHARED_DIRTY,
	COUNT_PRIVATE_CLEAN,
	COUNT_PRIVATE_DIRTY,
	COUNT_ANONYMOUS,
	COUNT_ANON_HUGE_PAGES,
	COUNT_SWAP,
	COUNT_SWAP_PSS,
	COUNT_LOCKED,
	COUNT_SHARED_HUGETLB,
	COUNT_PRIVATE_HUGETLB,
	_COUNT_MAX
};

/* The count a field is kept as, or -1 when it is only checked. */
int region_count_of_field(enum smaps_field f);

/* The kernel's name of a field ("Pss_Dirty") and ours in JSON ("pss_dirty"). */
const char *smaps_field_kernel_name(enum smaps_field f);
const char *smaps_field_json_name(enum smaps_field f);

/* VmFlags, by their two-letter codes (Documentation/filesystems/proc.rst).
 * Bits are ours, not the kernel's; codes we do not know are ignored. */
enum vmflag {
	VMF_RD, VMF_WR, VMF_EX, VMF_SH, VMF_MR, VMF_MW, VMF_ME, VMF_MS,
	VMF_GD, VMF_PF, VMF_LO, VMF_IO, VMF_SR, VMF_RR, VMF_DC, VMF_DE,
	VMF_AC, VMF_NR, VMF_HT, VMF_SF, VMF_AR, VMF_WF, VMF_DD, VMF_SD,
	VMF_MM, VMF_HG, VMF_NH, VMF_MG, VMF_UM, VMF_UW, VMF_UI, VMF_LF,
	VMF_BT, VMF_MT, VMF_SS, VMF_SL, VMF_DP, VMF_GU,
	_VMF_MAX
};

const char *vmflag_code(enum vmflag f);

extern const uint8_t vmflag_by_code[26 * 26];

/* Returns the flag for a two-letter code, or -1 (inline: every region has
 * a VmFlags line of a dozen codes). */
static inline int vmflag_from_code(const char code[2])
{
	if (code[0] < 'a' || code[0] > 'z' || code[1] < 'a' || code[1] > 'z')
		return -1;
	return (int)vmflag_by_code[(code[0] - 'a') * 26 + (code[1] - 'a')] - 1;
}

struct region {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	char perms[4]; /* "rw-p": r, w, x, then p (private) or s (shared) */
	uint8_t cls;   /* enum class_id, set by classify() */
	uint8_t rule;  /* index of the rule that decided it */
	int8_t thp_eligible;   /* -1 when not shown */
	int8_t protection_key; /* -1 when not shown */
	bool part;             /* a part of a kernel region that evidence split */
	const char *path; /* NULL when the kernel shows none; owned by the census's pool */
	/* what evidence read in it and what that showed (evidence.c), NULL
	 * when it was not read; owned by the census's pool */
	const char *evidence;
	uint64_t vmflags; /* bits of enum vmflag */
	uint32_t present; /* bits of enum smaps_field seen in the input */
	/* the run of contiguous anonymous private regions this one belongs to:
	 * the index of its first region, and at that first region the index of
	 * the last; set by classify() */
	uint32_t run_first, run_last;
	/* the counts in kB, 40 bits each (up to 1 PiB per count of one region):
	 * 65 bytes where 8-byte counts of every field would take 200, and a
	 * census of 20,000 regions pays for its memory in page faults */
	uint32_t kb_low[_COUNT_MAX];
	uint8_t kb_high[_COUNT_MAX];
};

/* Largest value of a field we keep, in kB (40 bits: 1 PiB). */
#define REGION_FIELD_KB_MAX ((1ull << 40) - 1)

/* A count in bytes (0 when the kernel did not show it). */
static inline uint64_t region_field(const struct region *r, enum region_count c)
{
	return (((uint64_t)r->kb_high[c] << 32) | r->kb_low[c]) * 1024;
}

/* Stores a count given in kB, at most REGION_FIELD_KB_MAX. */
static inline void region_set_kb(struct region *r, enum region_count c, uint64_t kb)
{
	r->kb_low[c] = (uint32_t)kb;
	r->kb_high[c] = (uint8_t)(kb >> 32);
}

/* Arrays of regions, grown by regions_grow: a few by malloc, many in a
 * mapping of their own (huge pages where allowed, never moved).  *regions
 * (NULL at first) holds used regions of *allocated; the array grows to at
 * most max.  Returns 0, -E2BIG at max, -ENOMEM. */
int regions_grow(struct region **regions, size_t used, size_t *allocated, size_t max);
/* Frees an array of regions; accepts NULL. */
void regions_free(struct region *regions);
/* The index of the first of n regions (in address order, apart) that ends
 * after addr: the one holding addr, or the next; n when none does. */
size_t regions_first_after(const struct region *regions, size_t n, uint64_t addr);

static inline uint64_t region_size(const struct region *r)
{
	return r->end - r->start;
}

/* The census's definitions, one place: private = Anonymous + Swap (anonymous
 * memory, resident or swapped: what the process alone costs), resident = Rss. */
static inline uint64_t region_private(const struct region *r)
{
	return region_field(r, COUNT_ANONYMOUS) + region_field(r, COUNT_SWAP);
}

static inline uint64_t region_resident(const struct region *r)
{
	return region_field(r, COUNT_RSS);
}

static inline bool region_has_flag(const struct region *r, enum vmflag f)
{
	return (r->vmflags >> f) & 1u;
}

static inline bool region_readable(const struct region *r)
{
	return r->perms[0] == 'r';
}
static inline bool region_writable(const struct region *r)
{
	return r->perms[1] == 'w';
}
static inline bool region_executable(const struct region *r)
{
	return r->perms[2] == 'x';
}
static inline bool region_shared(const struct region *r)
{
	return r->perms[3] == 's';
}
/* No access at all ("---p"): a reservation or a guard, costing no memory. */
static inline bool region_inaccessible(const struct region *r)
{
	return r->perms[0] == '-' && r->perms[1] == '-' && r->perms[2] == '-';
}
