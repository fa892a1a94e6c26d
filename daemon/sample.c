/* min/max/last of the samples of one StoreInterval, for every counter of
 * SAMPLE_COLUMNS by its how. */
#include "sample.h"

#include <string.h>

/* A sample's figure f into counter v (the first sample: first). */
#define ADD_MIN(v, f) v = first || (f) < v ? (f) : v;
#define ADD_MAX(v, f) v = first || (f) > v ? (f) : v;
#define ADD_LAST(v, f) v = (f);
#define ADD_SUM(v, f)
#define ADD_(name, ctype, sqltype, figure, how, ...) ADD_##how(a->name, f->figure)

void sample_acc_add(struct sample_acc *a, const struct sample_figures *f, uint32_t count)
{
	bool first = a->samples == 0;

	SAMPLE_COLUMNS(ADD_)
	a->samples = a->samples > UINT32_MAX - count ? UINT32_MAX : a->samples + count;
}

bool sample_acc_take(struct sample_acc *a, int64_t time, struct store_sample *ret)
{
	if (a->samples == 0)
		return false;
	*ret = (struct store_sample){ .time = time };
#define TAKE_(name, ...) ret->name = a->name;
	SAMPLE_COLUMNS(TAKE_)
#undef TAKE_
	memset(a, 0, sizeof(*a));
	return true;
}
