/* See win-census.h.  The reference census (ram_debug.py,
 * _windows_reservations and classify) groups VirtualQueryEx's regions by
 * AllocationBase and classifies the groups; this does the same with the
 * classifier's table, so a Windows census has the classes, rules and JSON
 * of a Linux one.  Where a rule differs from the reference, its comment
 * says why.
 *
 * Expected input: a few thousand regions (a large PyTorch process on
 * Windows has 5,000-20,000); one pass to group, one to classify. */
#include "win-census.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify-internal.h"
#include "classify.h"
#include "macro.h"
#include "runtimes.h"
#include "strpool.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)

static const char *const marks[_WIN_MARK_MAX] = {
	[WIN_MARK_NONE] = "none",
	[WIN_MARK_NT_HEAP] = "nt_heap",
	[WIN_MARK_SEGMENT_HEAP] = "segment_heap",
	[WIN_MARK_HEAP_LIST] = "heap_list",
	[WIN_MARK_HEAP_BLOCK] = "heap_block",
	[WIN_MARK_STACK] = "stack",
	[WIN_MARK_CUDA_HOST] = "cuda_host",
};

const char *win_mark_name(enum win_mark m)
{
	return (unsigned)m < _WIN_MARK_MAX ? marks[m] : "?";
}

int win_mark_from_name(const char *name)
{
	for (int m = 0; m < _WIN_MARK_MAX; m++)
		if (streq(marks[m], name))
			return m;
	return -1;
}

/* One AllocationBase group. */
struct reservation {
	uint64_t base, reserved, committed, cow, resident;
	uint64_t protect_bytes[4]; /* committed bytes: none, read, read-write, executable */
	uint32_t type;
	bool guard, write_combine, estimated, writable, executable;
	enum win_mark mark;
	const char *path, *evidence;
	/* the stack shape: read-write committed top, guard right below it */
	bool rw_top, guard_below_top;
};

static const char *file_name(const char *path)
{
	const char *b = path;
	for (const char *s = path; *s; s++)
		if (*s == '\\' || *s == '/')
			b = s + 1;
	return b;
}

/* What the process runs, for the rules that need a runtime: the images it
 * maps, its program and its command line (runtimes.h). */
static void note_runtimes(const struct reservation *rs, size_t n, const struct win_process *p, struct runtimes *rt)
{
	runtimes_init(rt);
	for (size_t i = 0; i < n; i++)
		if (rs[i].type == WIN_MEM_IMAGE && rs[i].path)
			runtimes_note_file(rt, rs[i].path);
	if (p) {
		runtimes_note_program(rt, p->image);
		runtimes_note_cmdline(rt, p->cmdline);
	}
}

static int protect_index(uint32_t protect)
{
	switch (protect & 0xffu) {
	case WIN_PAGE_READONLY: return 1;
	case WIN_PAGE_READWRITE: case WIN_PAGE_WRITECOPY: return 2;
	case WIN_PAGE_EXECUTE: case WIN_PAGE_EXECUTE_READ:
	case WIN_PAGE_EXECUTE_READWRITE: case WIN_PAGE_EXECUTE_WRITECOPY: return 3;
	default: return 0;
	}
}

static bool protect_writable(uint32_t protect)
{
	uint32_t p = protect & 0xffu;
	return p == WIN_PAGE_READWRITE || p == WIN_PAGE_WRITECOPY || p == WIN_PAGE_EXECUTE_READWRITE ||
	       p == WIN_PAGE_EXECUTE_WRITECOPY;
}

/* Adds region r to reservation g (a region at its start opens it). */
static void add_region(struct reservation *g, const struct win_region *r, const struct win_region *prev,
		       bool residency_known)
{
	g->reserved += r->size;
	if (!g->path && r->path)
		g->path = r->path;
	if (r->mark != WIN_MARK_NONE && (g->mark == WIN_MARK_NONE || r->mark == WIN_MARK_STACK)) {
		g->mark = r->mark;
		g->evidence = r->evidence;
	}
	if (r->state != WIN_MEM_COMMIT)
		return;
	g->committed += r->size;
	g->resident += residency_known ? r->resident : 0;
	g->estimated |= residency_known && r->resident_estimated;
	g->protect_bytes[protect_index(r->protect)] += r->size;
	g->guard |= (r->protect & WIN_PAGE_GUARD) != 0;
	g->write_combine |= (r->protect & WIN_PAGE_WRITECOMBINE) != 0;
	g->writable |= protect_writable(r->protect);
	g->executable |= protect_index(r->protect) == 3;
	/* The commit charge of a view or an image is its copy-on-write part:
	 * pages still PAGE_WRITECOPY, and in an image the data pages already
	 * copied, which turn PAGE_READWRITE (the reference counts the first
	 * only, and misses what the process wrote to its globals).  A
	 * read-write page of a MEM_MAPPED view is the section's, shared. */
	uint32_t p = r->protect & 0xffu;
	if (p == WIN_PAGE_WRITECOPY || p == WIN_PAGE_EXECUTE_WRITECOPY ||
	    (r->type == WIN_MEM_IMAGE && (p == WIN_PAGE_READWRITE || p == WIN_PAGE_EXECUTE_READWRITE)))
		g->cow += r->size;
	/* a stack grows down: its committed top is the reservation's last
	 * region, read-write, with the guard page committed right below it */
	g->rw_top = (r->protect & 0xffu) == WIN_PAGE_READWRITE && !(r->protect & WIN_PAGE_GUARD);
	g->guard_below_top = g->rw_top && prev && prev->allocation_base == r->allocation_base &&
			     prev->state == WIN_MEM_COMMIT && (prev->protect & WIN_PAGE_GUARD);
}

/* The reservation's rule, first match wins. */
static int rule_of(const struct reservation *g, const struct runtimes *rt)
{
	if (g->type == WIN_MEM_IMAGE)
		return RULE_WIN_IMAGE;
	if (g->type == WIN_MEM_MAPPED)
		return g->mark == WIN_MARK_CUDA_HOST ? RULE_WIN_PINNED_CUDA :
		       g->path ? RULE_WIN_MAPPED_FILE : RULE_WIN_SECTION;
	if (g->mark == WIN_MARK_CUDA_HOST)
		return RULE_WIN_PINNED_CUDA;
	if (g->write_combine)
		return RULE_WIN_WRITE_COMBINE;
	switch (g->mark) {
	case WIN_MARK_NT_HEAP: return RULE_WIN_NT_HEAP;
	case WIN_MARK_SEGMENT_HEAP: return RULE_WIN_SEGMENT_HEAP;
	case WIN_MARK_HEAP_LIST: return RULE_WIN_HEAP_LIST;
	case WIN_MARK_HEAP_BLOCK: return RULE_WIN_HEAP_BLOCK;
	case WIN_MARK_STACK: return RULE_WIN_THREAD_STACK;
	default: break;
	}
	/* the reference takes any guard page for a stack; a guard page is
	 * also how some allocators grow (and how Wine reports nothing else),
	 * so only the stack's own shape, guard right below the top, counts */
	if (g->guard_below_top)
		return RULE_WIN_GUARD_STACK;
	if (g->committed == 0)
		return RULE_WIN_RESERVED;
	if (g->reserved % (64 * GiB) == 0)
		return RULE_WIN_MMGP;
	if (rt->jvm && rt->jvm_max_heap && g->reserved == rt->jvm_max_heap)
		return RULE_WIN_JVM_HEAP;
	if (rt->clr && g->reserved % (256 * MiB) == 0)
		return RULE_WIN_CLR_HEAP;
	if (g->reserved >= 512 * MiB && g->base % (32 * MiB) == 0 && g->reserved % (32 * MiB) == 0)
		return RULE_WIN_MIMALLOC;
	if (rt->v8 && g->reserved == 256 * KiB && g->base % (256 * KiB) == 0)
		return RULE_WIN_V8_PAGE;
	if (g->executable)
		return RULE_WIN_JIT;
	if (rt->openblas && g->reserved == 32 * MiB && g->committed == 32 * MiB && g->resident < MiB)
		return RULE_WIN_OPENBLAS;
	if (rt->python && g->reserved == MiB && g->committed == MiB)
		return RULE_WIN_PYTHON;
	return RULE_WIN_PRIVATE;
}

/* perms as a Linux region shows them, from the protection most of the
 * committed bytes have: what --regions prints and the JSON keeps. */
static void perms_of(const struct reservation *g, char perms[4])
{
	size_t best = 0;
	for (size_t k = 1; k < ELEMENTSOF(g->protect_bytes); k++)
		if (g->protect_bytes[k] > g->protect_bytes[best])
			best = k;
	if (g->committed == 0)
		best = 0;
	perms[0] = best ? 'r' : '-';
	perms[1] = g->writable && best >= 2 ? 'w' : '-';
	perms[2] = best == 3 ? 'x' : '-';
	perms[3] = g->type == WIN_MEM_MAPPED ? 's' : 'p';
}

static int check_order(const struct win_region *r, size_t n, struct error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].size == 0 || r[i].base + r[i].size < r[i].base)
			return error_set(err, -EINVAL, "region %zu at 0x%" PRIx64 ": empty or past the end of the address space",
					 i, r[i].base);
		if (i > 0 && r[i].base < r[i - 1].base + r[i - 1].size)
			return error_set(err, -EINVAL, "region %zu at 0x%" PRIx64 ": overlaps or precedes the one before",
					 i, r[i].base);
		if (r[i].state != WIN_MEM_FREE && r[i].allocation_base > r[i].base)
			return error_set(err, -EINVAL, "region %zu at 0x%" PRIx64 ": below its allocation base 0x%" PRIx64,
					 i, r[i].base, r[i].allocation_base);
		if (r[i].state != WIN_MEM_FREE && r[i].state != WIN_MEM_COMMIT && r[i].state != WIN_MEM_RESERVE)
			return error_set(err, -EINVAL, "region %zu at 0x%" PRIx64 ": unknown state 0x%x", i, r[i].base,
					 r[i].state);
	}
	return 0;
}

static const char *intern(struct census *c, const char *s, bool *oom)
{
	if (!s)
		return NULL;
	const char *p = strpool_intern(c->strings, s, strlen(s));
	if (!p)
		*oom = true;
	return p;
}

static int set_identity(struct census *c, const struct win_process *p)
{
	c->platform = PLATFORM_WINDOWS;
	if (!p)
		return 0;
	c->pid = p->pid;
	c->start_time = p->creation_time;
	if (p->image && (!(c->exe = strdup(p->image)) || !(c->comm = strdup(file_name(p->image)))))
		return -ENOMEM;
	if (p->cmdline && !(c->cmdline = strdup(p->cmdline)))
		return -ENOMEM;
	c->windows.residency = p->residency;
	if (p->residency_why)
		snprintf(c->windows.residency_why, sizeof(c->windows.residency_why), "%s", p->residency_why);
	if (p->owner)
		snprintf(c->windows.owner, sizeof(c->windows.owner), "%s", p->owner);
	c->windows.private_usage = p->private_usage;
	c->windows.working_set = p->working_set;
	c->windows.peak_working_set = p->peak_working_set;
	c->windows.pagefile_usage = p->pagefile_usage;
	return 0;
}

int win_census_build(const struct win_region *regions, size_t n, const struct win_process *p, size_t top,
		     bool keep_all, struct census **ret, struct error *err)
{
	_cleanup_(census_freep) struct census *c = NULL;
	_cleanup_free_ struct reservation *rs = NULL;
	_cleanup_free_ struct region *out = NULL;
	struct runtimes rt;
	size_t m = 0;
	bool oom = false;
	int r;

	if ((r = check_order(regions, n, err)) < 0)
		return r;
	if (!(c = census_new()) || !(rs = calloc(n ? n : 1, sizeof(*rs))) || !(out = calloc(n ? n : 1, sizeof(*out))))
		return error_set(err, -ENOMEM, "out of memory");
	if (set_identity(c, p) < 0)
		return error_set(err, -ENOMEM, "out of memory");

	const struct win_region *prev = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct win_region *x = &regions[i];
		if (x->state == WIN_MEM_FREE) {
			prev = NULL;
			continue;
		}
		if (m == 0 || !prev || x->allocation_base != rs[m - 1].base) {
			rs[m++] = (struct reservation){ .base = x->allocation_base, .type = x->type };
			/* a walk that begins inside a reservation (never from 0) is
			 * counted from its first region seen */
			if (x->allocation_base != x->base && !prev)
				rs[m - 1].base = x->base;
		}
		add_region(&rs[m - 1], x, prev, c->windows.residency != RESIDENCY_UNKNOWN);
		prev = x;
	}

	note_runtimes(rs, m, p, &rt);
	for (size_t i = 0; i < m; i++) {
		const struct reservation *g = &rs[i];
		struct region *o = &out[i];
		int rule = rule_of(g, &rt);
		uint64_t private = g->type == WIN_MEM_PRIVATE ? g->committed : g->cow;

		o->start = g->base;
		o->end = g->base + g->reserved;
		o->rule = (uint8_t)rule;
		o->cls = (uint8_t)classify_rule((size_t)rule)->cls;
		o->path = intern(c, g->path, &oom);
		o->evidence = intern(c, g->evidence, &oom);
		o->thp_eligible = o->protection_key = -1;
		perms_of(g, o->perms);
		region_set_kb(o, COUNT_ANONYMOUS, private / 1024);
		region_set_kb(o, COUNT_RSS, g->resident / 1024);
		o->present = (1u << SMAPS_SIZE) | (1u << SMAPS_ANONYMOUS) |
			     (c->windows.residency != RESIDENCY_UNKNOWN ? 1u << SMAPS_RSS : 0);
		c->windows.reserved += g->reserved;
		c->windows.committed += g->committed;
		if (g->estimated)
			c->windows.estimated += g->resident;
	}
	c->windows.reservations = m;
	if (c->windows.estimated && c->windows.residency == RESIDENCY_EXACT)
		c->windows.residency = RESIDENCY_ESTIMATED;
	if (oom || census_summarise(c, out, m, top, keep_all) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	*ret = TAKE_PTR(c);
	return 0;
}
