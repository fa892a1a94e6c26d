/* mimalloc's in use and free (heap-walk.h), read from its own headers.
 *
 * mimalloc 2.0 (src/segment.c, include/mimalloc-types.h) takes memory
 * from the OS in segments of 32 MiB, 32 MiB-aligned (a huge block gets a
 * segment of its own, larger).  A segment starts with mi_segment_t, whose
 * slices[] array describes its 64 KiB slices: runs of slices are either
 * free (xblock_size 0) or a page (xblock_size its block size) holding
 * blocks of one size, the first run being the segment's own header.  A
 * page's header counts its blocks: capacity carved so far, reserved in
 * all, used (handed out and not freed by their thread; blocks freed by
 * other threads stay counted until the page's owner collects them, as
 * mimalloc's own mi_heap_visit_blocks counts them).  So, per page:
 *   in use = used x block size
 *   free   = (reserved - used) x block size
 * and a free run of slices is free and returnable (mimalloc decommits it
 * after its delay, at once on mi_collect(true)), as is a page holding no
 * block in use.  The segment's header and each page's alignment tail
 * are overhead.  The figures count private pages only (heap-walk.h):
 * what mimalloc reserved but never touched is no memory.
 *
 * The evidence pass has found the segments (OWNER_MIMALLOC: their
 * regions have rule mimalloc_segments).  Each is read whole (its header:
 * 41 KiB), only in resident pages (an absent page of anonymous memory
 * reads as zeros; a swapped one is not read), and checked: the slices
 * must tile the segment, each page's counts must fit its size, its free
 * lists must point at block boundaries inside it, the pages in use must
 * be as many as the segment says.  A segment that moved while it was
 * read is read again, a bounded number of times, then left unknown; the
 * others are still counted.
 *
 * Layouts are keyed by the version mimalloc reports: mi_version() is a
 * function that returns a constant, read from the library's code in its
 * ELF file (elf-read.h), never guessed; a version whose layout this
 * walker does not know leaves the class unknown, saying which. */
#include "heap-mimalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "classify.h"
#include "elf-read.h"
#include "evidence.h"
#include "fileio.h"
#include "heap-private.h"
#include "heap-read.h"
#include "heap-walkers.h"
#include "limits.h"
#include "macro.h"
#include "mapping-file.h"
#include "units.h"
#include "util.h"

#define PAGE (4 * KiB)
#define SEGMENT (32 * MiB)
#define SLICE (64 * KiB)
#define SLICES_MAX 512u

/* mimalloc 2.0.9, x86-64 and aarch64 (checked with offsetof against its
 * headers as Debian 12 builds them: release, MI_SECURE 0, MI_DEBUG 0,
 * so no encoded free lists and no padding). */
enum {
	SEG_USED = 208,          /* size_t used: pages in use */
	SEG_SLICES = 224,        /* size_t segment_slices */
	SEG_INFO_SLICES = 232,   /* size_t segment_info_slices */
	SEG_KIND = 240,          /* mi_segment_kind_t kind: 0 normal, 1 huge */
	SEG_SLICE_ENTRIES = 248, /* size_t slice_entries */
	SEG_THREAD_ID = 256,     /* size_t thread_id: 0 for a segment no thread owns */
	SEG_SLICE0 = 264,        /* mi_slice_t slices[] */
	PAGE_SIZE_BYTES = 80,    /* sizeof(mi_page_t) */
	PG_SLICE_COUNT = 0,      /* uint32_t */
	PG_SLICE_OFFSET = 4,     /* uint32_t */
	PG_CAPACITY = 10,        /* uint16_t */
	PG_RESERVED = 12,        /* uint16_t */
	PG_FLAGS = 14,           /* uint8_t: in_full, has_aligned */
	PG_FREE = 16,            /* mi_block_t *free */
	PG_USED = 24,            /* uint32_t used */
	PG_XBLOCK_SIZE = 28,     /* uint32_t xblock_size */
	PG_LOCAL_FREE = 32,      /* mi_block_t *local_free */
	PG_THREAD_FREE = 40,     /* uintptr_t xthread_free: a block, 2 bits of flags */
	MAX_SLICE_OFFSET = 15,   /* back offsets set after a page's first slice */
};

/* Blocks of this size or more have the size of their page
 * (MI_HUGE_BLOCK_SIZE); small pages' blocks start after an offset
 * (_mi_segment_page_start_from_slice: 3 x MI_MAX_ALIGN_GUARANTEE). */
#define HUGE_BLOCK_SIZE (2 * GiB)
#define SMALL_START_OFFSET 384u

/* The versions whose layout is the one above. */
static const struct {
	int version;
	const char *name;
} layouts[] = {
	{ 209, "2.0.9" },
};

const char *heap_mimalloc_layout(int version)
{
	for (size_t i = 0; i < ELEMENTSOF(layouts); i++)
		if (layouts[i].version == version)
			return layouts[i].name;
	return NULL;
}

int heap_mimalloc_version(const uint8_t *elf, size_t len)
{
	size_t off, size;
	int r = elf_dynamic_symbol(elf, len, "mi_version", &off, &size);
	if (r < 0)
		return r;
	const uint8_t *c = elf + off;
	if (size >= 4 && memcmp(c, "\xf3\x0f\x1e\xfa", 4) == 0) { /* endbr64 */
		c += 4;
		size -= 4;
	}
	if (size >= 6 && c[0] == 0xb8 && c[5] == 0xc3) /* mov eax, imm32; ret */
		return (int)(bytes_u32(c, 1) & 0x7fffffff);
	/* aarch64: movz w0, #imm16 (0x52800000 | imm16 << 5); ret */
	if (size >= 8 && (bytes_u32(c, 0) & 0xffe0001f) == 0x52800000 && bytes_u32(c, 4) == 0xd65f03c0)
		return (int)((bytes_u32(c, 0) >> 5) & 0xffff);
	return -ENOTSUP;
}

/* ------------------------------------------------------------ a segment */

static int bad(char *why, size_t size, const char *what, uint32_t slice)
{
	snprintf(why, size, "%s (slice %u)", what, slice);
	return -EBADMSG;
}

/* A free-list pointer: none, or a block boundary among the carved ones. */
static bool block_pointer(uint64_t p, const struct mimalloc_run *pg)
{
	return p == 0 || (p >= pg->blocks && p < pg->blocks + pg->capacity * pg->bsize && (p - pg->blocks) % pg->bsize == 0);
}

/* The back offsets mi_segment_span_allocate writes into the slices that
 * follow a page's first (up to MAX_SLICE_OFFSET of them, and its last). */
static bool back_offsets(const uint8_t *b, uint32_t first, uint32_t count, uint32_t entries)
{
	uint32_t extra = count - 1 < MAX_SLICE_OFFSET ? count - 1 : MAX_SLICE_OFFSET;
	if (first + extra >= entries)
		extra = entries - first - 1;
	for (uint32_t k = 1; k <= extra; k++) {
		const uint8_t *s = b + SEG_SLICE0 + (size_t)(first + k) * PAGE_SIZE_BYTES;
		if (bytes_u32(s, PG_SLICE_OFFSET) != k * PAGE_SIZE_BYTES || bytes_u32(s, PG_SLICE_COUNT) != 0 ||
		    bytes_u32(s, PG_XBLOCK_SIZE) != 1)
			return false;
	}
	return true;
}

static int check_page(const uint8_t *s, uint64_t addr, struct mimalloc_run *pg, char *why, size_t why_size)
{
	uint32_t xblock = bytes_u32(s, PG_XBLOCK_SIZE);
	uint64_t start_offset = xblock >= 8 && xblock <= 1024 ? SMALL_START_OFFSET : 0;
	uint64_t area = (uint64_t)pg->count * SLICE - start_offset;

	pg->page = true;
	pg->blocks = addr + (uint64_t)pg->first * SLICE + start_offset;
	pg->bsize = xblock < HUGE_BLOCK_SIZE ? xblock : area;
	pg->capacity = bytes_u16(s, PG_CAPACITY);
	pg->reserved = bytes_u16(s, PG_RESERVED);
	pg->used = bytes_u32(s, PG_USED);
	if (pg->capacity > pg->reserved || pg->used > pg->capacity || pg->reserved * pg->bsize > area)
		return bad(why, why_size, "a page's block counts do not fit it", pg->first);
	if (s[PG_FLAGS] > 3)
		return bad(why, why_size, "a page's flags out of range", pg->first);
	if (!block_pointer(bytes_u64(s, PG_FREE), pg) || !block_pointer(bytes_u64(s, PG_LOCAL_FREE), pg) ||
	    !block_pointer(bytes_u64(s, PG_THREAD_FREE) & ~(uint64_t)3, pg))
		return bad(why, why_size, "a page's free list points outside its blocks", pg->first);
	return 0;
}

int heap_mimalloc_check(const uint8_t *b, size_t len, uint64_t addr, uint64_t limit, struct mimalloc_segment *ret,
			char *why, size_t why_size)
{
	uint64_t pages_used;

	if (len < HEAP_MIMALLOC_HEADER_BYTES || limit <= addr ||
	    !evidence_mimalloc_segment(b, len, addr, limit, &pages_used)) {
		snprintf(why, why_size, "a segment header that does not check out");
		return -EBADMSG;
	}
	uint64_t slices = bytes_u64(b, SEG_SLICES), info = bytes_u64(b, SEG_INFO_SLICES);
	uint32_t entries = (uint32_t)bytes_u64(b, SEG_SLICE_ENTRIES);
	bool huge = bytes_u32(b, SEG_KIND) == 1;
	ret->addr = addr;
	ret->length = slices * SLICE;
	ret->n_runs = 0;
	ret->pages = pages_used;
	ret->cached = false;
	/* a segment's tail mimalloc never committed may be inaccessible, a
	 * region of its own: what the walk covers ends with the region */
	ret->end = ret->length < limit - addr ? addr + ret->length : limit;
	const uint8_t *s0 = b + SEG_SLICE0;
	if (bytes_u32(s0, PG_SLICE_COUNT) != info || bytes_u32(s0, PG_SLICE_OFFSET) != 0 || bytes_u32(s0, PG_XBLOCK_SIZE) == 0) {
		snprintf(why, why_size, "the segment's header slices are not its first run");
		return -EBADMSG;
	}
	ret->runs[ret->n_runs++] = (struct mimalloc_run){ .first = 0, .count = (uint32_t)info };

	/* A segment freed to mimalloc's cache (no pages in use, no owner)
	 * keeps its runs marked taken (mi_span_queue_delete sets xblock_size
	 * to 1 on the way out): all of it is free. */
	if (pages_used == 0 && bytes_u64(b, SEG_THREAD_ID) == 0 && !huge) {
		ret->cached = true;
		ret->runs[ret->n_runs++] =
			(struct mimalloc_run){ .first = (uint32_t)info, .count = (uint32_t)(slices - info) };
		return 0;
	}

	/* the slices must tile the segment: one run after another */
	uint64_t used_pages = 0;
	for (uint32_t i = (uint32_t)info; i < entries;) {
		const uint8_t *s = b + SEG_SLICE0 + (size_t)i * PAGE_SIZE_BYTES;
		uint32_t count = bytes_u32(s, PG_SLICE_COUNT), xblock = bytes_u32(s, PG_XBLOCK_SIZE);
		if (count == 0 || bytes_u32(s, PG_SLICE_OFFSET) != 0)
			return bad(why, why_size, "a run of slices that does not start where the last ended", i);
		if ((uint64_t)i + count > (huge ? slices : entries))
			return bad(why, why_size, "a run of slices past the segment's end", i);
		struct mimalloc_run *r = &ret->runs[ret->n_runs++];
		*r = (struct mimalloc_run){ .first = i, .count = count };
		if (xblock != 0) {
			int e = check_page(s, addr, r, why, why_size);
			if (e < 0)
				return e;
			if (!back_offsets(b, i, count, entries))
				return bad(why, why_size, "a page whose slices do not point back at it", i);
			used_pages++;
		} else if (count > 1 && i + count - 1 < entries) {
			const uint8_t *last = b + SEG_SLICE0 + (size_t)(i + count - 1) * PAGE_SIZE_BYTES;
			if (bytes_u32(last, PG_SLICE_OFFSET) != (count - 1) * PAGE_SIZE_BYTES || bytes_u32(last, PG_SLICE_COUNT) != 0)
				return bad(why, why_size, "a free run whose last slice does not point back at it", i);
		}
		i += count;
	}
	if (used_pages != pages_used) {
		snprintf(why, why_size, "%" PRIu64 " pages in use where the segment counts %" PRIu64, used_pages, pages_used);
		return -EBADMSG;
	}
	return 0;
}

int heap_mimalloc_add(struct heap_walk *w, const struct mimalloc_segment *seg)
{
	for (uint32_t k = 1; k < seg->n_runs; k++) {
		const struct mimalloc_run *r = &seg->runs[k];
		uint64_t start = seg->addr + (uint64_t)r->first * SLICE, end = start + (uint64_t)r->count * SLICE;
		int e = 0;
		if (start >= seg->end)
			break;
		if (end > seg->end)
			end = seg->end;
		if (!r->page) {
			e = heap_walk_add_free(w, start, end, start, end);
		} else {
			/* heap_private_add lays spans over the covers' private
			 * pages only: none past the segment's end */
			uint64_t carved = r->blocks + r->capacity * r->bsize;
			if (r->capacity)
				e = heap_private_add(w, r->blocks, carved, r->used * r->bsize,
						     (r->capacity - r->used) * r->bsize, r->used == 0);
			if (e == 0 && r->reserved > r->capacity)
				e = heap_private_add(w, carved, carved + (r->reserved - r->capacity) * r->bsize, 0,
						     (r->reserved - r->capacity) * r->bsize, false);
		}
		if (e < 0)
			return e;
	}
	return 0;
}

/* ------------------------------------------------------------ the walk */

/* What a walk found, for its how. */
struct tally {
	uint64_t segments, pages, cached, unknown;
	char why[160]; /* the last reason a segment was left unknown */
};

/* Reads the header of the segment at addr (ending by limit) into b: its
 * first page, and the rest only when that page is a segment's.  Returns
 * as heap_read, or -EBADMSG when the first page is no segment's. */
static int read_header(struct memsource *src, uint64_t addr, uint64_t limit, uint8_t *b, uint64_t *bytes)
{
	uint64_t pages_used;
	int r = heap_read(src, addr, PAGE, b, bytes);
	if (r < 0)
		return r;
	if (!evidence_mimalloc_segment(b, PAGE, addr, limit, &pages_used))
		return -EBADMSG;
	return heap_read(src, addr + PAGE, HEAP_MIMALLOC_HEADER_BYTES - PAGE, b + PAGE, bytes);
}

/* Walks the segment at addr (ending by limit): read, checked, retried.
 * Returns its length with its spans in w, 0 when it was left unknown (t
 * says why), or -errno (-ESRCH, -ENOMEM). */
static int64_t walk_segment(const struct heap_walk_input *in, uint64_t addr, uint64_t limit, uint8_t *b,
			    struct mimalloc_segment *seg, struct heap_walk *w, struct tally *t)
{
	unsigned tries = 1 + (in->limits ? in->limits->retries : 0);
	uint64_t max = in->limits && in->limits->max_bytes ? in->limits->max_bytes : UINT64_MAX;

	for (unsigned k = 0; k < tries; k++) {
		if (w->bytes_read + HEAP_MIMALLOC_HEADER_BYTES > max) {
			snprintf(t->why, sizeof(t->why), "the bytes a census may read of the process were spent");
			return 0;
		}
		if (in->limits && in->limits->deadline_us && now_monotonic_us() >= in->limits->deadline_us) {
			snprintf(t->why, sizeof(t->why), "the census's time for heap walks was spent");
			return 0;
		}
		int r = read_header(in->src, addr, limit, b, &w->bytes_read);
		if (r == -EIO) {
			snprintf(t->why, sizeof(t->why), "a segment's header is swapped out");
			return 0;
		}
		if (r == -EAGAIN || r == -EBADMSG) {
			snprintf(t->why, sizeof(t->why), "a segment's header could not be read");
			if (r == -EBADMSG)
				snprintf(t->why, sizeof(t->why), "a segment header that does not check out");
			continue;
		}
		if (r < 0)
			return r;

		/* the segment is checked whole before it is covered */
		if (heap_mimalloc_check(b, HEAP_MIMALLOC_HEADER_BYTES, addr, limit, seg, t->why, sizeof(t->why)) < 0)
			continue;
		r = heap_walk_cover(w, in->src, addr, seg->end);
		if (r == 0)
			r = heap_mimalloc_add(w, seg);
		if (r < 0)
			return r;
		t->segments++;
		t->pages += seg->pages;
		t->cached += seg->cached;
		return (int64_t)seg->length;
	}
	if (tries > 1)
		snprintf(t->why + strlen(t->why), sizeof(t->why) - strlen(t->why), ", %u tries", tries);
	return 0;
}

static bool is_segments(const struct region *r, int rule)
{
	return r->cls == CLASS_MALLOC && r->rule == rule;
}

int heap_mimalloc_walk_version(const struct heap_walk_input *in, int version, struct heap_walk *w)
{
	const int rule = classify_rule_from_key("mimalloc_segments");
	const char *name = heap_mimalloc_layout(version);
	struct tally t = { 0 };
	int r = 0;

	w->cls = CLASS_MALLOC;
	if (!name) {
		/* cover what is mimalloc's, and say why it is not known */
		for (size_t i = 0; i < in->n_regions && r == 0; i++)
			if (is_segments(&in->regions[i], rule))
				r = heap_walk_cover(w, in->src, in->regions[i].start, in->regions[i].end);
		if (r < 0)
			return r;
		w->failed = w->n_covers > 0;
		snprintf(w->why_not, sizeof(w->why_not), "mimalloc %d.%d.%d: a layout this version does not know",
			 version / 100, version / 10 % 10, version % 10);
		return 0;
	}
	uint8_t *b = malloc(HEAP_MIMALLOC_HEADER_BYTES);
	struct mimalloc_segment *seg = malloc(sizeof(*seg));
	if (!b || !seg) {
		free(b);
		free(seg);
		return -ENOMEM;
	}
	for (size_t i = 0; i < in->n_regions && r >= 0; i++) {
		const struct region *reg = &in->regions[i];
		if (!is_segments(reg, rule))
			continue;
		for (uint64_t addr = (reg->start + SEGMENT - 1) & ~(SEGMENT - 1); addr < reg->end;) {
			int64_t len = walk_segment(in, addr, reg->end, b, seg, w, &t);
			if (len < 0) {
				r = (int)len;
				break;
			}
			if (len == 0)
				t.unknown++;
			addr += len ? ((uint64_t)len + SEGMENT - 1) & ~(SEGMENT - 1) : SEGMENT;
		}
	}
	free(b);
	free(seg);
	if (r < 0)
		return r;
	if (t.segments == 0 && t.unknown) {
		/* nothing checked out: what evidence confirmed is unknown */
		for (size_t i = 0; i < in->n_regions && r == 0; i++)
			if (is_segments(&in->regions[i], rule))
				r = heap_walk_cover(w, in->src, in->regions[i].start, in->regions[i].end);
		w->failed = true;
		snprintf(w->why_not, sizeof(w->why_not), "mimalloc %s: %s", name, t.why);
		return r;
	}
	char cached[32] = "", unknown[192] = "";
	if (t.cached)
		snprintf(cached, sizeof(cached), " (%" PRIu64 " cached)", t.cached);
	if (t.unknown)
		snprintf(unknown, sizeof(unknown), "; %" PRIu64 " unknown: %s", t.unknown, t.why);
	if (t.segments)
		snprintf(w->how, sizeof(w->how), "mimalloc %s: %" PRIu64 " segment%s%s, %" PRIu64 " page%s in use%s", name,
			 t.segments, t.segments == 1 ? "" : "s", cached, t.pages, t.pages == 1 ? "" : "s", unknown);
	return 0;
}

int heap_mimalloc_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w)
{
	const int rule = classify_rule_from_key("mimalloc_segments");
	const struct region *lib = NULL;
	bool any = false;
	char why[160] = "";

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		const char *base = r->path ? strrchr(r->path, '/') : NULL;
		if (!lib && base && strncmp(base + 1, "libmimalloc", 11) == 0 && r->inode)
			lib = r;
		any |= is_segments(r, rule);
	}
	if (!any)
		return 0;
	int version = -ENOENT;
	if (lib) {
		_cleanup_close_ int fd = mapping_file_open(proc_root, in->pid, lib, why, sizeof(why));
		if (fd == -ESRCH)
			return -ESRCH;
		_cleanup_free_ char *elf = NULL;
		size_t len = 0;
		if (fd >= 0 && read_full_fd(fd, RW_LIBRARY_READ_MAX, &elf, &len) == 0)
			version = heap_mimalloc_version((const uint8_t *)elf, len);
		if (fd >= 0 && version < 0)
			snprintf(why, sizeof(why), "%s: mi_version() could not be read", lib->path);
	} else {
		snprintf(why, sizeof(why), "no libmimalloc mapped to read its version from");
	}
	if (version >= 0)
		return heap_mimalloc_walk_version(in, version, w);

	w->cls = CLASS_MALLOC;
	for (size_t i = 0; i < in->n_regions; i++)
		if (is_segments(&in->regions[i], rule)) {
			int r = heap_walk_cover(w, in->src, in->regions[i].start, in->regions[i].end);
			if (r < 0)
				return r;
		}
	w->failed = true;
	snprintf(w->why_not, sizeof(w->why_not), "mimalloc: its version is not known (%s)", why);
	return 0;
}

int heap_walk_mimalloc(const struct heap_walk_input *in, struct heap_walk *w)
{
	return heap_mimalloc_walk(in, "/proc", w);
}
