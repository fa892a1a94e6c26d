/* In use or kept, over time (heap-trend.h): pure arithmetic on the heap
 * walks' figures of a class at two censuses or along a process's life. */
#include "heap-trend.h"

#include "limits.h"
#include "macro.h"

static const char *const growth_names[_HEAP_GROWTH_MAX] = {
	[HEAP_GROWTH_NONE] = "none",	   [HEAP_GROWTH_HELD] = "held",	      [HEAP_GROWTH_KEPT] = "kept",
	[HEAP_GROWTH_BOTH] = "both",	   [HEAP_GROWTH_UNKNOWN] = "unknown", [HEAP_GROWTH_OVERHEAD] = "overhead",
};

const char *heap_growth_name(enum heap_growth g)
{
	return (unsigned)g < _HEAP_GROWTH_MAX ? growth_names[g] : "?";
}

/* b less a, as a signed number of bytes. */
static int64_t rise(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a);
}

enum heap_growth heap_trend_growth(const struct heap_point *a, const struct heap_point *b)
{
	if (rise(a->private, b->private) < (int64_t)RW_HEAP_GROWTH_MIN)
		return HEAP_GROWTH_NONE;
	if (!a->known || !b->known)
		return HEAP_GROWTH_UNKNOWN;
	int64_t used = rise(a->in_use, b->in_use), kept = rise(a->free, b->free), unknown = rise(a->unknown, b->unknown);
	if (unknown > used && unknown > kept)
		return HEAP_GROWTH_UNKNOWN;
	if (used < (int64_t)RW_HEAP_GROWTH_MIN && kept < (int64_t)RW_HEAP_GROWTH_MIN)
		return HEAP_GROWTH_OVERHEAD;
	int64_t more = used > kept ? used : kept, less = used > kept ? kept : used;
	if (less >= (int64_t)RW_HEAP_GROWTH_MIN && 2 * less >= more)
		return HEAP_GROWTH_BOTH;
	return used >= kept ? HEAP_GROWTH_HELD : HEAP_GROWTH_KEPT;
}

bool heap_trend_slow_rise(const struct heap_point *v, size_t n, struct heap_rise *ret)
{
	size_t idx[RW_HEAP_RISE_CENSUSES], k = 0;

	*ret = (struct heap_rise){ 0 };
	/* the last RW_HEAP_RISE_CENSUSES points that know the figures, newest
	 * first */
	for (size_t i = n; i > 0 && k < ELEMENTSOF(idx); i--)
		if (v[i - 1].known)
			idx[k++] = i - 1;
	if (k < ELEMENTSOF(idx))
		return false;
	const struct heap_point *first = &v[idx[k - 1]], *last = &v[idx[0]];
	for (size_t j = k - 1; j > 0; j--) {
		ret->steps++;
		if (v[idx[j - 1]].in_use > v[idx[j]].in_use)
			ret->rises++;
	}
	ret->first = idx[k - 1];
	ret->last = idx[0];
	ret->span_ms = last->time_ms - first->time_ms;
	ret->change = rise(first->in_use, last->in_use);
	if (ret->span_ms > 0)
		ret->bytes_per_hour = (double)ret->change * 3600000.0 / (double)ret->span_ms;
	ret->flagged = ret->rises >= RW_HEAP_RISE_MIN && ret->span_ms >= (int64_t)RW_HEAP_RISE_SPAN_MS &&
		       ret->change >= (int64_t)RW_HEAP_RISE_BYTES;
	return ret->flagged;
}
