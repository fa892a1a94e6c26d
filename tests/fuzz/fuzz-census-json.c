/* libFuzzer target: the census JSON reader behind `ramwatch summary FILE`
 * and `ramwatch diff BEFORE AFTER`.  Saved censuses are files people send
 * each other, so every byte of one is input.  The fuzzer's input is one
 * file, or two cut at the first NUL byte (JSON text holds none): each is
 * read with census_load_file, as the commands read them, and what is
 * read is rendered (text, Markdown, every region) and compared, as diff
 * does, into /dev/null.  A census read back must also survive its own
 * round trip: census_to_json's output must read again, to the same JSON.
 * Nothing may crash, leak or read out of bounds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "census-json.h"
#include "census.h"
#include "render-census.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}

/* Reads data as a census file: a memfd named by its /proc path, so that
 * the reader opens and reads it as it reads a user's file. */
static struct census *load(const uint8_t *data, size_t size)
{
	struct error err = { 0 };
	char path[64];
	struct census *c = NULL;
	int fd = memfd_create("census", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (census_load_file(path, &c, &err) < 0)
		c = NULL;
	close(fd);
	return c;
}

/* What was read writes out as JSON that reads again to the same census:
 * summary and diff of a file and of its copy say the same. */
static void round_trip(const struct census *c)
{
	json_t *j = census_to_json(c, true), *again = NULL;
	struct census *back = NULL;
	struct error err = { 0 };
	if (!j)
		return;
	if (census_from_json(j, &back, &err) < 0) {
		fprintf(stderr, "a census read back does not read again: %s\n", err.message);
		abort();
	}
	again = census_to_json(back, true);
	if (again && !json_equal(j, again)) {
		char *a = json_dumps(j, JSON_SORT_KEYS), *b = json_dumps(again, JSON_SORT_KEYS);
		fprintf(stderr, "a census read back reads again otherwise:\n%s\n%s\n", a ? a : "?", b ? b : "?");
		abort();
	}
	json_decref(again);
	census_free(back);
	json_decref(j);
}

static void render(const struct census *c)
{
	struct render_options text = { .format = RENDER_TEXT, .top = 10 };
	struct render_options md = { .format = RENDER_MARKDOWN, .top = 3, .regions = true, .gpu_asked = true };
	(void)render_census(c, &text, sink);
	(void)render_census(c, &md, sink);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *cut = memchr(data, '\0', size);
	size_t first = cut ? (size_t)(cut - data) : size;
	struct census *a = load(data, first);
	struct census *b = cut ? load(cut + 1, size - first - 1) : NULL;
	struct render_options o = { .format = RENDER_TEXT, .top = 10 };

	if (a) {
		round_trip(a);
		render(a);
	}
	if (b) {
		round_trip(b);
		render(b);
	}
	if (a)
		(void)render_diff(a, b ? b : a, &o, sink);
	if (a && b) {
		o.format = RENDER_MARKDOWN;
		(void)render_diff(b, a, &o, sink);
	}
	census_free(a);
	census_free(b);
	fflush(sink);
	return 0;
}
