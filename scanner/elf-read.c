/* A dynamic symbol's bytes in an ELF file (elf-read.h).  The file is a
 * library some process maps: whoever can write it could make it anything,
 * so the headers are read as untrusted input. */
#include "elf-read.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

enum {
	EHDR_SIZE = 64,
	SHDR_SIZE = 64,
	SYM_SIZE = 24,
	SHT_NOTE = 7,
	SHT_NOBITS = 8,
	NT_GNU_BUILD_ID = 3,
	SHT_DYNSYM = 11,
	SHN_UNDEF = 0,
	SHN_LORESERVE = 0xff00,
};

static uint16_t u16_at(const uint8_t *b, size_t off)
{
	return (uint16_t)(b[off] | b[off + 1] << 8);
}

static uint32_t u32_at(const uint8_t *b, size_t off)
{
	return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
}

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	return (uint64_t)u32_at(b, off) | (uint64_t)u32_at(b, off + 4) << 32;
}

struct section {
	uint32_t type, link;
	uint64_t addr, offset, size, entsize;
};

/* Whether [off, off + size) lies within len bytes. */
static bool within(uint64_t off, uint64_t size, size_t len)
{
	return off <= len && size <= len - off;
}

static int section_at(const uint8_t *b, size_t len, uint64_t shoff, uint16_t shnum, uint32_t i, struct section *s)
{
	if (i >= shnum)
		return -EBADMSG;
	const uint8_t *h = b + shoff + (uint64_t)i * SHDR_SIZE;
	*s = (struct section){
		.type = u32_at(h, 4),
		.addr = u64_at(h, 16),
		.offset = u64_at(h, 24),
		.size = u64_at(h, 32),
		.link = u32_at(h, 40),
		.entsize = u64_at(h, 56),
	};
	if (s->type != SHT_NOBITS && !within(s->offset, s->size, len))
		return -EBADMSG;
	return 0;
}

/* The ELF header's section table, checked: its offset and count. */
static int section_table(const uint8_t *b, size_t len, uint64_t *shoff, uint16_t *shnum)
{
	static const uint8_t ident[] = { 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* little-endian */ };
	if (len < EHDR_SIZE || memcmp(b, ident, sizeof(ident)) != 0)
		return -EBADMSG;
	*shoff = u64_at(b, 40);
	*shnum = u16_at(b, 60);
	if (u16_at(b, 58) != SHDR_SIZE || *shnum == 0 || !within(*shoff, (uint64_t)*shnum * SHDR_SIZE, len))
		return -EBADMSG;
	return 0;
}

int elf_dynamic_symbol(const uint8_t *b, size_t len, const char *name, size_t *ret_offset, size_t *ret_size)
{
	struct section dynsym, strtab, text;
	size_t name_len = strlen(name);
	uint64_t shoff;
	uint16_t shnum;

	if (section_table(b, len, &shoff, &shnum) < 0)
		return -EBADMSG;

	uint32_t i;
	for (i = 0; i < shnum; i++) {
		if (section_at(b, len, shoff, shnum, i, &dynsym) < 0)
			return -EBADMSG;
		if (dynsym.type == SHT_DYNSYM)
			break;
	}
	if (i == shnum)
		return -ENOENT;
	if (dynsym.entsize != SYM_SIZE || section_at(b, len, shoff, shnum, dynsym.link, &strtab) < 0 ||
	    strtab.type == SHT_NOBITS)
		return -EBADMSG;

	for (uint64_t k = 0; k < dynsym.size / SYM_SIZE; k++) {
		const uint8_t *sym = b + dynsym.offset + k * SYM_SIZE;
		uint32_t st_name = u32_at(sym, 0);
		uint16_t shndx = u16_at(sym, 6);
		if (st_name >= strtab.size || strtab.size - st_name <= name_len)
			continue;
		const char *s = (const char *)b + strtab.offset + st_name;
		if (memcmp(s, name, name_len) != 0 || s[name_len] != '\0')
			continue;
		if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
			continue; /* imported, or absolute: no bytes of its own here */
		if (section_at(b, len, shoff, shnum, shndx, &text) < 0 || text.type == SHT_NOBITS)
			return -EBADMSG;
		uint64_t value = u64_at(sym, 8), size = u64_at(sym, 16);
		if (value < text.addr || value - text.addr > text.size || size > text.size - (value - text.addr))
			return -EBADMSG;
		*ret_offset = (size_t)(text.offset + (value - text.addr));
		*ret_size = (size_t)size;
		return 0;
	}
	return -ENOENT;
}

int elf_build_id(const uint8_t *b, size_t len, uint8_t *ret, size_t size, size_t *ret_len)
{
	uint64_t shoff;
	uint16_t shnum;
	struct section note;

	if (section_table(b, len, &shoff, &shnum) < 0)
		return -EBADMSG;
	for (uint32_t i = 0; i < shnum; i++) {
		if (section_at(b, len, shoff, shnum, i, &note) < 0)
			return -EBADMSG;
		if (note.type != SHT_NOTE)
			continue;
		/* notes: namesz, descsz, type, then name and desc, each
		 * padded to 4 bytes */
		for (uint64_t at = 0; note.size - at >= 12;) {
			const uint8_t *n = b + note.offset + at;
			uint64_t namesz = u32_at(n, 0), descsz = u32_at(n, 4), type = u32_at(n, 8);
			uint64_t name_pad = (namesz + 3) & ~3ull, desc_pad = (descsz + 3) & ~3ull;
			if (name_pad > note.size - at - 12 || desc_pad > note.size - at - 12 - name_pad)
				return -EBADMSG;
			if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(n + 12, "GNU", 4) == 0) {
				if (descsz == 0 || descsz > size)
					return -EBADMSG;
				memcpy(ret, n + 12 + name_pad, descsz);
				*ret_len = (size_t)descsz;
				return 0;
			}
			at += 12 + name_pad + desc_pad;
		}
	}
	return -ENOENT;
}
