/* The live memory source: a process's page tables through /proc/PID/pagemap
 * and its bytes through process_vm_readv.
 *
 * Residency comes from the PAGEMAP_SCAN ioctl where the kernel has it
 * (Linux 6.7+): one call returns runs of pages with their categories,
 * including the zero page, so a large uniform region costs one entry
 * instead of eight bytes a page.  Older kernels are read the classic way,
 * eight bytes a page (Documentation/admin-guide/mm/pagemap.rst); there the
 * zero page is told only by its frame number, which the kernel shows to
 * CAP_SYS_ADMIN alone, and is otherwise counted as resident.
 *
 * The scan is not asked whether a page is a file's: that costs the kernel
 * a look at each present page's struct page, three times what the rest of
 * the walk costs a page here, and evidence asks only about private
 * anonymous memory, whose pages are anonymous or the zero page.  (The
 * classic entries carry the file bit whatever is asked, and say it.)
 *
 * Scattered pages (a round's block boundaries) are asked about in one
 * move_pages call (live_present).
 *
 * None of these allocates a page table or touches a page: they only look
 * at the page tables that exist.  process_vm_readv does fault pages in, so
 * it is only asked for pages the walk found resident (memsource_read). */
#include "memsource.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "macro.h"
#include "util.h"

#define PAGE 4096ull

/* PAGEMAP_SCAN (include/uapi/linux/fs.h, Linux 6.7), defined here since
 * Debian 12's kernel headers predate it. */
#define RW_PAGE_IS_PRESENT (1u << 3)
#define RW_PAGE_IS_SWAPPED (1u << 4)
#define RW_PAGE_IS_PFNZERO (1u << 5)

struct rw_page_region {
	uint64_t start, end, categories;
};

struct rw_pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define RW_PAGEMAP_SCAN _IOWR('f', 16, struct rw_pm_scan_arg)

/* pagemap entries (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PRESENT (1ull << 63)
#define PM_SWAP (1ull << 62)
#define PM_FILE (1ull << 61)
#define PM_PFN_MASK ((1ull << 55) - 1)

#define SCAN_VEC 64
#define PRESENT_BATCH 64 /* pages a move_pages call is asked about */
#define ENTRIES_PER_READ 8192 /* 64 KiB of pagemap: 32 MiB of address space */
#define IOV_BATCH 1024        /* UIO_MAXIOV */

/* Kept small: a census that reads a handful of headers must not pay for
 * faulting in buffers it does not use (the classic pagemap's buffer and
 * the vectors of a large batch are allocated when first needed). */
struct live {
	int pid;
	int pagemap_fd;
	bool no_scan; /* PAGEMAP_SCAN refused: read entries */
	bool no_move_pages; /* move_pages refused: ask page by page */
	void *page_ptrs[PRESENT_BATCH];
	int status[PRESENT_BATCH];
	uint64_t zero_pfn; /* UINT64_MAX until the classic pagemap needs it */
	struct rw_page_region vec[SCAN_VEC];
	uint64_t *entries;  /* ENTRIES_PER_READ, for the classic pagemap */
	struct iovec *local, *remote;
	size_t *index;
	size_t iov_allocated;
};

static enum page_state state_of_categories(uint64_t c)
{
	if (c & RW_PAGE_IS_SWAPPED)
		return PAGE_SWAPPED;
	if (!(c & RW_PAGE_IS_PRESENT))
		return PAGE_ABSENT;
	return c & RW_PAGE_IS_PFNZERO ? PAGE_ZERO : PAGE_RESIDENT;
}

static int scan_residency(struct live *l, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			  struct page_runs *runs, uint64_t *ret_end)
{
	while (start < end) {
		struct rw_pm_scan_arg a = {
			.size = sizeof(a),
			.start = start,
			.end = end,
			.vec = (uint64_t)(uintptr_t)l->vec,
			.vec_len = SCAN_VEC,
			.max_pages = max_pages,
			.category_anyof_mask = RW_PAGE_IS_PRESENT | (present_only ? 0 : RW_PAGE_IS_SWAPPED),
			.return_mask = RW_PAGE_IS_PRESENT | RW_PAGE_IS_SWAPPED | RW_PAGE_IS_PFNZERO,
		};
		int n = ioctl(l->pagemap_fd, RW_PAGEMAP_SCAN, &a);
		if (n < 0)
			return negative_errno();
		for (int i = 0; i < n; i++) {
			int r = page_runs_add(runs, l->vec[i].start, l->vec[i].end, state_of_categories(l->vec[i].categories));
			if (r < 0)
				return r;
		}
		if (a.walk_end <= start)
			return -EIO; /* no progress: never loop */
		start = a.walk_end;
		if (max_pages)
			break; /* a window: what one call found */
	}
	*ret_end = start < end ? start : end;
	return 0;
}

static enum page_state state_of_entry(const struct live *l, uint64_t e)
{
	if (e & PM_SWAP)
		return PAGE_SWAPPED;
	if (!(e & PM_PRESENT))
		return PAGE_ABSENT;
	if (e & PM_FILE)
		return PAGE_FILE;
	if (l->zero_pfn != UINT64_MAX && l->zero_pfn && (e & PM_PFN_MASK) == l->zero_pfn)
		return PAGE_ZERO;
	return PAGE_RESIDENT;
}

static uint64_t zero_page_pfn(void);

static int read_residency(struct live *l, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			  struct page_runs *runs, uint64_t *ret_end)
{
	if (l->zero_pfn == UINT64_MAX)
		l->zero_pfn = zero_page_pfn();
	if (!l->entries && !(l->entries = malloc(ENTRIES_PER_READ * sizeof(*l->entries))))
		return -ENOMEM;
	/* a window reads max_pages entries: the classic pagemap cannot skip */
	if (max_pages && end - start > max_pages * PAGE)
		end = start + max_pages * PAGE;
	*ret_end = end;
	for (uint64_t at = start; at < end;) {
		uint64_t pages = (end - at) / PAGE;
		if (pages > ENTRIES_PER_READ)
			pages = ENTRIES_PER_READ;
		ssize_t got = pread(l->pagemap_fd, l->entries, pages * 8, (off_t)(at / PAGE * 8));
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (got < 8)
			return -ESRCH; /* the address space is gone */
		size_t n = (size_t)got / 8;
		for (size_t i = 0; i < n; i++) {
			enum page_state st = state_of_entry(l, l->entries[i]);
			if (present_only && st == PAGE_SWAPPED)
				st = PAGE_ABSENT;
			int r = page_runs_add(runs, at + i * PAGE, at + (i + 1) * PAGE, st);
			if (r < 0)
				return r;
		}
		at += n * PAGE;
	}
	return 0;
}

static int live_residency(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			  struct page_runs *runs, uint64_t *ret_end)
{
	struct live *l = self;
	int r;

	start &= ~(PAGE - 1);
	end = (end + PAGE - 1) & ~(PAGE - 1);
	size_t before = runs->n;
	if (!l->no_scan) {
		r = scan_residency(l, start, end, max_pages, present_only, runs, ret_end);
		if (r != -ENOTTY && r != -EINVAL && r != -EOPNOTSUPP)
			return r;
		/* a kernel without PAGEMAP_SCAN: read entries from now on */
		l->no_scan = true;
		runs->n = before;
	}
	return read_residency(l, start, end, max_pages, present_only, runs, ret_end);
}

/* Vectors for a batch of want ranges (at most IOV_BATCH). */
static int reserve_iov(struct live *l, size_t want)
{
	if (want > IOV_BATCH)
		want = IOV_BATCH;
	if (want <= l->iov_allocated)
		return 0;
	struct iovec *a = realloc(l->local, want * sizeof(*a));
	if (!a)
		return -ENOMEM;
	l->local = a;
	struct iovec *b = realloc(l->remote, want * sizeof(*b));
	if (!b)
		return -ENOMEM;
	l->remote = b;
	size_t *c = realloc(l->index, want * sizeof(*c));
	if (!c)
		return -ENOMEM;
	l->index = c;
	l->iov_allocated = want;
	return 0;
}

static int live_read(void *self, struct mem_probe *probes, size_t n)
{
	struct live *l = self;
	int r = reserve_iov(l, n);
	if (r < 0)
		return r;

	for (size_t i = 0; i < n;) {
		size_t k = 0;
		for (; i < n && k < l->iov_allocated; i++) {
			if (probes[i].len == 0)
				continue;
			l->local[k] = (struct iovec){ probes[i].buf, probes[i].len };
			l->remote[k] = (struct iovec){ (void *)(uintptr_t)probes[i].addr, probes[i].len };
			l->index[k++] = i;
		}
		/* process_vm_readv stops at the first range it cannot read and
		 * returns what it read before; go on after that range */
		for (size_t from = 0; from < k;) {
			ssize_t got = process_vm_readv(l->pid, l->local + from, k - from, l->remote + from, k - from, 0);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno != EFAULT)
				return negative_errno();
			size_t left = got < 0 ? 0 : (size_t)got;
			while (from < k && left >= l->local[from].iov_len) {
				probes[l->index[from]].got = (uint32_t)l->local[from].iov_len;
				left -= l->local[from].iov_len;
				from++;
			}
			from++; /* the range that failed, or was read in part: nothing */
		}
	}
	return 0;
}

static void live_close(void *self)
{
	struct live *l = self;
	if (!l)
		return;
	if (l->pagemap_fd >= 0)
		close(l->pagemap_fd);
	free(l->entries);
	free(l->local);
	free(l->remote);
	free(l->index);
	free(l);
}

/* move_pages(2) without target nodes tells, for each page, the NUMA node
 * of the page mapped there, or an error where none is: one system call
 * for pages anywhere in the address space, each looked up in the page
 * tables without a fault (no page is read in, swapped in or mapped).  A
 * negative status is a page not in memory (swapped, never touched), or
 * the zero page on kernels before 6.12; from 6.12 the zero page has a
 * node, and reading it changes nothing.  It needs ptrace read access, as
 * pagemap does, and a kernel built with NUMA. */
static int live_present(void *self, const uint64_t *pages, size_t n, bool *in_memory)
{
	struct live *l = self;

	if (l->no_move_pages)
		return -EOPNOTSUPP;
	while (n > 0) {
		size_t k = n < PRESENT_BATCH ? n : PRESENT_BATCH;
		for (size_t i = 0; i < k; i++)
			l->page_ptrs[i] = (void *)(uintptr_t)pages[i];
		long r = syscall(SYS_move_pages, l->pid, (unsigned long)k, l->page_ptrs, NULL, l->status, 0);
		if (r < 0) {
			int e = negative_errno();
			if (e == -ESRCH)
				return e;
			/* no NUMA in this kernel, or a security module's refusal:
			 * the caller asks page by page from now on */
			l->no_move_pages = true;
			return -EOPNOTSUPP;
		}
		for (size_t i = 0; i < k; i++)
			in_memory[i] = l->status[i] >= 0;
		pages += k;
		in_memory += k;
		n -= k;
	}
	return 0;
}

static const struct memsource_ops live_ops = {
	.residency = live_residency,
	.present = live_present,
	.read = live_read,
	.close = live_close,
};

/* The zero page's frame number, seen in our own pagemap after reading an
 * untouched page; 0 when frame numbers are hidden (no CAP_SYS_ADMIN). */
static uint64_t zero_page_pfn(void)
{
	static uint64_t pfn = UINT64_MAX;
	if (pfn != UINT64_MAX)
		return pfn;
	pfn = 0;
	volatile uint8_t *p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return pfn;
	(void)p[0];
	_cleanup_close_ int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t e = 0;
	if (fd >= 0 && pread(fd, &e, 8, (off_t)((uintptr_t)p / PAGE * 8)) == 8 && (e & PM_PRESENT))
		pfn = e & PM_PFN_MASK;
	munmap((void *)p, PAGE);
	return pfn;
}

int memsource_open_live(struct memsource *src, int pid, int pid_fd, char *why, size_t why_size)
{
	struct live *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->pid = pid;
	l->pagemap_fd = openat(pid_fd, "pagemap", O_RDONLY | O_CLOEXEC);
	if (l->pagemap_fd < 0) {
		int r = negative_errno();
		free(l);
		if (r == -EACCES || r == -EPERM)
			snprintf(why, why_size, "/proc/%d/pagemap may not be read (it needs ptrace access to the process)",
				 pid);
		else
			snprintf(why, why_size, "/proc/%d/pagemap: %s", pid, strerror(-r));
		return r;
	}
	l->zero_pfn = UINT64_MAX;
	*src = (struct memsource){ .ops = &live_ops, .self = l, .max_probes = UINT64_MAX };
	snprintf(src->name, sizeof(src->name), "process_vm_readv");
	return 0;
}
