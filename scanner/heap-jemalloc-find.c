/* What the jemalloc walker walks (heap-jemalloc-internal.h): jemalloc's
 * image in the process (libjemalloc.so, or a program with jemalloc
 * inside), its version string, and the root of its extent map, found in
 * the image's data by its shape.  Also how the walker reads: in batches
 * of resident pages, within the walk's limits. */
#include "heap-jemalloc-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util.h"

/* bytes of a page kept to search with the next: a version string is
 * shorter */
#define VERSION_TAIL 128u

int jemalloc_fail(struct jemalloc_walk *j, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
	return code;
}

/* ------------------------------------------------------------ regions */

static bool anon_rw(const struct region *r)
{
	return (!r->path || startswith(r->path, "[anon:")) && !region_shared(r) && region_readable(r) &&
	       region_writable(r);
}

/* The index of the region holding addr, or n. */
static size_t region_index(const struct heap_walk_input *in, uint64_t addr)
{
	size_t i = regions_first_after(in->regions, in->n_regions, addr);
	return i < in->n_regions && in->regions[i].start <= addr ? i : in->n_regions;
}

/* The end of the stretch of contiguous anonymous read-write private
 * regions holding addr (where jemalloc's metadata can be), or 0. */
uint64_t jemalloc_anon_end(const struct heap_walk_input *in, uint64_t addr)
{
	size_t i = region_index(in, addr);
	if (i == in->n_regions || !anon_rw(&in->regions[i]))
		return 0;
	while (i + 1 < in->n_regions && in->regions[i + 1].start == in->regions[i].end && anon_rw(&in->regions[i + 1]))
		i++;
	return in->regions[i].end;
}

/* Whether some anonymous region meets [start, end). */
static bool anon_meets(const struct heap_walk_input *in, uint64_t start, uint64_t end)
{
	for (size_t i = regions_first_after(in->regions, in->n_regions, start);
	     i < in->n_regions && in->regions[i].start < end; i++)
		if (anon_rw(&in->regions[i]))
			return true;
	return false;
}

const char *jemalloc_file_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Finds jemalloc's image: libjemalloc.so, or the program itself where
 * jemalloc's base blocks were read and no library serves malloc.  Returns
 * whether there is one. */
bool jemalloc_find_image(struct jemalloc_walk *j)
{
	const struct heap_walk_input *in = j->in;
	bool evidence = false;

	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (r->path && startswith(jemalloc_file_name(r->path), "libjemalloc.so")) {
			j->image = r;
			return true;
		}
		evidence |= jemalloc_rule(r);
	}
	if (!evidence)
		return false;
	/* the program: named, or from a saved capture the first file mapped */
	for (size_t i = 0; i < in->n_regions; i++) {
		const char *path = in->regions[i].path;
		if (path && (in->exe ? streq(path, in->exe) : path[0] == '/')) {
			j->image = &in->regions[i];
			return true;
		}
	}
	return false;
}

static bool same_file(const struct region *a, const struct region *b)
{
	return a->path && b->path && a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && streq(a->path, b->path);
}

/* ------------------------------------------------------------ reading */

static int check_budget(struct jemalloc_walk *j, uint64_t bytes)
{
	if (j->max_bytes && j->w->bytes_read + bytes > j->max_bytes) {
		char b[FORMAT_BYTES_MAX];
		return jemalloc_fail(j, WALK_NO, "the read limit (%s) was reached", format_bytes(b, j->max_bytes));
	}
	if (j->in->limits && j->in->limits->deadline_us && now_monotonic_us() > j->in->limits->deadline_us)
		return jemalloc_fail(j, WALK_NO, "out of time (the census's budget)");
	return WALK_OK;
}

/* Reads a batch of probes, counted against the limit.  Returns WALK_OK,
 * WALK_NO (a limit) or -errno. */
int jemalloc_read_probes(struct jemalloc_walk *j, struct mem_probe *probes, size_t n)
{
	uint64_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += probes[i].len;
	int r = check_budget(j, bytes);
	if (r != WALK_OK)
		return r;
	r = memsource_read(j->in->src, probes, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		j->w->bytes_read += probes[i].got;
	if (j->in->src->exhausted)
		return jemalloc_fail(j, WALK_NO, "the census's read limit was reached");
	return WALK_OK;
}

int jemalloc_each_page(struct jemalloc_walk *j, uint64_t start, uint64_t end, unsigned batch, bool file_pages,
		       bool *swapped, jemalloc_page_fn fn, void *arg)
{
	_cleanup_(page_runs_done) struct page_runs runs = { 0 };
	struct mem_probe probes[JEMALLOC_BATCH_PAGES];
	int r;

	*swapped = false;
	start &= ~(JEMALLOC_PAGE - 1);
	end = (end + JEMALLOC_PAGE - 1) & ~(JEMALLOC_PAGE - 1);
	if (!j->batch && !(j->batch = malloc(JEMALLOC_BATCH_PAGES * JEMALLOC_PAGE)))
		return -ENOMEM;
	if ((r = memsource_residency(j->in->src, start, end, &runs)) < 0)
		return r;
	for (size_t i = 0; i < runs.n; i++) {
		/* a file's page the page tables map is in memory as much as
		 * the process's own: reading it faults nothing in (the
		 * classic pagemap tells them apart, PAGEMAP_SCAN does not) */
		if (file_pages && runs.v[i].state == PAGE_FILE)
			runs.v[i].state = PAGE_RESIDENT;
	}
	for (size_t i = 0; i < runs.n; i++) {
		uint64_t from = runs.v[i].start > start ? runs.v[i].start : start;
		uint64_t to = runs.v[i].end < end ? runs.v[i].end : end;
		if (runs.v[i].state == PAGE_SWAPPED && to > from)
			*swapped = true;
		if (runs.v[i].state != PAGE_RESIDENT)
			continue;
		while (from < to) {
			size_t n = 0;
			for (; n < batch && n < JEMALLOC_BATCH_PAGES && from < to; n++, from += JEMALLOC_PAGE)
				probes[n] = (struct mem_probe){
					.addr = from, .len = JEMALLOC_PAGE, .buf = j->batch + n * JEMALLOC_PAGE, .runs = &runs
				};
			if ((r = jemalloc_read_probes(j, probes, n)) != WALK_OK)
				return r;
			for (size_t k = 0; k < n; k++) {
				if (probes[k].got != JEMALLOC_PAGE)
					return jemalloc_fail(j, WALK_MOVED, "a page of jemalloc's structures at 0x%" PRIx64
							     " went out of memory while read", probes[k].addr);
				if ((r = fn(j, probes[k].addr, j->batch + k * JEMALLOC_PAGE, arg)) != WALK_OK)
					return r;
			}
		}
	}
	return WALK_OK;
}

/* ------------------------------------------------------------ the version */

/* The version string may cross from one page to the next: each page is
 * searched after the last bytes of the one before it, when it was read. */
struct search {
	uint8_t buf[VERSION_TAIL + JEMALLOC_PAGE];
	uint64_t next; /* the address after the last page searched */
	size_t tail;
	bool found;
};

static int search_page(struct jemalloc_walk *j, uint64_t addr, const uint8_t *page, void *arg)
{
	struct search *s = arg;
	if (addr != s->next)
		s->tail = 0;
	memcpy(s->buf + s->tail, page, JEMALLOC_PAGE);
	if (jemalloc_version_find(s->buf, s->tail + JEMALLOC_PAGE, &j->ver)) {
		s->found = true;
		return WALK_NO; /* enough */
	}
	memmove(s->buf, s->buf + s->tail + JEMALLOC_PAGE - VERSION_TAIL, VERSION_TAIL);
	s->tail = VERSION_TAIL;
	s->next = addr + JEMALLOC_PAGE;
	return WALK_OK;
}

/* Searches the resident pages of the image's read-only mappings. */
static int version_in_memory(struct jemalloc_walk *j, bool *found)
{
	const struct heap_walk_input *in = j->in;
	_cleanup_free_ struct search *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	/* the read-only data after the code first (.rodata, where the string
	 * is), a page at a time: it is found in the first page or so */
	for (int pass = 0; pass < 2 && !s->found; pass++) {
		bool after_code = false;
		for (size_t i = 0; i < in->n_regions && !s->found; i++) {
			const struct region *m = &in->regions[i];
			bool swapped;
			if (!same_file(m, j->image))
				continue;
			after_code |= m->perms[2] == 'x';
			if (m->perms[0] != 'r' || m->perms[1] == 'w' || m->perms[2] == 'x' || after_code != (pass == 0))
				continue;
			int r = jemalloc_each_page(j, m->start, m->end, 1, true, &swapped, search_page, s);
			if (r < 0 || (r == WALK_NO && !s->found))
				return r;
		}
	}
	*found = s->found;
	return WALK_OK;
}

/* Reads the version from the image's file as the process sees it
 * (/proc/PID/root), where it is the very file the process maps (same
 * device and inode): a kernel whose page tables do not tell file pages
 * apart from the process's own lets no read-only page be read. */
static bool version_in_file(struct jemalloc_walk *j)
{
	const struct heap_walk_input *in = j->in;
	char path[4200];
	struct stat st;
	bool found = false;

	if (in->pid <= 0 || !j->image->path || j->image->path[0] != '/')
		return false;
	if (snprintf(path, sizeof(path), "/proc/%d/root%s", in->pid, j->image->path) >= (int)sizeof(path))
		return false;
	_cleanup_(closep) int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != j->image->inode ||
	    major(st.st_dev) != j->image->dev_major || minor(st.st_dev) != j->image->dev_minor)
		return false;
	_cleanup_free_ uint8_t *buf = malloc(1 << 20);
	if (!buf)
		return false;
	uint64_t searched = 0;
	for (size_t i = 0; i < in->n_regions && !found; i++) {
		const struct region *m = &in->regions[i];
		if (!same_file(m, j->image) || m->perms[0] != 'r' || m->perms[1] == 'w' || m->perms[2] == 'x')
			continue;
		/* in pieces of 1 MiB that overlap by more than the string's
		 * length; the file's bytes count against the walk's limit as
		 * the process's would */
		for (uint64_t off = 0; off < region_size(m) && !found && (!j->max_bytes || searched < j->max_bytes);) {
			uint64_t want = region_size(m) - off < (1 << 20) ? region_size(m) - off : (1 << 20);
			ssize_t got = pread(fd, buf, want, (off_t)(m->offset + off));
			if (got <= 0)
				break;
			found = jemalloc_version_find(buf, (size_t)got, &j->ver);
			searched += (uint64_t)got;
			if ((uint64_t)got < want || (uint64_t)got <= 128)
				break;
			off += (uint64_t)got - 128;
		}
	}
	return found;
}

int jemalloc_find_version(struct jemalloc_walk *j, bool *found)
{
	int r = version_in_memory(j, found);
	if (r == WALK_OK && !*found)
		*found = version_in_file(j);
	return r;
}

/* ------------------------------------------------------------ the root */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

size_t jemalloc_unique(uint64_t *v, size_t n)
{
	size_t k = 0;
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* A word that may be a root's pointer to a leaf. */
static bool leaf_like(const struct jemalloc_walk *j, uint64_t v)
{
	if (v == 0 || v % j->lay->leaf_align || v + jemalloc_leaf_bytes(j->lay) < v)
		return false;
	uint64_t end = jemalloc_anon_end(j->in, v);
	return end && v + jemalloc_leaf_bytes(j->lay) <= end;
}

/* The 1 GiB chunks of the address space where jemalloc's extents are:
 * those of the regions the evidence pass gave to its extents, or with
 * none, of every anonymous region. */
static int find_chunks(struct jemalloc_walk *j)
{
	const struct heap_walk_input *in = j->in;
	size_t n = 0, allocated = 0;
	uint64_t shift = j->lay->lg_page + j->lay->leaf_bits;

	for (int pass = 0; pass < 2 && n == 0; pass++)
		for (size_t i = 0; i < in->n_regions; i++) {
			const struct region *r = &in->regions[i];
			if (pass == 0 ? !(r->cls == CLASS_MALLOC && r->rule == RULE_JEMALLOC_EXTENTS) : !anon_rw(r))
				continue;
			for (uint64_t c = r->start >> shift; c <= (r->end - 1) >> shift; c++) {
				if (n >= (1u << j->lay->root_bits))
					break;
				if (array_grow((void **)&j->chunks, n, &allocated, sizeof(*j->chunks), 256) < 0)
					return -ENOMEM;
				j->chunks[n++] = c;
			}
		}
	j->n_chunks = jemalloc_unique(j->chunks, n);
	return 0;
}

/* The nonzero words of [start, end) among j->words: the first index and
 * the count. */
size_t jemalloc_words_from(const struct jemalloc_walk *j, uint64_t addr)
{
	size_t lo = 0, hi = j->n_words;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (j->words[mid].key < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether an array of root words at root has the root's shape: every
 * nonzero word in it a leaf in anonymous memory, for a chunk of address
 * space where the process maps memory. */
static bool root_shaped(const struct jemalloc_walk *j, uint64_t root)
{
	uint64_t shift = j->lay->lg_page + j->lay->leaf_bits, end = root + jemalloc_root_bytes(j->lay);
	size_t n = 0;
	for (size_t i = jemalloc_words_from(j, root); i < j->n_words && j->words[i].key < end; i++, n++) {
		uint64_t chunk = (j->words[i].key - root) / 8;
		if (!leaf_like(j, j->words[i].bits) || !anon_meets(j->in, chunk << shift, (chunk + 1) << shift))
			return false;
	}
	return n > 0;
}

/* The image's writable data and the anonymous mapping after it (the rest
 * of its .bss): where the root is. */
static void find_data(struct jemalloc_walk *j)
{
	const struct heap_walk_input *in = j->in;
	j->data_start = j->data_end = 0;
	for (size_t i = 0; i < in->n_regions; i++) {
		const struct region *r = &in->regions[i];
		if (same_file(r, j->image) && region_writable(r) && !region_shared(r)) {
			if (!j->data_start)
				j->data_start = r->start;
			j->data_end = r->end;
			if (i + 1 < in->n_regions && in->regions[i + 1].start == r->end && !in->regions[i + 1].path &&
			    anon_rw(&in->regions[i + 1]))
				j->data_end = in->regions[i + 1].end;
		}
	}
}

static int note_words(struct jemalloc_walk *j, uint64_t addr, const uint8_t *page, void *arg)
{
	size_t *allocated = arg;
	for (size_t k = 0; k < JEMALLOC_PAGE; k += 8) {
		uint64_t v = jemalloc_get64(page + k);
		if (!v)
			continue;
		if (array_grow((void **)&j->words, j->n_words, allocated, sizeof(*j->words), 256) < 0)
			return -ENOMEM;
		j->words[j->n_words++] = (struct entry){ addr + k, v };
	}
	return WALK_OK;
}

/* Reads the image's data and lists the places the root may be. */
int jemalloc_find_roots(struct jemalloc_walk *j)
{
	size_t allocated = 0, roots_allocated = 0;
	bool swapped;
	int r;

	find_data(j);
	if (!j->data_start)
		return jemalloc_fail(j, WALK_NO, "%s has no writable data mapped", jemalloc_file_name(j->image->path));
	if (j->data_end - j->data_start < jemalloc_root_bytes(j->lay))
		return jemalloc_fail(j, WALK_NO, "the data of %s is too small for the extent map of a build for %u-bit addresses "
			    "and %u KiB pages", jemalloc_file_name(j->image->path), j->lay->lg_vaddr, (1u << j->lay->lg_page) / 1024);
	if ((r = find_chunks(j)) < 0)
		return r;
	/* the data's nonzero words: most of its pages were never touched */
	r = jemalloc_each_page(j, j->data_start, j->data_end, JEMALLOC_BATCH_PAGES, false, &swapped, note_words,
			       &allocated);
	if (r != WALK_OK)
		return r;
	if (swapped)
		return jemalloc_fail(j, WALK_NO, "the data of %s is partly in swap", jemalloc_file_name(j->image->path));
	/* each leaf-like word, as the root's word for each chunk */
	for (size_t i = 0; i < j->n_words; i++) {
		if (!leaf_like(j, j->words[i].bits))
			continue;
		for (size_t c = 0; c < j->n_chunks; c++) {
			uint64_t root = j->words[i].key - 8 * j->chunks[c];
			if (j->words[i].key < 8 * j->chunks[c] || root < j->data_start ||
			    root + jemalloc_root_bytes(j->lay) > j->data_end || !root_shaped(j, root))
				continue;
			if (array_grow((void **)&j->roots, j->n_roots, &roots_allocated, sizeof(*j->roots), 256) < 0)
				return -ENOMEM;
			j->roots[j->n_roots++] = root;
		}
	}
	j->n_roots = jemalloc_unique(j->roots, j->n_roots);
	return WALK_OK;
}
