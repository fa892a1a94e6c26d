/* Building a census's summaries from classified regions: totals, class
 * totals, the largest regions and the mapped files. */
#include "census.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"
#include "macro.h"
#include "strpool.h"
#include "util.h"

#define YES_NO_yes true
#define YES_NO_no false
#define COUNTER_INFO_(name, class_key, total_key, per_class, light_class, light_total, optional, history, metric, unit, \
		      help)                                                                                     \
	[CENSUS_COUNTER_##name] = { #name,		      #class_key,	      #total_key,		     \
				    YES_NO_##per_class,	      YES_NO_##light_class, YES_NO_##light_total,	     \
				    YES_NO_##optional,	      YES_NO_##history,	    YES_NO_##metric,	unit, help, \
				    offsetof(struct census_totals, name) },
const struct census_counter_info census_counters[_CENSUS_N_COUNTERS] = { CENSUS_COUNTERS(COUNTER_INFO_) };

static const char *const file_kinds[_FILE_KIND_MAX] = {
	[FILE_IMAGE] = "image",
	[FILE_DATA] = "data",
	[FILE_SHARED] = "shared",
};

const char *file_kind_name(enum file_kind k)
{
	return (unsigned)k < _FILE_KIND_MAX ? file_kinds[k] : "?";
}

int file_kind_from_name(const char *name)
{
	for (int k = 0; k < _FILE_KIND_MAX; k++)
		if (streq(file_kinds[k], name))
			return k;
	return -1;
}

static const char *const platforms[_PLATFORM_MAX] = {
	[PLATFORM_LINUX] = "linux",
	[PLATFORM_WINDOWS] = "windows",
};

const char *census_platform_name(enum census_platform p)
{
	return (unsigned)p < _PLATFORM_MAX ? platforms[p] : "?";
}

int census_platform_from_name(const char *name)
{
	for (int p = 0; p < _PLATFORM_MAX; p++)
		if (streq(platforms[p], name))
			return p;
	return -1;
}

static const char *const residencies[_RESIDENCY_MAX] = {
	[RESIDENCY_EXACT] = "exact",
	[RESIDENCY_ESTIMATED] = "estimated",
	[RESIDENCY_UNKNOWN] = "unknown",
};

const char *census_residency_name(enum census_residency r)
{
	return (unsigned)r < _RESIDENCY_MAX ? residencies[r] : "?";
}

int census_residency_from_name(const char *name)
{
	for (int r = 0; r < _RESIDENCY_MAX; r++)
		if (streq(residencies[r], name))
			return r;
	return -1;
}

struct census *census_new(void)
{
	struct census *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->strings = strpool_new();
	if (!c->strings) {
		free(c);
		return NULL;
	}
	c->pid = -1;
	c->start_time = -1;
	c->uid = -1;
	c->taken_at_ms = -1;
	c->wall_us = c->cpu_us = c->bytes_read = -1;
	c->threads_seen = c->stack_pointers = -1;
	c->windows.private_usage = c->windows.working_set = c->windows.peak_working_set = -1;
	c->windows.pagefile_usage = -1;
	c->evidence.regions = c->evidence.confirmed = c->evidence.split = -1;
	c->evidence.reads = c->evidence.bytes = c->evidence.calls = c->evidence.pages = -1;
	return c;
}

struct census *census_free(struct census *c)
{
	if (!c)
		return NULL;
	free(c->boot_id);
	free(c->comm);
	free(c->cmdline);
	free(c->exe);
	free(c->source);
	free(c->regions);
	free(c->largest);
	free(c->files);
	free(c->gpu.uses);
	strpool_free(c->strings);
	free(c);
	return NULL;
}

static bool rule_confirms(uint8_t rule)
{
	const struct classify_rule_info *info = classify_rule(rule);
	return info && info->basis != BASIS_SHAPE;
}

/* The counters of one region (count 1), computed once for the totals and
 * its class. */
static void region_sums(const struct region *r, struct census_totals *ret)
{
	*ret = (struct census_totals){
		.private = region_private(r),
		.resident = region_resident(r),
		.pss = region_field(r, COUNT_PSS),
		.swap = region_field(r, COUNT_SWAP),
		.size = region_size(r),
		.count = 1,
		.locked = region_field(r, COUNT_LOCKED),
		.hugetlb = region_field(r, COUNT_SHARED_HUGETLB) + region_field(r, COUNT_PRIVATE_HUGETLB),
	};
	ret->confirmed = rule_confirms(r->rule) ? ret->private : 0;
}

/* Adds every counter of x to t's. */
static void add_totals(struct census_totals *t, const struct census_totals *x)
{
#define ADD_(name, ...) t->name += x->name;
	CENSUS_COUNTERS(ADD_)
#undef ADD_
}

static void to_census_region(const struct region *r, struct census_region *ret)
{
	const struct classify_rule_info *rule = classify_rule(r->rule);
	*ret = (struct census_region){
		.start = r->start,
		.end = r->end,
		.cls = (enum class_id)r->cls,
		.rule = rule ? rule->key : NULL,
		.why = rule ? rule->why : NULL,
		.private = region_private(r),
		.resident = region_resident(r),
		.size = region_size(r),
		.path = r->path,
		.inode = r->inode,
		.evidence = r->evidence,
		.confirmed = rule_confirms(r->rule),
		.part = r->part,
	};
	memcpy(ret->perms, r->perms, 4);
	ret->perms[4] = '\0';
}

static uint64_t weight(uint64_t private, uint64_t resident)
{
	return private > resident ? private : resident;
}

static int cmp_largest(const void *a, const void *b)
{
	const struct census_region *x = a, *y = b;
	uint64_t wx = weight(x->private, x->resident), wy = weight(y->private, y->resident);
	if (wx != wy)
		return wx > wy ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_path_ptr(const void *a, const void *b)
{
	const struct census_file *x = a, *y = b;
	return x->path < y->path ? -1 : x->path > y->path;
}

static int cmp_file(const void *a, const void *b)
{
	const struct census_file *x = a, *y = b;
	uint64_t wx = x->resident + x->private, wy = y->resident + y->private;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* A file's path: absolute on Linux, or a Windows drive path ("C:\\...")
 * or UNC path ("\\\\server\\...") from a Windows census. */
static bool is_file_path(const char *path)
{
	if (!path)
		return false;
	if (path[0] == '/')
		return true;
	return (path[0] && path[1] == ':' && path[2] == '\\') || (path[0] == '\\' && path[1] == '\\');
}

static int file_kind_of(const struct region *r)
{
	if (!is_file_path(r->path))
		return -1;
	switch (r->cls) {
	case CLASS_IMAGES:
		return FILE_IMAGE;
	case CLASS_MAPPED_FILES:
		return FILE_DATA;
	case CLASS_SHARED:
		/* shared anonymous memory is shmem's "/dev/zero (deleted)": no name */
		return streq(r->path, "/dev/zero (deleted)") ? -1 : FILE_SHARED;
	default:
		return -1;
	}
}

/* Merges the file regions collected by path, largest first, keeps top;
 * takes ownership of files. */
static int summarise_files(struct census *c, struct census_file *files, size_t count, size_t top)
{
	size_t merged = 0;

	/* paths are interned: one pointer per distinct path */
	qsort_safe(files, count, sizeof(*files), cmp_path_ptr);
	for (size_t i = 0; i < count; i++) {
		if (merged > 0 && files[merged - 1].path == files[i].path) {
			struct census_file *f = &files[merged - 1];
			f->private += files[i].private;
			f->resident += files[i].resident;
			f->size += files[i].size;
			f->regions++;
			if (files[i].kind == FILE_IMAGE)
				f->kind = FILE_IMAGE; /* a data segment of an image is the image */
		} else
			files[merged++] = files[i];
	}
	qsort_safe(files, merged, sizeof(*files), cmp_file);
	c->n_files = merged < top ? merged : top;
	c->files = realloc(files, (c->n_files ? c->n_files : 1) * sizeof(*files));
	if (!c->files) {
		free(files);
		return -ENOMEM;
	}
	return 0;
}

/* Whether region a ranks before b among the largest: more of private or
 * resident, then larger, then lower. */
static bool ranks_before(const struct region *a, const struct region *b)
{
	uint64_t wa = weight(region_private(a), region_resident(a)), wb = weight(region_private(b), region_resident(b));
	if (wa != wb)
		return wa > wb;
	if (region_size(a) != region_size(b))
		return region_size(a) > region_size(b);
	return a->start < b->start;
}

/* Sifts down in a heap whose root is the region ranking last. */
static void sift_down(const struct region *regions, size_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, worst = i;
		if (l < n && ranks_before(&regions[heap[worst]], &regions[heap[l]]))
			worst = l;
		if (r < n && ranks_before(&regions[heap[worst]], &regions[heap[r]]))
			worst = r;
		if (worst == i)
			return;
		size_t t = heap[i];
		heap[i] = heap[worst];
		heap[worst] = t;
		i = worst;
	}
}

/* Totals, class totals, the largest regions and the files in one pass
 * over the regions (a pass over 20,000 regions streams 4 MB: one is
 * enough).  The largest are kept in a heap with the weakest at its root, so
 * only the few kept are sorted. */
int census_summarise(struct census *c, const struct region *regions, size_t n, size_t top, bool keep_all)
{
	size_t k = n < top ? n : top, used = 0, n_files = 0, files_allocated = 0;
	_cleanup_free_ size_t *heap = malloc((k ? k : 1) * sizeof(*heap));
	_cleanup_free_ struct census_file *files = NULL;

	if (!heap)
		return -ENOMEM;
	memset(&c->totals, 0, sizeof(c->totals));
	memset(c->classes, 0, sizeof(c->classes));
	/* what the heap walks tell comes after (census_set_heap) */
	c->unknown_totals |= CENSUS_HEAP_COUNTERS;
	for (int cls = 0; cls < _CLASS_MAX; cls++) {
		c->unknown_classes[cls] |= CENSUS_HEAP_COUNTERS;
		c->how[cls] = NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct region *r = &regions[i];
		struct census_totals x;

		region_sums(r, &x);
		add_totals(&c->totals, &x);
		add_totals(&c->classes[r->cls < _CLASS_MAX ? r->cls : CLASS_OTHER], &x);

		if (used < k) {
			heap[used++] = i;
			if (used == k)
				for (size_t j = k / 2 + 1; j-- > 0;)
					sift_down(regions, heap, k, j);
		} else if (k > 0 && ranks_before(r, &regions[heap[0]])) {
			heap[0] = i;
			sift_down(regions, heap, k, 0);
		}

		int kind = file_kind_of(r);
		if (kind < 0)
			continue;
		if (n_files == files_allocated) {
			size_t want = files_allocated ? files_allocated * 2 : 64;
			struct census_file *f = realloc(files, want * sizeof(*f));
			if (!f)
				return -ENOMEM;
			files = f;
			files_allocated = want;
		}
		files[n_files++] = (struct census_file){
			.path = r->path,
			.kind = (enum file_kind)kind,
			.private = x.private,
			.resident = x.resident,
			.size = x.size,
			.regions = 1,
		};
	}

	c->largest = calloc(k ? k : 1, sizeof(*c->largest));
	if (!c->largest)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		to_census_region(&regions[heap[i]], &c->largest[i]);
	qsort_safe(c->largest, k, sizeof(*c->largest), cmp_largest);
	c->n_largest = k;

	if (keep_all) {
		c->regions = calloc(n ? n : 1, sizeof(*c->regions));
		if (!c->regions)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			to_census_region(&regions[i], &c->regions[i]);
		c->n_regions = n;
	}
	return summarise_files(c, TAKE_PTR(files), n_files, top);
}

/* Whether class x comes before class y in a table. */
static bool listed_before(const struct census *c, enum class_id x, enum class_id y)
{
	const struct census_totals *a = &c->classes[x], *b = &c->classes[y];
	if (a->private != b->private)
		return a->private > b->private;
	if (a->resident != b->resident)
		return a->resident > b->resident;
	if (a->size != b->size)
		return a->size > b->size;
	return x < y;
}

size_t census_class_order(const struct census *c, enum class_id order[_CLASS_MAX])
{
	size_t n = 0;
	for (int k = 0; k < _CLASS_MAX; k++) {
		if (c->classes[k].count == 0)
			continue;
		size_t at = n++;
		while (at > 0 && listed_before(c, (enum class_id)k, order[at - 1])) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = (enum class_id)k;
	}
	return n;
}

int census_set_heap(struct census *c, enum class_id k, uint64_t in_use, uint64_t free_kept, uint64_t overhead,
		    uint64_t unknown, uint64_t returnable, const char *how)
{
	if ((unsigned)k >= _CLASS_MAX)
		return -EINVAL;
	const char *text = how ? strpool_intern(c->strings, how, strlen(how)) : NULL;
	if (how && !text)
		return -ENOMEM;
	struct census_totals *t = &c->classes[k];
	t->in_use = in_use;
	t->free_kept = free_kept;
	t->overhead = overhead;
	t->unknown = unknown;
	t->returnable = returnable;
	c->unknown_classes[k] &= ~(uint32_t)CENSUS_HEAP_COUNTERS;
	c->how[k] = text;

	/* the totals: the sum over the classes that know them */
	c->totals.in_use = c->totals.free_kept = c->totals.overhead = c->totals.unknown = c->totals.returnable = 0;
	for (int j = 0; j < _CLASS_MAX; j++) {
		if (c->unknown_classes[j] & CENSUS_HEAP_COUNTERS)
			continue;
		c->totals.in_use += c->classes[j].in_use;
		c->totals.free_kept += c->classes[j].free_kept;
		c->totals.overhead += c->classes[j].overhead;
		c->totals.unknown += c->classes[j].unknown;
		c->totals.returnable += c->classes[j].returnable;
	}
	c->unknown_totals &= ~(uint32_t)CENSUS_HEAP_COUNTERS;
	return 0;
}

void census_class_sum(const struct census *c, struct census_totals *ret)
{
	struct census_totals t = { 0 };
	for (int k = 0; k < _CLASS_MAX; k++)
		add_totals(&t, &c->classes[k]);
	*ret = t;
}

uint64_t census_private(const struct census *c)
{
	uint64_t v;
	if (c->have_status && status_private(&c->status, &v))
		return v;
	return c->totals.private;
}

uint64_t census_resident(const struct census *c)
{
	if (c->have_status && status_has(&c->status, STATUS_VM_RSS))
		return c->status.counter[STATUS_VM_RSS];
	return c->totals.resident;
}
