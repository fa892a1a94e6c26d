"""What the scripts that lay out a process by hand (make-glibc-image.py,
make-jemalloc-image.py) write it with: its memory as whole pages of bytes,
its mappings as smaps entries, and the files a census of it reads
(memimage/NAME.smaps, .status and .img) and the fuzz seeds beside them."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = 4096


class Memory:
    """Bytes at addresses, in the pages that hold them."""

    def __init__(self):
        self.pages = {}

    def write(self, addr, data):
        for i, b in enumerate(data):
            page = (addr + i) & ~(PAGE - 1)
            self.pages.setdefault(page, bytearray(PAGE))[(addr + i) - page] = b

    def u64(self, addr, v):
        self.write(addr, struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF))

    def u32(self, addr, v):
        self.write(addr, struct.pack("<I", v))


def region(start, end, perms, offset=0, path="", rss=0, anon=None, flags=None, inode=0):
    """A mapping's smaps entry: resident pages are anonymous unless a file
    (not [heap]) is mapped there."""
    if anon is None:
        anon = rss if not path or path == "[heap]" else 0
    if flags is None:
        flags = " ".join(code for letter, code in zip(perms[:3], ("rd", "wr", "ex")) if letter != "-") + " mr mw me"
        flags += " ac" if perms[1] == "w" else ""
    dev = "fe:00" if inode else "00:00"
    head = f"{start:08x}-{end:08x} {perms} {offset:08x} {dev} {inode}"
    head = f"{head:<73}{path}" if path else head + " "
    kb = lambda b: f"{b // 1024} kB"
    return (f"{head}\nSize: {kb(end - start)}\nRss: {kb(rss)}\nPss: {kb(rss)}\n"
            f"Private_Dirty: {kb(anon)}\nPrivate_Clean: {kb(rss - anon)}\nAnonymous: {kb(anon)}\n"
            f"Swap: 0 kB\nVmFlags: {flags}\n")


def smaps(regions):
    """The entries in the order of their addresses, as the kernel lists them."""
    return "".join(sorted(regions, key=lambda text: int(text.split("-", 1)[0], 16)))


def status(name, pid, vm_kb, rss_anon_kb, rss_file_kb, threads):
    """/proc/PID/status of the process, as far as a census reads it."""
    return (f"Name:\t{name}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t{pid}\nPid:\t{pid}\nPPid:\t1\n"
            "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"
            f"VmPeak:\t{vm_kb:8} kB\nVmSize:\t{vm_kb:8} kB\nVmRSS:\t{rss_anon_kb + rss_file_kb:8} kB\n"
            f"RssAnon:\t{rss_anon_kb:8} kB\nRssFile:\t{rss_file_kb:8} kB\nRssShmem:\t{0:8} kB\n"
            f"VmSwap:\t{0:8} kB\nThreads:\t{threads}\n")


def write_capture(name, smaps_text, status, image):
    """tests/data/memimage/NAME.smaps, .status and .img."""
    for ext, text in (("smaps", smaps_text), ("status", status), ("img", image)):
        with open(os.path.join(HERE, "memimage", f"{name}.{ext}"), "w") as f:
            f.write(text)


def write_seed(name, image):
    """tests/data/fuzz/heap/NAME.img, a seed of tests/fuzz/fuzz-heap.c."""
    seeds = os.path.join(HERE, "fuzz", "heap")
    os.makedirs(seeds, exist_ok=True)
    with open(os.path.join(seeds, f"{name}.img"), "w") as f:
        f.write(image)
