/* The Java heap's in use and free (heap-walk.h), from the JVM's own
 * performance counters: the hsperfdata file HotSpot maps shared at
 * /tmp/hsperfdata_USER/PID and updates as its collector runs, the file
 * jstat reads.  In use is the heap spaces' used bytes, free their
 * capacity (what the collector committed) less used, as `jstat -gc`
 * shows them; the class is runtime_heap, the regions the Java heap's
 * (rule jvm_heap).
 *
 * The file is read as a file, never through the process's memory: the
 * mapping the census saw says which file (mapping-file.h), so a stale
 * file of another JVM that had the same pid is never taken, and a JVM in
 * a container is read through its own root.  A JVM run with
 * -XX:-UsePerfData (or
 * -XX:+PerfDisableSharedMem) has no such file: its heap stays unknown,
 * saying why.
 *
 * hsperfdata gives sums, not addresses.  Figures count private pages only
 * (heap-walk.h), and the objects a JVM holds have been written, so they
 * are private memory: in use is the used bytes up to the heap's private
 * bytes, free the rest of the capacity up to what remains private
 * (heap-private.h: which pages hold the objects is not known, how many
 * bytes do is).  Capacity committed but never touched is no memory
 * and counts nowhere; metaspace and the collector's tables (rule
 * jvm_reserved) are not described by this walk and stay unknown. */
#include "heap-jvm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "heap-private.h"
#include "heap-walkers.h"
#include "hsperf.h"
#include "limits.h"
#include "macro.h"
#include "mapping-file.h"
#include "util.h"

/* Whether the region is part of the Java heap the classifier found. */
static bool is_java_heap(const struct region *r, int rule)
{
	return r->cls == CLASS_RUNTIME_HEAP && rule >= 0 && r->rule == rule;
}

/* Whether path is a JVM's counters file, ".../hsperfdata_USER/DIGITS",
 * maybe deleted (the kernel appends " (deleted)"). */
static bool is_perf_path(const char *path)
{
	static const char gone[] = " (deleted)";
	const char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash || slash == path)
		return false;
	const char *dir = slash - 1;
	while (dir > path && *dir != '/')
		dir--;
	if (strncmp(dir, "/hsperfdata_", 12) != 0 || dir + 12 >= slash)
		return false;
	size_t digits = strspn(slash + 1, "0123456789"), rest = strlen(slash + 1 + digits);
	return digits > 0 && (rest == 0 || strcmp(slash + 1 + digits, gone) == 0);
}

/* The mapping of the JVM's counters file, or NULL. */
static const struct region *perf_mapping(const struct heap_walk_input *in)
{
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (r->inode && region_shared(r) && is_perf_path(r->path))
			return r;
	}
	return NULL;
}

/* Reads the whole file behind fd into buf.
 * Returns its length, or -errno with why set. */
static ssize_t read_perf_file(int fd, uint64_t budget, uint8_t *buf, char *why, size_t why_size)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size < (off_t)HSPERF_PROLOGUE_SIZE || st.st_size > (off_t)RW_HSPERF_FILE_MAX) {
		snprintf(why, why_size, "its hsperfdata file is %jd bytes: not a JVM's", (intmax_t)st.st_size);
		return -EBADMSG;
	}
	if ((uint64_t)st.st_size > budget) {
		snprintf(why, why_size, "the bytes a census may read of the process were spent");
		return -E2BIG;
	}
	size_t got = 0, want = (size_t)st.st_size;
	while (got < want) {
		ssize_t n = pread(fd, buf + got, want - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, why_size, "its hsperfdata file could not be read: %s", strerror(errno));
			return negative_errno();
		}
		if (n == 0)
			break; /* truncated meanwhile: the parser judges what is there */
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int give_up(struct heap_walk *w, const char *why)
{
	w->failed = true;
	snprintf(w->why_not, sizeof(w->why_not), "hsperfdata: %s", why);
	return 0;
}

int heap_jvm_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w)
{
	const int rule = classify_rule_from_key("jvm_heap");
	uint64_t priv = 0;
	char why[160] = "";

	w->cls = CLASS_RUNTIME_HEAP;
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (!is_java_heap(r, rule) || region_inaccessible(r))
			continue;
		int e = heap_walk_cover(w, in->src, r->start, r->end);
		if (e < 0)
			return e;
		priv += heap_walk_private(w, r->start, r->end);
	}
	if (w->n_covers == 0)
		return 0; /* no Java heap here */

	const struct region *perf = perf_mapping(in);
	if (in->pid <= 0)
		return give_up(w, "read from a live JVM only, not from a saved census");
	if (!perf)
		return give_up(w, "the JVM maps no hsperfdata file (run with -XX:-UsePerfData or "
				  "-XX:+PerfDisableSharedMem?)");

	_cleanup_free_ uint8_t *buf = malloc(RW_HSPERF_FILE_MAX);
	if (!buf)
		return -ENOMEM;
	struct hsperf_heap heap;
	unsigned tries = 1 + (in->limits ? in->limits->retries : 0);
	uint64_t budget = in->limits && in->limits->max_bytes ? in->limits->max_bytes : UINT64_MAX;
	int r = -EAGAIN;
	for (unsigned t = 0; t < tries && r == -EAGAIN; t++) {
		if (t > 0 && in->limits && in->limits->deadline_us && now_monotonic_us() >= in->limits->deadline_us)
			break;
		_cleanup_close_ int fd = mapping_file_open(proc_root, in->pid, perf, why, sizeof(why));
		if (fd == -ESRCH)
			return -ESRCH;
		if (fd < 0)
			return give_up(w, why);
		ssize_t len = read_perf_file(fd, budget > w->bytes_read ? budget - w->bytes_read : 0, buf, why,
					     sizeof(why));
		if (len < 0)
			return give_up(w, why);
		w->bytes_read += (uint64_t)len;
		r = hsperf_parse_heap(buf, (size_t)len, &heap, why, sizeof(why));
	}
	if (r == -EAGAIN && tries > 1)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), ", %u tries", tries);
	if (r < 0)
		return give_up(w, why);

	uint64_t in_use = heap.used < priv ? heap.used : priv;
	uint64_t free_bytes = heap.capacity - heap.used;
	if (free_bytes > priv - in_use)
		free_bytes = priv - in_use;
	for (size_t i = 0; i < w->n_covers; i++) {
		uint64_t start = w->covers[i].start, end = w->covers[i].end, p = heap_walk_private(w, start, end);
		uint64_t u = in_use < p ? in_use : p, f = free_bytes < p - u ? free_bytes : p - u;
		r = heap_private_add(w, start, end, u, f, false);
		if (r < 0)
			return r;
		in_use -= u;
		free_bytes -= f;
	}

	/* a committed heap whose pages were never all touched (-Xms, a heap
	 * that grew and was collected) has less private memory than its
	 * capacity: say how much, so that its free is understood */
	char used_s[FORMAT_BYTES_MAX], cap_s[FORMAT_BYTES_MAX], priv_s[FORMAT_BYTES_MAX], touched[64] = "";
	if (priv < heap.capacity)
		snprintf(touched, sizeof(touched), ", %s of it private", format_bytes(priv_s, priv));
	snprintf(w->how, sizeof(w->how), "hsperfdata: %s%sused %s of %s committed%s", heap.gc, heap.gc[0] ? ", " : "",
		 format_bytes(used_s, heap.used), format_bytes(cap_s, heap.capacity), touched);
	return 0;
}

int heap_walk_jvm(const struct heap_walk_input *in, struct heap_walk *w)
{
	return heap_jvm_walk(in, "/proc", w);
}
