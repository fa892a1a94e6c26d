/* See win-sysmem.h: the row from the figures. */
#include "win-sysmem.h"

#include <errno.h>

int win_sysmem_row(const struct win_sysmem_figures *f, int64_t now_ms, struct store_system *ret)
{
	uint64_t charge, limit;

	if (f->page_size == 0 || __builtin_mul_overflow(f->commit_total, f->page_size, &charge) ||
	    __builtin_mul_overflow(f->commit_limit, f->page_size, &limit))
		return -EOVERFLOW;
	if (f->avail_phys > f->total_phys || charge > limit)
		return -EBADMSG;
	uint64_t swap_total = limit > f->total_phys ? limit - f->total_phys : 0;
	uint64_t uncharged = limit - charge;
	*ret = (struct store_system){
		.time = now_ms,
		.mem_total = f->total_phys,
		.mem_available = f->avail_phys,
		.swap_total = swap_total,
		.swap_free = uncharged < swap_total ? uncharged : swap_total,
		.committed_as = charge,
		.commit_limit = limit,
		.have_pressure = false,
	};
	return 0;
}
