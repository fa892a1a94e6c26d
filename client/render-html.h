/* What the HTML report's page (render-html.c) and its charts
 * (render-html-charts.c) share: the window both charts span, so that
 * their time axes line up, and the colour of each class. */
#pragma once

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "classes.h"

/* Largest regions of the last census the page lists, at most (a census
 * keeps RW_TOP_DEFAULT, but may keep up to RW_TOP_MAX). */
#define HTML_REGIONS_MAX 20u

/* The time both charts span (unix ms, t0 < t1). */
struct html_window {
	int64_t t0, t1;
};

/* The chart of private and resident memory over the window: the last of
 * each sample row as a line, its min-max as a band, the marks as labelled
 * vertical lines, the peak of each of the report's phases as a labelled
 * dot; a sentence instead when history holds no samples.  Returns 0, or
 * -ENOMEM. */
int html_chart_memory(FILE *f, const json_t *history, const json_t *phases, const struct html_window *w);

/* The chart of the classes' private memory over the window, as stacked
 * areas: each ok census's classes held until the next census (or the
 * window's end), with the marks; a sentence instead when no ok census
 * with classes is stored.  Returns 0, or -ENOMEM. */
int html_chart_classes(FILE *f, const json_t *history, const struct html_window *w);
