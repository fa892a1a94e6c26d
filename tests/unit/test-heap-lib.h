/* Helpers of the tests of evidence and of the heap walkers: memory images
 * written as text, a saved capture (tests/data/memimage/NAME.smaps,
 * .status and .img) read again, either classified with its evidence
 * applied for a walker to read or taken as a whole census, and what a
 * class's figures must add up to. */
#pragma once

#include "testlib.h"

#include <inttypes.h>

#include "census.h"
#include "classes.h"
#include "evidence.h"
#include "heap-walk.h"
#include "limits.h"
#include "memimage.h"
#include "scan.h"

/* ------------------------------------------------------------ images */

/* An image built as text. */
struct image {
	struct text t;
	FILE *f;
};

static inline void image_open(struct image *i)
{
	i->f = text_open(&i->t);
	fprintf(i->f, "ramwatch-memory-image 1\n");
}

static inline void image_pages(struct image *i, const char *state, uint64_t start, uint64_t end)
{
	fprintf(i->f, "%s %" PRIx64 " %" PRIx64 "\n", state, start, end);
}

static inline void image_bytes(struct image *i, uint64_t addr, const uint8_t *b, size_t n)
{
	fprintf(i->f, "data %" PRIx64 " ", addr);
	for (size_t k = 0; k < n; k++)
		fprintf(i->f, "%02x", b[k]);
	fputc('\n', i->f);
}

/* ------------------------------------------------------------ a capture */

/* tests/data/memimage/NAME.EXT (free()). */
static inline char *capture_path(const char *name, const char *ext)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s.%s", fixture("memimage"), name, ext) > 0);
	return p;
}

/* The census of capture NAME taken again with o, its memory image the
 * file at image (NULL: the capture's own).  Fails the test if it is
 * refused. */
static inline struct census *capture_census(const char *name, const char *image, struct scan_options *o)
{
	/* first: image may be fixture()'s buffer, which capture_path reuses */
	char *memory = image ? strdup(image) : capture_path(name, "img");
	char *smaps = capture_path(name, "smaps"), *status = capture_path(name, "status");
	struct error err = { 0 };
	struct census *c = NULL;

	o->memory_image = memory;
	if (scan_smaps_file(smaps, status, o, &c, &err) < 0)
		fail_msg("%s: %s", name, err.message);
	o->memory_image = NULL;
	free(smaps);
	free(status);
	free(memory);
	return c;
}

/* A capture's regions, classified and their evidence read, as a walker
 * gets them: in the source src, the limits those of a census, and each
 * class's private bytes. */
struct capture {
	struct parsed p;
	struct memimage *img;
	struct memsource src;
	struct strpool *pool;
	struct heap_limits limits;
	struct heap_walk_input in;
	uint64_t class_private[_CLASS_MAX];
};

/* Capture NAME with the memory image tests/data/IMAGE (NULL: the
 * capture's own). */
static inline void capture_open_image(struct capture *c, const char *name, const char *image)
{
	size_t len;
	char msg[192] = "";
	struct evidence_result res;
	char *path = capture_path(name, "smaps");

	memset(c, 0, sizeof(*c));
	char *smaps = slurp(path, &len);
	free(path);
	c->p = classify_text(smaps, NULL);
	free(smaps);
	assert_int_equal(c->p.error, 0);
	path = image ? strdup(fixture(image)) : capture_path(name, "img");
	char *text = slurp(path, &len);
	free(path);
	assert_int_equal(memimage_parse(text, len, &c->img, msg, sizeof(msg)), 0);
	free(text);
	memimage_source(c->img, &c->src);
	c->src.max_probes = RW_EVIDENCE_READS_MAX;
	c->pool = strpool_new();
	assert_int_equal(evidence_apply(&c->src, &c->p.r, &c->p.n, RW_REGIONS_MAX, c->pool, &res), 0);
	c->src.max_probes = UINT64_MAX;
	for (size_t i = 0; i < c->p.n; i++)
		c->class_private[c->p.r[i].cls] += region_private(&c->p.r[i]);
	c->limits = (struct heap_limits){ .max_bytes = RW_HEAP_READ_MAX, .retries = RW_HEAP_RETRIES };
	c->in = (struct heap_walk_input){ .src = &c->src, .regions = c->p.r, .n_regions = c->p.n, .limits = &c->limits };
}

static inline void capture_open(struct capture *c, const char *name)
{
	capture_open_image(c, name, NULL);
}

static inline void capture_close(struct capture *c)
{
	parsed_free(&c->p);
	memsource_close(&c->src);
	memimage_free(c->img);
	strpool_free(c->pool);
}

/* The figures of class cls after walk w of the capture. */
static inline struct heap_figures capture_figures(const struct capture *c, const struct heap_walk *w, enum class_id cls)
{
	struct heap_figures f[_CLASS_MAX];
	heap_figures_compute(w, 1, c->p.r, c->p.n, c->class_private, f);
	return f[cls];
}

/* ------------------------------------------------------------ figures */

/* What a user checks first: in use, free, overhead and unknown make the
 * class's private bytes, and returnable is some of free. */
static inline void assert_adds_up(const struct heap_figures *f, uint64_t private_bytes)
{
	assert_true(f->known);
	assert_int_equal(f->in_use + f->free + f->overhead + f->unknown, private_bytes);
	assert_true(f->returnable <= f->free);
}

/* The same of class cls in a census. */
static inline void assert_class_adds_up(const struct census *c, enum class_id cls)
{
	const struct census_totals *k = &c->classes[cls];
	assert_int_equal(k->in_use + k->free_kept + k->overhead + k->unknown, k->private);
	assert_true(k->returnable <= k->free_kept);
}
