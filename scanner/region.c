/* Names of the smaps fields and VmFlags codes. */
#include "region.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const struct {
	const char *kernel, *json;
} field_names[_SMAPS_FIELD_MAX] = {
	[SMAPS_SIZE] = { "Size", "size" },
	[SMAPS_KERNEL_PAGE_SIZE] = { "KernelPageSize", "kernel_page_size" },
	[SMAPS_MMU_PAGE_SIZE] = { "MMUPageSize", "mmu_page_size" },
	[SMAPS_RSS] = { "Rss", "rss" },
	[SMAPS_PSS] = { "Pss", "pss" },
	[SMAPS_PSS_DIRTY] = { "Pss_Dirty", "pss_dirty" },
	[SMAPS_PSS_ANON] = { "Pss_Anon", "pss_anon" },
	[SMAPS_PSS_FILE] = { "Pss_File", "pss_file" },
	[SMAPS_PSS_SHMEM] = { "Pss_Shmem", "pss_shmem" },
	[SMAPS_SHARED_CLEAN] = { "Shared_Clean", "shared_clean" },
	[SMAPS_SHARED_DIRTY] = { "Shared_Dirty", "shared_dirty" },
	[SMAPS_PRIVATE_CLEAN] = { "Private_Clean", "private_clean" },
	[SMAPS_PRIVATE_DIRTY] = { "Private_Dirty", "private_dirty" },
	[SMAPS_REFERENCED] = { "Referenced", "referenced" },
	[SMAPS_ANONYMOUS] = { "Anonymous", "anonymous" },
	[SMAPS_KSM] = { "KSM", "ksm" },
	[SMAPS_LAZY_FREE] = { "LazyFree", "lazy_free" },
	[SMAPS_ANON_HUGE_PAGES] = { "AnonHugePages", "anon_huge_pages" },
	[SMAPS_SHMEM_PMD_MAPPED] = { "ShmemPmdMapped", "shmem_pmd_mapped" },
	[SMAPS_FILE_PMD_MAPPED] = { "FilePmdMapped", "file_pmd_mapped" },
	[SMAPS_SHARED_HUGETLB] = { "Shared_Hugetlb", "shared_hugetlb" },
	[SMAPS_PRIVATE_HUGETLB] = { "Private_Hugetlb", "private_hugetlb" },
	[SMAPS_SWAP] = { "Swap", "swap" },
	[SMAPS_SWAP_PSS] = { "SwapPss", "swap_pss" },
	[SMAPS_LOCKED] = { "Locked", "locked" },
};

static const int8_t kept[_SMAPS_FIELD_MAX] = {
	[SMAPS_SIZE] = -1, [SMAPS_KERNEL_PAGE_SIZE] = -1, [SMAPS_MMU_PAGE_SIZE] = -1,
	[SMAPS_RSS] = COUNT_RSS, [SMAPS_PSS] = COUNT_PSS, [SMAPS_PSS_DIRTY] = -1,
	[SMAPS_PSS_ANON] = -1, [SMAPS_PSS_FILE] = -1, [SMAPS_PSS_SHMEM] = -1,
	[SMAPS_SHARED_CLEAN] = COUNT_SHARED_CLEAN, [SMAPS_SHARED_DIRTY] = COUNT_SHARED_DIRTY,
	[SMAPS_PRIVATE_CLEAN] = COUNT_PRIVATE_CLEAN, [SMAPS_PRIVATE_DIRTY] = COUNT_PRIVATE_DIRTY,
	[SMAPS_REFERENCED] = -1, [SMAPS_ANONYMOUS] = COUNT_ANONYMOUS, [SMAPS_KSM] = -1, [SMAPS_LAZY_FREE] = -1,
	[SMAPS_ANON_HUGE_PAGES] = COUNT_ANON_HUGE_PAGES, [SMAPS_SHMEM_PMD_MAPPED] = -1,
	[SMAPS_FILE_PMD_MAPPED] = -1, [SMAPS_SHARED_HUGETLB] = COUNT_SHARED_HUGETLB,
	[SMAPS_PRIVATE_HUGETLB] = COUNT_PRIVATE_HUGETLB, [SMAPS_SWAP] = COUNT_SWAP,
	[SMAPS_SWAP_PSS] = COUNT_SWAP_PSS, [SMAPS_LOCKED] = COUNT_LOCKED,
};

int region_count_of_field(enum smaps_field f)
{
	return f < _SMAPS_FIELD_MAX ? kept[f] : -1;
}

const char *smaps_field_kernel_name(enum smaps_field f)
{
	return f < _SMAPS_FIELD_MAX ? field_names[f].kernel : NULL;
}

const char *smaps_field_json_name(enum smaps_field f)
{
	return f < _SMAPS_FIELD_MAX ? field_names[f].json : NULL;
}

static const char vmflag_codes[_VMF_MAX][3] = {
	[VMF_RD] = "rd", [VMF_WR] = "wr", [VMF_EX] = "ex", [VMF_SH] = "sh",
	[VMF_MR] = "mr", [VMF_MW] = "mw", [VMF_ME] = "me", [VMF_MS] = "ms",
	[VMF_GD] = "gd", [VMF_PF] = "pf", [VMF_LO] = "lo", [VMF_IO] = "io",
	[VMF_SR] = "sr", [VMF_RR] = "rr", [VMF_DC] = "dc", [VMF_DE] = "de",
	[VMF_AC] = "ac", [VMF_NR] = "nr", [VMF_HT] = "ht", [VMF_SF] = "sf",
	[VMF_AR] = "ar", [VMF_WF] = "wf", [VMF_DD] = "dd", [VMF_SD] = "sd",
	[VMF_MM] = "mm", [VMF_HG] = "hg", [VMF_NH] = "nh", [VMF_MG] = "mg",
	[VMF_UM] = "um", [VMF_UW] = "uw", [VMF_UI] = "ui", [VMF_LF] = "lf",
	[VMF_BT] = "bt", [VMF_MT] = "mt", [VMF_SS] = "ss", [VMF_SL] = "sl",
	[VMF_DP] = "dp", [VMF_GU] = "gu",
};

const char *vmflag_code(enum vmflag f)
{
	return f < _VMF_MAX ? vmflag_codes[f] : NULL;
}

/* One more than the flag of each two-letter code (0: unknown), indexed by
 * the letters: one load per code, for the VmFlags line of every region. */
#define C(a, b) (((a) - 'a') * 26 + ((b) - 'a'))
const uint8_t vmflag_by_code[26 * 26] = {
	[C('r', 'd')] = VMF_RD + 1,
	[C('w', 'r')] = VMF_WR + 1,
	[C('e', 'x')] = VMF_EX + 1,
	[C('s', 'h')] = VMF_SH + 1,
	[C('m', 'r')] = VMF_MR + 1,
	[C('m', 'w')] = VMF_MW + 1,
	[C('m', 'e')] = VMF_ME + 1,
	[C('m', 's')] = VMF_MS + 1,
	[C('g', 'd')] = VMF_GD + 1,
	[C('p', 'f')] = VMF_PF + 1,
	[C('l', 'o')] = VMF_LO + 1,
	[C('i', 'o')] = VMF_IO + 1,
	[C('s', 'r')] = VMF_SR + 1,
	[C('r', 'r')] = VMF_RR + 1,
	[C('d', 'c')] = VMF_DC + 1,
	[C('d', 'e')] = VMF_DE + 1,
	[C('a', 'c')] = VMF_AC + 1,
	[C('n', 'r')] = VMF_NR + 1,
	[C('h', 't')] = VMF_HT + 1,
	[C('s', 'f')] = VMF_SF + 1,
	[C('a', 'r')] = VMF_AR + 1,
	[C('w', 'f')] = VMF_WF + 1,
	[C('d', 'd')] = VMF_DD + 1,
	[C('s', 'd')] = VMF_SD + 1,
	[C('m', 'm')] = VMF_MM + 1,
	[C('h', 'g')] = VMF_HG + 1,
	[C('n', 'h')] = VMF_NH + 1,
	[C('m', 'g')] = VMF_MG + 1,
	[C('u', 'm')] = VMF_UM + 1,
	[C('u', 'w')] = VMF_UW + 1,
	[C('u', 'i')] = VMF_UI + 1,
	[C('l', 'f')] = VMF_LF + 1,
	[C('b', 't')] = VMF_BT + 1,
	[C('m', 't')] = VMF_MT + 1,
	[C('s', 's')] = VMF_SS + 1,
	[C('s', 'l')] = VMF_SL + 1,
	[C('d', 'p')] = VMF_DP + 1,
	[C('g', 'u')] = VMF_GU + 1,
};
#undef C



/* Regions live in a block that says how it was allocated: malloc for a
 * few, their own mapping, in huge pages where the system allows, for many.
 * Fresh memory is paid for in page faults (about a tenth of a census of
 * 20,000 regions with 4 KiB pages); one 2 MiB fault replaces 512. */
struct region_block {
	size_t map_size; /* bytes mapped, or 0 when malloc'd */
	size_t _align;
	struct region regions[];
};

#define HUGE_PAGE (2u << 20)
/* From this size on (about 1,800 regions), regions get a mapping of their
 * own: the first huge page costs as much as zeroing 2 MiB, which a small
 * process should not pay. */
#define MAPPED_REGIONS_MIN (256u << 10)

static struct region_block *block_of(struct region *r)
{
	return r ? (struct region_block *)((char *)r - offsetof(struct region_block, regions)) : NULL;
}

void regions_free(struct region *regions)
{
	struct region_block *b = block_of(regions);
	if (!b)
		return;
	if (b->map_size)
		munmap(b, b->map_size);
	else
		free(b);
}

/* A mapping sized for max regions: address space only (MAP_NORESERVE),
 * faulted in as it fills, so it never moves again.  NULL when the system
 * will not reserve it (strict overcommit). */
static struct region_block *map_block(size_t max)
{
	size_t bytes = offsetof(struct region_block, regions) + max * sizeof(struct region);
	size_t size = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	struct region_block *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				      -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	(void)madvise(b, size, MADV_HUGEPAGE); /* a hint: THP may be off */
	b->map_size = size;
	return b;
}

int regions_grow(struct region **regions, size_t used, size_t *allocated, size_t max)
{
	struct region_block *old = block_of(*regions), *b;
	size_t want = *allocated ? *allocated * 2 : 256;

	if (want > max)
		want = max;
	if (want <= *allocated)
		return -E2BIG;
	if (want * sizeof(struct region) >= MAPPED_REGIONS_MIN && (!old || !old->map_size) && (b = map_block(max))) {
		if (used)
			memcpy(b->regions, *regions, used * sizeof(struct region));
		regions_free(*regions);
		*regions = b->regions;
		*allocated = max;
		return 0;
	}
	b = realloc(old, offsetof(struct region_block, regions) + want * sizeof(struct region));
	if (!b)
		return -ENOMEM;
	b->map_size = 0;
	*regions = b->regions;
	*allocated = want;
	return 0;
}

size_t regions_first_after(const struct region *regions, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (regions[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
