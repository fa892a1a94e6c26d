/* The HTML report's two charts, as inline SVG drawn from the history
 * answer (doc/protocol.md, "history"): private and resident memory with
 * the fast tier's min-max band, and the classes of the censuses as
 * stacked areas; marks as labelled vertical lines on both.  The scales,
 * ticks and path data are chart.c's; this file only lays them out.  The
 * client asks for the fast tier in at most a few hundred buckets, so a
 * chart stays a few tens of KiB whatever the process's age. */
#include "render-html.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "macro.h"
#include "render-answer.h"
#include "text.h"
#include "timeparse.h"
#include "util.h"

/* The SVG's size and the margins around the plot (pixels): room for the
 * size labels on the left, the mark labels above, the time labels below. */
#define CHART_WIDTH 960
#define CHART_HEIGHT 300
#define MARGIN_LEFT 64
#define MARGIN_RIGHT 16
#define MARGIN_TOP 34
#define MARGIN_BOTTOM 26

/* Ticks asked for on each axis. */
#define SIZE_TICKS 5
#define TIME_TICKS 8

struct plot {
	struct chart_scale x, y;
	struct chart_ticks xt, yt;
};

static void plot_init(struct plot *p, const struct html_window *w, uint64_t max_bytes)
{
	chart_time_ticks(w->t0, w->t1, TIME_TICKS, &p->xt);
	chart_size_ticks(max_bytes, SIZE_TICKS, &p->yt);
	p->x = (struct chart_scale){ (double)w->t0, p->xt.top, MARGIN_LEFT, CHART_WIDTH - MARGIN_RIGHT };
	p->y = (struct chart_scale){ 0, p->yt.top, CHART_HEIGHT - MARGIN_BOTTOM, MARGIN_TOP };
}

/* SVG inline in HTML needs no namespace attribute (HTML5's parser puts
 * <svg> in it), so the page names no URL at all. */
static void svg_open(FILE *f, const char *id, const char *label)
{
	fprintf(f,
		"<svg id=\"%s\" class=\"chart\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">\n",
		id, CHART_WIDTH, CHART_HEIGHT, CHART_WIDTH, CHART_HEIGHT, label);
}

/* The grid, the size labels on the left and the times since the window's
 * start below. */
static void axes(FILE *f, const struct plot *p)
{
	fputs("<g class=\"axis\">\n", f);
	for (size_t i = 0; i < p->yt.n; i++) {
		double y = chart_scale_map(&p->y, p->yt.tick[i].value);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", MARGIN_LEFT,
			CHART_WIDTH - MARGIN_RIGHT, y, y);
		fprintf(f, "<text class=\"size\" x=\"%d\" y=\"%.1f\">%s</text>\n", MARGIN_LEFT - 6, y + 4,
			p->yt.tick[i].label);
	}
	for (size_t i = 0; i < p->xt.n; i++) {
		double x = chart_scale_map(&p->x, p->xt.tick[i].value);
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x,
			CHART_HEIGHT - MARGIN_BOTTOM, CHART_HEIGHT - MARGIN_BOTTOM + 4);
		fprintf(f, "<text class=\"time\" x=\"%.1f\" y=\"%d\">%s</text>\n", x, CHART_HEIGHT - 8,
			p->xt.tick[i].label);
	}
	fputs("</g>\n", f);
}

/* Each mark of the window: a vertical line and its name above the plot,
 * every other one a line higher so that marks close together stay
 * readable. */
static void marks(FILE *f, const json_t *history, const struct plot *p, const struct html_window *w)
{
	const json_t *m;
	size_t i, k = 0;

	fputs("<g class=\"marks\">\n", f);
	json_array_foreach(json_object_get(history, "marks"), i, m) {
		const char *name = answer_str(m, "name");
		int64_t t;
		if (!answer_int(m, "time", &t) || t < w->t0 || t > w->t1)
			continue;
		double x = chart_scale_map(&p->x, (double)t);
		fprintf(f, "<g class=\"mark\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x,
			MARGIN_TOP - (k % 2 ? 4 : 16), CHART_HEIGHT - MARGIN_BOTTOM);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\">", x + 3, MARGIN_TOP - (k % 2 ? 6 : 18));
		text_html_write_cstr(f, name ? name : "");
		fputs("</text></g>\n", f);
		k++;
	}
	fputs("</g>\n", f);
}

/* The peak private memory of each phase of the report: a dot on the
 * private line and its size above it. */
static void peaks(FILE *f, const json_t *phases, const struct plot *p, const struct html_window *w)
{
	char size[FORMAT_BYTES_MAX], when[TIMEPARSE_FORMAT_MAX];
	const json_t *ph;
	size_t i;

	fputs("<g class=\"peaks\">\n", f);
	json_array_foreach(phases, i, ph) {
		int64_t t, v;
		if (!answer_int(ph, "peak_time", &t) || !answer_int(ph, "peak_private", &v) || t < w->t0 || t > w->t1 ||
		    v < 0)
			continue;
		double x = chart_scale_map(&p->x, (double)t), y = chart_scale_map(&p->y, (double)v);
		/* a peak at the window's start keeps its label off the size axis */
		fprintf(f, "<g class=\"peak\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/>", x, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s>%s</text><title>", x, y - 7,
			x < MARGIN_LEFT + 24 ? " class=\"start\"" : "", format_bytes(size, (uint64_t)v));
		text_html_write_cstr(f, answer_str(ph, "name"));
		fprintf(f, ": %s at %s</title></g>\n", size, timeparse_format_local(when, t));
	}
	fputs("</g>\n", f);
}

/* One sample row's figures; false when any is unknown. */
struct sample {
	int64_t time, until;
	int64_t v[6]; /* private, its min and max; resident, its min and max */
};

static bool sample_read(const json_t *o, struct sample *s)
{
	static const char *const keys[6] = { "private", "private_min", "private_max",
					     "resident", "resident_min", "resident_max" };
	if (!answer_int(o, "time", &s->time))
		return false;
	if (!answer_int(o, "until", &s->until) || s->until < s->time)
		s->until = s->time;
	for (size_t k = 0; k < ELEMENTSOF(keys); k++)
		if (!answer_int(o, keys[k], &s->v[k]) || s->v[k] < 0)
			return false;
	return true;
}

/* A series of the memory chart as points: the figure k of each row at
 * its time, and again at its until when it stood for a span. */
static size_t series(const struct sample *s, size_t n, size_t k, const struct plot *p, struct chart_point *ret)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		double y = chart_scale_map(&p->y, (double)s[i].v[k]);
		ret[o++] = (struct chart_point){ chart_scale_map(&p->x, (double)s[i].time), y };
		if (s[i].until > s[i].time)
			ret[o++] = (struct chart_point){ chart_scale_map(&p->x, (double)s[i].until), y };
	}
	return o;
}

/* A path of class cls: a line of figure k, or a band from figure k's
 * lowest (k + 1: its min) to its highest (k + 2: its max). */
static void memory_path(FILE *f, const char *cls, const struct sample *s, size_t n, size_t k, bool band,
			const struct plot *p, struct chart_point *a, struct chart_point *b)
{
	size_t m;

	fprintf(f, "<path class=\"%s\" d=\"", cls);
	if (band) {
		m = series(s, n, k + 2, p, a);
		series(s, n, k + 1, p, b);
		chart_path_band(f, a, b, m);
	} else {
		m = series(s, n, k, p, a);
		chart_path_line(f, a, m);
	}
	fputs("\"/>\n", f);
}

int html_chart_memory(FILE *f, const json_t *history, const json_t *phases, const struct html_window *w)
{
	const json_t *rows = json_object_get(history, "samples"), *o;
	struct sample *s = calloc(json_array_size(rows) + 1, sizeof(*s));
	struct chart_point *a = calloc(2 * json_array_size(rows) + 1, sizeof(*a));
	struct chart_point *b = calloc(2 * json_array_size(rows) + 1, sizeof(*b));
	uint64_t max = 0;
	struct plot p;
	size_t n = 0, i;
	int r = 0;

	if (!s || !a || !b) {
		r = -ENOMEM;
		goto out;
	}
	json_array_foreach(rows, i, o) {
		if (!sample_read(o, &s[n]))
			continue;
		for (size_t k = 0; k < ELEMENTSOF(s[n].v); k++)
			if ((uint64_t)s[n].v[k] > max)
				max = (uint64_t)s[n].v[k];
		n++;
	}
	if (n == 0) {
		fputs("<p class=\"none\">No samples of this process are stored.</p>\n", f);
		goto out;
	}
	plot_init(&p, w, max);
	svg_open(f, "memory", "private and resident memory over time");
	axes(f, &p);
	memory_path(f, "band resident", s, n, 3, true, &p, a, b);
	memory_path(f, "band private", s, n, 0, true, &p, a, b);
	memory_path(f, "line resident", s, n, 3, false, &p, a, b);
	memory_path(f, "line private", s, n, 0, false, &p, a, b);
	marks(f, history, &p, w);
	peaks(f, phases, &p, w);
	fputs("</svg>\n", f);
	fputs("<ul class=\"legend\"><li><span class=\"key private\"></span>private (anonymous and swapped out)</li>"
	      "<li><span class=\"key resident\"></span>resident</li>"
	      "<li><span class=\"key peak\"></span>the peak of each phase</li>"
	      "<li><span class=\"key band\"></span>lowest to highest between two stored rows</li></ul>\n",
	      f);
out:
	free(s);
	free(a);
	free(b);
	return r;
}

/* The ok censuses with classes drawn: their times, and each class's
 * private memory (values[c * n + i] for census i). */
struct census_classes {
	size_t n;
	int64_t *time;
	double *values;
	double last[_CLASS_MAX]; /* at the last census, for the order */
};

/* Whether census c can be drawn (ok, not light, with classes), with its
 * time in *ret_time. */
static bool drawable(const json_t *c, int64_t *ret_time)
{
	const json_t *classes = json_object_get(c, "classes");
	const char *status = answer_str(c, "status");

	return status && streq(status, "ok") && !json_is_true(json_object_get(c, "light")) &&
	       json_is_object(classes) && json_object_size(classes) > 0 && answer_int(c, "time", ret_time);
}

/* The censuses of history that can be drawn, at most CHART_POINTS: past
 * that, the last of each of CHART_POINTS buckets of the window, so that
 * a month of censuses is a path of a few thousand points, not of a
 * hundred thousand. */
static int census_classes_read(const json_t *history, const struct html_window *w, struct census_classes *ret)
{
	const json_t *list = json_object_get(history, "censuses"), *c;
	_cleanup_free_ const json_t **drawn = calloc(json_array_size(list) + 1, sizeof(*drawn));
	_cleanup_free_ int64_t *times = calloc(json_array_size(list) + 1, sizeof(*times));
	int64_t step = chart_bucket_ms(w->t0, w->t1, CHART_POINTS);
	size_t n = 0, i;

	*ret = (struct census_classes){ 0 };
	if (!drawn || !times)
		return -ENOMEM;
	json_array_foreach(list, i, c)
		if (drawable(c, &times[n]))
			drawn[n++] = c;
	ret->time = calloc(n + 1, sizeof(*ret->time));
	ret->values = calloc((n + 1) * _CLASS_MAX, sizeof(*ret->values));
	if (!ret->time || !ret->values)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (n <= CHART_POINTS || i + 1 == n || (times[i] - w->t0) / step != (times[i + 1] - w->t0) / step)
			drawn[ret->n++] = drawn[i], ret->time[ret->n - 1] = times[i];
	/* their figures, class by class (the layout chart_stack takes) */
	for (size_t k = 0; k < ret->n; k++) {
		const json_t *classes = json_object_get(drawn[k], "classes");
		for (int cls = 0; cls < _CLASS_MAX; cls++) {
			int64_t v;
			if (answer_int(json_object_get(classes, class_key((enum class_id)cls)), "private", &v) && v > 0)
				ret->values[(size_t)cls * ret->n + k] = (double)v;
			ret->last[cls] = ret->values[(size_t)cls * ret->n + k];
		}
	}
	return 0;
}

static void census_classes_done(struct census_classes *c)
{
	free(c->time);
	free(c->values);
}

/* The classes that hold any memory, the largest at the last census
 * first (drawn at the bottom); returns how many. */
static size_t drawn_classes(const struct census_classes *c, enum class_id *ret)
{
	size_t n = 0;

	for (int cls = 0; cls < _CLASS_MAX; cls++) {
		bool any = false;
		for (size_t i = 0; i < c->n && !any; i++)
			any = c->values[(size_t)cls * c->n + i] > 0;
		if (!any)
			continue;
		size_t at = n++;
		/* insertion by size at the last census; ties keep the class order */
		while (at > 0 && c->last[ret[at - 1]] < c->last[cls]) {
			ret[at] = ret[at - 1];
			at--;
		}
		ret[at] = (enum class_id)cls;
	}
	return n;
}

int html_chart_classes(FILE *f, const json_t *history, const struct html_window *w)
{
	_cleanup_free_ double *values = NULL, *sum = NULL;
	_cleanup_free_ struct chart_point *a = NULL, *b = NULL;
	struct census_classes c;
	enum class_id order[_CLASS_MAX];
	size_t n_series, n;
	struct plot p;
	double max = 0;
	int r;

	if ((r = census_classes_read(history, w, &c)) < 0)
		goto out;
	if (c.n == 0) {
		fputs("<p class=\"none\">No census with classes of this process is stored.</p>\n", f);
		goto out;
	}
	n = c.n;
	n_series = drawn_classes(&c, order);
	values = calloc(n_series * n + 1, sizeof(*values));
	sum = calloc((n_series + 1) * n, sizeof(*sum));
	a = calloc(2 * n, sizeof(*a));
	b = calloc(2 * n, sizeof(*b));
	if (!values || !sum || !a || !b) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < n_series; s++)
		memcpy(values + s * n, c.values + (size_t)order[s] * n, n * sizeof(*values));
	chart_stack(values, n_series, n, sum);
	for (size_t i = 0; i < n; i++)
		if (sum[n_series * n + i] > max)
			max = sum[n_series * n + i];
	plot_init(&p, w, (uint64_t)max);
	svg_open(f, "classes", "private memory by class over time");
	axes(f, &p);
	for (size_t s = 0; s < n_series; s++) {
		/* a census's classes hold until the next census: two points each */
		for (size_t i = 0; i < n; i++) {
			int64_t next = i + 1 < n ? c.time[i + 1] : w->t1 < c.time[i] ? c.time[i] : w->t1;
			double x0 = chart_scale_map(&p.x, (double)c.time[i]), x1 = chart_scale_map(&p.x, (double)next);
			double top = chart_scale_map(&p.y, sum[(s + 1) * n + i]), bottom = chart_scale_map(&p.y, sum[s * n + i]);
			a[2 * i] = (struct chart_point){ x0, top };
			a[2 * i + 1] = (struct chart_point){ x1, top };
			b[2 * i] = (struct chart_point){ x0, bottom };
			b[2 * i + 1] = (struct chart_point){ x1, bottom };
		}
		fprintf(f, "<path class=\"area %s\" fill=\"%s\" d=\"", class_key(order[s]), class_html_colour(order[s]));
		chart_path_band(f, a, b, 2 * n);
		fputs("\"><title>", f);
		text_html_write_cstr(f, class_label(order[s]));
		fputs("</title></path>\n", f);
	}
	marks(f, history, &p, w);
	fputs("</svg>\n<ul class=\"legend\">", f);
	for (size_t s = 0; s < n_series; s++) {
		fprintf(f, "<li><span class=\"key\" style=\"background:%s\"></span>", class_html_colour(order[s]));
		text_html_write_cstr(f, class_label(order[s]));
		fputs("</li>", f);
	}
	fputs("</ul>\n", f);
out:
	census_classes_done(&c);
	return r;
}
