/* The few mmap(2) calls the shared code makes (large region arrays in
 * scanner/region.c), over VirtualAlloc on Windows (common/windows/posix.c).
 * Only private anonymous read-write mappings are supported. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_PRIVATE 0x02
#define MAP_ANONYMOUS 0x20
#define MAP_NORESERVE 0x4000
#define MAP_FAILED ((void *)-1)
#define MADV_HUGEPAGE 14

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t offset);
int munmap(void *addr, size_t len);
int madvise(void *addr, size_t len, int advice);
