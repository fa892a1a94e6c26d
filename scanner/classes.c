/* Keys and labels of the classes of memory. */
#include "classes.h"

#include <string.h>

static const struct {
	const char *key, *label;
} classes[_CLASS_MAX] = {
	[CLASS_IMAGES] = { "images", "Program and library images" },
	[CLASS_MAPPED_FILES] = { "mapped_files", "Memory-mapped data files" },
	[CLASS_SHARED] = { "shared", "Shared memory (shm, memfd, SysV, shared anonymous)" },
	[CLASS_MALLOC] = { "malloc", "C heap (malloc: glibc, jemalloc, mimalloc, tcmalloc, PartitionAlloc)" },
	[CLASS_STACKS] = { "stacks", "Thread stacks" },
	[CLASS_PYTHON] = { "python", "Python objects (pymalloc arenas)" },
	[CLASS_OPENBLAS] = { "openblas", "OpenBLAS thread buffers" },
	[CLASS_MMGP_RAM] = { "mmgp_ram", "Reserving RAM allocator (64 GiB reservations)" },
	[CLASS_JIT] = { "jit", "Generated code (JIT, writable and executable)" },
	[CLASS_RUNTIME_HEAP] = { "runtime_heap", "Managed runtime heap (JVM, Go, V8)" },
	[CLASS_PINNED_CUDA] = { "pinned_cuda", "CUDA pinned host memory" },
	[CLASS_CUDA_DRIVER] = { "cuda_driver", "GPU driver buffers and device mappings" },
	[CLASS_CUDA_UVM] = { "cuda_uvm", "CUDA managed (unified) memory" },
	[CLASS_NAMED] = { "named", "Anonymous memory the program named" },
	[CLASS_OTHER] = { "other", "Other anonymous memory (no known shape or header)" },
};

const char *class_key(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].key : "?";
}

const char *class_label(enum class_id c)
{
	return (unsigned)c < _CLASS_MAX ? classes[c].label : "?";
}

int class_from_key(const char *key)
{
	for (int c = 0; c < _CLASS_MAX; c++)
		if (strcmp(classes[c].key, key) == 0)
			return c;
	return -1;
}
