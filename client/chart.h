/* The pure model of the HTML report's charts: scales that put times and
 * sizes on the SVG's pixels, the ticks of their axes (sizes in the one size
 * grammar of units.c, "64M"; times as the duration since the chart's
 * start, "1min 30s"), stacked sums, and the path data of lines and bands.
 * No I/O but the FILE a path is written to; no locale. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "units.h"

/* Sizes above this are drawn at it: 4 EiB, so that an axis's top (the
 * next step above the largest size) fits a uint64_t. */
#define CHART_SIZE_MAX (UINT64_C(1) << 62)

/* Ticks an axis has at most, whatever a caller asks for. */
#define CHART_TICKS_MAX 12u

/* Points a chart's time axis holds at most: the client asks for the fast
 * tier in buckets of chart_bucket_ms, a few pixels each. */
#define CHART_POINTS 600u

/* The bucket (ms, at least 1) that cuts [t0, t1] into at most points
 * buckets (points at least 1). */
int64_t chart_bucket_ms(int64_t t0, int64_t t1, size_t points);

/* A linear map of the domain [d0, d1] onto the range [r0, r1] (pixels;
 * r1 < r0 for a y axis, which grows upwards). */
struct chart_scale {
	double d0, d1, r0, r1;
};

/* v's place in s's range; an empty domain (d0 == d1) puts every v at r0. */
double chart_scale_map(const struct chart_scale *s, double v);

struct chart_tick {
	double value; /* bytes, or unix ms */
	char label[UNITS_FORMAT_MAX];
};

struct chart_ticks {
	size_t n;
	double top; /* the axis's end: the last tick of a size axis, the window's end for time */
	struct chart_tick tick[CHART_TICKS_MAX + 1];
};

/* The ticks of a size axis from 0 that holds max bytes (at most
 * CHART_SIZE_MAX): a step of a power of two bytes, the smallest that needs
 * at most `most` steps (1 to CHART_TICKS_MAX) to reach max, ticks at each
 * multiple from 0 to top, the first multiple at or above max (one step
 * when max is 0), labelled by units_format_size ("0", "64M", "1536M"). */
void chart_size_ticks(uint64_t max, size_t most, struct chart_ticks *ret);

/* The ticks of a time axis over [t0, t1] (unix ms; t1 <= t0 is taken as a
 * second after t0): a step of a round duration (1ms, 2ms, 5ms ... 1s, 2s,
 * 5s, 10s, 15s, 30s, 1min ... 1h, 2h, 3h, 6h, 12h, 1d, 2d, 7d, then
 * doubling), the smallest with at most `most` steps in the window, ticks
 * at t0 and each step after it up to t1, labelled with the time since t0
 * by units_format_duration ("0", "30s", "1min 30s").  top is t1. */
void chart_time_ticks(int64_t t0, int64_t t1, size_t most, struct chart_ticks *ret);

struct chart_point {
	double x, y;
};

/* The running sums of n_series series of n values each (values[s * n + i]):
 * ret[(s + 1) * n + i] is the sum of the first s + 1 series at i, ret[i]
 * is 0, so series s fills the band from row s to row s + 1.  ret holds
 * (n_series + 1) * n values. */
void chart_stack(const double *values, size_t n_series, size_t n, double *ret);

/* SVG path data ("M10.0 20.0L30.0 40.0"), coordinates to a tenth of a
 * pixel: a line through p[0, n) (nothing when n is 0), and a closed band
 * along upper[0, n) and back along lower (nothing when n is 0). */
void chart_path_line(FILE *f, const struct chart_point *p, size_t n);
void chart_path_band(FILE *f, const struct chart_point *upper, const struct chart_point *lower, size_t n);
