/* See win-sysmem.h: the two calls.  Both are documented for any user, no
 * handle needed; under Wine 8 they follow the Linux machine's
 * /proc/meminfo. */
#include "win-sysmem.h"

#include <errno.h>
#include <windows.h>
#include <psapi.h>

int win_sysmem_read(int64_t now_ms, struct store_system *ret)
{
	MEMORYSTATUSEX m = { .dwLength = sizeof(m) };
	PERFORMANCE_INFORMATION p = { .cb = sizeof(p) };

	if (!GlobalMemoryStatusEx(&m) || !GetPerformanceInfo(&p, sizeof(p)))
		return -EIO;
	struct win_sysmem_figures f = {
		.total_phys = m.ullTotalPhys,
		.avail_phys = m.ullAvailPhys,
		.commit_total = p.CommitTotal,
		.commit_limit = p.CommitLimit,
		.page_size = p.PageSize,
	};
	return win_sysmem_row(&f, now_ms, ret);
}
