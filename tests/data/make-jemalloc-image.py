#!/usr/bin/python3
"""Writes a small jemalloc 5.3.0 process laid out by hand, as jemalloc lays
out its structures (include/jemalloc/internal/rtree.h, edata.h, bitmap.h,
src/base.c of jemalloc 5.3.0, on x86-64: 48-bit addresses, 4 KiB pages,
16-byte quantum): its smaps and the memory image a census of it would read.

  tests/data/memimage/synthetic-jemalloc.smaps, .status, .img
      libjemalloc mapped as Debian 12 maps it, its version string in a file
      page of its read-only data, the root of its extent map in its .bss;
      a base block whose header describes it, holding the map's one leaf
      and the extents' records; then the extents: a slab of 32-byte regions
      and one of 48-byte regions (three pages, its inner page in the map
      too), a large extent of 16 KiB with its cache-oblivious page, a dirty
      extent, a retained one (no memory), and a cleared word of the map.
      tests/unit/test-heap-jemalloc.c checks the walk's figures against
      those printed below (EXPECTED).
  tests/data/fuzz/heap/jemalloc*.img
      seeds of tests/fuzz/fuzz-heap.c: the image above, and the same with a
      record of a wild size, a word of the map naming a record out of
      memory, two extents at one address, a root that points at itself,
      and a slab whose bitmap disagrees with its count of free regions.

    tests/data/make-jemalloc-image.py        # rewrites the files
"""
from handmade import PAGE, Memory, region, smaps as in_order, status, write_capture, write_seed

MiB = 1 << 20

LIB = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
LIB_INODE = 14884869
LIB_BASE = 0x7F0000000000
RODATA = LIB_BASE + 0xAF000
VERSION = b"5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"
DATA = LIB_BASE + 0xCD000     # .data: one file page
BSS = DATA + 0x1000           # the rest of .bss: anonymous
BSS_END = LIB_BASE + 0x2ED000
ROOT = BSS + 0x1040           # rtree_t.root[2^18]: 2 MiB
BASE = 0x7F003F800000         # a base block, 4 MiB, 2 MiB-aligned
BASE_SIZE = 4 * MiB
LEAF = BASE + 0xC0            # the map's leaf: 2^18 words (base_alloc, CACHELINE)
RECORDS = BASE + 0x200100     # edata_t, 128 bytes each (base_alloc_edata)
EXT = 0x7F0040000000          # the extents: the first page of a GiB
EXT_END = EXT + 0x20000

NSIZES = 232                  # SC_NSIZES with a 16-byte quantum
ACTIVE, DIRTY, MUZZY, RETAINED = 0, 1, 2, 3


def e_bits(state, szind, slab=False, nfree=0, arena=0):
    """edata_t.e_bits: arena 0-11, slab 12, committed 13, state 17-19,
    szind 20-27, nfree 28-37."""
    return arena | (int(slab) << 12) | (1 << 13) | (state << 17) | (szind << 20) | (nfree << 28)


def leaf_word(record, state, szind, slab=False):
    """A leaf's word (RTREE_LEAF_COMPACT): the size class above the 48
    address bits, the record's address, the state at bit 2, slab bit 0."""
    return (szind << 48) | record | (state << 2) | int(slab)


# the extents: (name, address, size, state, size class, slab, regions, free regions, address offset)
EXTENTS = [
    ("s1", EXT, PAGE, ACTIVE, 2, True, 128, 100, 0),            # 32-byte regions, 28 in use
    ("s2", EXT + 0x1000, 3 * PAGE, ACTIVE, 3, True, 256, 56, 0),  # 48-byte regions, 200 in use
    ("l1", EXT + 0x4000, 0x5000, ACTIVE, 36, False, 0, 0, 0x40),  # 16 KiB, and a page for placement
    ("d1", EXT + 0x9000, 3 * PAGE, DIRTY, NSIZES, False, 0, 0, 0),
    ("r1", EXT + 0xC000, 0x10000, RETAINED, NSIZES, False, 0, 0, 0),
]
RESIDENT = ["s1", "s2", "l1", "d1"]


def build(variant=None):
    mem = Memory()
    mem.write(RODATA + 0x990, VERSION + b"\0")
    mem.write(RODATA + 0x900, b"<jemalloc>: \0")
    mem.u64(DATA + 0x10, LIB_BASE + 0x1234)  # a pointer of .data, not the root
    # the root's word for the extents' GiB: the leaf
    root_word = ROOT + 8 * (EXT >> 30)
    mem.u64(root_word, root_word & ~7 if variant == "root-self" else LEAF)
    # the base block: base_block_t { size, next, edata_t of its unused tail }
    mem.u64(BASE, BASE_SIZE)
    mem.u64(BASE + 8, 0)
    mem.u64(BASE + 16, 0xFFF | (1 << 13))
    mem.u64(BASE + 24, RECORDS + 128 * len(EXTENTS))
    mem.u64(BASE + 32, BASE + BASE_SIZE - (RECORDS + 128 * len(EXTENTS)))
    for k, (name, addr, size, state, szind, slab, nregs, nfree, offset) in enumerate(EXTENTS):
        rec = RECORDS + 128 * k
        if variant == "overlap" and name == "d1":
            addr = EXT + 0x4000
        if variant == "bitmap" and name == "s2":
            nfree += 1
        mem.u64(rec, e_bits(state, szind, slab, nfree))
        mem.u64(rec + 8, addr + offset)
        wild = variant == "wild-size" and name == "l1"
        mem.u64(rec + 16, (0x7FFFFFFFF000 if wild else size) | 5)  # e_size_esn
        mem.u64(rec + 32, 7)                                       # e_sn
        if slab:
            # a set bit for each free region: the first ones are in use
            used = nregs - (nfree - 1 if variant == "bitmap" and name == "s2" else nfree)
            for g in range((nregs + 63) // 64):
                word = 0
                for bit in range(64):
                    i = g * 64 + bit
                    if used <= i < nregs:
                        word |= 1 << bit
                mem.u64(rec + 64 + 8 * g, word)
        # its pages in the map: the first and the last, every page of a slab
        pages = range(addr, addr + size, PAGE) if slab else sorted({addr, addr + size - PAGE})
        for p in pages:
            target = 0x100000000080 if variant == "record-out" and name == "l1" else rec
            mem.u64(LEAF + 8 * ((p - EXT) >> 12), leaf_word(target, state, szind, slab))
    # a word cleared when an extent merged: no record, the class past the last
    mem.u64(LEAF + 8 * ((EXT + 0x1C000 - EXT) >> 12), NSIZES << 48)
    return mem


def image(mem):
    states = {RODATA: "file"}
    lines = ["ramwatch-memory-image 1"]
    resident = sorted(set(mem.pages) | {p for name, addr, size, *_ in EXTENTS if name in RESIDENT
                                        for p in range(addr, addr + size, PAGE)})
    for page in resident:
        lines.append(f"{states.get(page, 'resident')} {page:x} {page + PAGE:x}")
    # the extents' own bytes are never read: only the structures are held
    for page in sorted(mem.pages):
        lines.append(f"data {page:x} {mem.pages[page].hex()}")
    return "\n".join(lines) + "\n"


def smaps(mem):
    def resident_in(start, end):
        return PAGE * sum(1 for p in mem.pages if start <= p < end)
    ext_rss = PAGE * sum(size // PAGE for name, _, size, *_ in EXTENTS if name in RESIDENT)
    return in_order([
        region(0x400000, 0x401000, "r-xp", path="/usr/bin/synthetic-jemalloc", rss=PAGE, inode=1001),
        region(BASE, BASE + BASE_SIZE, "rw-p", rss=resident_in(BASE, BASE + BASE_SIZE)),
        region(EXT, EXT_END, "rw-p", rss=ext_rss),
        region(LIB_BASE, LIB_BASE + 0x9000, "r--p", 0, LIB, inode=LIB_INODE),
        region(LIB_BASE + 0x9000, RODATA, "r-xp", 0x9000, LIB, inode=LIB_INODE),
        region(RODATA, LIB_BASE + 0xC7000, "r--p", 0xAF000, LIB, rss=PAGE, inode=LIB_INODE),
        region(LIB_BASE + 0xC7000, DATA, "r--p", 0xC6000, LIB, inode=LIB_INODE),
        region(DATA, BSS, "rw-p", 0xCC000, LIB, rss=PAGE, anon=PAGE, inode=LIB_INODE),
        region(BSS, BSS_END, "rw-p", rss=resident_in(BSS, BSS_END)),
        region(0x7FFC00000000, 0x7FFC00021000, "rw-p", path="[stack]", rss=2 * PAGE),
    ])


# What a walk of the image must say of the malloc class: the slabs' regions
# in use, the large extent's 16 KiB; free, the slabs' free regions, the
# large extent's page, the dirty extent (returnable, three whole pages);
# the base block's pages are jemalloc's metadata, overhead.
EXPECTED = {
    "in_use": 28 * 32 + 200 * 48 + 16384,
    "free": (PAGE - 28 * 32) + (3 * PAGE - 200 * 48) + PAGE + 3 * PAGE,
    "returnable": 3 * PAGE,
}

STATUS = status("synthetic-jemalloc", 4343, vm_kb=12000, rss_anon_kb=80, rss_file_kb=8, threads=1)


def main():
    mem = build()
    write_capture("synthetic-jemalloc", smaps(mem), STATUS, image(mem))
    write_seed("jemalloc", image(mem))
    for variant in ("wild-size", "record-out", "overlap", "root-self", "bitmap"):
        write_seed(f"jemalloc-{variant}", image(build(variant)))
    for k, v in EXPECTED.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
