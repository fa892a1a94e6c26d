/* The classifier's rule table.
 *
 * Regions are seen from outside, so a class is inferred from the shape of a
 * mapping: its path, permissions, size, alignment, VmFlags, its neighbours,
 * the libraries the process maps and its threads' stack pointers.  Rules run
 * in order and the first that matches decides; adding a shape is adding a
 * row here, its rule (here when it reads paths and names, in
 * classify-shapes.c when it reads the shape of anonymous memory) and a
 * fixture in tests/data.
 *
 * The starting point is the reference census (ram_debug.py, classify() and
 * _linux_reservations()).  Where a rule here differs, its comment says why.
 *
 * Two passes: the first decides every region a rule can recognise on its
 * own; the second decides the inaccessible ("---p") anonymous regions left,
 * which are guards and reserves that belong to a neighbour and cost no
 * memory. */
#include "classify.h"
#include "classify-internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "util.h"

/* ---------------------------------------------------------------- helpers */

/* The file name of a path, without a " (deleted)" suffix, into buf. */
static const char *base_name(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	size_t len = strlen(b);
	if (len >= 10 && memcmp(b + len - 10, " (deleted)", 10) == 0)
		len -= 10;
	if (len >= size)
		len = size - 1;
	memcpy(buf, b, len);
	buf[len] = '\0';
	return buf;
}

static bool path_is_file(const char *path)
{
	return path && path[0] == '/';
}

static const char *anon_name(const struct region *r)
{
	const char *name = r->path ? startswith(r->path, "[anon:") : NULL;
	if (!name)
		return NULL;
	while (*name == ' ') /* glibc's names start with a space */
		name++;
	return name;
}

static int ptrcmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return x < y ? -1 : x > y;
}

static bool mapped_executable(const struct ctx *c, const char *path)
{
	return c->n_exec_paths &&
	       bsearch(&path, c->exec_paths, c->n_exec_paths, sizeof(*c->exec_paths), ptrcmp);
}

/* A run's last region is noted at its first only. */
static void close_run(struct ctx *c, size_t first, size_t last)
{
	c->r[first].run_last = (uint32_t)last;
}

/* One pass over the regions (passes are what a census of many regions
 * pays for): the runtimes the process maps, the files it maps executable,
 * and the contiguous runs of anonymous private regions. */
static int build_index(struct ctx *c)
{
	size_t first = 0, allocated = 0;

	runtimes_init(&c->rt);
	if (c->h)
		runtimes_note_program(&c->rt, c->h->exe);
	c->run_has_reserve = calloc(c->n ? c->n : 1, sizeof(*c->run_has_reserve));
	if (!c->run_has_reserve)
		return -ENOMEM;

	for (size_t i = 0; i < c->n; i++) {
		const struct region *r = &c->r[i];
		bool anon = is_anon_private(r);

		if (path_is_file(r->path) && (i == 0 || c->r[i - 1].path != r->path))
			runtimes_note_file(&c->rt, r->path);
		if (path_is_file(r->path) && region_executable(r)) {
			if (c->n_exec_paths == allocated) {
				size_t want = allocated ? allocated * 2 : 64;
				const char **e = realloc(c->exec_paths, want * sizeof(*e));
				if (!e)
					return -ENOMEM;
				c->exec_paths = e;
				allocated = want;
			}
			c->exec_paths[c->n_exec_paths++] = r->path;
		}
		if (!(i > 0 && anon && is_anon_private(&c->r[i - 1]) && contiguous(&c->r[i - 1], r))) {
			if (i > 0)
				close_run(c, first, i - 1);
			first = i;
		}
		c->r[i].run_first = (uint32_t)first;
		if (anon && region_inaccessible(r))
			c->run_has_reserve[first] = true;
		if (!c->partition_alloc && shape_pa_metadata_page(c, i))
			c->partition_alloc = true;
	}
	if (c->n > 0)
		close_run(c, first, c->n - 1);
	qsort_safe(c->exec_paths, c->n_exec_paths, sizeof(*c->exec_paths), ptrcmp);

	/* pymalloc arenas are 1 MiB since Python 3.10 (radix tree), 256 KiB before */
	c->python_arena = c->rt.python_minor >= 0 && c->rt.python_minor < 10 ? 256 * KiB : 1 * MiB;
	if (c->h)
		runtimes_note_cmdline(&c->rt, c->h->cmdline);
	return 0;
}

/* ------------------------------------------------------------------ rules */

static bool m_kernel_image(const struct ctx *c, size_t i)
{
	static const char *const names[] = { "[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]", "[uprobes]" };
	const char *p = c->r[i].path;
	for (size_t k = 0; p && k < ELEMENTSOF(names); k++)
		if (streq(p, names[k]))
			return true;
	return false;
}

/* Managed memory maps /dev/nvidia-uvm at an offset equal to its address:
 * the driver refuses any other mmap (uvm_mmap in NVIDIA's open kernel
 * modules), and a split keeps the two equal.  A mapping moved by mremap
 * keeps its old offset and is disabled by the driver (no memory, SIGBUS on
 * access): not managed memory, so the offset is checked.
 * /dev/nvidia-uvm-tools is another device. */
static bool m_nvidia_uvm(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	const char *p = r->path;
	return p && (streq(p, "/dev/nvidia-uvm") || streq(p, "/dev/nvidia-uvm (deleted)")) && r->offset == r->start;
}

/* doc/design.md#classes: pinned host memory is a shared /dev/nvidiactl mapping holding
 * resident host pages.  The driver maps system memory page by page
 * (vm_insert_page: VmFlags "mm", counted in Rss, never Anonymous, so it is
 * resident but not private); its other nvidiactl mappings (peer I/O) are
 * mapped by page frame ("io pf") and show no pages, and so would pinned
 * memory that a driver mapped that way.  The driver's own buffers in system memory (command buffers,
 * semaphores: the 2 MiB chunks and larger blocks in its window from
 * 0x200000000) have the same shape and are counted here too: from outside
 * they cannot be told from cuMemHostAlloc's memory. */
static bool m_nvidiactl_pinned(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return r->path && startswith(r->path, "/dev/nvidiactl") && region_shared(r) && region_resident(r) > 0;
}

static bool m_nvidia_device(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "/dev/nvidia");
}

static bool m_dri_device(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "/dev/dri/");
}

static bool m_gpu_buffer(const struct ctx *c, size_t i)
{
	const char *p = c->r[i].path;
	return p && (startswith(p, "/dmabuf:") || startswith(p, "anon_inode:dmabuf") ||
		     startswith(p, "anon_inode:i915.gem") || startswith(p, "anon_inode:[drm") ||
		     startswith(p, "/drm mm object"));
}

static bool m_sysv_shm(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "/SYSV");
}

static bool m_posix_shm(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "/dev/shm/");
}

static bool m_memfd(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "/memfd:");
}

/* Shared anonymous memory shows as "/dev/zero (deleted)" (shmem's internal
 * file), or "[anon_shmem:NAME]" once named (Linux 6.x). */
static bool m_shared_anon(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	const char *p = r->path;
	if (!p)
		return region_shared(r);
	if (startswith(p, "[anon_shmem"))
		return true;
	return region_shared(r) && (streq(p, "/dev/zero (deleted)") || streq(p, "/anon_hugepage (deleted)"));
}

static bool m_kernel_object(const struct ctx *c, size_t i)
{
	const char *p = c->r[i].path;
	return p && (startswith(p, "anon_inode:") || startswith(p, "/[aio]"));
}

static bool m_brk_heap(const struct ctx *c, size_t i)
{
	return c->r[i].path && streq(c->r[i].path, "[heap]");
}

/* "[stack:TID]" is how kernels before 4.5 showed thread stacks. */
static bool m_main_stack(const struct ctx *c, size_t i)
{
	return c->r[i].path && startswith(c->r[i].path, "[stack");
}

/* glibc >= 2.39 names its mappings when glibc.mem.decorate_maps=1; bionic
 * and scudo name theirs always; jemalloc built with --enable-pageid names
 * its pages "jemalloc_pg" (and "jemalloc_pg_overcommit"). */
static bool m_named_malloc(const struct ctx *c, size_t i)
{
	const char *n = anon_name(&c->r[i]);
	return n && (startswith(n, "glibc: malloc") || startswith(n, "glibc: loader malloc") ||
		     startswith(n, "libc_malloc") || startswith(n, "scudo:") || startswith(n, "jemalloc_pg"));
}

static bool m_named_stack(const struct ctx *c, size_t i)
{
	const char *n = anon_name(&c->r[i]);
	return n && (startswith(n, "glibc: pthread stack") || startswith(n, "glibc: pthread user stack") ||
		     startswith(n, "glibc: unused stack") || startswith(n, "stack_and_tls:") ||
		     startswith(n, "thread stack") || startswith(n, "thread signal stack"));
}

static bool m_named(const struct ctx *c, size_t i)
{
	return anon_name(&c->r[i]) != NULL;
}

/* The reference calls a file an image only when its name has ".so" or the
 * mapping is executable, so the read-only and data segments of a program
 * (/usr/bin/python3.11's .rodata, .data) counted as mapped data files.  Any
 * mapping of a file that the process also maps executable is a segment of
 * an image. */
static bool m_image_segment(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return path_is_file(r->path) && (region_executable(r) || mapped_executable(c, r->path));
}

static bool m_image_so(const struct ctx *c, size_t i)
{
	char name[256];
	const char *p = c->r[i].path;
	return path_is_file(p) && strstr(base_name(p, name, sizeof(name)), ".so") != NULL;
}

/* MAP_HUGETLB|MAP_PRIVATE memory: anonymous, in huge pages (counted as
 * Private_Hugetlb, not Rss). */
static bool m_hugetlb_anonymous(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	return r->path && streq(r->path, "/anon_hugepage (deleted)") && !region_shared(r);
}

/* Other device files (/dev/zero mapped private, frame buffers): not data
 * files a user could open and read. */
static bool m_device(const struct ctx *c, size_t i)
{
	const char *p = c->r[i].path;
	return p && startswith(p, "/dev/") && !startswith(p, "/dev/shm/");
}

static bool m_mapped_file(const struct ctx *c, size_t i)
{
	return path_is_file(c->r[i].path);
}

/* Kernel-named regions this version does not know ("[foo]") and other
 * unrecognised paths: kept out of the anonymous shape rules below. */
static bool m_unknown_path(const struct ctx *c, size_t i)
{
	return c->r[i].path != NULL;
}

/* New: a program's or library's .bss (zero-initialised globals) is anonymous
 * memory mapped right after its writable data segment.  The reference counts
 * it as heap; it belongs to the image. */
static bool m_image_bss(const struct ctx *c, size_t i)
{
	const struct region *r = &c->r[i];
	if (i == 0 || !is_anon_private(r) || !is_rw(r))
		return false;
	const struct region *prev = &c->r[i - 1];
	return contiguous(prev, r) && path_is_file(prev->path) && is_rw(prev) && !region_shared(prev) &&
	       prev->cls == CLASS_IMAGES;
}

static bool m_deferred_reserve(const struct ctx *c, size_t i)
{
	return is_anon_private(&c->r[i]) && region_inaccessible(&c->r[i]);
}

static bool m_anonymous(const struct ctx *c _unused_, size_t i _unused_)
{
	return true;
}

/* Which regions a rule can match: it is not even asked about the others. */
enum rule_scope {
	SCOPE_ANY,
	SCOPE_PATH, /* regions the kernel shows a path or name for */
	SCOPE_ANON, /* anonymous regions, no path */
};

/* What a process must map for a rule to apply at all. */
enum rule_need {
	NEED_NOTHING,
	NEED_JVM,
	NEED_V8,
	NEED_PYTHON,
	NEED_OPENBLAS,
	NEED_NVIDIA,
	NEED_PARTITION_ALLOC,
	NEED_JEMALLOC,
};

/* The permissions an anonymous region must have for a rule to be asked. */
enum rule_perms {
	PERMS_ANY,
	PERMS_RW,   /* readable and writable (rw- and rwx) */
	PERMS_RWX,  /* writable and executable */
	PERMS_NONE, /* inaccessible: ---p */
};

/* What a region looks like to the rule lists. */
enum region_kind {
	KIND_PATH,      /* the kernel shows a path or name */
	KIND_ANON_RW,   /* anonymous rw- */
	KIND_ANON_RWX,  /* anonymous rwx */
	KIND_ANON_NONE, /* anonymous --- */
	KIND_ANON_OTHER,
	_KIND_MAX
};

struct rule {
	struct classify_rule_info info;
	bool (*match)(const struct ctx *c, size_t i);
	enum rule_scope scope;
	enum rule_need need;
	enum rule_perms perms;
};

#define R(k, c, w, m) { { k, w, c, BASIS_NAME }, m, SCOPE_PATH, NEED_NOTHING, PERMS_ANY }
#define A(k, c, w, m, pm) { { k, w, c, BASIS_SHAPE }, m, SCOPE_ANON, NEED_NOTHING, pm }
#define AN(k, c, w, m, n, pm) { { k, w, c, BASIS_SHAPE }, m, SCOPE_ANON, n, pm }
#define ANY(k, c, w, m) { { k, w, c, BASIS_SHAPE }, m, SCOPE_ANY, NEED_NOTHING, PERMS_ANY }
/* decided by evidence, after the lists ran (evidence.c) */
#define EV(k, c, w) { { k, w, c, BASIS_READ }, NULL, SCOPE_ANON, NEED_NOTHING, PERMS_RW }
/* a Windows reservation's rule (win-census.c): never asked about a Linux region */
#define W(k, c, b, w) { { k, w, c, b }, NULL, SCOPE_ANY, NEED_NOTHING, PERMS_ANY }

static const struct rule rules[] = {
	/* the second pass's rules come first so their indexes are fixed */
	[RULE_GUARD_OF_STACK] = A("stack_guard_page", CLASS_STACKS,
		"guard page of the thread stack right above it", NULL, PERMS_NONE),
	[RULE_RESERVE_OF_BELOW] = A("reserve_tail", -1,
		"inaccessible reserve continuing the region right below it (one reservation)", NULL, PERMS_NONE),
	[RULE_RESERVATION] = A("reservation", CLASS_OTHER,
		"inaccessible reservation: address space only, no memory", NULL, PERMS_NONE),
	[RULE_GLIBC_CHUNKS] = EV("glibc_mmap_chunks", CLASS_MALLOC,
		"glibc malloc blocks served by mmap: their chunk headers (prev_size 0, size | IS_MMAPPED) were read"),
	[RULE_GLIBC_HEAP_INFO] = EV("glibc_heap_info", CLASS_MALLOC,
		"glibc malloc arena heap: its heap_info header was read at the 64 MiB-aligned start"),
	[RULE_GLIBC_BRK] = { { "glibc_brk_heap", "[heap] holding glibc malloc's main arena: its tcache chunk was read at the start",
		CLASS_MALLOC, BASIS_READ }, NULL, SCOPE_PATH, NEED_NOTHING, PERMS_ANY },
	[RULE_PYMALLOC_POOLS] = EV("pymalloc_pools", CLASS_PYTHON,
		"pymalloc arenas: a pool header was read in each (size class, offsets and free list agree)"),
	[RULE_JEMALLOC_BASE] = EV("jemalloc_base", CLASS_MALLOC,
		"jemalloc's metadata: base block headers were read (size, next block, and the unused tail agree)"),
	[RULE_JEMALLOC_EXTENTS] = { { "jemalloc_extents",
		"jemalloc's extents, by elimination: libjemalloc serves malloc and its base blocks were read, "
		"extents carry no header and no other allocator's header was found", CLASS_MALLOC, BASIS_SHAPE },
		NULL, SCOPE_ANON, NEED_NOTHING, PERMS_RW },
	[RULE_MIMALLOC] = EV("mimalloc_segments", CLASS_MALLOC,
		"mimalloc segments: their headers were read at the 32 MiB-aligned starts (alignment, slice counts, kind agree)"),
	[RULE_TCMALLOC] = { { "tcmalloc_page_heap", "[heap] holding tcmalloc's page heap: its span records were read at the start",
		CLASS_MALLOC, BASIS_READ }, NULL, SCOPE_PATH, NEED_NOTHING, PERMS_ANY },

	/* Windows: one region is one reservation (its AllocationBase group);
	 * win-census.c decides which of these it is, in this order */
	[RULE_WIN_IMAGE] = W("win_image", CLASS_IMAGES, BASIS_NAME,
		"MEM_IMAGE: a program or DLL the loader mapped"),
	[RULE_WIN_MAPPED_FILE] = W("win_mapped_file", CLASS_MAPPED_FILES, BASIS_NAME,
		"MEM_MAPPED view of a file (GetMappedFileName names it)"),
	[RULE_WIN_SECTION] = W("win_section", CLASS_SHARED, BASIS_NAME,
		"MEM_MAPPED view of no file: a section backed by the paging file (CreateFileMapping)"),
	[RULE_WIN_PINNED_CUDA] = W("win_cuda_host", CLASS_PINNED_CUDA, BASIS_READ,
		"host memory CUDA knows as its own (pinned by cudaHostAlloc or registered)"),
	[RULE_WIN_WRITE_COMBINE] = W("win_write_combine", CLASS_GPU_DRIVER, BASIS_SHAPE,
		"write-combined private memory (PAGE_WRITECOMBINE): a GPU driver's staging buffers"),
	[RULE_WIN_NT_HEAP] = W("win_nt_heap", CLASS_MALLOC, BASIS_READ,
		"NT heap: its segment's SegmentSignature 0xffeeffee was read at the reservation's start + 0x10"),
	[RULE_WIN_SEGMENT_HEAP] = W("win_segment_heap", CLASS_MALLOC, BASIS_READ,
		"segment heap: its signature 0xddeeddee was read at the reservation's start + 0x10"),
	[RULE_WIN_HEAP_LIST] = W("win_heap_list", CLASS_MALLOC, BASIS_READ,
		"a heap of the process's heap list (Toolhelp32 Heap32ListFirst/Next)"),
	[RULE_WIN_HEAP_BLOCK] = W("win_heap_large_block", CLASS_MALLOC, BASIS_READ,
		"a heap's large block, allocated apart from its segments: the list entry it starts with was read, and links it to a heap"),
	[RULE_WIN_THREAD_STACK] = W("win_thread_stack", CLASS_STACKS, BASIS_READ,
		"a thread's stack: its TEB's StackBase and StackLimit are in it"),
	[RULE_WIN_GUARD_STACK] = W("win_guard_stack", CLASS_STACKS, BASIS_SHAPE,
		"thread stack shape: committed read-write top, a PAGE_GUARD page below it, reserved below that"),
	[RULE_WIN_MMGP] = W("win_reserving_allocator", CLASS_MMGP_RAM, BASIS_SHAPE,
		"a private reservation of a multiple of 64 GiB (MMGP's RAM allocator reserves by 64 GiB)"),
	[RULE_WIN_MIMALLOC] = W("win_mimalloc_arena", CLASS_MALLOC, BASIS_SHAPE,
		"mimalloc arena shape (PyTorch's CPU allocator on Windows): 512 MiB or more, 32 MiB-aligned start and size"),
	[RULE_WIN_JVM_HEAP] = W("win_jvm_heap", CLASS_RUNTIME_HEAP, BASIS_SHAPE,
		"Java heap: a private reservation the size of -Xmx in a process that maps jvm.dll"),
	[RULE_WIN_CLR_HEAP] = W("win_clr_heap", CLASS_RUNTIME_HEAP, BASIS_SHAPE,
		".NET GC heap: a private reservation of a multiple of 256 MiB in a process that maps coreclr.dll or clr.dll"),
	[RULE_WIN_V8_PAGE] = W("win_v8_page", CLASS_RUNTIME_HEAP, BASIS_SHAPE,
		"V8 heap page: a 256 KiB reservation, 256 KiB-aligned, in node, chrome, msedge or electron"),
	[RULE_WIN_JIT] = W("win_jit", CLASS_JIT, BASIS_SHAPE,
		"executable private memory (PAGE_EXECUTE_*): generated code"),
	[RULE_WIN_OPENBLAS] = W("win_openblas_buffer", CLASS_OPENBLAS, BASIS_SHAPE,
		"OpenBLAS buffer shape: 32 MiB reserved and committed, under 1 MiB resident, in a process that maps OpenBLAS"),
	[RULE_WIN_PYTHON] = W("win_pymalloc_arena", CLASS_PYTHON, BASIS_SHAPE,
		"pymalloc arena shape: 1 MiB reserved and committed in a process that maps python3*.dll"),
	[RULE_WIN_RESERVED] = W("win_reserved", CLASS_OTHER, BASIS_SHAPE,
		"a private reservation with nothing committed: address space only, no memory"),
	[RULE_WIN_PRIVATE] = W("win_private", CLASS_OTHER, BASIS_SHAPE,
		"private committed memory of no known shape (large heap blocks served by VirtualAlloc look like this)"),

	R("kernel_image", CLASS_IMAGES,
		"code and data the kernel maps into every process ([vdso], [vvar], [vsyscall])", m_kernel_image),
	R("nvidia_uvm", CLASS_CUDA_UVM,
		"mapping of /dev/nvidia-uvm: CUDA managed memory", m_nvidia_uvm),
	R("nvidiactl_pinned", CLASS_PINNED_CUDA,
		"shared mapping of /dev/nvidiactl holding resident pages: host memory pinned by CUDA", m_nvidiactl_pinned),
	R("nvidia_device", CLASS_GPU_DRIVER,
		"mapping of /dev/nvidia*: driver buffers or device memory (BAR)", m_nvidia_device),
	R("dri_device", CLASS_GPU_DRIVER,
		"mapping of /dev/dri/*: GPU buffers (DRM)", m_dri_device),
	R("gpu_buffer", CLASS_GPU_DRIVER,
		"dma-buf or DRM buffer object", m_gpu_buffer),
	R("sysv_shm", CLASS_SHARED,
		"SysV shared memory segment (shmat)", m_sysv_shm),
	R("posix_shm", CLASS_SHARED,
		"POSIX shared memory (/dev/shm)", m_posix_shm),
	R("memfd", CLASS_SHARED,
		"memfd (memfd_create): a file in memory, usually shared", m_memfd),
	ANY("shared_anonymous", CLASS_SHARED,
		"shared anonymous memory (MAP_SHARED|MAP_ANONYMOUS)", m_shared_anon),
	R("kernel_object", CLASS_SHARED,
		"kernel object mapped into the process (anon_inode: io_uring, perf, ...)", m_kernel_object),
	R("brk_heap", CLASS_MALLOC,
		"[heap]: the brk heap (glibc malloc's main arena)", m_brk_heap),
	R("main_stack", CLASS_STACKS,
		"[stack]: the main thread's stack", m_main_stack),
	R("named_malloc", CLASS_MALLOC,
		"named by the allocator as malloc memory ([anon:glibc: malloc...], [anon:jemalloc_pg])", m_named_malloc),
	R("named_stack", CLASS_STACKS,
		"named by the thread library as a stack ([anon:glibc: pthread stack...])", m_named_stack),
	R("named", CLASS_NAMED,
		"[anon:NAME]: anonymous memory the program named (Linux 5.17+)", m_named),
	R("image_segment", CLASS_IMAGES,
		"segment of a program or library image (the file is mapped executable)", m_image_segment),
	R("image_library", CLASS_IMAGES,
		"shared library (.so in the file name)", m_image_so),
	R("hugetlb_anonymous", CLASS_OTHER,
		"anonymous memory in huge pages (MAP_HUGETLB): Private_Hugetlb, not resident", m_hugetlb_anonymous),
	R("device", CLASS_OTHER,
		"mapping of a device file", m_device),
	R("mapped_file", CLASS_MAPPED_FILES,
		"file-backed mapping of a data file", m_mapped_file),
	R("unknown_path", CLASS_OTHER,
		"a kind of mapping this version does not know", m_unknown_path),
	A("image_bss", CLASS_IMAGES,
		"anonymous memory right after an image's data segment: its .bss (zeroed globals)", m_image_bss, PERMS_RW),
	AN("cuda_reservation", CLASS_GPU_DRIVER,
		"the CUDA driver's address-space reservation (inaccessible, from 0x200000000)", shape_cuda_reservation, NEED_NVIDIA, PERMS_NONE),
	A("jit", CLASS_JIT,
		"anonymous writable and executable memory: generated code", shape_jit, PERMS_RWX),
	AN("jvm_heap", CLASS_RUNTIME_HEAP,
		"Java heap (JVM): anonymous memory below 32 GiB or a reservation the size of -Xmx", shape_jvm_heap, NEED_JVM, PERMS_ANY),
	A("go_arena", CLASS_RUNTIME_HEAP,
		"Go heap: the run of arenas from the runtime's hint address 0xc000000000", shape_go_arena, PERMS_ANY),
	AN("v8_page", CLASS_RUNTIME_HEAP,
		"V8 heap page: 256 KiB-aligned anonymous memory at a random address below 64 TiB", shape_v8_page, NEED_V8, PERMS_ANY),
	A("reserving_allocator", CLASS_MMGP_RAM,
		"part of an anonymous reservation of a multiple of 64 GiB", shape_mmgp_reservation, PERMS_ANY),
	{ { "stack_pointer", "a thread's stack pointer is in it (/proc/PID/task/TID/syscall)", CLASS_STACKS,
	    BASIS_READ }, shape_stack_pointer, SCOPE_ANON, NEED_NOTHING, PERMS_RW },
	AN("partition_alloc", CLASS_MALLOC,
		"PartitionAlloc (Chromium's malloc): a 2 MiB super page's metadata page and slot spans, or a direct map",
		shape_partition_alloc, NEED_PARTITION_ALLOC, PERMS_RW),
	A("glibc_arena", CLASS_MALLOC,
		"glibc malloc arena heap: 64 MiB-aligned, used part then reserve, 64 MiB in all", shape_glibc_arena, PERMS_RW),
	A("stack_shape", CLASS_STACKS,
		"thread stack shape: a guard page right below it (no thread's stack pointer seen in it)", shape_stack_guard, PERMS_RW),
	AN("jemalloc_shape", CLASS_MALLOC,
		"jemalloc's memory by its shape: libjemalloc serves malloc, and it maps 2 MiB at a time or more "
		"(2 MiB or more, starting or ending on a 2 MiB boundary)", shape_jemalloc, NEED_JEMALLOC, PERMS_RW),
	AN("jvm_reserved", CLASS_RUNTIME_HEAP,
		"read-write parts of a reservation of 16 MiB or more in a JVM: its class metadata (metaspace, compressed class space) and its garbage collector's tables",
		shape_jvm_reserved, NEED_JVM, PERMS_RW),
	AN("openblas_buffer", CLASS_OPENBLAS,
		"OpenBLAS buffer shape: 32 or 128 MiB blocks, mostly untouched (a heuristic)", shape_openblas_buffer, NEED_OPENBLAS, PERMS_RW),
	AN("pymalloc_arenas", CLASS_PYTHON,
		"pymalloc arenas: a multiple of the arena size in a Python process (a heuristic: neighbours merge)",
		shape_python_arena, NEED_PYTHON, PERMS_RW),
	A("deferred_reserve", -1, "(decided by its neighbours)", m_deferred_reserve, PERMS_NONE),
	A("anonymous", CLASS_OTHER,
		"anonymous private memory of no known shape (large malloc blocks served by mmap look like this)",
		m_anonymous, PERMS_ANY),
};

#undef R
#undef A
#undef AN
#undef ANY
#undef EV
#undef W

/* A region keeps its class and rule in a byte each, _CLASS_MAX meaning
 * "decided by its neighbours" until the second pass. */
_Static_assert(_CLASS_MAX < UINT8_MAX, "a class and the deferred mark fit region.cls");
_Static_assert(ELEMENTSOF(rules) <= UINT8_MAX + 1, "a rule's index fits region.rule");
_Static_assert(ELEMENTSOF(rules) > _RULE_FIXED_MAX, "the fixed rules have their rows");

static const size_t first_pass_rule = _RULE_FIXED_MAX;

size_t classify_rule_count(void)
{
	return ELEMENTSOF(rules);
}

const struct classify_rule_info *classify_rule(size_t index)
{
	return index < ELEMENTSOF(rules) ? &rules[index].info : NULL;
}

int classify_rule_from_key(const char *key)
{
	for (size_t i = 0; i < ELEMENTSOF(rules); i++)
		if (streq(rules[i].info.key, key))
			return (int)i;
	return -1;
}

static enum region_kind region_kind_of(const struct region *r)
{
	if (r->path)
		return KIND_PATH;
	if (region_inaccessible(r))
		return KIND_ANON_NONE;
	if (region_readable(r) && region_writable(r))
		return region_executable(r) ? KIND_ANON_RWX : KIND_ANON_RW;
	return KIND_ANON_OTHER;
}

/* Whether a rule is asked about regions of a kind.  Shared anonymous
 * regions are KIND_ANON_*: the anonymous rules test for private memory
 * themselves. */
static bool rule_fits(const struct rule *rule, enum region_kind kind)
{
	if (kind == KIND_PATH)
		return rule->scope != SCOPE_ANON;
	if (rule->scope == SCOPE_PATH)
		return false;
	switch (rule->perms) {
	case PERMS_RW: return kind == KIND_ANON_RW || kind == KIND_ANON_RWX;
	case PERMS_RWX: return kind == KIND_ANON_RWX;
	case PERMS_NONE: return kind == KIND_ANON_NONE;
	default: return true;
	}
}

/* Whether the process maps what a rule needs.  A switch, not a table: the
 * compiler names a need left out (-Wswitch). */
static bool need_met(const struct ctx *c, enum rule_need need)
{
	switch (need) {
	case NEED_NOTHING: return true;
	case NEED_JVM: return c->rt.jvm;
	case NEED_V8: return c->rt.v8;
	case NEED_PYTHON: return c->rt.python;
	case NEED_OPENBLAS: return c->rt.openblas;
	case NEED_NVIDIA: return c->rt.nvidia;
	case NEED_PARTITION_ALLOC: return c->partition_alloc;
	case NEED_JEMALLOC: return c->rt.allocator == RUNTIMES_MALLOC_JEMALLOC;
	}
	return false;
}

static bool is_deferred(const struct region *r)
{
	return r->cls == _CLASS_MAX;
}

/* Second pass: an inaccessible anonymous region belongs to the stack above
 * it when it is that stack's guard, else to the region it continues below
 * it, else it is a reservation of its own. */
static void resolve_reserves(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct region *r = &c->r[i];
		if (!is_deferred(r))
			continue;
		const struct region *next = i + 1 < c->n ? &c->r[i + 1] : NULL;
		const struct region *prev = i > 0 ? &c->r[i - 1] : NULL;
		if (next && contiguous(r, next) && next->cls == CLASS_STACKS && is_anon_or_named_private(next) &&
		    region_size(r) <= STACK_GUARD_MAX) {
			r->cls = CLASS_STACKS;
			r->rule = RULE_GUARD_OF_STACK;
		} else if (prev && contiguous(prev, r) && is_anon_or_named_private(prev) && !is_deferred(prev) &&
			   prev->cls != CLASS_STACKS && prev->cls != CLASS_IMAGES) {
			r->cls = prev->cls;
			r->rule = RULE_RESERVE_OF_BELOW;
		} else {
			r->cls = CLASS_OTHER;
			r->rule = RULE_RESERVATION;
		}
	}
}

void classify_follow_reserves(struct region *regions, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (regions[i].rule == RULE_RESERVE_OF_BELOW && contiguous(&regions[i - 1], &regions[i]))
			regions[i].cls = regions[i - 1].cls;
}

int classify_regions(struct region *regions, size_t n, const struct classify_hints *hints)
{
	struct ctx c = { .r = regions, .n = n, .h = hints };
	int ret = 0;

	if (build_index(&c) < 0) {
		ret = -ENOMEM;
		goto out;
	}

	/* the rules that can apply here, in order, for each kind of region:
	 * a C program's anonymous region is not asked about JVM heaps, an
	 * inaccessible one not about stacks */
	uint8_t lists[_KIND_MAX][ELEMENTSOF(rules)];
	size_t counts[_KIND_MAX] = { 0 };
	for (size_t k = first_pass_rule; k < ELEMENTSOF(rules); k++)
		for (int kind = 0; kind < _KIND_MAX; kind++)
			if (need_met(&c, rules[k].need) && rule_fits(&rules[k], (enum region_kind)kind))
				lists[kind][counts[kind]++] = (uint8_t)k;

	for (size_t i = 0; i < n; i++) {
		enum region_kind kind = region_kind_of(&regions[i]);
		for (size_t j = 0; j < counts[kind]; j++) {
			size_t k = lists[kind][j];
			if (!rules[k].match(&c, i))
				continue;
			regions[i].rule = (uint8_t)k;
			regions[i].cls = rules[k].info.cls < 0 ? _CLASS_MAX : (uint8_t)rules[k].info.cls;
			break;
		}
	}
	resolve_reserves(&c);
out:
	free(c.exec_paths);
	free(c.run_has_reserve);
	return ret;
}
