/* Where evidence is read from: a process's memory seen from outside, or a
 * captured image of it.  Three questions only, all bounded and read-only:
 * which pages of a range are resident (and how), which of a list of
 * scattered pages are in memory, and the bytes at a batch of addresses,
 * read only from pages already resident.
 *
 * The live source (memsource_open_live) asks the kernel: PAGEMAP_SCAN or
 * /proc/PID/pagemap for a range, move_pages for scattered pages,
 * process_vm_readv for bytes.  The image source (memimage.h) answers from
 * a file, so the evidence rules are tested and fuzzed without a live
 * process. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The state of a run of pages, as the page tables say. */
enum page_state {
	PAGE_ABSENT,   /* never touched, or freed: no memory */
	PAGE_RESIDENT, /* an anonymous page in memory: private memory, readable */
	PAGE_ZERO,     /* the shared zero page: read but never written, costs nothing */
	PAGE_FILE,     /* resident, not anonymous (a file page, shared memory): told
			* apart only where it costs nothing (the classic pagemap,
			* images); residency is asked of private anonymous memory */
	PAGE_SWAPPED,  /* in swap: private memory, never read (it would be swapped in) */
	_PAGE_STATE_MAX
};

const char *page_state_name(enum page_state s);
int page_state_from_name(const char *name);

struct page_run {
	uint64_t start, end; /* page-aligned, [start, end) */
	enum page_state state;
};

/* Runs of pages that are not absent, sorted and not overlapping; absent
 * pages are the gaps between them. */
struct page_runs {
	struct page_run *v;
	size_t n, allocated;
};

/* Appends a run, merging it with the last when they touch and agree.
 * Returns 0 or -ENOMEM. */
int page_runs_add(struct page_runs *runs, uint64_t start, uint64_t end, enum page_state state);
void page_runs_clear(struct page_runs *runs);
void page_runs_done(struct page_runs *runs);
/* The state of the page holding addr. */
/* The index of the first run ending after addr (runs->n when none). */
size_t page_runs_first_after(const struct page_runs *runs, uint64_t addr);
enum page_state page_runs_state(const struct page_runs *runs, uint64_t addr);
/* The first page at or after addr (below end) whose state is s, or end. */
uint64_t page_runs_next(const struct page_runs *runs, uint64_t addr, uint64_t end, enum page_state s);
/* The end of the run holding addr (addr itself when it is absent). */
uint64_t page_runs_run_end(const struct page_runs *runs, uint64_t addr);
/* Bytes of pages in [start, end) in state s. */
uint64_t page_runs_bytes(const struct page_runs *runs, uint64_t start, uint64_t end, enum page_state s);

/* One read of a batch: len bytes at addr into buf.  got is set to the
 * bytes read (len, or 0 when the page was not resident or could not be
 * read: a page is never faulted in to answer). */
struct mem_probe {
	uint64_t addr;
	uint32_t len;
	uint32_t got;
	uint8_t *buf;
	/* the residency the caller checked addr against: the probe is read
	 * only when its page is PAGE_RESIDENT there */
	const struct page_runs *runs;
};

struct memsource_ops {
	/* Appends the runs of [start, end) to runs (whose last run ends at or
	 * below start), stopping once max_pages pages were found (0: no
	 * limit); *ret_end is where it stopped (end when it did not).  With
	 * present_only, swapped pages are not asked about (they are absent to
	 * the caller).  Returns 0 or -errno (-ESRCH: the process is gone). */
	int (*residency)(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			 struct page_runs *runs, uint64_t *ret_end);
	/* Whether each of n pages (page-aligned, any order) is in memory,
	 * in one question: in_memory[i] false for a page absent, swapped or
	 * unknown.  NULL, or -EOPNOTSUPP, where the source cannot answer
	 * that way (the caller then asks residency page by page). */
	int (*present)(void *self, const uint64_t *pages, size_t n, bool *in_memory);
	/* Reads every probe whose pages are resident.  Returns 0 or -errno
	 * for a failure of the whole batch. */
	int (*read)(void *self, struct mem_probe *probes, size_t n);
	void (*close)(void *self);
};

struct memsource {
	const struct memsource_ops *ops;
	void *self;
	/* what was asked, for the census's cost */
	uint64_t probes, bytes, calls, pages_mapped;
	uint64_t questions; /* residency questions asked: each a system call live */
	uint64_t max_probes; /* reads allowed in all; past it reads get nothing */
	bool exhausted;      /* max_probes was reached */
	char name[64];       /* "pagemap scan", "pagemap", "image" */
};

/* Appends the residency of [start, end) to runs, which must hold only
 * pages below start (so runs stay sorted); counted in src->pages_mapped.
 * On failure runs are as they were. */
int memsource_residency(struct memsource *src, uint64_t start, uint64_t end, struct page_runs *runs);
/* Appends to runs (which must hold only pages below the first) the pages
 * of the sorted, distinct, page-aligned pages[] that are in memory, as
 * resident: one question where the source can ask about scattered pages
 * at once, else one each.  Returns 0 or -errno. */
int memsource_pages(struct memsource *src, const uint64_t *pages, size_t n, struct page_runs *runs);

/* The pages in memory from start on, stopping after max_pages of them (or
 * at end): the runs of [start, *ret_end), swapped pages not asked about.
 * Where the page tables hold nothing, asking costs next to nothing
 * whatever the range, so this finds the next resident pages of a large
 * region in one question. */
int memsource_window(struct memsource *src, uint64_t start, uint64_t end, uint64_t max_pages,
		     struct page_runs *runs, uint64_t *ret_end);
/* Reads a batch, at most max_probes in all: probes past the limit get
 * nothing and src->exhausted is set.  A probe is read only when it lies
 * within one page and its runs say that page is resident: this is the one
 * place that keeps evidence from faulting or swapping a page in.  (A page
 * reclaimed between the residency check and the read, microseconds later,
 * would be read back in: the kernel offers no read that refuses to.)
 * Returns 0 or -errno. */
int memsource_read(struct memsource *src, struct mem_probe *probes, size_t n);
/* Closes a source; accepts NULL. */
void memsource_close(struct memsource *src);

/* The live source for process pid (root: "/proc" when NULL): opens
 * root/PID/pagemap (the same rights as smaps: PTRACE_MODE_READ), reads
 * with process_vm_readv (PTRACE_MODE_ATTACH: CAP_SYS_PTRACE, or the same
 * user where Yama's ptrace_scope allows).  Returns 0, -EACCES/-EPERM
 * without the rights (a sentence in why), -ENOENT/-ESRCH when the process
 * is gone, -ENOSYS where process_vm_readv is missing. */
int memsource_open_live(struct memsource *src, int pid, int pid_fd, char *why, size_t why_size);
