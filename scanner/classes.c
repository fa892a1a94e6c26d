/* The registry of the classes of memory: one row per class, everything the
 * tree needs to name and draw it.  Indexed by the enum and sized by its
 * count, so a class without a row is a row of NULLs and zeros, which
 * test-classes reports. */
#include "classes.h"

#include <string.h>

#include "macro.h"

struct class_row {
	const char *key;
	const char *label;
	char glyph;
	enum class_term_colour term;
	const char *html;
};

/* Glyphs are the key's initial where that is free, else a letter of its
 * name.  The HTML colours are told apart under the common colour
 * blindnesses where it matters most: the classes that are usually largest
 * (malloc, python, other, mapped files) are far apart. */
static const struct class_row classes[_CLASS_MAX] = {
	[CLASS_IMAGES] = { "images", "Program and library images", 'i', CLASS_TERM_WHITE, "#8c6d31" },
	[CLASS_MAPPED_FILES] = { "mapped_files", "Memory-mapped data files", 'f', CLASS_TERM_CYAN, "#6baed6" },
	[CLASS_SHARED] = { "shared", "Shared memory (shm, memfd, SysV, shared anonymous)", 's', CLASS_TERM_MAGENTA,
			   "#9e9ac8" },
	[CLASS_MALLOC] = { "malloc", "C heap (malloc: glibc, jemalloc, mimalloc, tcmalloc, PartitionAlloc)", 'm',
			   CLASS_TERM_RED, "#e6550d" },
	[CLASS_STACKS] = { "stacks", "Thread stacks", 't', CLASS_TERM_YELLOW, "#bcbd22" },
	[CLASS_PYTHON] = { "python", "Python objects (pymalloc arenas)", 'p', CLASS_TERM_GREEN, "#3182bd" },
	[CLASS_OPENBLAS] = { "openblas", "OpenBLAS thread buffers", 'b', CLASS_TERM_BLUE, "#e7969c" },
	[CLASS_MMGP_RAM] = { "mmgp_ram", "Reserving RAM allocator (64 GiB reservations)", 'r', CLASS_TERM_MAGENTA,
			     "#17becf" },
	[CLASS_JIT] = { "jit", "Generated code (JIT, writable and executable)", 'j', CLASS_TERM_YELLOW, "#d62728" },
	[CLASS_RUNTIME_HEAP] = { "runtime_heap", "Managed runtime heap (JVM, Go, V8)", 'h', CLASS_TERM_GREEN,
				 "#31a354" },
	[CLASS_PINNED_CUDA] = { "pinned_cuda", "CUDA pinned host memory", 'c', CLASS_TERM_CYAN, "#7b4173" },
	[CLASS_GPU_DRIVER] = { "gpu_driver", "GPU driver buffers and device mappings", 'd', CLASS_TERM_BLUE,
				"#ce6dbd" },
	[CLASS_CUDA_UVM] = { "cuda_uvm", "CUDA managed (unified) memory", 'u', CLASS_TERM_RED, "#a55194" },
	[CLASS_NAMED] = { "named", "Anonymous memory the program named", 'n', CLASS_TERM_CYAN, "#fdae6b" },
	[CLASS_OTHER] = { "other", "Other anonymous memory (no known shape or header)", 'o', CLASS_TERM_BLUE,
			  "#969696" },
};

const char *class_key(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].key : "?";
}

const char *class_label(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].label : "?";
}

char class_glyph(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].glyph : '?';
}

enum class_term_colour class_term_colour(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].term : CLASS_TERM_WHITE;
}

const char *class_html_colour(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].html : "#000000";
}

/* Keys classes had before: a class renamed keeps its former key here for
 * the files saved with it, and gets a migration for the rows stored with
 * it (schema/migrations/). */
static const struct {
	const char *key;
	enum class_id cls;
} former_keys[] = {
	{ "cuda_driver", CLASS_GPU_DRIVER }, /* until schema 10 (010-gpu-driver-class.sql) */
};

int class_from_saved_key(const char *key)
{
	int c = class_from_key(key);
	for (size_t i = 0; c < 0 && key && i < ELEMENTSOF(former_keys); i++)
		if (strcmp(former_keys[i].key, key) == 0)
			c = (int)former_keys[i].cls;
	return c;
}

int class_from_key(const char *key)
{
	for (int c = 0; c < _CLASS_MAX; c++)
		if (key && classes[c].key && strcmp(classes[c].key, key) == 0)
			return c;
	return -1;
}
