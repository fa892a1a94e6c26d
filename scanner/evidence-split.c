/* What the evidence walks found, made into the census's terms: a rule and a
 * sentence for each region read, and parts for a region of several owners.
 *
 * A part's page counts come from the page tables, asked now for every
 * part but the largest: resident = resident anonymous and file pages (not
 * the zero page, which smaps does not count either), anonymous = resident
 * anonymous pages, swap = swapped pages, exact to the page.  The largest
 * part takes the rest of the region's counts as smaps gave them, so the
 * parts add up to their region to the byte, and the census pays for
 * walking the page tables of the small parts only.  When the page tables,
 * read a moment after smaps, show more than smaps did (the process touched
 * pages in between), the counts are scaled to smaps and the sentence says
 * so.  The counts the page tables do not give (Pss, clean and dirty,
 * locked) are shared out in proportion to resident bytes. */
#include "evidence-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "classify.h"
#include "limits.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"

#define PART_TEXT_MAX 384

struct part {
	uint64_t start, end;
	enum owner owner;
	size_t first_seg, last_seg; /* the walker's segments it covers */
	size_t first_sub, last_sub; /* the parts of one owner it joins (join_classes) */
	uint64_t anon, resident, swap; /* from the page tables (split parts only) */
};

/* The rule each owner's memory is given.  A row left out would read as
 * rule 0 (a stack's guard page) without the flag; test-evidence checks
 * every owner but OWNER_NONE has a row, and a rule of its own. */
#define OWNED_BY(rule) { rule, true }
static const struct {
	enum classify_fixed_rule rule;
	bool present;
} owner_rules[_OWNER_MAX] = {
	[OWNER_GLIBC_CHUNKS] = OWNED_BY(RULE_GLIBC_CHUNKS),
	[OWNER_GLIBC_HEAP] = OWNED_BY(RULE_GLIBC_HEAP_INFO),
	[OWNER_GLIBC_BRK] = OWNED_BY(RULE_GLIBC_BRK),
	[OWNER_PYMALLOC] = OWNED_BY(RULE_PYMALLOC_POOLS),
	[OWNER_JEMALLOC_BASE] = OWNED_BY(RULE_JEMALLOC_BASE),
	[OWNER_JEMALLOC_EXTENTS] = OWNED_BY(RULE_JEMALLOC_EXTENTS),
	[OWNER_MIMALLOC] = OWNED_BY(RULE_MIMALLOC),
	[OWNER_TCMALLOC] = OWNED_BY(RULE_TCMALLOC),
};
#undef OWNED_BY

int evidence_owner_rule(enum owner owner)
{
	if ((unsigned)owner >= _OWNER_MAX || !owner_rules[owner].present)
		return -1;
	return (int)owner_rules[owner].rule;
}

/* The segments of walker w within region r, clipped, neighbours of one
 * owner joined: the parts of one region.  With jemalloc, a stretch of no
 * header in a region of no known shape, or of jemalloc's, is jemalloc's
 * extents (a thread stack by its guard, or an arena by its size, keeps
 * its shape). */
static size_t make_parts(const struct walker *w, const struct region *r, bool jemalloc, struct part *parts)
{
	const struct segments *s = &w->segs;
	bool extents = jemalloc && (r->cls == CLASS_OTHER || streq(classify_rule(r->rule)->key, "jemalloc_shape")) &&
		       !w->brk && !w->cut;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint64_t a = s->v[i].start > r->start ? s->v[i].start : r->start;
		uint64_t b = s->v[i].end < r->end ? s->v[i].end : r->end;
		enum owner owner = s->v[i].owner == OWNER_NONE && extents ? OWNER_JEMALLOC_EXTENTS : s->v[i].owner;
		if (a >= b)
			continue;
		if (n > 0 && parts[n - 1].owner == owner && parts[n - 1].end == a) {
			parts[n - 1].end = b;
			parts[n - 1].last_seg = i;
			continue;
		}
		parts[n++] = (struct part){ .start = a, .end = b, .owner = owner, .first_seg = i, .last_seg = i };
	}
	return n;
}

/* The class a part of region r would have. */
static int part_class(const struct region *r, enum owner owner)
{
	return owner == OWNER_NONE ? r->cls : classify_rule((size_t)evidence_owner_rule(owner))->cls;
}

/* Joins neighbouring parts of one class into out (a region is split only
 * where the class changes: jemalloc's base blocks amid its extents stay in
 * one region, which says both).  A joined part takes the owner of its
 * largest piece; first_sub..last_sub name its pieces in parts.  Returns
 * the number of joined parts. */
static size_t join_classes(const struct region *r, const struct part *parts, size_t n, struct part *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && part_class(r, out[m - 1].owner) == part_class(r, parts[i].owner)) {
			struct part *o = &out[m - 1];
			uint64_t biggest = parts[o->first_sub].end - parts[o->first_sub].start;
			for (size_t k = o->first_sub + 1; k <= o->last_sub; k++)
				if (parts[k].end - parts[k].start > biggest)
					biggest = parts[k].end - parts[k].start;
			if (parts[i].end - parts[i].start > biggest)
				o->owner = parts[i].owner;
			o->end = parts[i].end;
			o->last_seg = parts[i].last_seg;
			o->last_sub = i;
			continue;
		}
		out[m] = parts[i];
		out[m].first_sub = out[m].last_sub = i;
		m++;
	}
	return m;
}

static int appendf(char *buf, size_t size, int at, const char *fmt, ...) _printf_(4, 5);

static int appendf(char *buf, size_t size, int at, const char *fmt, ...)
{
	va_list ap;
	if (at < 0 || (size_t)at >= size)
		return at;
	va_start(ap, fmt);
	int n = vsnprintf(buf + at, size - (size_t)at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + n;
}

/* "17 glibc malloc blocks: 15 of 1.00 MiB, 2 of 8.00 MiB (chunk headers read)":
 * the three sizes holding the most bytes, then the rest. */
static void glibc_text(const struct segments *s, const struct part *pt, char *buf, size_t size)
{
	struct { uint64_t len, count; } top[3] = { { 0, 0 } };
	uint64_t blocks = 0, listed = 0;
	char b[FORMAT_BYTES_MAX];

	for (size_t i = pt->first_seg; i <= pt->last_seg; i++) {
		uint64_t len = s->v[i].unit, same = 0;
		bool seen = false;
		blocks++;
		for (size_t j = pt->first_seg; j < i && !seen; j++)
			seen = s->v[j].unit == len;
		if (seen)
			continue;
		for (size_t j = i; j <= pt->last_seg; j++)
			same += s->v[j].unit == len;
		size_t k = ELEMENTSOF(top) - 1;
		if (top[k].count * top[k].len >= same * len)
			continue;
		top[k].len = len;
		top[k].count = same;
		for (; k > 0 && top[k - 1].count * top[k - 1].len < top[k].count * top[k].len; k--) {
			__typeof__(top[0]) t = top[k - 1];
			top[k - 1] = top[k];
			top[k] = t;
		}
	}
	if (blocks == 1) {
		snprintf(buf, size, "a glibc malloc block of %s (its chunk header read)", format_bytes(b, top[0].len));
		return;
	}
	int w = appendf(buf, size, 0, "%" PRIu64 " glibc malloc blocks:", blocks);
	for (size_t k = 0; k < ELEMENTSOF(top) && top[k].count; k++) {
		w = appendf(buf, size, w, "%s %" PRIu64 " of %s", k ? "," : "", top[k].count, format_bytes(b, top[k].len));
		listed += top[k].count;
	}
	if (blocks > listed)
		w = appendf(buf, size, w, ", %" PRIu64 " of other sizes", blocks - listed);
	appendf(buf, size, w, " (chunk headers read)");
}

static void part_text(const struct walker *w, const struct part *pt, uint64_t readable, uint64_t swapped,
		      char *buf, size_t size)
{
	const struct segments *s = &w->segs;
	char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
	uint64_t count = 0, segs = pt->last_seg - pt->first_seg + 1;

	for (size_t i = pt->first_seg; i <= pt->last_seg; i++)
		count += s->v[i].count;
	switch (pt->owner) {
	case OWNER_GLIBC_CHUNKS:
		glibc_text(s, pt, buf, size);
		return;
	case OWNER_GLIBC_HEAP:
		snprintf(buf, size, "glibc arena heap: heap_info read (%s in use of %s read-write)", format_bytes(a, count),
			 format_bytes(b, pt->end - pt->start));
		return;
	case OWNER_GLIBC_BRK:
		snprintf(buf, size, "glibc's main arena: its tcache chunk read at the start of [heap]");
		return;
	case OWNER_PYMALLOC:
		if (segs == 1)
			snprintf(buf, size, "a pymalloc arena: a pool header read in it (pools of %s)",
				 format_bytes(a, s->v[pt->first_seg].unit));
		else
			snprintf(buf, size, "%" PRIu64 " pymalloc arenas: a pool header read in each (pools of %s)", segs,
				 format_bytes(a, s->v[pt->first_seg].unit));
		return;
	case OWNER_JEMALLOC_BASE:
		snprintf(buf, size, "%" PRIu64 " jemalloc base block%s (its metadata): %s read", segs,
			 segs == 1 ? "" : "s", segs == 1 ? "its header" : "their headers");
		return;
	case OWNER_JEMALLOC_EXTENTS:
		snprintf(buf, size,
			 "jemalloc's extents: libjemalloc serves malloc and its base blocks were read; extents carry no "
			 "header, so this is jemalloc's by elimination (no glibc chunk or pymalloc pool found)");
		return;
	case OWNER_MIMALLOC:
		snprintf(buf, size, "%" PRIu64 " mimalloc segment%s: %s read (%" PRIu64 " pages in use)", segs,
			 segs == 1 ? "" : "s", segs == 1 ? "its header" : "their headers", count);
		return;
	case OWNER_TCMALLOC:
		snprintf(buf, size, "tcmalloc's page heap: %" PRIu64 " span records read at the start of [heap]", count);
		return;
	case OWNER_NONE:
	case _OWNER_MAX:
		break;
	}
	if (readable == 0)
		snprintf(buf, size, "nothing read: no resident anonymous page%s", swapped ? " (its memory is in swap)" : "");
	else if (w->cut)
		snprintf(buf, size, "not read to the end: the census's read limit was reached");
	else if (w->gave_up && pt->end == w->end)
		snprintf(buf, size, "no allocator's header in the first %u pages and %u runs of pages read: the search stopped",
			 RW_EVIDENCE_SEARCH_PAGES, RW_EVIDENCE_SEARCH_RUNS);
	else
		snprintf(buf, size, "no allocator's header found in it");
}

/* What pieces of one owner hold, in a few words. */
static int owner_phrase(enum owner owner, uint64_t pieces, uint64_t bytes, char *buf, size_t size, int at)
{
	char b[FORMAT_BYTES_MAX];
	const char *s = pieces == 1 ? "" : "s";
	format_bytes(b, bytes);
	switch (owner) {
	case OWNER_GLIBC_CHUNKS:
		return appendf(buf, size, at, "%s in %" PRIu64 " glibc malloc block%s (chunk headers read)", b, pieces, s);
	case OWNER_GLIBC_HEAP:
		return appendf(buf, size, at, "%s of glibc arena heap (heap_info read)", b);
	case OWNER_GLIBC_BRK:
		return appendf(buf, size, at, "%s of glibc's main arena", b);
	case OWNER_PYMALLOC:
		return appendf(buf, size, at, "%s in %" PRIu64 " pymalloc arena%s (pool headers read)", b, pieces, s);
	case OWNER_JEMALLOC_BASE:
		return appendf(buf, size, at, "%s in %" PRIu64 " jemalloc base block%s (its metadata, headers read)", b,
			       pieces, s);
	case OWNER_JEMALLOC_EXTENTS:
		return appendf(buf, size, at, "%s of jemalloc's extents (by elimination: they carry no header)", b);
	case OWNER_MIMALLOC:
		return appendf(buf, size, at, "%s in %" PRIu64 " mimalloc segment%s (headers read)", b, pieces, s);
	case OWNER_TCMALLOC:
		return appendf(buf, size, at, "%s of tcmalloc's page heap", b);
	case OWNER_NONE:
	case _OWNER_MAX:
		break;
	}
	return appendf(buf, size, at, "%s with no allocator's header found", b);
}

/* The sentence of a joined part: what each owner's pieces hold. */
static void joined_text(const struct walker *w, const struct part *subs, const struct part *pt, uint64_t readable,
			uint64_t swapped, char *buf, size_t size)
{
	int at = 0;

	if (pt->first_sub == pt->last_sub) {
		part_text(w, pt, readable, swapped, buf, size);
		return;
	}
	buf[0] = '\0';
	for (int o = 0; o < _OWNER_MAX; o++) {
		uint64_t pieces = 0, bytes = 0;
		for (size_t k = pt->first_sub; k <= pt->last_sub; k++)
			if (subs[k].owner == (enum owner)o) {
				pieces += o == OWNER_NONE || o == OWNER_JEMALLOC_EXTENTS ? 1
										 : subs[k].last_seg - subs[k].first_seg + 1;
				bytes += subs[k].end - subs[k].start;
			}
		if (!pieces)
			continue;
		if (at > 0)
			at = appendf(buf, size, at, "; ");
		at = owner_phrase((enum owner)o, pieces, bytes, buf, size, at);
	}
}

/* Shares total (kB) among n parts in proportion to weights (bytes): the
 * weights themselves when they add up to it, else scaled, the remainder
 * to the largest.  Returns whether the weights were taken as they are. */
static bool share(uint64_t total_kb, const uint64_t *weights, size_t n, uint64_t *out_kb)
{
	uint64_t sum = 0, given = 0;
	size_t largest = 0;
	for (size_t i = 0; i < n; i++) {
		sum += weights[i];
		if (weights[i] > weights[largest])
			largest = i;
	}
	if (sum % 1024 == 0 && sum / 1024 == total_kb) {
		for (size_t i = 0; i < n; i++)
			out_kb[i] = weights[i] / 1024;
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		out_kb[i] = sum ? (uint64_t)((unsigned __int128)total_kb * weights[i] / sum) : 0;
		given += out_kb[i];
	}
	out_kb[largest] += total_kb - given;
	return false;
}

/* The page-table counts of every part but the largest, which takes the
 * rest of the region's.  Returns 0 or -errno; *exact is false when the
 * page tables showed more than smaps. */
static int measure_parts(struct memsource *src, const struct region *r, struct part *parts, size_t n, bool *exact)
{
	struct page_runs runs = { 0 };
	size_t largest = 0;
	uint64_t anon = 0, res = 0, swap = 0;
	int e = 0;

	for (size_t i = 1; i < n; i++)
		if (parts[i].end - parts[i].start > parts[largest].end - parts[largest].start)
			largest = i;
	/* one question for the parts below the largest, one for those above */
	if (largest > 0)
		e = memsource_residency(src, parts[0].start, parts[largest].start, &runs);
	if (e == 0 && largest + 1 < n)
		e = memsource_residency(src, parts[largest].end, parts[n - 1].end, &runs);
	for (size_t i = 0; i < n && e == 0; i++) {
		if (i == largest)
			continue;
		parts[i].anon = page_runs_bytes(&runs, parts[i].start, parts[i].end, PAGE_RESIDENT);
		parts[i].resident = parts[i].anon + page_runs_bytes(&runs, parts[i].start, parts[i].end, PAGE_FILE);
		parts[i].swap = page_runs_bytes(&runs, parts[i].start, parts[i].end, PAGE_SWAPPED);
		anon += parts[i].anon;
		res += parts[i].resident;
		swap += parts[i].swap;
	}
	page_runs_done(&runs);
	if (e < 0)
		return e;
	uint64_t t_anon = region_field(r, COUNT_ANONYMOUS), t_res = region_field(r, COUNT_RSS),
		 t_swap = region_field(r, COUNT_SWAP);
	*exact = anon <= t_anon && res <= t_res && swap <= t_swap;
	parts[largest].anon = anon <= t_anon ? t_anon - anon : 0;
	parts[largest].resident = res <= t_res ? t_res - res : 0;
	parts[largest].swap = swap <= t_swap ? t_swap - swap : 0;
	return 0;
}

/* Sets the counts of the n parts, out[0..n), of region r. */
static int split_counts(const struct region *r, const struct part *parts, size_t n, struct region *out)
{
	_cleanup_free_ uint64_t *all = calloc(5 * n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	uint64_t *res = all, *anon = all + n, *swap = all + 2 * n, *size = all + 3 * n, *kb = all + 4 * n;

	for (size_t i = 0; i < n; i++) {
		anon[i] = parts[i].anon;
		res[i] = parts[i].resident;
		swap[i] = parts[i].swap;
		size[i] = parts[i].end - parts[i].start;
	}
	for (int c = 0; c < _COUNT_MAX; c++) {
		const uint64_t *weights = res;
		switch ((enum region_count)c) {
		case COUNT_ANONYMOUS:
		case COUNT_ANON_HUGE_PAGES: weights = anon; break;
		case COUNT_SWAP:
		case COUNT_SWAP_PSS: weights = swap; break;
		case COUNT_SHARED_HUGETLB:
		case COUNT_PRIVATE_HUGETLB: weights = size; break;
		default: break;
		}
		share(region_field(r, (enum region_count)c) / 1024, weights, n, kb);
		for (size_t i = 0; i < n; i++)
			region_set_kb(&out[i], (enum region_count)c, kb[i]);
	}
	return 0;
}

static const char *intern(struct strpool *pool, const char *s)
{
	return strpool_intern(pool, s, strlen(s));
}

static void set_owner(struct region *x, enum owner owner, struct evidence_result *res)
{
	if (owner == OWNER_NONE)
		return;
	x->rule = (uint8_t)evidence_owner_rule(owner);
	x->cls = (uint8_t)classify_rule(x->rule)->cls;
	res->confirmed++;
}

/* The parts of every region of every walk, counted first so the array of
 * regions grows once. */
struct plan {
	size_t region;   /* index in the old array */
	size_t walker;
	size_t n_parts;
};

/* Scratch space for one region's parts, sized for the walker with the most
 * segments. */
struct split_scratch {
	struct part *subs, *parts;
	char text[3 * PART_TEXT_MAX], line[3 * PART_TEXT_MAX + 128];
};

/* Decides each walked region's parts (plans[], in region order).  A region
 * of one owner takes its rule and evidence in place; *ret_extra counts the
 * regions that splitting the others would add. */
static int plan_regions(struct region *regions, const struct walker *w, size_t n_w, bool jemalloc,
			struct strpool *pool, struct split_scratch *x, struct plan *plans, size_t *ret_extra,
			struct evidence_result *res)
{
	size_t k = 0, extra = 0;

	for (size_t i = 0; i < n_w; i++)
		for (size_t j = w[i].first; j <= w[i].last; j++) {
			struct region *r = &regions[j];
			size_t ns = make_parts(&w[i], r, jemalloc, x->subs);
			size_t np = join_classes(r, x->subs, ns, x->parts);
			plans[k++] = (struct plan){ j, i, np };
			if (np > 1) {
				extra += np - 1;
				continue;
			}
			if (np == 0)
				continue;
			joined_text(&w[i], x->subs, &x->parts[0], region_field(r, COUNT_ANONYMOUS),
				    region_field(r, COUNT_SWAP), x->text, sizeof(x->text));
			if (!(r->evidence = intern(pool, x->text)))
				return -ENOMEM;
			set_owner(r, x->parts[0].owner, res);
		}
	*ret_extra = extra;
	return 0;
}

/* Writes region r, of several owners, as its parts at out: each part with
 * its owner, its evidence and its share of the counts.  Returns the number
 * of parts written, or a negative errno. */
static ssize_t split_region(struct memsource *src, const struct region *r, const struct walker *wk, bool jemalloc,
			    struct strpool *pool, struct split_scratch *x, struct region *out,
			    struct evidence_result *res)
{
	size_t ns = make_parts(wk, r, jemalloc, x->subs);
	size_t np = join_classes(r, x->subs, ns, x->parts);
	struct part *parts = x->parts;
	bool exact = true;
	int e;

	if ((e = measure_parts(src, r, parts, np, &exact)) < 0)
		return e;
	for (size_t j = 0; j < np; j++) {
		struct region *p = &out[j];
		*p = *r;
		p->start = parts[j].start;
		p->end = parts[j].end;
		p->offset = r->offset + (parts[j].start - r->start);
		p->part = true;
		set_owner(p, parts[j].owner, res);
		joined_text(wk, x->subs, &parts[j], parts[j].anon, parts[j].swap, x->text, sizeof(x->text));
		snprintf(x->line, sizeof(x->line), "%s; part %zu of %zu of the region %" PRIx64 "-%" PRIx64 "%s", x->text,
			 j + 1, np, r->start, r->end,
			 exact ? "" : " (the page tables showed more than smaps a moment before: counts scaled to smaps)");
		if (!(p->evidence = intern(pool, x->line)))
			return -ENOMEM;
	}
	if ((e = split_counts(r, parts, np, out)) < 0)
		return e;
	res->split++;
	return (ssize_t)np;
}

int evidence_conclude(struct memsource *src, struct region **regions, size_t *n, size_t max_regions,
		      const struct walker *w, size_t n_w, bool jemalloc, struct strpool *pool,
		      struct evidence_result *res)
{
	size_t max_segs = 1, n_plans = 0, extra = 0;
	struct split_scratch x;
	int e;

	for (size_t i = 0; i < n_w; i++) {
		if (w[i].segs.n > max_segs)
			max_segs = w[i].segs.n;
		n_plans += w[i].last - w[i].first + 1;
	}
	_cleanup_free_ struct part *subs = x.subs = calloc(max_segs, sizeof(*subs));
	_cleanup_free_ struct part *parts = x.parts = calloc(max_segs, sizeof(*parts));
	_cleanup_free_ struct plan *plans = calloc(n_plans ? n_plans : 1, sizeof(*plans));
	if (!subs || !parts || !plans)
		return -ENOMEM;

	if ((e = plan_regions(*regions, w, n_w, jemalloc, pool, &x, plans, &extra, res)) < 0)
		return e;
	if (extra == 0) {
		classify_follow_reserves(*regions, *n);
		return 0;
	}
	if (*n + extra > max_regions) {
		/* not split: a mixed region keeps its shape, and says what was in it */
		snprintf(res->why_not, sizeof(res->why_not),
			 "regions of several owners were not split: %zu parts would pass the limit of %zu regions",
			 *n + extra, max_regions);
		for (size_t i = 0; i < n_plans; i++)
			if (plans[i].n_parts > 1 &&
			    !((*regions)[plans[i].region].evidence = intern(pool, "several owners: not split (too many regions)")))
				return -ENOMEM;
		classify_follow_reserves(*regions, *n);
		return 0;
	}

	struct region *out = NULL;
	size_t allocated = 0, used = 0, k = 0;
	while (allocated < *n + extra)
		if ((e = regions_grow(&out, used, &allocated, *n + extra)) < 0) {
			regions_free(out);
			return e;
		}
	for (size_t i = 0; i < *n; i++) {
		const struct region *r = &(*regions)[i];
		while (k < n_plans && plans[k].region < i)
			k++;
		if (k >= n_plans || plans[k].region != i || plans[k].n_parts <= 1) {
			out[used++] = *r;
			continue;
		}
		ssize_t np = split_region(src, r, &w[plans[k].walker], jemalloc, pool, &x, &out[used], res);
		if (np < 0) {
			regions_free(out);
			return (int)np;
		}
		used += (size_t)np;
	}
	classify_follow_reserves(out, used);
	regions_free(*regions);
	*regions = out;
	*n = used;
	return 0;
}
