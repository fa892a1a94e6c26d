/* min/max/last of the samples of one StoreInterval. */
#include "sample.h"

#include <string.h>

void sample_acc_add(struct sample_acc *a, uint64_t private, uint64_t resident, uint64_t swap, uint32_t count)
{
	if (a->n == 0) {
		a->private_min = a->private_max = private;
		a->resident_min = a->resident_max = resident;
	} else {
		if (private < a->private_min)
			a->private_min = private;
		if (private > a->private_max)
			a->private_max = private;
		if (resident < a->resident_min)
			a->resident_min = resident;
		if (resident > a->resident_max)
			a->resident_max = resident;
	}
	a->private_last = private;
	a->resident_last = resident;
	a->swap_last = swap;
	a->n = a->n > UINT32_MAX - count ? UINT32_MAX : a->n + count;
}

bool sample_acc_take(struct sample_acc *a, int64_t time, struct store_sample *ret)
{
	if (a->n == 0)
		return false;
	*ret = (struct store_sample){
		.time = time,
		.private_min = a->private_min,
		.private_max = a->private_max,
		.private_last = a->private_last,
		.resident_min = a->resident_min,
		.resident_max = a->resident_max,
		.resident_last = a->resident_last,
		.swap_last = a->swap_last,
		.samples = a->n,
	};
	memset(a, 0, sizeof(*a));
	return true;
}
