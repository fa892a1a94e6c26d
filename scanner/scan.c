/* Taking a census of a live process or a saved smaps file.
 *
 * The order of reads matters.  Identity (stat) first, so the instance is
 * known; then smaps; then status, close in time to smaps so the counters and
 * the regions describe the same moment; then stat again: an smaps opened
 * before the process died returns what was buffered and then a clean EOF, a
 * silently truncated census, so a census only counts when the same instance
 * is still alive after the read (doc/design.md#reading-proc-measured-facts). */
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "classify.h"
#include "evidence.h"
#include "fileio.h"
#include "gpu.h"
#include "heap-pass.h"
#include "limits.h"
#include "memimage.h"
#include "macro.h"
#include "procfs.h"
#include "smaps.h"
#include "strpool.h"
#include "util.h"

DEFINE_CLEANUP(struct census *, census_free)
DEFINE_CLEANUP(struct strpool *, strpool_free)

static void regions_freep(struct region **r)
{
	regions_free(*r);
}

/* Reads smaps to its end and parses it.  seq_file hands out at most a page
 * per read() whatever the buffer size, so the buffer is filled by several
 * reads before each hand-over to the parser. */
static int read_smaps(int fd, struct smaps_parser *p, const struct scan_options *o, uint64_t *bytes)
{
	_cleanup_free_ char *buf = malloc(RW_SMAPS_READ_SIZE);
	int r;

	if (!buf)
		return -ENOMEM;
	for (bool eof = false; !eof;) {
		size_t len = 0;
		while (len < RW_SMAPS_READ_SIZE) {
			ssize_t n = read(fd, buf + len, RW_SMAPS_READ_SIZE - len);
			if (n < 0) {
				if (errno == EINTR)
					continue;
				return negative_errno();
			}
			if (n == 0) {
				eof = true;
				break;
			}
			len += (size_t)n;
		}
		*bytes += len;
		if (len > 0 && (r = smaps_parser_feed(p, buf, len)) < 0)
			return r;
		if (o && o->progress && (r = o->progress(o->userdata, *bytes)) < 0)
			return r;
	}
	return smaps_parser_finish(p);
}

static void note_evidence(struct census *c, const struct evidence_result *res)
{
	c->evidence.taken = res->taken;
	snprintf(c->evidence.why_not, sizeof(c->evidence.why_not), "%s", res->why_not);
	if (!res->taken)
		return;
	c->evidence.regions = (int64_t)res->regions;
	c->evidence.confirmed = (int64_t)res->confirmed;
	c->evidence.split = (int64_t)res->split;
	c->evidence.reads = (int64_t)res->reads;
	c->evidence.bytes = (int64_t)res->bytes;
	c->evidence.calls = (int64_t)res->calls;
	c->evidence.pages = (int64_t)res->pages;
}

/* Reads evidence through *src for the classified regions.  With
 * o->record_memory, *src becomes a recorder wrapped around it, so that what
 * the heap walks read after evidence is saved too; the caller closes *src
 * either way.  A source that may not be read leaves the shapes standing
 * and the census saying why; a process that vanished is -ESRCH. */
static int read_evidence(struct census *c, struct memsource *src, struct region **regions, size_t *n,
			 const struct scan_options *o)
{
	struct evidence_result res;
	int r;

	src->max_probes = o && o->max_reads ? o->max_reads : RW_EVIDENCE_READS_MAX;
	if (o && o->record_memory) {
		struct memsource rec = { 0 };
		r = memimage_record(src, o->record_memory, &rec);
		if (r < 0)
			return r;
		*src = rec;
	}
	size_t max = o && o->max_regions ? o->max_regions : RW_REGIONS_MAX;
	r = evidence_apply(src, regions, n, max, c->strings, &res);
	note_evidence(c, &res);
	if (r == -EPERM || r == -EACCES)
		return 0;
	return r;
}

/* The heap walks (heap-pass.h), after evidence and the census's sums:
 * not when turned off, nor where evidence read nothing (no rights to the
 * memory, a light census, a saved file without its image).  Returns 0,
 * -ESRCH (the process vanished) or -ENOMEM. */
static int take_heap(struct census *c, struct memsource *src, const struct region *regions, size_t n,
		     const struct scan_options *o, int pid)
{
	if ((o && o->no_heap) || !c->evidence.taken || !src->ops)
		return 0;
	struct heap_limits limits = {
		.max_bytes = o && o->heap_max_bytes ? o->heap_max_bytes : RW_HEAP_READ_MAX,
		.deadline_us = o ? o->heap_deadline_us : 0,
		.retries = RW_HEAP_RETRIES,
	};
	struct heap_walk_input in = {
		.src = src,
		.regions = regions,
		.n_regions = n,
		.limits = &limits,
		.exe = c->exe,
		.cmdline = c->cmdline,
		.pid = pid,
	};
	return heap_pass_run(c, &in, NULL);
}

static void evidence_not_taken(struct census *c, const char *fmt, ...) _printf_(2, 3);

static void evidence_not_taken(struct census *c, const char *fmt, ...)
{
	va_list ap;
	c->evidence.taken = false;
	va_start(ap, fmt);
	vsnprintf(c->evidence.why_not, sizeof(c->evidence.why_not), fmt, ap);
	va_end(ap);
}

static int summarise(struct census *c, struct region *regions, size_t n, const struct scan_options *o)
{
	size_t top = o && o->top ? o->top : RW_TOP_DEFAULT;
	return census_summarise(c, regions, n, top, o && o->keep_regions);
}

static int strdup_to(char **dst, const char *s)
{
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* Permission denied reading root/PID/what: say why, and whose process it
 * is (status is readable by all). */
static int denied(struct error *err, const char *root, int pid_fd, int pid, const char *comm, const char *what)
{
	struct proc_status owner;

	if (geteuid() == 0)
		return error_set(err, -EACCES,
				 "permission denied reading %s/%d/%s, even as root: the kernel's ptrace check refused "
				 "(a process with capabilities this one lacks, or of another user namespace)",
				 root, pid, what);
	if (procfs_read_status(pid_fd, &owner) == 0 && owner.uid >= 0)
		return error_set(err, -EACCES,
				 "permission denied reading %s/%d/%s: process %d (%s) belongs to uid %lld; reading "
				 "another user's process needs CAP_SYS_PTRACE (root) or uid %lld",
				 root, pid, what, pid, comm, (long long)owner.uid, (long long)owner.uid);
	return error_set(err, -EACCES,
			 "permission denied reading %s/%d/%s: reading another user's process needs CAP_SYS_PTRACE "
			 "(root) or running as its user",
			 root, pid, what);
}

/* The totals of a light census: smaps_rollup is one region whose counters
 * are the sums over the whole address space (Linux 4.14+). */
static int read_rollup(int pid_fd, struct census_totals *ret, uint64_t *bytes)
{
	_cleanup_close_ int fd = openat(pid_fd, "smaps_rollup", O_RDONLY | O_CLOEXEC);
	_cleanup_(strpool_freep) struct strpool *pool = strpool_new();
	_cleanup_(regions_freep) struct region *rollup = NULL;
	struct smaps_parser p;
	size_t n = 0;
	int r;

	if (fd < 0)
		return negative_errno();
	if (!pool)
		return -ENOMEM;
	r = smaps_parser_init(&p, 1, pool);
	if (r < 0)
		return r;
	r = read_smaps(fd, &p, NULL, bytes);
	rollup = smaps_parser_take(&p, &n);
	smaps_parser_done(&p);
	if (r < 0)
		return r;
	if (n != 1)
		return -ESRCH; /* an empty rollup: the address space is gone */
	ret->private = region_private(rollup);
	ret->resident = region_resident(rollup);
	ret->pss = region_field(rollup, COUNT_PSS);
	ret->swap = region_field(rollup, COUNT_SWAP);
	ret->locked = region_field(rollup, COUNT_LOCKED);
	ret->hugetlb = region_field(rollup, COUNT_SHARED_HUGETLB) + region_field(rollup, COUNT_PRIVATE_HUGETLB);
	return 0;
}

int scan_fill_gpu(struct census *c, const struct gpu_snapshot *s, bool nvidia_mapped)
{
	struct census_gpu g = {
		.taken = true,
		.state = s->state,
		.driver_version = s->driver_version,
		.nvidia_mapped = nvidia_mapped,
	};
	size_t n = 0;
	const struct gpu_use *u = gpu_snapshot_find(s, c->pid, &n);

	snprintf(g.message, sizeof(g.message), "%s", s->state == GPU_OK ? "" : s->message);
	if (n > 0) {
		g.uses = calloc(n, sizeof(*g.uses));
		if (!g.uses)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gpu_device *d = u[i].device < s->n_devices ? &s->devices[u[i].device] : NULL;
		struct census_gpu_use *x = &g.uses[g.n_uses++];
		x->index = d ? d->index : u[i].device;
		snprintf(x->uuid, sizeof(x->uuid), "%s", d ? d->uuid : "");
		snprintf(x->name, sizeof(x->name), "%s", d ? d->name : "");
		x->used = u[i].used;
		x->total = d ? d->total : 0;
		x->graphics = u[i].graphics;
	}
	free(c->gpu.uses);
	c->gpu = g;
	return 0;
}

/* Whether the process maps NVIDIA's device files: a GPU process. */
static bool maps_nvidia(const struct region *regions, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (regions[i].path && startswith(regions[i].path, "/dev/nvidia"))
			return true;
	return false;
}

/* The GPU section, when asked for. */
static int take_gpu(struct census *c, const struct region *regions, size_t n, const struct scan_options *o)
{
	struct gpu_snapshot own = { 0 };
	int r;

	if (!o || (!o->gpu_snapshot && !o->gpu))
		return 0;
	if (!o->gpu_snapshot && (r = gpu_snapshot_take(o->gpu, &own)) < 0)
		return r;
	r = scan_fill_gpu(c, o->gpu_snapshot ? o->gpu_snapshot : &own, maps_nvidia(regions, n));
	gpu_snapshot_done(&own);
	return r;
}

/* One process being read: where it is and what its stat said at first,
 * to tell at the end whether it is still the same instance. */
struct scan_target {
	const char *root; /* the proc root's path, for messages */
	int pid;
	int root_fd, pid_fd;
	struct proc_stat st;
};

static void scan_target_done(struct scan_target *t)
{
	if (t->pid_fd >= 0)
		close(t->pid_fd);
	if (t->root_fd >= 0)
		close(t->root_fd);
}

static int exited_during(struct error *err, int pid)
{
	return error_set(err, -ESRCH, "process %d exited during the scan", pid);
}

/* Opens /proc/PID once and reads its stat: a process with user memory, not
 * a kernel thread, not a zombie. */
static int open_target(struct scan_target *t, const char *root, int pid, struct error *err)
{
	int r;

	t->root = root;
	t->pid = pid;
	t->root_fd = procfs_open_root(root);
	if (t->root_fd < 0)
		return error_set(err, t->root_fd, "cannot open %s: %s", root, strerror(-t->root_fd));
	t->pid_fd = procfs_open_pid(t->root_fd, pid);
	if (t->pid_fd == -ENOENT || t->pid_fd == -ESRCH)
		return error_set(err, -ENOENT, "no process %d", pid);
	if (t->pid_fd < 0)
		return error_set(err, t->pid_fd, "cannot open %s/%d: %s", root, pid, strerror(-t->pid_fd));

	r = procfs_read_stat(t->pid_fd, &t->st);
	if (r == -ENOENT || r == -ESRCH)
		return error_set(err, -ENOENT, "no process %d", pid);
	if (r < 0)
		return error_set(err, r, "cannot read %s/%d/stat: %s", root, pid, strerror(-r));
	if (t->st.flags & PROC_PF_KTHREAD)
		return error_set(err, -EOPNOTSUPP, "process %d (%s) is a kernel thread: it has no user memory", pid,
				 t->st.comm);
	/* said apart from an exit mid-read: the user asked about a process
	 * that was gone already, and may wonder why it is still listed */
	if (t->st.state == 'Z' || t->st.state == 'X')
		return error_set(err, -ESRCH,
				 "process %d (%s) has exited: a zombie, not yet reaped by its parent, holds no memory", pid,
				 t->st.comm);
	return 0;
}

/* Who the process is: pid, start time, name, command line, executable. */
static int read_identity(struct census *c, const struct scan_target *t, struct error *err)
{
	int r;

	c->pid = t->pid;
	c->start_time = (int64_t)t->st.start_time;
	c->taken_at_ms = now_realtime_ms();
	if (strdup_to(&c->comm, t->st.comm) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	(void)procfs_read_boot_id(t->root_fd, &c->boot_id);
	r = procfs_read_cmdline(t->pid_fd, &c->cmdline);
	if (r == -ENOMEM)
		return error_set(err, r, "out of memory");
	r = procfs_read_exe(t->pid_fd, &c->exe); /* EACCES without ptrace rights: exe stays unknown */
	if (r == -ENOMEM)
		return error_set(err, r, "out of memory");
	if (asprintf(&c->source, "%s/%d/smaps", t->root, t->pid) < 0) {
		c->source = NULL;
		return error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* The regions, from smaps (maps for a light census). */
static int read_regions(struct census *c, const struct scan_target *t, const struct scan_options *o,
			struct region **ret, size_t *ret_n, uint64_t *bytes, struct error *err)
{
	const char *what = o && o->light ? "maps" : "smaps";
	_cleanup_close_ int fd = openat(t->pid_fd, what, O_RDONLY | O_CLOEXEC);
	struct smaps_parser parser;
	int r;

	if (fd < 0) {
		r = negative_errno();
		if (r == -EACCES || r == -EPERM)
			return denied(err, t->root, t->pid_fd, t->pid, t->st.comm, what);
		if (r == -ENOENT || r == -ESRCH)
			return exited_during(err, t->pid);
		return error_set(err, r, "cannot open %s/%d/%s: %s", t->root, t->pid, what, strerror(-r));
	}
	smaps_parser_init(&parser, o ? o->max_regions : 0, c->strings);
	r = read_smaps(fd, &parser, o, bytes);
	*ret = smaps_parser_take(&parser, ret_n);
	if (r == -ESRCH || r == -ENOENT)
		r = exited_during(err, t->pid);
	else if (r < 0 && parser.message[0])
		error_set(err, r, "%s/%d/%s: %s", t->root, t->pid, what, parser.message);
	else if (r < 0)
		error_set(err, r, "reading %s/%d/%s: %s", t->root, t->pid, what, strerror(-r));
	smaps_parser_done(&parser);
	return r < 0 ? r : 0;
}

/* Reads status, then makes sure the regions read are those of the same
 * instance, whole.  The kernel ends smaps early, cleanly, once the address
 * space is gone (mm_users reached zero: m_start's mmget_not_zero fails).
 * An exiting task drops its mm (exit_mm) before it is a zombie, so "alive
 * with the same start time" is not enough: status shows no Vm* lines once
 * the task has no mm.  And a live process always maps something. */
static int confirm_instance(struct census *c, const struct scan_target *t, size_t n, struct error *err)
{
	int r = procfs_read_status(t->pid_fd, &c->status);

	if (r == -ENOENT || r == -ESRCH)
		return exited_during(err, t->pid);
	if (r < 0)
		return error_set(err, r, "cannot read %s/%d/status: %s", t->root, t->pid, strerror(-r));
	c->have_status = true;
	c->uid = c->status.uid;

	if (!status_has(&c->status, STATUS_VM_RSS) || n == 0)
		return exited_during(err, t->pid);
	r = procfs_still_alive(t->pid_fd, t->st.start_time);
	if (r < 0)
		return error_set(err, r, "cannot read %s/%d/stat: %s", t->root, t->pid, strerror(-r));
	if (r == 0)
		return exited_during(err, t->pid);
	/* execve replaces the address space too (the old one's smaps ends
	 * early), keeping pid and start time: the executable tells */
	if (c->exe) {
		_cleanup_free_ char *exe_after = NULL;
		r = procfs_read_exe(t->pid_fd, &exe_after);
		if (r == -ENOENT || r == -ESRCH || (r == 0 && !streq(exe_after, c->exe)))
			return error_set(err, -ESRCH, "process %d exited or executed another program during the scan",
					 t->pid);
	}
	return 0;
}

/* Evidence read from the process's memory, where it may be read; else the
 * census says why not.  *src is the source it read through, left open for
 * the heap walks (closed by the caller; no ops when none was opened). */
static int take_evidence(struct census *c, const struct scan_target *t, const struct scan_options *o,
			 struct region **regions, size_t *n, struct memsource *src, struct error *err)
{
	char why[256] = "";
	int r;

	if (o && o->no_evidence) {
		evidence_not_taken(c, "turned off (--no-evidence, or Evidence=no)");
		return 0;
	}
	if (o && o->light) {
		evidence_not_taken(c, "a light census reads no page counts to split regions by");
		return 0;
	}
	if (!streq(t->root, "/proc")) {
		/* a tree standing for /proc: the pid is not the process whose memory process_vm_readv would read */
		evidence_not_taken(c, "processes read from %s, not /proc: their memory is not this system's to read",
				   t->root);
		return 0;
	}
	r = memsource_open_live(src, t->pid, t->pid_fd, why, sizeof(why));
	if (r == -ESRCH)
		return exited_during(err, t->pid);
	if (r == -ENOMEM)
		return error_set(err, r, "out of memory");
	if (r < 0) {
		evidence_not_taken(c, "%s", why);
		return 0;
	}
	r = read_evidence(c, src, regions, n, o);
	if (r == -ESRCH || r == -ENOENT)
		return exited_during(err, t->pid);
	if (r < 0)
		return error_set(err, r, "reading evidence from process %d: %s", t->pid, strerror(-r));
	return 0;
}

/* A light census's totals, from smaps_rollup: read last, since the rollup
 * and the maps are a moment apart, and a process that exits meanwhile
 * leaves an empty rollup. */
static int read_light_totals(struct census *c, const struct scan_target *t, uint64_t *bytes, struct error *err)
{
	struct census_totals totals = c->totals;
	int r = read_rollup(t->pid_fd, &totals, bytes);

	if (r == -ENOENT || r == -ESRCH)
		return exited_during(err, t->pid);
	if (r == -EACCES || r == -EPERM)
		return denied(err, t->root, t->pid_fd, t->pid, t->st.comm, "smaps_rollup");
	if (r < 0)
		return error_set(err, r, "reading %s/%d/smaps_rollup: %s", t->root, t->pid, strerror(-r));
	c->totals = totals;
	c->light = true;
	return 0;
}

int scan_process(int pid, const struct scan_options *o, struct census **ret, struct error *err)
{
	_cleanup_(census_freep) struct census *c = NULL;
	_cleanup_free_ uint64_t *sps = NULL;
	_cleanup_(regions_freep) struct region *regions = NULL;
	_cleanup_(scan_target_done) struct scan_target t = { .root_fd = -1, .pid_fd = -1 };
	_cleanup_(memsource_close) struct memsource src = { 0 };
	uint64_t bytes = 0, t0 = now_monotonic_us(), cpu0 = now_thread_cpu_us();
	size_t n = 0, n_sps = 0, threads = 0;
	bool have_sps = false;
	int r;

	c = census_new();
	if (!c)
		return error_set(err, -ENOMEM, "out of memory");
	r = open_target(&t, o && o->proc_root ? o->proc_root : "/proc", pid, err);
	if (r >= 0)
		r = read_identity(c, &t, err);
	if (r >= 0)
		r = read_regions(c, &t, o, &regions, &n, &bytes, err);
	if (r >= 0)
		r = confirm_instance(c, &t, n, err);
	if (r >= 0 && !(o && o->skip_stack_pointers)) {
		r = procfs_read_stack_pointers(t.pid_fd, &sps, &n_sps, &threads);
		if (r == 0) {
			c->threads_seen = (int64_t)threads;
			c->stack_pointers = (int64_t)n_sps;
			have_sps = true;
		} else if (r == -ENOMEM)
			error_set(err, r, "out of memory");
		else
			r = 0; /* not readable: stacks are known by their shape only */
	}
	if (r >= 0) {
		struct classify_hints hints = {
			.stack_pointers = have_sps ? sps : NULL,
			.n_stack_pointers = n_sps,
			.exe = c->exe,
			.cmdline = c->cmdline,
		};
		if ((r = classify_regions(regions, n, &hints)) < 0)
			error_set(err, r, "out of memory");
	}
	if (r >= 0)
		r = take_evidence(c, &t, o, &regions, &n, &src, err);
	if (r >= 0 && (r = summarise(c, regions, n, o)) < 0)
		error_set(err, r, "out of memory");
	if (r >= 0 && (r = take_heap(c, &src, regions, n, o, t.pid)) < 0) {
		if (r == -ESRCH || r == -ENOENT)
			r = exited_during(err, t.pid);
		else
			error_set(err, r, "reading the heaps of process %d: %s", t.pid, strerror(-r));
	}
	if (r >= 0 && o && o->light)
		r = read_light_totals(c, &t, &bytes, err);
	if (r < 0)
		return r;

	c->wall_us = (int64_t)(now_monotonic_us() - t0);
	c->cpu_us = (int64_t)(now_thread_cpu_us() - cpu0);
	c->bytes_read = (int64_t)bytes;
	/* after the cost is measured: NVML's time is not the census's */
	if (take_gpu(c, regions, n, o) < 0)
		return error_set(err, -ENOMEM, "out of memory");
	*ret = TAKE_PTR(c);
	return 0;
}

/* A saved file has no exe link: the first file-backed region is, for almost
 * every process, the program itself (mapped lowest), good enough to tell a
 * Python or node process apart.  A hint only, never reported. */
static const char *guess_exe(const struct region *regions, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (regions[i].path && regions[i].path[0] == '/')
			return regions[i].path;
	return NULL;
}

DEFINE_CLEANUP(struct memimage *, memimage_free)

static int load_image(const char *path, struct memimage **ret, struct error *err)
{
	_cleanup_close_ int fd = open_input(path);
	_cleanup_free_ char *text = NULL;
	char msg[192] = "";
	size_t len;
	int r;

	if (fd < 0)
		return error_set(err, fd, "%s: %s", path, strerror(-fd));
	r = read_full_fd(fd, RW_MEMIMAGE_MAX, &text, &len);
	if (r == -EFBIG)
		return error_set(err, -E2BIG, "%s: larger than %u MiB: not a memory image", path, RW_MEMIMAGE_MAX >> 20);
	if (r < 0)
		return error_set(err, r, "%s: %s", path, strerror(-r));
	r = memimage_parse(text, len, ret, msg, sizeof(msg));
	if (r == -ENOMEM)
		return error_set(err, r, "out of memory");
	if (r < 0)
		return error_set(err, r, "%s: %s", path, msg);
	return 0;
}

int scan_smaps_file(const char *smaps_path, const char *status_path, const struct scan_options *o,
		    struct census **ret, struct error *err)
{
	_cleanup_(census_freep) struct census *c = NULL;
	_cleanup_close_ int fd = -1;
	_cleanup_(regions_freep) struct region *regions = NULL;
	struct smaps_parser parser;
	uint64_t bytes = 0;
	size_t n = 0;
	int r;

	c = census_new();
	if (!c)
		return error_set(err, -ENOMEM, "out of memory");
	if (status_path) {
		_cleanup_close_ int sfd = open_input(status_path);
		_cleanup_free_ char *text = NULL;
		size_t len;
		if (sfd < 0)
			return error_set(err, sfd, "%s: %s", status_path, strerror(-sfd));
		r = read_full_fd(sfd, RW_PROC_FILE_MAX, &text, &len);
		if (r < 0)
			return error_set(err, r, "%s: %s", status_path,
					 r == -EFBIG ? "too large for a status file" : strerror(-r));
		if (status_parse(text, len, &c->status) < 0)
			return error_set(err, -EBADMSG, "%s: not a /proc/PID/status file", status_path);
		c->have_status = true;
		c->uid = c->status.uid;
		if (c->status.name[0] && strdup_to(&c->comm, c->status.name) < 0)
			return error_set(err, -ENOMEM, "out of memory");
	}

	fd = open_input(smaps_path);
	if (fd < 0)
		return error_set(err, fd, "%s: %s", smaps_path, strerror(-fd));
	if (strdup_to(&c->source, smaps_path) < 0)
		return error_set(err, -ENOMEM, "out of memory");

	smaps_parser_init(&parser, o ? o->max_regions : 0, c->strings);
	r = read_smaps(fd, &parser, o, &bytes);
	regions = smaps_parser_take(&parser, &n);
	if (r < 0) {
		if (parser.message[0])
			error_set(err, r, "%s: %s", smaps_path, parser.message);
		else
			error_set(err, r, "%s: %s", smaps_path, strerror(-r));
		smaps_parser_done(&parser);
		return r;
	}
	smaps_parser_done(&parser);
	if (n == 0)
		return error_set(err, -ENODATA, "%s: no regions: not an smaps file, or the capture is empty",
				 smaps_path);

	struct classify_hints hints = { .exe = guess_exe(regions, n) };
	r = classify_regions(regions, n, &hints);
	if (r < 0)
		return error_set(err, r, "out of memory");
	_cleanup_(memimage_freep) struct memimage *img = NULL;
	_cleanup_(memsource_close) struct memsource src = { 0 };
	if (o && o->memory_image && !o->no_evidence) {
		r = load_image(o->memory_image, &img, err);
		if (r < 0)
			return r;
		memimage_source(img, &src);
		r = read_evidence(c, &src, &regions, &n, o);
		if (r < 0)
			return error_set(err, r, "%s: %s", o->memory_image, strerror(-r));
	} else
		evidence_not_taken(c, o && o->memory_image ? "turned off (--no-evidence)"
							   : "a saved smaps file holds no memory to read (see --memory)");
	r = summarise(c, regions, n, o);
	if (r < 0)
		return error_set(err, r, "out of memory");
	r = take_heap(c, &src, regions, n, o, 0);
	if (r < 0)
		return error_set(err, r, "%s: %s", o->memory_image, strerror(-r));
	c->bytes_read = (int64_t)bytes;
	*ret = TAKE_PTR(c);
	return 0;
}
