/* The mark of ramwatch mark, given to the allocation tracer of the process
 * when it runs under ramwatch trace record. */
#pragma once

#include <stddef.h>

/* Writes name to the mark file of pid's trace.  Returns 1 with the file's
 * path in ret_path, 0 when the process is not traced (or its environment
 * cannot be read: another user's), or a negative errno. */
int mark_trace(long pid, const char *name, char *ret_path, size_t size);
