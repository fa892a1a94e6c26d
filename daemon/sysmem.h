/* The machine's memory, every StoreInterval and in status: the system row
 * of the store (struct store_system).  Each platform reads it its own way;
 * the daemon calls sysmem_read only.
 *
 * linux/sysmem.c reads /proc/meminfo and, where the kernel has PSI (Linux
 * 4.20+, CONFIG_PSI), /proc/pressure/memory, through the pure parsers
 * below.  windows/sysmem.c asks GlobalMemoryStatusEx and the performance
 * information (windows/win-sysmem.h), and has no pressure. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* Reads the machine's memory at now_ms into ret.  root_fd is Linux's proc
 * root (the daemon's, or a test's tree); an implementation that has none
 * ignores it.  Without pressure figures, have_pressure is false.  Returns 0
 * or a negative errno. */
int sysmem_read(int root_fd, int64_t now_ms, struct store_system *ret);

/* Linux's parsers (linux/sysmem.c), pure, so that tests feed them text. */

/* Fills mem_total, mem_available, swap_total, swap_free, committed_as and
 * commit_limit (bytes) of ret from the text of /proc/meminfo.  Returns 0, or
 * -EBADMSG when a wanted line is missing or not "<number> kB". */
int meminfo_parse(const char *text, size_t len, struct store_system *ret);

/* Fills the pressure fields of ret from /proc/pressure/memory ("some" and
 * "full" lines with avg10, avg60, avg300 and total in microseconds) and sets
 * have_pressure.  Returns 0 or -EBADMSG. */
int pressure_parse(const char *text, size_t len, struct store_system *ret);
