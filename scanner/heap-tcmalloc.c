/* gperftools tcmalloc's in use and free (heap-walk.h), read from the
 * globals its own statistics are summed from.
 *
 * MallocExtension's generic.current_allocated_bytes is, in gperftools
 * (src/tcmalloc.cc, ExtractStats), the page heap's system bytes less what
 * it holds free (tcmalloc.pageheap_free_bytes), what it gave back to the
 * kernel (pageheap_unmapped_bytes) and what its caches hold free: the
 * central free lists' objects and their spans' tails, the transfer
 * caches' batches, the thread caches' objects.  Those are fields of a few
 * globals in the library's .bss: Static::pageheap_ (its Stats and its
 * free lists), Static::central_cache_[] (one per size class), Static::
 * sizemap_ (each class's size, pages per span and batch size), and
 * ThreadCache::thread_heaps_, the list of the threads' caches in its
 * metadata.  The walker reads them, in resident pages only, and sums them
 * as ExtractStats does:
 *   in use = system - pageheap free - unmapped - central - transfer - thread
 *   free   = pageheap free (returnable: what ReleaseFreeMemory gives back)
 *            + central + transfer + thread
 * Unmapped pages were given back (MADV_DONTNEED) and are no memory; the
 * metadata (span records, thread caches, the page map's nodes) is
 * overhead.
 *
 * Where the globals are is not in the library's dynamic symbols (they are
 * hidden), so each build whose layout is known is a row of builds[],
 * keyed by its GNU build-id, with their addresses as its code uses them
 * (Static::InitStaticVars initialises each); the layout of the structures
 * is gperftools 2.10's, x86-64, as Debian 12 builds it (checked with
 * offsetof against its headers and against MallocExtension's own figures
 * of a live process).  A build not in the table is unknown, saying so:
 * never a guess.  What is read is checked before it is summed (heap-
 * tcmalloc_sum), and read again while the program moves it.
 *
 * tcmalloc takes its memory with sbrk first, so its page heap is [heap]
 * (evidence confirms it by its span records: rule tcmalloc_page_heap).
 * The sums have no addresses: in use is laid first over [heap]'s private
 * pages, then the page heap's free, then the caches' (heap-private.h).  A
 * page heap larger than [heap] (tcmalloc went on with mmap) cannot be
 * told apart from what else the process maps: unknown, saying so. */
#include "heap-tcmalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "classify.h"
#include "elf-read.h"
#include "fileio.h"
#include "heap-private.h"
#include "heap-read.h"
#include "heap-walkers.h"
#include "limits.h"
#include "macro.h"
#include "mapping-file.h"
#include "units.h"
#include "util.h"

/* gperftools 2.10 on x86-64: kPageShift 13, kMaxPages 128, kMaxSize
 * 256 KiB, 64 transfer slots per class. */
#define TC_PAGE (8 * KiB)
#define TC_MAX_SIZE (256 * KiB)
#define TC_CLASSES_MAX 128u
#define TC_TRANSFER_MAX 64

enum {
	/* tcmalloc::SizeMap */
	SM_MOVE = 2172,  /* int num_objects_to_move_[128] */
	SM_SIZE = 2684,  /* int32 class_to_size_[128] */
	SM_PAGES = 3200, /* size_t class_to_pages_[128] */
	SM_COUNT = 4224, /* unsigned num_size_classes */
	/* tcmalloc::CentralFreeList */
	CF_SIZE_CLASS = 8, /* size_t size_class_ */
	CF_EMPTY = 16,     /* Span empty_: a list head */
	CF_NONEMPTY = 64,  /* Span nonempty_ */
	CF_NUM_SPANS = 112,
	CF_COUNTER = 120,  /* free objects in its spans */
	CF_USED_SLOTS = 1152,
	CF_CACHE_SIZE = 1156,
	CF_MAX_CACHE_SIZE = 1160,
	/* tcmalloc::Span, as a list head */
	SPAN_BYTES = 48,
	SPAN_NEXT = 16,
	SPAN_PREV = 24,
	/* tcmalloc::PageHeap::Stats, after free_[128] */
	ST_SYSTEM = 128 * 96,
	ST_FREE = ST_SYSTEM + 8,
	ST_UNMAPPED = ST_SYSTEM + 16,
	ST_COMMITTED = ST_SYSTEM + 24,
	/* tcmalloc::ThreadCache: size_ (int32) at 4096, next_ at 4144 */
	TC_SIZE_AT = 4096,
	TC_NEXT_AT = 4144,
};

static const struct tcmalloc_build builds[] = {
	{ "gperftools 2.10 (libtcmalloc_minimal.so.4)",
	  { 0x39, 0xdf, 0xd4, 0xa5, 0x85, 0x57, 0x03, 0xfa, 0x6c, 0x24, 0x69, 0x74, 0x92, 0x82, 0xf7, 0x5b, 0x18, 0xa1, 0xaa, 0x66 },
	  0x2ddc0, 0x1b0f20, 0x1d6f20, 0x1d7fd8, 0x1d7fd0 },
	{ "gperftools 2.10 (libtcmalloc.so.4)",
	  { 0x56, 0x0c, 0xd2, 0x27, 0x16, 0x9a, 0xe8, 0xf9, 0x3c, 0xb5, 0x9e, 0x32, 0x15, 0xf4, 0xea, 0x11, 0xc2, 0x99, 0xfa, 0x69 },
	  0x51700, 0x1d4860, 0x1fa860, 0x1fb918, 0x1fb910 },
};

const struct tcmalloc_build *heap_tcmalloc_build(const uint8_t *build_id, size_t len)
{
	for (size_t i = 0; i < ELEMENTSOF(builds); i++)
		if (len == sizeof(builds[i].build_id) && memcmp(build_id, builds[i].build_id, len) == 0)
			return &builds[i];
	return NULL;
}

unsigned heap_tcmalloc_classes(const uint8_t *sm)
{
	uint32_t n = bytes_u32(sm, SM_COUNT), last = 0;

	if (n < 2 || n > TC_CLASSES_MAX || bytes_u32(sm, SM_SIZE) != 0)
		return 0;
	for (uint32_t k = 1; k < TC_CLASSES_MAX; k++) {
		uint32_t size = bytes_u32(sm, SM_SIZE + 4 * k), move = bytes_u32(sm, SM_MOVE + 4 * k);
		uint64_t pages = bytes_u64(sm, SM_PAGES + 8 * k);
		if (k >= n) {
			if (size != 0)
				return 0;
			continue;
		}
		if (size <= last || size % 8 || size > TC_MAX_SIZE || pages == 0 || pages > 128 ||
		    pages * TC_PAGE < size || move == 0 || move > 32768)
			return 0;
		last = size;
	}
	return n;
}

/* A list head at addr: empty (it points at itself) or pointing at spans,
 * which are never among the library's globals. */
static bool list_head(const uint8_t *b, uint64_t addr, const struct tcmalloc_globals *g)
{
	uint64_t next = bytes_u64(b, SPAN_NEXT), prev = bytes_u64(b, SPAN_PREV);
	if (next == addr && prev == addr)
		return true;
	bool outside = (next < g->globals_start || next >= g->globals_end) && (prev < g->globals_start || prev >= g->globals_end);
	return next && prev && !(next & 7) && !(prev & 7) && outside;
}

static int bad(char *why, size_t size, const char *what, unsigned k)
{
	snprintf(why, size, "%s (%u)", what, k);
	return -EBADMSG;
}

int heap_tcmalloc_sum(const struct tcmalloc_globals *g, struct tcmalloc_figures *ret, char *why, size_t why_size)
{
	struct tcmalloc_figures f = { 0 };
	const uint8_t *sm = g->sizemap, *st = g->free_lists;
	uint64_t span_bytes = 0;

	f.classes = heap_tcmalloc_classes(sm);
	if (!f.classes) {
		snprintf(why, why_size, "its size classes do not check out");
		return -EBADMSG;
	}
	f.system = bytes_u64(st, ST_SYSTEM);
	f.pageheap_free = bytes_u64(st, ST_FREE);
	f.unmapped = bytes_u64(st, ST_UNMAPPED);
	uint64_t committed = bytes_u64(st, ST_COMMITTED);
	if (f.system % TC_PAGE || f.pageheap_free % TC_PAGE || f.unmapped % TC_PAGE || f.system > (1ull << 47) ||
	    f.pageheap_free > f.system || f.unmapped > f.system - f.pageheap_free || committed > f.system) {
		snprintf(why, why_size, "the page heap's statistics do not check out");
		return -EBADMSG;
	}
	for (unsigned j = 0; j < 2 * 128; j++)
		if (!list_head(st + (size_t)j * SPAN_BYTES, g->free_lists_addr + (uint64_t)j * SPAN_BYTES, g))
			return bad(why, why_size, "a free list of the page heap that is not one", j);

	for (unsigned k = 0; k < f.classes; k++) {
		const uint8_t *c = g->central + (size_t)k * TCMALLOC_CENTRAL_BYTES;
		uint64_t at = g->central_addr + (uint64_t)k * TCMALLOC_CENTRAL_BYTES;
		uint64_t spans = bytes_u64(c, CF_NUM_SPANS), counter = bytes_u64(c, CF_COUNTER);
		int32_t used = (int32_t)bytes_u32(c, CF_USED_SLOTS), cache = (int32_t)bytes_u32(c, CF_CACHE_SIZE);
		int32_t max_cache = (int32_t)bytes_u32(c, CF_MAX_CACHE_SIZE);
		if (bytes_u64(c, CF_SIZE_CLASS) != k)
			return bad(why, why_size, "a central free list of another size class", k);
		if (!list_head(c + CF_EMPTY, at + CF_EMPTY, g) || !list_head(c + CF_NONEMPTY, at + CF_NONEMPTY, g))
			return bad(why, why_size, "a central free list's spans that are not a list", k);
		if (used < 0 || used > cache || cache > max_cache || max_cache > TC_TRANSFER_MAX)
			return bad(why, why_size, "a transfer cache's slots out of range", k);
		if (k == 0) {
			if (spans || counter || used)
				return bad(why, why_size, "objects of size class 0", k);
			continue;
		}
		uint64_t size = bytes_u32(g->sizemap, SM_SIZE + 4 * k), pages = bytes_u64(g->sizemap, SM_PAGES + 8 * k);
		uint64_t move = bytes_u32(g->sizemap, SM_MOVE + 4 * k), per_span = pages * TC_PAGE / size;
		if (spans > f.system / (pages * TC_PAGE) || counter > spans * per_span)
			return bad(why, why_size, "a central free list holding more than its spans", k);
		span_bytes += spans * pages * TC_PAGE;
		f.central += counter * size + spans * ((pages * TC_PAGE) % size);
		f.transfer += (uint64_t)used * move * size;
	}
	f.thread = g->thread_bytes;
	f.threads = g->threads;
	uint64_t kept = f.pageheap_free + f.unmapped;
	if (span_bytes > f.system - kept || f.central + f.transfer + f.thread > f.system - kept) {
		snprintf(why, why_size, "caches holding more than the page heap gave out (read while it moved)");
		return -EBADMSG;
	}
	f.in_use = f.system - kept - f.central - f.transfer - f.thread;
	*ret = f;
	return 0;
}

/* ------------------------------------------------------------ the walk */

static bool is_page_heap(const struct region *r, int rule)
{
	return r->cls == CLASS_MALLOC && r->rule == rule;
}

/* The buffers one reading of the globals fills. */
struct reading {
	uint8_t sizemap[TCMALLOC_SIZEMAP_BYTES];
	uint8_t free_lists[TCMALLOC_FREE_LISTS_BYTES];
	uint8_t central[TC_CLASSES_MAX * TCMALLOC_CENTRAL_BYTES];
};

/* Reads the globals of build at base once and sums them.  Returns 0 with
 * *ret, -EBADMSG or -EAGAIN (read again) with why set, -EIO (a page
 * swapped out: not read), -E2BIG (the byte limit), or the source's error. */
static int read_once(const struct heap_walk_input *in, const struct tcmalloc_build *build, uint64_t base,
		     struct reading *rd, struct heap_walk *w, struct tcmalloc_figures *ret, char *why, size_t why_size)
{
	uint64_t max = in->limits && in->limits->max_bytes ? in->limits->max_bytes : UINT64_MAX;
	struct tcmalloc_globals g = {
		.sizemap = rd->sizemap,
		.central = rd->central,
		.central_addr = base + build->central_cache,
		.free_lists = rd->free_lists,
		.free_lists_addr = base + build->pageheap + TCMALLOC_FREE_LISTS_OFFSET,
	};
	uint64_t lo = build->pageheap, hi = build->sizemap + TCMALLOC_SIZEMAP_BYTES;
	if (build->central_cache < lo)
		lo = build->central_cache;
	if (build->central_cache + TC_CLASSES_MAX * TCMALLOC_CENTRAL_BYTES > hi)
		hi = build->central_cache + TC_CLASSES_MAX * TCMALLOC_CENTRAL_BYTES;
	g.globals_start = base + lo;
	g.globals_end = base + hi;

#define READ(addr, len, buf)                                                                   \
	do {                                                                                   \
		if (w->bytes_read + (len) > max) {                                             \
			snprintf(why, why_size, "the bytes a census may read of the process were spent"); \
			return -E2BIG;                                                         \
		}                                                                              \
		int r_ = heap_read(in->src, (addr), (len), (uint8_t *)(buf), &w->bytes_read); \
		if (r_ == -EAGAIN)                                                             \
			snprintf(why, why_size, "its globals could not be read");             \
		if (r_ < 0)                                                                    \
			return r_;                                                             \
	} while (0)

	READ(base + build->sizemap, TCMALLOC_SIZEMAP_BYTES, rd->sizemap);
	unsigned classes = heap_tcmalloc_classes(rd->sizemap);
	if (!classes) {
		snprintf(why, why_size, "its size classes do not check out");
		return -EBADMSG;
	}
	READ(g.central_addr, (size_t)classes * TCMALLOC_CENTRAL_BYTES, rd->central);
	READ(g.free_lists_addr, TCMALLOC_FREE_LISTS_BYTES, rd->free_lists);

	/* the thread caches: a list, as long as its count says */
	uint8_t head[16];
	READ(base + build->thread_heap_count, 16, head);
	int32_t count = (int32_t)bytes_u32(head, 0);
	uint64_t next = bytes_u64(head, 8);
	if (count < 0 || (unsigned)count > RW_TCMALLOC_THREADS_MAX) {
		snprintf(why, why_size, "%d thread caches: more than a census reads (%u)", count, RW_TCMALLOC_THREADS_MAX);
		return count < 0 ? -EBADMSG : -E2BIG;
	}
	while (next) {
		uint8_t tc[TC_NEXT_AT + 8 - TC_SIZE_AT];
		if (g.threads == (unsigned)count) {
			snprintf(why, why_size, "more thread caches than their count (read while one was made)");
			return -EAGAIN;
		}
		if (next & 7 || next + TC_NEXT_AT + 8 < next) {
			snprintf(why, why_size, "a thread cache at an address no allocation has");
			return -EBADMSG;
		}
		READ(next + TC_SIZE_AT, sizeof(tc), tc);
		int32_t size = (int32_t)bytes_u32(tc, 0);
		if (size < 0) {
			snprintf(why, why_size, "a thread cache of a negative size");
			return -EBADMSG;
		}
		g.thread_bytes += (uint64_t)size;
		g.threads++;
		next = bytes_u64(tc, TC_NEXT_AT - TC_SIZE_AT);
	}
#undef READ
	if (g.threads != (unsigned)count) {
		snprintf(why, why_size, "fewer thread caches than their count (read while one went)");
		return -EAGAIN;
	}
	return heap_tcmalloc_sum(&g, ret, why, why_size);
}

/* Lays the figures over the page heap's regions (w's covers), in use
 * first, then the page heap's free (returnable), then the caches'. */
static int lay(struct heap_walk *w, const struct tcmalloc_figures *f)
{
	uint64_t left[3] = { f->in_use, f->pageheap_free, f->central + f->transfer + f->thread };

	for (size_t i = 0; i < w->n_covers; i++) {
		uint64_t at = w->covers[i].start, end = w->covers[i].end;
		for (int kind = 0; kind < 3; kind++) {
			uint64_t p = heap_walk_private(w, at, end), take = left[kind] < p ? left[kind] : p;
			if (!take)
				continue;
			size_t before = w->n_spans;
			int r = kind == 0 ? heap_private_add(w, at, end, take, 0, false)
					  : heap_private_add(w, at, end, 0, take, kind == 1);
			if (r < 0)
				return r;
			left[kind] -= take;
			if (w->n_spans > before)
				at = w->spans[w->n_spans - 1].end;
		}
	}
	return 0;
}

static int give_up(struct heap_walk *w, const char *name, const char *why)
{
	w->failed = true;
	snprintf(w->why_not, sizeof(w->why_not), "%s: %s", name, why);
	return 0;
}

int heap_tcmalloc_walk_build(const struct heap_walk_input *in, const struct tcmalloc_build *build, uint64_t base,
			     struct heap_walk *w)
{
	const int rule = classify_rule_from_key("tcmalloc_page_heap");
	uint64_t heap_bytes = 0;
	char why[200] = "";
	struct tcmalloc_figures f;
	int r = -EAGAIN;

	w->cls = CLASS_MALLOC;
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *reg = &in->regions[i];
		if (!is_page_heap(reg, rule))
			continue;
		int e = heap_walk_cover(w, in->src, reg->start, reg->end);
		if (e < 0)
			return e;
		heap_bytes += region_size(reg);
	}
	if (w->n_covers == 0)
		return 0;

	struct reading *rd = malloc(sizeof(*rd));
	if (!rd)
		return -ENOMEM;
	unsigned tries = 1 + (in->limits ? in->limits->retries : 0), t;
	for (t = 0; t < tries && (r == -EAGAIN || r == -EBADMSG); t++) {
		if (t > 0 && in->limits && in->limits->deadline_us && now_monotonic_us() >= in->limits->deadline_us)
			break;
		r = read_once(in, build, base, rd, w, &f, why, sizeof(why));
	}
	free(rd);
	if (r == -ESRCH || r == -ENOMEM)
		return r;
	if (r == -EIO)
		return give_up(w, build->name, "its globals are swapped out");
	if (r < 0) {
		if ((r == -EAGAIN || r == -EBADMSG) && t > 1)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), ", %u tries", t);
		return give_up(w, build->name, why);
	}
	if (f.system > heap_bytes) {
		char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
		snprintf(why, sizeof(why), "its page heap (%s) is larger than [heap] (%s): it maps memory elsewhere too",
			 format_bytes(a, f.system), format_bytes(b, heap_bytes));
		return give_up(w, build->name, why);
	}
	r = lay(w, &f);
	if (r < 0)
		return r;
	char sys[FORMAT_BYTES_MAX], free_s[FORMAT_BYTES_MAX], caches[FORMAT_BYTES_MAX];
	snprintf(w->how, sizeof(w->how),
		 "%s: page heap %s, %s of it free; %u size classes, %u thread cache%s: %s free in the caches",
		 build->name, format_bytes(sys, f.system), format_bytes(free_s, f.pageheap_free), f.classes, f.threads,
		 f.threads == 1 ? "" : "s", format_bytes(caches, f.central + f.transfer + f.thread));
	return 0;
}

/* The library's mapping at file offset 0: where it is loaded. */
static const struct region *library(const struct heap_walk_input *in)
{
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		const char *base = r->path ? strrchr(r->path, '/') : NULL;
		if (base && strncmp(base + 1, "libtcmalloc", 11) == 0 && r->inode && r->offset == 0)
			return r;
	}
	return NULL;
}

int heap_tcmalloc_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w)
{
	const int rule = classify_rule_from_key("tcmalloc_page_heap");
	const struct region *lib = library(in);
	const struct tcmalloc_build *build = NULL;
	bool any = false;
	char why[200] = "";

	for (size_t i = 0; i < in->n_regions; i++)
		any |= is_page_heap(&in->regions[i], rule);
	if (!any)
		return 0;
	if (lib) {
		_cleanup_close_ int fd = mapping_file_open(proc_root, in->pid, lib, why, sizeof(why));
		if (fd == -ESRCH)
			return -ESRCH;
		_cleanup_free_ char *elf = NULL;
		size_t len = 0, id_len = 0;
		uint8_t id[64];
		if (fd >= 0 && read_full_fd(fd, RW_LIBRARY_READ_MAX, &elf, &len) < 0)
			snprintf(why, sizeof(why), "%s could not be read", lib->path);
		else if (fd >= 0 && elf_build_id((const uint8_t *)elf, len, id, sizeof(id), &id_len) < 0)
			snprintf(why, sizeof(why), "%s has no build-id", lib->path);
		else if (fd >= 0 && !(build = heap_tcmalloc_build(id, id_len))) {
			int n = snprintf(why, sizeof(why), "%s: a build whose layout this version does not know (build-id ",
					 lib->path);
			for (size_t k = 0; k < id_len && n > 0 && (size_t)n + 3 < sizeof(why); k++)
				n += snprintf(why + n, sizeof(why) - (size_t)n, "%02x", id[k]);
			if (n > 0 && (size_t)n + 2 < sizeof(why))
				snprintf(why + n, sizeof(why) - (size_t)n, ")");
		}
	} else {
		snprintf(why, sizeof(why), "no libtcmalloc mapped (a static tcmalloc is not known)");
	}
	if (build)
		return heap_tcmalloc_walk_build(in, build, lib->start, w);

	w->cls = CLASS_MALLOC;
	for (size_t i = 0; i < in->n_regions; i++)
		if (is_page_heap(&in->regions[i], rule)) {
			int r = heap_walk_cover(w, in->src, in->regions[i].start, in->regions[i].end);
			if (r < 0)
				return r;
		}
	return give_up(w, "tcmalloc", why);
}

int heap_walk_tcmalloc(const struct heap_walk_input *in, struct heap_walk *w)
{
	return heap_tcmalloc_walk(in, "/proc", w);
}
