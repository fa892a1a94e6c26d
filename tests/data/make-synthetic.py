#!/usr/bin/python3
"""Writes the synthetic smaps fixtures in tests/data/smaps/synthetic-*.smaps:
shapes that cannot be captured on a machine without a GPU or with an older
kernel, laid out as the kernel prints them (fs/proc/task_mmu.c).  The CUDA
shapes follow process maps published in public bug reports (the driver's
reservation at 0x200000000, 2 MiB rw-s /dev/nvidiactl chunks, /dev/nvidia0
BAR mappings, /dev/nvidia-uvm with offset equal to address), with the
VmFlags and page counts the driver's mmap handlers give them (NVIDIA's open
kernel modules: nv-mmap.c maps system memory with vm_insert_page, so its
pages count in Rss, and device memory with remap_pfn_range, "io pf", so
they do not; uvm.c refuses a mapping whose offset is not its address).

    tests/data/make-synthetic.py        # rewrites the files
"""
import os

KB = 1024
MB = 1024 * KB
GB = 1024 * MB

FIELDS_6X = ["Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty", "Shared_Clean",
             "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM",
             "LazyFree", "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb",
             "Private_Hugetlb", "Swap", "SwapPss", "Locked"]
# Linux 4.14: no Pss_Dirty, no KSM, no FilePmdMapped; THPeligible came in 5.0
FIELDS_4X = ["Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Shared_Clean", "Shared_Dirty",
             "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "LazyFree", "AnonHugePages",
             "ShmemPmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss", "Locked"]


def region(start, size, perms, path="", rss=0, anon=None, swap=0, flags=None, offset=0, dev="00:00",
           inode=0, locked=0, hugetlb=0):
    """One region; anon defaults to rss for private anonymous memory."""
    anonymous_like = path == "" or path.startswith("[anon:") or path.startswith("[stack") or path == "[heap]"
    if anon is None:
        anon = rss if anonymous_like and perms[3] == "p" else 0
    if flags is None:
        flags = []
        for letter, code in zip(perms[:3], ("rd", "wr", "ex")):
            if letter != "-":
                flags.append(code)
        if perms[3] == "s":
            flags.append("sh")
        flags += ["mr", "mw", "me"]
        if perms[3] == "s":
            flags.append("ms")
        if "w" in perms and perms[3] == "p":
            flags.append("ac")
    return dict(start=start, size=size, perms=perms, path=path, rss=rss, anon=anon, swap=swap,
                flags=flags, offset=offset, dev=dev, inode=inode, locked=locked, hugetlb=hugetlb)


def render(regions, fields=FIELDS_6X, thp=True):
    out = []
    for r in sorted(regions, key=lambda r: r["start"]):
        head = "%x-%x %s %08x %s %d " % (r["start"], r["start"] + r["size"], r["perms"], r["offset"],
                                         r["dev"], r["inode"])
        if r["path"]:
            head = head.ljust(73) + r["path"]
        out.append(head.rstrip(" ") + (" " if not r["path"] else ""))
        private = r["perms"][3] == "p"
        values = {
            "Size": r["size"] // KB, "KernelPageSize": 4, "MMUPageSize": 4,
            "Rss": r["rss"] // KB, "Pss": r["rss"] // KB, "Pss_Dirty": r["anon"] // KB,
            "Shared_Clean": 0, "Shared_Dirty": 0 if private else r["rss"] // KB,
            "Private_Clean": (r["rss"] - r["anon"]) // KB if private else 0,
            "Private_Dirty": r["anon"] // KB if private else 0,
            "Referenced": r["rss"] // KB, "Anonymous": r["anon"] // KB,
            "Swap": r["swap"] // KB, "SwapPss": r["swap"] // KB, "Locked": r["locked"] // KB,
            "Shared_Hugetlb": r["hugetlb"] // KB if not private else 0,
            "Private_Hugetlb": r["hugetlb"] // KB if private else 0,
        }
        for name in fields:
            value = values.get(name, 0)
            label = (name + ":").ljust(16)
            if name == "Private_Hugetlb":  # printed with its own format, same columns
                out.append("Private_Hugetlb: %7d kB" % value)
            else:
                out.append("%s%8d kB" % (label, value))
        if thp:
            out.append("THPeligible:    %8d" % 0)
        out.append("VmFlags: " + "".join(f + " " for f in r["flags"]))
    return "\n".join(out) + "\n"


def libc(base):
    path = "/usr/lib/x86_64-linux-gnu/libc.so.6"
    return [region(base, 0x26000, "r--p", path, rss=152 * KB, dev="fe:00", inode=3000),
            region(base + 0x26000, 0x156000, "r-xp", path, rss=1 * MB, offset=0x26000, dev="fe:00", inode=3000),
            region(base + 0x17c000, 0x4000, "rw-p", path, rss=16 * KB, anon=16 * KB, offset=0x1d5000,
                   dev="fe:00", inode=3000)]


# VmFlags of the NVIDIA driver's mappings (rd wr sh mr mw me ms: a shared
# read-write mapping; dc: CUDA asks MADV_DONTFORK)
NV_SYSMEM = ["rd", "wr", "sh", "mr", "mw", "me", "ms", "dc", "de", "dd", "mm"]  # /dev/nvidiactl system memory
NV_PFN = ["rd", "wr", "sh", "mr", "mw", "me", "ms", "io", "pf", "dc", "de", "dd"]  # BAR or peer I/O: no pages
NV_UVM = ["rd", "wr", "sh", "mr", "mw", "me", "ms", "de", "mm"]                  # /dev/nvidia-uvm
NV_RESERVE = ["mr", "mw", "me", "nr"]                                          # PROT_NONE, MAP_NORESERVE


def cuda_pytorch():
    """A PyTorch process on a GPU: CUDA pinned, driver and managed memory,
    pymalloc arenas and an OpenBLAS buffer."""
    exe = "/usr/bin/python3.10"
    r = [region(0x400000, 0x24000, "r--p", exe, rss=144 * KB, dev="fe:00", inode=100),
         region(0x424000, 0x2b0000, "r-xp", exe, rss=2 * MB, offset=0x24000, dev="fe:00", inode=100),
         region(0x6d4000, 0x40000, "rw-p", exe, rss=256 * KB, anon=200 * KB, offset=0x2d4000, dev="fe:00", inode=100),
         region(0x714000, 0x23000, "rw-p", "", rss=100 * KB),  # the executable's .bss
         region(0x1000000, 0x3000000, "rw-p", "[heap]", rss=40 * MB),
         # the driver's reservation, its device and control mappings
         region(0x200000000, 0x400000, "---p"),
         region(0x200400000, 0x200000, "rw-s", "/dev/nvidia0", flags=NV_PFN, dev="00:05", inode=451),
         region(0x200600000, 0x200000, "rw-s", "/dev/nvidiactl", rss=2 * MB, flags=NV_SYSMEM, dev="00:05", inode=450),
         region(0x200800000, 0x200000, "rw-s", "/dev/nvidiactl", rss=2 * MB, flags=NV_SYSMEM, dev="00:05", inode=450),
         region(0x200a00000, 0x4000, "rw-s", "/dev/nvidiactl", flags=NV_PFN, dev="00:05", inode=450),
         region(0x200a04000, 0x1fc000, "---p"),
         region(0x200c00000, 0x3400000, "rw-s", "/dev/nvidiactl", rss=52 * MB, flags=NV_SYSMEM, dev="00:05", inode=450),
         region(0x204000000, 0xfc200000, "---p"),
         region(0x10000000000, 0x4000000, "---p"),
         # managed memory: the file offset is the address
         region(0x7f2000000000, 0x8000000, "rw-s", "/dev/nvidia-uvm", rss=16 * MB,
                offset=0x7f2000000000, flags=NV_UVM, dev="00:05", inode=452),
         region(0x7f3000000000, 0x2000000, "rw-p", "", rss=512 * KB),   # OpenBLAS buffer, barely touched
         region(0x7f3100000000, 0x800000, "rw-p", "", rss=8 * MB),      # pymalloc: 8 arenas merged
         region(0x7f3200000000, 0x4001000, "rw-p", "", rss=64 * MB),    # a large malloc block (size + a page)
         ]
    path = "/usr/lib/x86_64-linux-gnu/libopenblasp-r0.3.21.so"
    r += [region(0x7f3300000000, 0x2000000, "r-xp", path, rss=4 * MB, dev="fe:00", inode=200),
          region(0x7f3302000000, 0x10000, "rw-p", path, rss=64 * KB, anon=64 * KB, offset=0x2000000, dev="fe:00", inode=200)]
    path = "/usr/lib/x86_64-linux-gnu/libcuda.so.525.60.13"
    r += [region(0x7f3400000000, 0x1600000, "r-xp", path, rss=20 * MB, dev="fe:00", inode=300)]
    r += libc(0x7f3500000000)
    r += [region(0x7ffd00000000, 0x21000, "rw-p", "[stack]", rss=132 * KB)]
    return r


def cuda_recent_driver():
    """A PyTorch process on a recent driver (a layout published from a
    python3 process's maps: 0x200000000 ---p, a 2 MiB /dev/nvidia0 BAR
    mapping, a large /dev/nvidiactl block, 2 MiB chunks), after
    cuMemHostAlloc (pinned memory in the unified address space high up),
    cuMemAllocManaged (managed memory mapped MAP_FIXED into the driver's
    reservation there, partly on the GPU: no host pages), and with a
    managed mapping moved by mremap, which the driver disables."""
    exe = "/usr/bin/python3.11"
    ctl = dict(dev="00:05", inode=18)
    gpu = dict(dev="00:05", inode=20)
    uvm = dict(dev="00:05", inode=22)
    r = [region(0x400000, 0x23000, "r--p", exe, rss=140 * KB, dev="fe:00", inode=23),
         region(0x423000, 0x292000, "r-xp", exe, rss=2 * MB, offset=0x23000, dev="fe:00", inode=23),
         region(0x6b5000, 0x23a000, "r--p", exe, rss=1 * MB, offset=0x2b5000, dev="fe:00", inode=23),
         region(0x8ef000, 0x1000, "r--p", exe, rss=4 * KB, anon=4 * KB, offset=0x4ee000, dev="fe:00", inode=23),
         region(0x8f0000, 0x47000, "rw-p", exe, rss=284 * KB, anon=200 * KB, offset=0x4ef000, dev="fe:00", inode=23),
         region(0x937000, 0x23000, "rw-p", "", rss=100 * KB),
         region(0x95a000, 0x13e3f000, "rw-p", "[heap]", rss=300 * MB),
         # the driver's window from 0x200000000
         region(0x200000000, 0x400000, "---p", flags=NV_RESERVE),
         region(0x200400000, 0x200000, "rw-s", "/dev/nvidia0", flags=NV_PFN, **gpu),
         region(0x200600000, 0x3800000, "rw-s", "/dev/nvidiactl", rss=56 * MB, flags=NV_SYSMEM, **ctl),
         region(0x203e00000, 0x1e00000, "---p", flags=NV_RESERVE),
         region(0x205c00000, 0x200000, "rw-s", "/dev/nvidiactl", rss=2 * MB, flags=NV_SYSMEM, **ctl),
         region(0x205e00000, 0x200000, "rw-s", "/dev/nvidiactl", rss=2 * MB, flags=NV_SYSMEM, **ctl),
         region(0x206000000, 0x200000, "rw-s", "/dev/nvidia0", flags=NV_PFN, **gpu),
         region(0x206200000, 0x10000, "rw-s", "/dev/nvidiactl", flags=NV_PFN, **ctl),  # peer I/O: no pages
         region(0x206210000, 0x1f9df0000, "---p", flags=NV_RESERVE),
         # the unified address space high up: pinned and managed memory in it
         region(0x7ea000000000, 0x3a000000, "---p", flags=NV_RESERVE),
         region(0x7ea03a000000, 0x200000, "rw-s", "/dev/nvidia-uvm", rss=2 * MB, offset=0x7ea03a000000,
                flags=NV_UVM, **uvm),
         region(0x7ea03a200000, 0x10000000, "rw-s", "/dev/nvidia-uvm", rss=96 * MB, offset=0x7ea03a200000,
                flags=NV_UVM, **uvm),
         region(0x7ea04a200000, 0x8000000, "rw-s", "/dev/nvidia-uvm", offset=0x7ea04a200000,
                flags=NV_UVM, **uvm),  # on the GPU now: no host pages
         region(0x7ea052200000, 0x5de00000, "---p", flags=NV_RESERVE),
         region(0x7ea0b0000000, 0x10000000, "rw-s", "/dev/nvidiactl", rss=256 * MB, flags=NV_SYSMEM, **ctl),
         region(0x7eb000000000, 0x200000, "rw-s", "/dev/nvidia-uvm", offset=0x7ea060000000, flags=NV_UVM, **uvm),
         region(0x7f1000000000, 0x800000, "rw-p", "", rss=8 * MB),     # pymalloc: 8 arenas merged
         ]
    path = "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"
    r += [region(0x7f3400000000, 0x1a00000, "r-xp", path, rss=24 * MB, dev="fe:00", inode=300),
          region(0x7f3401a00000, 0x80000, "rw-p", path, rss=512 * KB, anon=256 * KB, offset=0x1a00000, dev="fe:00",
                 inode=300)]
    r += libc(0x7f3500000000)
    r += [region(0x7ffd00000000, 0x21000, "rw-p", "[stack]", rss=132 * KB)]
    return r


def cuda_old_driver():
    """A CUDA process on an old driver and kernel (Linux 4.x), as published:
    rwxs /dev/nvidiactl mappings at 0x200000000 whose offsets are physical
    addresses, mapped page frame by page frame (no pages in smaps)."""
    ctl = dict(dev="00:06", inode=512)
    r = [region(0x400000, 0x100000, "r-xp", "/opt/app/bin/detect", rss=1 * MB, dev="08:01", inode=70),
         region(0x1200000, 0x400000, "rw-p", "[heap]", rss=4 * MB)]
    base, phys = 0x200000000, [0x411c5a000, 0x460756000, 0x45c738000, 0x45dce4000]
    for i in range(2):
        r += [region(base, 0x100000 if i == 0 else 0x400000, "rwxs", "/dev/nvidiactl", offset=phys[2 * i],
                     flags=["rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "io", "pf", "de", "dd"], **ctl)]
        base += 0x100000 if i == 0 else 0x400000
        r += [region(base, 0x4000, "rwxs", "/dev/nvidiactl", offset=phys[2 * i + 1],
                     flags=["rd", "wr", "ex", "sh", "mr", "mw", "me", "ms", "io", "pf", "de", "dd"], **ctl),
              region(base + 0x4000, 0x1c000, "---p")]
        base += 0x20000
    r += [region(0x7fff30000000, 0x21000, "rw-p", "[stack]", rss=40 * KB)] + libc(0x7f6d00000000)
    return r


def named_regions():
    """Names set with prctl(PR_SET_VMA_ANON_NAME): glibc >= 2.39 with
    glibc.mem.decorate_maps=1, bionic, and a program's own."""
    return [region(0x55a000000000, 0x1000, "r--p", "/usr/bin/app", rss=4 * KB, dev="fe:00", inode=9),
            region(0x55a000001000, 0x1000, "r-xp", "/usr/bin/app", rss=4 * KB, offset=0x1000, dev="fe:00", inode=9),
            region(0x7f0000000000, 0x21000, "rw-p", "[anon: glibc: malloc arena]", rss=132 * KB),
            region(0x7f0000021000, 0x3fdf000, "---p", "", flags=["mr", "mw", "me", "nr"]),
            region(0x7f0010000000, 0x101000, "rw-p", "[anon: glibc: malloc]", rss=1 * MB),
            region(0x7f0020000000, 0x1000, "---p", "", flags=["mr", "mw", "me"]),
            region(0x7f0020001000, 0x800000, "rw-p", "[anon: glibc: pthread stack: 4242]", rss=16 * KB),
            region(0x7f0030000000, 0x800000, "rw-p", "[anon: glibc: unused stack]", rss=8 * KB),
            region(0x7f0040000000, 0x2000, "rw-p", "[anon: glibc: loader malloc]", rss=8 * KB),
            region(0x7f0050000000, 0x100000, "rw-p", "[anon:scudo:primary]", rss=512 * KB),
            region(0x7f0060000000, 0x400000, "rw-p", "[anon:model weights cache]", rss=4 * MB),
            region(0x7f0070000000, 0x200000, "rw-s", "[anon_shmem:ring]", rss=2 * MB),
            region(0x7ffc00000000, 0x21000, "rw-p", "[stack]", rss=20 * KB)]


def old_kernel():
    """Linux 4.14 smaps: fewer fields, thread stacks named [stack:TID]."""
    return [region(0x400000, 0xf0000, "r-xp", "/usr/sbin/daemon", rss=600 * KB, dev="08:01", inode=77),
            region(0x6ef000, 0x2000, "rw-p", "/usr/sbin/daemon", rss=8 * KB, anon=8 * KB, offset=0xef000, dev="08:01", inode=77),
            region(0x1bd2000, 0x200000, "rw-p", "[heap]", rss=1 * MB, swap=512 * KB),
            region(0x7f5a00000000, 0x1000, "---p", ""),
            region(0x7f5a00001000, 0x800000, "rw-p", "[stack:4301]", rss=12 * KB),
            region(0x7f5b00000000, 0x10000000, "rw-s", "/SYSV00000000 (deleted)", rss=64 * MB, dev="00:05", inode=32768),
            region(0x7f5c00000000, 0x200000, "rw-p", "/anon_hugepage (deleted)", dev="00:0f", inode=1001,
                   hugetlb=2 * MB, flags=["rd", "wr", "mr", "mw", "me", "ac", "ht"]),
            region(0x7fff10000000, 0x21000, "rw-p", "[stack]", rss=40 * KB)] + libc(0x7f5d00000000)


def reserving_allocator():
    """A RAM allocator that reserves 64 GiB at a time and commits parts."""
    base = 0x7e0000000000
    return [region(0x55b000000000, 0x1000, "r-xp", "/opt/infer/bin/infer", rss=4 * KB, dev="fe:00", inode=12),
            region(base, 2 * GB, "rw-p", "", rss=2 * GB),
            region(base + 2 * GB, 10 * GB, "---p", "", flags=["mr", "mw", "me", "nr"]),
            region(base + 12 * GB, 1 * GB, "rw-p", "", rss=512 * MB, swap=256 * MB),
            region(base + 13 * GB, 51 * GB, "---p", "", flags=["mr", "mw", "me", "nr"]),
            # a second reservation of 128 GiB, far away
            region(base + 1024 * GB, 128 * GB, "---p", "", flags=["mr", "mw", "me", "nr"]),
            region(0x7fff20000000, 0x21000, "rw-p", "[stack]", rss=40 * KB)]


def main():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smaps")
    files = {
        "synthetic-cuda-pytorch.smaps": render(cuda_pytorch()),
        "synthetic-cuda-recent-driver.smaps": render(cuda_recent_driver()),
        "synthetic-cuda-old-driver.smaps": render(cuda_old_driver(), FIELDS_4X, thp=False),
        "synthetic-named-regions.smaps": render(named_regions()),
        "synthetic-old-kernel.smaps": render(old_kernel(), FIELDS_4X, thp=False),
        "synthetic-reserving-allocator.smaps": render(reserving_allocator()),
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w") as f:
            f.write(text)
        print(name)


if __name__ == "__main__":
    main()
