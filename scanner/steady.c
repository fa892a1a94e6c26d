/* The steady check (steady.h): smaps_rollup and a fingerprint of the
 * mappings, for the daemon to tell whether a census would find anything
 * new.  It costs one page-table walk (the rollup) and a pass over the
 * mapping list (or, between two such passes without the change watch,
 * over the file mappings only, in the kernel); a full census pays the same
 * walk plus about 700 bytes of text per region, which is where its time
 * goes for many regions. */
#include "steady.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fileio.h"
#include "limits.h"
#include "macro.h"
#include "proc-parse.h"
#include "procfs.h"
#include "smaps.h"
#include "strpool.h"

/* The PROCMAP_QUERY ioctl of /proc/PID/maps (Linux 6.11, include/uapi/
 * linux/fs.h), spelt out here since the C library's headers of this build
 * may be older than the kernel it runs on.  An older kernel answers
 * ENOTTY. */
struct steady_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

#define STEADY_PROCMAP_QUERY _IOWR('f', 17, struct steady_procmap_query)
#define STEADY_QUERY_COVERING_OR_NEXT_VMA 0x10
#define STEADY_QUERY_FILE_BACKED_VMA 0x20

DEFINE_CLEANUP(struct strpool *, strpool_free)

/* ------------------------------------------------------------ the hash */

/* A multiply-rotate hash over 8-byte words; bytes are buffered so that
 * the value does not depend on how the input was cut into reads. */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ULL;
	h = (h << 27) | (h >> 37);
	return h * 0xc2b2ae3d27d4eb4fULL + 0x165667b19e3779f9ULL;
}

void steady_hash_init(struct steady_hash *s)
{
	*s = (struct steady_hash){ .h = 0x27d4eb2f165667c5ULL };
}

void steady_hash_bytes(struct steady_hash *s, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t w;

	s->len += len;
	if (s->n > 0) {
		size_t take = 8 - s->n < len ? 8 - s->n : len;
		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		len -= take;
		if (s->n < 8)
			return;
		memcpy(&w, s->buf, 8);
		s->h = mix(s->h, w);
		s->n = 0;
	}
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		s->h = mix(s->h, w);
	}
	memcpy(s->buf, p, len);
	s->n = len;
}

void steady_hash_u64(struct steady_hash *s, uint64_t v)
{
	steady_hash_bytes(s, &v, sizeof(v));
}

uint64_t steady_hash_end(const struct steady_hash *s)
{
	uint64_t w = 0, h;

	memcpy(&w, s->buf, s->n);
	h = mix(mix(s->h, w), s->len);
	h ^= h >> 31;
	return h;
}

/* ------------------------------------------------------------ reading */

/* The mappings through PROCMAP_QUERY: every mapping's range, protection,
 * offset, device, inode and name.  Returns 0, -ENOTTY without the ioctl,
 * or a negative errno. */
static int fingerprint_ioctl(int maps_fd, struct steady_hash *h, uint64_t *ret_n)
{
	char name[PATH_MAX + 64];
	uint64_t addr = 0, n = 0;

	for (;;) {
		struct steady_procmap_query q = {
			.size = sizeof(q),
			.query_flags = STEADY_QUERY_COVERING_OR_NEXT_VMA,
			.query_addr = addr,
			.vma_name_size = sizeof(name),
			.vma_name_addr = (uint64_t)(uintptr_t)name,
		};
		if (ioctl(maps_fd, STEADY_PROCMAP_QUERY, &q) < 0) {
			if (errno == ENOENT)
				break; /* no mapping at or after addr: the end */
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		steady_hash_u64(h, q.vma_start);
		steady_hash_u64(h, q.vma_end);
		steady_hash_u64(h, q.vma_flags);
		steady_hash_u64(h, q.vma_offset);
		steady_hash_u64(h, q.inode);
		steady_hash_u64(h, (uint64_t)q.dev_major << 32 | q.dev_minor);
		/* vma_name_size comes back with the name's NUL, 0 for none */
		steady_hash_u64(h, q.vma_name_size);
		if (q.vma_name_size > 0 && q.vma_name_size <= sizeof(name))
			steady_hash_bytes(h, name, q.vma_name_size);
		n++;
		if (q.vma_end <= addr)
			return -EBADMSG; /* the kernel never answers backwards */
		addr = q.vma_end;
	}
	*ret_n = n;
	return 0;
}

/* One file mapping of the names' fingerprint: its start, file (device,
 * inode) and name. */
static void hash_named(struct steady_hash *h, const struct steady_procmap_query *q, const char *name, size_t size)
{
	steady_hash_u64(h, q->vma_start);
	steady_hash_u64(h, q->inode);
	steady_hash_u64(h, (uint64_t)q->dev_major << 32 | q->dev_minor);
	steady_hash_u64(h, q->vma_name_size);
	if (q->vma_name_size > 0 && q->vma_name_size <= size)
		steady_hash_bytes(h, name, q->vma_name_size);
}

/* The file mapping at or after addr (covering: at addr only), into *q;
 * -ENOENT when there is none. */
static int query_file(int maps_fd, uint64_t addr, bool covering, struct steady_procmap_query *q, char *name,
		      size_t size)
{
	for (;;) {
		*q = (struct steady_procmap_query){
			.size = sizeof(*q),
			.query_flags = STEADY_QUERY_FILE_BACKED_VMA | (covering ? 0 : STEADY_QUERY_COVERING_OR_NEXT_VMA),
			.query_addr = addr,
			.vma_name_size = (uint32_t)size,
			.vma_name_addr = (uint64_t)(uintptr_t)name,
		};
		if (ioctl(maps_fd, STEADY_PROCMAP_QUERY, q) == 0)
			return 0;
		if (errno != EINTR)
			return negative_errno();
	}
}

static int files_add(struct steady_files *f, uint64_t start)
{
	if (f->n == f->allocated) {
		size_t n = f->allocated ? f->allocated * 2 : 16;
		uint64_t *p = reallocarray(f->start, n, sizeof(*p));
		if (!p)
			return -ENOMEM;
		f->start = p;
		f->allocated = n;
	}
	f->start[f->n++] = start;
	return 0;
}

/* m's names, for at most limit file mappings, their starts into files:
 * has_names false with more, or without the ioctl. */
static int read_names(int maps_fd, uint64_t limit, struct steady_mark *m, struct steady_files *files)
{
	char name[PATH_MAX + 64];
	struct steady_procmap_query q;
	struct steady_hash h;
	uint64_t addr = 0;
	int r;

	files->n = 0;
	steady_hash_init(&h);
	while (files->n <= limit) {
		r = query_file(maps_fd, addr, false, &q, name, sizeof(name));
		if (r == -ENOENT)
			break; /* no file mapping at or after addr: the end */
		if (r == -ENOTTY || r == -EINVAL)
			return 0; /* no ioctl (before 6.11), or one of another shape */
		if (r < 0)
			return r;
		hash_named(&h, &q, name, sizeof(name));
		if ((r = files_add(files, q.vma_start)) < 0)
			return r;
		if (q.vma_end <= addr)
			return -EBADMSG; /* the kernel never answers backwards */
		addr = q.vma_end;
	}
	m->has_names = files->n <= limit;
	m->named = files->n;
	m->names = m->has_names ? steady_hash_end(&h) : 0;
	if (!m->has_names)
		files->n = 0;
	return 0;
}

/* The names again, of the file mappings at the starts of files only: the
 * kernel need not walk the mappings between them.  One no longer there
 * changes the fingerprint. */
static int reread_names(int maps_fd, const struct steady_files *files, struct steady_mark *m)
{
	char name[PATH_MAX + 64];
	struct steady_procmap_query q;
	struct steady_hash h;

	steady_hash_init(&h);
	for (size_t i = 0; i < files->n; i++) {
		int r = query_file(maps_fd, files->start[i], true, &q, name, sizeof(name));
		if (r == -ENOENT) {
			steady_hash_u64(&h, UINT64_MAX); /* gone: no start is this */
			continue;
		}
		if (r < 0)
			return r;
		hash_named(&h, &q, name, sizeof(name));
	}
	m->has_names = true;
	m->named = files->n;
	m->names = steady_hash_end(&h);
	return 0;
}

/* One file mapping of the file mappings' fingerprint (has_files): its
 * range, protection, offset, file and name. */
static void hash_file(struct steady_hash *h, const struct steady_procmap_query *q, const char *name, size_t size)
{
	steady_hash_u64(h, q->vma_end);
	steady_hash_u64(h, q->vma_flags);
	steady_hash_u64(h, q->vma_offset);
	hash_named(h, q, name, size);
}

/* Every file mapping through PROCMAP_QUERY into m (has_files), their
 * starts into files.  The kernel finds the next file mapping itself, past
 * the anonymous ones between, at about 0.15 us each.  Returns 0, -ENOTTY
 * without the ioctl (or one of another shape), or a negative errno. */
static int walk_files(int maps_fd, struct steady_mark *m, struct steady_files *files)
{
	char name[PATH_MAX + 64];
	struct steady_procmap_query q;
	struct steady_hash h;
	uint64_t addr = 0;

	files->n = 0;
	steady_hash_init(&h);
	for (;;) {
		int r = query_file(maps_fd, addr, false, &q, name, sizeof(name));
		if (r == -ENOENT)
			break; /* no file mapping at or after addr: the end */
		if (r < 0) {
			files->n = 0;
			return r == -EINVAL ? -ENOTTY : r;
		}
		hash_file(&h, &q, name, sizeof(name));
		if ((r = files_add(files, q.vma_start)) < 0)
			return r;
		if (q.vma_end <= addr)
			return -EBADMSG; /* the kernel never answers backwards */
		addr = q.vma_end;
	}
	m->has_files = true;
	m->files = steady_hash_end(&h);
	m->filed = files->n;
	return 0;
}

/* The file mappings again, at the starts of files only, into m: the
 * kernel walks none of the mappings between them.  One no longer there
 * changes the fingerprint; one made elsewhere is not seen (statm's size
 * moves with it, but for one made over another mapping of the same size).
 * Returns 0, -ENOTTY without the ioctl, or a negative errno. */
static int reread_files(int maps_fd, const struct steady_files *files, struct steady_mark *m)
{
	char name[PATH_MAX + 64];
	struct steady_procmap_query q;
	struct steady_hash h;

	steady_hash_init(&h);
	for (size_t i = 0; i < files->n; i++) {
		int r = query_file(maps_fd, files->start[i], true, &q, name, sizeof(name));
		if (r == -ENOENT) {
			steady_hash_u64(&h, UINT64_MAX); /* gone: no end is this */
			continue;
		}
		if (r < 0)
			return r == -EINVAL ? -ENOTTY : r;
		hash_file(&h, &q, name, sizeof(name));
	}
	m->has_files = true;
	m->files = steady_hash_end(&h);
	m->filed = files->n;
	return 0;
}

/* statm's size, resident and shared pages into m (has_statm): counters
 * the kernel keeps, read without a walk. */
static int read_statm(int pid_fd, struct steady_mark *m, uint64_t *bytes)
{
	_cleanup_close_ int fd = openat(pid_fd, "statm", O_RDONLY | O_CLOEXEC);
	char text[RW_STATM_TEXT_MAX];
	struct proc_statm st;
	size_t len = 0;
	int r;

	if (fd < 0)
		return negative_errno();
	r = procfs_pread_statm_text(fd, text, sizeof(text), &len);
	if (r < 0)
		return r;
	*bytes += len;
	r = statm_parse(text, len, &st);
	if (r < 0)
		return r;
	m->has_statm = true;
	m->statm[0] = st.size;
	m->statm[1] = st.resident;
	m->statm[2] = st.shared;
	return 0;
}

void steady_files_done(struct steady_files *f)
{
	free(f->start);
	*f = (struct steady_files){ 0 };
}

/* The mappings as the text of maps, which holds the same fields. */
static int fingerprint_text(int maps_fd, struct steady_hash *h, uint64_t *ret_n, uint64_t *bytes)
{
	_cleanup_free_ char *buf = malloc(RW_SMAPS_READ_SIZE);
	uint64_t n = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(maps_fd, buf, RW_SMAPS_READ_SIZE);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (k == 0)
			break;
		*bytes += (uint64_t)k;
		steady_hash_bytes(h, buf, (size_t)k);
		for (const char *q = buf, *end = buf + k; (q = memchr(q, '\n', (size_t)(end - q))); q++)
			n++;
	}
	*ret_n = n;
	return 0;
}

bool steady_rollup_field(const char *text, size_t len, const char *name, uint64_t *ret_kb)
{
	size_t n = strlen(name);

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if ((size_t)(eol - p) > n && memcmp(p, name, n) == 0) {
			const char *q = p + n;
			uint64_t v = 0;
			while (q < eol && *q == ' ')
				q++;
			if (q == eol || *q < '0' || *q > '9')
				return false;
			for (; q < eol && *q >= '0' && *q <= '9'; q++) {
				if (v > (UINT64_MAX - 9) / 10)
					return false;
				v = v * 10 + (uint64_t)(*q - '0');
			}
			*ret_kb = v;
			return true;
		}
		p = eol + 1;
	}
	return false;
}

static int read_rollup(int pid_fd, struct steady_mark *m, uint64_t *bytes)
{
	_cleanup_(strpool_freep) struct strpool *pool = strpool_new();
	_cleanup_free_ char *text = NULL;
	struct smaps_parser p;
	struct region *rollup;
	size_t len = 0, n = 0;
	int r;

	if (!pool)
		return -ENOMEM;
	r = read_full_fileat(pid_fd, "smaps_rollup", RW_SMAPS_READ_SIZE, &text, &len);
	if (r < 0)
		return r;
	*bytes += len;
	r = smaps_parser_init(&p, 1, pool);
	if (r < 0)
		return r;
	r = smaps_parser_feed(&p, text, len);
	if (r >= 0)
		r = smaps_parser_finish(&p);
	rollup = smaps_parser_take(&p, &n);
	smaps_parser_done(&p);
	if (r >= 0 && n != 1)
		r = -ESRCH; /* an empty rollup: the address space is gone */
	if (r >= 0) {
		m->first = rollup->start;
		m->last = rollup->end;
		for (int i = 0; i < _COUNT_MAX; i++)
			m->kb[i] = region_field(rollup, i) / 1024;
		/* The share of file pages moves whenever any other process maps
		 * or unmaps the same file (every process shares libc's pages):
		 * compared, it would make no busy host's process ever steady.
		 * What is left of Pss is its anonymous and shmem parts. */
		uint64_t file_kb;
		if (steady_rollup_field(text, len, "Pss_File:", &file_kb) && file_kb <= m->kb[COUNT_PSS])
			m->kb[COUNT_PSS] -= file_kb;
	}
	regions_free(rollup);
	return r;
}

static int exited_as_esrch(int r)
{
	return r == -ENOENT || r == -ESRCH ? -ESRCH : r;
}

int steady_read(int pid_fd, unsigned flags, struct steady_mark *ret, struct steady_files *files, bool *ret_ioctl,
		uint64_t *bytes)
{
	_cleanup_close_ int fd = openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
	struct steady_mark m = { .source = STEADY_IOCTL };
	struct steady_hash h;
	bool use_ioctl = flags & STEADY_READ_IOCTL, have_ioctl = use_ioctl;
	int r;

	if (fd < 0)
		return exited_as_esrch(negative_errno());
	steady_hash_init(&h);
	r = use_ioctl ? fingerprint_ioctl(fd, &h, &m.mappings) : -ENOTTY;
	if (r == -ENOTTY || r == -EINVAL) {
		/* no ioctl (before 6.11), or one of another shape */
		have_ioctl = false;
		m.source = STEADY_MAPS;
		steady_hash_init(&h);
		r = fingerprint_text(fd, &h, &m.mappings, bytes);
	}
	if (r < 0)
		return exited_as_esrch(r);
	m.fingerprint = steady_hash_end(&h);
	if ((flags & STEADY_READ_NAMES) && files) {
		r = read_names(fd, m.mappings / STEADY_NAMES_PER, &m, files);
		if (r < 0)
			return exited_as_esrch(r);
	}
	if ((flags & STEADY_READ_FILES) && !(flags & STEADY_READ_NAMES) && files) {
		r = read_statm(pid_fd, &m, bytes);
		if (r >= 0)
			r = walk_files(fd, &m, files);
		if (r < 0 && r != -ENOTTY)
			return exited_as_esrch(r);
	}
	r = read_rollup(pid_fd, &m, bytes);
	if (r < 0)
		return exited_as_esrch(r);
	if (ret_ioctl)
		*ret_ioctl = have_ioctl;
	*ret = m;
	return 0;
}

int steady_read_kept(int pid_fd, const struct steady_mark *was, const struct steady_files *files,
		     struct steady_mark *ret, uint64_t *bytes)
{
	struct steady_mark m = { .source = was->source, .fingerprint = was->fingerprint, .mappings = was->mappings };

	if (was->source == STEADY_NONE || !was->has_names || files->n != was->named)
		return -EINVAL;
	_cleanup_close_ int fd = openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return exited_as_esrch(negative_errno());
	int r = reread_names(fd, files, &m);
	if (r >= 0)
		r = read_rollup(pid_fd, &m, bytes);
	if (r < 0)
		return exited_as_esrch(r);
	*ret = m;
	return 0;
}

int steady_read_files(int pid_fd, const struct steady_mark *was, const struct steady_files *files,
		      struct steady_mark *ret, uint64_t *bytes)
{
	_cleanup_close_ int fd = -EBADF;
	struct steady_mark m = { .source = STEADY_FILES };
	int r;

	if (!was->has_files || files->n != was->filed)
		return -EINVAL;
	fd = openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return exited_as_esrch(negative_errno());
	r = read_statm(pid_fd, &m, bytes);
	if (r >= 0)
		r = reread_files(fd, files, &m);
	if (r >= 0)
		r = read_rollup(pid_fd, &m, bytes);
	if (r < 0)
		return exited_as_esrch(r);
	*ret = m;
	return 0;
}

int steady_read_maps(int pid_fd, struct steady_mark *m, struct steady_files *files, uint64_t *bytes)
{
	_cleanup_close_ int fd = openat(pid_fd, "maps", O_RDONLY | O_CLOEXEC);
	struct steady_hash h;
	uint64_t n = 0;
	int r;

	if (fd < 0)
		return exited_as_esrch(negative_errno());
	steady_hash_init(&h);
	r = fingerprint_text(fd, &h, &n, bytes);
	if (r >= 0)
		r = walk_files(fd, m, files);
	if (r < 0)
		return exited_as_esrch(r);
	m->source = STEADY_MAPS;
	m->fingerprint = steady_hash_end(&h);
	m->mappings = n;
	return 0;
}

bool steady_same(const struct steady_mark *a, const struct steady_mark *b)
{
	if (a->source == STEADY_NONE || b->source == STEADY_NONE)
		return false;
	if (a->has_names != b->has_names || (a->has_names && (a->names != b->names || a->named != b->named)))
		return false;
	if (a->has_files && b->has_files && (a->files != b->files || a->filed != b->filed))
		return false;
	if (a->has_statm && b->has_statm && memcmp(a->statm, b->statm, sizeof(a->statm)) != 0)
		return false;
	if (a->source == STEADY_FILES || b->source == STEADY_FILES) {
		/* one read no whole list: the file mappings and statm stand for
		 * it, and both must have them */
		if (!a->has_files || !b->has_files || !a->has_statm || !b->has_statm)
			return false;
	} else if (a->source != b->source || a->fingerprint != b->fingerprint || a->mappings != b->mappings) {
		return false;
	}
	return a->first == b->first && a->last == b->last && memcmp(a->kb, b->kb, sizeof(a->kb)) == 0;
}
