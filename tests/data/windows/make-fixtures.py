#!/usr/bin/env python3
"""Writes the Windows region lists the unit tests classify (test-win-census.c):
mixed.json holds one reservation of every shape the Windows rules know, laid
out as VirtualQueryEx reports them (one record per run of pages of the same
state and protection, AllocationBase naming the reservation); bad/ holds
captures each broken in one way.  (wine-holder.json is not written here: it
is what `ramwatch.exe scan PID --save-regions` saved of tests/windows/holder.c
under Wine 8.0, its image path shortened, beside the holder's own line,
wine-holder.made.json.)  Run from the repository's root:
python3 tests/data/windows/make-fixtures.py"""
import json
import os

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3
COMMIT, RESERVE, FREE = 0x1000, 0x2000, 0x10000
PRIVATE, MAPPED, IMAGE = 0x20000, 0x40000, 0x1000000
R, RW, WC_COPY, ER, ERW = 0x02, 0x04, 0x08, 0x20, 0x40
GUARD, WRITECOMBINE = 0x100, 0x400

regions = []


def reservation(base, kind, parts, path=None, alloc_protect=RW):
    """parts: (size, state, protect, resident, mark, evidence) from the base up."""
    at = base
    for size, state, protect, resident, *rest in parts:
        region = {"base": hex(at), "allocation_base": hex(base), "size": size, "state": state,
                  "protect": protect if state == COMMIT else 0, "allocation_protect": alloc_protect, "type": kind}
        if path:
            region["path"] = path
        if state == COMMIT:
            region["resident"] = resident
        if rest and rest[0]:
            region["mark"] = rest[0]
        if len(rest) > 1:
            region["evidence"] = rest[1]
        regions.append(region)
        at += size


def free(base, size):
    regions.append({"base": hex(base), "size": size, "state": FREE})


free(0, 0x10000)
reservation(0x10000000, PRIVATE, [(1 * MiB, COMMIT, RW, 512 * KiB, "nt_heap", "0xffeeffee read at 0x10000010"),
                                  (15 * MiB, RESERVE, 0, 0)])
reservation(0x11000000, PRIVATE, [(256 * KiB, COMMIT, RW, 256 * KiB, "segment_heap", "0xddeeddee read at 0x11000010"),
                                  (768 * KiB, RESERVE, 0, 0)])
reservation(0x12000000, PRIVATE, [(992 * KiB, RESERVE, 0, 0), (8 * KiB, COMMIT, RW | GUARD, 0),
                                  (24 * KiB, COMMIT, RW, 24 * KiB, "stack", "TEB of thread 7: stack 0x120f8000-0x12100000")])
reservation(0x12100000, PRIVATE, [(992 * KiB, RESERVE, 0, 0), (8 * KiB, COMMIT, RW | GUARD, 0), (24 * KiB, COMMIT, RW, 16 * KiB)])
free(0x12200000, 0x20000000 - 0x12200000)
reservation(0x20000000, MAPPED, [(4 * MiB, COMMIT, R, 4 * MiB)], path="C:\\data\\weights.bin", alloc_protect=R)
reservation(0x21000000, MAPPED, [(2 * MiB, COMMIT, RW, 1 * MiB)])
reservation(0x22000000, PRIVATE, [(1 * MiB, COMMIT, RW | WRITECOMBINE, 0)])
reservation(0x30000000, PRIVATE, [(64 * KiB, COMMIT, ERW, 64 * KiB)], alloc_protect=ERW)
reservation(0x31000000, PRIVATE, [(1 * MiB, COMMIT, RW, 512 * KiB)])
reservation(0x32000000, PRIVATE, [(32 * MiB, COMMIT, RW, 64 * KiB)])
reservation(0x40000000, PRIVATE, [(256 * MiB, RESERVE, 0, 0)])
reservation(0x50000000, PRIVATE, [(3 * MiB, COMMIT, RW, 3 * MiB)])
reservation(0x51000000, PRIVATE, [(2 * MiB, COMMIT, RW, 2 * MiB, "cuda_host")])
reservation(0x1000000000, PRIVATE, [(1 * GiB, COMMIT, RW, 2 * MiB), (63 * GiB, RESERVE, 0, 0)])
reservation(0x2000000000, PRIVATE, [(64 * MiB, COMMIT, RW, 64 * MiB), (960 * MiB, RESERVE, 0, 0)])
reservation(0x7ff6a0000000, IMAGE, [(4 * KiB, COMMIT, R, 4 * KiB), (12 * KiB, COMMIT, ER, 8 * KiB),
                                    (4 * KiB, COMMIT, WC_COPY, 4 * KiB), (4 * KiB, COMMIT, RW, 4 * KiB)],
            path="C:\\Python311\\python.exe", alloc_protect=0x80)
reservation(0x7ffb10000000, IMAGE, [(64 * KiB, COMMIT, ER, 32 * KiB), (8 * KiB, COMMIT, WC_COPY, 0)],
            path="C:\\Python311\\python311.dll", alloc_protect=0x80)
reservation(0x7ffb20000000, IMAGE, [(16 * KiB, COMMIT, ER, 4 * KiB)],
            path="C:\\Python311\\Lib\\site-packages\\numpy.libs\\libopenblas64__v0.3.23.dll", alloc_protect=0x80)

capture = {
    "format": "ramwatch-windows-regions", "version": 1,
    "process": {"pid": 4242, "creation_time": 133774560000000000, "image": "C:\\Python311\\python.exe",
                "cmdline": "python.exe train.py", "owner": "LAB\\ada"},
    "residency": "exact", "residency_why": None,
    "counters": {"private_usage": 1197 * MiB, "working_set": 90 * MiB, "peak_working_set": 120 * MiB,
                 "pagefile_usage": 1197 * MiB},
    "regions": regions,
}

here = os.path.dirname(os.path.abspath(__file__))


def write(name, value):
    with open(os.path.join(here, name), "w") as out:
        json.dump(value, out, indent=1)
        out.write("\n")


write("mixed.json", capture)


def broken(name, change):
    value = json.loads(json.dumps(capture))
    change(value)
    write(os.path.join("bad", name), value)


broken("overlap.json", lambda c: c["regions"].insert(3, dict(c["regions"][1])))
broken("below-base.json", lambda c: c["regions"][1].update(allocation_base="0x10100000"))
broken("type.json", lambda c: c["regions"][1].update(type=0x80000))
broken("resident.json", lambda c: c["regions"][1].update(resident=2 * MiB))
broken("mark.json", lambda c: c["regions"][1].update(mark="lfh"))
broken("base.json", lambda c: c["regions"][1].update(base="10000000"))
broken("version.json", lambda c: c.update(version=2))
broken("format.json", lambda c: c.update(format="ramwatch-census"))
broken("state.json", lambda c: c["regions"][1].update(state=0x4000))
broken("residency.json", lambda c: c.update(residency="mostly"))
