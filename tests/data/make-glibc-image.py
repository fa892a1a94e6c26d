#!/usr/bin/python3
"""Writes a small glibc 2.36 process laid out by hand, byte for byte, as
glibc's malloc lays out its structures (malloc/malloc.c, malloc/arena.c of
glibc-2.36): its smaps and the memory image a census of it would read.

  tests/data/memimage/synthetic-glibc.smaps, .status, .img
      libc mapped as Debian 12 maps it, its banner in a file page of its
      read-only data, main_arena and mp_ in its data; [heap] with the
      thread cache's chunk, blocks in use, a free chunk in the unsorted
      bin, two chunks in fastbin 0 (safe-linking), the top chunk; a thread
      arena's heap with its heap_info, malloc_state, a fastbin chunk, a
      free chunk and its top chunk; a block served by mmap.
      tests/unit/test-heap-glibc.c checks the walk's figures against those
      printed below (EXPECTED).
  tests/data/fuzz/heap/*.img
      the seeds of tests/fuzz/fuzz-heap.c: the image above, and the same
      with a fastbin that loops, a chunk of a wild size, a fastbin link out
      of its arena's heaps, a ring of arenas that loops, a heap_info whose
      prev names itself.

    tests/data/make-glibc-image.py        # rewrites the files
"""
from handmade import PAGE, Memory, region, smaps as in_order, status, write_capture, write_seed

LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
LIBC_BASE = 0x7F0000000000
RODATA = LIBC_BASE + 0x17C000
DATA = LIBC_BASE + 0x1D3000
MAIN = DATA + 0x100           # main_arena
MP = DATA + 0xA00             # mp_
HEAP = 0x555500000000         # [heap]
HEAP_END = HEAP + 0x21000
T = 0x7F0004000000            # a thread arena's heap
T_ARENA = T + 0x30
T_END = T + 0x2000
MMAP = 0x7F0010000000         # a block served by mmap
MMAP_SIZE = 0x100000

# malloc_state (the same 2.27 to 2.42)
MS_FASTBINS, MS_TOP, MS_BINS, MS_NEXT, MS_SYSTEM = 16, 96, 112, 2160, 2184
MS_SIZE = 2200


class Heap(Memory):
    def chunk(self, addr, size, flags, prev_size=0):
        self.u64(addr, prev_size)
        self.u64(addr + 8, size | flags)


def protect(pos, ptr):
    """malloc.c PROTECT_PTR: safe-linking, 2.32 on."""
    return (pos >> 12) ^ ptr


def arena(mem, a, top, system_mem, nxt, flags, fastbins, unsorted=None):
    mem.u32(a + 4, flags)
    mem.u32(a + 8, 1 if any(fastbins) else 0)
    for i, head in enumerate(fastbins):
        mem.u64(a + MS_FASTBINS + 8 * i, head)
    mem.u64(a + MS_TOP, top)
    for i in range(127):
        self_ = a + MS_BINS + 16 * i - 16
        fd = bk = self_
        if i == 0 and unsorted:
            fd = bk = unsorted
        mem.u64(a + MS_BINS + 16 * i, fd)
        mem.u64(a + MS_BINS + 16 * i + 8, bk)
    mem.u64(a + MS_NEXT, nxt)
    mem.u64(a + MS_NEXT + 16, 1)  # attached_threads
    mem.u64(a + MS_SYSTEM, system_mem)
    mem.u64(a + MS_SYSTEM + 8, system_mem)


def build(variant=None):
    mem = Heap()
    mem.write(RODATA + 0x100, b"GNU C Library (Debian GLIBC 2.36-9+deb12u14) stable release version 2.36.\n")

    # [heap]: chunks from sbrk_base to the top chunk
    tcache, c1, c2, c3, f1, c4, f2, c5, top = (HEAP, HEAP + 0x290, HEAP + 0x390, HEAP + 0x790, HEAP + 0x7C0,
                                               HEAP + 0x7E0, HEAP + 0x820, HEAP + 0x840, HEAP + 0x1140)
    mem.chunk(tcache, 0x290, 1)
    mem.chunk(c1, 0x7FFFFFFF0000 if variant == "wild-size" else 0x100, 1)
    mem.chunk(c2, 0x400, 1)                       # free: in the unsorted bin
    mem.u64(c2 + 16, MAIN + 96)
    mem.u64(c2 + 24, MAIN + 96)
    mem.chunk(c3, 0x30, 0, prev_size=0x400)       # PREV_INUSE clear: c2 is free
    mem.chunk(f1, 0x20, 1)                        # fastbin 0, its last
    mem.u64(f1 + 16, protect(f1 + 16, f2 if variant == "fastbin-loop" else 0))
    mem.chunk(c4, 0x40, 1)
    mem.chunk(f2, 0x20, 1)                        # fastbin 0, its head
    mem.u64(f2 + 16, protect(f2 + 16, f1))
    mem.chunk(c5, 0x900, 1)
    mem.chunk(top, HEAP_END - top, 1)
    arena(mem, MAIN, top, HEAP_END - HEAP, T_ARENA, 0, [f2] + [0] * 9, unsorted=c2)

    # mp_ (2.35 on: thp_pagesize, hp_pagesize, hp_flags before the counts)
    for off, v in ((0, 0x20000), (8, 0x20000), (16, 0x20000), (24, 8), (96, HEAP), (104, 64), (112, 1032),
                   (120, 7)):
        mem.u64(MP + off, v)
    for off, v in ((60, 1), (64, 65536), (68, 1)):
        mem.u32(MP + off, v)
    mem.u64(MP + 80, MMAP_SIZE)
    mem.u64(MP + 88, MMAP_SIZE)

    # a thread arena: heap_info { ar_ptr, prev, size, mprotect_size, pagesize }, its malloc_state, chunks
    mem.u64(T, T_ARENA)
    mem.u64(T + 8, T if variant == "heap-prev-self" else 0)
    mem.u64(T + 16, T_END - T)
    mem.u64(T + 24, T_END - T)
    mem.u64(T + 32, PAGE)
    first = T + 0x8D0
    t_tcache, d1, g1, d2, d3, t_top = first, first + 0x290, first + 0x390, first + 0x3C0, first + 0x5C0, first + 0x610
    mem.chunk(t_tcache, 0x290, 1 | 4)
    mem.chunk(d1, 0x100, 1 | 4)
    mem.chunk(g1, 0x30, 1 | 4)                    # fastbin 1
    mem.u64(g1 + 16, protect(g1 + 16, 0x7F0020000000 if variant == "chain-out" else 0))
    mem.chunk(d2, 0x200, 1)                       # free, in the unsorted bin
    mem.u64(d2 + 16, T_ARENA + 96)
    mem.u64(d2 + 24, T_ARENA + 96)
    mem.chunk(d3, 0x50, 4, prev_size=0x200)
    mem.chunk(t_top, T_END - t_top, 1)
    mem.write(T + PAGE, b"\x5a" * 64)           # the top chunk's second page, touched once
    arena(mem, T_ARENA, t_top, T_END - T, T_ARENA if variant == "ring-loop" else MAIN, 2, [0, g1] + [0] * 8,
          unsorted=d2)

    # a block served by mmap: prev_size 0, its mapping's length | IS_MMAPPED
    mem.chunk(MMAP, MMAP_SIZE, 2)
    mem.write(MMAP + 16, b"\x77" * 48)
    return mem


def image(mem):
    states = {RODATA: "file"}
    lines = ["ramwatch-memory-image 1"]
    for page in sorted(mem.pages):
        if page == MMAP:
            continue
        lines.append(f"{states.get(page, 'resident')} {page:x} {page + PAGE:x}")
    lines.append(f"resident {MMAP:x} {MMAP + PAGE:x}")
    for page in sorted(mem.pages):
        data = mem.pages[page] if page != MMAP else mem.pages[page][:64]
        lines.append(f"data {page:x} {data.hex()}")
    return "\n".join(lines) + "\n"


def smaps():
    libc = 332835
    return in_order([
        region(0x400000, 0x401000, "r-xp", path="/usr/bin/synthetic-glibc", rss=PAGE, inode=1000),
        region(HEAP, HEAP_END, "rw-p", path="[heap]", rss=2 * PAGE),
        region(T, T_END, "rw-p", rss=2 * PAGE, flags="rd wr mr mw me nr ac"),
        region(T_END, T + 0x4000000, "---p", flags="mr mw me nr"),
        region(LIBC_BASE, LIBC_BASE + 0x26000, "r--p", 0, LIBC, inode=libc),
        region(LIBC_BASE + 0x26000, RODATA, "r-xp", 0x26000, LIBC, inode=libc),
        region(RODATA, LIBC_BASE + 0x1CF000, "r--p", 0x17C000, LIBC, rss=PAGE, inode=libc),
        region(LIBC_BASE + 0x1CF000, DATA, "r--p", 0x1CF000, LIBC, inode=libc),
        region(DATA, DATA + 0x2000, "rw-p", 0x1D3000, LIBC, rss=PAGE, anon=PAGE, inode=libc),
        region(DATA + 0x2000, DATA + 0xF000, "rw-p"),
        region(MMAP, MMAP + MMAP_SIZE, "rw-p", rss=PAGE),
        region(0x7FFC00000000, 0x7FFC00021000, "rw-p", path="[stack]", rss=2 * PAGE),
    ])


# What a walk of the image must say of the malloc class (private 20 KiB:
# [heap]'s two pages, the thread heap's two, the mmapped block's first).
EXPECTED = {
    "in_use": 0x290 + 0x100 + 0x30 + 0x40 + 0x900 + 0x290 + 0x100 + 0x50 + PAGE,
    "free": 0x400 + 0x20 + 0x20 + (0x2000 - 0x1140) + 0x30 + 0x200 + (0x2000 - 0x8D0 - 0x610),
    "overhead": 0x8D0,
    "returnable": PAGE,
}

STATUS = status("synthetic-glibc", 4242, vm_kb=68000, rss_anon_kb=32, rss_file_kb=8, threads=2)


def main():
    write_capture("synthetic-glibc", smaps(), STATUS, image(build()))
    write_seed("glibc", image(build()))
    for variant in ("fastbin-loop", "wild-size", "chain-out", "ring-loop", "heap-prev-self"):
        write_seed(f"glibc-{variant}", image(build(variant)))
    for k, v in EXPECTED.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
