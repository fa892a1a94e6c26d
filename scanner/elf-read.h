/* What a census reads of a library's ELF file: where a dynamic symbol's
 * bytes lie, so an allocator's version can be read from its own code
 * (mimalloc's mi_version() returns it as a constant), and the build-id
 * that names one build exactly (tcmalloc's layouts are keyed by it).  Pure: it is fed
 * the file's bytes and never opens anything.  ELF64, little-endian (the
 * layouts the heap walks know are those of x86-64 and aarch64); every
 * offset and size is checked against the file before it is used. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Finds the dynamic symbol name (in .dynsym) of the len bytes of an ELF
 * file and the bytes it covers in the file: their offset in *ret_offset,
 * their count (st_size, within its section and the file) in *ret_size.
 * Returns 0, -EBADMSG for a file that is not ELF64 little-endian or whose
 * headers are out of bounds, -ENOENT when no such symbol is defined. */
int elf_dynamic_symbol(const uint8_t *b, size_t len, const char *name, size_t *ret_offset, size_t *ret_size);

/* The GNU build-id (NT_GNU_BUILD_ID in a SHT_NOTE section) of the len
 * bytes of an ELF file, at most size bytes of it into ret, its length in
 * *ret_len.  Returns 0, -EBADMSG as above, -ENOENT without one. */
int elf_build_id(const uint8_t *b, size_t len, uint8_t *ret, size_t size, size_t *ret_len);
