/* The machine's memory on Windows (sysmem.h): GlobalMemoryStatusEx and
 * the performance information, through win-sysmem.h.  Windows has no
 * proc root and no pressure stall information: root_fd is not read, and
 * the row says it has no pressure. */
#include "sysmem.h"

#include "win-sysmem.h"

int sysmem_read(int root_fd, int64_t now_ms, struct store_system *ret)
{
	(void)root_fd;
	return win_sysmem_read(now_ms, ret);
}
