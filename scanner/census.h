/* A census: one process's memory at one moment, every region classified,
 * with totals by class, the largest regions and the mapped files.  Built by
 * the scanner from a live process or a saved smaps file, or read back from
 * its JSON form; rendered by the client and stored by the daemon. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "census-counters.h"
#include "classes.h"
#include "gpu.h"
#include "proc-parse.h"
#include "region.h"

struct strpool;

/* Sums over regions: each counter of CENSUS_COUNTERS (census-counters.h),
 * private (Anonymous + Swap), resident (Rss), pss, swap, size, count (of
 * regions), locked, hugetlb and confirmed. */
#define CENSUS_TOTALS_MEMBER_(name, ...) uint64_t name;
struct census_totals {
	CENSUS_COUNTERS(CENSUS_TOTALS_MEMBER_)
};

/* Counter i (enum census_counter) of t. */
static inline uint64_t *census_counter(struct census_totals *t, int i)
{
	return (uint64_t *)((char *)t + census_counters[i].offset);
}
static inline uint64_t census_counter_value(const struct census_totals *t, int i)
{
	return *(const uint64_t *)((const char *)t + census_counters[i].offset);
}

/* One of the largest regions (or, with all regions kept, any region) in a
 * form that survives a round trip through JSON. */
struct census_region {
	uint64_t start, end;
	enum class_id cls;
	const char *rule; /* rule key, "brk_heap" */
	const char *why;  /* the rule's sentence */
	uint64_t private, resident, size;
	const char *path; /* NULL when anonymous */
	uint64_t inode;   /* 0 for anonymous memory */
	char perms[5];
	const char *evidence; /* what was read and what it showed; NULL when nothing was read */
	bool confirmed;       /* the rule is a name or evidence, not a shape */
	bool part;            /* a part of a kernel region split by evidence */
};

enum file_kind {
	FILE_IMAGE,  /* program or library */
	FILE_DATA,   /* a mapped data file */
	FILE_SHARED, /* shared memory with a name (/dev/shm, memfd, SysV) */
	_FILE_KIND_MAX
};

const char *file_kind_name(enum file_kind k);
int file_kind_from_name(const char *name);

struct census_file {
	const char *path;
	enum file_kind kind;
	uint64_t private, resident, size;
	uint64_t regions;
};

/* The device memory a process holds on one GPU (or MIG instance), as NVML
 * lists it. */
struct census_gpu_use {
	unsigned index;   /* NVML's device index (a MIG instance: its GPU's) */
	char uuid[96];    /* "GPU-..." or "MIG-..." */
	char name[96];
	uint64_t used;    /* bytes; GPU_BYTES_UNKNOWN when NVML cannot say */
	uint64_t total;   /* the device's memory, bytes; 0 when unknown */
	bool graphics;    /* from the graphics list, not the compute list */
};

/* The GPU section: taken with a live census when scan_options asks. */
struct census_gpu {
	bool taken;            /* false: not asked for (JSON null) */
	enum gpu_state state;  /* of NVML when it was taken */
	char message[256];     /* why, when state is not ok */
	int driver_version;    /* CUDA version of the driver (12040 for 12.4), 0 when unknown */
	bool nvidia_mapped;    /* the process maps NVIDIA's device files (/dev/nvidia*) */
	struct census_gpu_use *uses;
	size_t n_uses;
};

/* Where a census was taken (JSON process.platform). */
enum census_platform {
	PLATFORM_LINUX,
	PLATFORM_WINDOWS,
	_PLATFORM_MAX
};

const char *census_platform_name(enum census_platform p);
int census_platform_from_name(const char *name);

/* How the resident figures of a Windows census were known. */
enum census_residency {
	RESIDENCY_EXACT,     /* every committed page was looked up (QueryWorkingSetEx) */
	RESIDENCY_ESTIMATED, /* some reservations were sampled: their figures are estimates */
	RESIDENCY_UNKNOWN,   /* the working set could not be read: resident figures are 0 */
	_RESIDENCY_MAX
};

const char *census_residency_name(enum census_residency r);
int census_residency_from_name(const char *name);

/* What a Windows census adds: the sums over its reservations (VirtualQueryEx)
 * and the process's counters (GetProcessMemoryInfo). */
struct census_windows {
	uint64_t reserved;     /* address space reserved, committed or not */
	uint64_t committed;    /* of it, committed (private, views and images) */
	uint64_t reservations; /* AllocationBase groups */
	enum census_residency residency;
	uint64_t estimated;    /* resident bytes that come from a sample */
	char residency_why[160]; /* why residency is unknown or estimated; "" */
	/* GetProcessMemoryInfo (PROCESS_MEMORY_COUNTERS_EX); -1 when unknown */
	int64_t private_usage, working_set, peak_working_set, pagefile_usage;
	char owner[128]; /* DOMAIN\user owning the process; "" when unknown */
};

struct census {
	enum census_platform platform;
	struct census_windows windows; /* platform == PLATFORM_WINDOWS only */

	/* identity; unknown strings are NULL, unknown numbers -1.  On Windows,
	 * start_time is the creation time (FILETIME: 100 ns since 1601), the
	 * instance key as the start time is on Linux. */
	int pid;
	int64_t start_time; /* clock ticks after boot (stat field 22) */
	char *boot_id;
	char *comm;
	char *cmdline;
	char *exe;
	int64_t uid;
	int64_t taken_at_ms; /* unix ms; -1 for a file without a date */
	char *source;        /* "/proc/1234/smaps" or the file's path */

	/* counters from status; present bits clear when unknown */
	struct proc_status status;
	bool have_status;

	struct census_totals totals;
	struct census_totals classes[_CLASS_MAX];
	/* Counters the census does not know (CENSUS_COUNTER_BIT): in its
	 * totals, and in each class, which may know a counter another does
	 * not (a class whose memory no allocator accounts for has no bytes in
	 * use).  A census read back from a store that did not keep them
	 * (stored before they were), or from a file that lacks them, knows
	 * none of them.  Unknown, not 0: the JSON says null, the database
	 * NULL. */
	uint32_t unknown_totals, unknown_classes[_CLASS_MAX];
	/* For each class whose memory a heap walk accounted for (heap-walk.h:
	 * in_use, free, overhead, unknown, returnable), what was read, in
	 * c->strings; NULL for the others */
	const char *how[_CLASS_MAX];
	/* A light census: totals from smaps_rollup, regions from maps.  The
	 * counters of classes, regions and files are unknown (zero), only their
	 * size and count are known. */
	bool light;

	/* all regions, when kept (scan_options.keep_regions or JSON "regions") */
	struct census_region *regions;
	size_t n_regions;

	struct census_region *largest;
	size_t n_largest;
	struct census_file *files;
	size_t n_files;

	/* what the census cost; -1 when not measured (read from a file) */
	int64_t wall_us, cpu_us, bytes_read;
	/* of a census whose process was read by a thread of the scanner's own
	 * (Windows): that thread's CPU time, which the clock of the thread
	 * that asked does not count, and which the cost must; 0 otherwise */
	uint64_t reader_cpu_us;
	int64_t threads_seen, stack_pointers; /* hints read: threads, stack pointers */

	/* evidence read from the process's memory (evidence.h) */
	struct {
		bool taken;
		char why_not[256]; /* why it was not read, or was cut short; "" */
		int64_t regions, confirmed, split, reads, bytes, calls, pages; /* -1: unknown */
	} evidence;

	struct census_gpu gpu;

	struct strpool *strings; /* paths, rule keys and texts of loaded censuses */
};

struct census *census_new(void);
/* Frees a census; accepts NULL, returns NULL. */
struct census *census_free(struct census *c);

/* Fills totals, classes, largest (top n), files (top n) and, with
 * keep_all, every region, from classified regions.  Paths must be interned
 * in c->strings.  Returns 0 or -ENOMEM. */
int census_summarise(struct census *c, const struct region *regions, size_t n, size_t top, bool keep_all);

/* The counters a heap walk gives a class (in_use to returnable): unknown
 * unless census_set_heap said them. */
#define CENSUS_HEAP_COUNTERS                                                                                 \
	(CENSUS_COUNTER_BIT(in_use) | CENSUS_COUNTER_BIT(free_kept) | CENSUS_COUNTER_BIT(overhead) |         \
	 CENSUS_COUNTER_BIT(unknown) | CENSUS_COUNTER_BIT(returnable))

/* Gives class k the figures of its heap walks (private bytes: in_use +
 * free + overhead + unknown is the class's private memory, which the
 * caller checked) and how they were known (copied), and the totals the
 * sum of those of every class that knows them.  Call it after
 * census_summarise, which leaves them unknown.  Returns 0 or -ENOMEM. */
int census_set_heap(struct census *c, enum class_id k, uint64_t in_use, uint64_t free_kept, uint64_t overhead,
		    uint64_t unknown, uint64_t returnable, const char *how);

/* The classes the census found (count > 0) in the order every table and
 * answer lists them: largest private first, then resident, then size (a
 * light census knows only sizes), then the enum's order (classes.h).
 * Fills order (room for _CLASS_MAX) and returns how many. */
size_t census_class_order(const struct census *c, enum class_id order[_CLASS_MAX]);

/* Sums of the class totals; equal to c->totals by construction, and tested. */
void census_class_sum(const struct census *c, struct census_totals *ret);

/* The process's private bytes as the kernel counts them (status), or, when
 * status is unknown, the census's own total. */
uint64_t census_private(const struct census *c);
uint64_t census_resident(const struct census *c);
