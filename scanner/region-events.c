/* Region events: a merge of two address-ordered snapshots. */
#include "region-events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "census.h"
#include "strpool.h"

int region_snapshot_take(const struct census *c, struct strpool *pool, struct region_snapshot **ret, size_t *ret_n)
{
	struct region_snapshot *s;

	if (!c->regions)
		return -ENODATA;
	s = malloc((c->n_regions ? c->n_regions : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_regions; i++) {
		const struct census_region *r = &c->regions[i];
		const char *path = NULL;
		if (r->path && !(path = strpool_intern(pool, r->path, strlen(r->path)))) {
			free(s);
			return -ENOMEM;
		}
		s[i] = (struct region_snapshot){
			.start = r->start,
			.end = r->end,
			.inode = r->inode,
			.path = path,
			.private = r->private,
			.resident = r->resident,
			.cls = (uint8_t)r->cls,
		};
	}
	*ret = s;
	*ret_n = c->n_regions;
	return 0;
}

static int same_key(const struct region_snapshot *a, const struct region_snapshot *b)
{
	if (a->inode != b->inode)
		return 0;
	if (!a->path || !b->path)
		return a->path == b->path;
	/* snapshots of one process share their pool: equal paths are one pointer */
	return a->path == b->path || strcmp(a->path, b->path) == 0;
}

struct sink {
	struct region_event *v;
	size_t n, allocated;
};

static int push(struct sink *k, enum region_event_kind kind, const struct region_snapshot *before,
		const struct region_snapshot *after)
{
	const struct region_snapshot *r = after ? after : before;
	if (k->n == k->allocated) {
		size_t want = k->allocated ? k->allocated * 2 : 16;
		struct region_event *v = realloc(k->v, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->v = v;
		k->allocated = want;
	}
	k->v[k->n++] = (struct region_event){
		.kind = kind,
		.start = r->start,
		.inode = r->inode,
		.path = r->path,
		.cls = r->cls,
		.size = after ? after->end - after->start : 0,
		.size_before = before ? before->end - before->start : 0,
		.private = after ? after->private : 0,
		.private_before = before ? before->private : 0,
		.resident = after ? after->resident : 0,
		.resident_before = before ? before->resident : 0,
	};
	return 0;
}

int region_events_diff(const struct region_snapshot *before, size_t n_before, const struct region_snapshot *after,
		       size_t n_after, uint64_t min_change, struct region_event **ret, size_t *ret_n)
{
	struct sink k = { 0 };
	size_t i = 0, j = 0;
	int r = 0;

	while (r == 0 && (i < n_before || j < n_after)) {
		const struct region_snapshot *b = i < n_before ? &before[i] : NULL, *a = j < n_after ? &after[j] : NULL;
		if (b && (!a || b->start < a->start)) {
			r = push(&k, REGION_DISAPPEARED, b, NULL);
			i++;
		} else if (a && (!b || a->start < b->start)) {
			r = push(&k, REGION_APPEARED, NULL, a);
			j++;
		} else if (!same_key(b, a)) {
			/* another mapping at the same address: one went, one came */
			r = push(&k, REGION_DISAPPEARED, b, NULL);
			if (r == 0)
				r = push(&k, REGION_APPEARED, NULL, a);
			i++;
			j++;
		} else {
			uint64_t sb = b->end - b->start, sa = a->end - a->start;
			uint64_t delta = a->private > b->private ? a->private - b->private : b->private - a->private;
			if (delta >= min_change && delta > 0)
				r = push(&k, a->private > b->private ? REGION_GREW : REGION_SHRANK, b, a);
			else if (sa != sb)
				r = push(&k, sa > sb ? REGION_GREW : REGION_SHRANK, b, a);
			i++;
			j++;
		}
	}
	if (r < 0) {
		free(k.v);
		return r;
	}
	*ret = k.v;
	*ret_n = k.n;
	return 0;
}
