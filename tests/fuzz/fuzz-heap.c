/* libFuzzer target: the heap walkers on corrupted heaps.  The input is a
 * memory image (memimage.h); each row below is a walker and the process
 * whose regions it walks (a fixture's smaps), so the image stands for that
 * process's memory: chains that loop, sizes past any end, links out of
 * bounds, arenas and heaps that name each other.  For each row, as a census
 * does: the regions classified, evidence read from the image, then the
 * walker, within a small byte limit.  Nothing may crash, leak, loop, or
 * read out of bounds, a walker returns only what heap-walk.h allows, and
 * the figures of each class it describes add up to the class's private
 * bytes.  Seeds: tests/data/fuzz/heap (tests/data/make-glibc-image.py). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "evidence.h"
#include "fileio.h"
#include "heap-walkers.h"
#include "limits.h"
#include "memimage.h"
#include "smaps.h"
#include "strpool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One row a walker: the process its seeds stand for (under
 * RAMWATCH_TEST_DATA), and the walker. */
static const struct row {
	const char *smaps;
	int (*walk)(const struct heap_walk_input *in, struct heap_walk *w);
} rows[] = {
	{ "memimage/synthetic-glibc.smaps", heap_walk_glibc },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static struct loaded {
	struct region *r;
	size_t n;
} loaded[N_ROWS];
static struct strpool *pool;

static void load(void)
{
	const char *dir = getenv("RAMWATCH_TEST_DATA");
	char path[4096];

	pool = strpool_new();
	if (!pool)
		abort();
	for (size_t i = 0; i < N_ROWS; i++) {
		struct smaps_parser p;
		char *text = NULL;
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", rows[i].smaps);
		int fd = open_input(path);
		if (fd < 0 || read_full_fd(fd, RW_PROC_FILE_MAX * 16, &text, &len) < 0) {
			fprintf(stderr, "fuzz-heap: cannot read %s (run from the source tree, or set RAMWATCH_TEST_DATA)\n",
				path);
			abort();
		}
		close(fd);
		smaps_parser_init(&p, 1024, pool);
		if (smaps_parser_feed(&p, text, len) < 0 || smaps_parser_finish(&p) < 0)
			abort(); /* the fixture is valid */
		loaded[i].r = smaps_parser_take(&p, &loaded[i].n);
		smaps_parser_done(&p);
		free(text);
		if (classify_regions(loaded[i].r, loaded[i].n, NULL) < 0)
			abort();
	}
}

static void check_row(const struct row *row, const struct loaded *l, struct memimage *img)
{
	struct region *r = NULL;
	size_t n = l->n, allocated = 0;
	struct memsource src;
	struct evidence_result res;
	struct heap_walk w = { 0 };
	struct heap_figures f[_CLASS_MAX];
	uint64_t priv[_CLASS_MAX] = { 0 };

	while (allocated < n)
		if (regions_grow(&r, 0, &allocated, n) < 0)
			abort();
	memcpy(r, l->r, n * sizeof(*r));
	memimage_source(img, &src);
	src.max_probes = 4096;
	if (evidence_apply(&src, &r, &n, 256, pool, &res) < 0) {
		regions_free(r);
		return;
	}
	for (size_t i = 0; i < n; i++)
		priv[r[i].cls] += region_private(&r[i]);

	struct heap_limits limits = { .max_bytes = 1 << 20, .retries = 1 };
	struct heap_walk_input in = { .src = &src, .regions = r, .n_regions = n, .limits = &limits };
	src.max_probes = UINT64_MAX;
	int e = row->walk(&in, &w);
	if (e < 0 && e != -ENOMEM)
		abort(); /* an image never vanishes */
	if (e == 0) {
		if (w.bytes_read > limits.max_bytes)
			abort();
		heap_figures_compute(&w, 1, r, n, priv, f);
		for (int k = 0; k < _CLASS_MAX; k++) {
			if (!f[k].known)
				continue;
			if (f[k].in_use + f[k].free + f[k].overhead + f[k].unknown != priv[k] || f[k].returnable > f[k].free)
				abort();
		}
	}
	heap_walk_done(&w);
	regions_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memimage *img = NULL;
	char msg[192];

	if (!pool)
		load();
	if (memimage_parse((const char *)data, size, &img, msg, sizeof(msg)) < 0)
		return 0;
	for (size_t i = 0; i < N_ROWS; i++)
		check_row(&rows[i], &loaded[i], img);
	memimage_free(img);
	return 0;
}
