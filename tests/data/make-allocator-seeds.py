#!/usr/bin/python3
"""Writes the seeds of tests/fuzz/fuzz-heap.c for mimalloc's and tcmalloc's
heap walks and for the files the heap walks read besides memory.

  tests/data/fuzz/heap/mimalloc*.img
      memory images of the process of tests/data/memimage/c-mimalloc.smaps
      whose first segment is laid out by hand as mimalloc 2.0.9 lays out
      mi_segment_t and its slices (include/mimalloc-types.h, src/segment.c):
      a page of 64-byte blocks, a page of 8 KiB blocks none in use, a free
      run to the end.  Only the header's first page (the segment and its
      first slices) and its last (the free run's last slice) are given; the
      pages between are absent, as untouched memory is, and read as zeros.
      Beside the well-formed image, the same with a run of no slices (a
      loop), a block size past its page, a free list out of its page, a
      free run that does not point back at its start.
  tests/data/fuzz/heap/tcmalloc*.img
      memory images of the process of tests/data/memimage/c-tcmalloc.smaps
      whose libtcmalloc_minimal globals (gperftools 2.10, Debian 12's
      build) are laid out by hand: three size classes, their central free
      lists, the page heap's free lists and statistics, one thread cache in
      [heap] (whose start is the capture's, for evidence to confirm it).
      Beside it, the same with a thread cache list that loops, a central
      list holding more objects than its spans, a list head pointing into
      the globals.
  tests/data/fuzz/heap/elf-mi-version.so
      a minimal ELF64 file whose .dynsym names mi_version at the code
      "mov eax, 209; ret", as heap_mimalloc_version reads a library.
  (tests/data/hsperfdata/*.hsperf seed the hsperfdata parser: copied
  there by this script as hsperf-*.hsperf.)

    tests/data/make-allocator-seeds.py        # rewrites the files
"""
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "fuzz", "heap")
PAGE = 4096
SEG = 32 << 20
SLICE = 64 << 10
A = 0x22A0A000000  # the first segment of c-mimalloc.smaps
HEADER = 264 + 512 * 80


def u16(b, off, v):
    struct.pack_into("<H", b, off, v)


def u32(b, off, v):
    struct.pack_into("<I", b, off, v)


def u64(b, off, v):
    struct.pack_into("<Q", b, off, v)


def slice_at(i):
    return 264 + i * 80


def put_page(b, i, count, bsize, capacity, reserved, used):
    s = slice_at(i)
    u32(b, s, count)
    u32(b, s + 28, bsize)
    u16(b, s + 10, capacity)
    u16(b, s + 12, reserved)
    u32(b, s + 24, used)
    for k in range(1, min(count, 16)):
        u32(b, slice_at(i + k) + 4, k * 80)
        u32(b, slice_at(i + k) + 28, 1)
    if count > 1:
        u32(b, slice_at(i + count - 1) + 4, (count - 1) * 80)
        u32(b, slice_at(i + count - 1) + 28, 1)


def segment():
    b = bytearray(HEADER)
    b[10] = 1                      # mem_is_committed
    u64(b, 16, SEG)                # mem_alignment
    b[32] = 1                      # allow_decommit
    u64(b, 208, 2)                 # pages in use
    u64(b, 224, 512)               # segment_slices
    u64(b, 232, 1)                 # segment_info_slices
    u32(b, 240, 0)                 # kind: normal
    u64(b, 248, 512)               # slice_entries
    u64(b, 256, 0x7F20A8D96740)    # thread_id
    u32(b, slice_at(0), 1)
    u32(b, slice_at(0) + 28, SLICE)
    put_page(b, 1, 1, 64, 100, 1018, 40)
    u64(b, slice_at(1) + 16, A + SLICE + 384 + 50 * 64)  # free list
    put_page(b, 2, 8, 8192, 64, 64, 0)
    u32(b, slice_at(10), 502)      # a free run to the end
    u32(b, slice_at(511) + 4, 501 * 80)
    return b


def image(b):
    """The header's first page and its last, the pages between absent."""
    last = (HEADER - 1) // PAGE * PAGE
    lines = ["ramwatch-memory-image 1",
             f"resident {A:x} {A + PAGE:x}",
             f"resident {A + last:x} {A + last + PAGE:x}",
             f"data {A:x} {bytes(b[:PAGE]).hex()}",
             f"data {A + last:x} {bytes(b[last:HEADER]).hex()}"]
    return "\n".join(lines) + "\n"


def elf(code):
    b = bytearray(512)
    b[0:7] = b"\x7fELF\x02\x01\x01"
    text_off, text_addr, str_off, sym_off, sh_off = 64, 0x1000, 128, 160, 256
    u64(b, 40, sh_off)
    u16(b, 58, 64)
    u16(b, 60, 4)
    b[text_off:text_off + len(code)] = code
    dynstr = b"\0mi_version\0"
    b[str_off:str_off + len(dynstr)] = dynstr
    u32(b, sym_off + 24, 1)
    u16(b, sym_off + 24 + 6, 1)
    u64(b, sym_off + 24 + 8, text_addr)
    u64(b, sym_off + 24 + 16, len(code))
    sh = sh_off
    u32(b, sh + 64 + 4, 1)
    u64(b, sh + 64 + 16, text_addr)
    u64(b, sh + 64 + 24, text_off)
    u64(b, sh + 64 + 32, 64)
    u32(b, sh + 128 + 4, 3)
    u64(b, sh + 128 + 24, str_off)
    u64(b, sh + 128 + 32, len(dynstr))
    u32(b, sh + 192 + 4, 11)
    u64(b, sh + 192 + 24, sym_off)
    u64(b, sh + 192 + 32, 48)
    u32(b, sh + 192 + 40, 2)
    u64(b, sh + 192 + 56, 24)
    return bytes(b)


# c-tcmalloc.smaps: libtcmalloc_minimal loaded here, [heap] there
TC_BASE = 0x7F6B61A13000
TC_HEAP = 0x55E9CBC46000
TC_PAGEHEAP, TC_CENTRAL, TC_SIZEMAP, TC_HEAPS_COUNT = 0x2DDC0, 0x1B0F20, 0x1D6F20, 0x1D7FD0
TC_FREE_LISTS = 1572968
TC_THREAD = TC_HEAP + 0x43000


class Pages:
    """Bytes at addresses, written out as the resident pages holding them."""

    def __init__(self):
        self.pages = {}  # page: (its bytes, the first and last offset written)

    def put(self, addr, data):
        for i, b in enumerate(data):
            page, at = (addr + i) & ~(PAGE - 1), (addr + i) & (PAGE - 1)
            bytes_, lo, hi = self.pages.get(page, (bytearray(PAGE), PAGE, -1))
            bytes_[at] = b
            self.pages[page] = (bytes_, min(lo, at), max(hi, at))

    def image(self):
        """Each page resident, and its bytes from the first written to the
        last: what the walk reads, no more (seeds stay small)."""
        lines = ["ramwatch-memory-image 1"]
        for page in sorted(self.pages):
            bytes_, lo, hi = self.pages[page]
            lines.append(f"resident {page:x} {page + PAGE:x}")
            lines.append(f"data {page + lo:x} {bytes(bytes_[lo:hi + 1]).hex()}")
        return "\n".join(lines) + "\n"


def tcmalloc(change=None):
    p = Pages()
    # the start of [heap] as the capture holds it: tcmalloc's span records
    with open(os.path.join(HERE, "memimage", "c-tcmalloc.img")) as f:
        for line in f:
            if line.startswith(f"data {TC_HEAP:x} "):
                p.put(TC_HEAP, bytes.fromhex(line.split(" ", 2)[2].replace(" ", "").strip()))
    sm = bytearray(4232)
    u32(sm, 4224, 3)
    for k, (size, pages, move) in enumerate([(0, 0, 0), (16, 1, 32), (4096, 1, 2)]):
        u32(sm, 2684 + 4 * k, size)
        u64(sm, 3200 + 8 * k, pages)
        u32(sm, 2172 + 4 * k, move)
    central = bytearray(3 * 1216)
    for k in range(3):
        at = TC_BASE + TC_CENTRAL + k * 1216
        c = k * 1216
        u64(central, c + 8, k)
        u64(central, c + 32, at + 16)
        u64(central, c + 40, at + 16)
        u64(central, c + 80, TC_HEAP + 0x1000 if k else at + 64)
        u64(central, c + 88, TC_HEAP + 0x1000 if k else at + 64)
        u32(central, c + 1156, 16)
        u32(central, c + 1160, 64)
    u64(central, 1216 + 112, 2)
    u64(central, 1216 + 120, 300)
    u32(central, 1216 + 1152, 3)
    lists = bytearray(128 * 96 + 88)
    lists_at = TC_BASE + TC_PAGEHEAP + TC_FREE_LISTS
    for j in range(256):
        u64(lists, j * 48 + 16, lists_at + j * 48)
        u64(lists, j * 48 + 24, lists_at + j * 48)
    for i, v in enumerate([64 * 8192, 8 * 8192, 2 * 8192, 62 * 8192]):
        u64(lists, 128 * 96 + 8 * i, v)
    heads = bytearray(16)
    u32(heads, 0, 1)
    u64(heads, 8, TC_THREAD)
    thread = bytearray(56)
    u32(thread, 0, 5000)
    if change:
        change(central, lists, heads, thread)
    p.put(TC_BASE + TC_SIZEMAP, sm)
    p.put(TC_BASE + TC_CENTRAL, central)
    p.put(lists_at, lists)
    p.put(TC_BASE + TC_HEAPS_COUNT, heads)
    p.put(TC_THREAD + 4096, thread)
    return p.image()


def main():
    os.makedirs(OUT, exist_ok=True)
    variants = {"mimalloc": lambda b: None,
                "mimalloc-run-loop": lambda b: u32(b, slice_at(10), 0),
                "mimalloc-wild-block": lambda b: u32(b, slice_at(2) + 28, 0x7FFFFFFF),
                "mimalloc-free-out": lambda b: u64(b, slice_at(1) + 16, A - 64),
                "mimalloc-free-run-back": lambda b: u32(b, slice_at(511) + 4, 0)}
    for name, change in variants.items():
        b = segment()
        change(b)
        with open(os.path.join(OUT, f"{name}.img"), "w") as f:
            f.write(image(b))
    tc_variants = {"tcmalloc": None,
                   "tcmalloc-thread-loop": lambda c, l, h, t: u64(t, 48, TC_THREAD),
                   "tcmalloc-wild-counter": lambda c, l, h, t: u64(c, 1216 + 120, 1 << 40),
                   "tcmalloc-head-into-globals": lambda c, l, h, t: u64(l, 5 * 48 + 16, TC_BASE + TC_CENTRAL)}
    for name, change in tc_variants.items():
        with open(os.path.join(OUT, f"{name}.img"), "w") as f:
            f.write(tcmalloc(change))
    with open(os.path.join(OUT, "elf-mi-version.so"), "wb") as f:
        f.write(elf(b"\xb8\xd1\x00\x00\x00\xc3"))
    for name in ("java17-g1", "java17-shenandoah"):
        shutil.copyfile(os.path.join(HERE, "hsperfdata", f"{name}.hsperf"), os.path.join(OUT, f"hsperf-{name}.hsperf"))


if __name__ == "__main__":
    main()
