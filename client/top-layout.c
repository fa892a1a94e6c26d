/* ramwatch top's screen as a grid of cells: the list of processes with
 * their bars and sparklines, or one process's classes, censuses and
 * marks.  Pure (top-layout.h): the unit tests read the cells. */
#include "top-layout.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "render-answer.h"
#include "text.h"
#include "timeparse.h"
#include "units.h"
#include "util.h"

/* Lines above the rows (title, machine, legend, header) and below (keys). */
#define HEAD_LINES 4u
#define FOOT_LINES 1u

#define LIST_KEYS \
	"q quit  arrows pick  Enter classes and marks  P R E G V sort (s next)  g group  / name  u user  c census  m mark"
#define DETAIL_KEYS "Esc back  c census  m mark  q quit"

struct top_frame *top_frame_new(unsigned lines, unsigned cols)
{
	if (lines == 0 || cols == 0)
		return NULL;
	lines = lines > TOP_LINES_MAX ? TOP_LINES_MAX : lines;
	cols = cols > TOP_COLS_MAX ? TOP_COLS_MAX : cols;
	struct top_frame *f = calloc(1, sizeof(*f));
	if (!f || !(f->cells = calloc((size_t)lines * cols, sizeof(*f->cells))))
		return free(f), NULL;
	f->lines = lines;
	f->cols = cols;
	for (size_t i = 0; i < (size_t)lines * cols; i++)
		f->cells[i].glyph[0] = ' ';
	return f;
}

struct top_frame *top_frame_free(struct top_frame *f)
{
	if (f)
		free(f->cells);
	free(f);
	return NULL;
}

unsigned top_frame_put(struct top_frame *f, unsigned y, unsigned x, const char *text, uint8_t colour, uint8_t attr)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t len = strlen(text);

	if (y >= f->lines)
		return x;
	while (len > 0 && x < f->cols) {
		uint32_t cp;
		size_t n = text_utf8_next(p, len, &cp);
		struct top_cell *c = &f->cells[(size_t)y * f->cols + x];
		if (n == 0 || cp < 0x20 || cp == 0x7f) {
			/* text_visible has escaped what came from outside; this is a
			 * bug's byte, shown as a replacement */
			memcpy(c->glyph, TEXT_REPLACEMENT, TEXT_REPLACEMENT_LEN + 1);
			n = n ? n : 1;
		} else {
			memcpy(c->glyph, p, n);
			c->glyph[n] = '\0';
		}
		c->colour = colour;
		c->attr = attr;
		p += n;
		len -= n;
		x++;
	}
	return x;
}

/* Adds attr to line y from column x to the edge (the title's bar, the
 * picked row), keeping the bars' own. */
static void fill_attr(struct top_frame *f, unsigned y, unsigned x, uint8_t attr)
{
	for (; y < f->lines && x < f->cols; x++)
		f->cells[(size_t)y * f->cols + x].attr |= attr;
}

static unsigned putf(struct top_frame *f, unsigned y, unsigned x, uint8_t attr, const char *fmt, ...) _printf_(5, 6);
static unsigned putf(struct top_frame *f, unsigned y, unsigned x, uint8_t attr, const char *fmt, ...)
{
	char buf[TOP_COLS_MAX * 4 + 1];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return top_frame_put(f, y, x, buf, 0, attr);
}

int top_frame_print(const struct top_frame *f, FILE *out)
{
	for (unsigned y = 0; y < f->lines; y++) {
		unsigned end = f->cols;
		while (end > 0 && streq(f->cells[(size_t)y * f->cols + end - 1].glyph, " "))
			end--;
		for (unsigned x = 0; x < end; x++)
			fputs(f->cells[(size_t)y * f->cols + x].glyph, out);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

unsigned top_layout_rows(unsigned lines)
{
	return lines > HEAD_LINES + FOOT_LINES ? lines - HEAD_LINES - FOOT_LINES : 0;
}

/* ---------------------------------------------------------------- pieces */

static void title(struct top_frame *f, const struct top_view *v, size_t n_order)
{
	char every[UNITS_FORMAT_MAX], filters[200] = "";
	int n = 0;

	if (v->name_filter && v->name_filter[0])
		n += snprintf(filters + n, sizeof(filters) - (size_t)n, ", name ~ '%s'", v->name_filter);
	if (v->user_filter && v->user_filter[0] && n >= 0 && (size_t)n < sizeof(filters))
		snprintf(filters + n, sizeof(filters) - (size_t)n, ", user %s", v->user_filter);
	units_format_duration(every, (uint64_t)v->interval_ms * 1000u);
	char groups[64] = "";
	if (v->lines && v->by != TOP_GROUP_NONE)
		snprintf(groups, sizeof(groups), " in %zu %s%s", v->n_groups, top_group_name(v->by),
			 v->n_groups == 1 ? "" : "s");
	putf(f, 0, 0, TOP_ATTR_REVERSE, "ramwatch top: %zu process%s%s%s, by %s%s, every %s", n_order,
	     n_order == 1 ? "" : "es", groups, v->only_uid >= 0 ? " (yours only)" : "", top_sort_name(v->sort), filters,
	     every);
	fill_attr(f, 0, 0, TOP_ATTR_REVERSE);
}

static void footer(struct top_frame *f, const struct top_view *v, const char *keys)
{
	unsigned y = f->lines - 1;
	if (v->prompt)
		top_frame_put(f, y, 0, v->prompt, 0, TOP_ATTR_BOLD);
	else if (v->message)
		top_frame_put(f, y, 0, v->message, 0, TOP_ATTR_BOLD);
	else
		top_frame_put(f, y, 0, keys, 0, TOP_ATTR_NONE);
}

/* The bar of row (length cells), split by its classes; without a census
 * yet, '-' cells. */
static void bar(struct top_frame *f, unsigned y, unsigned x, const struct top_row *r, unsigned length)
{
	unsigned cells[TOP_CLASSES_MAX];
	unsigned given = top_bar_split(r->classes, r->n_classes, length, cells);

	for (size_t i = 0; i < r->n_classes; i++) {
		struct top_class_look l = top_class_look(r->classes[i].key);
		char g[2] = { l.glyph, 0 };
		for (unsigned k = 0; k < cells[i]; k++)
			x = top_frame_put(f, y, x, g, (uint8_t)l.colour, TOP_ATTR_BAR);
	}
	for (; given < length; given++)
		x = top_frame_put(f, y, x, "-", 0, TOP_ATTR_NONE);
}

/* The classes on screen, largest first in all, with their letters. */
static void legend(struct top_frame *f, unsigned y, const struct top_row *rows, const size_t *order, size_t n)
{
	struct top_class_share all[TOP_CLASSES_MAX];
	size_t n_all = 0;

	for (size_t i = 0; i < n; i++) {
		const struct top_row *r = &rows[order[i]];
		for (size_t c = 0; c < r->n_classes; c++) {
			size_t k;
			for (k = 0; k < n_all && !streq(all[k].key, r->classes[c].key); k++)
				;
			if (k == n_all) {
				if (n_all == TOP_CLASSES_MAX)
					continue;
				all[n_all++] = r->classes[c];
			} else
				all[k].private += r->classes[c].private;
		}
	}
	/* largest first, as top-model orders a census's classes */
	for (size_t i = 1; i < n_all; i++)
		for (size_t j = i; j > 0 && all[j].private > all[j - 1].private; j--) {
			struct top_class_share t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	unsigned x = top_frame_put(f, y, 0, n_all ? "classes:" : "classes: none yet (no census)", 0, TOP_ATTR_NONE);
	for (size_t i = 0; i < n_all; i++) {
		struct top_class_look l = top_class_look(all[i].key);
		char g[2] = { l.glyph, 0 };
		x = top_frame_put(f, y, x, " ", 0, 0);
		x = top_frame_put(f, y, x, g, (uint8_t)l.colour, TOP_ATTR_BAR);
		x = top_frame_put(f, y, x, " ", 0, 0);
		x = top_frame_put(f, y, x, all[i].key, 0, 0);
	}
}

static bool any_vram(const struct top_row *rows, const size_t *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[order[i]].have_vram)
			return true;
	return false;
}

static bool any_in_use(const struct top_row *rows, const size_t *order, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[order[i]].have_in_use)
			return true;
	return false;
}

static void growth_text(char *buf, const struct top_row *r)
{
	if (r->have_growth)
		format_bytes_delta(buf, r->growth);
	else
		strcpy(buf, "-");
}

/* ---------------------------------------------------------------- the list */

/* Line i of the list: the view's, or without groups the order's i-th. */
static struct top_line line_at(const struct top_view *v, size_t i)
{
	return v->lines ? v->lines[i] : (struct top_line){ .at = i };
}

/* A group's header: its process count where pid and user are, its sums
 * in their columns (x_* the columns' starts, 0: not shown), its name
 * where the bar begins. */
static void group_header(struct top_frame *f, unsigned y, const struct top_view *v, const struct top_group *g,
			 unsigned x_private, unsigned x_resident, unsigned x_vram, unsigned x_name)
{
	char count[40], p[FORMAT_BYTES_MAX], res[FORMAT_BYTES_MAX], vr[FORMAT_BYTES_MAX];

	snprintf(count, sizeof(count), "%zu process%s", g->processes, g->processes == 1 ? "" : "es");
	putf(f, y, 0, TOP_ATTR_BOLD, "%-16.16s", count);
	putf(f, y, x_private, TOP_ATTR_BOLD, "%10s", format_bytes(p, g->private));
	putf(f, y, x_resident, TOP_ATTR_BOLD, "%10s", format_bytes(res, g->resident));
	if (x_vram)
		putf(f, y, x_vram, TOP_ATTR_BOLD, "%10s", g->have_vram ? format_bytes(vr, g->vram) : "-");
	putf(f, y, x_name, TOP_ATTR_BOLD, "%s %s", top_group_name(v->by), g->name ? g->name : "(unknown)");
}

static void list(struct top_frame *f, const struct top_view *v, const struct top_row *rows, const size_t *order,
		 size_t n_order)
{
	unsigned shown = top_layout_rows(f->lines);
	size_t n_lines = v->lines ? v->n_lines : n_order;
	size_t first = v->first < n_lines ? v->first : 0;
	size_t end = first + shown < n_lines ? first + shown : n_lines;
	size_t on_screen[TOP_LINES_MAX], n_on_screen = 0; /* the rows of the processes shown */
	uint64_t biggest = 0;
	char window[UNITS_FORMAT_MAX], head[UNITS_FORMAT_MAX + 8];

	for (size_t i = first; i < end; i++) {
		struct top_line l = line_at(v, i);
		if (!l.header && l.at < n_order)
			on_screen[n_on_screen++] = order[l.at];
	}
	bool vram = any_vram(rows, order, n_order), in_use = any_in_use(rows, on_screen, n_on_screen);
	for (size_t i = 0; i < n_on_screen; i++)
		biggest = rows[on_screen[i]].private > biggest ? rows[on_screen[i]].private : biggest;
	units_format_duration(window, (uint64_t)v->window_ms * 1000u);

	title(f, v, n_order);
	top_frame_put(f, 1, 0, v->system_line ? v->system_line : "", 0, 0);
	legend(f, 2, rows, on_screen, n_on_screen);
	unsigned x = putf(f, 3, 0, TOP_ATTR_BOLD, "%7s %-8s %10s ", "PID", "USER", "PRIVATE");
	unsigned x_private = x - 11, x_resident, x_vram = 0, x_bar;
	/* where a census of a process on screen read its allocators */
	if (in_use)
		x = putf(f, 3, x, TOP_ATTR_BOLD, "%10s ", "IN USE");
	x_resident = x;
	x = putf(f, 3, x, TOP_ATTR_BOLD, "%10s %10s %10s ", "RESIDENT", "PEAK", "GROWTH");
	if (vram) {
		x_vram = x;
		x = putf(f, 3, x, TOP_ATTR_BOLD, "%10s ", "VRAM");
	}
	x_bar = x;
	x = putf(f, 3, x, TOP_ATTR_BOLD, "%-*s ", (int)TOP_BAR_CELLS, "CLASSES");
	snprintf(head, sizeof(head), "LAST %s", window);
	x = putf(f, 3, x, TOP_ATTR_BOLD, "%-*.*s ", (int)TOP_SPARK_POINTS, (int)TOP_SPARK_POINTS, head);
	putf(f, 3, x, TOP_ATTR_BOLD, "COMMAND");

	for (size_t i = first; i < end; i++) {
		struct top_line l = line_at(v, i);
		unsigned y = HEAD_LINES + (unsigned)(i - first);
		if (l.header) {
			if (l.at < v->n_groups)
				group_header(f, y, v, &v->groups[l.at], x_private, x_resident, x_vram, x_bar);
			continue;
		}
		if (l.at >= n_order)
			continue;
		const struct top_row *r = &rows[order[l.at]];
		uint8_t attr = l.at == v->selected ? TOP_ATTR_REVERSE : TOP_ATTR_NONE;
		char p[FORMAT_BYTES_MAX], res[FORMAT_BYTES_MAX], pk[FORMAT_BYTES_MAX], g[FORMAT_BYTES_MAX],
			vr[FORMAT_BYTES_MAX], iu[FORMAT_BYTES_MAX], spark[TOP_SPARK_POINTS * 3 + 1], user[24];

		if (r->user[0])
			snprintf(user, sizeof(user), "%.8s", r->user);
		else
			snprintf(user, sizeof(user), "%" PRId64, r->uid);
		growth_text(g, r);
		x = putf(f, y, 0, attr, "%7d %-8s %10s ", r->pid, user, format_bytes(p, r->private));
		if (in_use)
			x = putf(f, y, x, attr, "%10s ", r->have_in_use ? format_bytes(iu, r->in_use) : "-");
		x = putf(f, y, x, attr, "%10s %10s %10s ", format_bytes(res, r->resident), format_bytes(pk, r->peak_private),
			 g);
		if (vram)
			x = putf(f, y, x, attr, "%10s ", r->have_vram ? format_bytes(vr, r->vram) : "-");
		bar(f, y, x, r, top_bar_length(r->private, biggest, TOP_BAR_CELLS));
		x += TOP_BAR_CELLS + 1;
		top_sparkline(r->spark, r->spark_known, TOP_SPARK_POINTS, v->ascii, spark, sizeof(spark));
		top_frame_put(f, y, x, spark, 0, 0);
		x += TOP_SPARK_POINTS + 1;
		top_frame_put(f, y, x, r->command, 0, 0);
		if (attr)
			fill_attr(f, y, 0, attr);
	}
	if (n_order == 0)
		top_frame_put(f, HEAD_LINES, 0,
			      v->name_filter || v->user_filter ? "no watched process matches the filter"
							       : "ramwatchd watches no process you may see",
			      0, 0);
	footer(f, v, LIST_KEYS);
}

/* ---------------------------------------------------------------- one process */

/* The last max elements of array key of the detail answer, newest last. */
static size_t tail(const json_t *detail, const char *key, size_t max, size_t *ret_first)
{
	size_t n = json_array_size(json_object_get(detail, key));
	*ret_first = n > max ? n - max : 0;
	return n;
}

static unsigned detail_classes(struct top_frame *f, unsigned y, const struct top_row *r)
{
	char when[TIMEPARSE_FORMAT_MAX], size[FORMAT_BYTES_MAX];
	uint64_t total = 0;

	if (r->classes_census_id == 0)
		return top_frame_put(f, y, 0, "classes: no census read yet", 0, 0), y + 1;
	for (size_t i = 0; i < r->n_classes; i++)
		total += r->classes[i].private;
	putf(f, y++, 0, TOP_ATTR_BOLD, "classes at the census of %s (private%s):",
	     r->classes_time >= 0 ? timeparse_format_local(when, r->classes_time) : "?",
	     r->have_in_use ? "; in use and free as the allocators count them" : "");
	for (size_t i = 0; i < r->n_classes && y + 8 < f->lines; i++) {
		const struct top_class_share *s = &r->classes[i];
		struct top_class_look l = top_class_look(s->key);
		char g[2] = { l.glyph, 0 }, iu[FORMAT_BYTES_MAX], fr[FORMAT_BYTES_MAX], heap[2 * FORMAT_BYTES_MAX + 24];
		unsigned x = top_frame_put(f, y, 2, g, (uint8_t)l.colour, TOP_ATTR_BAR);
		if (s->have_in_use)
			snprintf(heap, sizeof(heap), "%10s in use %10s free ", format_bytes(iu, s->in_use),
				 format_bytes(fr, s->free));
		else
			snprintf(heap, sizeof(heap), "%*s", r->have_in_use ? 34 : 0, "");
		x = putf(f, y, x, 0, " %-14s %10s %5.1f%% %s", s->key, format_bytes(size, s->private),
			 total ? 100.0 * (double)s->private / (double)total : 0.0, heap);
		unsigned cells = top_bar_length(r->classes[i].private, total, 40);
		for (unsigned k = 0; k < cells; k++)
			x = top_frame_put(f, y, x, g, (uint8_t)l.colour, TOP_ATTR_BAR);
		y++;
	}
	return y;
}

static void detail_view(struct top_frame *f, const struct top_view *v, const struct top_row *r, const json_t *detail)
{
	char p[FORMAT_BYTES_MAX], res[FORMAT_BYTES_MAX], pk[FORMAT_BYTES_MAX], g[FORMAT_BYTES_MAX], vr[FORMAT_BYTES_MAX],
		when[TIMEPARSE_FORMAT_MAX], window[UNITS_FORMAT_MAX], spark[TOP_SPARK_POINTS * 3 + 1];
	const json_t *e;
	size_t first, n;
	unsigned y = 0;

	char who[TOP_NAME_MAX + 8];
	if (r->user[0])
		snprintf(who, sizeof(who), "user %s", r->user);
	else
		snprintf(who, sizeof(who), "uid %" PRId64, r->uid);
	putf(f, y, 0, TOP_ATTR_REVERSE, "ramwatch top: pid %d (%s) of %s", r->pid, r->comm, who);
	fill_attr(f, y++, 0, TOP_ATTR_REVERSE);
	top_frame_put(f, y++, 0, v->system_line ? v->system_line : "", 0, 0);
	putf(f, y++, 0, 0, "command: %s", r->command);
	growth_text(g, r);
	units_format_duration(window, (uint64_t)v->window_ms * 1000u);
	putf(f, y++, 0, 0, "private %s  resident %s  peak private %s  growth %s in %s  vram %s", format_bytes(p, r->private),
	     format_bytes(res, r->resident), format_bytes(pk, r->peak_private), g, window,
	     r->have_vram ? format_bytes(vr, r->vram) : "-");
	top_sparkline(r->spark, r->spark_known, TOP_SPARK_POINTS, v->ascii, spark, sizeof(spark));
	unsigned x = putf(f, y, 0, 0, "private over the last %s: ", window);
	top_frame_put(f, y++, x, spark, 0, 0);
	if (r->census_id)
		putf(f, y++, 0, 0, "last census: %s (%s, %s)",
		     r->census_time >= 0 ? timeparse_format_local(when, r->census_time) : "?", r->census_trigger,
		     r->census_status);
	else
		putf(f, y++, 0, 0, "last census: none yet");
	if (r->have_in_use) {
		char iu[FORMAT_BYTES_MAX], fr[FORMAT_BYTES_MAX];
		putf(f, y++, 0, 0, "in use %s  free %s  (of the classes whose allocator the census of %s read)",
		     format_bytes(iu, r->in_use), format_bytes(fr, r->free),
		     r->in_use_time >= 0 ? timeparse_format_local(when, r->in_use_time) : "?");
	}
	y = detail_classes(f, y, r) + 1;

	n = tail(detail, "marks", TOP_DETAIL_MARKS_MAX, &first);
	putf(f, y++, 0, TOP_ATTR_BOLD, "marks (%zu):", n);
	if (n == 0)
		putf(f, y++, 0, 0, "  none: m sets one");
	for (size_t i = first; i < n && y + 1 < f->lines; i++) {
		e = json_array_get(json_object_get(detail, "marks"), i);
		_cleanup_free_ char *name = answer_str(e, "name") ? text_visible(answer_str(e, "name"),
										 strlen(answer_str(e, "name")))
								  : NULL;
		putf(f, y++, 0, 0, "  %s  %s", answer_time(when, e, "time"), name ? name : "?");
	}
	footer(f, v, DETAIL_KEYS);
}

void top_layout(struct top_frame *f, const struct top_view *v, const struct top_row *rows, const size_t *order,
		size_t n_order, const json_t *detail)
{
	if (v->detail && v->selected < n_order)
		detail_view(f, v, &rows[order[v->selected]], detail);
	else
		list(f, v, rows, order, n_order);
}
