/* Reading a stretch of a process's memory for a heap walk: the pages
 * resident read (memsource_read, never a fault), those absent or zero as
 * zeros (anonymous memory never touched reads as zeros), and a stretch
 * with a page swapped out or a file's page not read at all.  For walkers
 * that read structures of a few pages at known addresses (a mimalloc
 * segment's header, tcmalloc's globals in its library's .bss). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "memsource.h"

/* Reads len bytes at addr into buf, adding what was read to *bytes.
 * Returns 0, -EAGAIN when a resident page could not be read (it moved, or
 * the source's read limit was reached), -EIO for a page swapped out or
 * not anonymous (reading it would bring it in), -ENOMEM, or the source's
 * error (-ESRCH: the process is gone). */
int heap_read(struct memsource *src, uint64_t addr, size_t len, uint8_t *buf, uint64_t *bytes);
