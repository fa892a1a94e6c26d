/* The machine's memory, every StoreInterval: /proc/meminfo and, where the
 * kernel has PSI (Linux 4.20+, CONFIG_PSI), /proc/pressure/memory.  The
 * parsers are pure; sysmem_read reads both files under a proc root. */
#pragma once

#include <stddef.h>

#include "store.h"

/* Fills mem_total, mem_available, swap_total, swap_free, committed_as and
 * commit_limit (bytes) of ret from the text of /proc/meminfo.  Returns 0, or
 * -EBADMSG when a wanted line is missing or not "<number> kB". */
int meminfo_parse(const char *text, size_t len, struct store_system *ret);

/* Fills the pressure fields of ret from /proc/pressure/memory ("some" and
 * "full" lines with avg10, avg60, avg300 and total in microseconds) and sets
 * have_pressure.  Returns 0 or -EBADMSG. */
int pressure_parse(const char *text, size_t len, struct store_system *ret);

/* Reads both under the proc root fd; a kernel without PSI leaves
 * have_pressure false.  Returns 0 or a negative errno. */
int sysmem_read(int root_fd, int64_t now_ms, struct store_system *ret);
