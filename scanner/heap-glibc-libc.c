/* The glibc heap walker's look at libc itself (heap-glibc.h): which
 * mappings are libc's, its version, and its writable data, where
 * main_arena and mp_ live.
 *
 * The version picks the layout of malloc's structures, so it is read, not
 * guessed: from the file name before 2.34 (libc-2.31.so), else from the
 * banner in libc's read-only data ("GNU C Library (Debian GLIBC 2.36-9)
 * stable release version 2.36.").  Its page is in the page tables of
 * nearly every process (the kernel maps a file's pages around each one
 * faulted in); a process forked from another has none of libc's text
 * mapped until it touches it, and then the banner is read from libc's
 * file, the one the mapping names (same device and inode), which
 * disturbs no process. */
#include "heap-glibc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

/* pages of libc's read-only data read at a time, looking for its banner */
#define BANNER_BATCH 16u
/* libc's writable data read at most when looking for main_arena: 2.36's
 * .data and .bss are 60 KiB */
#define LIBC_DATA_MAX (1024u * 1024u)

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* libc.so.6, or libc-2.NN.so before 2.34 (*minor set then, else -1). */
static bool is_libc(const char *path, int *minor)
{
	const char *b = base_name(path);
	uint64_t v;

	*minor = -1;
	if (startswith(b, "libc.so.6"))
		return true;
	const char *rest = startswith(b, "libc-2.");
	if (!rest)
		return false;
	size_t digits = strspn(rest, "0123456789");
	if (digits == 0 || digits > 3 || !startswith(rest + digits, ".so") || parse_u64_n(rest, digits, 10, &v) < 0)
		return false;
	*minor = (int)v;
	return true;
}

/* "release version 2.NN." in buf: NN, or -1.  A development snapshot
 * (2.40.9000) is no release: its layout may be anything. */
static int banner_minor(const uint8_t *buf, size_t len)
{
	static const char needle[] = "release version 2.";
	const uint8_t *p = memmem(buf, len, needle, sizeof(needle) - 1);
	if (!p)
		return -1;
	p += sizeof(needle) - 1;
	size_t left = (size_t)(buf + len - p), digits = 0;
	int v = 0;
	while (digits < left && digits < 3 && p[digits] >= '0' && p[digits] <= '9')
		v = v * 10 + (p[digits++] - '0');
	if (digits == 0 || digits + 1 >= left || p[digits] != '.' || (p[digits + 1] >= '0' && p[digits + 1] <= '9'))
		return -1;
	return v;
}

/* Looks for the banner in the pages of one read-only mapping of libc that
 * are in memory, a batch at a time.  Returns 0 with *minor (-1: not
 * found there), or an error (-ECANCELED at the byte limit). */
static int banner_in(struct glibc *g, const struct region *r, int *minor)
{
	uint8_t *buf = malloc(32 + BANNER_BATCH * GLIBC_PAGE);
	bool carry = false;
	int rr = 0;

	*minor = -1;
	if (!buf)
		return -ENOMEM;
	for (uint64_t at = r->start; at < r->end && *minor < 0;) {
		uint64_t end = at + BANNER_BATCH * GLIBC_PAGE < r->end ? at + BANNER_BATCH * GLIBC_PAGE : r->end;
		size_t n = 0;
		for (uint64_t p = at; p < end; p += GLIBC_PAGE, n++) {
			rr = heap_glibc_read(g, p, GLIBC_PAGE, buf + 32 + n * GLIBC_PAGE);
			if (rr == -ENODATA) {
				memset(buf + 32 + n * GLIBC_PAGE, 0, GLIBC_PAGE);
				rr = 0;
			}
			if (rr < 0)
				goto out;
		}
		/* with the last bytes of the batch before, so that a banner
		 * across two batches is found whole */
		*minor = carry ? banner_minor(buf, 32 + n * GLIBC_PAGE) : banner_minor(buf + 32, n * GLIBC_PAGE);
		memmove(buf, buf + n * GLIBC_PAGE, 32);
		carry = true;
		at = end;
	}
out:
	free(buf);
	return rr;
}

/* The file a region maps, opened through the process's own view
 * (/proc/PID/root/PATH: the same rights as reading its memory), or through
 * map_files (root only) when that path now names another file (libc
 * upgraded in place).  Returns a descriptor or -errno. */
static int open_mapped(int pid, const struct region *r)
{
	char path[4200];
	struct stat st;
	size_t len = strlen(r->path);

	if (len >= 10 && streq(r->path + len - 10, " (deleted)"))
		len -= 10;
	/* O_NONBLOCK: the path is the process's to change, and a FIFO put
	 * there must not hold the census; what was opened must be the file
	 * mapped, the same device and inode */
	snprintf(path, sizeof(path), "/proc/%d/root%.*s", pid, (int)len, r->path);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == r->inode &&
	    major(st.st_dev) == r->dev_major && minor(st.st_dev) == r->dev_minor)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, r->start, r->end);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd >= 0 ? fd : -errno;
}

/* The banner in the part of libc's file a read-only mapping shows, read
 * from the file: a process forked from another has none of libc's text in
 * its page tables until it touches it, and reading the file disturbs no
 * process.  Only for a live process (pid > 0).  Returns the minor version
 * or -1. */
static int banner_in_file(int pid, const struct region *r)
{
	enum { CHUNK = 64 * 1024 };
	uint8_t *buf;
	int fd, found = -1;
	bool carry = false;

	if (pid <= 0 || (fd = open_mapped(pid, r)) < 0)
		return -1;
	if (!(buf = malloc(32 + CHUNK))) {
		close(fd);
		return -1;
	}
	for (uint64_t off = r->offset, end = r->offset + (r->end - r->start); off < end && found < 0;) {
		size_t want = end - off < CHUNK ? (size_t)(end - off) : CHUNK;
		ssize_t got = pread(fd, buf + 32, want, (off_t)off);
		if (got <= 0)
			break;
		found = carry ? banner_minor(buf, 32 + (size_t)got) : banner_minor(buf + 32, (size_t)got);
		if (got >= 32)
			memmove(buf, buf + got, 32);
		carry = got >= 32;
		off += (uint64_t)got;
	}
	free(buf);
	close(fd);
	return found;
}

int heap_glibc_version(struct glibc *g, int *minor)
{
	const struct heap_walk_input *in = g->in;
	bool seen = false;
	int m;

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (!r->path || !is_libc(r->path, &m))
			continue;
		seen = true;
		if (m >= 0) {
			*minor = m;
			return 0;
		}
	}
	if (!seen)
		return -ENOENT;
	/* the banner lies in the read-only data, after the text */
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (!r->path || !is_libc(r->path, &m) || r->offset == 0 || r->perms[0] != 'r' || r->perms[1] == 'w' ||
		    r->perms[2] == 'x')
			continue;
		int e = banner_in(g, r, &m);
		if (e == -ECANCELED)
			return heap_glibc_bad(g, "the byte limit was reached before glibc's version was read");
		if (e < 0)
			return e;
		if (m >= 0 || (m = banner_in_file(in->pid, r)) >= 0) {
			*minor = m;
			return 0;
		}
	}
	return heap_glibc_bad(g, "glibc's version could not be read (its banner is not in memory%s)",
			 in->pid > 0 ? ", nor in libc's file" : "");
}

int heap_glibc_libc_data(const struct heap_walk_input *in, uint64_t *start, uint64_t *end)
{
	uint64_t a = 0, b = 0, libc_end = 0;
	int m;

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (r->path && is_libc(r->path, &m)) {
			libc_end = r->end;
			if (region_writable(r)) {
				if (!a)
					a = r->start;
				b = r->end;
			}
		} else if (!r->path && r->start == libc_end && b == libc_end && region_writable(r)) {
			b = r->end;
		}
	}
	if (!a || b - a > LIBC_DATA_MAX)
		return -ENOENT;
	*start = a;
	*end = b;
	return 0;
}
