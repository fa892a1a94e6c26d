/* The classifier's rules for anonymous memory recognised by its shape
 * (classify-internal.h): where a runtime or an allocator puts its memory,
 * and how a thread stack looks from outside.  Each comment says what the
 * shape is and, where it differs from the reference census, why. */
#include "classify-internal.h"

#include "macro.h"

/* Region j is a PartitionAlloc super page's metadata page: one writable
 * page at 8 KiB past a 2 MiB boundary, between the inaccessible parts of
 * the first partition page.  Three regions in this exact arrangement do not
 * happen by chance. */
bool shape_pa_metadata_page(const struct ctx *c, size_t j)
{
	const struct region *m = &c->r[j];
	if (j == 0 || j + 1 >= c->n || !is_anon_private(m) || !is_rw(m) ||
	    m->start % PA_SUPER_PAGE != PA_METADATA_OFFSET || region_size(m) != PA_METADATA_SIZE)
		return false;
	const struct region *below = &c->r[j - 1], *above = &c->r[j + 1];
	return contiguous(below, m) && is_anon_private(below) && region_inaccessible(below) && contiguous(m, above) &&
	       is_anon_private(above) && region_inaccessible(above);
}

bool shape_cuda_reservation(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return c->rt.nvidia && is_anon_private(r) && region_inaccessible(r) && r->start >= CUDA_WINDOW_START &&
	       r->end <= CUDA_WINDOW_END;
}

/* The reference has no JIT class; writable+executable anonymous memory is
 * generated code on every runtime that does not use W^X. */
bool shape_jit(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return is_anon_private(r) && region_writable(r) && region_executable(r);
}

/* With compressed oops (every heap under 32 GiB unless disabled) HotSpot
 * reserves the heap so that it ends at or below 32 GiB, where nothing else
 * in a JVM process is mapped; a larger heap is found by its -Xmx size. */
bool shape_jvm_heap(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (!c->rt.jvm || !is_anon_private(r))
		return false;
	if (r->end <= JVM_COMPRESSED_OOPS_LIMIT)
		return true;
	uint64_t span = group_span(c, i);
	return c->rt.jvm_max_heap && span >= c->rt.jvm_max_heap && span - c->rt.jvm_max_heap <= 32 * MiB;
}

/* The JVM reserves its own memory up front and commits it as it needs:
 * class metadata (metaspace, in nodes of 64 MiB, and the compressed class
 * space, 1 GiB by default, right after the CDS archive) and its garbage
 * collector's tables (G1's card table and bitmaps), seen as read-write
 * regions inside inaccessible reservations.  Thread stacks and glibc's
 * arenas, the other runs with reserves in a JVM, are recognised before
 * this rule. */
bool shape_jvm_reserved(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return c->rt.jvm && is_anon_private(r) && c->run_has_reserve[r->run_first] &&
	       group_span(c, i) >= JVM_METADATA_RESERVE_MIN;
}

/* Go's heap starts at the runtime's first arena hint, 0x00c0 << 32, and
 * grows contiguously from there; later hints are (i << 40 | 0x00c0 << 32). */
bool shape_go_arena(const struct ctx *c, size_t i)
{
	if (!is_anon_private(&c->r[i]) || c->rt.jvm || c->rt.v8)
		return false;
	uint64_t head = group_head(c, i)->start;
	return (head & ((1ull << 40) - 1)) == 0xc000000000ull && (head >> 40) <= 0x7f;
}

bool shape_v8_page(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return c->rt.v8 && is_anon_private(r) && r->start % V8_PAGE_ALIGNMENT == 0 && r->start >= 4 * GiB &&
	       r->end <= V8_HINT_LIMIT;
}

/* The reference tests the size of one region; a reserving allocator's
 * 64 GiB reservation is split into many regions as it commits parts, so the
 * whole contiguous run, holding its inaccessible part, is measured. */
bool shape_mmgp_reservation(const struct ctx *c, size_t i)
{
	if (!is_anon_private(&c->r[i]) || !c->run_has_reserve[c->r[i].run_first])
		return false;
	uint64_t span = group_span(c, i);
	return span >= 64 * GiB && span % (64 * GiB) == 0;
}

bool shape_stack_pointer(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (!c->h || !c->h->stack_pointers || !is_anon_private(r) || !is_rw(r))
		return false;
	const uint64_t *sp = c->h->stack_pointers;
	size_t lo = 0, hi = c->h->n_stack_pointers;
	while (lo < hi) { /* first stack pointer >= start */
		size_t mid = lo + (hi - lo) / 2;
		if (sp[mid] < r->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->h->n_stack_pointers && sp[lo] < r->end;
}

/* PartitionAlloc's memory: a super page's metadata page, the slot spans
 * after it in the same super page (split by decommitted parts), and direct
 * maps (data at 16 KiB past a 2 MiB boundary, inaccessible below).  Without
 * this rule a slot span, having an inaccessible page right below it, looks
 * like a thread stack; Chromium maps dozens of them. */
bool shape_partition_alloc(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (!is_anon_private(r) || !is_rw(r))
		return false;
	uint64_t base = r->start & ~(PA_SUPER_PAGE - 1);
	size_t j = i;
	while (j > 0 && c->r[j].start > base + PA_METADATA_OFFSET && contiguous(&c->r[j - 1], &c->r[j]) &&
	       is_anon_private(&c->r[j - 1]))
		j--;
	if (c->r[j].start == base + PA_METADATA_OFFSET && shape_pa_metadata_page(c, j))
		return true;
	if (r->start - base != PA_PAYLOAD_OFFSET || i == 0)
		return false;
	const struct region *below = &c->r[i - 1];
	/* the whole first partition page inaccessible: a thread stack placed
	 * there by chance has a guard of one page only */
	return contiguous(below, r) && is_anon_private(below) && region_inaccessible(below) && below->start <= base;
}

/* jemalloc's memory, in a process that maps libjemalloc: an anonymous
 * read-write region of 2 MiB or more that starts or ends on a 2 MiB
 * boundary (thread stacks, whose guard below says so, are decided
 * before).  A shape only: the evidence pass reads its base blocks where
 * it may, and the heap walk its extents. */
bool shape_jemalloc(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return is_anon_private(r) && is_rw(r) && region_size(r) >= JEMALLOC_HUGEPAGE &&
	       (r->start % JEMALLOC_HUGEPAGE == 0 || r->end % JEMALLOC_HUGEPAGE == 0);
}

/* A non-main arena heap: aligned to 64 MiB, its writable part first, then
 * its inaccessible reserve, together exactly 64 MiB.  The writable part may
 * be split by flags (THP advice), so the run is walked both ways.  A heap
 * grown to the full 64 MiB has no reserve left; then MAP_NORESERVE (VmFlags
 * "nr"), which glibc's heaps use and ordinary mmaps do not, confirms it. */
bool shape_glibc_arena(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (!is_anon_private(r) || !is_rw(r))
		return false;
	uint64_t base = r->start & ~(GLIBC_HEAP_MAX - 1), limit = base + GLIBC_HEAP_MAX;
	if (r->end > limit)
		return false;
	size_t j = i;
	while (c->r[j].start != base) {
		if (j == 0 || !contiguous(&c->r[j - 1], &c->r[j]) || !is_anon_private(&c->r[j - 1]) ||
		    !is_rw(&c->r[j - 1]))
			return false;
		j--;
	}
	const struct region *head = &c->r[j];
	bool reserve = false;
	uint64_t end = r->end;
	for (size_t k = i + 1; end < limit; k++) {
		if (k >= c->n || c->r[k].start != end || !is_anon_private(&c->r[k]))
			return false;
		if (region_inaccessible(&c->r[k]))
			reserve = true;
		else if (reserve || !is_rw(&c->r[k]))
			return false;
		end = c->r[k].end;
	}
	return end == limit && (reserve || region_has_flag(head, VMF_NR));
}

/* glibc maps a thread's stack and guard together and makes the lowest
 * page(s) inaccessible; stacks grow down, so the guard sits right below.
 * Arena reserves also precede writable memory at times, but they are
 * MAP_NORESERVE ("nr") and guards are not. */
bool shape_stack_guard(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (i == 0 || !is_anon_private(r) || !is_rw(r) || region_size(r) < STACK_MIN)
		return false;
	const struct region *g = &c->r[i - 1];
	return contiguous(g, r) && is_anon_private(g) && region_inaccessible(g) && region_size(g) <= STACK_GUARD_MAX &&
	       !region_has_flag(g, VMF_NR);
}

/* The reference takes exactly 1 MiB anywhere (it ran inside Python).  Here
 * the process must be Python, the arena size follows its version, and runs
 * of arenas that the kernel merged into one region count too. */
bool shape_python_arena(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return c->rt.python && is_anon_private(r) && is_rw(r) && region_size(r) % c->python_arena == 0;
}

/* OpenBLAS allocates a BUFFER_SIZE block per thread (32 MiB on x86-64 since
 * 0.3.x, 128 MiB in some builds), sometimes with a page of padding, and
 * touches little of it.  The reference trusted the size alone whenever NumPy
 * was imported; here the process must map an OpenBLAS library. */
bool shape_openblas_buffer(const struct ctx *c, size_t i)
{
	static const uint64_t blocks[] = { 32 * MiB, 32 * MiB + 4 * KiB, 128 * MiB, 128 * MiB + 4 * KiB };
	const struct region *r = &c->r[i];
	if (!c->rt.openblas || !is_anon_private(r) || !is_rw(r) || region_resident(r) > region_size(r) / 8)
		return false;
	for (size_t k = 0; k < ELEMENTSOF(blocks); k++)
		if (region_size(r) % blocks[k] == 0)
			return true;
	return false;
}
