/* Names of the smaps fields and VmFlags codes. */
#include "region.h"

#include <stddef.h>

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

int vmflag_from_code(const char code[2])
{
#define CODE(a, b) (((unsigned)(a) << 8) | (unsigned)(b))
	switch (CODE(code[0], code[1])) {
	case CODE('r', 'd'): return VMF_RD;
	case CODE('w', 'r'): return VMF_WR;
	case CODE('e', 'x'): return VMF_EX;
	case CODE('s', 'h'): return VMF_SH;
	case CODE('m', 'r'): return VMF_MR;
	case CODE('m', 'w'): return VMF_MW;
	case CODE('m', 'e'): return VMF_ME;
	case CODE('m', 's'): return VMF_MS;
	case CODE('g', 'd'): return VMF_GD;
	case CODE('p', 'f'): return VMF_PF;
	case CODE('l', 'o'): return VMF_LO;
	case CODE('i', 'o'): return VMF_IO;
	case CODE('s', 'r'): return VMF_SR;
	case CODE('r', 'r'): return VMF_RR;
	case CODE('d', 'c'): return VMF_DC;
	case CODE('d', 'e'): return VMF_DE;
	case CODE('a', 'c'): return VMF_AC;
	case CODE('n', 'r'): return VMF_NR;
	case CODE('h', 't'): return VMF_HT;
	case CODE('s', 'f'): return VMF_SF;
	case CODE('a', 'r'): return VMF_AR;
	case CODE('w', 'f'): return VMF_WF;
	case CODE('d', 'd'): return VMF_DD;
	case CODE('s', 'd'): return VMF_SD;
	case CODE('m', 'm'): return VMF_MM;
	case CODE('h', 'g'): return VMF_HG;
	case CODE('n', 'h'): return VMF_NH;
	case CODE('m', 'g'): return VMF_MG;
	case CODE('u', 'm'): return VMF_UM;
	case CODE('u', 'w'): return VMF_UW;
	case CODE('u', 'i'): return VMF_UI;
	case CODE('l', 'f'): return VMF_LF;
	case CODE('b', 't'): return VMF_BT;
	case CODE('m', 't'): return VMF_MT;
	case CODE('s', 's'): return VMF_SS;
	case CODE('s', 'l'): return VMF_SL;
	case CODE('d', 'p'): return VMF_DP;
	case CODE('g', 'u'): return VMF_GU;
	default: return -1;
	}
#undef CODE
}
