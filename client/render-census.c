/* Rendering a census, or the comparison of two, as text or Markdown. */
#include "render-census.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "census.h"
#include "classes.h"
#include "heap-words.h"
#include "table.h"
#include "util.h"

static int print_table(const struct table *t, const struct render_options *o, FILE *f)
{
	return o->format == RENDER_MARKDOWN ? table_print_markdown(t, f) : table_print(t, f);
}

static void heading(const struct render_options *o, FILE *f, const char *title)
{
	if (o->format == RENDER_MARKDOWN)
		fprintf(f, "\n### %s\n\n", title);
	else
		fprintf(f, "\n%s\n", title);
}

static const char *sz(char *buf, uint64_t v)
{
	return format_bytes(buf, v);
}

static void format_time(char *buf, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	if (ms < 0 || !localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "unknown time");
}

/* "python3 (pid 4242, uid 1000)", or for a saved file "python3 (saved: file.txt)" */
static void identity(const struct census *c, char *buf, size_t size)
{
	const char *comm = c->comm ? c->comm : "?";
	if (c->pid > 0 && c->uid >= 0)
		snprintf(buf, size, "%s (pid %d, uid %" PRId64 ")", comm, c->pid, c->uid);
	else if (c->pid > 0)
		snprintf(buf, size, "%s (pid %d)", comm, c->pid);
	else
		snprintf(buf, size, "%s (saved: %s)", c->comm ? c->comm : "process", c->source ? c->source : "?");
}

/* What a Windows census adds: its reservations, the process's counters,
 * and whether resident figures are exact, estimated or unknown. */
static void print_windows(const struct census *c, bool md, FILE *f)
{
	const struct census_windows *w = &c->windows;
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
	const char *lead = md ? "\n" : "  ";

	fprintf(f, "%sWindows: reserved %s, committed %s in %" PRIu64 " reservations", lead, sz(a, w->reserved),
		sz(b, w->committed), w->reservations);
	if (w->owner[0])
		fprintf(f, ", owner %s", w->owner);
	fputs("\n", f);
	if (w->private_usage >= 0 && w->working_set >= 0) {
		fprintf(f, "%sCounters (GetProcessMemoryInfo): private %s, working set %s", lead,
			sz(a, (uint64_t)w->private_usage), sz(b, (uint64_t)w->working_set));
		if (w->peak_working_set >= 0)
			fprintf(f, ", peak working set %s", sz(a, (uint64_t)w->peak_working_set));
		fputs("\n", f);
	}
	if (w->residency == RESIDENCY_UNKNOWN)
		fprintf(f, "%sResident: unknown%s%s (resident figures are 0)\n", lead, w->residency_why[0] ? ": " : "",
			w->residency_why);
	else if (w->residency == RESIDENCY_ESTIMATED)
		fprintf(f, "%sResident: %s of it estimated from a sample of pages%s%s\n", lead, sz(a, w->estimated),
			w->residency_why[0] ? "; " : "", w->residency_why);
}

static void print_header(const struct census *c, const struct render_options *o, FILE *f)
{
	char id[512], a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], s[FORMAT_BYTES_MAX], d[FORMAT_DURATION_MAX],
		when[64];
	bool md = o->format == RENDER_MARKDOWN;

	identity(c, id, sizeof(id));
	if (md)
		fprintf(f, "## Memory of %s\n\n", id);
	fprintf(f, "%s: private %s, resident %s, swap %s, %" PRIu64 " regions", md ? "Census" : id,
		sz(a, c->totals.private), sz(b, c->totals.resident), sz(s, c->totals.swap), c->totals.count);
	if (c->taken_at_ms >= 0) {
		format_time(when, sizeof(when), c->taken_at_ms);
		fprintf(f, ", %s", when);
	}
	if (c->wall_us >= 0)
		fprintf(f, ", census %s", format_duration_us(d, (uint64_t)c->wall_us));
	fputs(md ? ".\n\n" : "\n", f);
	if (c->cmdline && c->cmdline[0])
		fprintf(f, md ? "Command: `%s`\n" : "  %s\n", c->cmdline);
	if (c->have_status && status_has(&c->status, STATUS_VM_RSS)) {
		uint64_t private;
		bool known = status_private(&c->status, &private);
		fprintf(f, "%sKernel counters (status): private %s, resident %s", md ? "\n" : "  ",
			known ? sz(a, private) : "unknown", sz(b, c->status.counter[STATUS_VM_RSS]));
		if (status_has(&c->status, STATUS_VM_HWM))
			fprintf(f, ", peak resident %s", sz(s, c->status.counter[STATUS_VM_HWM]));
		fputs("\n", f);
	}
	if (c->platform == PLATFORM_WINDOWS)
		print_windows(c, md, f);
}

static void percent(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	if (whole == 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)whole);
}

/* The same, or "unknown" for a counter the census does not know (one
 * stored before the store kept it). */
static void known_percent(char *buf, size_t size, uint64_t part, uint64_t whole, bool unknown)
{
	if (unknown)
		snprintf(buf, size, "unknown");
	else
		percent(buf, size, part, whole);
}

/* A light census knows each class's address space, not its memory: say so
 * rather than print zeros. */
static int render_classes_light(const struct census *c, const struct render_options *o, FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("CLASS", ">SIZE", ">REGIONS", "WHAT", NULL);
	char a[FORMAT_BYTES_MAX];
	enum class_id order[_CLASS_MAX];

	if (!t)
		return -ENOMEM;
	size_t n = census_class_order(c, order);
	for (size_t i = 0; i < n; i++) {
		const struct census_totals *k = &c->classes[order[i]];
		table_add(t, class_key(order[i]));
		table_add(t, sz(a, k->size));
		table_addf(t, "%" PRIu64, k->count);
		table_add(t, class_label(order[i]));
	}
	table_add(t, "total");
	table_add(t, sz(a, c->totals.size));
	table_addf(t, "%" PRIu64, c->totals.count);
	table_add(t, "");
	heading(o, f,
		"Address space by class (a light census: maps and smaps_rollup only, so the memory of each class "
		"is not known; the totals above are)");
	return print_table(t, o, f);
}

/* One line on what was read of the process's memory, or why nothing was. */
static int render_evidence_line(const struct census *c, FILE *f)
{
	char a[FORMAT_BYTES_MAX];

	if (!c->evidence.taken) {
		if (c->evidence.why_not[0])
			fprintf(f, "Evidence not read: %s; classes are by shape alone.\n", c->evidence.why_not);
		return 0;
	}
	fprintf(f,
		"Evidence: %" PRId64 " reads (%s) of the process's memory in %" PRId64 " regions: %" PRId64
		" regions or parts confirmed, %" PRId64 " split.%s%s\n",
		c->evidence.reads, sz(a, (uint64_t)(c->evidence.bytes > 0 ? c->evidence.bytes : 0)), c->evidence.regions,
		c->evidence.confirmed, c->evidence.split, c->evidence.why_not[0] ? " " : "", c->evidence.why_not);
	return 0;
}

/* Whether class k's memory was accounted for by a heap walk: its in use
 * and free figures are known. */
static bool knows_heap(const struct census *c, int k)
{
	const uint32_t bits = CENSUS_COUNTER_BIT(in_use) | CENSUS_COUNTER_BIT(free_kept);
	return k < _CLASS_MAX ? !(c->unknown_classes[k] & bits) : !(c->unknown_totals & bits);
}

/* Whether any class the census found knows its in use and free memory. */
static bool any_heap(const struct census *c)
{
	for (int k = 0; k < _CLASS_MAX; k++)
		if (c->classes[k].count > 0 && knows_heap(c, k))
			return true;
	return false;
}

/* A heap counter of class k (or the totals: _CLASS_MAX), or "-" where no
 * walk read it. */
static const char *heap_counter(char *buf, const struct census *c, int k, uint64_t v)
{
	return knows_heap(c, k) ? sz(buf, v) : "-";
}

/* The sentence of each class a heap walk read, largest private first. */
static void render_heap_lines(const struct census *c, const struct render_options *o, FILE *f)
{
	enum class_id order[_CLASS_MAX];
	size_t n = census_class_order(c, order);

	heading(o, f, "In use or kept (what each allocator's own structures say, read from outside the process)");
	for (size_t i = 0; i < n; i++)
		if (knows_heap(c, order[i]))
			heap_words_class(f, order[i], &c->classes[order[i]], c->how[order[i]], o->format == RENDER_MARKDOWN);
}

static int render_classes(const struct census *c, const struct render_options *o, FILE *f)
{
	/* in use and free beside private, only when some class knows them:
	 * the table of a census no walk read stays as it always was */
	bool heap = any_heap(c);
	_cleanup_(table_freep) struct table *t =
		heap ? table_new("CLASS", ">PRIVATE", ">IN USE", ">FREE", ">SHARE", ">CONFIRMED", ">RESIDENT", ">PSS",
				 ">SWAP", ">REGIONS", "WHAT", NULL)
		     : table_new("CLASS", ">PRIVATE", ">SHARE", ">CONFIRMED", ">RESIDENT", ">PSS", ">SWAP", ">REGIONS",
				 "WHAT", NULL);
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], p[FORMAT_BYTES_MAX], s[FORMAT_BYTES_MAX], u[FORMAT_BYTES_MAX],
		v[FORMAT_BYTES_MAX], share[16], confirmed[16];
	enum class_id order[_CLASS_MAX];

	if (!t)
		return -ENOMEM;
	size_t n = census_class_order(c, order);
	for (size_t i = 0; i < n; i++) {
		const struct census_totals *k = &c->classes[order[i]];
		percent(share, sizeof(share), k->private, c->totals.private);
		known_percent(confirmed, sizeof(confirmed), k->confirmed, k->private,
			      c->unknown_classes[order[i]] & CENSUS_COUNTER_BIT(confirmed));
		table_add(t, class_key((enum class_id)order[i]));
		table_add(t, sz(a, k->private));
		if (heap) {
			table_add(t, heap_counter(u, c, order[i], k->in_use));
			table_add(t, heap_counter(v, c, order[i], k->free_kept));
		}
		table_add(t, share);
		table_add(t, confirmed);
		table_add(t, sz(b, k->resident));
		table_add(t, sz(p, k->pss));
		table_add(t, sz(s, k->swap));
		table_addf(t, "%" PRIu64, k->count);
		table_add(t, class_label(order[i]));
	}
	table_add(t, "total");
	table_add(t, sz(a, c->totals.private));
	if (heap) {
		table_add(t, heap_counter(u, c, _CLASS_MAX, c->totals.in_use));
		table_add(t, heap_counter(v, c, _CLASS_MAX, c->totals.free_kept));
	}
	table_add(t, c->totals.private ? "100%" : "-");
	known_percent(confirmed, sizeof(confirmed), c->totals.confirmed, c->totals.private,
		      c->unknown_totals & CENSUS_COUNTER_BIT(confirmed));
	table_add(t, confirmed);
	table_add(t, sz(b, c->totals.resident));
	table_add(t, sz(p, c->totals.pss));
	table_add(t, sz(s, c->totals.swap));
	table_addf(t, "%" PRIu64, c->totals.count);
	table_add(t, "");
	heading(o, f,
		heap ? "Memory by class (private: anonymous memory, resident or swapped; in use, free: of the class's "
		       "private memory, as its allocator counts it, \"-\" where no allocator was read; share: of "
		       "private; confirmed: of the class's private memory, known by name or by evidence read, not by "
		       "shape)"
		     : "Memory by class (private: anonymous memory, resident or swapped; share: of private; confirmed: "
		       "of the class's private memory, known by name or by evidence read, not by shape)");
	int r = print_table(t, o, f);
	if (r < 0)
		return r;
	r = render_evidence_line(c, f);
	if (r >= 0 && heap)
		render_heap_lines(c, o, f);
	return r;
}

/* The GPU section: a table of the devices the process holds memory on;
 * or, for a GPU process (one that maps /dev/nvidia*) or when asked, one
 * line saying why there is none. */
static int render_gpu(const struct census *c, const struct render_options *o, FILE *f)
{
	const struct census_gpu *g = &c->gpu;
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], title[96];

	if (!g->taken)
		return 0;
	if (g->state != GPU_OK || g->n_uses == 0) {
		if (!g->nvidia_mapped && !o->gpu_asked)
			return 0;
		fputs("\n", f);
		switch (g->state) {
		case GPU_OK: fprintf(f, "GPU memory: NVML lists no device memory held by this process\n"); break;
		case GPU_NO_LIBRARY: fprintf(f, "no NVIDIA driver: GPU memory not shown\n"); break;
		case GPU_NO_DEVICES: fprintf(f, "no NVIDIA GPU: GPU memory not shown\n"); break;
		default: fprintf(f, "GPU memory not shown: %s\n", g->message[0] ? g->message : "NVML failed"); break;
		}
		return 0;
	}

	_cleanup_(table_freep) struct table *t = table_new("GPU", "NAME", ">USED", ">OF", "KIND", "UUID", NULL);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_uses; i++) {
		const struct census_gpu_use *u = &g->uses[i];
		table_addf(t, "%u", u->index);
		table_add(t, u->name[0] ? u->name : "?");
		table_add(t, u->used == GPU_BYTES_UNKNOWN ? "unknown" : sz(a, u->used));
		table_add(t, u->total ? sz(b, u->total) : "-");
		table_add(t, u->graphics ? "graphics" : "compute");
		table_add(t, u->uuid);
	}
	if (g->driver_version > 0)
		snprintf(title, sizeof(title), "GPU memory (device memory this process holds, from NVML; CUDA %d.%d)",
			 g->driver_version / 1000, g->driver_version % 1000 / 10);
	else
		snprintf(title, sizeof(title), "GPU memory (device memory this process holds, from NVML)");
	heading(o, f, title);
	return print_table(t, o, f);
}

/* A memory counter, or "-" where a light census did not read it. */
static const char *counter(char *buf, uint64_t v, bool light)
{
	return light ? "-" : sz(buf, v);
}

static int render_regions(const struct census_region *regions, size_t n, const char *title, bool why, bool light,
			  const struct render_options *o, FILE *f)
{
	_cleanup_(table_freep) struct table *t =
		why ? table_new("START", "END", "PERMS", ">SIZE", ">PRIVATE", ">RESIDENT", "CLASS", "RULE", "PATH", NULL)
		    : table_new("ADDRESS", ">SIZE", ">PRIVATE", ">RESIDENT", "PERMS", "CLASS", "PATH OR RULE", NULL);
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], s[FORMAT_BYTES_MAX];

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct census_region *r = &regions[i];
		table_addf(t, "%" PRIx64, r->start);
		if (why)
			table_addf(t, "%" PRIx64, r->end);
		else
			table_add(t, sz(s, r->size));
		table_add(t, why ? r->perms : counter(a, r->private, light));
		table_add(t, why ? sz(s, r->size) : counter(b, r->resident, light));
		table_add(t, why ? counter(a, r->private, light) : r->perms);
		table_add(t, why ? counter(b, r->resident, light) : class_key(r->cls));
		if (why) {
			table_add(t, class_key(r->cls));
			table_add(t, r->rule ? r->rule : "");
			table_add(t, r->path ? r->path : "");
		} else
			table_add(t, r->path ? r->path : r->rule ? r->rule : "");
	}
	heading(o, f, title);
	return print_table(t, o, f);
}

static int render_files(const struct census *c, const struct render_options *o, FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new(">RESIDENT", ">PRIVATE", ">REGIONS", "KIND", "PATH", NULL);
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
	size_t n = c->n_files < o->top ? c->n_files : o->top;

	if (!t)
		return -ENOMEM;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct census_file *x = &c->files[i];
		table_add(t, counter(a, x->resident, c->light));
		table_add(t, counter(b, x->private, c->light));
		table_addf(t, "%" PRIu64, x->regions);
		table_add(t, file_kind_name(x->kind));
		table_add(t, x->path);
	}
	heading(o, f, "Mapped files and libraries (private: pages copied on write)");
	return print_table(t, o, f);
}

/* Rules of the regions shown, with their sentences, so a reader of the
 * table can tell why a region is in its class. */
static void render_rule_notes(const struct census_region *regions, size_t n, const struct render_options *o, FILE *f)
{
	const char *seen[64];
	size_t n_seen = 0;

	heading(o, f, "Why (the rule that classified each region)");
	for (size_t i = 0; i < n; i++) {
		const struct census_region *r = &regions[i];
		bool dup = false;
		if (!r->rule || !r->why)
			continue;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = streq(seen[k], r->rule);
		if (dup || n_seen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[n_seen++] = r->rule;
		fprintf(f, "%s%s: %s\n", o->format == RENDER_MARKDOWN ? "- " : "  ", r->rule, r->why);
	}
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = regions[i].evidence != NULL;
	if (!any)
		return;
	heading(o, f, "Evidence (what was read in each region shown, and what it showed)");
	for (size_t i = 0; i < n; i++)
		if (regions[i].evidence)
			fprintf(f, "%s%" PRIx64 ": %s\n", o->format == RENDER_MARKDOWN ? "- " : "  ", regions[i].start,
				regions[i].evidence);
}

int render_census(const struct census *c, const struct render_options *o, FILE *f)
{
	int r;

	print_header(c, o, f);
	if ((r = (c->light ? render_classes_light : render_classes)(c, o, f)) < 0)
		return r;
	if ((r = render_gpu(c, o, f)) < 0)
		return r;
	if (o->regions && c->regions) {
		r = render_regions(c->regions, c->n_regions, "Every region", true, c->light, o, f);
		if (r >= 0)
			render_rule_notes(c->regions, c->n_regions, o, f);
	} else {
		size_t n = c->n_largest < o->top ? c->n_largest : o->top;
		r = render_regions(c->largest, n, "Largest regions", false, c->light, o, f);
		if (r >= 0)
			render_rule_notes(c->largest, n, o, f);
	}
	if (r < 0)
		return r;
	if ((r = render_files(c, o, f)) < 0)
		return r;
	return ferror(f) ? -EIO : 0;
}

/* ---------------------------------------------------------------- diff */

struct diff_row {
	int cls;
	int64_t private_change, resident_change;
};

static int64_t change(uint64_t before, uint64_t after)
{
	return (int64_t)after - (int64_t)before;
}

static int cmp_diff(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	uint64_t px = (uint64_t)llabs(x->private_change), py = (uint64_t)llabs(y->private_change);
	uint64_t rx = (uint64_t)llabs(x->resident_change), ry = (uint64_t)llabs(y->resident_change);
	if (px != py)
		return px > py ? -1 : 1;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	return x->cls - y->cls;
}

static const struct census_file *find_file(const struct census *c, const char *path)
{
	for (size_t i = 0; i < c->n_files; i++)
		if (streq(c->files[i].path, path))
			return &c->files[i];
	return NULL;
}

static int render_file_changes(const struct census *a, const struct census *b, const struct render_options *o,
			       FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("CHANGE", ">RESIDENT", ">PRIVATE", "KIND", "PATH", NULL);
	char x[FORMAT_BYTES_MAX], y[FORMAT_BYTES_MAX];

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < b->n_files; i++)
		if (!find_file(a, b->files[i].path)) {
			table_add(t, "new");
			table_add(t, sz(x, b->files[i].resident));
			table_add(t, sz(y, b->files[i].private));
			table_add(t, file_kind_name(b->files[i].kind));
			table_add(t, b->files[i].path);
		}
	for (size_t i = 0; i < a->n_files; i++)
		if (!find_file(b, a->files[i].path)) {
			table_add(t, "gone");
			table_add(t, sz(x, a->files[i].resident));
			table_add(t, sz(y, a->files[i].private));
			table_add(t, file_kind_name(a->files[i].kind));
			table_add(t, a->files[i].path);
		}
	if (table_rows(t) == 0)
		return 0;
	heading(o, f, "Files mapped in one census and not the other (among the largest listed in each)");
	return print_table(t, o, f);
}

/* In use and free of the classes either census read them for, before and
 * after, and a sentence on each class that grew: held by the program or
 * kept by its allocator.  Nothing when neither census read any. */
static int render_heap_changes(const struct census *a, const struct census *b, const struct diff_row *rows, size_t n,
			       const struct render_options *o, FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("CLASS", ">IN USE BEFORE", ">AFTER", ">CHANGE",
							   ">FREE BEFORE", ">AFTER", ">CHANGE", NULL);
	char s[6][FORMAT_BYTES_MAX];
	bool md = o->format == RENDER_MARKDOWN;

	if (!t)
		return -ENOMEM;
	if (!any_heap(a) && !any_heap(b))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int k = rows[i].cls;
		const struct census_totals *x = &a->classes[k], *y = &b->classes[k];
		bool both = knows_heap(a, k) && knows_heap(b, k);
		if (!knows_heap(a, k) && !knows_heap(b, k))
			continue;
		table_add(t, class_key((enum class_id)k));
		table_add(t, heap_counter(s[0], a, k, x->in_use));
		table_add(t, heap_counter(s[1], b, k, y->in_use));
		table_add(t, both ? format_bytes_delta(s[2], change(x->in_use, y->in_use)) : "-");
		table_add(t, heap_counter(s[3], a, k, x->free_kept));
		table_add(t, heap_counter(s[4], b, k, y->free_kept));
		table_add(t, both ? format_bytes_delta(s[5], change(x->free_kept, y->free_kept)) : "-");
	}
	heading(o, f,
		"In use and free by class (as the allocators count them; \"-\" where a census read no allocator of "
		"the class)");
	int r = print_table(t, o, f);
	if (r < 0)
		return r;
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		int k = rows[i].cls;
		struct heap_point x = heap_words_point(a, (enum class_id)k), y = heap_words_point(b, (enum class_id)k);
		enum heap_growth g = heap_trend_growth(&x, &y);
		if (g == HEAP_GROWTH_NONE)
			continue;
		if (!any)
			heading(o, f, "What grew: in use (held by the program) or free (kept by the allocator)");
		any = true;
		fprintf(f, "%s%s ", md ? "- " : "  ", class_key((enum class_id)k));
		heap_words_growth(f, (enum class_id)k, g, &x, &y, b->how[k] ? b->how[k] : a->how[k]);
		fputs(".\n", f);
	}
	return 0;
}

int render_diff(const struct census *a, const struct census *b, const struct render_options *o, FILE *f)
{
	_cleanup_(table_freep) struct table *t = table_new("CLASS", ">PRIVATE BEFORE", ">AFTER", ">CHANGE",
							   ">RESIDENT BEFORE", ">AFTER", ">CHANGE", NULL);
	char ida[512], idb[512], s[6][FORMAT_BYTES_MAX];
	struct diff_row rows[_CLASS_MAX];
	size_t n = 0;

	if (!t)
		return -ENOMEM;
	for (int k = 0; k < _CLASS_MAX; k++) {
		if (a->classes[k].count == 0 && b->classes[k].count == 0)
			continue;
		rows[n++] = (struct diff_row){
			.cls = k,
			.private_change = change(a->classes[k].private, b->classes[k].private),
			.resident_change = change(a->classes[k].resident, b->classes[k].resident),
		};
	}
	qsort_safe(rows, n, sizeof(rows[0]), cmp_diff);
	for (size_t i = 0; i < n; i++) {
		const struct census_totals *x = &a->classes[rows[i].cls], *y = &b->classes[rows[i].cls];
		table_add(t, class_key((enum class_id)rows[i].cls));
		table_add(t, sz(s[0], x->private));
		table_add(t, sz(s[1], y->private));
		table_add(t, format_bytes_delta(s[2], rows[i].private_change));
		table_add(t, sz(s[3], x->resident));
		table_add(t, sz(s[4], y->resident));
		table_add(t, format_bytes_delta(s[5], rows[i].resident_change));
	}
	table_add(t, "total");
	table_add(t, sz(s[0], a->totals.private));
	table_add(t, sz(s[1], b->totals.private));
	table_add(t, format_bytes_delta(s[2], change(a->totals.private, b->totals.private)));
	table_add(t, sz(s[3], a->totals.resident));
	table_add(t, sz(s[4], b->totals.resident));
	table_add(t, format_bytes_delta(s[5], change(a->totals.resident, b->totals.resident)));

	identity(a, ida, sizeof(ida));
	identity(b, idb, sizeof(idb));
	if (o->format == RENDER_MARKDOWN)
		fprintf(f, "## Memory change: %s -> %s\n\n", ida, idb);
	else
		fprintf(f, "before: %s\nafter:  %s\n", ida, idb);
	if (a->taken_at_ms >= 0 && b->taken_at_ms >= 0) {
		char d[FORMAT_DURATION_MAX];
		int64_t ms = b->taken_at_ms - a->taken_at_ms;
		fprintf(f, "%s%s apart\n", o->format == RENDER_MARKDOWN ? "\n" : "",
			format_duration_us(d, (uint64_t)(ms < 0 ? -ms : ms) * 1000u));
	}
	heading(o, f, "Change by class, largest first");
	int r = print_table(t, o, f);
	if (r >= 0)
		r = render_heap_changes(a, b, rows, n, o, f);
	if (r >= 0)
		r = render_file_changes(a, b, o, f);
	return r < 0 ? r : ferror(f) ? -EIO : 0;
}
