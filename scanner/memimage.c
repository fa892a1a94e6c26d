/* Memory images: the parser (pure: fed bytes), the source that answers
 * from an image, and the recorder that writes one while a live source
 * answers.  The format is in memimage.h. */
#include "memimage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "macro.h"
#include "util.h"

#define PAGE 4096ull
#define MAGIC "ramwatch-memory-image 1"

struct chunk {
	uint64_t addr;
	uint32_t len;
	uint8_t *bytes;
};

struct memimage {
	struct page_runs runs; /* sorted, not overlapping */
	struct chunk *chunks;  /* sorted by address */
	size_t n_chunks, allocated;
};

struct memimage *memimage_free(struct memimage *img)
{
	if (!img)
		return NULL;
	page_runs_done(&img->runs);
	for (size_t i = 0; i < img->n_chunks; i++)
		free(img->chunks[i].bytes);
	free(img->chunks);
	free(img);
	return NULL;
}

DEFINE_CLEANUP(struct memimage *, memimage_free)

static int fail(char *msg, size_t size, size_t line, const char *fmt, ...) _printf_(4, 5);

static int fail(char *msg, size_t size, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(msg, size, "line %zu: ", line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < size)
		vsnprintf(msg + n, size - (size_t)n, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* The next word of [*p, end), NUL-free, or NULL at the end of the line. */
static const char *next_word(const char **p, const char *end, size_t *len)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	const char *w = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	*len = (size_t)(s - w);
	return *len ? w : NULL;
}

static int run_cmp(const void *a, const void *b)
{
	const struct page_run *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct chunk *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add_chunk(struct memimage *img, uint64_t addr, const uint8_t *bytes, size_t len)
{
	if (img->n_chunks == img->allocated) {
		size_t want = img->allocated ? img->allocated * 2 : 64;
		struct chunk *c = realloc(img->chunks, want * sizeof(*c));
		if (!c)
			return -ENOMEM;
		img->chunks = c;
		img->allocated = want;
	}
	uint8_t *copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, bytes, len);
	img->chunks[img->n_chunks++] = (struct chunk){ addr, (uint32_t)len, copy };
	return 0;
}

/* One "data ADDR HEX..." line's bytes (hex digits in pairs, groups split
 * by blanks) into buf. */
static int parse_hex(const char *p, const char *end, uint8_t *buf, size_t size, size_t *ret)
{
	size_t n = 0;
	int high = -1;
	for (; p < end; p++) {
		if (*p == ' ' || *p == '\t') {
			if (high >= 0)
				return -EBADMSG; /* a digit split from its pair */
			continue;
		}
		int v = digit_value(*p, 16);
		if (v < 0)
			return -EBADMSG;
		if (high < 0) {
			high = v;
			continue;
		}
		if (n == size)
			return -E2BIG;
		buf[n++] = (uint8_t)(high << 4 | v);
		high = -1;
	}
	if (high >= 0)
		return -EBADMSG;
	*ret = n;
	return 0;
}

static int parse_line(struct memimage *img, const char *p, const char *end, size_t line, char *msg, size_t size)
{
	uint8_t bytes[RW_MEMIMAGE_DATA_MAX];
	size_t len, n;
	uint64_t a, b;
	const char *w = next_word(&p, end, &len);
	int r;

	if (!w || w[0] == '#')
		return 0;
	char kind[16];
	if (len >= sizeof(kind))
		return fail(msg, size, line, "unknown record \"%.*s\"", 16, w);
	memcpy(kind, w, len);
	kind[len] = '\0';

	const char *aw = next_word(&p, end, &len);
	if (!aw || parse_u64_n(aw, len, 16, &a) < 0)
		return fail(msg, size, line, "expected an address in hex after \"%s\"", kind);

	if (streq(kind, "data")) {
		r = parse_hex(p, end, bytes, sizeof(bytes), &n);
		if (r == -E2BIG)
			return fail(msg, size, line, "more than %u bytes in one data record", RW_MEMIMAGE_DATA_MAX);
		if (r < 0 || n == 0)
			return fail(msg, size, line, "expected bytes in hex after the address");
		if (a > UINT64_MAX - n)
			return fail(msg, size, line, "data past the end of the address space");
		return add_chunk(img, a, bytes, n);
	}

	int state = page_state_from_name(kind);
	if (state <= PAGE_ABSENT)
		return fail(msg, size, line, "unknown record \"%s\" (data, resident, zero, file or swapped)", kind);
	const char *bw = next_word(&p, end, &len);
	if (!bw || parse_u64_n(bw, len, 16, &b) < 0)
		return fail(msg, size, line, "expected an end address in hex");
	if (next_word(&p, end, &len))
		return fail(msg, size, line, "unexpected text after the range");
	if ((a | b) & (PAGE - 1) || b <= a)
		return fail(msg, size, line, "a range of pages must be page-aligned and not empty");
	if (img->runs.n == img->runs.allocated) {
		size_t want = img->runs.allocated ? img->runs.allocated * 2 : 64;
		struct page_run *v = realloc(img->runs.v, want * sizeof(*v));
		if (!v)
			return -ENOMEM;
		img->runs.v = v;
		img->runs.allocated = want;
	}
	/* appended as given; sorted and checked once all are read */
	img->runs.v[img->runs.n++] = (struct page_run){ a, b, (enum page_state)state };
	return 0;
}

int memimage_parse(const char *buf, size_t len, struct memimage **ret, char *msg, size_t msg_size)
{
	_cleanup_(memimage_freep) struct memimage *img = calloc(1, sizeof(*img));
	const char *p = buf, *end = buf + len;
	size_t line = 0;
	int r;

	if (!img)
		return -ENOMEM;
	if (len > RW_MEMIMAGE_MAX) {
		snprintf(msg, msg_size, "larger than %u MiB", RW_MEMIMAGE_MAX >> 20);
		return -E2BIG;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		line++;
		if (memchr(p, '\0', (size_t)(eol - p)))
			return fail(msg, msg_size, line, "a NUL byte");
		if (line == 1) {
			if ((size_t)(eol - p) != strlen(MAGIC) || memcmp(p, MAGIC, strlen(MAGIC)) != 0)
				return fail(msg, msg_size, line, "not a memory image (it starts with \"%s\")", MAGIC);
		} else if ((r = parse_line(img, p, eol, line, msg, msg_size)) < 0)
			return r;
		p = nl ? nl + 1 : end;
	}
	if (line == 0)
		return fail(msg, msg_size, 1, "empty: not a memory image");

	qsort_safe(img->runs.v, img->runs.n, sizeof(*img->runs.v), run_cmp);
	for (size_t i = 1; i < img->runs.n; i++)
		if (img->runs.v[i].start < img->runs.v[i - 1].end) {
			snprintf(msg, msg_size, "pages %" PRIx64 "-%" PRIx64 " are given twice", img->runs.v[i].start,
				 img->runs.v[i - 1].end);
			return -EBADMSG;
		}
	qsort_safe(img->chunks, img->n_chunks, sizeof(*img->chunks), chunk_cmp);
	/* bytes lie in one page, never one the image says is swapped or the
	 * zero page (a page of no run may hold bytes: a region smaps shows
	 * wholly resident is read without asking the page tables, so none
	 * were recorded; a file's page mapped may, as libc's version string
	 * read by the glibc heap walk) */
	for (size_t i = 0; i < img->n_chunks; i++) {
		const struct chunk *c = &img->chunks[i];
		uint64_t last = c->addr + c->len - 1;
		enum page_state st = page_runs_state(&img->runs, c->addr);
		if ((c->addr & ~(PAGE - 1)) != (last & ~(PAGE - 1)) || (st != PAGE_RESIDENT && st != PAGE_ABSENT && st != PAGE_FILE)) {
			snprintf(msg, msg_size, "data at %" PRIx64 " is not within one resident page", c->addr);
			return -EBADMSG;
		}
	}
	*ret = TAKE_PTR(img);
	return 0;
}

static int image_residency(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			   struct page_runs *runs, uint64_t *ret_end)
{
	const struct memimage *img = self;
	uint64_t found = 0;

	/* as the kernel answers: a window stops once max_pages pages in use
	 * were found, so the questions a pass asks are those it asks live */
	*ret_end = end;
	for (size_t i = 0; i < img->runs.n; i++) {
		const struct page_run *x = &img->runs.v[i];
		if (present_only && x->state == PAGE_SWAPPED)
			continue;
		uint64_t a = x->start > start ? x->start : start;
		uint64_t b = x->end < end ? x->end : end;
		if (a >= b)
			continue;
		if (max_pages && (b - a) / PAGE >= max_pages - found) {
			b = a + (max_pages - found) * PAGE;
			*ret_end = b;
		}
		int r = page_runs_add(runs, a, b, x->state);
		if (r < 0)
			return r;
		found += (b - a) / PAGE;
		if (max_pages && found >= max_pages)
			break;
	}
	return 0;
}

/* The chunk holding [addr, addr + len), or NULL. */
static const struct chunk *find_chunk(const struct memimage *img, uint64_t addr, uint32_t len)
{
	size_t lo = 0, hi = img->n_chunks;
	while (lo < hi) { /* the first chunk starting above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (img->chunks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* chunks lie within one page: those that can hold addr start at
	 * most a page below it */
	for (size_t i = lo; i-- > 0 && img->chunks[i].addr + PAGE > addr;) {
		const struct chunk *c = &img->chunks[i];
		if (c->addr <= addr && addr + len <= c->addr + c->len)
			return c;
	}
	return NULL;
}

static int image_read(void *self, struct mem_probe *probes, size_t n)
{
	const struct memimage *img = self;
	for (size_t i = 0; i < n; i++) {
		if (probes[i].len == 0)
			continue;
		const struct chunk *c = find_chunk(img, probes[i].addr, probes[i].len);
		if (!c)
			continue;
		memcpy(probes[i].buf, c->bytes + (probes[i].addr - c->addr), probes[i].len);
		probes[i].got = probes[i].len;
	}
	return 0;
}

static int image_present(void *self, const uint64_t *pages, size_t n, bool *in_memory)
{
	const struct memimage *img = self;
	for (size_t i = 0; i < n; i++)
		in_memory[i] = page_runs_state(&img->runs, pages[i]) == PAGE_RESIDENT;
	return 0;
}

static const struct memsource_ops image_ops = {
	.residency = image_residency,
	.present = image_present,
	.read = image_read,
};

void memimage_source(struct memimage *img, struct memsource *ret)
{
	*ret = (struct memsource){ .ops = &image_ops, .self = img, .max_probes = UINT64_MAX };
	snprintf(ret->name, sizeof(ret->name), "memory image");
}

/* ------------------------------------------------------------- recorder */

struct span {
	uint64_t start, end;
};

struct recorder {
	struct memsource inner;
	FILE *out;
	/* the ranges already written, sorted and merged: a range the pass
	 * asks about twice (a window, then a part of a split region) is
	 * written once, as it was first seen */
	struct span *written;
	size_t n_written, allocated;
};

/* Marks [a, b) written.  Returns 0 or -ENOMEM. */
static int mark_written(struct recorder *rec, uint64_t a, uint64_t b)
{
	size_t i = 0;
	while (i < rec->n_written && rec->written[i].end < a)
		i++;
	size_t j = i;
	while (j < rec->n_written && rec->written[j].start <= b) {
		if (rec->written[j].start < a)
			a = rec->written[j].start;
		if (rec->written[j].end > b)
			b = rec->written[j].end;
		j++;
	}
	if (i == j) { /* a span of its own, inserted at i */
		if (rec->n_written == rec->allocated) {
			size_t want = rec->allocated ? rec->allocated * 2 : 16;
			struct span *v = realloc(rec->written, want * sizeof(*v));
			if (!v)
				return -ENOMEM;
			rec->written = v;
			rec->allocated = want;
		}
		memmove(rec->written + i + 1, rec->written + i, (rec->n_written - i) * sizeof(*rec->written));
		rec->n_written++;
	} else if (j > i + 1) { /* spans i..j-1 become one */
		memmove(rec->written + i + 1, rec->written + j, (rec->n_written - j) * sizeof(*rec->written));
		rec->n_written -= j - i - 1;
	}
	rec->written[i] = (struct span){ a, b };
	return 0;
}

/* Writes the part of run x within [a, b) that was not written before. */
static void write_run(struct recorder *rec, const struct page_run *x, uint64_t a, uint64_t b)
{
	if (x->start > a)
		a = x->start;
	if (x->end < b)
		b = x->end;
	for (size_t i = 0; i < rec->n_written && a < b; i++) {
		const struct span *w = &rec->written[i];
		if (w->end <= a)
			continue;
		if (w->start >= b)
			break;
		if (w->start > a)
			fprintf(rec->out, "%s %" PRIx64 " %" PRIx64 "\n", page_state_name(x->state), a, w->start);
		a = w->end;
	}
	if (a < b)
		fprintf(rec->out, "%s %" PRIx64 " %" PRIx64 "\n", page_state_name(x->state), a, b);
}

static int rec_residency(void *self, uint64_t start, uint64_t end, uint64_t max_pages, bool present_only,
			 struct page_runs *runs, uint64_t *ret_end)
{
	struct recorder *rec = self;
	size_t before = runs->n;
	/* an image records what the page tables hold, swapped pages too, so
	 * a later census from it may count them */
	int r = rec->inner.ops->residency(rec->inner.self, start, end, max_pages, false, runs, ret_end);
	if (r < 0)
		return r;
	uint64_t done = *ret_end > start && *ret_end <= end ? *ret_end : end;
	/* a run merged into the one before it is written from start on */
	for (size_t i = before ? before - 1 : 0; i < runs->n; i++)
		write_run(rec, &runs->v[i], start, done);
	r = mark_written(rec, start, done);
	if (present_only) { /* what the caller asked for: swapped pages taken out */
		size_t k = before;
		for (size_t i = before; i < runs->n; i++)
			if (runs->v[i].state != PAGE_SWAPPED)
				runs->v[k++] = runs->v[i];
		runs->n = k;
	}
	return r;
}

/* Pages asked about one by one are written as the page tables showed
 * them; those not in memory are left out, as absent (an image tells
 * swapped pages only where a range was asked about). */
static int rec_present(void *self, const uint64_t *pages, size_t n, bool *in_memory)
{
	struct recorder *rec = self;
	if (!rec->inner.ops->present)
		return -EOPNOTSUPP;
	int r = rec->inner.ops->present(rec->inner.self, pages, n, in_memory);
	for (size_t i = 0; i < n && r == 0; i++) {
		if (in_memory[i]) {
			struct page_run x = { pages[i], pages[i] + PAGE, PAGE_RESIDENT };
			write_run(rec, &x, x.start, x.end);
		}
		r = mark_written(rec, pages[i], pages[i] + PAGE);
	}
	return r;
}

static int rec_read(void *self, struct mem_probe *probes, size_t n)
{
	struct recorder *rec = self;
	int r = rec->inner.ops->read(rec->inner.self, probes, n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (!probes[i].got)
			continue;
		fprintf(rec->out, "data %" PRIx64 " ", probes[i].addr);
		for (uint32_t k = 0; k < probes[i].got; k++)
			fprintf(rec->out, "%02x%s", probes[i].buf[k], k % 8 == 7 && k + 1 < probes[i].got ? " " : "");
		fputc('\n', rec->out);
	}
	return 0;
}

static void rec_close(void *self)
{
	struct recorder *rec = self;
	memsource_close(&rec->inner);
	free(rec->written);
	free(rec);
}

static const struct memsource_ops recorder_ops = {
	.residency = rec_residency,
	.present = rec_present,
	.read = rec_read,
	.close = rec_close,
};

int memimage_record(struct memsource *inner, FILE *out, struct memsource *ret)
{
	struct recorder *rec = calloc(1, sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	rec->inner = *inner;
	rec->out = out;
	fprintf(out, "%s\n", MAGIC);
	*ret = (struct memsource){ .ops = &recorder_ops, .self = rec, .max_probes = inner->max_probes };
	snprintf(ret->name, sizeof(ret->name), "%s", inner->name);
	return 0;
}
