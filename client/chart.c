/* The arithmetic of the report's charts, apart from the page that draws
 * them so that the unit tests check it figure by figure.  A chart holds a
 * few hundred points (the client asks for the fast tier in that many
 * buckets), so nothing here is tuned. */
#include "chart.h"

#include <math.h>
#include <stdlib.h>

#include "macro.h"

#define MS_PER_SEC 1000
#define MS_PER_MIN (60 * MS_PER_SEC)
#define MS_PER_HOUR (60 * MS_PER_MIN)
#define MS_PER_DAY (24 * MS_PER_HOUR)

double chart_scale_map(const struct chart_scale *s, double v)
{
	if (s->d1 == s->d0)
		return s->r0;
	return s->r0 + (v - s->d0) * (s->r1 - s->r0) / (s->d1 - s->d0);
}

int64_t chart_bucket_ms(int64_t t0, int64_t t1, size_t points)
{
	int64_t span = t1 > t0 ? t1 - t0 : 0;

	if (points < 1)
		points = 1;
	/* rounded up, so that the buckets are no more than points */
	return span / (int64_t)points + 1;
}

static size_t clamp_most(size_t most)
{
	return most < 1 ? 1 : most > CHART_TICKS_MAX ? CHART_TICKS_MAX : most;
}

void chart_size_ticks(uint64_t max, size_t most, struct chart_ticks *ret)
{
	uint64_t step = 1, steps;

	most = clamp_most(most);
	if (max > CHART_SIZE_MAX)
		max = CHART_SIZE_MAX;
	/* steps of 2^k bytes: their multiples are what units_format_size
	 * writes shortest ("192M", not "201326592") */
	for (;;) {
		steps = max / step + (max % step != 0);
		if (steps <= most)
			break;
		step <<= 1;
	}
	if (steps == 0)
		steps = 1;
	ret->n = steps + 1;
	for (uint64_t k = 0; k <= steps; k++) {
		ret->tick[k].value = (double)(k * step);
		units_format_size(ret->tick[k].label, k * step);
	}
	ret->top = (double)(steps * step);
}

void chart_time_ticks(int64_t t0, int64_t t1, size_t most, struct chart_ticks *ret)
{
	static const int64_t round_steps[] = {
		1, 2, 5, 10, 20, 50, 100, 200, 500,
		MS_PER_SEC, 2 * MS_PER_SEC, 5 * MS_PER_SEC, 10 * MS_PER_SEC, 15 * MS_PER_SEC, 30 * MS_PER_SEC,
		MS_PER_MIN, 2 * MS_PER_MIN, 5 * MS_PER_MIN, 10 * MS_PER_MIN, 15 * MS_PER_MIN, 30 * MS_PER_MIN,
		MS_PER_HOUR, 2 * MS_PER_HOUR, 3 * MS_PER_HOUR, 6 * MS_PER_HOUR, 12 * MS_PER_HOUR,
		MS_PER_DAY, 2 * MS_PER_DAY, 7 * MS_PER_DAY,
	};
	int64_t span, step = 0;
	size_t i;

	most = clamp_most(most);
	if (t1 <= t0)
		t1 = t0 + MS_PER_SEC;
	span = t1 - t0;
	for (i = 0; i < ELEMENTSOF(round_steps) && !step; i++)
		if (span / round_steps[i] <= (int64_t)most)
			step = round_steps[i];
	if (!step)
		for (step = 14 * MS_PER_DAY; span / step > (int64_t)most;)
			step *= 2;
	ret->n = (size_t)(span / step) + 1;
	for (i = 0; i < ret->n; i++) {
		int64_t since = (int64_t)i * step;
		ret->tick[i].value = (double)(t0 + since);
		units_format_duration(ret->tick[i].label, (uint64_t)since * UNITS_USEC_PER_MS);
	}
	ret->top = (double)t1;
}

void chart_stack(const double *values, size_t n_series, size_t n, double *ret)
{
	for (size_t i = 0; i < n; i++)
		ret[i] = 0;
	for (size_t s = 0; s < n_series; s++)
		for (size_t i = 0; i < n; i++)
			ret[(s + 1) * n + i] = ret[s * n + i] + values[s * n + i];
}

/* A coordinate to a tenth of a pixel, never "-0.0"; one far off the
 * chart (a scale of an empty domain's neighbour) is kept at a million
 * pixels, which SVG clips like any other */
static void coordinate(FILE *f, double v)
{
	long long tenths;

	if (!isfinite(v) || v > 1e6 || v < -1e6)
		v = isnan(v) ? 0 : v > 0 ? 1e6 : -1e6;
	tenths = (long long)(v * 10 + (v < 0 ? -0.5 : 0.5));
	fprintf(f, "%s%lld.%lld", tenths < 0 ? "-" : "", llabs(tenths) / 10, llabs(tenths) % 10);
}

static void point(FILE *f, char command, const struct chart_point *p)
{
	fputc(command, f);
	coordinate(f, p->x);
	fputc(' ', f);
	coordinate(f, p->y);
}

void chart_path_line(FILE *f, const struct chart_point *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		point(f, i ? 'L' : 'M', &p[i]);
}

void chart_path_band(FILE *f, const struct chart_point *upper, const struct chart_point *lower, size_t n)
{
	if (n == 0)
		return;
	chart_path_line(f, upper, n);
	for (size_t i = n; i-- > 0;)
		point(f, 'L', &lower[i]);
	fputc('Z', f);
}
