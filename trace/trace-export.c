/* Region events to memtrace lines.  Two passes over the events in replay
 * order: the first finds the regions that were there before the first
 * event, the second writes the stream, following each live region (its
 * allocation id, its size and resident bytes as the analyzer has them) in
 * a hash table keyed by start address.  Memory follows the live regions. */
#include "trace-export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "text.h"
#include "trace-jsonw.h"
#include "hashtab.h"

/* Within one census: what makes room first, so that a region that appears
 * where another went, or grows into where another shrank, finds the
 * range free. */
static const int change_order[_REGION_EVENT_KIND_MAX] = {
	[REGION_DISAPPEARED] = 0,
	[REGION_SHRANK] = 1,
	[REGION_GREW] = 2,
	[REGION_APPEARED] = 3,
};

static int cmp_events(const void *x, const void *y, void *data)
{
	const struct trace_region_event *v = data;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct trace_region_event *a = &v[i], *b = &v[j];

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	if (a->census_id != b->census_id)
		return a->census_id < b->census_id ? -1 : 1;
	if (a->kind != b->kind)
		return change_order[a->kind] - change_order[b->kind];
	return i < j ? -1 : i > j;
}

/* A live region, as the stream has told the analyzer. */
struct live {
	uint64_t start; /* the key */
	uint64_t id;
	uint64_t size, resident;
	const char *cls;
};

struct writer {
	FILE *f;
	uint64_t seq;
	uint64_t next_id;
	struct hashtab live;
};

static const char *class_of(const char *cls)
{
	return cls && cls[0] ? cls : "unknown";
}

static void begin(struct writer *w, const char *kind)
{
	fprintf(w->f, "{\"v\":3,\"seq\":%" PRIu64 ",\"kind\":\"%s\"", ++w->seq, kind);
}

static void physical(struct writer *w, const char *kind, const char *cls)
{
	char scope[256];
	int n = snprintf(scope, sizeof(scope), "root/%s", class_of(cls));
	begin(w, kind);
	fputs(",\"layer\":\"physical_page\",\"scope\":", w->f);
	text_json_write(w->f, scope, n < 0 ? 0 : (size_t)n < sizeof(scope) ? (size_t)n : sizeof(scope) - 1);
}

static void range_event(struct writer *w, const char *kind, const char *cls, uint64_t address, uint64_t len)
{
	physical(w, kind, cls);
	fprintf(w->f, ",\"address\":%" PRIu64 ",\"len\":%" PRIu64 "}\n", address, len);
}

static void memory_event(struct writer *w, const char *kind, const struct live *l, uint64_t len)
{
	physical(w, kind, l->cls);
	fprintf(w->f, ",\"allocation_id\":%" PRIu64 ",\"address\":%" PRIu64 ",\"len\":%" PRIu64 "}\n", l->id,
		l->start, len);
}

/* A region comes alive with size and resident bytes. */
static int region_in(struct writer *w, uint64_t start, const char *cls, uint64_t size, uint64_t resident)
{
	bool is_new;
	struct live *l = hashtab_get(&w->live, start);

	if (l) {
		/* an appearance over a region still live (a change the window
		 * missed): the old one ends first */
		range_event(w, "unmap", l->cls, l->start, l->size);
		memory_event(w, "free", l, l->resident);
	}
	if (!(l = hashtab_upsert(&w->live, start, &is_new)))
		return -ENOMEM;
	*l = (struct live){ .start = start, .id = ++w->next_id, .size = size, .resident = resident, .cls = cls };
	range_event(w, "map", cls, start, size);
	memory_event(w, "alloc", l, resident);
	return 0;
}

static void region_out(struct writer *w, uint64_t start)
{
	struct live l;
	if (!hashtab_remove(&w->live, start, &l))
		return;
	range_event(w, "unmap", l.cls, l.start, l.size);
	memory_event(w, "free", &l, l.resident);
}

static void region_change(struct writer *w, struct live *l, uint64_t size, uint64_t resident)
{
	if (size > l->size)
		range_event(w, "map", l->cls, l->start + l->size, size - l->size);
	else if (size < l->size)
		range_event(w, "unmap", l->cls, l->start + size, l->size - size);
	l->size = size;
	if (resident != l->resident) {
		begin(w, "resize");
		fprintf(w->f,
			",\"layer\":\"physical_page\",\"allocation_id\":%" PRIu64 ",\"address\":%" PRIu64
			",\"old_len\":%" PRIu64 ",\"len\":%" PRIu64 "}\n",
			l->id, l->start, l->resident, resident);
		l->resident = resident;
	}
}

/* The first pass: every region whose first event is not its appearance
 * was there before; it is allocated at the start with what it had. */
static int regions_before(struct writer *w, const struct trace_region_event *v, const size_t *order, size_t n)
{
	struct hashtab seen;
	int r = 0;

	hashtab_init(&seen, sizeof(uint64_t));
	for (size_t k = 0; k < n && r == 0; k++) {
		const struct trace_region_event *e = &v[order[k]];
		bool is_new;
		if (e->kind == REGION_APPEARED) {
			if (!hashtab_upsert(&seen, e->start, &is_new))
				r = -ENOMEM;
			continue;
		}
		if (hashtab_get(&seen, e->start)) {
			if (e->kind == REGION_DISAPPEARED)
				hashtab_remove(&seen, e->start, NULL);
			continue;
		}
		r = region_in(w, e->start, e->cls, e->size_before, e->resident_before);
		if (r == 0 && e->kind != REGION_DISAPPEARED && !hashtab_upsert(&seen, e->start, &is_new))
			r = -ENOMEM;
	}
	hashtab_done(&seen);
	return r;
}

static int replay(struct writer *w, const struct trace_region_event *v, const size_t *order, size_t n)
{
	bool have_census = false;
	int64_t census = 0;
	int r;

	for (size_t k = 0; k < n; k++) {
		const struct trace_region_event *e = &v[order[k]];
		struct live *l;

		if (!have_census || e->census_id != census) {
			have_census = true;
			census = e->census_id;
			begin(w, "census");
			fprintf(w->f, ",\"census_id\":%" PRId64 ",\"time\":%" PRId64 "}\n", e->census_id, e->time);
		}
		switch (e->kind) {
		case REGION_APPEARED:
			if ((r = region_in(w, e->start, e->cls, e->size, e->resident)) < 0)
				return r;
			break;
		case REGION_DISAPPEARED: region_out(w, e->start); break;
		default:
			if ((l = hashtab_get(&w->live, e->start)))
				region_change(w, l, e->size, e->resident);
			else if ((r = region_in(w, e->start, e->cls, e->size, e->resident)) < 0)
				return r;
			break;
		}
	}
	return 0;
}

int trace_export_region_events(const struct trace_region_event *v, size_t n, FILE *f)
{
	_cleanup_free_ size_t *order = malloc((n ? n : 1) * sizeof(*order));
	struct writer w = { .f = f };
	int r;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned)v[i].kind >= _REGION_EVENT_KIND_MAX)
			return -EINVAL;
		order[i] = i;
	}
	if (n > 1)
		qsort_r(order, n, sizeof(*order), cmp_events, (void *)v);
	hashtab_init(&w.live, sizeof(struct live));
	begin(&w, "trace.start");
	fputs(",\"producer\":\"ramwatchd region events\"}\n", f);
	r = regions_before(&w, v, order, n);
	if (r == 0)
		r = replay(&w, v, order, n);
	hashtab_done(&w.live);
	if (r < 0)
		return r;
	begin(&w, "trace.stop");
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}
