/* The classes of memory: the vocabulary every census, table, database row
 * and metric uses (doc/design.md#classes).  The order is the order tables
 * list them in when their sizes tie. */
#pragma once

enum class_id {
	CLASS_IMAGES,
	CLASS_MAPPED_FILES,
	CLASS_SHARED,
	CLASS_MALLOC,
	CLASS_STACKS,
	CLASS_PYTHON,
	CLASS_OPENBLAS,
	CLASS_MMGP_RAM,
	CLASS_JIT,
	CLASS_RUNTIME_HEAP,
	CLASS_PINNED_CUDA,
	CLASS_CUDA_DRIVER,
	CLASS_CUDA_UVM,
	CLASS_NAMED,
	CLASS_OTHER,
	_CLASS_MAX
};

/* "malloc", "mapped_files", ...: stable keys, used in JSON, SQL and metrics. */
const char *class_key(enum class_id c);
/* A label for people: "C heap (glibc malloc)". */
const char *class_label(enum class_id c);
/* Returns the class with that key, or -1. */
int class_from_key(const char *key);
